import { fireEvent, render, screen } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { SandboxRun } from "../components/SandboxRun";
import { TaskPanel } from "../components/TaskPanel";
import { SandboxSummary } from "../components/WorkspaceBar";
import type { Task } from "../generated/Task";
import { describeRun, parseRun, sandboxRunTool } from "../lib/sandbox";

const ok = "exit code 0\nstdout:\ntiny 0.1.0\n\nstderr:\n\n";

describe("sandbox results", () => {
  it("reads the sandbox's own text back", () => {
    expect(parseRun(ok)).toEqual({ banner: null, exitCode: 0, millis: null, timedOut: false, notes: [], stdout: "tiny 0.1.0\n", stderr: "", truncated: false });
    const install = "exit code 1\ninstalled: nothing (see pip's error below)\nstdout:\n\nstderr:\nERROR: No matching distribution\n\n";
    const run = parseRun(install);
    expect(run?.notes).toEqual(["installed: nothing (see pip's error below)"]);
    expect(run?.stderr).toBe("ERROR: No matching distribution\n");
    const timedOut = "UNCONFINED (no bubblewrap): …\nexit code -9 (timed out: the whole process group was killed)\nstdout:\na\nstderr:\n\n(output truncated: only the last 64 KiB of each stream are kept)\n";
    const late = parseRun(timedOut);
    expect(late?.timedOut).toBe(true);
    expect(late?.banner).toBe("UNCONFINED (no bubblewrap): …");
    expect(late?.truncated).toBe(true);
    expect(parseRun("something else")).toBeNull();
  });

  it("names runs by what they did", () => {
    expect(sandboxRunTool("mcp_code-sandbox_run_command")).toBe("run_command");
    expect(sandboxRunTool("mcp_code-sandbox_sandbox_info")).toBeNull();
    expect(sandboxRunTool("mcp_filesystem_read_text_file")).toBeNull();
    expect(describeRun("run_command", { command: "pytest -q" })).toBe("$ pytest -q");
    expect(describeRun("install_packages", '{"packages":["six","numpy>=1.26"]}')).toBe("$ pip install six numpy>=1.26");
    expect(describeRun("run_python", { code: "print(1)" })).toBe(">>> print(1)");
  });

  it("shows a run as a terminal block with its exit code, and collapses long output", () => {
    const { unmount } = render(<SandboxRun tool="run_command" args={{ command: "python use_tiny.py" }} result={ok} running={false} />);
    expect(screen.getByTestId("exit-code").textContent).toBe("exit 0");
    expect((screen.getByTestId("sandbox-run") as HTMLDetailsElement).open).toBe(true);
    expect(screen.getByTestId("tool-sentence").textContent).toBe("Ran python use_tiny.py");
    unmount();
    const long = `exit code 2\nstdout:\n${Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n")}\nstderr:\nboom\n`;
    render(<SandboxRun tool="run_command" args={{ command: "make" }} result={long} running={false} />);
    const block = screen.getByTestId("sandbox-run") as HTMLDetailsElement;
    expect(block.open).toBe(false);
    expect(block.className).toContain("failed");
    expect(screen.getByText("31 lines")).toBeTruthy();
  });

  it("says in the user's words when a run's planted .git was renamed aside, and keeps the block open", () => {
    const output = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
    const planted = `exit code 0\nQUARANTINED lib/.git: this run created it. It was renamed to lib/.git.quarantined-by-preflight-1\nstdout:\n${output}\nstderr:\n\n`;
    render(<SandboxRun tool="run_command" args={{ command: "git init lib" }} result={planted} running={false} />);
    const warning = screen.getByTestId("quarantined");
    expect(warning.textContent).toContain("renamed it aside");
    expect(warning.textContent).toContain("lib/.git.quarantined-by-preflight-1");
    expect((screen.getByTestId("sandbox-run") as HTMLDetailsElement).open).toBe(true);
  });

  it("says plainly when the sandbox is not confined", () => {
    const unconfined = "UNCONFINED (bubblewrap is not installed): commands run as this user\nexit code 0\nstdout:\n\nstderr:\n\n";
    render(<SandboxRun tool="run_command" args={{ command: "true" }} result={unconfined} running={false} />);
    expect(screen.getByTestId("unconfined").textContent).toContain("UNCONFINED");
  });

  it("shows a task's gate, measured by Preflight, with its evidence on expanding", () => {
    const tasks: Task[] = [
      {
        id: 1,
        title: "use it",
        status: "done", origin: "plan" as const,
        gate: { command: "python use_tiny.py", exit_code: 0, passes: true, evidence: "tiny 0.1.0", duration_ms: 1250, last_run: "2026-12-01T10:00:00Z", timed_out: false },
      },
    ];
    render(<TaskPanel tasks={tasks} finished />);
    const gate = screen.getByTestId("task-gate");
    expect(gate.textContent).toContain("python use_tiny.py");
    expect(gate.textContent).toContain("exit 0 · 1.3 s");
    fireEvent.click(gate.querySelector("summary")!);
    expect(screen.getByTestId("gate-evidence").textContent).toBe("tiny 0.1.0");
  });

  it("tells a confined sandbox from an unconfined one", () => {
    const { unmount } = render(<SandboxSummary view={{ available: true, confined: true, text: "Confinement: Confined by bubblewrap", info: {}, venv_refusal: null }} />);
    expect(screen.getByTestId("sandbox-status").textContent).toBe("Confined by bubblewrap");
    unmount();
    render(<SandboxSummary view={{ available: true, confined: false, text: "UNCONFINED", info: {}, venv_refusal: null }} />);
    expect(screen.getByTestId("sandbox-status").textContent).toBe("UNCONFINED");
  });
});

