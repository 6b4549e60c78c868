// The completion record of a plan carried out (DESIGN §12): what was planned, what was done,
// how the work departed from the plan, and each step's check as Preflight ran it. The
// figures are the engine's, computed from the task history; the summary is the executor's.
// With checkpoints, "Diff of the whole plan" shows what the work changed in the workspace.
// A plan whose checks the finaliser could not confirm reads "Finished, not verified" until the
// user has it verified, continues it or accepts it as is (./Finalization.tsx).
import type { ChatUsage } from "../generated/ChatUsage";
import type { Completion } from "../generated/Completion";
import type { Deviation } from "../generated/Deviation";
import type { StopReason } from "../generated/StopReason";
import type { Task } from "../generated/Task";
import { formatTime, t } from "../lib/i18n";
import { Finalization, standingOf, type Standing, type VerdictActions } from "./Finalization";
import { Markdown } from "./Markdown";
import { stopReasonShort } from "./StopCard";
import { UsageTotals } from "./Usage";

function deviationText(kind: Deviation["kind"]): string {
  switch (kind) {
    case "dropped":
      return t("completion.deviation.dropped");
    case "modified":
      return t("completion.deviation.modified");
    case "added":
      return t("completion.deviation.added");
    case "out_of_order":
      return t("completion.deviation.outOfOrder");
  }
}

/** "3 of 4 steps as planned · 1 reworded · 1 dropped · 1 added · in order" */
export function adherenceLine(completion: Completion): string {
  const a = completion.adherence;
  const parts = [t("completion.asPlanned", { done: a.done_as_planned, count: a.steps })];
  if (a.modified > 0) parts.push(t("completion.reworded", { count: a.modified }));
  if (a.dropped > 0) parts.push(t("completion.dropped", { count: a.dropped }));
  if (a.added > 0) parts.push(t("completion.added", { count: a.added }));
  parts.push(a.in_order ? t("completion.inOrder") : t("completion.outOfOrder"));
  return parts.join(" · ");
}

/** "Stopped 2 times with tasks left (a check failed ×2) · continued 2 times, 1 automatically ·
 *  restored 1 time", or null when the work ran through. */
export function stopsLine(completion: Completion): string | null {
  const events = completion.stops_and_continues ?? [];
  if (events.length === 0) return null;
  const reasons = new Map<StopReason, number>();
  let stops = 0;
  let continues = 0;
  let auto = 0;
  let restores = 0;
  for (const event of events) {
    if (event.kind === "stopped") {
      stops += 1;
      reasons.set(event.reason, (reasons.get(event.reason) ?? 0) + 1);
    } else if (event.kind === "continued") {
      continues += 1;
      if (event.auto) auto += 1;
    } else {
      restores += 1;
    }
  }
  const parts: string[] = [];
  if (stops > 0) {
    const why = [...reasons].map(([reason, count]) => (count > 1 ? t("completion.reasonTimes", { reason: stopReasonShort(reason), count }) : stopReasonShort(reason)));
    parts.push(t("completion.stopped", { count: stops, reasons: why.join(", ") }));
  }
  if (continues > 0) {
    const continued = t("completion.continued", { count: continues });
    parts.push(auto > 0 ? t("completion.continuedAuto", { continued, auto }) : continued);
  }
  if (restores > 0) parts.push(t("completion.restored", { count: restores }));
  return parts.join(" · ");
}

function mark(task: Task | undefined): string {
  if (!task) return "✗";
  return task.status === "done" ? "✓" : task.status === "dropped" ? "✗" : "○";
}

/** The tasks as the verdict left them: one whose check failed when run again is open again
 *  (its record of the turn's passing run no longer stands, so it is not shown as evidence). */
function asVerified(completion: Completion): Task[] {
  const reopened = new Set(completion.finalization?.reopened ?? []);
  return completion.tasks.map((task) =>
    reopened.has(task.id) ? { ...task, status: "pending", outcome: t("completion.openAgain"), gate: undefined } : task,
  );
}

