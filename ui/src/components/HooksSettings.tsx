// Settings → Hooks (DESIGN §17): the user's programs that run at the points of a turn, as
// `hooks.json` lists them; a file with an error said in words (it runs none of its hooks);
// each workspace with a `.preflight/hooks.json`, whose hooks run only once the user trusts the
// folder here — asked twice, since they run as the user, without asking.
import { useEffect, useState } from "preact/hooks";

import type { HooksView } from "../generated/HooksView";
import type { WorkspaceHooks } from "../generated/WorkspaceHooks";
import { api, asApiError } from "../lib/api";
import { describeError } from "../lib/errorText";
import { t } from "../lib/i18n";

export interface HooksSource {
  load: () => Promise<HooksView>;
  trust: (workspace: string, trusted: boolean) => Promise<HooksView>;
}

const shellSource: HooksSource = { load: api.hooksSettings, trust: api.trustHooks };

function WorkspaceRow({ entry, busy, onTrust }: { entry: WorkspaceHooks; busy: boolean; onTrust: (trusted: boolean) => void }) {
  const [asking, setAsking] = useState(false);
  return (
    <li class="hooks-workspace" data-testid="hooks-workspace" data-workspace={entry.workspace}>
      <div class="row">
        <code>{entry.workspace}</code>
        <span class="badge muted">{entry.present ? t("hooks.filePresent") : t("hooks.fileAbsent")}</span>
      </div>
      <label class="check">
        <input
          type="checkbox"
          data-testid="hooks-trust"
          checked={entry.trusted}
          disabled={busy || asking}
          onChange={(event) => {
            const wanted = event.currentTarget.checked;
            event.currentTarget.checked = entry.trusted;
            if (wanted) setAsking(true);
            else onTrust(false);
          }}
        />
        {t("hooks.trust")}
      </label>
      {asking && (
        <div class="hooks-confirm" role="alertdialog" aria-label={t("hooks.confirmTitle")} data-testid="hooks-confirm">
          <p class="warning">{t("hooks.confirm", { file: entry.file })}</p>
          <div class="row">
            <button type="button" class="danger small" data-testid="hooks-confirm-trust" onClick={() => { setAsking(false); onTrust(true); }}>
              {t("hooks.confirmTrust")}
            </button>
            <button type="button" class="secondary small" data-testid="hooks-confirm-cancel" onClick={() => setAsking(false)}>
              {t("hooks.cancel")}
            </button>
          </div>
        </div>
      )}
    </li>
  );
}

/** `next`, still listing a workspace shown before (one just untrusted that no chat uses is
 *  no longer in the engine's list): the user may change their mind while the screen is open. */
function keepShown(shown: HooksView | null, next: HooksView): HooksView {
  const listed = new Set(next.workspaces.map((entry) => entry.workspace));
  const gone = (shown?.workspaces ?? []).filter((entry) => !listed.has(entry.workspace));
  return gone.length === 0 ? next : { ...next, workspaces: [...next.workspaces, ...gone.map((entry) => ({ ...entry, trusted: false }))] };
}

export function HooksSettings({ source = shellSource }: { source?: HooksSource }) {
  const [view, setView] = useState<HooksView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const act = async (action: () => Promise<HooksView>) => {
    setBusy(true);
    try {
      const next = await action();
      setView((shown) => keepShown(shown, next));
      setError(null);
    } catch (caught) {
      setError(describeError(asApiError(caught)));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => void act(source.load), [source]);
  const file = view?.file ?? "hooks.json";
  return (
    <section class="hooks-settings" data-testid="hooks-settings" aria-label={t("hooks.title")}>
      <h2>{t("hooks.title")}</h2>
      <p class="muted small">{t("hooks.intro", { file })}</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {view?.errors.map((problem) => (
        <p key={problem.file} class="error" role="alert" data-testid="hooks-file-error">
          {t("hooks.fileError", { file: problem.file, message: problem.message })}
        </p>
      ))}
      {view && view.loaded.length === 0 && <p class="muted" data-testid="hooks-none">{t("hooks.none")}</p>}
      {view && view.loaded.length > 0 && (
        <table class="hooks-list" data-testid="hooks-list">
          <thead>
            <tr>
              <th>{t("hooks.event")}</th>
              <th>{t("hooks.matcher")}</th>
              <th>{t("hooks.command")}</th>
              <th>{t("hooks.timeout")}</th>
            </tr>
          </thead>
          <tbody>
            {view.loaded.map((hook, index) => (
              <tr key={index} data-testid="hooks-hook" title={hook.file}>
                <td>{hook.event}</td>
                <td>{hook.matcher === "" || hook.matcher === "*" ? t("hooks.every") : <code>{hook.matcher}</code>}</td>
                <td>
                  <code>{hook.command}</code>
                </td>
                <td>{t("hooks.seconds", { count: Number(hook.timeout_s) })}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {view && view.workspaces.length > 0 && (
        <>
          <h3>{t("hooks.workspaces")}</h3>
          <p class="muted small">{t("hooks.workspacesIntro")}</p>
          <ul class="hooks-workspaces">
            {view.workspaces.map((entry) => (
              <WorkspaceRow key={entry.workspace} entry={entry} busy={busy} onTrust={(trusted) => void act(() => source.trust(entry.workspace, trusted))} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
