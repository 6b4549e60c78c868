// An `mcp.json` server entry as the settings editor handles it: the fields a user fills in
// (command, one argument per line, NAME=value per line; or a remote server's URL and its
// headers, `Name: value` per line), and an entry pasted in the format other clients use.
// The engine checks the result again when it is saved or tested.
import { t } from "./i18n";

export interface EntryFields {
  name: string;
  command: string;
  /** One argument per line. */
  args: string;
  /** One `NAME=value` per line. */
  env: string;
  /** `readWhilePlanning`: the planner gets the server's read-only tools. */
  readWhilePlanning: boolean;
}

/** A remote (`url`) server's fields; its name and `readWhilePlanning` are the `EntryFields`'. */
export interface RemoteFields {
  url: string;
  /** One `Name: value` per line (`${env:NAME}` in a value is read from the environment). */
  headers: string;
}

/** How the editor shows an entry: by its fields, or as JSON when it has keys the fields lack. */
export type EditorMode = "fields" | "url" | "paste";

export type Parsed = { ok: true; name: string; entry: Record<string, unknown> } | { ok: false; error: string };

/** The entry the fields describe, or what is wrong with them. */
export function entryFromFields(fields: EntryFields): Parsed {
  const name = fields.name.trim();
  if (name === "") return { ok: false, error: t("mcp.needsName") };
  const command = fields.command.trim();
  if (command === "") return { ok: false, error: t("mcp.needsCommand") };
  const args = fields.args.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  const env: Record<string, string> = {};
  for (const line of fields.env.split("\n").map((l) => l.trim()).filter((l) => l !== "")) {
    const at = line.indexOf("=");
    if (at <= 0) return { ok: false, error: t("mcp.badEnvLine", { line }) };
    env[line.slice(0, at).trim()] = line.slice(at + 1);
  }
  const entry: Record<string, unknown> = { command, args };
  if (Object.keys(env).length > 0) entry.env = env;
  if (fields.readWhilePlanning) entry.readWhilePlanning = true;
  return { ok: true, name, entry };
}

/** The remote entry the fields describe, or what is wrong with them. */
export function entryFromRemote(fields: EntryFields, remote: RemoteFields): Parsed {
  const name = fields.name.trim();
  if (name === "") return { ok: false, error: t("mcp.needsName") };
  const url = remote.url.trim();
  if (url === "") return { ok: false, error: t("mcp.needsUrl") };
  const headers: Record<string, string> = {};
  for (const line of remote.headers.split("\n").map((l) => l.trim()).filter((l) => l !== "")) {
    const at = line.indexOf(":");
    if (at <= 0) return { ok: false, error: t("mcp.badHeaderLine", { line }) };
    headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  const entry: Record<string, unknown> = { url };
  if (Object.keys(headers).length > 0) entry.headers = headers;
  if (fields.readWhilePlanning) entry.readWhilePlanning = true;
  return { ok: true, name, entry };
}

/** The remote fields of a stored entry. */
export function remoteFromEntry(entry: Record<string, unknown>): RemoteFields {
  const headers = isObject(entry.headers) ? Object.entries(entry.headers) : [];
  return { url: typeof entry.url === "string" ? entry.url : "", headers: headers.map(([key, value]) => `${key}: ${String(value)}`).join("\n") };
}

const COMMAND_KEYS = new Set(["command", "args", "env", "readWhilePlanning"]);
const REMOTE_KEYS = new Set(["url", "headers", "readWhilePlanning"]);

/** The editor's tab for a stored entry: JSON when the fields would drop any of its keys. */
export function editorMode(entry: Record<string, unknown>): EditorMode {
  const keys = Object.keys(entry);
  if ("url" in entry) return keys.every((key) => REMOTE_KEYS.has(key)) ? "url" : "paste";
  return keys.every((key) => COMMAND_KEYS.has(key)) ? "fields" : "paste";
}

/** The fields of a stored entry (`editorMode` says when it is edited as JSON instead). */
export function fieldsFromEntry(name: string, entry: Record<string, unknown>): EntryFields {
  const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
  const env = entry.env && typeof entry.env === "object" ? Object.entries(entry.env as Record<string, unknown>) : [];
  return {
    name,
    command: typeof entry.command === "string" ? entry.command : "",
    args: args.join("\n"),
    env: env.map(([key, value]) => `${key}=${String(value)}`).join("\n"),
    readWhilePlanning: entry.readWhilePlanning === true,
  };
}

/**
 * An entry pasted as `{"mcpServers": {"name": {…}}}`, `{"name": {…}}` or a bare
 * `{"command": …}` (named `fallback`).
 */
export function pastedEntry(text: string, fallback: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: t("mcp.notJson", { detail: (error as Error).message }) };
  }
  if (!isObject(value)) return { ok: false, error: t("mcp.notObject") };
  let servers = value;
  if (isObject(value.mcpServers)) servers = value.mcpServers;
  else if ("command" in value || "url" in value) {
    return fallback.trim() ? { ok: true, name: fallback.trim(), entry: value } : { ok: false, error: t("mcp.giveName") };
  }
  const entries = Object.entries(servers);
  if (entries.length > 1) return { ok: false, error: t("mcp.manyServers") };
  const [first] = entries;
  if (!first || !isObject(first[1])) return { ok: false, error: t("mcp.noEntry") };
  return { ok: true, name: first[0], entry: first[1] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
