// The small parts of Fork in the window (DESIGN §15): a message's "Fork from here", the line
// in a forked chat that says where it came from and what became of its files (the engine's
// notice, in the user's language), and the sidebar's "Forked from ‹title›".
import type { ForkedFrom } from "../generated/ForkedFrom";
import { filesText } from "../lib/fork";
import { t } from "../lib/i18n";

/** "Fork from here" on a message: a new chat with the conversation up to it. */
export function ForkButton({ messageId, onFork }: { messageId: string; onFork: (messageId: string) => void }) {
  return (
    <button type="button" class="fork-message" data-testid="fork-message" aria-label={t("fork.fromHere")} title={t("fork.fromHereHint")} onClick={() => onFork(messageId)}>
      <span aria-hidden="true">⑂</span>
    </button>
  );
}

/** The fork's own notice: where it came from and what became of the files. */
export function ForkNotice({ from, messageId }: { from: ForkedFrom; messageId: string }) {
  return (
    <p class="fork-notice small" role="note" data-testid="fork-notice" data-message-id={messageId}>
      <span aria-hidden="true">⑂ </span>
      {from.files ? filesText(from, from.files) : t("fork.forkedFrom", { title: from.title })}
    </p>
  );
}

/** Under a forked chat's title in the sidebar. */
export function ForkedFromLine({ from }: { from: ForkedFrom }) {
  return (
    <span class="forked-from small muted" data-testid="forked-from" title={t("fork.forkedFromHint", { title: from.title })}>
      <span aria-hidden="true">⑂ </span>
      {t("fork.forkedFrom", { title: from.title })}
    </span>
  );
}
