import { describe, expect, it } from "vitest";

import { activeCard, applyDelta, applyEvent, initialState, SnapshotOrder, withElicitations, withView } from "../lib/chatState";
import { assistant, plan, questions, user, view } from "./fixtures";

describe("chat state", () => {
  it("collects streamed text per message and drops it once the message is stored", () => {
    let state = initialState(view([user("u1", "hi")], "executing"), []);
    state = applyDelta(state, "a1", "Hello ");
    state = applyDelta(state, "a1", "world");
    expect(state.streaming).toEqual([{ id: "a1", text: "Hello world" }]);
    state = applyEvent(state, { type: "message", message: assistant("a1", "Hello world") });
    expect(state.streaming).toEqual([]);
    // A token that arrives after its message was stored (another path) is ignored.
    state = applyDelta(state, "a1", "!");
    expect(state.streaming).toEqual([]);
    expect(state.view.messages.map((m) => m.id)).toEqual(["u1", "a1"]);
  });

  it("pairs a tool call's start and end", () => {
    let state = initialState(view([], "executing"), []);
    state = applyEvent(state, { type: "tool", message_id: "a1", name: "mcp_filesystem_read_text_file", args: { path: "README.md" } });
    expect(state.tools.a1).toEqual([{ name: "mcp_filesystem_read_text_file", args: { path: "README.md" }, result: undefined, error: undefined, done: false }]);
    state = applyEvent(state, { type: "tool", message_id: "a1", name: "mcp_filesystem_read_text_file", args: { path: "README.md" }, result: "# Shop" });
    expect(state.tools.a1).toHaveLength(1);
    expect(state.tools.a1![0]!.done).toBe(true);
  });

  it("keeps a finished task list shown when the engine closes it, and clears a cancelled one", () => {
    let state = initialState(view([], "executing"), []);
    state = applyEvent(state, { type: "plan", tasks: [{ id: 1, title: "a", status: "done", origin: "plan" as const }, { id: 2, title: "b", status: "done", origin: "plan" as const }] });
    state = applyEvent(state, { type: "plan", tasks: [] });
    expect([state.tasks.length, state.tasksFinished]).toEqual([2, true]);
    state = applyEvent(state, { type: "plan", tasks: [{ id: 1, title: "a", status: "active", origin: "plan" as const }] });
    state = applyEvent(state, { type: "plan", tasks: [] });
    expect([state.tasks.length, state.tasksFinished]).toEqual([0, false]);
  });

  it("follows the status line and keeps it in step with a reloaded view", () => {
    let state = initialState(view([user("u1", "task")], "idle"), []);
    state = applyEvent(state, { type: "plan_status", phase: "planning", text: "Drafting a plan…" });
    expect([state.status, state.view.state.phase]).toEqual(["Drafting a plan…", "planning"]);
    state = withView(state, view([user("u1", "task")], "idle"));
    expect(state.status).toBe("");
  });

  it("drops a stored message's live tool calls with a newer view, and keeps those still running", () => {
    let state = initialState(view([], "executing"), []);
    state = applyEvent(state, { type: "tool", message_id: "a1", name: "turn_plan", args: {}, result: "[plan]" });
    state = applyEvent(state, { type: "tool", message_id: "a2", name: "turn_plan", args: {} });
    state = withView(state, view([assistant("a1", "", { tool_calls: [{ id: "c", name: "turn_plan", arguments: "{}" }] })], "executing"));
    expect(Object.keys(state.tools)).toEqual(["a2"]);
  });

  it("shows a snapshot only when none asked for later was shown", () => {
    const order = new SnapshotOrder();
    const [action, reload, lastReload] = [order.ask(), order.ask(), order.ask()];
    expect([order.show(reload), order.show(action), order.show(lastReload), order.show(lastReload)]).toEqual([true, false, true, false]);
  });

  it("makes only the latest card active, and only in its phase", () => {
    const card = assistant("c1", "questions", { questions: questions() });
    const planCard = assistant("p1", "plan", { plan: plan() });
    expect(activeCard(view([user("u", "t"), card], "questions"))).toEqual({ kind: "questions", id: "c1" });
    expect(activeCard(view([user("u", "t"), card], "planning"))).toBeNull();
    expect(activeCard(view([user("u", "t"), card, planCard], "awaiting_approval", plan()))).toEqual({ kind: "plan", id: "p1" });
    expect(activeCard(view([user("u", "t"), card, planCard], "executing", plan({ approval: "approved" })))).toBeNull();
  });

  it("keeps the MCP servers' open questions until the engine closes them", () => {
    const question = (id: string) => ({ id, question: { mode: "url" as const, server: "pay", message: "Confirm", url: "https://pay.example.com" } });
    let state = initialState(view([], "executing"), [], [question("el_1")]);
    state = applyEvent(state, { type: "elicitation", elicitation: question("el_2") });
    state = applyEvent(state, { type: "elicitation", elicitation: question("el_1") });
    expect(state.elicitations.map((open) => open.id)).toEqual(["el_2", "el_1"]);
    state = applyEvent(state, { type: "elicitation_closed", id: "el_2", action: "decline" });
    state = applyEvent(state, { type: "elicitation_closed", id: "el_9", action: "cancel" });
    expect(state.elicitations.map((open) => open.id)).toEqual(["el_1"]);
    expect(withElicitations(state, []).elicitations).toEqual([]);
  });
});

describe("a chat opened after its plan completed", () => {
  it("shows the list as it ended, finished, from the completion record", () => {
    const ended = [
      { id: 1, title: "Read the logs", status: "done" as const, origin: "plan" as const, outcome: "two errors" },
      { id: 2, title: "Tag the release", status: "dropped" as const, origin: "plan" as const },
    ];
    const opened = view([user("u1", "go")]);
    opened.state.completion = {
      summary: "Done.",
      deviations: [],
      adherence: { steps: 2, done_as_planned: 1, modified: 0, dropped: 1, added: 0, in_order: true },
      planned: [
        { id: 1, title: "Read the logs" },
        { id: 2, title: "Tag the release" },
      ],
      tasks: ended,
      stops_and_continues: [],
      finished_at: "2026-12-04T12:00:00Z",
    };
    const state = initialState(opened, []);
    expect(state.tasks).toEqual(ended);
    expect(state.tasksFinished).toBe(true);
    const live = [{ id: 7, title: "A new task", status: "active" as const, origin: "executor" as const }];
    expect(initialState(opened, live).tasks).toEqual(live);
    expect(initialState(opened, live).tasksFinished).toBe(false);
    expect(initialState(view([user("u1", "go")]), []).tasks).toEqual([]);
  });
});
