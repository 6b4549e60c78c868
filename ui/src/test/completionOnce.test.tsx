// The final summary shown once (issue 48): when the last assistant message carries the
// executor's summary, the completion card keeps only the facts; otherwise it shows it.
import { render, screen } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { Messages } from "../components/Messages";
import type { ChatView } from "../generated/ChatView";
import type { Completion } from "../generated/Completion";
import { initialState } from "../lib/chatState";
import { summaryShownInChat } from "../lib/completion";
import { assistant, user, view } from "./fixtures";

const noop = () => {};
const actions = { onAnswer: noop, onAnswerChange: noop, onApprove: noop, onRevise: noop, onCancel: noop, onEdit: async () => {}, onAnswerElicitation: async () => null, onOpenElicitationUrl: async () => null, onContinue: async () => null };

const SUMMARY = "Added `slugify` to textutils.py and its tests; all 4 pass.";

function completed(summary: string): Completion {
  return {
    summary,
    adherence: { steps: 1, done_as_planned: 1, modified: 0, dropped: 0, added: 0, in_order: true },
    deviations: [],
    planned: [{ id: 1, title: "Add slugify" }],
    tasks: [{ id: 1, title: "Add slugify", status: "done", origin: "plan" }],
    stops_and_continues: [],
    finished_at: "2026-11-30T10:00:00.500Z",
  };
}

function chatWith(lastMessage: string, summary = SUMMARY): ChatView {
  const base = view([user("u1", "add slugify"), assistant("a1", lastMessage)]);
  return { ...base, state: { ...base.state, completion: completed(summary) } };
}

const occurrences = (text: string) => (document.body.textContent ?? "").split(text).length - 1;

describe("the completion card and the last message", () => {
  it("do not say the summary twice when the last message is it", () => {
    render(<Messages state={initialState(chatWith(SUMMARY), [])} actions={actions} />);
    expect(screen.getByTestId("completion-card")).toBeTruthy();
    expect(screen.getByTestId("adherence").textContent).toContain("1 of 1 step as planned");
    expect(occurrences("all 4 pass")).toBe(1);
    expect(screen.getByTestId("completion-card").textContent).not.toContain("all 4 pass");
  });

  it("keep the summary on the card when no message says it", () => {
    render(<Messages state={initialState(chatWith("Working on it."), [])} actions={actions} />);
    expect(screen.getByTestId("completion-card").textContent).toContain("all 4 pass");
  });

  it("compare the texts as words (spacing aside), the message containing the summary counting too", () => {
    const said = (content: string) => [assistant("a1", content)];
    expect(summaryShownInChat("Done:  all\n4 pass.", said("Done: all 4 pass."))).toBe(true);
    expect(summaryShownInChat("all 4 pass.", said("Here is what I did.\n\nall 4 pass."))).toBe(true);
    expect(summaryShownInChat("all 4 pass.", said("something else"))).toBe(false);
    expect(summaryShownInChat("all 4 pass.", [])).toBe(false);
  });
});
