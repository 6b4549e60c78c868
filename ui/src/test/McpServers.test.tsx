import { fireEvent, render, screen, waitFor, within } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { McpServers, type McpSource } from "../components/McpServers";
import { settle, signInStatus } from "../components/McpSignIn";
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
    signIn: vi.fn(async () => "https://auth.example.com/authorize"),
    signOut: vi.fn(async () => initial),
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

  it("adds a remote server by its URL and headers", async () => {
    const mcp = source(settings([filesystem]));
    render(<McpServers source={mcp} />);
    await waitFor(() => screen.getByTestId("mcp-add"));
    fireEvent.click(screen.getByTestId("mcp-add"));
    fireEvent.click(screen.getByTestId("mcp-url-tab"));
    fireEvent.input(screen.getByTestId("mcp-name"), { target: { value: "docs" } });
    fireEvent.click(screen.getByTestId("mcp-save"));
    expect(screen.getByTestId("mcp-error").textContent).toBe("A remote server needs a URL.");
    fireEvent.input(screen.getByTestId("mcp-url"), { target: { value: "https://mcp.example.com/mcp" } });
    fireEvent.input(screen.getByTestId("mcp-headers"), { target: { value: "X-Team: ${env:TEAM}\nAuthorization: Bearer ${env:DOCS_TOKEN}" } });
    fireEvent.click(screen.getByTestId("mcp-save"));
    await waitFor(() => expect(mcp.saved).toHaveLength(1));
    expect(mcp.saved[0]).toEqual({
      replaces: undefined,
      name: "docs",
      entry: { url: "https://mcp.example.com/mcp", headers: { "X-Team": "${env:TEAM}", Authorization: "Bearer ${env:DOCS_TOKEN}" } },
    });
  });
});

describe("McpServers: signing in to a remote server", () => {
  const remote = (sign: McpServerView["remote"]): McpServerView => ({
    name: "linear",
    entry: { url: "https://mcp.linear.example/mcp" },
    class: "other",
    supplied: false,
    error: null,
    planning: false,
    read_while_planning: false,
    state: { state: "not_started" },
    remote: sign,
  });
  const page = "https://auth.linear.example/authorize?client_id=preflight&state=xyz";

  it("Sign in opens the browser, shows the link to copy, polls until signed in, then offers Sign out", async () => {
    const replies = [
      settings([remote({ url: "https://mcp.linear.example/mcp", signed_in: false, sign_in: { state: "pending", authorization_url: page } })]),
      settings([remote({ url: "https://mcp.linear.example/mcp", signed_in: false, sign_in: { state: "pending", authorization_url: page } })]),
      settings([remote({ url: "https://mcp.linear.example/mcp", signed_in: true, sign_in: { state: "signed_in" } })]),
    ];
    const signedOut = settings([remote({ url: "https://mcp.linear.example/mcp", signed_in: false, sign_in: null })]);
    const mcp = source(signedOut);
    mcp.load = vi.fn(async () => (mcp.signIn as ReturnType<typeof vi.fn>).mock.calls.length === 0 ? signedOut : (replies.shift() ?? replies[replies.length - 1] ?? signedOut));
    mcp.signIn = vi.fn(async () => page);
    mcp.signOut = vi.fn(async () => signedOut);
    render(<McpServers source={mcp} pollMs={20} />);
    await waitFor(() => expect(screen.getByTestId("mcp-remote").dataset.signIn).toBe("signed_out"));
    expect(screen.getByTestId("mcp-remote-url").textContent).toBe("https://mcp.linear.example/mcp");
    expect(screen.queryByTestId("mcp-sign-out")).toBeNull();

    fireEvent.click(screen.getByTestId("mcp-sign-in"));
    await waitFor(() => expect(screen.getByTestId("mcp-remote").dataset.signIn).toBe("pending"));
    expect(mcp.signIn).toHaveBeenCalledWith("linear");
    expect(screen.getByTestId("mcp-sign-in-pending").textContent).toContain("Finish signing in in your browser.");
    expect(screen.getByTestId("mcp-sign-in-url").textContent).toBe(page);
    expect(screen.queryByTestId("mcp-sign-in")).toBeNull();

    await waitFor(() => expect(screen.getByTestId("mcp-remote").dataset.signIn).toBe("signed_in"));
    expect(screen.getByTestId("mcp-signed-in").textContent).toBe("Signed in");

    fireEvent.click(screen.getByTestId("mcp-sign-out"));
    await waitFor(() => expect(screen.getByTestId("mcp-remote").dataset.signIn).toBe("signed_out"));
    expect(mcp.signOut).toHaveBeenCalledWith("linear");
  });

  it("a failed sign-in says why and offers Sign in again; the engine's refusal is shown", async () => {
    const failed = settings([remote({ url: "https://mcp.linear.example/mcp", signed_in: false, sign_in: { state: "failed", error: "the authorization server refused: access_denied" } })]);
    const mcp = source(failed);
    mcp.signIn = vi.fn(async () => {
      throw { code: "ERR_BAD_REQUEST", message: "server `linear` has no authorization server" };
    });
    render(<McpServers source={mcp} />);
    await waitFor(() => expect(screen.getByTestId("mcp-sign-in-error").textContent).toBe("Sign-in failed: the authorization server refused: access_denied"));
    fireEvent.click(screen.getByTestId("mcp-sign-in"));
    await waitFor(() => expect(screen.getByTestId("mcp-error").textContent).toContain("has no authorization server"));
    expect(screen.getByTestId("mcp-remote").dataset.signIn).toBe("failed");
  });

  it("polls while a sign-in is under way and stops once the engine shows it ended", () => {
    const pending = { url: "https://m", signed_in: false, sign_in: { state: "pending", authorization_url: page } } as const;
    const done = { url: "https://m", signed_in: true, sign_in: { state: "signed_in" } } as const;
    const failed = { url: "https://m", signed_in: false, sign_in: { state: "failed", error: "no" } } as const;
    expect(signInStatus({ url: "https://m", signed_in: false, sign_in: null }, page), "begun here, not yet reported").toBe("pending");
    expect(signInStatus(pending, undefined)).toBe("pending");
    expect(signInStatus(done, undefined)).toBe("signed_in");
    expect(signInStatus({ ...done, sign_in: null }, undefined)).toBe("signed_in");
    expect(signInStatus(failed, undefined)).toBe("failed");
    const started = { linear: page };
    expect(settle(started, settings([remote(pending)]))).toEqual(started);
    expect(settle(started, settings([remote(done)]))).toEqual({});
    expect(settle(started, settings([remote(failed)]))).toEqual({});
    expect(settle(started, settings([])), "removed meanwhile").toEqual({});
  });
});
