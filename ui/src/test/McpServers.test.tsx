import { fireEvent, render, screen, waitFor, within } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { McpServers, type McpSource } from "../components/McpServers";
import type { McpServerView } from "../generated/McpServerView";
import type { McpSettings } from "../generated/McpSettings";

const filesystem: McpServerView = {
  name: "filesystem",
  entry: { command: "node", args: ["/srv/fs/index.js", "${workspace}"] },
  class: "filesystem",
  supplied: true,
  error: null,
  planning: true,
  read_while_planning: false,
  state: { state: "running", tools: [{ name: "read_text_file", planning: true }, { name: "write_file", planning: false }] },
};

function settings(servers: McpServerView[], error: string | null = null): McpSettings {
  return { path: "/home/u/.preflight/mcp.json", servers, error };
}

function source(initial: McpSettings): McpSource & { saved: unknown[] } {
  const saved: unknown[] = [];
  return {
    saved,
    load: vi.fn(async () => initial),
    save: vi.fn(async (save) => {
      saved.push(save);
      if (JSON.stringify(save.entry).includes("comand")) throw { code: "ERR_BAD_REQUEST", message: "/home/u/.preflight/mcp.json: server `bad`: unknown field `comand`" };
      const added: McpServerView = { name: save.name, entry: save.entry, class: "other", supplied: false, error: null, planning: false, read_while_planning: false, state: { state: "not_started" } };
      return settings([filesystem, added]);
    }),
    remove: vi.fn(async () => settings([filesystem])),
    restart: vi.fn(async () => settings([{ ...filesystem, state: { state: "not_started" } }])),
    test: vi.fn(async () => [{ name: "echo", planning: false }, { name: "get-sum", planning: false }]),
  };
}

describe("McpServers", () => {
  it("lists servers with class, state and what each profile sees; a failed one shows its stderr", async () => {
    const failed: McpServerView = { ...filesystem, name: "tracker", class: "other", supplied: false, planning: false, state: { state: "failed", error: "MCP server `tracker` failed to initialize: closed; its last words on stderr: no token" } };
    const broken: McpServerView = { ...filesystem, name: "typo", class: null, supplied: false, error: "server `typo`: unknown field `argz`", state: { state: "not_started" } };
    render(<McpServers source={source(settings([filesystem, failed, broken]))} />);
    await waitFor(() => expect(screen.getAllByTestId("mcp-server")).toHaveLength(3));
    const [fs, tracker, typo] = screen.getAllByTestId("mcp-server");
    expect(fs!.textContent).toContain("added by Preflight");
    expect(fs!.querySelector('[data-testid="planning-tools"]')!.textContent).toBe("Planning and execution: read_text_file");
    expect(fs!.querySelector('[data-testid="execution-tools"]')!.textContent).toBe("Execution only: write_file");
    expect(tracker!.textContent).toContain("failed to start");
    expect(tracker!.textContent).toContain("its last words on stderr: no token");
    expect(typo!.querySelector('[data-testid="mcp-entry-error"]')!.textContent).toBe("server `typo`: unknown field `argz`");
  });

  it("adds a pasted entry after testing it, and shows the engine's error for a bad one", async () => {
    const mcp = source(settings([filesystem]));
    render(<McpServers source={mcp} />);
    await waitFor(() => screen.getByTestId("mcp-add"));
    fireEvent.click(screen.getByTestId("mcp-add"));
    fireEvent.click(screen.getByTestId("mcp-paste-tab"));
    const paste = screen.getByTestId("mcp-paste") as HTMLTextAreaElement;
    fireEvent.input(paste, { target: { value: '{"mcpServers": {"everything": {"command": "node", "args": ["/x/everything.js", "stdio"]}}}' } });
    fireEvent.click(screen.getByTestId("mcp-editor-test"));
    await waitFor(() => expect(within(screen.getByTestId("mcp-editor")).getByTestId("execution-tools").textContent).toBe("Execution only: echo, get-sum"));
    fireEvent.click(screen.getByTestId("mcp-save"));
    await waitFor(() => expect(screen.getAllByTestId("mcp-server")).toHaveLength(2));
    expect(mcp.saved).toEqual([{ replaces: undefined, name: "everything", entry: { command: "node", args: ["/x/everything.js", "stdio"] } }]);
    expect(screen.queryByTestId("mcp-editor")).toBeNull();

    fireEvent.click(screen.getByTestId("mcp-add"));
    fireEvent.click(screen.getByTestId("mcp-paste-tab"));
    fireEvent.input(screen.getByTestId("mcp-paste"), { target: { value: '{"bad": {"comand": "x"}}' } });
    fireEvent.click(screen.getByTestId("mcp-save"));
    await waitFor(() => expect(screen.getByTestId("mcp-error").textContent).toContain("unknown field `comand`"));
    expect(screen.getByTestId("mcp-editor")).toBeTruthy();
  });

  it("checks the fields before asking the engine, and removes and restarts", async () => {
    const mcp = source(settings([filesystem, { ...filesystem, name: "mine", supplied: false }]));
    render(<McpServers source={mcp} />);
    await waitFor(() => expect(screen.getAllByTestId("mcp-server")).toHaveLength(2));
    fireEvent.click(screen.getByTestId("mcp-add"));
    fireEvent.input(screen.getByTestId("mcp-name"), { target: { value: "x" } });
    fireEvent.click(screen.getByTestId("mcp-save"));
    expect(screen.getByTestId("mcp-error").textContent).toBe("A server needs a command.");
    expect(mcp.save).not.toHaveBeenCalled();
    expect(screen.getAllByTestId("mcp-remove")).toHaveLength(1);
    fireEvent.click(screen.getByTestId("mcp-remove"));
    await waitFor(() => expect(screen.getAllByTestId("mcp-server")).toHaveLength(1));
    expect(mcp.remove).toHaveBeenCalledWith("mine");
    fireEvent.click(screen.getByTestId("mcp-restart"));
    await waitFor(() => expect(screen.getByTestId("mcp-state").textContent).toContain("not started"));
  });

  it("marks a server readable while planning, and shows the mark", async () => {
    const mcp = source(settings([filesystem]));
    render(<McpServers source={mcp} />);
    await waitFor(() => screen.getByTestId("mcp-add"));
    fireEvent.click(screen.getByTestId("mcp-add"));
    fireEvent.input(screen.getByTestId("mcp-name"), { target: { value: "tracker" } });
    fireEvent.input(screen.getByTestId("mcp-command"), { target: { value: "tracker-mcp" } });
    fireEvent.click(screen.getByTestId("mcp-read-while-planning"));
    fireEvent.click(screen.getByTestId("mcp-save"));
    await waitFor(() => expect(mcp.saved).toHaveLength(1));
    expect(mcp.saved[0]).toEqual({ replaces: undefined, name: "tracker", entry: { command: "tracker-mcp", args: [], readWhilePlanning: true } });
  });
});
