// A chat in its own worktree in the window (issue 54): the bar with its branch and what it
// changed, a vanished folder said with Recreate, Merge's preview with its conflicts (Merge not
// offered, nothing sent but the preview) and a clean one merged on the click, the switch in
// the chat's options closed once the chat began, and the Russian words.
import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";

import { ChatOptions } from "../components/ChatOptions";
import { Sidebar } from "../components/Sidebar";
import { MergeDialog } from "../components/MergeDialog";
import { WorktreeSection } from "../components/WorktreeBar";
import type { Chat } from "../generated/Chat";
import type { MergeOutcome } from "../generated/MergeOutcome";
import type { MergeRequest } from "../generated/MergeRequest";
import type { Worktree } from "../generated/Worktree";
import type { WorktreeView } from "../generated/WorktreeView";
import { applyLanguage } from "../lib/i18n";
import { chat as baseChat } from "./fixtures";

const worktree: Worktree = {
  repository: "/home/ana/shop",
  path: "/home/ana/.local/share/preflight/worktrees/c1/shop",
  branch: "preflight/ab12cd34",
  base_branch: "main",
  base_commit: "0123456789abcdef0123456789abcdef01234567",
  state: { state: "active" },
};
const chat: Chat & { worktree: Worktree } = { ...baseChat, workspace: worktree.path, worktree };
const stat = { files: 1, additions: 1, deletions: 1 };
const PATCH = "diff --git a/prices.txt b/prices.txt\n--- a/prices.txt\n+++ b/prices.txt\n@@ -1 +1 @@\n-apple 1\n+apple 2\n";
const file = { path: "prices.txt", status: "modified", additions: 1, deletions: 1, binary: false, too_large: false, patch: PATCH };
const view = (missing = false): WorktreeView => ({ worktree, missing, stat, files: [file] });

function outcome(overrides: Partial<MergeOutcome> = {}): MergeOutcome {
  return {
    merged: false,
    mode: "merge",
    base: "main",
    branch: worktree.branch,
    message: "Raise the prices\n\nPrices set.",
    stat,
    files: [file],
    conflicts: [],
    checkout_changed: [],
    nothing_to_merge: false,
    can_merge: true,
    digest: "tree:base",
    chat,
    ...overrides,
  };
}

function section(api: Partial<Parameters<typeof WorktreeSection>[0]["api"]>, run = vi.fn(async (action: () => Promise<unknown>) => (await action(), true))) {
  const full = {
    worktreeView: vi.fn(async () => view()),
    mergeChat: vi.fn(async () => outcome()),
    keepChatBranch: vi.fn(async () => chat),
    recreateWorktree: vi.fn(async () => chat),
    ...api,
  };
  render(<WorktreeSection chat={chat} busy={false} refreshKey="idle" run={run} onChanged={() => {}} api={full} />);
  return full;
}

afterEach(() => applyLanguage("en"));

describe("the worktree bar", () => {
  it("shows the repository, the branch, where it started and what it changed", async () => {
    section({});
    expect(screen.getByTestId("worktree-branch").textContent).toBe("preflight/ab12cd34");
    expect(screen.getByTestId("worktree-bar").textContent).toContain("shop");
    expect(screen.getByTestId("worktree-bar").textContent).toContain("from main");
    await waitFor(() => expect(screen.getByTestId("worktree-status").textContent).toBe("1 file, +1 −1"));
  });

  it("says a vanished folder and offers Recreate instead of Merge", async () => {
    const api = section({ worktreeView: vi.fn(async () => view(true)) });
    await waitFor(() => expect(screen.getByTestId("worktree-status").textContent).toContain("folder is gone"));
    expect(screen.queryByTestId("worktree-merge")).toBeNull();
    fireEvent.click(screen.getByTestId("worktree-recreate"));
    await waitFor(() => expect(api.recreateWorktree).toHaveBeenCalledWith(chat.id));
  });
});

