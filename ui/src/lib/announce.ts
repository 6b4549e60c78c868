// What changed in the chat, in words for a screen reader's polite live region (issue 48): a
// task's state ("Task 2 done: Write tests"), a new card (questions, a plan to approve, a
// change asked, a stop, the completion), an answer starting and finishing — never the whole
// chat. Two snapshots of the chat are compared; the first one of a chat says nothing. Pure.
import type { Task } from "../generated/Task";
import type { StopReason } from "../generated/StopReason";
import { activeCard, type ChatState } from "./chatState";
import { t } from "./i18n";

export interface ChatSnapshot {
  chat: string;
  tasks: Task[];
  card: string | null;
  questions: number;
  planTitle: string;
  changes: string[];
  stopped: { at: string; reason: StopReason } | null;
  completion: string | null;
  streaming: string[];
  /** Stored assistant messages with text, by id. */
  answers: Map<string, string>;
  elicitations: string[];
}

export function snapshotOf(state: ChatState): ChatSnapshot {
  const { view } = state;
  const card = activeCard(view);
  const cardMessage = card ? view.messages.find((message) => message.id === card.id) : undefined;
  const answers = new Map<string, string>();
  for (const message of view.messages) {
    if (message.role === "assistant" && !message.questions && !message.plan && message.content.trim() !== "") answers.set(message.id, message.content);
  }
  return {
    chat: view.id,
    tasks: state.tasks,
    card: card ? `${card.kind}:${card.id}` : null,
    questions: cardMessage?.role === "assistant" ? (cardMessage.questions?.length ?? 0) : 0,
    planTitle: view.state.plan?.title ?? "",
    changes: view.state.changes.filter((change) => change.status === "pending").map((change) => change.id),
    stopped: view.state.stopped ? { at: view.state.stopped.at, reason: view.state.stopped.reason } : null,
    completion: view.state.completion?.finished_at ?? null,
    streaming: state.streaming.map((entry) => entry.id),
    answers,
    elicitations: state.elicitations.map((elicitation) => elicitation.id),
  };
}

/** A stored answer, cut to about a sentence or two for reading out. */
function gist(text: string): string {
  const plain = text.replace(/[`*_#>]+/g, "").replace(/\s+/g, " ").trim();
  return plain.length > 160 ? `${plain.slice(0, 159)}…` : plain;
}

function taskChange(before: Task | undefined, after: Task): string | null {
  if (before?.status === after.status) return null;
  const values = { id: after.id, title: after.title };
  switch (after.status) {
    case "done":
      return t("announce.taskDone", values);
    case "active":
      return t("announce.taskStarted", values);
    case "dropped":
      return t("announce.taskDropped", values);
    case "pending":
      return before ? t("announce.taskReopened", values) : null;
  }
}

/** What changed from `before` to `after`, each in one sentence; nothing across chats. */
export function announcements(before: ChatSnapshot, after: ChatSnapshot, reason: (stop: StopReason) => string): string[] {
  if (before.chat !== after.chat) return [];
  const out: string[] = [];
  const previous = new Map(before.tasks.map((task) => [task.id, task]));
  if (before.tasks.length === 0 && after.tasks.length > 0) out.push(t("announce.taskList", { count: after.tasks.length }));
  else for (const task of after.tasks) {
    const said = taskChange(previous.get(task.id), task);
    if (said) out.push(said);
  }
  if (after.card !== before.card && after.card !== null) {
    out.push(after.card.startsWith("questions:") ? t("announce.questions", { count: after.questions }) : t("announce.plan", { title: after.planTitle }));
  }
  if (after.changes.some((id) => !before.changes.includes(id))) out.push(t("announce.change"));
  if (after.elicitations.some((id) => !before.elicitations.includes(id))) out.push(t("announce.elicitation"));
  if (after.streaming.some((id) => !before.streaming.includes(id))) out.push(t("announce.answering"));
  for (const [id, text] of after.answers) {
    if (!before.answers.has(id)) out.push(t("announce.answered", { text: gist(text) }));
  }
  if (after.stopped && after.stopped.at !== before.stopped?.at) out.push(t("announce.stopped", { reason: reason(after.stopped.reason) }));
  if (after.completion && after.completion !== before.completion) out.push(t("announce.completed"));
  return out;
}
