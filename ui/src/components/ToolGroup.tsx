// Consecutive tool calls of the executor as one collapsible block (issue 18), summed up in
// words (issue 48): "Read 3 files: a.py, b.py, c.py · task list: done 2 · 5 tool calls", each
// call's own sentence folded under it; a failed call makes the block stand out and opens it.
import type { ToolCall } from "../generated/ToolCall";
import { t } from "../lib/i18n";
import { describeTool, summaryOf, type SentenceContext } from "../lib/toolSentence";

export interface GroupedCall {
  call: ToolCall;
  /** The assistant message that made the call. */
  owner?: string;
  result?: string;
  error?: string;
  running: boolean;
}

/** "done 2 · started 3" for the task list changes among `calls`, or null without any. */
export function taskListSummary(calls: GroupedCall[]): string | null {
  const counts = new Map<string, number>();
  for (const { call } of calls) {
    if (call.name !== "turn_plan") continue;
    let op = "?";
    try {
      const parsed: unknown = JSON.parse(call.arguments);
      if (parsed && typeof parsed === "object" && "op" in parsed && typeof parsed.op === "string") op = parsed.op.toLowerCase();
    } catch {
      // Unreadable arguments: counted as a change of unknown kind.
    }
    const word = operationWord(op);
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  if (counts.size === 0) return null;
  return [...counts.entries()].map(([word, n]) => `${word} ${n}`).join(" · ");
}

/** A `turn_plan` operation as the summary names it. */
function operationWord(op: string): string {
  switch (op) {
    case "start":
      return t("toolGroup.op.start");
    case "done":
      return t("toolGroup.op.done");
    case "drop":
      return t("toolGroup.op.drop");
    case "add":
      return t("toolGroup.op.add");
    case "init":
      return t("toolGroup.op.init");
    case "modify":
      return t("toolGroup.op.modify");
    default:
      return t("toolGroup.op.other");
  }
}

export interface ToolGroupProps {
  calls: GroupedCall[];
  /** Renders one call as its own block. */
  renderCall: (call: GroupedCall, index: number) => preact.JSX.Element;
  onShowTasks?: () => void;
  /** The chat's workspace and task titles, for the sentences. */
  context?: SentenceContext;
}

export function ToolGroup({ calls, renderCall, onShowTasks, context }: ToolGroupProps) {
  const failed = calls.filter((call) => call.error !== undefined).length;
  const running = calls.some((call) => call.running);
  const tasks = taskListSummary(calls);
  const summary = summaryOf(calls.map(({ call, result, error }) => describeTool({ name: call.name, args: call.arguments, result, error }, context)));
  // The task list's line is a button, so it stands beside the summary rather than in it (no
  // control inside another: axe's nested-interactive), floated onto the summary's line.
  return (
    <div class={`tool-group-box${failed > 0 ? " failed" : ""}`}>
      {tasks && (
        <button type="button" class="link small task-summary" data-testid="task-summary" title={t("toolGroup.showTasks")} onClick={() => onShowTasks?.()}>
          {t("toolGroup.taskList", { summary: tasks })}
        </button>
      )}
      <details class={`tool-group${failed > 0 ? " failed" : ""}`} data-testid="tool-group" open={failed > 0}>
        <summary>
          {summary !== "" && (
            <span class="tool-summary" data-testid="tool-summary">
              {summary}
              {" · "}
            </span>
          )}
          <span class="tool-count small muted" data-testid="tool-count">
            {t("toolGroup.calls", { count: calls.length })}
          </span>
          {failed > 0 && (
            <span class="tool-failed" data-testid="tool-failed">
              {" "}
              · {t("toolGroup.failed", { count: failed })}
            </span>
          )}
          {running && <span class="small muted"> · {t("toolGroup.running")}</span>}
        </summary>
        <div class="tool-group-calls">{calls.map(renderCall)}</div>
      </details>
    </div>
  );
}
