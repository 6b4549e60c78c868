// Consecutive tool calls of the executor as one collapsible block with a count (issue 18):
// a run of twenty `turn_plan` calls is one line ("task list: done 12 · started 3"), not a
// wall of boxes; a failed call makes the block stand out and opens it.
import type { ToolCall } from "../generated/ToolCall";

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
  const WORDS: Record<string, string> = { start: "started", done: "done", drop: "dropped", add: "added", init: "new list", modify: "reworded" };
  for (const { call } of calls) {
    if (call.name !== "turn_plan") continue;
    let op = "?";
    try {
      const parsed: unknown = JSON.parse(call.arguments);
      if (parsed && typeof parsed === "object" && "op" in parsed && typeof parsed.op === "string") op = parsed.op.toLowerCase();
    } catch {
      // Unreadable arguments: counted as a change of unknown kind.
    }
    const word = WORDS[op] ?? "changed";
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  if (counts.size === 0) return null;
  return [...counts.entries()].map(([word, n]) => `${word} ${n}`).join(" · ");
}

export interface ToolGroupProps {
  calls: GroupedCall[];
  /** Renders one call as its own block. */
  renderCall: (call: GroupedCall, index: number) => preact.JSX.Element;
  onShowTasks?: () => void;
}

export function ToolGroup({ calls, renderCall, onShowTasks }: ToolGroupProps) {
  const failed = calls.filter((call) => call.error !== undefined).length;
  const running = calls.some((call) => call.running);
  const tasks = taskListSummary(calls);
  const others = calls.filter((call) => call.call.name !== "turn_plan").length;
  return (
    <details class={`tool-group${failed > 0 ? " failed" : ""}`} data-testid="tool-group" open={failed > 0}>
      <summary>
        <span class="tool-count" data-testid="tool-count">
          {calls.length} tool calls
        </span>
        {tasks && (
          <>
            {" · "}
            <button
              type="button"
              class="link small"
              data-testid="task-summary"
              title="Show the task list"
              onClick={(event) => {
                event.preventDefault();
                onShowTasks?.();
              }}
            >
              task list: {tasks}
            </button>
          </>
        )}
        {others > 0 && tasks && <span class="small muted"> · {others} other</span>}
        {failed > 0 && (
          <span class="tool-failed" data-testid="tool-failed">
            {" "}
            · {failed} failed
          </span>
        )}
        {running && <span class="small muted"> · running</span>}
      </summary>
      <div class="tool-group-calls">{calls.map(renderCall)}</div>
    </details>
  );
}
