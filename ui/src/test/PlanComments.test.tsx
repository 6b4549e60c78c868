import { fireEvent, render, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";

import { PlanCard } from "../components/PlanCard";
import { RevisionDiff } from "../components/RevisionDiff";
import { loadComments, planAnswer } from "../lib/planComments";
import { plan } from "./fixtures";

const noop = () => {};

function card(onRevise = vi.fn(), active = true, document = plan()) {
  return <PlanCard chatId="chat-7" plan={document} active={active} planRunning={active} onApprove={noop} onRevise={onRevise} onCancel={noop} onEdit={noop} />;
}

function comment(testid: string, text: string) {
  fireEvent.click(screen.getByTestId(testid));
  fireEvent.input(screen.getByTestId("comment-text"), { target: { value: text } });
  fireEvent.click(screen.getByTestId("add-comment"));
}

afterEach(() => localStorage.clear());

describe("comments on a waiting plan", () => {
  it("collects comments on a step and a field, shows them there, and sends them all at once", () => {
    const onRevise = vi.fn();
    render(card(onRevise));
    comment("comment-step-2", "  Use a fixture file.  ");
    comment("comment-field-aim", "JSON too");
    const step = document.querySelectorAll(".plan-steps > li")[1]!;
    expect(within(step as HTMLElement).getByText("Use a fixture file.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Revise with 2 comments" }));
    expect(onRevise).toHaveBeenCalledWith(null, [
      { anchor: { step: 2 }, text: "Use a fixture file." },
      { anchor: { field: "aim" }, text: "JSON too" },
    ]);
  });

  it("sends them with the general feedback, and a removed one goes nowhere", () => {
    const onRevise = vi.fn();
    render(card(onRevise));
    comment("comment-step-1", "first");
    comment("comment-step-2", "second");
    fireEvent.click(screen.getByRole("button", { name: "Remove this comment on step 1" }));
    fireEvent.click(screen.getByRole("button", { name: "Revise…" }));
    fireEvent.input(screen.getByLabelText("What should change in the plan?"), { target: { value: "Smaller" } });
    fireEvent.click(screen.getByRole("button", { name: "Send feedback and 1 comment" }));
    expect(onRevise).toHaveBeenCalledWith("Smaller", [{ anchor: { step: 2 }, text: "second" }]);
  });

  it("keeps them when the user goes to another chat and back, and drops them once the plan is sent back", () => {
    const first = render(card());
    comment("comment-field-sandbox", "no network");
    first.unmount();
    expect(loadComments("chat-7", 1)).toEqual([{ anchor: { field: "sandbox" }, text: "no network" }]);
    const again = render(card());
    expect(screen.getByText("no network")).toBeTruthy();
    again.rerender(card(vi.fn(), false, plan({ approval: "rejected" })));
    expect(loadComments("chat-7", 1)).toEqual([]);
  });

  it("offers no comment on a field the plan has nothing in, and none on history", () => {
    render(card());
    expect(screen.queryByTestId("comment-field-tests")).toBeNull();
    expect(screen.getByTestId("comment-field-libraries")).toBeTruthy();
    render(card(vi.fn(), false, plan({ approval: "approved", revision: 2 })));
    expect(screen.getAllByTestId("comment-step-1")).toHaveLength(1);
  });
});

describe("comments in the revision diff", () => {
  it("draws each comment beside the step it was made on, and field comments after", async () => {
    const first = plan({
      approval: "rejected",
      comments: [
        { anchor: { step: 2 }, text: "Use a fixture file.", quote: "Write the test" },
        { anchor: { field: "aim" }, text: "JSON too", quote: "Orders can be exported as CSV" },
      ],
    });
    const second = plan({ revision: 2, steps: [first.steps[0]!, { action: "Write the test with a fixture", expected: "the test passes" }] });
    render(<RevisionDiff current={second} load={async () => [first, second]} />);
    fireEvent.click(screen.getByTestId("compare-revisions"));
    await waitFor(() => screen.getByTestId("revision-diff"));
    const changed = document.querySelector('[data-kind="changed"]') as HTMLElement;
    expect(within(changed).getByText("Use a fixture file.")).toBeTruthy();
    const fields = document.querySelector(".diff-field-comments") as HTMLElement;
    expect(within(fields).getByText("the aim")).toBeTruthy();
    expect(within(fields).getByText("JSON too")).toBeTruthy();
  });
});

describe("an answer that sent the plan back", () => {
  it("shows the user's words and how many comments went along, not the request the planner read", () => {
    const content = "What should change in the plan?\nUser's answer: see my comments on the plan below.\n\nMy comments on revision 1 of the plan: …";
    expect(planAnswer({ content, review: { revision: 1, comments: 2 } }, "Что изменить в плане?")).toEqual({ question: "Что изменить в плане?", answer: "", comments: 2 });
    const worded = { content, review: { revision: 1, feedback: "Keep it small.", comments: 0 } };
    expect(planAnswer(worded, "Q")).toEqual({ question: "Q", answer: "Keep it small.", comments: 0 });
    expect(planAnswer({ content: "Which format?\nUser's answer: CSV" }, "Q")).toEqual({ question: "Which format?", answer: "CSV", comments: 0 });
  });
});
