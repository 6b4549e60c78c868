// The code sandbox's tool calls as the window shows them (DESIGN §11): which calls are
// sandbox runs, what they ran, and their result text read back into exit code, streams,
// timeout and truncation. The text is the sandbox's own format (crates/sandbox/src/tools.rs):
//   [UNCONFINED banner]
//   exit code N[ in T][ (timed out: …)]
//   [notes, e.g. "installed: six 1.16.0"]
//   stdout:
//   …
//   stderr:
//   …
//   [(output truncated: …)]

import { language, t } from "./i18n";

/** The prefix of the code sandbox's tools as models see them. */
export const SANDBOX_PREFIX = "mcp_code-sandbox_";

const RUN_TOOLS = new Set(["run_command", "run_python", "install_packages"]);

/** The sandbox tool behind a model's tool name, when it is a run. */
export function sandboxRunTool(name: string): string | null {
  if (!name.startsWith(SANDBOX_PREFIX)) return null;
  const tool = name.slice(SANDBOX_PREFIX.length);
  return RUN_TOOLS.has(tool) ? tool : null;
}

/** What a run was asked to do, as a terminal would show it. */
export function describeRun(tool: string, args: unknown): string {
  const object = typeof args === "string" ? safeParse(args) : args;
  const field = (key: string): unknown => (typeof object === "object" && object !== null ? (object as Record<string, unknown>)[key] : undefined);
  if (tool === "run_command") return `$ ${String(field("command") ?? "")}`;
  if (tool === "install_packages") {
    const packages = field("packages");
    return `$ pip install ${Array.isArray(packages) ? packages.map(String).join(" ") : ""}`;
  }
  return `>>> ${String(field("code") ?? "")}`;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface RunResult {
  /** The unconfined warning the sandbox puts first, when it is not confined. */
  banner: string | null;
  exitCode: number;
  /** How long it ran, when the sandbox said (its text: `exit code 0 in 1.2 s`). */
  millis: number | null;
  timedOut: boolean;
  notes: string[];
  stdout: string;
  stderr: string;
  truncated: boolean;
}

const STDOUT = "stdout:\n";
const STDERR = "\nstderr:\n";
const TRUNCATED = "(output truncated";

/** A run's result text read back; `null` when it is not in the sandbox's format. */
export function parseRun(text: string): RunResult | null {
  const head = /^(?:(.*)\n)?exit code (-?\d+)(?: in (\d+(?:\.\d+)?) (ms|s))?( \(timed out[^\n]*\))?\n/.exec(text);
  if (!head) return null;
  const rest = text.slice(head[0].length);
  const out = rest.indexOf(STDOUT);
  const err = rest.lastIndexOf(STDERR);
  if (out < 0 || err < out) return null;
  const notes = rest.slice(0, out).split("\n").filter((line) => line.trim() !== "");
  let stderr = rest.slice(err + STDERR.length);
  const truncatedAt = stderr.lastIndexOf(`\n${TRUNCATED}`);
  const truncated = truncatedAt >= 0;
  if (truncated) stderr = stderr.slice(0, truncatedAt + 1);
  return {
    banner: head[1] ?? null,
    exitCode: Number(head[2]),
    timedOut: head[5] !== undefined,
    millis: head[3] === undefined ? null : Math.round(Number(head[3]) * (head[4] === "s" ? 1000 : 1)),
    notes,
    stdout: rest.slice(out + STDOUT.length, err),
    stderr: stderr.endsWith("\n") ? stderr.slice(0, -1) : stderr,
    truncated,
  };
}

/** How many lines a run's output has: long ones start collapsed. */
export function outputLines(run: RunResult): number {
  const count = (text: string) => (text === "" ? 0 : text.split("\n").length);
  return count(run.stdout) + count(run.stderr);
}

/** How long a run took, in the window's language: "40 ms", "1.2 s" ("1,2 с"). */
export function tookText(millis: number): string {
  if (millis < 1000) return t("gate.ms", { n: millis });
  const seconds = new Intl.NumberFormat(language(), { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(millis / 1000);
  return t("gate.seconds", { n: seconds });
}
