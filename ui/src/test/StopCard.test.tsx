// The executor stopped with tasks left: the stop card (why, the failed check's evidence as
// text, the tasks left, Continue), kept in step with the chat's events; a Continue shown as a
// marker, never as a typed message; the plan card's notice on a model without tools; the task
// panel's Clear list; and the completion card's line of stops and continues.
import { act, fireEvent, render, screen, within } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";

import { CompletionCard, stopsLine } from "../components/CompletionCard";
import { Messages, typedByUser } from "../components/Messages";
import { PlanCard } from "../components/PlanCard";
import { StopCard } from "../components/StopCard";
import { TaskPanel } from "../components/TaskPanel";
import type { Completion } from "../generated/Completion";
import type { ExecutorStop } from "../generated/ExecutorStop";
import type { Message } from "../generated/Message";
import type { Task } from "../generated/Task";
import { applyEvent, initialState } from "../lib/chatState";
import { applyLanguage } from "../lib/i18n";
import { assistant, plan, user, view } from "./fixtures";

const XSS = '<img src=x onerror="window.__pwned=1">';

function gateStop(overrides: Partial<ExecutorStop> = {}): ExecutorStop {
  return {
    reason: "gate_failed",
    text: "The check of task 2 failed and the executor answered without fixing it.",
    tasks_left: [
      { id: 2, title: "Fix the parser", status: "active" },
      { id: 3, title: "Tag the release", status: "pending" },
    ],
    gate: { task: 2, command: "cargo test -p parser", exit_code: 101, evidence: `test parse_empty ... FAILED\n${XSS}` },
    at: "2026-11-30T10:05:00.000Z",
    ...overrides,
  };
}

