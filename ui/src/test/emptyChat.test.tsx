// An empty new chat explains the flow (issue 48): question → plan → approve → work, in two lines.
import { render, screen } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { Messages } from "../components/Messages";
import { initialState } from "../lib/chatState";
import { applyLanguage } from "../lib/i18n";
import { user, view } from "./fixtures";

const noop = () => {};
const actions = { onAnswer: noop, onAnswerChange: noop, onApprove: noop, onRevise: noop, onCancel: noop, onEdit: async () => {}, onAnswerElicitation: async () => null, onOpenElicitationUrl: async () => null, onContinue: async () => null };

describe("an empty chat", () => {
  it("says in two lines how a chat goes: a question, a plan, approval, the work", () => {
    render(<Messages state={initialState(view([]), [])} actions={actions} />);
    const lines = [...screen.getByTestId("empty-chat").querySelectorAll("p")].map((p) => p.textContent ?? "");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/question.*plan/);
    expect(lines[1]).toMatch(/approve.*work/);
  });

  it("says the work starts at once where plan-first is off, and in Russian in a Russian window", () => {
    applyLanguage("ru");
    render(<Messages state={initialState({ ...view([]), plan_mode: false }, [])} actions={actions} />);
    expect(screen.getByTestId("empty-chat").textContent).toContain("работа начинается сразу");
  });

  it("is gone once the chat has a message", () => {
    render(<Messages state={initialState(view([user("u1", "hi")]), [])} actions={actions} />);
    expect(screen.queryByTestId("empty-chat")).toBeNull();
  });
});
