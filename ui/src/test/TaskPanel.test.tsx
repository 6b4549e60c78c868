import { fireEvent, render, screen } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { TaskPanel } from "../components/TaskPanel";
import { formatTime } from "../lib/i18n";
import type { Task } from "../generated/Task";

const tasks: Task[] = [
  { id: 1, phase: "dig", title: "find every call site", status: "done", origin: "plan" as const, outcome: "all in agent.rs" },
  { id: 2, phase: "dig", title: "read the config schema", status: "active", origin: "plan" as const },
  { id: 3, phase: "build", title: "add the field", status: "pending", origin: "plan" as const },
  { id: 4, phase: "build", title: "old approach", status: "dropped", origin: "plan" as const },
];

describe("TaskPanel", () => {
  it("shows phases, each state as an icon with its word and a tooltip, and the count", () => {
    render(<TaskPanel tasks={tasks} finished={false} />);
    expect(screen.getByTestId("task-count").textContent).toBe("1 of 4 done, 1 dropped");
    expect(screen.getAllByRole("heading").map((h) => h.textContent)).toEqual(["dig", "build"]);
    const rows = screen.getAllByRole("listitem").map((row) => row.textContent);
    expect(rows).toEqual([
      "✓Donefind every call site — all in agent.rs (done without a check)",
      "▶In progressread the config schema",
      "○To doadd the field",
      "✗Droppedold approach",
    ]);
    expect(rows.join("")).not.toMatch(/\[[ x>~]\]/);
    // The icon is hidden from screen readers; the word is read; the tooltip says what it means.
    const active = screen.getByTestId("task-state-2");
    expect(active.querySelector('[aria-hidden="true"]')?.textContent).toBe("▶");
    expect(active.getAttribute("title")).toBe("The executor is working on this task");
    expect(screen.getByTestId("task-state-3").querySelector(".visually-hidden")?.textContent).toBe("To do");
  });

  it("shows the active task as stopped, not running, when the work stopped", () => {
    const { unmount } = render(<TaskPanel tasks={tasks} finished={false} stopped />);
    const row = screen.getByTestId("task-state-2");
    expect(row.textContent).toBe("⏸Stopped");
    expect(row.getAttribute("title")).toContain("Continue");
    expect(row.closest("li")?.dataset.status).toBe("stopped");
    expect(screen.getByTestId("task-state-1").textContent).toBe("✓Done");
    unmount();
    render(<TaskPanel tasks={tasks} finished={false} stopped={false} />);
    expect(screen.getByTestId("task-state-2").textContent).toBe("▶In progress");
  });

  it("says what a task waits for in words, not \"after 1\"", () => {
    const waiting: Task[] = [{ id: 3, title: "ship", status: "pending", origin: "plan", depends_on: [1, 2] }, { id: 4, title: "tell", status: "pending", origin: "plan", depends_on: [3] }];
    render(<TaskPanel tasks={waiting} finished={false} />);
    expect(screen.getByTestId("task-depends-3").textContent?.trim()).toBe("starts after tasks 1, 2");
    expect(screen.getByTestId("task-depends-4").textContent?.trim()).toBe("starts after task 3");
  });

  it("says when there is no list, and when the list is finished", () => {
    const { unmount } = render(<TaskPanel tasks={[]} finished={false} />);
    expect(screen.getByText(/No task list yet/)).toBeTruthy();
    unmount();
    render(<TaskPanel tasks={tasks.map((t) => ({ ...t, status: "done" as const, origin: "plan" as const }))} finished />);
    expect(screen.getByTestId("task-count").textContent).toBe("4 of 4 done");
    expect(screen.getByTestId("tasks-finished")).toBeTruthy();
  });

  it("links the plan folder and marks only the step whose change waits", () => {
    const openFolder = vi.fn();
    const files = { dir: ".dwp/plans/PLAN_add-login", path: "/work/app/.dwp/plans/PLAN_add-login" };
    const change = (task: number, status: "pending" | "rejected") => ({
      id: `c${task}`,
      kind: "drop" as const,
      task,
      title: "old approach",
      reason: "the new API covers it",
      status,
      requested_at: "2026-12-01T10:00:00.000Z",
      auto_approved: false,
    });
    render(
      <TaskPanel tasks={tasks} finished={false} files={files} changes={[change(4, "pending"), change(2, "rejected")]} onOpenFolder={openFolder} />,
    );
    const link = screen.getByTestId("open-plan-folder");
    expect(link.textContent).toBe(".dwp/plans/PLAN_add-login");
    expect(link.getAttribute("title")).toBe("/work/app/.dwp/plans/PLAN_add-login");
    fireEvent.click(link);
    expect(openFolder).toHaveBeenCalledTimes(1);
    const asked = screen.getAllByTestId("change-asked");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.closest("li")?.textContent).toContain(tasks.find((t) => t.id === 4)!.title);
  });

  it("shows no folder section for a chat that does not save its plan", () => {
    render(<TaskPanel tasks={tasks} finished={false} files={null} />);
    expect(screen.queryByTestId("plan-files")).toBeNull();
  });
});

describe("task data", () => {
  it("marks a priority and tells on hover whose task it is and when it changed", async () => {
    const { taskTimes } = await import("../components/TaskPanel");
    const own = { id: 5, title: "check the logs", status: "pending" as const, origin: "executor" as const, priority: "high" as const, created_at: "2026-12-01T10:00:00Z", updated_at: "2026-12-01T10:05:00Z" };
    render(<TaskPanel tasks={[own]} finished={false} />);
    expect(screen.getByTestId("task-priority").textContent).toBe("high");
    const [added, changed] = [formatTime("2026-12-01T10:00:00Z"), formatTime("2026-12-01T10:05:00Z")];
    expect(taskTimes(own)).toBe(`The executor's own task · added ${added} · changed ${changed}`);
    expect(taskTimes({ ...own, origin: "plan", updated_at: own.created_at })).toBe(`A step of the approved plan · added ${added}`);
    expect(taskTimes(own)).not.toContain("T10:00:00Z");
  });
});
