// Settings → MCP servers: the servers of mcp.json (and the ones Preflight supplies) with
// their class, state and which tools planning and execution see; add one (fields, or an
// entry pasted from another client), edit, remove, restart, and test (start it on its own
// and list its tools); a remote server's sign-in (McpSignIn.tsx). The engine validates every
// save by its start-up rules and shows its own error (file, key) when an entry is wrong;
// nothing is then written.
import { useEffect, useRef, useState } from "preact/hooks";

import type { McpServerSave } from "../generated/McpServerSave";
import type { McpServerView } from "../generated/McpServerView";
import type { McpSettings } from "../generated/McpSettings";
import type { McpTool } from "../generated/McpTool";
import type { ServerClass } from "../generated/ServerClass";
import { asApiError } from "../lib/api";
import { describeError } from "../lib/errorText";
import { t } from "../lib/i18n";
import { editorMode, entryFromFields, entryFromRemote, fieldsFromEntry, pastedEntry, remoteFromEntry, type EditorMode, type EntryFields, type Parsed, type RemoteFields } from "../lib/mcpEntry";
import { RemoteSignIn, SIGN_IN_POLL_MS, settle } from "./McpSignIn";

/** What the section calls (the desktop commands; a test passes its own). */
export interface McpSource {
  load: () => Promise<McpSettings>;
  save: (save: McpServerSave) => Promise<McpSettings>;
  remove: (name: string) => Promise<McpSettings>;
  restart: (name: string) => Promise<McpSettings>;
  test: (save: McpServerSave) => Promise<McpTool[]>;
  /** Starts signing in to a remote server (the browser opens); resolves with the page. */
  signIn: (name: string) => Promise<string>;
  signOut: (name: string) => Promise<McpSettings>;
}

function classLabel(serverClass: ServerClass): string {
  switch (serverClass) {
    case "filesystem":
      return t("mcp.class.filesystem");
    case "context7":
      return t("mcp.class.context7");
    case "code-sandbox":
      return t("mcp.class.codeSandbox");
    case "other":
      return t("mcp.class.other");
  }
}

/** "Planning and execution: a, b" / "Execution only: c" */
export function ToolAccess({ tools }: { tools: McpTool[] }) {
  const both = tools.filter((tool) => tool.planning).map((tool) => tool.name);
  const execution = tools.filter((tool) => !tool.planning).map((tool) => tool.name);
  return (
    <div class="tool-access small" data-testid="tool-access">
      {both.length > 0 && (
        <p data-testid="planning-tools">
          <strong>{t("mcp.planningTools")}</strong> {both.join(", ")}
        </p>
      )}
      {execution.length > 0 && (
        <p data-testid="execution-tools">
          <strong>{t("mcp.executionTools")}</strong> {execution.join(", ")}
        </p>
      )}
    </div>
  );
}

function stateText(server: McpServerView): string {
  switch (server.state.state) {
    case "running":
      return t("mcp.state.running", { count: server.state.tools.length });
    case "starting":
      return t("mcp.state.starting");
    case "failed":
      return t("mcp.state.failed");
    default:
      return t("mcp.state.notStarted");
  }
}

type Editing = { replaces: string | null; fields: EntryFields; remote: RemoteFields; paste: string; mode: EditorMode };

const EMPTY: EntryFields = { name: "", command: "", args: "", env: "", readWhilePlanning: false };
const NO_REMOTE: RemoteFields = { url: "", headers: "" };

export interface McpServersProps {
  source: McpSource;
  /** Scrolled into view when it appears (a chat's server asks to sign in). */
  shown?: boolean;
  /** How often the settings are read while a sign-in is under way. */
  pollMs?: number;
}

