// The live `turn_plan` list beside the chat: phases, each task's state as an icon with its
// word and a tooltip ("▶ In progress", "⏸ Stopped" when the work stopped on it), "3 of 7 done",
// each task's last gate (run by Preflight in the sandbox: command, exit code, evidence), a
// mark on plan steps whose change waits for the user; and, for a chat that saves its plan
// into the workspace, the link to that `.dwp` folder. While no turn runs the list can be
// cleared (asked once more inline): on a model that cannot call tools it never ticks. With
// the workspace's checkpoints (issue 31), each task's changes ("2 files, +10 −3", opening its
// diff), "Restore to before this task" and "Undo the last turn".
import { useEffect, useState } from "preact/hooks";

import type { CheckpointList } from "../generated/CheckpointList";
import type { Gate } from "../generated/Gate";
import type { PlanChange } from "../generated/PlanChange";
import type { PlanFolderLocation } from "../generated/PlanFolderLocation";
import type { Task } from "../generated/Task";
import type { TaskSpan } from "../generated/TaskSpan";
import { taskCounts } from "../lib/chatState";
import { spanOf, statText } from "../lib/checkpoints";
import { formatNumber, formatTime, t } from "../lib/i18n";
import { shownState, stateHint, stateIcon, stateLabel, type ShownState } from "../lib/taskState";

/** Tasks grouped by phase in list order (the tracker keeps a phase's tasks together). */
export function groupByPhase(tasks: Task[]): { phase: string | null; tasks: Task[] }[] {
  const groups: { phase: string | null; tasks: Task[] }[] = [];
  for (const task of tasks) {
    const phase = task.phase ?? null;
    const last = groups[groups.length - 1];
    if (last && last.phase === phase) last.tasks.push(task);
    else groups.push({ phase, tasks: [task] });
  }
  return groups;
}

export interface TaskPanelProps {
  tasks: Task[];
  finished: boolean;
  /** The chat's plan folder, when it writes one. */
  files?: PlanFolderLocation | null;
  /** The chat's plan change requests: a waiting one marks its step. */
  changes?: PlanChange[];
  onOpenFolder?: () => void;
  /** A turn runs in the chat: the list cannot be cleared meanwhile. */
  busy?: boolean;
  /** Clears the list; resolves with the error to show, if refused. Without it, no button. */
  onClear?: () => Promise<string | null>;
  /** The workspace's checkpoints: each task's span and figures, the turn to undo. */
  checkpoints?: CheckpointList | null;
  /** Opens a task's diff (from its span's start to its end, or to the latest while open). */
  onTaskDiff?: (task: Task, span: TaskSpan) => void;
  /** Asks to restore the workspace to before the task (its span's start). */
  onRestoreTask?: (task: Task, span: TaskSpan) => void;
  /** Forks the chat from the checkpoint the task started at (DESIGN §15). */
  onForkTask?: (task: Task, span: TaskSpan) => void;
  /** Asks to undo the executor's last turn (restore to `checkpoints.undo_turn`). */
  onUndoTurn?: (checkpoint: number) => void;
  /** The chat's work stopped with tasks left (the stop card shows): the active task is stopped. */
  stopped?: boolean;
}

