// The open chat converges on the engine's state (issue 37): an event the window missed is
// made good when the turn ends, an action's answer that lands late never replaces a newer
// view, and an event sent while the chat opens is not lost. The shell is a fake engine here:
// `chat_view` answers with what is stored when it is called, events go where the test says.
import { act, render, screen, waitFor } from "@testing-library/preact";
import { beforeEach, describe, expect, it, vi } from "vitest";

import { Messages } from "../components/Messages";
import type { ChatView } from "../generated/ChatView";
import type { Event } from "../generated/Event";
import type { Message } from "../generated/Message";
import type { Task } from "../generated/Task";
import type { ChatListeners } from "../lib/api";
import { useChat, type ChatController } from "../lib/useChat";
import { assistant, user, view } from "./fixtures";

const engine = vi.hoisted(() => ({
  stored: null as unknown as ChatView,
  /** The task list as `plan_view` answers it. */
  tasks: [] as Task[],
  listeners: null as ChatListeners | null,
  /** When set, the next `chat_view` answers only once this resolves (with what was stored when it was called). */
  holdNextView: null as Promise<void> | null,
}));

vi.mock("../lib/api", () => ({
  api: {
    chatView: async () => {
      const snapshot = structuredClone(engine.stored);
      const hold = engine.holdNextView;
      engine.holdNextView = null;
      if (hold) await hold;
      return snapshot;
    },
    taskPanel: async () => ({ tasks: structuredClone(engine.tasks), files: null }),
    listElicitations: async () => [],
  },
  asApiError: (error: unknown) => error,
  watchChat: async (_chatId: string, listeners: ChatListeners) => {
    engine.listeners = listeners;
    return () => {
      engine.listeners = null;
    };
  },
}));

const noop = () => {};
const actions = { onAnswer: noop, onAnswerChange: noop, onApprove: noop, onRevise: noop, onCancel: noop, onEdit: async () => {}, onAnswerElicitation: async () => null, onOpenElicitationUrl: async () => null, onContinue: async () => null };

let controller: ChatController | null = null;

function Chat() {
  controller = useChat("chat1", 0);
  return controller.state ? <Messages state={controller.state} actions={actions} /> : null;
}

/** One executor round: a `turn_plan done` call and its result. */
function round(n: number): Message[] {
  const call = { id: "call_0", name: "turn_plan", arguments: JSON.stringify({ op: "done", id: n }) };
  return [
    assistant(`a${n}`, "", { tool_calls: [call] }),
    { id: `a${n}-r`, created_at: "2026-11-30T10:00:02Z", role: "tool", tool_call_id: "call_0", name: "turn_plan", content: "[plan]", is_error: false },
  ];
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** The engine stores `messages` (and the phase, when given), as a turn does. */
function store(messages: Message[], phase?: ChatView["state"]["phase"]) {
  const state = phase ? { ...engine.stored.state, phase } : engine.stored.state;
  engine.stored = { ...engine.stored, messages: [...engine.stored.messages, ...messages], state };
}

/** The engine's events for `messages`, as the shell relays them. */
function announce(messages: Message[]) {
  for (const message of messages) send({ type: "message", message });
}

function send(event: Event) {
  act(() => engine.listeners!.onEvent(event));
}

/** A plan of four steps, the first `done` of them done. */
function tasks(done: number): Task[] {
  return [1, 2, 3, 4].map((id) => ({ id, title: `step ${id}`, status: id <= done ? "done" : "pending", origin: "plan" as const }));
}

const ended: Event = { type: "plan_status", phase: "idle", text: "" };

async function openChat() {
  render(<Chat />);
  await waitFor(() => expect(screen.getByText("Add a CSV export")).toBeTruthy());
}

beforeEach(() => {
  engine.stored = view([user("u1", "Add a CSV export")], "executing");
  engine.tasks = [];
  engine.listeners = null;
  engine.holdNextView = null;
  controller = null;
});

describe("the open chat", () => {
  it("shows the engine's tool calls and task list after the turn ends, even those whose events it missed", async () => {
    await openChat();
    for (const n of [1, 2]) {
      store(round(n));
      engine.tasks = tasks(n);
      announce(round(n));
      send({ type: "plan", tasks: tasks(n) });
    }
    await waitFor(() => expect(screen.getByTestId("tool-count").textContent).toBe("2 tool calls"));

    // The third round is stored and ticks the list, but its events never reach the window.
    store(round(3));
    engine.tasks = tasks(3);
    store([assistant("a4", "Three of the four steps are done.")], "idle");
    send(ended);

    await waitFor(() => expect(screen.getByTestId("tool-count").textContent).toBe("3 tool calls"));
    expect(screen.getAllByTestId("tool-group")).toHaveLength(1);
    expect(screen.getByTestId("task-summary").textContent).toBe("task list: done 3");
    expect(screen.getByText("Three of the four steps are done.")).toBeTruthy();
    expect(controller!.state!.view.state.phase).toBe("idle");
    await waitFor(() => expect(controller!.state!.tasks).toEqual(tasks(3)));
  });

  it("never lets an action's late answer replace the view read at the turn's end", async () => {
    await openChat();
    const approval = deferred<ChatView>();
    let acted: Promise<unknown> | null = null;
    act(() => {
      acted = controller!.act(() => approval.promise);
    });
    store(round(1));
    store(round(2));
    // The approval's answer is read now, two rounds into the turn it started ...
    const midTurn = structuredClone(engine.stored);
    announce([...round(1), ...round(2)]);
    store(round(3));
    announce(round(3));
    store([assistant("a4", "All three steps are done.")], "idle");
    announce([assistant("a4", "All three steps are done.")]);
    send(ended);
    await waitFor(() => expect(screen.getByTestId("tool-count").textContent).toBe("3 tool calls"));

    // ... and lands after the turn's last event and the re-read that followed it.
    await act(async () => {
      approval.resolve(midTurn);
      await acted;
    });
    await waitFor(() => expect(controller!.state!.view.state.phase).toBe("idle"));
    expect(screen.getByTestId("tool-count").textContent).toBe("3 tool calls");
    expect(screen.getByText("All three steps are done.")).toBeTruthy();
  });

  it("reads the chat again when an event came while it opened", async () => {
    const firstRead = deferred<void>();
    engine.holdNextView = firstRead.promise;
    render(<Chat />);
    await waitFor(() => expect(engine.listeners).not.toBeNull());
    // Read (before the round was stored) and answered only after the round's events came.
    await act(async () => {
      await Promise.resolve();
    });
    store(round(1));
    store(round(2));
    announce([...round(1), ...round(2)]);
    await act(async () => firstRead.resolve());

    await waitFor(() => expect(screen.getByTestId("tool-count").textContent).toBe("2 tool calls"));
  });
});
