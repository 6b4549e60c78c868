// The completion record of a plan carried out (DESIGN §12): what was planned, what was done,
// how the work departed from the plan, and each step's check as Preflight ran it. The
// figures are the engine's, computed from the task history; the summary is the executor's.
import type { Completion } from "../generated/Completion";
import type { Deviation } from "../generated/Deviation";
import type { Task } from "../generated/Task";
import { Markdown } from "./Markdown";

const DEVIATION: Record<Deviation["kind"], string> = {
  dropped: "Dropped",
  modified: "Reworded",
  added: "Added",
  out_of_order: "Out of order",
};

/** "3 of 4 steps as planned · 1 reworded · 1 dropped · 1 added · in order" */
export function adherenceLine(completion: Completion): string {
  const a = completion.adherence;
  const parts = [`${a.done_as_planned} of ${a.steps} ${a.steps === 1 ? "step" : "steps"} as planned`];
  if (a.modified > 0) parts.push(`${a.modified} reworded`);
  if (a.dropped > 0) parts.push(`${a.dropped} dropped`);
  if (a.added > 0) parts.push(`${a.added} added`);
  parts.push(a.in_order ? "in order" : "not in the planned order");
  return parts.join(" · ");
}

function mark(task: Task | undefined): string {
  if (!task) return "✗";
  return task.status === "done" ? "✓" : task.status === "dropped" ? "✗" : "○";
}

export function CompletionCard({ completion }: { completion: Completion }) {
  const byId = new Map(completion.tasks.map((task) => [task.id, task]));
  const planned = new Set(completion.planned.map((step) => step.id));
  const added = completion.tasks.filter((task) => !planned.has(task.id));
  return (
    <section class="card completion-card" data-testid="completion-card" aria-label="Plan completed">
      <h3 class="card-title">Plan completed</h3>
      <p class="adherence" data-testid="adherence">
        {adherenceLine(completion)}
      </p>
      {completion.summary && (
        <div class="completion-summary">
          <Markdown text={completion.summary} />
        </div>
      )}
      <h4>Planned and done</h4>
      <ol class="completion-steps" data-testid="completion-steps">
        {completion.planned.map((step) => {
          const task = byId.get(step.id);
          return (
            <li key={step.id} class={task?.status ?? "dropped"}>
              <span class="mark">{mark(task)}</span> <span class={task?.status === "dropped" ? "struck" : ""}>{step.title}</span>
              {task && task.title !== step.title && <span class="small muted"> → now “{task.title}”</span>}
              {task?.outcome && <span class="task-outcome"> — {task.outcome}</span>}
              {task?.gate && <GateEvidence task={task} />}
            </li>
          );
        })}
      </ol>
      {added.length > 0 && (
        <>
          <h4>Added by the executor</h4>
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
          <h4>What changed</h4>
          <ul class="deviations" data-testid="deviations">
            {completion.deviations.map((deviation, index) => (
              <li key={index} data-kind={deviation.kind}>
                <strong>{DEVIATION[deviation.kind]}</strong> step {deviation.task} “{deviation.title}” — {deviation.detail}
              </li>
            ))}
          </ul>
        </>
      )}
      <p class="small muted">Finished {completion.finished_at}</p>
    </section>
  );
}

function GateEvidence({ task }: { task: Task }) {
  const gate = task.gate!;
  return (
    <details class={`gate ${gate.passes ? "passed" : "failed"}`} data-testid="completion-gate">
      <summary>
        <span class="gate-mark">{gate.passes ? "✓" : "✗"}</span> <code>{gate.command}</code> <span class="small muted">exit {gate.exit_code}</span>
      </summary>
      <pre class="gate-evidence">{gate.evidence}</pre>
    </details>
  );
}