export function TaskPanel(props: TaskPanelProps) {
  const { tasks, finished, files = null, changes = [], onOpenFolder, busy = false, onClear } = props;
  const { checkpoints = null, onTaskDiff, onRestoreTask, onForkTask, onUndoTurn, stopped = false } = props;
  const counts = taskCounts(tasks);
  const asked = new Set(changes.filter((change) => change.status === "pending").map((change) => change.task));
  return (
    <aside class="task-panel" data-testid="task-panel" aria-label={t("tasks.label")} tabIndex={-1}>
      <header class="panel-title">
        <span>{t("tasks.title")}</span>
        {tasks.length > 0 && (
          <span class="task-count" data-testid="task-count">
            {t("tasks.count", { done: counts.done, total: counts.total })}
            {counts.dropped > 0 ? t("tasks.dropped", { count: counts.dropped }) : ""}
          </span>
        )}
      </header>
      {tasks.length === 0 ? (
        <p class="muted">{t("tasks.empty")}</p>
      ) : (
        groupByPhase(tasks).map((group, index) => (
          <div class="task-group" key={`${group.phase ?? ""}-${index}`}>
            {group.phase !== null && <h3 class="task-phase">{group.phase}</h3>}
            <ul>
              {group.tasks.map((task) => (
                <li key={task.id} class={`task ${shownState(task, stopped)}`} data-status={shownState(task, stopped)} title={taskTimes(task)}>
                  <StateMark id={task.id} state={shownState(task, stopped)} />
                  <span class="task-text">
                    {task.priority && task.priority !== "medium" && (
                      <span class={`priority ${task.priority}`} data-testid="task-priority">
                        {task.priority === "high" ? t("tasks.priorityHigh") : t("tasks.priorityLow")}
                      </span>
                    )}
                    <span class="task-title">{task.title}</span>
                    {asked.has(task.id) && (
                      <span class="change-asked small" data-testid="change-asked" title={t("tasks.changeAskedHint")}>
                        {" "}
                        {t("tasks.changeAsked")}
                      </span>
                    )}
                    {task.outcome && <span class="task-outcome"> — {task.outcome}</span>}
                    <TaskBindings task={task} />
                    {task.gate && <GateLine gate={task.gate} />}
                    {!task.gate && task.status === "done" && <span class="gate-none small muted"> {t("tasks.noCheck")}</span>}
                    <TaskWork task={task} span={spanOf(checkpoints, task.id)} busy={busy} onTaskDiff={onTaskDiff} onRestoreTask={onRestoreTask} onForkTask={onForkTask} />
                  </span>
                </li>
              ))}
            </ul>
          </div>
        ))
      )}
      {finished && <p class="muted" data-testid="tasks-finished">{t("tasks.finished")}</p>}
      {onUndoTurn && checkpoints?.undo_turn != null && !busy && (
        <p class="task-undo">
          <button type="button" class="secondary small" data-testid="undo-turn" title={t("checkpoints.undoTurnHint")} onClick={() => onUndoTurn(checkpoints.undo_turn!)}>
            ↺ {t("checkpoints.undoTurn")}
          </button>
        </p>
      )}
      {onClear && tasks.length > 0 && !finished && !busy && <ClearList key={tasks.map((task) => task.id).join(",")} onClear={onClear} />}
      {files && <PlanFolderWriter files={files} onOpenFolder={onOpenFolder} />}
    </aside>
  );
}

/** A task's changes in the workspace: its figures, opening its diff (nothing for a span that
 *  changed nothing), and the restore to before it. */
function TaskWork({ task, span, busy, onTaskDiff, onRestoreTask, onForkTask }: { task: Task; span: TaskSpan | undefined; busy: boolean } & Pick<TaskPanelProps, "onTaskDiff" | "onRestoreTask" | "onForkTask">) {
  if (!span) return null;
  const figures = statText(span.stat);
  if (figures === null && !onRestoreTask) return null;
  return (
    <span class="task-work small">
      {figures !== null &&
        (onTaskDiff ? (
          <button type="button" class="link" data-testid={`task-diff-${task.id}`} title={t("checkpoints.taskDiffHint")} onClick={() => onTaskDiff(task, span)}>
            {figures}
          </button>
        ) : (
          <span data-testid={`task-stat-${task.id}`}>{figures}</span>
        ))}
      {onRestoreTask && (
        <button
          type="button"
          class="icon task-restore"
          data-testid={`restore-task-${task.id}`}
          aria-label={t("checkpoints.restoreTask")}
          title={busy ? t("checkpoints.busy") : t("checkpoints.restoreTask")}
          disabled={busy}
          onClick={() => onRestoreTask(task, span)}
        >
          <span aria-hidden="true">↺</span> {t("checkpoints.restoreShort")}
        </button>
      )}
      {onForkTask && (
        <button type="button" class="icon task-fork" data-testid={`fork-task-${task.id}`} aria-label={t("fork.fromTaskHint")} title={t("fork.fromTaskHint")} onClick={() => onForkTask(task, span)}>
          <span aria-hidden="true">⑂</span> {t("fork.fromTask")}
        </button>
      )}
    </span>
  );
}

/** A task's state: its icon (hidden from screen readers) and its word, shown beside the icon
 *  where it matters (in progress, stopped, dropped) and read out everywhere; what it means on hover. */
function StateMark({ id, state }: { id: number; state: ShownState }) {
  const shown = state === "active" || state === "stopped" || state === "dropped";
  return (
    <span class={`mark state-${state}`} data-testid={`task-state-${id}`} title={stateHint(state)}>
      <span aria-hidden="true">{stateIcon(state)}</span>
      <span class={shown ? "state-label" : "visually-hidden"}>{stateLabel(state)}</span>
    </span>
  );
}

