import { fireEvent, render, screen } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { Messages } from "../components/Messages";
import type { Message } from "../generated/Message";
import { initialState } from "../lib/chatState";
import { assistant, user, view } from "./fixtures";

const noop = () => {};
const actions = { onAnswer: noop, onAnswerChange: noop, onApprove: noop, onRevise: noop, onCancel: noop, onEdit: async () => {}, onAnswerElicitation: async () => null, onOpenElicitationUrl: async () => null, onContinue: async () => null };

describe("a compaction record", () => {
  it("is a divider whose summary opens, with the summarised messages still shown above", () => {
    const compaction: Message = {
      id: "k1",
      created_at: "2026-11-30T10:00:02Z",
      role: "compaction",
      content: "Read **big.txt** 40 times.",
      covers: ["a1", "a1"],
    };
    render(<Messages state={initialState(view([user("u1", "go"), assistant("a1", "first read"), compaction]), [])} actions={actions} />);
    const divider = screen.getByTestId("compaction");
    expect(divider.textContent).toContain("Earlier messages summarised");
    expect((divider as HTMLDetailsElement).open).toBe(false);
    fireEvent.click(divider.querySelector("summary")!);
    expect(divider.querySelector("strong")?.textContent).toBe("big.txt");
    expect(screen.getByText("first read")).toBeTruthy();
  });
});
