// A tool call as a sentence a person reads (issue 48): "Wrote textutils.py", "Listed src/",
// "Searched src/ for “TODO”", "Ran python3 -m unittest", "Finished task 2: Write tests",
// instead of `mcp_filesystem_write_file` and its JSON. Each sentence has a kind, so that a
// run of calls can be summed up ("Read 3 files: a.py, b.py, c.py"), and a tone from what the
// call returned (a run's exit code: 0 is not an error; no exit code is neutral). Pure.
import { t } from "./i18n";
import { parseRun, sandboxRunTool, SANDBOX_PREFIX } from "./sandbox";

/** What the summary of a run of calls counts them by. */
export type ToolKind = "read" | "write" | "edit" | "folder" | "list" | "move" | "search" | "info" | "run" | "tasks" | "docs" | "other";

/** How a call's outcome reads: ok (exit 0), bad (a failure, a non-zero exit), neutral. */
export type Tone = "ok" | "bad" | "neutral";

export interface ToolSentence {
  text: string;
  kind: ToolKind;
  /** The thing the call was about (a file, a folder, a command), for the summary's list. */
  target?: string;
  /** How many things it was about (files read at once), 1 when absent. */
  count?: number;
  tone: Tone;
}

export interface ToolFacts {
  name: string;
  /** The arguments: the model's JSON text, or a value already parsed (live events). */
  args: unknown;
  result?: string;
  error?: string;
}

export interface SentenceContext {
  /** The chat's workspace folder: paths inside it are shown relative to it. */
  workspace?: string | null;
  /** A task's title by id (turn_plan calls name the task). */
  taskTitle?: (id: number) => string | undefined;
}

const FILESYSTEM_PREFIX = "mcp_filesystem_";
const CONTEXT7_PREFIX = "mcp_context7_";
const LONGEST = 60;