describe("Merge", () => {
  it("lists the conflicts of its preview and does not offer the merge", async () => {
    const merge = vi.fn(async (_: MergeRequest) => outcome({ conflicts: ["prices.txt"], can_merge: false }));
    render(<MergeDialog branch={worktree.branch} merge={merge} onMerged={() => {}} onClose={() => {}} />);
    await waitFor(() => expect(screen.getByTestId("merge-conflicts").textContent).toContain("prices.txt"));
    expect((screen.getByTestId("merge-confirm") as HTMLButtonElement).disabled).toBe(true);
    expect(merge.mock.calls.map(([request]) => request.preview)).toEqual([true]);
  });

  it("merges on the click, as a squash when chosen, after previewing that mode", async () => {
    const merge = vi.fn(async (request: MergeRequest) => outcome({ merged: !request.preview, mode: request.mode ?? "merge", commit: request.preview ? undefined : "feedbeef00" }));
    const onMerged = vi.fn();
    render(<MergeDialog branch={worktree.branch} merge={merge} onMerged={onMerged} onClose={() => {}} />);
    await waitFor(() => expect(screen.getByTestId("merge-message").textContent).toContain("Raise the prices"));
    fireEvent.click(screen.getByTestId("merge-mode-squash"));
    await waitFor(() => expect(merge).toHaveBeenCalledWith({ mode: "squash", preview: true }));
    await waitFor(() => expect((screen.getByTestId("merge-confirm") as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(screen.getByTestId("merge-confirm"));
    await waitFor(() => expect(onMerged).toHaveBeenCalled());
    expect(merge).toHaveBeenLastCalledWith({ mode: "squash", preview: false, digest: "tree:base" });
  });

  it("says a refusal at the click in words, and stays open", async () => {
    const merge = vi.fn(async (request: MergeRequest) => {
      if (request.preview) return outcome();
      throw { code: "ERR_CHECKOUT_CHANGED", message: "your checkout of main has changes of its own to prices.txt" };
    });
    render(<MergeDialog branch={worktree.branch} merge={merge} onMerged={() => {}} onClose={() => {}} />);
    await waitFor(() => expect((screen.getByTestId("merge-confirm") as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(screen.getByTestId("merge-confirm"));
    await waitFor(() => expect(screen.getByTestId("merge-refused").textContent).toContain("Commit or stash"));
    expect(screen.getByTestId("merge-dialog")).toBeTruthy();
  });
});

describe("the chat's options", () => {
  it("offer a worktree of its own only before the chat's first message", () => {
    const onChange = vi.fn();
    const plain: Chat = { ...baseChat, workspace: "/home/ana/shop" };
    const { rerender } = render(<ChatOptions chat={plain} onChange={onChange} />);
    fireEvent.click(screen.getByTestId("chat-worktree"));
    expect(onChange).toHaveBeenCalledWith({ worktree: true });
    rerender(<ChatOptions chat={plain} onChange={onChange} started />);
    expect((screen.getByTestId("chat-worktree") as HTMLInputElement).disabled).toBe(true);
  });

  it("say it all in Russian", async () => {
    applyLanguage("ru");
    section({ worktreeView: vi.fn(async () => view(true)) });
    await waitFor(() => expect(screen.getByTestId("worktree-status").textContent).toContain("папка исчезла"));
    expect(screen.getByTestId("worktree-recreate").textContent).toBe("Создать папку заново");
  });
});

describe("the chat list", () => {
  it("marks every chat that works now, planning or executing, and no other", () => {
    const chats: Chat[] = ["a", "b", "c"].map((id) => ({ ...baseChat, id, title: `Chat ${id}` }));
    const running = new Map([
      ["a", "executing" as const],
      ["b", "planning" as const],
    ]);
    const noop = () => {};
    render(<Sidebar chats={chats} running={running} selectedId="a" onSelect={noop} onNew={noop} onRename={noop} onDelete={noop} onSettings={noop} />);
    const marks = screen.getAllByTestId("chat-running");
    expect(marks.map((mark) => mark.dataset.phase)).toEqual(["executing", "planning"]);
    expect(marks[0]!.textContent).toBe("Working");
  });
});
