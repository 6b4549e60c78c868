import { fireEvent, render, screen } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { Composer } from "../components/Composer";
import { Messages, grouped, type EditActions } from "../components/Messages";
import { taskListSummary } from "../components/ToolGroup";
import type { Message } from "../generated/Message";
import { initialState } from "../lib/chatState";
import { assistant, user, view } from "./fixtures";

const noop = () => {};
const actions = { onAnswer: noop, onAnswerChange: noop, onApprove: noop, onRevise: noop, onCancel: noop, onEdit: async () => {}, onAnswerElicitation: async () => null, onOpenElicitationUrl: async () => null, onContinue: async () => null };

function round(id: string, name: string, args: unknown, result: string, isError = false): Message[] {
  const call = { id: "call_0", name, arguments: JSON.stringify(args) };
  return [
    assistant(id, "", { tool_calls: [call] }),
    { id: `${id}-r`, created_at: "2026-11-30T10:00:02Z", role: "tool", tool_call_id: "call_0", name, content: result, is_error: isError },
  ];
}

function edits(overrides: Partial<EditActions> = {}): EditActions {
  return { editing: null, onEditStart: vi.fn(), onEditCancel: vi.fn(), onEditSend: vi.fn(), onShowTasks: vi.fn(), ...overrides };
}

describe("tool calls in a row", () => {
  const messages = [
    user("u1", "go"),
    ...round("a1", "turn_plan", { op: "start", id: 2 }, "plan"),
    ...round("a2", "turn_plan", { op: "done", id: 2 }, "plan"),
    ...round("a3", "mcp_filesystem_read_text_file", { path: "a.rs" }, "no such file", true),
    ...round("a4", "turn_plan", { op: "done", id: 3 }, "plan"),
    assistant("a5", "All done."),
  ];

  it("are one block with a count, the task list changes as one line, a failure standing out", () => {
    const showTasks = vi.fn();
    render(<Messages state={initialState(view(messages), [])} actions={actions} edits={edits({ onShowTasks: showTasks })} />);
    expect(screen.getAllByTestId("tool-group")).toHaveLength(1);
    expect(screen.getByTestId("tool-count").textContent).toBe("4 tool calls");
    expect(screen.getByTestId("task-summary").textContent).toBe("task list: started 1 · done 2");
    expect(screen.getByTestId("tool-failed").textContent).toContain("1 failed");
    expect((screen.getByTestId("tool-group") as HTMLDetailsElement).open).toBe(true);
    fireEvent.click(screen.getByTestId("task-summary"));
    expect(showTasks).toHaveBeenCalledTimes(1);
    expect(screen.getByText("All done.")).toBeTruthy();
  });

  it("leave a single call, text and terminal blocks as they are", () => {
    const single = [user("u1", "go"), ...round("a1", "turn_plan", { op: "done", id: 1 }, "plan"), assistant("a2", "ok")];
    expect(grouped(single).some((item) => "group" in item)).toBe(false);
    const sandbox = [...round("a1", "mcp_code-sandbox_run_command", { command: "make" }, "exit code 0"), ...round("a2", "mcp_code-sandbox_run_command", { command: "make" }, "exit code 0")];
    expect(grouped(sandbox).some((item) => "group" in item)).toBe(false);
    expect(taskListSummary([{ call: { id: "c", name: "turn_plan", arguments: "{bad" }, running: false }])).toBe("changed 1");
  });
});

describe("editing and re-sending a message", () => {
  it("offers a pencil, re-sends with Enter and cancels with Esc", () => {
    const actionsOf = edits({ editing: "u1" });
    render(<Messages state={initialState(view([user("u1", "Add an export"), assistant("a1", "ok")]), [])} actions={actions} edits={actionsOf} />);
    const box = screen.getByTestId("edit-box") as HTMLTextAreaElement;
    expect(box.value).toBe("Add an export");
    fireEvent.keyDown(box, { key: "Escape" });
    expect(actionsOf.onEditCancel).toHaveBeenCalled();
    box.value = "Add a CSV export";
    fireEvent.keyDown(box, { key: "Enter" });
    expect(actionsOf.onEditSend).toHaveBeenCalledWith("u1", "Add a CSV export");
  });

  it("hides the pencil while a turn runs and offers Plan again after a cancel", () => {
    const start = vi.fn();
    const { unmount } = render(<Messages state={initialState(view([user("u1", "go")], "executing"), [])} actions={actions} edits={edits({ onEditStart: start })} />);
    expect(screen.queryByTestId("edit-message")).toBeNull();
    unmount();
    const actionsOf = edits();
    render(<Messages state={initialState(view([user("u1", "Add an export")], "idle"), [])} actions={actions} edits={actionsOf} />);
    fireEvent.click(screen.getByTestId("plan-again"));
    expect(actionsOf.onEditSend).toHaveBeenCalledWith("u1", "Add an export");
    fireEvent.click(screen.getByTestId("edit-message"));
    expect(actionsOf.onEditStart).toHaveBeenCalledWith("u1");
  });

  it("↑ in the empty message box edits the last message", () => {
    const editLast = vi.fn();
    render(<Composer locked={false} running={false} awaitingApproval={false} onSend={async () => true} onStop={noop} onEditLast={editLast} />);
    fireEvent.keyDown(screen.getByTestId("message-box"), { key: "ArrowUp" });
    expect(editLast).toHaveBeenCalledTimes(1);
  });
});
