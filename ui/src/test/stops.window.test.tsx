// The whole window against a fake shell (Tauri's `invoke` and events mocked): a chat whose
// executor stopped opens with the stop card, whose Continue sends `continue_work` for that
// chat; an `executor_stopped` event shows the card without a reload and the Continue's
// message event takes it away; Clear list sends `clear_task_list` after asking.
import { act, fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { beforeEach, describe, expect, it, vi } from "vitest";

import { App } from "../App";
import type { ChatView } from "../generated/ChatView";
import type { Event } from "../generated/Event";
import type { ExecutorStop } from "../generated/ExecutorStop";
import type { Message } from "../generated/Message";
import type { Task } from "../generated/Task";
import { api } from "../lib/api";
import { shell } from "./fakeShell";
import { assistant, chat, settings, user, view } from "./fixtures";

vi.mock("@tauri-apps/api/core", () => import("./fakeShell").then((fake) => fake.core));
vi.mock("@tauri-apps/api/event", () => import("./fakeShell").then((fake) => fake.event));
vi.mock("@tauri-apps/api/webview", () => import("./fakeShell").then((fake) => fake.webview));

/** What the fake shell keeps beside its calls: the chat as stored, the task list. */
const kept = {
  stored: null as unknown as ChatView,
  tasks: [] as Task[],
};

const openTasks: Task[] = [
  { id: 1, title: "Read the logs", status: "done", origin: "plan" },
  { id: 2, title: "Fix the parser", status: "pending", origin: "plan" },
];

const stop: ExecutorStop = {
  reason: "no_progress",
  text: "No task changed in 12 rounds.",
  tasks_left: [{ id: 2, title: "Fix the parser", status: "pending" }],
  at: "2026-11-30T10:05:00.000Z",
};

const continueMessage: Message = {
  id: "r1",
  created_at: "2026-11-30T10:06:00Z",
  role: "user",
  content: "Continue. Open tasks: 2. Fix the parser",
  files: [],
  plan_answer: false,
  resume: { reason: "no_progress", auto: false },
};

function withState(base: ChatView, state: Partial<ChatView["state"]>): ChatView {
  return { ...base, state: { ...base.state, ...state } };
}

function send(event: Event) {
  act(() => shell.listeners["chat-event"]!({ payload: { chat_id: "chat1", event } }));
}

function called(command: string) {
  return shell.calls.filter((call) => call.command === command);
}

beforeEach(() => {
  shell.calls = [];
  shell.listeners = {};
  kept.tasks = openTasks;
  kept.stored = withState(view([user("u1", "Fix the parser"), assistant("a1", "I am stuck.")], "idle"), { stopped: stop });
  shell.answers = {
    app_info: () => ({ version: "0", home: "/h", startup_error: null, models_dir: "/m", models: [] }),
    get_settings: () => settings,
    list_chats: () => ({ data: [chat], next_cursor: null }),
    ui_ready: () => 5,
    watch_chat: () => undefined,
    chat_view: () => structuredClone(kept.stored),
    plan_view: () => ({ tasks: structuredClone(kept.tasks), files: null }),
    list_elicitations: () => [],
    continue_work: () => {
      kept.stored = withState({ ...kept.stored, messages: [...kept.stored.messages, continueMessage] }, { stopped: null, phase: "executing" });
      return structuredClone(kept.stored);
    },
    clear_task_list: () => {
      kept.tasks = [];
      kept.stored = withState(kept.stored, { stopped: null });
      return true;
    },
  };
});

describe("the commands", () => {
  it("continue_work and clear_task_list name the chat", async () => {
    await api.continueWork("chat9");
    await api.clearTaskList("chat9");
    expect(shell.calls).toEqual([
      { command: "continue_work", args: { chat_id: "chat9" } },
      { command: "clear_task_list", args: { chat_id: "chat9" } },
    ]);
  });
});

describe("a chat whose executor stopped, in the window", () => {
  it("opens with the stop card; Continue sends continue_work for the chat and the card gives way to the marker", async () => {
    render(<App />);
    const button = await screen.findByTestId("stop-continue");
    expect(screen.getByTestId("stop-card").textContent).toContain("#2 Fix the parser");
    await act(async () => {
      fireEvent.click(button);
    });
    expect(called("continue_work")).toEqual([{ command: "continue_work", args: { chat_id: "chat1" } }]);
    await waitFor(() => expect(screen.queryByTestId("stop-card")).toBeNull());
    expect(screen.getByTestId("continue-marker").textContent).toContain("Continued");
    expect(screen.queryByText("Continue. Open tasks: 2. Fix the parser", { selector: ".user-text" })).toBeNull();
  });

  it("shows a refused Continue on the card", async () => {
    shell.answers.continue_work = () => {
      throw { code: "ERR_TURN_ACTIVE", message: "" };
    };
    render(<App />);
    const button = await screen.findByTestId("stop-continue");
    await act(async () => {
      fireEvent.click(button);
    });
    await waitFor(() => expect(screen.getByTestId("stop-error").textContent).toBe("The chat is busy: wait until the turn ends or stop it."));
  });

  it("shows the card from the executor_stopped event, without a reload, and an automatic Continue takes it away", async () => {
    kept.stored = withState(kept.stored, { stopped: null, phase: "executing" });
    render(<App />);
    await screen.findByText("I am stuck.");
    expect(screen.queryByTestId("stop-card")).toBeNull();
    const reads = called("chat_view").length;
    send({ type: "executor_stopped", stopped: stop });
    send({ type: "plan_status", phase: "idle", text: "" });
    expect(screen.getByTestId("stop-card")).toBeTruthy();
    // (The turn's end reads the chat again; the card was there before that answer came.)
    expect(called("chat_view").length).toBeGreaterThanOrEqual(reads);
    send({ type: "plan_status", phase: "executing", text: "" });
    send({ type: "message", message: { ...continueMessage, resume: { reason: "no_progress", auto: true } } });
    expect(screen.queryByTestId("stop-card")).toBeNull();
    expect(screen.getByTestId("continue-marker").textContent).toContain("Continued automatically");
  });

  it("clears the task list after asking, and the stop card goes with it", async () => {
    render(<App />);
    await screen.findByTestId("stop-card");
    fireEvent.click(await screen.findByTestId("task-clear"));
    expect(called("clear_task_list")).toEqual([]);
    await act(async () => {
      fireEvent.click(screen.getByTestId("task-clear-confirm"));
    });
    expect(called("clear_task_list")).toEqual([{ command: "clear_task_list", args: { chat_id: "chat1" } }]);
    await waitFor(() => expect(screen.queryByTestId("stop-card")).toBeNull());
    await waitFor(() => expect(screen.getByTestId("task-panel").textContent).toContain("No task list yet"));
  });
});
