// The final summary shown once (issue 48): the executor's last answer is both a message and the
// completion record's `summary`; the completion card leaves the summary out when the chat's
// last assistant message already says it, and keeps only the facts (adherence, steps, checks).
import type { Message } from "../generated/Message";

function normalised(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Whether the chat's last assistant message with text carries `summary` (equal, or containing it). */
export function summaryShownInChat(summary: string, messages: Message[]): boolean {
  const wanted = normalised(summary);
  if (wanted === "") return true;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.role !== "assistant" || message.questions || message.plan) continue;
    const said = normalised(message.content);
    if (said === "") continue;
    return said.includes(wanted);
  }
  return false;
}
