// Comments on the exact step or field of a waiting plan (DESIGN §16): "Comment" beside each
// opens a small box; the comments collected show under what they point at until "Revise with
// N comments" sends them all at once. A plan sent back with comments shows them, read-only,
// where they were made. Comment text is the user's own, shown as text.
import { useEffect, useRef, useState } from "preact/hooks";

import type { CommentAnchor } from "../generated/CommentAnchor";
import type { PlanField } from "../generated/PlanField";
import type { PlanComment } from "../generated/PlanComment";
import { t } from "../lib/i18n";
import { anchorKey, MAX_COMMENT_CHARS, MAX_COMMENTS, sameAnchor, type PlanComments } from "../lib/planComments";

/** What a comment points at, in words: "step 2", "the aim". */
export function anchorName(anchor: CommentAnchor): string {
  return "step" in anchor ? t("review.step", { step: anchor.step }) : fieldName(anchor.field);
}

function fieldName(field: PlanField): string {
  switch (field) {
    case "aim":
      return t("review.field.aim");
    case "approach":
      return t("review.field.approach");
    case "risks":
      return t("review.field.risks");
    case "files":
      return t("review.field.files");
    case "tests":
      return t("review.field.tests");
    case "libraries":
      return t("review.field.libraries");
    case "sandbox":
      return t("review.field.sandbox");
  }
}

export interface CommentableProps {
  anchor: CommentAnchor;
  /** What the anchor is, for the button's label ("step 2", "the aim"). */
  what: string;
  /** The waiting plan's comments being collected; null on a card that is history. */
  review: PlanComments | null;
  /** The comments this revision was sent back with. */
  sent?: PlanComment[];
}

export function Commentable({ anchor, what, review, sent }: CommentableProps) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (open) box.current?.focus();
  }, [open]);
  const key = anchorKey(anchor);
  const mine = (review?.comments ?? []).map((comment, index) => ({ comment, index })).filter(({ comment }) => sameAnchor(comment.anchor, anchor));
  const earlier = (sent ?? []).filter((comment) => sameAnchor(comment.anchor, anchor));
  const full = (review?.comments.length ?? 0) >= MAX_COMMENTS;
  const add = () => {
    if (review && text.trim() !== "") review.add(anchor, text);
    setText("");
    setOpen(false);
  };
  return (
    <div class="commentable" data-anchor={key}>
      {earlier.length > 0 && (
        <ul class="plan-comments sent" aria-label={t("review.sentOn", { what })}>
          {earlier.map((comment, index) => (
            <li key={index} class="plan-comment" data-testid="sent-comment">
              {comment.text}
            </li>
          ))}
        </ul>
      )}
      {mine.length > 0 && (
        <ul class="plan-comments" aria-label={t("review.draftsOn", { what })}>
          {mine.map(({ comment, index }) => (
            <li key={index} class="plan-comment" data-testid="plan-comment">
              <span>{comment.text}</span>
              <button type="button" class="icon" aria-label={t("review.remove", { what })} onClick={() => review?.remove(index)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {review && !open && (
        <button type="button" class="link small comment-button" data-testid={`comment-${key}`} disabled={full} title={full ? t("review.full", { count: MAX_COMMENTS }) : undefined} onClick={() => setOpen(true)}>
          {t("review.comment", { what })}
        </button>
      )}
      {review && open && (
        <form
          class="comment-form"
          onSubmit={(event) => {
            event.preventDefault();
            add();
          }}
        >
          <textarea
            data-testid="comment-text"
            aria-label={t("review.commentOn", { what })}
            placeholder={t("review.placeholder", { what })}
            maxLength={MAX_COMMENT_CHARS}
            value={text}
            ref={box}
            onInput={(event) => setText(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === "Escape") setOpen(false);
              if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
                event.preventDefault();
                add();
              }
            }}
          />
          <div class="row">
            <button type="submit" class="primary" data-testid="add-comment" disabled={text.trim() === ""}>
              {t("review.add")}
            </button>
            <button type="button" class="secondary" onClick={() => setOpen(false)}>
              {t("plan.back")}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
