// Where the chat stands around Preflight's own notices and restores: which of the user's
// messages a notice answered (what Plan again / Try again sends again), whether the user has
// spoken since, and whether a restore left tasks open with nothing else offering to go on.
import type { Message } from "../generated/Message";
import type { Task } from "../generated/Task";

type UserMessage = Extract<Message, { role: "user" }>;

/** A message in the user's own words: not an answer to a card, a Continue or a restore. */
function ownWords(message: Message): message is UserMessage {
  return message.role === "user" && !message.plan_answer && !message.resume && !message.restored;
}

/** The user's own message the notice `noticeId` followed, if the loaded page holds it. */
export function askedBefore(messages: Message[], noticeId: string): UserMessage | null {
  const at = messages.findIndex((message) => message.id === noticeId);
  for (let index = at - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (ownWords(message)) return message;
  }
  return null;
}

/** Whether the user wrote again after the notice `noticeId` (then it is history). */
export function userSpokeAfter(messages: Message[], noticeId: string): boolean {
  const at = messages.findIndex((message) => message.id === noticeId);
  return at < 0 || messages.slice(at + 1).some(ownWords);
}

export function openTasks(tasks: Task[]): Task[] {
  return tasks.filter((task) => task.status === "active" || task.status === "pending");
}

/** The chat's last word is a restore and tasks are open again: Continue is the way on. */
export function reopenedByRestore(messages: Message[], tasks: Task[]): boolean {
  const last = messages.at(-1);
  return last?.role === "user" && last.restored !== undefined && openTasks(tasks).length > 0;
}

/** Whether the chat's last message is a notice card saying the failure `code`. */
export function saidByNotice(messages: Message[], code: string): boolean {
  const last = messages.at(-1);
  return last?.role === "assistant" && last.notice !== undefined && "code" in last.notice && last.notice.code === code;
}
