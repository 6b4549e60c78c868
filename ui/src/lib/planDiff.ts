// What changed between two revisions of a plan (issue 18): steps added, removed and changed
// (with a word-level diff of the action and its expected result), and the title, aim,
// libraries and sandbox. Pure, tested in vitest.
import type { PlanDocument } from "../generated/PlanDocument";
import type { PlanStep } from "../generated/PlanStep";
import { t } from "./i18n";

export type Piece = { kind: "same" | "added" | "removed"; text: string };

/** `from`: the step's number (1-based) in the earlier revision, where it had one. */
export type StepChange =
  | { kind: "same"; step: PlanStep; from: number }
  | { kind: "added"; step: PlanStep }
  | { kind: "removed"; step: PlanStep; from: number }
  | { kind: "changed"; action: Piece[]; expected: Piece[]; from: number };

export interface PlanDiff {
  title: Piece[] | null;
  aim: Piece[] | null;
  steps: StepChange[];
  librariesAdded: string[];
  librariesRemoved: string[];
  sandbox: [string, string] | null;
}

/** The longest common subsequence of `a` and `b` as index pairs, in order. */
function lcs<T>(a: T[], b: T[], same: (x: T, y: T) => boolean): [number, number][] {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const table = new Uint16Array(rows * cols);
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      table[i * cols + j] = same(a[i]!, b[j]!) ? table[(i + 1) * cols + j + 1]! + 1 : Math.max(table[(i + 1) * cols + j]!, table[i * cols + j + 1]!);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (same(a[i]!, b[j]!)) {
      pairs.push([i, j]);
      i += 1;
      j += 1;
    } else if (table[(i + 1) * cols + j]! >= table[i * cols + j + 1]!) i += 1;
    else j += 1;
  }
  return pairs;
}

/** A word-level diff of two texts (whitespace kept with the word before it). */
export function wordDiff(before: string, after: string): Piece[] {
  const split = (text: string) => text.match(/\S+\s*/g) ?? [];
  const a = split(before);
  const b = split(after);
  const pairs = lcs(a, b, (x, y) => x.trim() === y.trim());
  const pieces: Piece[] = [];
  const push = (kind: Piece["kind"], text: string) => {
    const last = pieces[pieces.length - 1];
    if (last && last.kind === kind) last.text += text;
    else pieces.push({ kind, text });
  };
  let i = 0;
  let j = 0;
  for (const [pi, pj] of [...pairs, [a.length, b.length] as [number, number]]) {
    while (i < pi) push("removed", a[i++]!);
    while (j < pj) push("added", b[j++]!);
    if (pi < a.length && pj < b.length) {
      push("same", b[pj]!);
      i += 1;
      j += 1;
    }
  }
  return pieces;
}

const norm = (text: string) => text.trim().split(/\s+/).join(" ").toLowerCase();

/** Steps kept (same action), then unmatched neighbours paired as changes. */
function stepChanges(before: PlanStep[], after: PlanStep[]): StepChange[] {
  const pairs = lcs(before, after, (x, y) => norm(x.action) === norm(y.action));
  const out: StepChange[] = [];
  let i = 0;
  let j = 0;
  for (const [pi, pj] of [...pairs, [before.length, after.length] as [number, number]]) {
    while (i < pi && j < pj) {
      const [x, y] = [before[i++]!, after[j++]!];
      out.push({ kind: "changed", action: wordDiff(x.action, y.action), expected: wordDiff(x.expected, y.expected), from: i });
    }
    while (i < pi) out.push({ kind: "removed", step: before[i++]!, from: i });
    while (j < pj) out.push({ kind: "added", step: after[j++]! });
    if (pi < before.length && pj < after.length) {
      const [x, y] = [before[pi]!, after[pj]!];
      const from = pi + 1;
      out.push(norm(x.expected) === norm(y.expected) ? { kind: "same", step: y, from } : { kind: "changed", action: wordDiff(x.action, y.action), expected: wordDiff(x.expected, y.expected), from });
      i += 1;
      j += 1;
    }
  }
  return out;
}

export function diffPlans(before: PlanDocument, after: PlanDocument): PlanDiff {
  const text = (x: string, y: string) => (norm(x) === norm(y) ? null : wordDiff(x, y));
  const names = (plan: PlanDocument) => plan.libraries.map((library) => library.name);
  const sandbox = (plan: PlanDocument) => `${plan.sandbox.policy}${plan.sandbox.notes ? `: ${plan.sandbox.notes}` : ""}`;
  return {
    title: text(before.title, after.title),
    aim: text(before.aim, after.aim),
    steps: stepChanges(before.steps, after.steps),
    librariesAdded: names(after).filter((name) => !names(before).includes(name)),
    librariesRemoved: names(before).filter((name) => !names(after).includes(name)),
    sandbox: sandbox(before) === sandbox(after) ? null : [sandbox(before), sandbox(after)],
  };
}

/** Who made a revision, in words. */
export function authorOf(plan: PlanDocument): string {
  switch (plan.author ?? "planner") {
    case "user":
      return t("diff.author.user");
    case "executor":
      return t("diff.author.executor");
    default:
      return t("diff.author.planner");
  }
}
