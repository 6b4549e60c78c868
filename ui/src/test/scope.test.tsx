// The planning scope in the window (DESIGN §14): the bar under the workspace and the line on
// the waiting plan card, and each open task's planned check and dependencies in the panel.
import { fireEvent, render, screen } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { ScopeBar } from "../components/ScopeBar";
import { TaskPanel } from "../components/TaskPanel";
import type { Chat } from "../generated/Chat";
import type { Task } from "../generated/Task";
import { chat as fixture } from "./fixtures";

const chat = (scope: string[], workspace: string | null = "/w"): Chat => ({ ...fixture, workspace, scope });

describe("the scope bar", () => {
  it("shows the whole workspace, adds a typed folder and takes one out", () => {
    const onSet = vi.fn();
    const { rerender } = render(<ScopeBar chat={chat([])} onSet={onSet} onChoose={() => {}} />);
    expect(screen.getByTestId("scope-whole").textContent).toBe("the whole workspace");
    fireEvent.input(screen.getByTestId("scope-path"), { target: { value: " src/api " } });
    fireEvent.submit(screen.getByTestId("scope-bar"));
    expect(onSet).toHaveBeenLastCalledWith(["src/api"]);
    rerender(<ScopeBar chat={chat(["docs", "src/api"])} onSet={onSet} onChoose={() => {}} />);
    expect(screen.getAllByTestId("scope-chip").map((chip) => chip.textContent)).toEqual(["docs×", "src/api×"]);
    fireEvent.click(screen.getByLabelText("Take docs out of the scope"));
    expect(onSet).toHaveBeenLastCalledWith(["src/api"]);
  });

  it("is not shown without a workspace", () => {
    render(<ScopeBar chat={chat([], null)} onSet={() => {}} onChoose={() => {}} />);
    expect(screen.queryByTestId("scope-bar")).toBeNull();
  });
});

describe("the task panel's bindings", () => {
  const task = (id: number, status: Task["status"], extra: Partial<Task>): Task => ({ id, title: `task ${id}`, status, origin: "plan", ...extra });

  it("shows an open task's check and dependencies, and the gate once it ran", () => {
    const tasks = [
      task(1, "done", { check: "test -f a", gate: { command: "test -f a", exit_code: 0, passes: true, evidence: "", duration_ms: 3, last_run: "t", timed_out: false } }),
      task(2, "active", { check: "cargo test", depends_on: [1] }),
      task(3, "pending", {}),
    ];
    render(<TaskPanel tasks={tasks} finished={false} />);
    expect(screen.getByTestId("task-check-2").textContent).toContain("cargo test");
    expect(screen.getByTestId("task-depends-2").textContent).toContain("starts after task 1");
    expect(screen.queryByTestId("task-check-1")).toBeNull();
    expect(screen.getAllByTestId("task-gate")).toHaveLength(1);
    expect(screen.queryByTestId("task-check-3")).toBeNull();
  });
});
