import { fireEvent, render, screen } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { ChangeCard, describeChange } from "../components/ChangeCard";
import { CompletionCard, adherenceLine } from "../components/CompletionCard";
import { cardMayGoBefore, grouped, interleave } from "../components/Messages";
import type { Message } from "../generated/Message";
import type { Completion } from "../generated/Completion";
import type { PlanChange } from "../generated/PlanChange";
import { applyEvent, initialState } from "../lib/chatState";
import { assistant, user, view } from "./fixtures";

function change(overrides: Partial<PlanChange> = {}): PlanChange {
  return {
    id: "c1",
    kind: "drop",
    task: 3,
    title: "Tag the release",
    reason: "no release this week",
    status: "pending",
    requested_at: "2026-11-30T10:00:00.500Z",
    auto_approved: false,
    ...overrides,
  };
}

function completion(): Completion {
  const task = (id: number, title: string, status: "done" | "dropped", origin: "plan" | "executor" = "plan") => ({ id, title, status, origin });
  return {
    summary: "Everything but the release is **done**.",
    adherence: { steps: 3, done_as_planned: 1, modified: 1, dropped: 1, added: 1, in_order: false },
    deviations: [
      { kind: "modified", task: 2, title: "Fix the parser", detail: "now: Fix the parser and its tests" },
      { kind: "dropped", task: 3, title: "Tag the release", detail: "no release this week" },
      { kind: "added", task: 4, title: "Fix the flaky test", detail: "done" },
      { kind: "out_of_order", task: 2, title: "Fix the parser", detail: "finished before step 1" },
    ],
    planned: [
      { id: 1, title: "Read the logs" },
      { id: 2, title: "Fix the parser" },
      { id: 3, title: "Tag the release" },
    ],
    tasks: [
      {
        ...task(1, "Read the logs", "done"),
        gate: { command: "cargo test", exit_code: 0, passes: true, evidence: "test result: ok. 12 passed", duration_ms: 900, last_run: "t", timed_out: false },
      },
      task(2, "Fix the parser and its tests", "done"),
      { ...task(3, "Tag the release", "dropped"), outcome: "no release this week" },
      task(4, "Fix the flaky test", "done", "executor"),
    ],
    stops_and_continues: [],
    finished_at: "2026-11-30T10:05:00.000Z",
  };
}

describe("ChangeCard", () => {
  it("asks with what, why, Approve and Keep the plan, and answers with the change's id", () => {
    const onAnswer = vi.fn();
    render(<ChangeCard change={change()} busy={false} onAnswer={onAnswer} />);
    expect(screen.getByText("The executor asks to change the plan")).toBeTruthy();
    expect(screen.getByTestId("change-what").textContent).toBe("Drop step 3: “Tag the release”");
    expect(screen.getByText("no release this week")).toBeTruthy();
    fireEvent.click(screen.getByTestId("change-reject"));
    fireEvent.click(screen.getByTestId("change-approve"));
    expect(onAnswer.mock.calls).toEqual([
      ["c1", false],
      ["c1", true],
    ]);
  });

  it("waits while a turn runs and shows the answer once given", () => {
    const { unmount } = render(<ChangeCard change={change()} busy onAnswer={() => {}} />);
    expect((screen.getByTestId("change-approve") as HTMLButtonElement).disabled).toBe(true);
    unmount();
    render(<ChangeCard change={change({ status: "approved", auto_approved: true, revision: 2 })} busy={false} onAnswer={() => {}} />);
    expect(screen.queryByTestId("change-approve")).toBeNull();
    expect(screen.getByTestId("change-answer").textContent).toBe("Applied by this chat's auto-approve (plan revision 2)");
  });

  it("says a rewording and a replacement in words", () => {
    expect(describeChange(change({ kind: "modify", new_title: "Tag it next week" }))).toBe("Reword step 3: “Tag the release” → “Tag it next week”");
    expect(describeChange(change({ kind: "replace", task: undefined, title: undefined, tasks: [{ title: "a" }, { title: "b" }] }))).toBe(
      "Replace the open steps with 2 new ones",
    );
  });
});

describe("CompletionCard", () => {
  it("shows the engine's figures, the planned steps with their checks, and what changed", () => {
    render(<CompletionCard completion={completion()} />);
    expect(screen.getByTestId("adherence").textContent).toBe("1 of 3 steps as planned · 1 reworded · 1 dropped · 1 added · not in the planned order");
    const steps = screen.getByTestId("completion-steps").textContent ?? "";
    expect(steps).toContain("now “Fix the parser and its tests”");
    expect(screen.getByTestId("completion-gate").textContent).toContain("cargo test");
    const deviations = [...screen.getByTestId("deviations").querySelectorAll("li")].map((li) => li.dataset.kind);
    expect(deviations).toEqual(["modified", "dropped", "added", "out_of_order"]);
    expect(screen.getByText("Added by the executor")).toBeTruthy();
    expect(screen.getByText("done", { selector: "strong" })).toBeTruthy();
  });

  it("says a plan carried out exactly as planned", () => {
    const exact = { ...completion(), adherence: { steps: 2, done_as_planned: 2, modified: 0, dropped: 0, added: 0, in_order: true } };
    expect(adherenceLine(exact)).toBe("2 of 2 steps as planned · in order");
  });
});

describe("the chat's cards and events", () => {
  it("places each card after the messages stored before it", () => {
    const messages = [user("u1", "go"), assistant("a1", "asking")];
    const cards = [{ at: "2026-11-30T10:00:00Z", id: "c1" }, { at: "2026-11-30T10:09:00.000Z", id: "done" }];
    const order = interleave(messages, cards).map((item) => ("role" in item ? item.id : item.id));
    expect(order).toEqual(["u1", "c1", "a1", "done"]);
  });

  it("never cuts a run of tool calls, whichever millisecond the completion got", () => {
    const at = (ms: number) => `2026-11-30T10:00:00.${String(ms).padStart(3, "0")}Z`;
    const call = (n: number, ms: number): Message[] => [
      assistant(`a${n}`, "", { created_at: at(ms), tool_calls: [{ id: "call_0", name: "turn_plan", arguments: JSON.stringify({ op: "done", id: n }) }] }),
      { id: `t${n}`, created_at: at(ms + 1), role: "tool", tool_call_id: "call_0", name: "turn_plan", content: "[plan]", is_error: false },
    ];
    const messages = [{ ...user("u1", "go"), created_at: at(0) }, ...call(1, 100), ...call(2, 200), ...call(3, 300), assistant("a4", "Done.", { created_at: at(400) })];
    // The last `done` makes the completion: stamped before, between or after that round's messages.
    for (const ms of [299, 300, 301, 302]) {
      const items = grouped(interleave(messages, [{ at: at(ms), id: "completion" }], cardMayGoBefore));
      const shape = items.map((item) => ("group" in item ? `group of ${item.group.length}` : "role" in item ? item.id : item.id));
      expect(shape, `completion at .${ms}`).toEqual(["u1", "t1", "t2", "t3", "group of 3", "completion", "a4"]);
    }
  });

  it("keeps a change's latest state and the completion from events", () => {
    let state = initialState(view([user("u1", "go")], "executing"), []);
    state = applyEvent(state, { type: "plan_change", change: change() });
    state = applyEvent(state, { type: "plan_change", change: change({ status: "rejected" }) });
    expect(state.view.state.changes.map((c) => c.status)).toEqual(["rejected"]);
    state = applyEvent(state, { type: "completion", completion: completion() });
    expect(state.view.state.completion?.adherence.steps).toBe(3);
  });
});
