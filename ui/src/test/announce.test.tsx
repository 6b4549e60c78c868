// The polite live region (issue 48): a screen reader hears what changed — a task done, a card
// to act on, an answer, a stop — in words, never the whole chat, and nothing on opening a chat.
import { render, screen } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { Messages } from "../components/Messages";
import type { ChatView } from "../generated/ChatView";
import type { Task } from "../generated/Task";
import { applyDelta, initialState, withTasks, withView, type ChatState } from "../lib/chatState";
import { assistant, plan, questions, user, view } from "./fixtures";

const noop = () => {};
const actions = { onAnswer: noop, onAnswerChange: noop, onApprove: noop, onRevise: noop, onCancel: noop, onEdit: async () => {}, onAnswerElicitation: async () => null, onOpenElicitationUrl: async () => null, onContinue: async () => null };

const task = (id: number, title: string, status: Task["status"]): Task => ({ id, title, status, origin: "plan" });
const said = () => screen.getByTestId("announcer").textContent;

function shown(first: ChatState) {
  const { rerender } = render(<Messages state={first} actions={actions} />);
  return (next: ChatState) => rerender(<Messages state={next} actions={actions} />);
}

describe("the live region", () => {
  it("is a polite status region that says nothing when a chat opens", () => {
    const state = withTasks(initialState(view([user("u1", "go"), assistant("a1", "A long answer.")], "executing"), []), [task(1, "Write tests", "active")]);
    render(<Messages state={state} actions={actions} />);
    const region = screen.getByTestId("announcer");
    expect(region.getAttribute("role")).toBe("status");
    expect(region.getAttribute("aria-live")).toBe("polite");
    expect(said()).toBe("");
  });

  it("says a task's change with its number and title, not the list", () => {
    const base = initialState(view([user("u1", "go")], "executing"), []);
    const first = withTasks(base, [task(1, "Read the code", "done"), task(2, "Write tests", "active")]);
    const update = shown(first);
    update(withTasks(base, [task(1, "Read the code", "done"), task(2, "Write tests", "done")]));
    expect(said()).toBe("Task 2 done: Write tests");
  });

  it("says a new questions card, and a plan waiting for approval", () => {
    const asking = view([user("u1", "export"), assistant("a1", "", { questions: questions() })], "questions");
    const update = shown(initialState(view([user("u1", "export")], "planning"), []));
    update(initialState(asking, []));
    expect(said()).toBe("The planner asks 2 questions");
    const doc = plan();
    update(initialState(view([user("u1", "export"), assistant("a1", "", { questions: questions() }), assistant("a2", "", { plan: doc })], "awaiting_approval", doc), []));
    expect(said()).toBe("A plan waits for your approval: CSV export");
  });

  it("says an answer starting and, once stored, its gist", () => {
    const start = initialState(view([user("u1", "hi")], "executing"), []);
    const update = shown(start);
    const streaming = applyDelta(start, "a1", "Hel");
    update(streaming);
    expect(said()).toBe("Answering…");
    update(withView(streaming, view([user("u1", "hi"), assistant("a1", "Hello **there**.")], "idle")));
    expect(said()).toBe("Answer: Hello there.");
  });

  it("says the work stopped, and why", () => {
    const running = initialState(view([user("u1", "go")], "executing"), []);
    const update = shown(running);
    const stoppedView: ChatView = view([user("u1", "go")], "idle");
    stoppedView.state.stopped = { reason: "user_stop", text: "You stopped it.", tasks_left: [], at: "2026-11-30T10:00:05Z" };
    update(initialState(stoppedView, []));
    expect(said()).toMatch(/^The work stopped: /);
    expect(said()?.length).toBeGreaterThan("The work stopped: ".length);
  });
});
