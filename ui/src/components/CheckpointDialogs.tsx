// Which checkpoint dialog is open over the window (issue 31) — a diff of a task or of the whole
// plan, or a restore's confirmation — and the one that shows it. The task panel, the
// completion card and the window's state open them; the engine's commands come in as props.
import type { CheckpointDiff } from "../generated/CheckpointDiff";
import type { CheckpointList } from "../generated/CheckpointList";
import type { RestorePreview } from "../generated/RestorePreview";
import type { Task } from "../generated/Task";
import type { TaskSpan } from "../generated/TaskSpan";
import { leftOutBetween, planRange, type DiffRange } from "../lib/checkpoints";
import { t } from "../lib/i18n";
import { DiffView } from "./DiffView";
import { ForkDialog } from "./ForkDialog";
import { RestoreDialog } from "./RestoreDialog";

export type CheckpointDialog = { kind: "diff"; range: DiffRange } | { kind: "restore" | "fork"; checkpoint: number; title: string };

/** A task's diff: its span, to the latest checkpoint while it is open. */
export function taskDiff(task: Task, span: TaskSpan): CheckpointDialog {
  return { kind: "diff", range: { from: span.from, to: span.to ?? undefined, title: t("checkpoints.taskDiffTitle", { id: task.id, title: task.title }) } };
}

/** The whole plan's diff, or null before any approval's checkpoint. */
export function planDiff(list: CheckpointList | null): CheckpointDialog | null {
  const range = planRange(list);
  return range && { kind: "diff", range: { ...range, title: t("checkpoints.planDiffTitle") } };
}

export function restoreBeforeTask(task: Task, span: TaskSpan): CheckpointDialog {
  return { kind: "restore", checkpoint: span.from, title: t("checkpoints.restoreTaskTitle", { id: task.id, title: task.title }) };
}

/** A fork from the checkpoint a task started at (DESIGN §15). */
export function forkBeforeTask(task: Task, span: TaskSpan): CheckpointDialog {
  return { kind: "fork", checkpoint: span.from, title: t("fork.dialogTitle", { id: task.id, title: task.title }) };
}

export function undoTurn(checkpoint: number): CheckpointDialog {
  return { kind: "restore", checkpoint, title: t("checkpoints.undoTurnTitle") };
}

export interface CheckpointDialogsProps {
  dialog: CheckpointDialog | null;
  checkpoints: CheckpointList | null;
  tasks: Task[];
  /** A turn runs: a restore waits until it ends. */
  busy: boolean;
  loadDiff: (from: number, to?: number) => Promise<CheckpointDiff>;
  loadPreview: (checkpoint: number) => Promise<RestorePreview>;
  /** Restores as the preview with `digest` showed; resolves with the error to show when refused. */
  restore: (checkpoint: number, digest: string, overwrite: boolean) => Promise<string | null>;
  /** The chat's workspace (a fork may share it), and the fork at a checkpoint: its files
   *  copied into a folder the user chooses, or the workspace shared; the error, or null. */
  workspace?: string | null;
  fork?: (checkpoint: number, copy: boolean) => Promise<string | null>;
  onClose: () => void;
}

export function CheckpointDialogs({ dialog, checkpoints, tasks, busy, loadDiff, loadPreview, restore, workspace = null, fork, onClose }: CheckpointDialogsProps) {
  if (dialog === null) return null;
  if (dialog.kind === "diff") {
    const { from, to, title } = dialog.range;
    return <DiffView key={`${from}-${to ?? "latest"}`} title={title} load={() => loadDiff(from, to)} leftOut={leftOutBetween(checkpoints, from, to)} onClose={onClose} />;
  }
  const { checkpoint, title } = dialog;
  if (dialog.kind === "fork") {
    if (!fork) return null;
    return <ForkDialog key={checkpoint} title={title} checkpoint={checkpoint} workspace={workspace} onCopy={() => fork(checkpoint, true)} onShare={() => fork(checkpoint, false)} onClose={onClose} />;
  }
  return (
    <RestoreDialog
      key={checkpoint}
      title={title}
      load={() => loadPreview(checkpoint)}
      onConfirm={(overwrite, digest) => restore(checkpoint, digest, overwrite)}
      busy={busy}
      taskTitle={(id) => tasks.find((task) => task.id === id)?.title}
      onClose={onClose}
    />
  );
}