export interface CompletionCardProps extends VerdictActions {
  completion: Completion;
  /** A turn runs in the chat: the verdict's actions wait for it. */
  busy?: boolean;
  /** How many verdicts (`completion` events) the chat has heard: a re-run's may repeat the last. */
  verdictsHeard?: number;
  onOpenFolder?: () => void;
  /** Opens the diff of the whole plan's work; without it, no button (no checkpoints). */
  onPlanDiff?: () => void;
  /** Show the executor's summary; false when the chat's last message already says it. */
  showSummary?: boolean;
  /** What the chat's model calls used and cost: the card gives the totals. */
  usage?: ChatUsage;
}

function heading(standing: Standing): string {
  switch (standing) {
    case "completed":
      return t("completion.title");
    case "not_verified":
      return t("completion.notVerifiedTitle");
    case "accepted":
      return t("completion.acceptedTitle");
  }
}

export function CompletionCard({ completion, onOpenFolder, onPlanDiff, showSummary = true, busy, verdictsHeard, usage, ...verdictActions }: CompletionCardProps) {
  const tasks = asVerified(completion);
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const planned = new Set(completion.planned.map((step) => step.id));
  const added = tasks.filter((task) => !planned.has(task.id));
  const standing = standingOf(completion.finalization);
  const title = heading(standing);
  return (
    <section class={`card completion-card ${standing}`} data-testid="completion-card" data-standing={standing} aria-label={title}>
      <h3 class="card-title" data-testid="completion-title">
        {title}
      </h3>
      <p class="adherence" data-testid="adherence">
        {adherenceLine(completion)}
      </p>
      {stopsLine(completion) !== null && (
        <p class="small muted completion-stops" data-testid="completion-stops">
          {stopsLine(completion)}
        </p>
      )}
      {completion.finalization && <Finalization completion={completion} note={completion.finalization} busy={busy} verdictsHeard={verdictsHeard} onOpenFolder={onOpenFolder} {...verdictActions} />}
      {showSummary && completion.summary && (
        <div class="completion-summary">
          <Markdown text={completion.summary} />
        </div>
      )}
      <h4>{standing === "completed" ? t("completion.planned") : t("completion.plannedSteps")}</h4>
      <ol class="completion-steps" data-testid="completion-steps">
        {completion.planned.map((step) => {
          const task = byId.get(step.id);
          return (
            <li key={step.id} class={task?.status ?? "dropped"}>
              <span class="mark">{mark(task)}</span> <span class={task?.status === "dropped" ? "struck" : ""}>{step.title}</span>
              {task && task.title !== step.title && <span class="small muted"> {t("completion.nowTitled", { title: task.title })}</span>}
              {task?.outcome && <span class="task-outcome"> — {task.outcome}</span>}
              {task?.gate && <GateEvidence task={task} />}
            </li>
          );
        })}
      </ol>
      {added.length > 0 && (
        <>
          <h4>{t("completion.addedByExecutor")}</h4>
          <ul class="completion-added">
            {added.map((task) => (
              <li key={task.id}>
                <span class="mark">{mark(task)}</span> {task.title}
                {task.gate && <GateEvidence task={task} />}
              </li>
            ))}
          </ul>
        </>
      )}
      {completion.deviations.length > 0 && (
        <>
          <h4>{t("completion.whatChanged")}</h4>
          <ul class="deviations" data-testid="deviations">
            {completion.deviations.map((deviation, index) => (
              <li key={index} data-kind={deviation.kind}>
                <strong>{deviationText(deviation.kind)}</strong> {t("completion.deviationLine", { task: deviation.task, title: deviation.title, detail: deviation.detail })}
              </li>
            ))}
          </ul>
        </>
      )}
      {onPlanDiff && (
        <div class="card-actions">
          <button type="button" class="secondary small" data-testid="plan-diff" onClick={onPlanDiff}>
            {t("completion.planDiff")}
          </button>
        </div>
      )}
      {usage && <UsageTotals usage={usage} />}
      <p class="small muted">{t("completion.finishedAt", { time: formatTime(completion.finished_at) })}</p>
    </section>
  );
}

function GateEvidence({ task }: { task: Task }) {
  const gate = task.gate!;
  return (
    <details class={`gate ${gate.passes ? "passed" : "failed"}`} data-testid="completion-gate">
      <summary>
        <span class="gate-mark">{gate.passes ? "✓" : "✗"}</span> <code>{gate.command}</code> <span class="small muted">{t("gate.exit", { code: gate.exit_code })}</span>
      </summary>
      <pre class="gate-evidence">{gate.evidence}</pre>
    </details>
  );
}
