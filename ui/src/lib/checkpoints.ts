// The chat's checkpoints as the window uses them (issue 31): a task's span, the whole plan's
// range, the files the checkpoints of a range left out, and the figures of a change. Pure.
import type { ChangeStat } from "../generated/ChangeStat";
import type { CheckpointList } from "../generated/CheckpointList";
import type { LeftOut } from "../generated/LeftOut";
import type { TaskSpan } from "../generated/TaskSpan";
import { t } from "./i18n";

/** A diff to show: from checkpoint `from` to `to` (the latest when absent), and its title. */
export interface DiffRange {
  from: number;
  to?: number;
  title: string;
}

/** The task's work (its last span: a task reopened by a restore and started again has a new one). */
export function spanOf(list: CheckpointList | null, task: number): TaskSpan | undefined {
  return list?.tasks.filter((span) => span.task === task).at(-1);
}

/** The latest checkpoint's number, if any. */
export function latestCheckpoint(list: CheckpointList | null): number | undefined {
  return list?.checkpoints.reduce<number | undefined>((latest, checkpoint) => Math.max(latest ?? 0, checkpoint.n), undefined);
}

/** The whole plan: from the first `approval` checkpoint to the latest; none before approval. */
export function planRange(list: CheckpointList | null): { from: number; to?: number } | null {
  const approval = list?.checkpoints.find((checkpoint) => checkpoint.reason === "approval");
  return approval ? { from: approval.n, to: latestCheckpoint(list) } : null;
}

/** The files the checkpoints from `from` to `to` (the latest when absent) left out, once each.
 *  (`to` and `undo_turn` may come as null: the engine writes an absent one so today.) */
export function leftOutBetween(list: CheckpointList | null, from: number, to?: number): LeftOut[] {
  const seen = new Set<string>();
  const out: LeftOut[] = [];
  for (const checkpoint of list?.checkpoints ?? []) {
    if (checkpoint.n < from || (to != null && checkpoint.n > to)) continue;
    for (const file of checkpoint.left_out) {
      if (!seen.has(file.path)) {
        seen.add(file.path);
        out.push(file);
      }
    }
  }
  return out;
}

/** "3 files, +12 −4", or null for a change of nothing. */
export function statText(stat: ChangeStat): string | null {
  if (stat.files === 0 && stat.additions === 0 && stat.deletions === 0) return null;
  return t("checkpoints.stat", { count: stat.files, additions: stat.additions, deletions: stat.deletions });
}
