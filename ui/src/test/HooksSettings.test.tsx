// Settings → Hooks against a scripted source: what runs and a file's error in words; a
// workspace's hooks are trusted only after the second question, untrusted at once.
import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { HooksSettings, type HooksSource } from "../components/HooksSettings";
import type { HooksView } from "../generated/HooksView";

const ws = "/home/u/project";

function view(trusted: boolean): HooksView {
  const workspaceHook = { file: `${ws}/.preflight/hooks.json`, event: "PostToolUse" as const, matcher: "", command: "./fmt.sh", timeout_s: 60 };
  return {
    file: "/home/u/.preflight/hooks.json",
    loaded: [{ file: "/home/u/.preflight/hooks.json", event: "PreToolUse", matcher: "mcp_filesystem_write_file", command: "/home/u/bin/guard.sh", timeout_s: 1 }, ...(trusted ? [workspaceHook] : [])],
    errors: [{ file: "/home/u/other/.preflight/hooks.json", message: "hooks.Stop[0].matcher \"(\" is not a regular expression" }],
    workspaces: [{ workspace: ws, file: `${ws}/.preflight/hooks.json`, present: true, trusted }],
  };
}

function source(): HooksSource & { trusts: [string, boolean][] } {
  const trusts: [string, boolean][] = [];
  let trusted = false;
  return {
    trusts,
    load: vi.fn(async () => view(trusted)),
    trust: vi.fn(async (workspace: string, next: boolean) => {
      trusts.push([workspace, next]);
      trusted = next;
      // A folder no chat uses is listed by the engine only while it is trusted.
      return next ? view(true) : { ...view(false), workspaces: [] };
    }),
  };
}

describe("HooksSettings", () => {
  it("shows what runs and why a file runs nothing", async () => {
    render(<HooksSettings source={source()} />);
    await waitFor(() => expect(screen.getAllByTestId("hooks-hook")).toHaveLength(1));
    const row = screen.getByTestId("hooks-hook");
    expect(row.textContent).toContain("PreToolUse");
    expect(row.textContent).toContain("mcp_filesystem_write_file");
    expect(row.textContent).toContain("/home/u/bin/guard.sh");
    expect(row.textContent).toContain("1 second");
    expect(screen.getByTestId("hooks-file-error").textContent).toBe('/home/u/other/.preflight/hooks.json runs none of its hooks: hooks.Stop[0].matcher "(" is not a regular expression');
  });

  it("trusts a workspace only once asked twice, and stops trusting it at once", async () => {
    const scripted = source();
    render(<HooksSettings source={scripted} />);
    const trust = await screen.findByTestId("hooks-trust");
    fireEvent.click(trust);
    expect(scripted.trusts).toEqual([]);
    expect((screen.getByTestId("hooks-trust") as HTMLInputElement).checked).toBe(false);
    fireEvent.click(screen.getByTestId("hooks-confirm-cancel"));
    expect(screen.queryByTestId("hooks-confirm")).toBeNull();
    fireEvent.click(screen.getByTestId("hooks-trust"));
    expect(screen.getByTestId("hooks-confirm").textContent).toContain(`${ws}/.preflight/hooks.json`);
    fireEvent.click(screen.getByTestId("hooks-confirm-trust"));
    await waitFor(() => expect(screen.getAllByTestId("hooks-hook")).toHaveLength(2));
    expect((screen.getByTestId("hooks-trust") as HTMLInputElement).checked).toBe(true);
    fireEvent.click(screen.getByTestId("hooks-trust"));
    await waitFor(() => expect(screen.getAllByTestId("hooks-hook")).toHaveLength(1));
    expect(scripted.trusts).toEqual([[ws, true], [ws, false]]);
    expect((screen.getByTestId("hooks-trust") as HTMLInputElement).checked).toBe(false);
    fireEvent.click(screen.getByTestId("hooks-trust"));
    expect(screen.getByTestId("hooks-confirm")).toBeTruthy();
  });
});
