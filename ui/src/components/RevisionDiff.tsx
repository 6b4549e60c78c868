// "Compare with…" on a plan card (issue 18): any earlier revision against this one — steps
// added, removed, changed (word by word), and title, aim, libraries and sandbox changes —
// with who made each revision (the planner, your edit, an approved executor change).
import { useState } from "preact/hooks";

import type { PlanComment } from "../generated/PlanComment";
import type { PlanDocument } from "../generated/PlanDocument";
import { t } from "../lib/i18n";
import { authorOf, diffPlans, type Piece } from "../lib/planDiff";
import { anchorName } from "./PlanComments";

export interface RevisionDiffProps {
  current: PlanDocument;
  /** Loads every revision of the chat's plan, oldest first. */
  load: () => Promise<PlanDocument[]>;
}

function Pieces({ pieces }: { pieces: Piece[] }) {
  return (
    <>
      {pieces.map((piece, index) =>
        piece.kind === "same" ? (
          <span key={index}>{piece.text}</span>
        ) : piece.kind === "added" ? (
          <ins key={index}>{piece.text}</ins>
        ) : (
          <del key={index}>{piece.text}</del>
        ),
      )}
    </>
  );
}

/** The comments the earlier revision was sent back with, drawn beside what they point at. */
function Said({ comments }: { comments: PlanComment[] }) {
  if (comments.length === 0) return null;
  return (
    <ul class="plan-comments sent" data-testid="diff-comments">
      {comments.map((comment, index) => (
        <li key={index} class="plan-comment">
          {comment.text}
        </li>
      ))}
    </ul>
  );
}

export function RevisionDiff({ current, load }: RevisionDiffProps) {
  const [revisions, setRevisions] = useState<PlanDocument[] | null>(null);
  const [against, setAgainst] = useState<number | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const earlier = (revisions ?? []).filter((plan) => plan.revision < current.revision);
  const base = earlier.find((plan) => plan.revision === against) ?? null;
  const diff = base ? diffPlans(base, current) : null;
  const comments = base?.comments ?? [];
  const onStep = (from: number) => comments.filter((comment) => "step" in comment.anchor && comment.anchor.step === from);
  const onFields = comments.filter((comment) => "field" in comment.anchor);
  if (current.revision <= 1) return null;
  if (revisions === null) {
    return (
      <p class="small">
        <button
          type="button"
          class="link"
          data-testid="compare-revisions"
          onClick={() =>
            void load().then(
              (all) => {
                setRevisions(all);
                setAgainst(all.filter((plan) => plan.revision < current.revision).at(-1)?.revision ?? null);
              },
              (error: unknown) => setProblem(String((error as { message?: string })?.message ?? error)),
            )
          }
        >
          {t("diff.compare")}
        </button>
        {problem && <span class="error"> {problem}</span>}
      </p>
    );
  }
  return (
    <div class="revision-diff" data-testid="revision-diff">
      <label class="small">
        {t("diff.compareRevision", { revision: current.revision, author: authorOf(current) })}{" "}
        <select data-testid="compare-with" value={against ?? ""} onChange={(event) => setAgainst(Number(event.currentTarget.value))}>
          {earlier.map((plan) => (
            <option key={plan.revision} value={plan.revision}>
              {t("diff.revision", { revision: plan.revision, author: authorOf(plan) })}
            </option>
          ))}
        </select>
      </label>
      {diff && (
        <ul class="diff-lines">
          {diff.title && (
            <li data-testid="diff-title">
              <strong>{t("diff.title")}</strong> <Pieces pieces={diff.title} />
            </li>
          )}
          {diff.aim && (
            <li>
              <strong>{t("plan.aim")}</strong> <Pieces pieces={diff.aim} />
            </li>
          )}
          {diff.steps.map((change, index) => {
            const said = change.kind === "added" ? [] : onStep(change.from);
            if (change.kind === "same") {
              if (said.length === 0) return null;
              return (
                <li key={index} class="diff-same" data-kind="same">
                  <span class="diff-mark">=</span> {change.step.action} → {change.step.expected}
                  <Said comments={said} />
                </li>
              );
            }
            if (change.kind === "changed") {
              return (
                <li key={index} class="diff-changed" data-kind="changed">
                  <span class="diff-mark">~</span> <Pieces pieces={change.action} /> → <Pieces pieces={change.expected} />
                  <Said comments={said} />
                </li>
              );
            }
            return (
              <li key={index} class={`diff-${change.kind}`} data-kind={change.kind}>
                <span class="diff-mark">{change.kind === "added" ? "+" : "−"}</span> {change.step.action} → {change.step.expected}
                <Said comments={said} />
              </li>
            );
          })}
          {onFields.length > 0 && (
            <li class="diff-field-comments">
              <span class="muted small">{t("review.diffComments", { revision: base?.revision ?? 0 })}</span>
              {onFields.map((comment, index) => (
                <div key={index}>
                  <strong>{anchorName(comment.anchor)}</strong>
                  <Said comments={[comment]} />
                </div>
              ))}
            </li>
          )}
          {diff.librariesAdded.length > 0 && <li data-kind="libraries">{t("diff.librariesAdded", { names: diff.librariesAdded.join(", ") })}</li>}
          {diff.librariesRemoved.length > 0 && <li data-kind="libraries">{t("diff.librariesRemoved", { names: diff.librariesRemoved.join(", ") })}</li>}
          {diff.sandbox && (
            <li>
              {t("plan.sandboxLabel")} <del>{diff.sandbox[0]}</del> → <ins>{diff.sandbox[1]}</ins>
            </li>
          )}
          {!diff.title && !diff.aim && diff.steps.every((s) => s.kind === "same") && !diff.sandbox && diff.librariesAdded.length + diff.librariesRemoved.length === 0 && (
            <li class="muted">{t("diff.none")}</li>
          )}
        </ul>
      )}
    </div>
  );
}
