// Settings → MCP servers, a remote (`url`) server: its address, whether the user is signed in
// (OAuth: the engine opens the browser, listens for the redirect and keeps the tokens in the
// OS key store), Sign in / Sign out, the page to finish in (with the link to copy, in case no
// browser opened) and why a sign-in failed. The section polls the settings while one is
// under way.
import { useState } from "preact/hooks";

import type { McpRemote } from "../generated/McpRemote";
import type { McpSettings } from "../generated/McpSettings";
import { t } from "../lib/i18n";

/** How often the settings are read again while a sign-in is under way. */
export const SIGN_IN_POLL_MS = 1500;

export type SignInStatus = "signed_in" | "pending" | "failed" | "signed_out";

/** Where the server's sign-in stands; `started` is a sign-in this window began and has not
 *  seen end yet (the engine may not report it as pending at once). */
export function signInStatus(remote: McpRemote, started: string | undefined): SignInStatus {
  if (remote.sign_in?.state === "pending" || started !== undefined) return "pending";
  if (remote.signed_in || remote.sign_in?.state === "signed_in") return "signed_in";
  return remote.sign_in?.state === "failed" ? "failed" : "signed_out";
}

/** The sign-ins this window began, less the ones `settings` shows ended (or gone). */
export function settle(started: Record<string, string>, settings: McpSettings): Record<string, string> {
  const left: Record<string, string> = {};
  for (const [name, url] of Object.entries(started)) {
    const remote = settings.servers.find((server) => server.name === name)?.remote;
    const state = remote?.sign_in?.state;
    const ended = !remote || state === "failed" || state === "signed_in" || (remote.signed_in && state !== "pending");
    if (!ended) left[name] = url;
  }
  return left;
}

export interface RemoteSignInProps {
  name: string;
  remote: McpRemote;
  /** The page of a sign-in this window began. */
  started: string | undefined;
  busy: boolean;
  onSignIn: (name: string) => void;
  onSignOut: (name: string) => void;
}

export function RemoteSignIn({ name, remote, started, busy, onSignIn, onSignOut }: RemoteSignInProps) {
  const status = signInStatus(remote, started);
  const page = remote.sign_in?.state === "pending" ? remote.sign_in.authorization_url : started;
  return (
    <div class="mcp-remote small" data-testid="mcp-remote" data-sign-in={status}>
      <p>
        <span class="muted">{t("mcp.remote.url")}</span>{" "}
        <code class="mcp-remote-url" data-testid="mcp-remote-url">
          {remote.url}
        </code>
      </p>
      {status === "signed_in" && (
        <div class="row">
          <span class="mcp-signed-in" data-testid="mcp-signed-in">
            {t("mcp.remote.signedIn")}
          </span>
          <button type="button" class="secondary small" disabled={busy} data-testid="mcp-sign-out" onClick={() => onSignOut(name)}>
            {t("mcp.remote.signOut")}
          </button>
        </div>
      )}
      {status === "pending" && <PendingSignIn page={page ?? ""} busy={busy} onAgain={() => onSignIn(name)} />}
      {status === "failed" && remote.sign_in?.state === "failed" && (
        <p class="error small" data-testid="mcp-sign-in-error">
          {t("mcp.remote.failed", { detail: remote.sign_in.error })}
        </p>
      )}
      {(status === "signed_out" || status === "failed") && (
        <div class="row">
          <span class="muted">{t("mcp.remote.signedOut")}</span>
          <button type="button" class="primary small" disabled={busy} data-testid="mcp-sign-in" onClick={() => onSignIn(name)}>
            {t("mcp.remote.signIn")}
          </button>
        </div>
      )}
    </div>
  );
}

function PendingSignIn({ page, busy, onAgain }: { page: string; busy: boolean; onAgain: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div data-testid="mcp-sign-in-pending">
      <p>
        <span class="spinner" aria-hidden="true" /> {t("mcp.remote.finish")}
      </p>
      {page !== "" && (
        <p>
          <span class="muted">{t("mcp.remote.noBrowser")}</span>{" "}
          <code class="mcp-remote-url" data-testid="mcp-sign-in-url">
            {page}
          </code>{" "}
          <button type="button" class="icon small" data-testid="mcp-sign-in-copy" onClick={() => void navigator.clipboard?.writeText(page).then(() => setCopied(true), () => {})}>
            {copied ? t("mcp.remote.copied") : t("mcp.remote.copy")}
          </button>
        </p>
      )}
      <button type="button" class="secondary small" disabled={busy} data-testid="mcp-sign-in-again" onClick={onAgain}>
        {t("mcp.remote.again")}
      </button>
    </div>
  );
}
