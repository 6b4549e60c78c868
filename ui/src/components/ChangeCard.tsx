// The executor's request to change the approved plan (DESIGN §12): what it would change and
// why, with Approve / Keep the plan while it waits; once answered, how it was answered.
import type { PlanChange } from "../generated/PlanChange";

export interface ChangeCardProps {
  change: PlanChange;
  /** A turn runs in the chat: answers wait until it ends (the engine refuses them). */
  busy: boolean;
  onAnswer: (changeId: string, approve: boolean) => void;
}

/** What the change does, in one line a person reads. */
export function describeChange(change: PlanChange): string {
  const title = change.title ?? "";
  switch (change.kind) {
    case "drop":
      return `Drop step ${change.task}: “${title}”`;
    case "modify":
      return `Reword step ${change.task}: “${title}” → “${change.new_title ?? ""}”`;
    case "replace": {
      const count = change.tasks?.length ?? 0;
      return `Replace the open steps with ${count} new ${count === 1 ? "one" : "ones"}`;
    }
  }
}

function answerText(change: PlanChange): string {
  if (change.status === "approved") {
    const revision = change.revision ? ` (plan revision ${change.revision})` : "";
    return change.auto_approved ? `Applied by this chat's auto-approve${revision}` : `Approved${revision}`;
  }
  return "You kept the plan";
}

export function ChangeCard({ change, busy, onAnswer }: ChangeCardProps) {
  const pending = change.status === "pending";
  return (
    <section class={`card change-card ${change.status}`} data-testid="change-card" data-status={change.status} aria-label="Plan change">
      <h3 class="card-title">{pending ? "The executor asks to change the plan" : "The executor changed the plan"}</h3>
      <p class="change-what" data-testid="change-what">
        {describeChange(change)}
      </p>
      {change.kind === "replace" && change.tasks && (
        <ol class="change-tasks">
          {change.tasks.map((task, index) => (
            <li key={index}>{task.title}</li>
          ))}
        </ol>
      )}
      <p class="change-why">
        <span class="muted">Why: </span>
        {change.reason}
      </p>
      {pending ? (
        <div class="card-actions">
          <button type="button" class="primary" data-testid="change-approve" disabled={busy} onClick={() => onAnswer(change.id, true)}>
            Approve
          </button>
          <button type="button" class="secondary" data-testid="change-reject" disabled={busy} onClick={() => onAnswer(change.id, false)}>
            Keep the plan
          </button>
          {busy && <span class="small muted">You can answer when the executor stops.</span>}
        </div>
      ) : (
        <p class="small muted" data-testid="change-answer">
          {answerText(change)}
        </p>
      )}
    </section>
  );
}
