// The executor's request to change the approved plan (DESIGN §12): what it would change and
// why, with Approve / Keep the plan while it waits; once answered, how it was answered.
import type { PlanChange } from "../generated/PlanChange";
import { t } from "../lib/i18n";

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
      return t("change.drop", { task: change.task ?? "", title });
    case "modify":
      return t("change.modify", { task: change.task ?? "", title, newTitle: change.new_title ?? "" });
    case "replace": {
      return t("change.replace", { count: change.tasks?.length ?? 0 });
    }
    case "check":
      return t("change.check", { task: change.task ?? "", title, newCheck: change.new_check ?? "", oldCheck: change.old_check ?? "" });
  }
}

function answerText(change: PlanChange): string {
  if (change.status === "approved") {
    const revision = change.revision ? t("change.revision", { revision: change.revision }) : "";
    return change.auto_approved ? t("change.autoApproved", { revision }) : t("change.approved", { revision });
  }
  return t("change.kept");
}

export function ChangeCard({ change, busy, onAnswer }: ChangeCardProps) {
  const pending = change.status === "pending";
  return (
    <section class={`card change-card ${change.status}`} data-testid="change-card" data-status={change.status} aria-label={t("change.label")}>
      <h3 class="card-title">{pending ? t("change.asks") : t("change.changed")}</h3>
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
        <span class="muted">{t("change.why")} </span>
        {change.reason}
      </p>
      {pending ? (
        <div class="card-actions">
          <button type="button" class="primary" data-testid="change-approve" disabled={busy} onClick={() => onAnswer(change.id, true)}>
            {t("change.approve")}
          </button>
          <button type="button" class="secondary" data-testid="change-reject" disabled={busy} onClick={() => onAnswer(change.id, false)}>
            {t("change.keep")}
          </button>
          {busy && <span class="small muted">{t("change.wait")}</span>}
        </div>
      ) : (
        <p class="small muted" data-testid="change-answer">
          {answerText(change)}
        </p>
      )}
    </section>
  );
}