/** "Clear list", then "Clear it" / "Keep it" in place (no dialog): the open tasks are dropped. */
function ClearList({ onClear }: { onClear: () => Promise<string | null> }) {
  const [asking, setAsking] = useState(false);
  const [clearing, setClearing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<HTMLButtonElement | null>(null);
  useEffect(() => confirm?.focus(), [confirm]);
  const clear = async () => {
    setClearing(true);
    setError(null);
    try {
      const refused = await onClear();
      setError(refused);
      if (refused === null) setAsking(false);
    } finally {
      setClearing(false);
    }
  };
  return (
    <div class="task-clear">
      {asking ? (
        <div
          class="task-clear-ask"
          role="group"
          aria-label={t("tasks.clearAsk")}
          onKeyDown={(event) => {
            if (event.key === "Escape" && !clearing) setAsking(false);
          }}
        >
          <p class="small">{t("tasks.clearAsk")}</p>
          <div class="row">
            <button type="button" class="danger small" data-testid="task-clear-confirm" ref={setConfirm} disabled={clearing} onClick={() => void clear()}>
              {t("tasks.clearConfirm")}
            </button>
            <button type="button" class="secondary small" data-testid="task-clear-cancel" disabled={clearing} onClick={() => setAsking(false)}>
              {t("tasks.clearKeep")}
            </button>
          </div>
        </div>
      ) : (
        <button type="button" class="secondary small" data-testid="task-clear" title={t("tasks.clearHint")} onClick={() => setAsking(true)}>
          {t("tasks.clear")}
        </button>
      )}
      {error && (
        <p class="error small" role="alert" data-testid="task-clear-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** When the task was made and last changed, and whose it is (on hover). */
export function taskTimes(task: Task): string | undefined {
  const whose = task.origin === "plan" ? t("tasks.planStep") : t("tasks.ownTask");
  const parts = [whose];
  if (task.created_at) parts.push(t("tasks.added", { time: formatTime(task.created_at) }));
  if (task.updated_at && task.updated_at !== task.created_at) parts.push(t("tasks.changed", { time: formatTime(task.updated_at) }));
  return parts.join(" · ");
}

/** A task's last check, which Preflight ran itself: command, exit code, time; the evidence on expanding. */
/** An open task's dependencies and planned check (DESIGN §14): what must be done first, and
 *  the command Preflight will run to prove it, shown before it runs (its run, once made, is the
 *  gate line below). */
function TaskBindings({ task }: { task: Task }) {
  const open = task.status === "pending" || task.status === "active";
  const after = task.depends_on ?? [];
  const check = task.check && task.gate?.command !== task.check ? task.check : null;
  if (!open || (after.length === 0 && !check)) return null;
  return (
    <span class="task-bindings small">
      {after.length > 0 && (
        <span class="task-after muted" data-testid={`task-depends-${task.id}`} title={t("tasks.dependsHint")}>
          {" "}
          {t("tasks.after", { count: after.length, steps: after.join(", ") })}
        </span>
      )}
      {check && (
        <span class="task-check" data-testid={`task-check-${task.id}`} title={t("tasks.checkHint")}>
          {" "}
          <span class="muted">{t("tasks.check")}</span> <code>{check}</code>
        </span>
      )}
    </span>
  );
}

function GateLine({ gate }: { gate: Gate }) {
  const passed = gate.passes;
  return (
    <details class={`gate ${passed ? "passed" : "failed"}`} data-testid="task-gate">
      <summary>
        <span class="gate-mark">{passed ? "✓" : "✗"}</span> <code>{gate.command}</code>{" "}
        <span class="small muted">
          {t("gate.exit", { code: gate.exit_code })}
          {gate.timed_out ? t("gate.timedOut") : ""}
          {gate.duration_ms > 0 ? ` · ${formatDuration(gate.duration_ms)}` : ""}
        </span>
      </summary>
      <pre class="gate-evidence" data-testid="gate-evidence">{gate.evidence}</pre>
      {gate.last_run && <p class="small muted">{t("gate.ranAt", { time: formatTime(gate.last_run) })}</p>}
    </details>
  );
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? t("units.ms", { value: formatNumber(ms) }) : t("units.s", { value: formatNumber(ms / 1000, 1) });
}

function PlanFolderWriter({ files, onOpenFolder }: { files: PlanFolderLocation } & Pick<TaskPanelProps, "onOpenFolder">) {
  return (
    <section class="plan-files" data-testid="plan-files" aria-label={t("tasks.folder")}>
      <p class="small">
        {t("tasks.savedIn")}{" "}
        <button type="button" class="link" data-testid="open-plan-folder" title={files.path} onClick={onOpenFolder}>
          {files.dir}
        </button>
      </p>
    </section>
  );
}
