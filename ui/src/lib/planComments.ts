// The user's comments on a waiting plan (DESIGN §16), collected before "Revise with N
// comments" sends them all in one rejection. They are kept in the window's storage per chat
// and revision, so a user who opens another chat and comes back finds them where they were.
import { useEffect, useState } from "preact/hooks";

import type { CommentAnchor } from "../generated/CommentAnchor";
import type { CommentDraft } from "../generated/CommentDraft";
import type { PlanDocument } from "../generated/PlanDocument";
import type { PlanField } from "../generated/PlanField";
import type { ReviewNote } from "../generated/ReviewNote";

/** The engine's limits: more, or longer, are refused with nothing sent. */
export const MAX_COMMENTS = 30;
export const MAX_COMMENT_CHARS = 2000;

export function anchorKey(anchor: CommentAnchor): string {
  return "step" in anchor ? `step-${anchor.step}` : `field-${anchor.field}`;
}

export function sameAnchor(a: CommentAnchor, b: CommentAnchor): boolean {
  return anchorKey(a) === anchorKey(b);
}

/** The fields a comment can point at that this plan has something in (the engine refuses others). */
export function commentableFields(plan: PlanDocument): PlanField[] {
  const files = (plan.planned_files?.create?.length ?? 0) + (plan.planned_files?.modify?.length ?? 0);
  const present: Record<PlanField, boolean> = {
    aim: plan.aim.trim() !== "",
    approach: (plan.approach ?? "").trim() !== "",
    risks: (plan.risks ?? []).length > 0,
    files: files > 0,
    tests: (plan.tests ?? []).length > 0,
    libraries: plan.libraries.length > 0,
    sandbox: true,
  };
  return (Object.keys(present) as PlanField[]).filter((field) => present[field]);
}

function storageKey(chatId: string, revision: number): string {
  return `preflight.planComments.${chatId}.${revision}`;
}

function isDraft(value: unknown): value is CommentDraft {
  const draft = value as CommentDraft | null;
  if (typeof draft !== "object" || draft === null || typeof draft.text !== "string") return false;
  const anchor = draft.anchor as Record<string, unknown> | null;
  return typeof anchor === "object" && anchor !== null && (typeof anchor.step === "number" || typeof anchor.field === "string");
}

/** What was kept for this chat and revision; anything unreadable is dropped, never thrown. */
export function loadComments(chatId: string, revision: number): CommentDraft[] {
  try {
    const kept: unknown = JSON.parse(localStorage.getItem(storageKey(chatId, revision)) ?? "[]");
    return Array.isArray(kept) ? kept.filter(isDraft) : [];
  } catch {
    return [];
  }
}

function saveComments(chatId: string, revision: number, comments: CommentDraft[]) {
  try {
    if (comments.length === 0) localStorage.removeItem(storageKey(chatId, revision));
    else localStorage.setItem(storageKey(chatId, revision), JSON.stringify(comments));
  } catch {
    // Storage full or off: the comments still live in the card until it closes.
  }
}

export interface PlanComments {
  comments: CommentDraft[];
  add: (anchor: CommentAnchor, text: string) => void;
  remove: (index: number) => void;
  clear: () => void;
}

/** The comments collected on one revision of one chat's plan, kept across navigation. */
export function usePlanComments(chatId: string, revision: number): PlanComments {
  const [comments, setComments] = useState<CommentDraft[]>(() => loadComments(chatId, revision));
  useEffect(() => setComments(loadComments(chatId, revision)), [chatId, revision]);
  const update = (next: CommentDraft[]) => {
    setComments(next);
    saveComments(chatId, revision, next);
  };
  return {
    comments,
    add: (anchor, text) => {
      const trimmed = text.trim();
      if (trimmed !== "" && comments.length < MAX_COMMENTS) update([...comments, { anchor, text: trimmed.slice(0, MAX_COMMENT_CHARS) }]);
    },
    remove: (index) => update(comments.filter((_, at) => at !== index)),
    clear: () => update([]),
  };
}

export interface PlanAnswer {
  question: string;
  /** What the user wrote ("" when they sent comments only). */
  answer: string;
  /** How many comments went with it. */
  comments: number;
}

/** A stored answer as the window shows it: a plan sent back says the user's words and how
 *  many comments went along (`review`; `content` is the request the planner read, in
 *  English); an answer to a question is `question\nUser's answer: answer`. */
export function planAnswer(message: { content: string; review?: ReviewNote }, feedbackQuestion: string): PlanAnswer {
  if (message.review) {
    return { question: feedbackQuestion, answer: message.review.feedback ?? "", comments: message.review.comments };
  }
  const [question = "", answer = ""] = message.content.split("\nUser's answer: ");
  return { question, answer, comments: 0 };
}