function resumeMessage(id: string, auto = false, reason: ExecutorStop["reason"] = "gate_failed"): Message {
  return {
    id,
    created_at: "2026-11-30T10:06:00Z",
    role: "user",
    content: "Continue the work. Open tasks:\n2. Fix the parser\n3. Tag the release\nYou stopped because the check of task 2 failed.",
    files: [],
    plan_answer: false,
    resume: { reason, auto },
  };
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

const noop = () => {};
function cardActions(onContinue: () => Promise<string | null> = async () => null) {
  return { onAnswer: noop, onAnswerChange: noop, onApprove: noop, onRevise: noop, onCancel: noop, onEdit: async () => {}, onAnswerElicitation: async () => null, onOpenElicitationUrl: async () => null, onContinue };
}

function stoppedChat(stopped: ExecutorStop | null, phase: "idle" | "executing" = "idle") {
  const chat = view([user("u1", "Fix the parser and tag"), assistant("a1", "I could not get the tests to pass.")], phase);
  return initialState({ ...chat, state: { ...chat.state, stopped } }, []);
}

describe("the stop card", () => {
  it("says why in words, shows the failed check and the tasks left, and continues once per click", async () => {
    const pending = deferred<string | null>();
    const onContinue = vi.fn(() => pending.promise);
    render(<StopCard stopped={gateStop()} onContinue={onContinue} />);
    const card = screen.getByRole("region", { name: "Executor stopped" });
    expect(card).toBe(screen.getByTestId("stop-card"));
    expect(within(card).getByRole("heading", { level: 3 }).textContent).toBe("The executor stopped with tasks left");
    expect(screen.getByTestId("stop-reason").textContent).toBe("A step's check failed and was not fixed.");
    const gate = screen.getByTestId("stop-gate");
    expect(gate.textContent).toContain("Check of step 2:");
    expect(within(gate).getByText("cargo test -p parser").tagName).toBe("CODE");
    expect(gate.textContent).toContain("exit 101");
    expect(screen.getByTestId("stop-evidence").tagName).toBe("PRE");
    expect(within(screen.getByTestId("stop-tasks")).getAllByRole("listitem").map((item) => item.textContent)).toEqual(["#2 Fix the parser", "#3 Tag the release"]);
    expect(card.textContent).toContain("2 tasks left");

    const button = screen.getByTestId("stop-continue") as HTMLButtonElement;
    expect(button.textContent).toBe("Continue");
    fireEvent.click(button);
    expect(button.disabled).toBe(true);
    fireEvent.click(button);
    expect(onContinue).toHaveBeenCalledTimes(1);
    await act(async () => pending.resolve("No task is left open: there is nothing to continue."));
    expect(screen.getByTestId("stop-error").textContent).toBe("No task is left open: there is nothing to continue.");
    expect(screen.getByTestId("stop-error").getAttribute("role")).toBe("alert");
    expect(button.disabled).toBe(false);
  });

  it("shows the evidence as text, never as markup", () => {
    render(<StopCard stopped={gateStop()} onContinue={async () => null} />);
    const evidence = screen.getByTestId("stop-evidence");
    expect(evidence.textContent).toContain(XSS);
    expect(evidence.children).toHaveLength(0);
    expect(screen.getByTestId("stop-card").querySelector("img")).toBeNull();
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it("in Russian says the reason in Russian without the engine's English, but keeps a provider's specifics", () => {
    applyLanguage("ru");
    const { unmount } = render(<StopCard stopped={gateStop()} onContinue={async () => null} />);
    expect(screen.getByTestId("stop-reason").textContent).toBe("Проверка шага не прошла, и её не исправили.");
    expect(screen.queryByTestId("stop-detail")).toBeNull();
    expect(screen.getByTestId("stop-card").textContent).not.toContain("executor answered");
    expect(screen.getByTestId("stop-continue").textContent).toBe("Продолжить");
    expect(screen.getByTestId("stop-card").textContent).toContain("Осталось 2 задачи");
    unmount();
    const provider = gateStop({ reason: "provider_error", text: "connection refused (http://127.0.0.1:11434)", gate: undefined });
    render(<StopCard stopped={provider} onContinue={async () => null} />);
    expect(screen.getByTestId("stop-reason").textContent).toBe("Во время хода произошёл сбой у провайдера модели.");
    expect(screen.getByTestId("stop-detail").textContent).toBe("connection refused (http://127.0.0.1:11434)");
    expect(screen.queryByTestId("stop-gate")).toBeNull();
  });

  it("says its reason once, and the engine's words only where they carry specifics", () => {
    const { unmount } = render(<StopCard stopped={gateStop({ reason: "no_progress", text: "No task changed in 12 rounds.", gate: undefined })} onContinue={async () => null} />);
    expect(screen.getByTestId("stop-reason").textContent).toBe("For many rounds it changed nothing and looked at nothing new.");
    expect(screen.queryByTestId("stop-detail")).toBeNull();
    expect(screen.getByTestId("stop-card").textContent).not.toContain("No task changed");
    unmount();
    render(<StopCard stopped={gateStop({ reason: "loop", text: "Stopped as a loop: `read_file` was asked for 3 times.", gate: undefined })} onContinue={async () => null} />);
    expect(screen.getByTestId("stop-detail").textContent).toBe("Stopped as a loop: `read_file` was asked for 3 times.");
  });

  it("is at the end of the conversation while no turn runs, and its Continue is the chat's", () => {
    const onContinue = vi.fn(async () => null);
    const { rerender } = render(<Messages state={stoppedChat(gateStop())} actions={cardActions(onContinue)} />);
    const messages = screen.getByTestId("messages");
    expect(messages.lastElementChild).toBe(screen.getByTestId("stop-card"));
    fireEvent.click(screen.getByTestId("stop-continue"));
    expect(onContinue).toHaveBeenCalledTimes(1);
    rerender(<Messages state={stoppedChat(gateStop(), "executing")} actions={cardActions(onContinue)} />);
    expect(screen.queryByTestId("stop-card")).toBeNull();
    rerender(<Messages state={stoppedChat(null)} actions={cardActions(onContinue)} />);
    expect(screen.queryByTestId("stop-card")).toBeNull();
  });

  it("comes with the executor_stopped event and goes with a Continue, a typed message or a cleared list", () => {
    const actions = cardActions();
    let state = stoppedChat(null, "executing");
    state = applyEvent(state, { type: "executor_stopped", stopped: gateStop() });
    state = applyEvent(state, { type: "plan_status", phase: "idle", text: "" });
    const { rerender } = render(<Messages state={state} actions={actions} />);
    expect(screen.getByTestId("stop-card")).toBeTruthy();

    // Another assistant message (or a tool's) leaves it.
    const kept = applyEvent(state, { type: "message", message: assistant("a2", "still stuck") });
    expect(kept.view.state.stopped).not.toBeNull();

    const continued = applyEvent(state, { type: "message", message: resumeMessage("r1", true) });
    rerender(<Messages state={continued} actions={actions} />);
    expect(screen.queryByTestId("stop-card")).toBeNull();
    expect(screen.getByTestId("continue-marker")).toBeTruthy();

    expect(applyEvent(state, { type: "message", message: user("u2", "try another way") }).view.state.stopped).toBeNull();
    expect(applyEvent(state, { type: "plan", tasks: [] }).view.state.stopped).toBeNull();
    const ticked: Task[] = [{ id: 2, title: "Fix the parser", status: "active", origin: "plan" }];
    expect(applyEvent(state, { type: "plan", tasks: ticked }).view.state.stopped).not.toBeNull();
  });
});

describe("a Continue in the conversation", () => {
  const messages = [user("u1", "Fix the parser and tag"), assistant("a1", "The tests fail."), resumeMessage("r1"), assistant("a2", "Fixed.")];

  it("is a centred marker with the reason, its words folded away, and no pencil", () => {
    render(<Messages state={initialState(view(messages), [])} actions={cardActions()} edits={{ editing: null, onEditStart: vi.fn(), onEditCancel: vi.fn(), onEditSend: vi.fn() }} />);
    const marker = screen.getByTestId("continue-marker") as HTMLDetailsElement;
    expect(marker.tagName).toBe("DETAILS");
    expect(marker.open).toBe(false);
    expect(marker.querySelector("summary")!.textContent).toBe("Continued(stopped: a failed check)");
    expect(marker.querySelector("pre")!.textContent).toContain("Open tasks:");
    expect(marker.classList.contains("user")).toBe(false);
    expect(within(marker).queryByTestId("edit-message")).toBeNull();
    // Only the typed message has a pencil.
    const pencils = screen.getAllByTestId("edit-message");
    expect(pencils).toHaveLength(1);
    expect(pencils[0]!.closest("[data-message-id]")!.getAttribute("data-message-id")).toBe("u1");
    expect(screen.queryByText(/Open tasks:/, { selector: ".user-text" })).toBeNull();
  });

  it("says when it was automatic, and is never the message ↑ edits", () => {
    render(<Messages state={initialState(view([user("u1", "go"), resumeMessage("r1", true, "no_progress")]), [])} actions={cardActions()} />);
    expect(screen.getByTestId("continue-marker").querySelector("summary")!.textContent).toBe("Continued automatically(stopped: no progress)");
    expect([...messages].reverse().find(typedByUser)?.id).toBe("u1");
    expect(typedByUser(resumeMessage("r2"))).toBe(false);
  });
});

describe("Clear list in the task panel", () => {
  const tasks: Task[] = [
    { id: 1, title: "read the logs", status: "done", origin: "plan" },
    { id: 2, title: "fix the parser", status: "pending", origin: "plan" },
  ];

  it("asks in place, then clears; Keep it asks nothing", async () => {
    const onClear = vi.fn(async () => null);
    render(<TaskPanel tasks={tasks} finished={false} onClear={onClear} />);
    fireEvent.click(screen.getByTestId("task-clear"));
    expect(onClear).not.toHaveBeenCalled();
    expect(screen.getByText("Clear the task list? Its open tasks are dropped.")).toBeTruthy();
    fireEvent.click(screen.getByTestId("task-clear-cancel"));
    expect(screen.queryByTestId("task-clear-confirm")).toBeNull();
    fireEvent.click(screen.getByTestId("task-clear"));
    await act(async () => {
      fireEvent.click(screen.getByTestId("task-clear-confirm"));
    });
    expect(onClear).toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId("task-clear-confirm")).toBeNull();
  });

  it("shows a refusal, and offers nothing while a turn runs, for a finished list or an empty one", async () => {
    const { rerender } = render(<TaskPanel tasks={tasks} finished={false} onClear={async () => "The chat is busy: wait until the turn ends or stop it."} />);
    fireEvent.click(screen.getByTestId("task-clear"));
    await act(async () => {
      fireEvent.click(screen.getByTestId("task-clear-confirm"));
    });
    expect(screen.getByTestId("task-clear-error").textContent).toContain("The chat is busy");
    rerender(<TaskPanel tasks={tasks} finished={false} busy onClear={async () => null} />);
    expect(screen.queryByTestId("task-clear")).toBeNull();
    rerender(<TaskPanel tasks={tasks} finished onClear={async () => null} />);
    expect(screen.queryByTestId("task-clear")).toBeNull();
    rerender(<TaskPanel tasks={[]} finished={false} onClear={async () => null} />);
    expect(screen.queryByTestId("task-clear")).toBeNull();
  });
});

describe("a plan on a model that cannot call tools", () => {
  const handlers = { onApprove: vi.fn(), onRevise: noop, onCancel: noop, onEdit: async () => {} };

  it("says it is a small offline model's draft, points to a provider, and approval stays possible but second", () => {
    const onOpenSettings = vi.fn();
    render(<PlanCard chatId="chat-1" plan={plan()} active planRunning executorCallsTools={false} onOpenSettings={onOpenSettings} {...handlers} />);
    const notice = screen.getByTestId("plan-no-tools");
    expect(notice.textContent).toContain("A draft from the small offline model");
    expect(notice.textContent).toContain("cannot use tools");
    expect(notice.textContent).toContain("Ollama, an OpenAI-compatible server or Anthropic");
    const add = screen.getByTestId("plan-add-provider");
    expect(add.className).toContain("primary");
    fireEvent.click(add);
    expect(onOpenSettings).toHaveBeenCalledTimes(1);
    const approve = screen.getByTestId("approve-plan") as HTMLButtonElement;
    expect(approve.className).not.toContain("primary");
    expect(approve.disabled).toBe(false);
    fireEvent.click(approve);
    expect(handlers.onApprove).toHaveBeenCalledWith(false);
  });

  it("says nothing on a model with tools, nor on an approved plan", () => {
    const { rerender } = render(<PlanCard chatId="chat-1" plan={plan()} active planRunning executorCallsTools {...handlers} />);
    expect(screen.queryByTestId("plan-no-tools")).toBeNull();
    rerender(<PlanCard chatId="chat-1" plan={plan({ approval: "approved" })} active={false} planRunning={false} executorCallsTools={false} {...handlers} />);
    expect(screen.queryByTestId("plan-no-tools")).toBeNull();
  });

  it("comes from the chat's state through the conversation", () => {
    const card = assistant("p1", "plan", { plan: plan() });
    const chat = view([user("u1", "go"), card], "awaiting_approval", plan());
    const { rerender } = render(<Messages state={initialState({ ...chat, state: { ...chat.state, executor_calls_tools: false } }, [])} actions={cardActions()} />);
    expect(screen.getByTestId("plan-no-tools")).toBeTruthy();
    rerender(<Messages state={initialState(chat, [])} actions={cardActions()} />);
    expect(screen.queryByTestId("plan-no-tools")).toBeNull();
  });

  it("in Russian", () => {
    applyLanguage("ru");
    render(<PlanCard chatId="chat-1" plan={plan()} active planRunning executorCallsTools={false} {...handlers} />);
    expect(screen.getByTestId("plan-no-tools").textContent).toBe(
      "Черновик небольшой офлайн-модели: она не умеет вызывать инструменты, поэтому после одобрения шаги не будут выполнены, а задачи в списке так и не отметятся.Чтобы выполнить план, выберите в настройках провайдера с инструментами: Ollama, OpenAI-совместимый сервер или Anthropic.",
    );
  });
});

describe("the completion card's stops and continues", () => {
  function completion(events: Completion["stops_and_continues"]): Completion {
    return {
      summary: "",
      deviations: [],
      adherence: { steps: 1, done_as_planned: 1, modified: 0, dropped: 0, added: 0, in_order: true },
      planned: [{ id: 1, title: "Fix the parser" }],
      tasks: [{ id: 1, title: "Fix the parser", status: "done", origin: "plan" }],
      stops_and_continues: events,
      finished_at: "2026-11-30T10:09:00.000Z",
    };
  }
  const at = "2026-11-30T10:05:00.000Z";
  const events: Completion["stops_and_continues"] = [
    { kind: "stopped", reason: "gate_failed", tasks_left: 2, at },
    { kind: "continued", auto: true, at },
    { kind: "stopped", reason: "gate_failed", tasks_left: 1, at },
    { kind: "continued", auto: false, at },
    { kind: "stopped", reason: "no_progress", tasks_left: 1, at },
    { kind: "continued", auto: false, at },
  ];

  it("names how often it stopped, why, and how often it was continued", () => {
    render(<CompletionCard completion={completion(events)} />);
    expect(screen.getByTestId("completion-stops").textContent).toBe(
      "The executor stopped 3 times with tasks left (a failed check ×2, no progress) · continued 3 times, 1 automatically",
    );
    expect(stopsLine(completion(events.slice(0, 1)))).toBe("The executor stopped 1 time with tasks left (a failed check)");
    expect(stopsLine(completion(events.slice(0, 2)))).toBe("The executor stopped 1 time with tasks left (a failed check) · continued 1 time, 1 automatically");
  });

  it("says nothing when the work ran through", () => {
    render(<CompletionCard completion={completion([])} />);
    expect(screen.queryByTestId("completion-stops")).toBeNull();
  });

  it("in Russian", () => {
    applyLanguage("ru");
    expect(stopsLine(completion(events))).toBe(
      "Исполнитель останавливался, не закончив задачи: 3 раза (проверка не прошла ×2, нет продвижения) · продолжен 3 раза, из них автоматически: 1",
    );
  });
});
