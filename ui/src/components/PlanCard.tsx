// The plan card: title, aim, steps (action → expected), libraries, the sandbox, and
// Approve / Revise (with feedback) / Cancel plan. Steps can be edited before approval
// (each edit is a new revision in the engine). Earlier plan cards are read-only history.
import { useState } from "preact/hooks";

import type { PlanDocument } from "../generated/PlanDocument";
import type { PlanEdit } from "../generated/PlanEdit";
import type { PlanStep } from "../generated/PlanStep";
import type { UnconfinedNotice } from "../generated/UnconfinedNotice";
import { t } from "../lib/i18n";
import { RevisionDiff } from "./RevisionDiff";

export interface PlanCardProps {
  plan: PlanDocument;
  /** The latest plan, waiting for approval. */
  active: boolean;
  planRunning: boolean;
  /** Set when the sandbox would run this plan's code unconfined on this machine. */
  unconfined?: UnconfinedNotice | null;
  /** False when the executor's model (the embedded one) cannot call tools: approving will not
   *  carry the steps out, and the waiting plan says so. */
  executorCallsTools?: boolean;
  /** `unconfined`: the user ticked "Run unconfined" (needed when the notice asks for it). */
  onApprove: (unconfined: boolean) => void;
  onRevise: (feedback: string) => void;
  onCancel: () => void;
  onEdit: (edit: PlanEdit) => Promise<void> | void;
  /** Every revision of the chat's plan, for "Compare with…". */
  loadRevisions?: () => Promise<PlanDocument[]>;
}

function approvalText(approval: PlanDocument["approval"]): string {
  switch (approval) {
    case "pending":
      return t("plan.approval.pending");
    case "approved":
      return t("plan.approval.approved");
    case "pre_approved":
      return t("plan.approval.preApproved");
    case "rejected":
      return t("plan.approval.rejected");
  }
}

export function sandboxLine(plan: PlanDocument): string {
  const where = plan.sandbox.dir ?? t("plan.sandbox.noWorkspace");
  const what = plan.sandbox.policy === "reuse" ? t("plan.sandbox.reuse", { where }) : t("plan.sandbox.create", { where });
  return plan.sandbox.notes.trim() ? t("plan.sandbox.withNotes", { what, notes: plan.sandbox.notes.trim() }) : what;
}

/** The task list's limits (DESIGN §5): a plan over them is never cut, so it cannot be approved. */
export const MAX_STEPS = 40;
export const MAX_ACTION_CHARS = 120;

/** Why the plan cannot become a task list as it is, or null when it fits. */
export function overLimit(steps: PlanStep[]): string | null {
  if (steps.length > MAX_STEPS) return t("plan.tooManySteps", { count: steps.length, max: MAX_STEPS });
  const index = steps.findIndex((step) => [...step.action.trim().split(/\s+/).join(" ")].length > MAX_ACTION_CHARS);
  if (index === -1) return null;
  return t("plan.stepTooLong", { step: index + 1, max: MAX_ACTION_CHARS });
}

