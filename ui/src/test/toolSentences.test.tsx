// Tool calls as sentences (issue 48): what the user reads instead of `mcp_filesystem_write_file`
// and its JSON, the run of calls summed up, the raw call one click away, and a run's output
// coloured by its exit code.
import { fireEvent, render, screen } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { Messages } from "../components/Messages";
import { SandboxRun } from "../components/SandboxRun";
import type { Message } from "../generated/Message";
import { initialState } from "../lib/chatState";
import { applyLanguage } from "../lib/i18n";
import { describeTool, summaryOf } from "../lib/toolSentence";
import { assistant, user, view } from "./fixtures";

const noop = () => {};
const actions = { onAnswer: noop, onAnswerChange: noop, onApprove: noop, onRevise: noop, onCancel: noop, onEdit: async () => {}, onAnswerElicitation: async () => null, onOpenElicitationUrl: async () => null, onContinue: async () => null };
const ws = { workspace: "/home/ann/proj" };

function round(id: string, name: string, args: unknown, result: string, isError = false): Message[] {
  const call = { id: "call_0", name, arguments: JSON.stringify(args) };
  return [
    assistant(id, "", { tool_calls: [call] }),
    { id: `${id}-r`, created_at: "2026-11-30T10:00:02Z", role: "tool", tool_call_id: "call_0", name, content: result, is_error: isError },
  ];
}

const said = (name: string, args: unknown, extra: { result?: string; error?: string } = {}) => describeTool({ name, args: JSON.stringify(args), ...extra }, ws).text;

describe("a tool call as a sentence", () => {
  it("says what the filesystem tools did, with paths relative to the workspace", () => {
    expect(said("mcp_filesystem_write_file", { path: "/home/ann/proj/textutils.py", content: "x" })).toBe("Wrote textutils.py");
    expect(said("mcp_filesystem_read_text_file", { path: "README.md" })).toBe("Read README.md");
    expect(said("mcp_filesystem_list_directory", { path: "/home/ann/proj/src" })).toBe("Listed src/");
    expect(said("mcp_filesystem_list_directory", { path: "/home/ann/proj" })).toBe("Listed the workspace");
    expect(said("mcp_filesystem_search_files", { path: "src", pattern: "*.py" })).toBe("Searched src/ for “*.py”");
    expect(said("mcp_filesystem_edit_file", { path: "a.py", edits: [] })).toBe("Edited a.py");
    expect(said("mcp_filesystem_move_file", { source: "a.py", destination: "b/a.py" })).toBe("Moved a.py to b/a.py");
    expect(said("mcp_filesystem_read_multiple_files", { paths: ["a.py", "b.py"] })).toBe("Read 2 files: a.py, b.py");
    expect(said("mcp_filesystem_create_directory", { path: "out" })).toBe("Created the folder out/");
  });

  it("says what a task-list change did, naming the task, and runs by their command", () => {
    const titles = { taskTitle: (id: number) => (id === 2 ? "Write tests" : undefined) };
    expect(describeTool({ name: "turn_plan", args: '{"op":"done","id":2}' }, titles).text).toBe("Finished task 2: Write tests");
    expect(describeTool({ name: "turn_plan", args: '{"op":"start","id":5}' }, titles).text).toBe("Started task 5");
    expect(said("turn_plan", { op: "init", tasks: [{ title: "a" }, { title: "b" }] })).toBe("Set up the task list with 2 tasks");
    expect(said("turn_plan", { op: "bogus" })).toBe("Updated the task list");
    expect(said("mcp_code-sandbox_run_command", { command: "python3 -m unittest" })).toBe("Ran python3 -m unittest");
  });

  it("gives an unknown tool a generic sentence with its name in words", () => {
    expect(said("mcp_github_create_issue", { title: "x" })).toBe("Used github's create issue");
    expect(said("mcp_context7_query-docs", { query: "csv writer" })).toBe("Looked up the documentation: “csv writer”");
    expect(said("some_tool", {})).toBe("Used some tool");
  });

  it("speaks Russian in a Russian window", () => {
    applyLanguage("ru");
    expect(said("mcp_filesystem_write_file", { path: "textutils.py" })).toBe("Записан textutils.py");
    expect(said("mcp_code-sandbox_run_command", { command: "make" })).toBe("Запущено: make");
  });

  it("takes its tone from a run's exit code: 0 is not an error, no exit code is neutral", () => {
    const run = (result?: string, error?: string) => describeTool({ name: "mcp_code-sandbox_run_command", args: { command: "pytest" }, result, error }).tone;
    expect(run("exit code 0\nstdout:\n\nstderr:\nOK\n")).toBe("ok");
    expect(run("exit code 1\nstdout:\n\nstderr:\nFAILED\n")).toBe("bad");
    expect(run(undefined)).toBe("neutral");
    expect(run(undefined, "the sandbox did not start")).toBe("bad");
  });

  it("sums a run of calls up by kind", () => {
    const sentences = ["a.py", "b.py", "c.py"].map((path) => describeTool({ name: "mcp_filesystem_read_text_file", args: { path } }));
    const written = describeTool({ name: "mcp_filesystem_write_file", args: { path: "d.py" } });
    const task = describeTool({ name: "turn_plan", args: { op: "done", id: 1 } });
    expect(summaryOf([...sentences, written, task])).toBe("Read 3 files: a.py, b.py, c.py · Wrote d.py");
  });
});

