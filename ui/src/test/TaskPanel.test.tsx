import { render, screen } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { TaskPanel } from "../components/TaskPanel";
import type { Task } from "../generated/Task";

const tasks: Task[] = [
  { id: 1, phase: "dig", title: "find every call site", status: "done", outcome: "all in agent.rs" },
  { id: 2, phase: "dig", title: "read the config schema", status: "active" },
  { id: 3, phase: "build", title: "add the field", status: "pending" },
  { id: 4, phase: "build", title: "old approach", status: "dropped" },
];

describe("TaskPanel", () => {
  it("shows phases, [ ] [>] [x] [~] marks and the count", () => {
    render(<TaskPanel tasks={tasks} finished={false} />);
    expect(screen.getByTestId("task-count").textContent).toBe("1 of 4 done, 1 dropped");
    expect(screen.getAllByRole("heading").map((h) => h.textContent)).toEqual(["dig", "build"]);
    const rows = screen.getAllByRole("listitem").map((row) => row.textContent);
    expect(rows).toEqual([
      "[x]find every call site — all in agent.rs",
      "[>]read the config schema",
      "[ ]add the field",
      "[~]old approach",
    ]);
  });

  it("says when there is no list, and when the list is finished", () => {
    const { unmount } = render(<TaskPanel tasks={[]} finished={false} />);
    expect(screen.getByText(/No task list yet/)).toBeTruthy();
    unmount();
    render(<TaskPanel tasks={tasks.map((t) => ({ ...t, status: "done" as const }))} finished />);
    expect(screen.getByTestId("task-count").textContent).toBe("4 of 4 done");
    expect(screen.getByTestId("tasks-finished")).toBeTruthy();
  });
});