export function PlanCard(props: PlanCardProps) {
  const { plan, active, planRunning } = props;
  const [mode, setMode] = useState<"view" | "edit" | "revise">("view");
  const [allowUnconfined, setAllowUnconfined] = useState(false);
  // Only the waiting plan asks; history shows what the approval chose.
  const notice = active ? (props.unconfined ?? null) : null;
  const consentMissing = notice !== null && notice.needs_consent && !allowUnconfined;
  return (
    <section class={`card plan-card${active ? " active" : " history"}`} data-testid="plan-card" aria-label={t("plan.label")}>
      <header class="card-title">
        <span class="plan-title">{plan.title}</span>
        <span class="badge">
          {t("plan.badge", { approval: approvalText(plan.approval), revision: plan.revision })}
        </span>
      </header>
      <p class="plan-aim">
        <strong>{t("plan.aim")}</strong> {plan.aim}
      </p>
      {mode === "edit" ? (
        <StepEditor steps={plan.steps} onCancel={() => setMode("view")} onSave={async (steps) => {
          await props.onEdit({ steps });
          setMode("view");
        }} />
      ) : (
        <ol class="plan-steps">
          {plan.steps.map((step, index) => (
            <li key={index}>
              <span class="step-action">{step.action}</span> <span class="arrow">→</span> <span class="step-expected">{step.expected}</span>
            </li>
          ))}
        </ol>
      )}
      {plan.libraries.length > 0 && (
        <table class="libraries">
          <thead>
            <tr>
              <th>{t("plan.library")}</th>
              <th>{t("plan.purpose")}</th>
              <th>{t("plan.usage")}</th>
            </tr>
          </thead>
          <tbody>
            {plan.libraries.map((library) => (
              <tr key={library.name}>
                <td>{library.name}</td>
                <td>{library.purpose}</td>
                <td>
                  <code>{library.usage}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="sandbox-line">
        <strong>{t("plan.sandboxLabel")}</strong> {sandboxLine(plan)}
      </p>
      {notice !== null && (
        <div class="unconfined warn" data-testid="plan-unconfined">
          <p>
            <strong>{t("plan.unconfined.title")}</strong> {notice.reason}
          </p>
          {notice.needs_consent ? (
            <label class="row">
              <input type="checkbox" data-testid="allow-unconfined" checked={allowUnconfined} onChange={(event) => setAllowUnconfined(event.currentTarget.checked)} />
              {t("plan.unconfined.consent")}
            </label>
          ) : (
            <p class="small">{t("plan.unconfined.chosen")}</p>
          )}
        </div>
      )}
      {active && props.executorCallsTools === false && (
        <div class="no-tools warn" data-testid="plan-no-tools" role="note">
          <p>
            <strong>{t("plan.noTools.title")}</strong> {t("plan.noTools.text")}
          </p>
          <p class="small">{t("plan.noTools.fix")}</p>
        </div>
      )}
      {!active && plan.run_unconfined && (
        <p class="small warn" data-testid="plan-ran-unconfined">
          {t("plan.unconfined.approved")}
        </p>
      )}
      {mode === "revise" && <Feedback onCancel={() => setMode("view")} onSend={(text) => { props.onRevise(text); setMode("view"); }} />}
      {props.loadRevisions && <RevisionDiff current={plan} load={props.loadRevisions} />}
      <footer class="card-actions">
        {active && mode === "view" && (
          <>
            {overLimit(plan.steps) !== null && (
              <p class="error small" data-testid="plan-over-limit">
                {overLimit(plan.steps)} {t("plan.shorten")}
              </p>
            )}
            <button type="button" class="primary" data-testid="approve-plan" disabled={overLimit(plan.steps) !== null || consentMissing} onClick={() => props.onApprove(allowUnconfined)}>
              {t("plan.approve")}
            </button>
            <button type="button" class="secondary" data-testid="revise-plan" onClick={() => setMode("revise")}>
              {t("plan.revise")}
            </button>
            <button type="button" class="secondary" data-testid="edit-steps" onClick={() => setMode("edit")}>
              {t("plan.editSteps")}
            </button>
          </>
        )}
        <button type="button" class="secondary" data-testid="cancel-plan" disabled={!planRunning} onClick={props.onCancel}>
          {t("plan.cancel")}
        </button>
      </footer>
    </section>
  );
}

function Feedback({ onSend, onCancel }: { onSend: (text: string) => void; onCancel: () => void }) {
  const [text, setText] = useState("");
  const ready = text.trim() !== "";
  return (
    <form
      class="feedback"
      onSubmit={(event) => {
        event.preventDefault();
        if (ready) onSend(text.trim());
      }}
    >
      <textarea aria-label={t("plan.feedback")} placeholder={t("plan.feedback")} value={text} onInput={(event) => setText(event.currentTarget.value)} />
      <div class="row">
        <button type="submit" class="primary" disabled={!ready}>
          {t("plan.sendFeedback")}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          {t("plan.back")}
        </button>
      </div>
    </form>
  );
}

function StepEditor({ steps, onSave, onCancel }: { steps: PlanStep[]; onSave: (steps: PlanStep[]) => void; onCancel: () => void }) {
  const [draft, setDraft] = useState<PlanStep[]>(steps.map((step) => ({ ...step })));
  const set = (index: number, field: keyof PlanStep, value: string) =>
    setDraft(draft.map((step, at) => (at === index ? { ...step, [field]: value } : step)));
  const kept = draft.filter((step) => step.action.trim() !== "");
  return (
    <form
      class="step-editor"
      onSubmit={(event) => {
        event.preventDefault();
        if (kept.length > 0) onSave(kept.map((step) => ({ action: step.action.trim(), expected: step.expected.trim() })));
      }}
    >
      {draft.map((step, index) => (
        <div class="step-row" key={index}>
          <span class="step-number">{index + 1}</span>
          <input aria-label={t("plan.stepAction", { step: index + 1 })} class="step-action-input" value={step.action} onInput={(event) => set(index, "action", event.currentTarget.value)} />
          <span class="arrow">→</span>
          <input aria-label={t("plan.stepExpected", { step: index + 1 })} class="step-expected-input" value={step.expected} onInput={(event) => set(index, "expected", event.currentTarget.value)} />
          <button type="button" class="icon" aria-label={t("plan.removeStep", { step: index + 1 })} onClick={() => setDraft(draft.filter((_, at) => at !== index))}>
            ×
          </button>
        </div>
      ))}
      <div class="row">
        <button type="button" class="secondary" onClick={() => setDraft([...draft, { action: "", expected: "" }])}>
          {t("plan.addStep")}
        </button>
        <button type="submit" class="primary" data-testid="save-steps" disabled={kept.length === 0}>
          {t("plan.saveSteps")}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          {t("plan.back")}
        </button>
      </div>
    </form>
  );
}