describe("tool calls in the chat", () => {
  it("show sentences, not tool names, with the raw call folded and the run summed up", () => {
    const messages = [
      user("u1", "go"),
      ...round("a1", "mcp_filesystem_read_text_file", { path: "a.py" }, "print(1)"),
      ...round("a2", "mcp_filesystem_read_text_file", { path: "b.py" }, "print(2)"),
      ...round("a3", "mcp_filesystem_write_file", { path: "c.py", content: "x" }, "ok"),
      assistant("a4", "Done."),
    ];
    render(<Messages state={initialState(view(messages), [])} actions={actions} />);
    expect(screen.getByTestId("tool-summary").textContent).toContain("Read 2 files: a.py, b.py · Wrote c.py");
    const sentences = screen.getAllByTestId("tool-sentence").map((element) => element.textContent);
    expect(sentences).toEqual(["Read a.py", "Read b.py", "Wrote c.py"]);
    expect(screen.queryByText("mcp_filesystem_write_file")?.closest("summary") ?? null).toBeNull();
    const block = screen.getAllByTestId("tool-block")[2]!;
    fireEvent.click(block.querySelector("summary")!);
    expect(block.querySelector(".tool-name")?.textContent).toBe("mcp_filesystem_write_file");
    expect(block.querySelector(".tool-args")?.textContent).toContain('"path": "c.py"');
  });
});

describe("a run's output coloured by its exit code", () => {
  it("draws a passing run's stderr as output, a failing run's as an error", () => {
    const passing = "exit code 0\nstdout:\n\nstderr:\n..\nRan 2 tests in 0.001s\n\nOK\n";
    const { container, unmount } = render(<SandboxRun tool="run_command" args={{ command: "python3 -m unittest" }} result={passing} running={false} />);
    expect(screen.getByTestId("tool-sentence").textContent).toBe("Ran python3 -m unittest");
    expect(screen.getByTestId("exit-code").className).toContain("ok");
    expect(container.querySelector(".terminal-err")).toBeNull();
    expect(container.querySelector(".terminal-stderr")?.textContent).toContain("OK");
    unmount();
    const failing = "exit code 1\nstdout:\n\nstderr:\nFAILED (failures=1)\n";
    const failed = render(<SandboxRun tool="run_command" args={{ command: "python3 -m unittest" }} result={failing} running={false} />);
    expect(failed.container.querySelector(".terminal-err")?.textContent).toContain("FAILED");
    expect(screen.getByTestId("exit-code").className).toContain("bad");
  });
});
