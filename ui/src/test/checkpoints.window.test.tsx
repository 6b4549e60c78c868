// The checkpoints in the whole window against a fake shell (Tauri's `invoke` and events
// mocked): the list is read when the chat opens and again, once, after a burst of events; a
// task's figures open its diff; a restore previews, then sends `restore_checkpoint` (with
// `overwrite` only when ticked) and the entry takes its place in the chat; a refusal stays on
// the dialog; the completion card opens the whole plan's diff.
import { act, fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { App } from "../App";
import type { ChatView } from "../generated/ChatView";
import type { CheckpointList } from "../generated/CheckpointList";
import type { Event } from "../generated/Event";
import type { Message } from "../generated/Message";
import type { Task } from "../generated/Task";
import { RELOAD_MS, useCheckpoints, type CheckpointsController } from "../lib/useCheckpoints";
import { shell } from "./fakeShell";
import { assistant, chat, settings, user, view } from "./fixtures";

vi.mock("@tauri-apps/api/core", () => import("./fakeShell").then((fake) => fake.core));
vi.mock("@tauri-apps/api/event", () => import("./fakeShell").then((fake) => fake.event));
vi.mock("@tauri-apps/api/webview", () => import("./fakeShell").then((fake) => fake.webview));

/** What the fake shell keeps beside its calls: the chat as stored. */
const kept = {
  stored: null as unknown as ChatView,
};

const tasks: Task[] = [
  { id: 1, title: "Add the route", status: "done", origin: "plan" },
  { id: 2, title: "Write the test", status: "active", origin: "plan" },
];

const stat = (files: number, additions: number, deletions: number) => ({ files, additions, deletions });
const list: CheckpointList = {
  checkpoints: [1, 2, 3, 4, 5].map((n) => ({ n, reason: n === 1 ? "approval" : "turn_end", created_at: "t", closed: [], since_previous: stat(0, 0, 0), left_out: [] })),
  tasks: [
    { task: 1, from: 2, to: 4, stat: stat(2, 12, 4) },
    // As the engine writes an open span today: `to` as null.
    { task: 2, from: 4, to: null as unknown as undefined, stat: stat(1, 1, 0) },
  ],
  undo_turn: 3,
};

const entry: Message = {
  ...user("r1", "I restored the workspace to checkpoint 2 (before task 1)."),
  created_at: "2026-12-01T10:10:00Z",
  restored: { checkpoint: 2, before_task: 1, written: ["src/a.rs"], deleted: [], kept: [] },
} as Message;

function called(command: string) {
  return shell.calls.filter((call) => call.command === command);
}

function send(event: Event) {
  act(() => shell.listeners["chat-event"]!({ payload: { chat_id: "chat1", event } }));
}

beforeEach(() => {
  shell.calls = [];
  shell.listeners = {};
  kept.stored = view([user("u1", "Add an export"), assistant("a1", "Working on it.")], "idle");
  shell.answers = {
    app_info: () => ({ version: "0", home: "/h", startup_error: null, models_dir: "/m", models: [] }),
    get_settings: () => settings,
    list_chats: () => ({ data: [chat], next_cursor: null }),
    ui_ready: () => 5,
    watch_chat: () => undefined,
    chat_view: () => structuredClone(kept.stored),
    plan_view: () => ({ tasks: structuredClone(tasks), files: null }),
    list_elicitations: () => [],
    list_checkpoints: () => structuredClone(list),
    checkpoint_diff: (args) => ({ from: args!.from, to: args!.to ?? 5, stat: stat(1, 1, 0), files: [{ path: "src/a.rs", status: "modified", additions: 1, deletions: 0, binary: false, too_large: false, patch: "@@ -1 +1,2 @@\n a\n+b\n" }] }),
    restore_preview: (args) => ({ to: args!.checkpoint, writes: ["src/a.rs", "notes.md"], deletes: [], user_changed: ["notes.md"], reopens: [1], digest: `plan-${args!.checkpoint}` }),
    restore_checkpoint: () => {
      kept.stored = { ...kept.stored, messages: [...kept.stored.messages, entry] };
      return structuredClone(kept.stored);
    },
  };
});

describe("the checkpoints in the window", () => {
  it("reads the list when the chat opens, and a task's figures open its diff to the latest", async () => {
    render(<App />);
    fireEvent.click(await screen.findByTestId("task-diff-2"));
    expect(called("list_checkpoints")).toEqual([{ command: "list_checkpoints", args: { chat_id: "chat1" } }]);
    await screen.findByTestId("diff-file");
    expect(called("checkpoint_diff")).toEqual([{ command: "checkpoint_diff", args: { chat_id: "chat1", from: 4 } }]);
    expect(screen.getByTestId("diff-view").textContent).toContain("Changes of task 2: Write the test");
    fireEvent.keyDown(screen.getByTestId("diff-view"), { key: "Escape" });
    expect(screen.queryByTestId("diff-view")).toBeNull();
    expect(called("stop_turn")).toEqual([]);
  });

  it("restores to before a task after the preview, and shows the entry in the chat", async () => {
    render(<App />);
    fireEvent.click(await screen.findByTestId("restore-task-1"));
    await screen.findByTestId("restore-preview");
    expect(called("restore_preview")).toEqual([{ command: "restore_preview", args: { chat_id: "chat1", checkpoint: 2 } }]);
    await act(async () => {
      fireEvent.click(screen.getByTestId("restore-confirm"));
    });
    expect(called("restore_checkpoint")).toEqual([{ command: "restore_checkpoint", args: { chat_id: "chat1", checkpoint: 2, digest: "plan-2" } }]);
    await waitFor(() => expect(screen.queryByTestId("restore-dialog")).toBeNull());
    expect(screen.getByTestId("restore-entry").textContent).toContain("Restored to checkpoint 2 (before task 1 “Add the route”)");
  });

  it("undoes the last turn overwriting the user's changes only when ticked, and shows a refusal", async () => {
    shell.answers.restore_checkpoint = () => {
      throw { code: "ERR_TURN_ACTIVE", message: "" };
    };
    render(<App />);
    fireEvent.click(await screen.findByTestId("undo-turn"));
    fireEvent.click(await screen.findByTestId("restore-overwrite"));
    await act(async () => {
      fireEvent.click(screen.getByTestId("restore-confirm"));
    });
    expect(called("restore_checkpoint")).toEqual([{ command: "restore_checkpoint", args: { chat_id: "chat1", checkpoint: 3, digest: "plan-3", overwrite: true } }]);
    await waitFor(() => expect(screen.getByTestId("restore-error").textContent).toBe("The chat is busy: wait until the turn ends or stop it."));
    expect(screen.getByTestId("restore-dialog")).toBeTruthy();
  });

  it("opens the whole plan's diff from the completion card", async () => {
    const completion = { summary: "", adherence: { steps: 1, done_as_planned: 1, modified: 0, dropped: 0, added: 0, in_order: true }, deviations: [], planned: [], tasks, stops_and_continues: [], finished_at: "2026-12-01T11:00:00Z" };
    kept.stored = { ...kept.stored, state: { ...kept.stored.state, completion } };
    render(<App />);
    fireEvent.click(await screen.findByTestId("plan-diff"));
    await screen.findByTestId("diff-file");
    expect(called("checkpoint_diff")).toEqual([{ command: "checkpoint_diff", args: { chat_id: "chat1", from: 1, to: 5 } }]);
  });

  it("reads the list again after the chat's events, not once per event", async () => {
    render(<App />);
    await screen.findByTestId("task-diff-1");
    for (let round = 0; round < 5; round += 1) {
      send({ type: "message", message: assistant(`a${round + 2}`, "") });
      send({ type: "plan", tasks });
    }
    await waitFor(() => expect(called("list_checkpoints")).toHaveLength(2));
  });
});

describe("useCheckpoints", () => {
  let controller: CheckpointsController | null = null;
  function Probe({ load }: { load: (chatId: string) => Promise<CheckpointList> }) {
    controller = useCheckpoints("chat1", 0, load);
    return <p data-testid="undo">{controller.list?.undo_turn ?? "none"}</p>;
  }
  afterEach(() => vi.useRealTimers());

  it("coalesces the events of a burst into one read, and ignores those that add no checkpoint", async () => {
    vi.useFakeTimers();
    const load = vi.fn(async () => list);
    render(<Probe load={load} />);
    await act(async () => {});
    expect(load).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId("undo").textContent).toBe("3");
    act(() => {
      controller!.onEvent({ type: "delta", message_id: "m", text: "x" });
      for (let n = 0; n < 10; n += 1) controller!.onEvent({ type: "plan", tasks: [] });
    });
    expect(load).toHaveBeenCalledTimes(1);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(RELOAD_MS);
    });
    expect(load).toHaveBeenCalledTimes(2);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(RELOAD_MS * 3);
    });
    expect(load).toHaveBeenCalledTimes(2);
  });
});
