// The open chat as the window holds it: the stored view (the engine's truth, reloaded after
// each stored change) plus what is live and not stored yet — executor text streaming in,
// tool calls running, the task list from `plan` events, the MCP servers' open questions.
// Pure functions, tested in vitest.
import type { ApiError } from "../generated/ApiError";
import type { ChatView } from "../generated/ChatView";
import type { Elicitation } from "../generated/Elicitation";
import type { Event } from "../generated/Event";
import type { ExecutorStop } from "../generated/ExecutorStop";
import type { Message } from "../generated/Message";
import type { MessagePage } from "../generated/MessagePage";
import type { Phase } from "../generated/Phase";
import type { Task } from "../generated/Task";
import { t } from "./i18n";

export interface LiveTool {
  name: string;
  args: unknown;
  result?: string;
  error?: string;
  done: boolean;
}

export interface ChatState {
  view: ChatView;
  /** Executor text not stored yet, by message id, in arrival order. */
  streaming: { id: string; text: string }[];
  /** Tool calls seen live, by the assistant message that made them. */
  tools: Record<string, LiveTool[]>;
  tasks: Task[];
  /** The list was closed with every task finished: still shown, as complete. */
  tasksFinished: boolean;
  status: string;
  error: ApiError | null;
  /** MCP servers' questions waiting for the user, oldest first (in memory only: not stored). */
  elicitations: Elicitation[];
  /** How many `completion` events arrived while the chat is open: a verdict that came back
   *  from Run the checks again may read exactly as the one before it. */
  completionsHeard?: number;
  /** How far the planner's draft got (its `drafting` events); null when it is not drafting. */
  drafted?: { words: number; looked_at: number } | null;
}

/** The status line of each phase, in the window's language (the engine's `plan_status` text
 *  is its English for the same phase, so the window says it by phase). */
export function statusText(phase: Phase): string {
  switch (phase) {
    case "planning":
      return t("status.planning");
    case "questions":
      return t("status.questions");
    case "awaiting_approval":
      return t("status.awaitingApproval");
    case "executing":
      return t("status.executing");
    case "idle":
      return "";
  }
}

/** How far the planner's draft got, in words (after the status line). */
export function draftedText(drafted: ChatState["drafted"]): string {
  if (!drafted) return "";
  const words = t("status.draftedWords", { count: drafted.words });
  return drafted.looked_at > 0 ? `${words} · ${t("status.draftedLooks", { count: drafted.looked_at })}` : words;
}

/**
 * A chat as it is opened. A plan whose tasks all finished has no live list any more (the
 * engine closes it); its completion record keeps the list as it ended, shown as finished,
 * as the panel showed it when the last task closed.
 */
export function initialState(view: ChatView, tasks: Task[], elicitations: Elicitation[] = []): ChatState {
  const ended = tasks.length === 0 ? (view.state.completion?.tasks ?? []) : [];
  const shown = ended.length > 0 ? ended : tasks;
  return { view, streaming: [], tools: {}, tasks: shown, tasksFinished: ended.length > 0, status: statusText(view.state.phase), error: null, elicitations };
}

/** The open questions as the engine lists them (after a reload or a resync). */
export function withElicitations(state: ChatState, elicitations: Elicitation[]): ChatState {
  return { ...state, elicitations };
}

function isStored(view: ChatView, id: string): boolean {
  return view.messages.some((message) => message.id === id);
}

/** Executor tokens: appended to their message unless it is already stored. */
export function applyDelta(state: ChatState, messageId: string, text: string): ChatState {
  if (isStored(state.view, messageId)) return state;
  const index = state.streaming.findIndex((entry) => entry.id === messageId);
  const streaming = state.streaming.slice();
  if (index === -1) streaming.push({ id: messageId, text });
  else streaming[index] = { id: messageId, text: streaming[index]!.text + text };
  return { ...state, streaming };
}

/** A newer stored view: live text and tool calls of messages now stored are dropped (the
 *  stored message shows them); those of messages not stored yet stay. */
export function withView(state: ChatState, view: ChatView): ChatState {
  const streaming = state.streaming.filter((entry) => !isStored(view, entry.id));
  const tools = Object.fromEntries(Object.entries(state.tools).filter(([id]) => !isStored(view, id)));
  return { ...state, view, streaming, tools, status: statusText(view.state.phase) };
}

/** The page of older messages (the list scrolled up) put before those shown, each once; the
 *  view's cursor moves to the page's. */
export function withOlder(state: ChatState, page: MessagePage): ChatState {
  const shown = new Set(state.view.messages.map((message) => message.id));
  const older = page.data.filter((message) => !shown.has(message.id));
  const view: ChatView = { ...state.view, messages: [...older, ...state.view.messages] };
  if (page.next_cursor === null) delete view.messages_cursor;
  else view.messages_cursor = page.next_cursor;
  return { ...state, view };
}

/**
 * Orders the engine's snapshots of the chat (the views a reload, an action or a turn's end
 * reads): each is numbered when it is asked for and shown only if no snapshot asked for
 * later has been shown. A command's answer and the chat's events reach the window by
 * different paths (the answer over the IPC protocol, events as scripts the shell runs in the
 * page), so an action's view, read while the turn it started ran, can land after the turn's
 * last event and the reload that followed it.
 */
export class SnapshotOrder {
  private asked = 0;
  private shown = 0;

  /** The number of a snapshot about to be asked for. */
  ask(): number {
    this.asked += 1;
    return this.asked;
  }

