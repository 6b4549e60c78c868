// The plan card: title, aim, approach and complexity, steps (action → expected, with each
// step's files, dependencies and check), risks and files folded, libraries, the sandbox,
// Preflight's notes, and Approve / Revise (with feedback) / Cancel plan. Steps can be edited
// before approval (each edit is a new revision in the engine). Earlier plan cards are
// read-only history. Everything the planner wrote is rendered as text: it is untrusted.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

import type { CommentDraft } from "../generated/CommentDraft";
import type { PlanDocument } from "../generated/PlanDocument";
import type { PlanField } from "../generated/PlanField";
import type { Complexity } from "../generated/Complexity";
import type { PlanEdit } from "../generated/PlanEdit";
import type { PlanStep } from "../generated/PlanStep";
import type { UnconfinedNotice } from "../generated/UnconfinedNotice";
import { t } from "../lib/i18n";
import { commentableFields, usePlanComments, type PlanComments } from "../lib/planComments";
import { anchorName, Commentable } from "./PlanComments";
import { RevisionDiff } from "./RevisionDiff";

export interface PlanCardProps {
  /** The chat the plan is of: comments being collected are kept per chat and revision. */
  chatId: string;
  plan: PlanDocument;
  /** The latest plan, waiting for approval. */
  active: boolean;
  planRunning: boolean;
  /** Set when the sandbox would run this plan's code unconfined on this machine. */
  unconfined?: UnconfinedNotice | null;
  /** False when the executor's model (the embedded one) cannot call tools: approving will not
   *  carry the steps out, and the waiting plan says so. */
  executorCallsTools?: boolean;
  /** The chat's planning scope (DESIGN §14): the waiting plan says it was made within it. */
  scope?: string[];
  /** `unconfined`: the user ticked "Run unconfined" (needed when the notice asks for it). */
  onApprove: (unconfined: boolean) => void;
  /** Sends the plan back: the user's words and/or comments on its steps and fields. */
  onRevise: (feedback: string | null, comments: CommentDraft[]) => void;
  onCancel: () => void;
  /** Opens Settings: where a provider that can carry out the plan is added. */
  onOpenSettings?: () => void;
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

function complexityText(complexity: Complexity): string {
  switch (complexity) {
    case "low":
      return t("plan.complexity.low");
    case "medium":
      return t("plan.complexity.medium");
    case "high":
      return t("plan.complexity.high");
  }
}

/** Under a step: "after 1, 2", its files, and its check as a code chip. */
function StepDetails({ step, number }: { step: PlanStep; number: number }) {
  const after = step.depends_on ?? [];
  const files = step.files ?? [];
  if (after.length === 0 && files.length === 0 && !step.check) return null;
  return (
    <div class="step-details">
      {after.length > 0 && (
        <span class="step-depends muted" data-testid={`step-depends-${number}`}>
          {t("plan.after", { steps: after.join(", ") })}
        </span>
      )}
      {files.length > 0 && (
        <span class="step-files" data-testid={`step-files-${number}`}>
          {files.map((path) => (
            <code key={path}>{path}</code>
          ))}
        </span>
      )}
      {step.check && (
        <span class="step-check" data-testid={`step-check-${number}`}>
          <span class="muted">{t("plan.check")}</span> <code class="chip">{step.check}</code>
        </span>
      )}
    </div>
  );
}

/** Risks, files, alternatives and tests, each folded under a summary with its count. */
function PlanFolds({ plan }: { plan: PlanDocument }) {
  const create = plan.planned_files?.create ?? [];
  const modify = plan.planned_files?.modify ?? [];
  return (
    <>
      <Fold testid="plan-risks" label={t("plan.risks")} items={plan.risks ?? []} />
      {create.length + modify.length > 0 && (
        <details class="plan-fold" data-testid="plan-files">
          <summary>
            {t("plan.files")} ({create.length + modify.length})
          </summary>
          <PathList label={t("plan.filesCreate")} paths={create} />
          <PathList label={t("plan.filesModify")} paths={modify} />
        </details>
      )}
      <Fold testid="plan-alternatives" label={t("plan.alternatives")} items={plan.alternatives ?? []} />
      <Fold testid="plan-tests" label={t("plan.tests")} items={plan.tests ?? []} />
    </>
  );
}

function Fold({ testid, label, items }: { testid: string; label: string; items: string[] }) {
  if (items.length === 0) return null;
  return (
    <details class="plan-fold" data-testid={testid}>
      <summary>
        {label} ({items.length})
      </summary>
      <ul>
        {items.map((item, index) => (
          <li key={index}>{item}</li>
        ))}
      </ul>
    </details>
  );
}

function PathList({ label, paths }: { label: ComponentChildren; paths: string[] }) {
  if (paths.length === 0) return null;
  return (
    <div class="path-list">
      <span class="muted">{label}</span>
      <ul>
        {paths.map((path) => (
          <li key={path}>
            <code>{path}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function PlanCard(props: PlanCardProps) {
  const { plan, active, planRunning } = props;
  const [mode, setMode] = useState<"view" | "edit" | "revise">("view");
  const [allowUnconfined, setAllowUnconfined] = useState(false);
  // Only the waiting plan asks; history shows what the approval chose.
  const notice = active ? (props.unconfined ?? null) : null;
  const consentMissing = notice !== null && notice.needs_consent && !allowUnconfined;
  const review = usePlanComments(props.chatId, plan.revision);
  const collecting = active && mode === "view" ? review : null;
  const count = review.comments.length;
  // Sent (or the card is history now): what was collected has gone with the rejection.
  useEffect(() => {
    if (!active && count > 0) review.clear();
  }, [active, count]);
  return (
    <section class={`card plan-card${active ? " active" : " history"}`} data-testid="plan-card" aria-label={t("plan.label")}>
      <header class="card-title">
        <span class="plan-title">{plan.title}</span>
        {plan.complexity && (
          <span class={`chip plan-complexity ${plan.complexity}`} data-testid="plan-complexity">
            {complexityText(plan.complexity)}
          </span>
        )}
        <span class="badge">
          {t("plan.badge", { approval: approvalText(plan.approval), revision: plan.revision })}
        </span>
      </header>
      <p class="plan-aim">
        <strong>{t("plan.aim")}</strong> {plan.aim}
      </p>
      <FieldComments fields={["aim"]} plan={plan} review={collecting} />
      {active && props.scope && props.scope.length > 0 && (
        <p class="plan-scope small" data-testid="plan-scope">
          <span class="muted">{t("scope.card")}</span>{" "}
          {props.scope.map((path, index) => (
            <span key={path}>
              {index > 0 && ", "}
              <code>{path}</code>
            </span>
          ))}
        </p>
      )}
      {plan.approach && (
        <p class="plan-approach" data-testid="plan-approach">
          <strong>{t("plan.approach")}</strong> {plan.approach}
        </p>
      )}
      <FieldComments fields={["approach"]} plan={plan} review={collecting} />
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
              <StepDetails step={step} number={index + 1} />
              <Commentable anchor={{ step: index + 1 }} what={anchorName({ step: index + 1 })} review={collecting} sent={plan.comments} />
            </li>
          ))}
        </ol>
      )}
      <PlanFolds plan={plan} />
      <FieldComments fields={["risks", "files", "tests"]} plan={plan} review={collecting} />
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
      <FieldComments fields={["libraries"]} plan={plan} review={collecting} />
      <p class="sandbox-line">
        <strong>{t("plan.sandboxLabel")}</strong> {sandboxLine(plan)}
      </p>
      <FieldComments fields={["sandbox"]} plan={plan} review={collecting} />
      {plan.notes && plan.notes.length > 0 && (
        <ul class="plan-notes small muted" data-testid="plan-notes" aria-label={t("plan.notes")}>
          {plan.notes.map((note, index) => (
            <li key={index}>{note}</li>
          ))}
        </ul>
      )}
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
          {props.onOpenSettings && (
            <button type="button" class="primary" data-testid="plan-add-provider" onClick={props.onOpenSettings}>
              {t("plan.noTools.addProvider")}
            </button>
          )}
        </div>
      )}
      {!active && plan.run_unconfined && (
        <p class="small warn" data-testid="plan-ran-unconfined">
          {t("plan.unconfined.approved")}
        </p>
      )}
      {mode === "revise" && (
        <Feedback
          comments={count}
          onCancel={() => setMode("view")}
          onSend={(text) => {
            props.onRevise(text, review.comments);
            setMode("view");
          }}
        />
      )}
      {props.loadRevisions && <RevisionDiff current={plan} load={props.loadRevisions} />}
      <footer class="card-actions">
        {active && mode === "view" && (
          <>
            {overLimit(plan.steps) !== null && (
              <p class="error small" data-testid="plan-over-limit">
                {overLimit(plan.steps)} {t("plan.shorten")}
              </p>
            )}
            <button type="button" class={props.executorCallsTools === false ? "secondary" : "primary"} data-testid="approve-plan" disabled={overLimit(plan.steps) !== null || consentMissing} onClick={() => props.onApprove(allowUnconfined)}>
              {t("plan.approve")}
            </button>
            {count > 0 && (
              <button type="button" class="primary" data-testid="revise-with-comments" onClick={() => props.onRevise(null, review.comments)}>
                {t("review.reviseWith", { count })}
              </button>
            )}
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

/** The comment boxes of the plan's fields that have something in them. */
function FieldComments({ fields, plan, review }: { fields: PlanField[]; plan: PlanDocument; review: PlanComments | null }) {
  const present = commentableFields(plan).filter((field) => fields.includes(field));
  const sent = plan.comments ?? [];
  const shown = present.filter((field) => review !== null || sent.some((comment) => "field" in comment.anchor && comment.anchor.field === field));
  return (
    <>
      {shown.map((field) => (
        <Commentable key={field} anchor={{ field }} what={anchorName({ field })} review={review} sent={sent} />
      ))}
    </>
  );
}

function Feedback({ onSend, onCancel, comments }: { onSend: (text: string) => void; onCancel: () => void; comments: number }) {
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
          {comments > 0 ? t("review.sendWith", { count: comments }) : t("plan.sendFeedback")}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          {t("plan.back")}
        </button>
      </div>
    </form>
  );
}

/** A step being edited; `from` is its number in the plan, or null for a step added here. */
type DraftStep = PlanStep & { from: number | null };

/** The steps kept, trimmed, each keeping its files and check; dependencies follow the steps
 *  they named to their new numbers, and those on removed steps are dropped. */
export function editedSteps(draft: DraftStep[]): PlanStep[] {
  const kept = draft.filter((step) => step.action.trim() !== "");
  const numberOf = new Map(kept.flatMap((step, index) => (step.from === null ? [] : [[step.from, index + 1] as const])));
  return kept.map((step, index) => {
    const edited: PlanStep = { action: step.action.trim(), expected: step.expected.trim() };
    const after = (step.depends_on ?? []).map((n) => numberOf.get(n)).filter((n): n is number => n !== undefined && n < index + 1);
    if (step.files && step.files.length > 0) edited.files = step.files;
    if (after.length > 0) edited.depends_on = after;
    if (step.check) edited.check = step.check;
    return edited;
  });
}

function StepEditor({ steps, onSave, onCancel }: { steps: PlanStep[]; onSave: (steps: PlanStep[]) => void; onCancel: () => void }) {
  const [draft, setDraft] = useState<DraftStep[]>(steps.map((step, index) => ({ ...step, from: index + 1 })));
  const set = (index: number, field: "action" | "expected", value: string) =>
    setDraft(draft.map((step, at) => (at === index ? { ...step, [field]: value } : step)));
  const kept = draft.filter((step) => step.action.trim() !== "");
  return (
    <form
      class="step-editor"
      onSubmit={(event) => {
        event.preventDefault();
        if (kept.length > 0) onSave(editedSteps(draft));
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
        <button type="button" class="secondary" onClick={() => setDraft([...draft, { action: "", expected: "", from: null }])}>
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