export function McpServers({ source, shown = false, pollMs = SIGN_IN_POLL_MS }: McpServersProps) {
  const [settings, setSettings] = useState<McpSettings | null>(null);
  /** The sign-ins this window began, by server: the page the browser was sent to. */
  const [signing, setSigning] = useState<Record<string, string>>({});
  const section = useRef<HTMLElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [tested, setTested] = useState<{ name: string; tools: McpTool[] } | null>(null);
  const [busy, setBusy] = useState(false);
  const act = async (action: () => Promise<McpSettings | void>, after?: () => void) => {
    setBusy(true);
    try {
      const next = await action();
      if (next) setSettings(next);
      setError(null);
      after?.();
    } catch (caught) {
      setError(describeError(asApiError(caught)));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => void act(source.load), [source]);
  useEffect(() => {
    if (shown) section.current?.scrollIntoView?.({ block: "start" });
  }, [shown]);
  const signInUnderWay = Object.keys(signing).length > 0 || (settings?.servers.some((server) => server.remote?.sign_in?.state === "pending") ?? false);
  useEffect(() => {
    if (!signInUnderWay) return;
    const timer = setInterval(() => {
      source.load().then(
        (next) => {
          setSettings(next);
          setSigning((current) => settle(current, next));
        },
        () => {},
      );
    }, pollMs);
    return () => clearInterval(timer);
  }, [signInUnderWay, source, pollMs]);
  const signIn = (name: string) =>
    act(async () => {
      const page = await source.signIn(name);
      setSigning((current) => ({ ...current, [name]: page }));
      return source.load();
    });  const openEditor = (next: Editing) => {
    setTested(null);
    setError(null);
    setEditing(next);
  };
  const parsed = (): Parsed | null => {
    if (!editing) return null;
    if (editing.mode === "paste") return pastedEntry(editing.paste, editing.fields.name);
    return editing.mode === "url" ? entryFromRemote(editing.fields, editing.remote) : entryFromFields(editing.fields);
  };
  const toSave = (): McpServerSave | null => {
    const result = parsed();
    if (!result) return null;
    if (!result.ok) {
      setError(result.error);
      return null;
    }
    return { replaces: editing?.replaces ?? undefined, name: result.name, entry: result.entry };
  };
  const test = (save: McpServerSave) =>
    act(async () => {
      setTested(null);
      setTested({ name: save.name, tools: await source.test(save) });
    });
  return (
    <section class="mcp-servers" data-testid="mcp-servers" aria-label={t("mcp.title")} ref={section}>
      <h2>{t("mcp.title")}</h2>
      <p class="muted small">
        {t("mcp.intro", { path: settings?.path ?? "mcp.json" })}
      </p>
      {settings?.error && (
        <p class="error" role="alert" data-testid="mcp-file-error">
          {settings.error}
        </p>
      )}
      <ul class="mcp-list">
        {settings?.servers.map((server) => (
          <li key={server.name} class="mcp-server" data-testid="mcp-server" data-name={server.name}>
            <div class="row">
              <strong>{server.name}</strong>
              <span class="badge">{server.class ? classLabel(server.class) : t("mcp.invalid")}</span>
              {server.supplied && <span class="badge muted">{t("mcp.supplied")}</span>}
              {server.read_while_planning && (
                <span class="badge" data-testid="mcp-read-badge">
                  {t("mcp.readWhilePlanningBadge")}
                </span>
              )}
              <span class={`mcp-state ${server.state.state}`} data-testid="mcp-state">
                {stateText(server)}
              </span>
            </div>
            {server.error && (
              <p class="error small" data-testid="mcp-entry-error">
                {server.error}
              </p>
            )}
            {server.state.state === "failed" && <pre class="mcp-stderr small">{server.state.error}</pre>}
            {server.remote && (
              <RemoteSignIn name={server.name} remote={server.remote} started={signing[server.name]} busy={busy} onSignIn={(name) => void signIn(name)} onSignOut={(name) => void act(() => source.signOut(name))} />
            )}
            {server.state.state === "running" && <ToolAccess tools={server.state.tools} />}
            {tested?.name === server.name && !editing && <ToolAccess tools={tested.tools} />}
            <div class="row">
              <button type="button" class="secondary small" disabled={busy} data-testid="mcp-edit" onClick={() => openEditor({ replaces: server.supplied ? null : server.name, fields: fieldsFromEntry(server.name, server.entry), remote: remoteFromEntry(server.entry), paste: JSON.stringify({ [server.name]: server.entry }, null, 2), mode: editorMode(server.entry) })}>
                {server.supplied ? t("mcp.customise") : t("mcp.edit")}
              </button>
              {!server.error && (
                <button type="button" class="secondary small" disabled={busy} data-testid="mcp-test" onClick={() => void test({ name: server.name, entry: server.entry })}>
                  {t("mcp.test")}
                </button>
              )}
              <button type="button" class="secondary small" disabled={busy} data-testid="mcp-restart" onClick={() => void act(() => source.restart(server.name))}>
                {t("mcp.restart")}
              </button>
              {!server.supplied && (
                <button type="button" class="secondary small" disabled={busy} data-testid="mcp-remove" onClick={() => void act(() => source.remove(server.name))}>
                  {t("mcp.remove")}
                </button>
              )}
            </div>
          </li>
        ))}
      </ul>
      {error && (
        <p class="error" role="alert" data-testid="mcp-error">
          {error}
        </p>
      )}
      {editing ? (
        <EntryEditor
          editing={editing}
          busy={busy}
          tested={tested?.tools ?? null}
          onChange={setEditing}
          onTest={() => {
            const save = toSave();
            if (save) void test(save);
          }}
          onSave={() => {
            const save = toSave();
            if (save) void act(() => source.save(save), () => setEditing(null));
          }}
          onCancel={() => {
            setEditing(null);
            setError(null);
          }}
        />
      ) : (
        <button type="button" class="secondary" data-testid="mcp-add" onClick={() => openEditor({ replaces: null, fields: EMPTY, remote: NO_REMOTE, paste: "", mode: "fields" })}>
          {t("mcp.add")}
        </button>
      )}
    </section>
  );
}

interface EditorProps {
  editing: Editing;
  busy: boolean;
  tested: McpTool[] | null;
  onChange: (editing: Editing) => void;
  onTest: () => void;
  onSave: () => void;
  onCancel: () => void;
}

function EntryEditor({ editing, busy, tested, onChange, onTest, onSave, onCancel }: EditorProps) {
  const field = (key: "name" | "command" | "args" | "env") => ({
    value: editing.fields[key],
    onInput: (event: { currentTarget: { value: string } }) => onChange({ ...editing, fields: { ...editing.fields, [key]: event.currentTarget.value } }),
  });
  const remoteField = (key: "url" | "headers") => ({
    value: editing.remote[key],
    onInput: (event: { currentTarget: { value: string } }) => onChange({ ...editing, remote: { ...editing.remote, [key]: event.currentTarget.value } }),
  });
  const tab = (mode: EditorMode, label: string) => (
    <button type="button" role="tab" aria-selected={editing.mode === mode} data-testid={`mcp-${mode}-tab`} class={editing.mode === mode ? "primary small" : "secondary small"} onClick={() => onChange({ ...editing, mode })}>
      {label}
    </button>
  );
  const readWhilePlanning = (
    <label class="checkbox">
      <input
        type="checkbox"
        data-testid="mcp-read-while-planning"
        checked={editing.fields.readWhilePlanning}
        onChange={(event) => onChange({ ...editing, fields: { ...editing.fields, readWhilePlanning: event.currentTarget.checked } })}
      />
      {t("mcp.readWhilePlanning")}
    </label>
  );
  return (
    <fieldset class="mcp-editor" data-testid="mcp-editor">
      <legend>{editing.replaces ? t("mcp.editNamed", { name: editing.replaces }) : t("mcp.addTitle")}</legend>
      <div class="row" role="tablist">
        {tab("fields", t("mcp.commandTab"))}
        {tab("url", t("mcp.urlTab"))}
        {tab("paste", t("mcp.pasteTab"))}
      </div>
      <label>
        {t("mcp.name")}
        <input data-testid="mcp-name" {...field("name")} placeholder="everything" />
      </label>
      {editing.mode === "fields" ? (
        <>
          <label>
            {t("mcp.command")}
            <input data-testid="mcp-command" {...field("command")} placeholder="npx" />
          </label>
          <label>
            {t("mcp.args", { workspace: "${workspace}" })}
            <textarea data-testid="mcp-args" rows={3} {...field("args")} placeholder={"-y\n@modelcontextprotocol/server-everything"} />
          </label>
          <label>
            {t("mcp.env")}
            <textarea data-testid="mcp-env" rows={2} {...field("env")} />
          </label>
          {readWhilePlanning}
        </>
      ) : editing.mode === "url" ? (
        <>
          <label>
            {t("mcp.url")}
            <input data-testid="mcp-url" type="url" {...remoteField("url")} placeholder="https://mcp.example.com/mcp" />
          </label>
          <label>
            {t("mcp.headers", { env: "${env:NAME}" })}
            <textarea data-testid="mcp-headers" rows={2} {...remoteField("headers")} placeholder={"Authorization: Bearer ${env:EXAMPLE_TOKEN}"} />
          </label>
          {readWhilePlanning}
        </>
      ) : (
        <label>
          {t("mcp.paste")}
          <textarea data-testid="mcp-paste" rows={6} value={editing.paste} onInput={(event) => onChange({ ...editing, paste: event.currentTarget.value })} placeholder={'{"mcpServers": {"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}}}'} />
        </label>
      )}
      {tested && <ToolAccess tools={tested} />}
      <div class="row">
        <button type="button" class="primary" disabled={busy} data-testid="mcp-save" onClick={onSave}>
          {t("mcp.save")}
        </button>
        <button type="button" class="secondary" disabled={busy} data-testid="mcp-editor-test" onClick={onTest}>
          {busy ? t("mcp.working") : t("mcp.test")}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          {t("mcp.cancel")}
        </button>
      </div>
    </fieldset>
  );
}