  /** Whether snapshot `ticket` is newer than every one shown; if so it is now the shown one. */
  show(ticket: number): boolean {
    if (ticket <= this.shown) return false;
    this.shown = ticket;
    return true;
  }
}

function upsertMessage(view: ChatView, message: Message): ChatView {
  const index = view.messages.findIndex((existing) => existing.id === message.id);
  const messages = view.messages.slice();
  if (index === -1) messages.push(message);
  else messages[index] = message;
  return { ...view, messages };
}

function applyTool(tools: Record<string, LiveTool[]>, event: Extract<Event, { type: "tool" }>): Record<string, LiveTool[]> {
  const list = (tools[event.message_id] ?? []).slice();
  const finished = event.result !== undefined || event.error !== undefined;
  const pending = finished ? list.findIndex((tool) => !tool.done && tool.name === event.name) : -1;
  const tool: LiveTool = { name: event.name, args: event.args, result: event.result, error: event.error, done: finished };
  if (pending === -1) list.push(tool);
  else list[pending] = tool;
  return { ...tools, [event.message_id]: list };
}

/** The task list as the engine has it now (a `plan` event, or the task panel re-read at a
 *  turn's end): a list closed with every task finished stays shown, as complete. */
export function withTasks(state: ChatState, tasks: Task[]): ChatState {
  if (tasks.length > 0) return { ...state, tasks, tasksFinished: false };
  const finished = state.tasks.length > 0 && state.tasks.every((task) => task.status === "done" || task.status === "dropped");
  return finished ? { ...state, tasksFinished: true } : { ...state, tasks: [], tasksFinished: false };
}

/** The view with `state.stopped` (the stop card) set or cleared. */
function withStopped(view: ChatView, stopped: ExecutorStop | null): ChatView {
  return { ...view, state: { ...view.state, stopped } };
}

/** Every event but `delta`. */
export function applyEvent(state: ChatState, event: Event): ChatState {
  switch (event.type) {
    case "delta":
      return applyDelta(state, event.message_id, event.text);
    case "plan_status":
      return { ...state, status: statusText(event.phase), drafted: null, view: { ...state.view, state: { ...state.view.state, phase: event.phase } } };
    case "drafting":
      return { ...state, drafted: { words: event.words, looked_at: event.looked_at } };
    case "message": {
      const view = upsertMessage(state.view, event.message);
      // A Continue or a typed message: the work goes on, as the engine has it.
      const goesOn = event.message.role === "user" && view.state.stopped !== null;
      return {
        ...state,
        view: goesOn ? withStopped(view, null) : view,
        streaming: state.streaming.filter((entry) => entry.id !== event.message.id),
      };
    }
    case "tool":
      return { ...state, tools: applyTool(state.tools, event) };
    case "plan": {
      const next = withTasks(state, event.tasks);
      // The list cleared (or closed): there is nothing left to continue.
      return event.tasks.length === 0 && next.view.state.stopped !== null ? { ...next, view: withStopped(next.view, null) } : next;
    }
    case "executor_stopped":
      return { ...state, view: withStopped(state.view, event.stopped) };
    case "plan_change": {
      const changes = state.view.state.changes.filter((change) => change.id !== event.change.id).concat(event.change);
      changes.sort((a, b) => (a.requested_at < b.requested_at ? -1 : a.requested_at > b.requested_at ? 1 : 0));
      return { ...state, view: { ...state.view, state: { ...state.view.state, changes } } };
    }
    case "completion":
      return { ...state, completionsHeard: (state.completionsHeard ?? 0) + 1, view: { ...state.view, state: { ...state.view.state, completion: event.completion } } };
    case "error":
      return { ...state, error: { code: event.code, message: event.message } };
    case "elicitation": {
      const others = state.elicitations.filter((open) => open.id !== event.elicitation.id);
      return { ...state, elicitations: [...others, event.elicitation] };
    }
    case "elicitation_closed":
      return { ...state, elicitations: state.elicitations.filter((open) => open.id !== event.id) };
  }
}

export type Card = { kind: "questions" | "plan"; id: string };

/** The card the user can act on now, if any: only the latest card, in its phase. */
export function activeCard(view: ChatView): Card | null {
  const phase = view.state.phase;
  for (let index = view.messages.length - 1; index >= 0; index -= 1) {
    const message = view.messages[index]!;
    if (message.role !== "assistant") continue;
    if (message.questions) return phase === "questions" ? { kind: "questions", id: message.id } : null;
    if (message.plan) {
      const pending = view.state.plan?.approval === "pending";
      return phase === "awaiting_approval" && pending ? { kind: "plan", id: message.id } : null;
    }
  }
  return null;
}

/** Whether a turn runs in this phase (the planner's or the executor's); any other phase
 *  is where a turn ended and the user acts. */
export function turnRunning(phase: Phase): boolean {
  return phase === "planning" || phase === "executing";
}

/** Whether plan mode is under way (a card or the planner): "Cancel plan" applies. */
export function planInProgress(phase: Phase): boolean {
  return phase === "planning" || phase === "questions" || phase === "awaiting_approval";
}

/** Done out of all, for the task panel's "3 of 7 done". */
export function taskCounts(tasks: Task[]): { done: number; dropped: number; total: number } {
  return {
    done: tasks.filter((task) => task.status === "done").length,
    dropped: tasks.filter((task) => task.status === "dropped").length,
    total: tasks.length,
  };
}
