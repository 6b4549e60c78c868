// A task's state as the task panel shows it (issue 48): an icon with its word and a tooltip,
// never a bare `[>]`, and "stopped" for the task the work stopped on (the engine keeps it
// active until a Continue, but nothing is running it). Pure.
import type { Task } from "../generated/Task";
import type { TaskStatus } from "../generated/TaskStatus";
import { t } from "./i18n";

export type ShownState = TaskStatus | "stopped";

const ICON: Record<ShownState, string> = { pending: "○", active: "▶", done: "✓", dropped: "✗", stopped: "⏸" };

/** The state shown for `task`: an active task of a chat whose work stopped is "stopped". */
export function shownState(task: Task, stopped: boolean): ShownState {
  return task.status === "active" && stopped ? "stopped" : task.status;
}

export function stateIcon(state: ShownState): string {
  return ICON[state];
}

/** The state in one word: "To do", "In progress", "Done", "Dropped", "Stopped". */
export function stateLabel(state: ShownState): string {
  switch (state) {
    case "pending":
      return t("tasks.state.pending");
    case "active":
      return t("tasks.state.active");
    case "done":
      return t("tasks.state.done");
    case "dropped":
      return t("tasks.state.dropped");
    case "stopped":
      return t("tasks.state.stopped");
  }
}

/** What the state means, for the tooltip. */
export function stateHint(state: ShownState): string {
  switch (state) {
    case "pending":
      return t("tasks.stateHint.pending");
    case "active":
      return t("tasks.stateHint.active");
    case "done":
      return t("tasks.stateHint.done");
    case "dropped":
      return t("tasks.stateHint.dropped");
    case "stopped":
      return t("tasks.stateHint.stopped");
  }
}