describe("tool results", () => {
  it("belong to the call of the message they follow, when call ids repeat across messages", async () => {
    const { toolResults } = await import("../components/Messages");
    const at = "2026-12-01T10:00:00Z";
    const call = (id: string, name: string) => ({ id, name, arguments: "{}" });
    const results = toolResults([
      { id: "a1", created_at: at, role: "assistant", content: "", questions: null, plan: null, tool_calls: [call("call_0", "mcp_code-sandbox_run_command")] },
      { id: "t1", created_at: at, role: "tool", tool_call_id: "call_0", name: "mcp_code-sandbox_run_command", content: "exit code 0\nstdout:\n\nstderr:\n\n", is_error: false },
      { id: "a2", created_at: at, role: "assistant", content: "", questions: null, plan: null, tool_calls: [call("call_0", "turn_plan")] },
      { id: "t2", created_at: at, role: "tool", tool_call_id: "call_0", name: "turn_plan", content: "plan", is_error: false },
    ]);
    expect(results.get("a1\u0000call_0")?.id).toBe("t1");
    expect(results.get("a2\u0000call_0")?.id).toBe("t2");
  });
});

describe("the sandbox notice", () => {
  it("asks once when the executor works and still shows after the turn ended", async () => {
    const { SandboxNotice } = await import("../components/SandboxNotice");
    const { waitFor } = await import("@testing-library/preact");
    let calls = 0;
    const load = () => {
      calls += 1;
      return Promise.resolve({ available: true, confined: false, text: "UNCONFINED (no bubblewrap)", info: null, venv_refusal: null });
    };
    const { rerender } = render(<SandboxNotice chatKey="c1:/w" executing={true} load={load} />);
    rerender(<SandboxNotice chatKey="c1:/w" executing={false} load={load} />);
    await waitFor(() => expect(screen.getByTestId("sandbox-notice").textContent).toContain("UNCONFINED"));
    rerender(<SandboxNotice chatKey="c1:/w" executing={true} load={load} />);
    expect(calls).toBe(1);
    rerender(<SandboxNotice chatKey="c2:/w" executing={false} load={load} />);
    expect(screen.queryByTestId("sandbox-notice")).toBeNull();
  });
});

describe("how long a run took", () => {
  it("is read from the run's text and said in the window's language", async () => {
    const { parseRun, tookText } = await import("../lib/sandbox");
    const { applyLanguage } = await import("../lib/i18n");
    expect(parseRun("exit code 0 in 1.2 s\nstdout:\n\nstderr:\n\n")?.millis).toBe(1200);
    expect(parseRun("exit code 3 in 40 ms (timed out: the whole process group was killed)\nstdout:\n\nstderr:\n\n")).toMatchObject({ millis: 40, exitCode: 3, timedOut: true });
    expect(parseRun("exit code 0\nstdout:\n\nstderr:\n\n")?.millis).toBeNull();
    expect(tookText(40)).toBe("40 ms");
    expect(tookText(1234)).toBe("1.2 s");
    applyLanguage("ru");
    expect(tookText(1234)).toBe("1,2 с");
    applyLanguage("en");
  });
});