function parsed(args: unknown): Record<string, unknown> {
  let value = args;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function text(value: unknown): string {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : "";
}

function quoted(value: string): string {
  return t("toolSentence.quoted", { text: value });
}

/** A text cut to one line of at most `LONGEST` characters. */
export function shortened(value: string): string {
  const line = value.trim().split("\n")[0] ?? "";
  const cut = line.length > LONGEST ? `${line.slice(0, LONGEST - 1)}…` : line;
  return value.trim().includes("\n") && !cut.endsWith("…") ? `${cut} …` : cut;
}

/** A path as the user knows it: relative to the workspace inside it; the workspace itself by name. */
export function shownPath(path: string, workspace?: string | null, folder = false): string {
  let shown = path.trim();
  const root = workspace?.replace(/[\\/]+$/, "");
  if (root && (shown === root || shown === "." || shown === "./" || shown === "")) return t("toolSentence.workspace");
  if (root && (shown.startsWith(`${root}/`) || shown.startsWith(`${root}\\`))) shown = shown.slice(root.length + 1);
  if (shown.startsWith("./")) shown = shown.slice(2);
  if (shown === "" || shown === ".") return t("toolSentence.workspace");
  return folder && !/[\\/]$/.test(shown) ? `${shown}/` : shown;
}

/** "run_tests" / "query-docs" → "run tests" / "query docs". */
export function humanised(name: string): string {
  return name.replace(/[_-]+/g, " ").trim() || name;
}

/** The sentence for one call. */
export function describeTool(facts: ToolFacts, context: SentenceContext = {}): ToolSentence {
  const { name } = facts;
  const args = parsed(facts.args);
  const failed = facts.error !== undefined;
  const tone: Tone = failed ? "bad" : "neutral";
  if (name === "turn_plan") return { ...taskSentence(args, context), tone };
  if (name === "read_attachment") return { text: t("toolSentence.readAttachment", { name: text(args.name) }), kind: "read", target: text(args.name), tone };
  if (sandboxRunTool(name) !== null) return runSentence(name.slice(SANDBOX_PREFIX.length), args, facts);
  if (name === `${SANDBOX_PREFIX}sandbox_info`) return { text: t("toolSentence.sandboxInfo"), kind: "info", tone };
  if (name.startsWith(FILESYSTEM_PREFIX)) {
    const sentence = fileSentence(name.slice(FILESYSTEM_PREFIX.length), args, context.workspace);
    if (sentence) return { ...sentence, tone };
  }
  if (name.startsWith(CONTEXT7_PREFIX)) {
    const query = text(args.libraryName) || text(args.query) || text(args.topic) || text(args.libraryId) || text(args.context7CompatibleLibraryID);
    return { text: t("toolSentence.docs", { query: shortened(query) }), kind: "docs", target: shortened(query), tone };
  }
  return { ...otherSentence(name, args), tone };
}

type Partial = Omit<ToolSentence, "tone">;

function fileSentence(tool: string, args: Record<string, unknown>, workspace?: string | null): Partial | null {
  const path = shownPath(text(args.path), workspace, false);
  const folder = shownPath(text(args.path), workspace, true);
  switch (tool) {
    case "read_file":
    case "read_text_file":
    case "read_media_file":
      return { text: t("toolSentence.read", { target: path }), kind: "read", target: path };
    case "read_multiple_files": {
      const paths = Array.isArray(args.paths) ? args.paths.map((p) => shownPath(text(p), workspace)) : [];
      return { text: t("toolSentence.readMany", { count: paths.length, list: paths.join(", ") }), kind: "read", target: paths.join(", "), count: paths.length };
    }
    case "write_file":
      return { text: t("toolSentence.write", { target: path }), kind: "write", target: path };
    case "edit_file":
      return { text: args.dryRun === true ? t("toolSentence.editPreview", { target: path }) : t("toolSentence.edit", { target: path }), kind: "edit", target: path };
    case "create_directory":
      return { text: t("toolSentence.createFolder", { target: folder }), kind: "folder", target: folder };
    case "list_directory":
    case "list_directory_with_sizes":
      return { text: t("toolSentence.list", { target: folder }), kind: "list", target: folder };
    case "directory_tree":
      return { text: t("toolSentence.tree", { target: folder }), kind: "list", target: folder };
    case "move_file": {
      const from = shownPath(text(args.source), workspace);
      const to = shownPath(text(args.destination), workspace);
      return { text: t("toolSentence.move", { from, to }), kind: "move", target: from };
    }
    case "search_files": {
      const pattern = shortened(text(args.pattern));
      return { text: t("toolSentence.search", { pattern, target: folder }), kind: "search", target: quoted(pattern) };
    }
    case "get_file_info":
      return { text: t("toolSentence.info", { target: path }), kind: "info", target: path };
    case "list_allowed_directories":
      return { text: t("toolSentence.allowed"), kind: "info" };
    default:
      return null;
  }
}

/** A sandbox run: what ran, whole, and its sentence around a (shortened) command. */
export function runCommand(tool: string, args: unknown): { command: string; sentence: (command: string) => string } {
  const object = parsed(args);
  if (tool === "install_packages") {
    const packages = Array.isArray(object.packages) ? object.packages.map(String).join(" ") : "";
    return { command: packages, sentence: (command) => t("toolSentence.install", { command }) };
  }
  if (tool === "run_python") return { command: text(object.code), sentence: (command) => t("toolSentence.runPython", { command }) };
  return { command: text(object.command), sentence: (command) => t("toolSentence.run", { command }) };
}

/** A run's tone by its exit code: 0 ok, non-zero or timed out bad, none (yet) neutral. */
export function runTone(result: string | undefined, error: string | undefined): Tone {
  if (error !== undefined) return "bad";
  const run = result !== undefined ? parseRun(result) : null;
  if (run === null) return "neutral";
  return run.exitCode === 0 && !run.timedOut ? "ok" : "bad";
}

function runSentence(tool: string, args: Record<string, unknown>, facts: ToolFacts): ToolSentence {
  const { command, sentence } = runCommand(tool, args);
  const short = shortened(command);
  return { text: sentence(short), kind: "run", target: short, tone: runTone(facts.result, facts.error) };
}

function taskSentence(args: Record<string, unknown>, context: SentenceContext): Partial {
  const op = text(args.op).trim().toLowerCase();
  const id = Number(text(args.id));
  const title = Number.isFinite(id) ? (context.taskTitle?.(id) ?? "") : "";
  const tasks = Array.isArray(args.tasks) ? args.tasks.map((task) => (typeof task === "string" ? task : text(parsed(task).title))) : [];
  const values = { id: text(args.id), title };
  switch (op) {
    case "init":
      return { text: tasks.length === 0 ? t("toolSentence.tasks.cleared") : t("toolSentence.tasks.init", { count: tasks.length }), kind: "tasks" };
    case "add":
      return { text: t("toolSentence.tasks.add", { count: tasks.length, list: tasks.map((task) => quoted(shortened(task))).join(", ") }), kind: "tasks" };
    case "start":
      return { text: title ? t("toolSentence.tasks.startTitled", values) : t("toolSentence.tasks.start", values), kind: "tasks" };
    case "done":
      return { text: title ? t("toolSentence.tasks.doneTitled", values) : t("toolSentence.tasks.done", values), kind: "tasks" };
    case "drop":
      return { text: title ? t("toolSentence.tasks.dropTitled", values) : t("toolSentence.tasks.drop", values), kind: "tasks" };
    case "modify":
      return { text: t("toolSentence.tasks.modify", { id: text(args.id), title: shortened(text(args.title)) }), kind: "tasks" };
    default:
      return { text: t("toolSentence.tasks.other"), kind: "tasks" };
  }
}

/** A tool of another server: "Used github's create issue"; a URL fetch, a git command by name. */
function otherSentence(name: string, args: Record<string, unknown>): Partial {
  if (!name.startsWith("mcp_")) return { text: t("toolSentence.used", { tool: humanised(name) }), kind: "other" };
  const rest = name.slice("mcp_".length);
  const split = rest.indexOf("_");
  const server = split > 0 ? rest.slice(0, split) : rest;
  const tool = split > 0 ? rest.slice(split + 1) : "";
  const url = text(args.url);
  if (url !== "" && /fetch/i.test(tool)) return { text: t("toolSentence.fetch", { url: shortened(url) }), kind: "read", target: shortened(url) };
  if (server === "git" && tool.startsWith("git_")) return { text: t("toolSentence.git", { command: humanised(tool.slice(4)) }), kind: "other" };
  if (tool === "") return { text: t("toolSentence.used", { tool: humanised(server) }), kind: "other" };
  return { text: t("toolSentence.usedOf", { server, tool: humanised(tool) }), kind: "other" };
}

/** A run of calls summed up, one part per kind in order of first use: "Read 3 files: a.py,
 *  b.py, c.py · Wrote 1 file: d.py". Task-list calls are left out (the group names them). */
export function summaryOf(sentences: ToolSentence[]): string {
  const byKind = new Map<ToolKind, ToolSentence[]>();
  for (const sentence of sentences) {
    if (sentence.kind === "tasks") continue;
    byKind.set(sentence.kind, [...(byKind.get(sentence.kind) ?? []), sentence]);
  }
  return [...byKind.entries()]
    .map(([kind, group]) => {
      if (group.length === 1) return group[0]!.text;
      const targets = [...new Set(group.map((sentence) => sentence.target).filter((target): target is string => !!target))];
      const list = targets.length > 4 ? `${targets.slice(0, 4).join(", ")}, …` : targets.join(", ");
      const count = group.reduce((sum, sentence) => sum + (sentence.count ?? 1), 0);
      const summary = groupText(kind, count);
      return list === "" ? summary : t("toolSentence.group.withList", { summary, list });
    })
    .join(" · ");
}

/** "Read 3 files", "Ran 2 commands": a kind's calls counted. */
function groupText(kind: ToolKind, count: number): string {
  switch (kind) {
    case "read":
      return t("toolSentence.group.read", { count });
    case "write":
      return t("toolSentence.group.write", { count });
    case "edit":
      return t("toolSentence.group.edit", { count });
    case "folder":
      return t("toolSentence.group.folder", { count });
    case "list":
      return t("toolSentence.group.list", { count });
    case "move":
      return t("toolSentence.group.move", { count });
    case "search":
      return t("toolSentence.group.search", { count });
    case "info":
      return t("toolSentence.group.info", { count });
    case "run":
      return t("toolSentence.group.run", { count });
    case "docs":
      return t("toolSentence.group.docs", { count });
    case "tasks":
    case "other":
      return t("toolSentence.group.other", { count });
  }
}
