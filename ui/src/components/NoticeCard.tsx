// Preflight's own notice in the chat (DESIGN §15, never silent): a planner that could not make
// a plan, a provider that refused every request, a fallback to execution. Said in the window's
// language with what happened next and the action that fits; the engine's words folded away.
// A model switched mid-chat is no card but a divider in the conversation (./ModelDivider.tsx).

import type { Message } from "../generated/Message";
import type { Notice } from "../generated/Notice";
import { errorLead } from "../lib/errorText";
import { t } from "../lib/i18n";
import { useAction } from "../lib/useAction";

type AssistantMessage = Extract<Message, { role: "assistant" }>;
/** The notices said as a card. */
export type CardNotice = Exclude<Notice, { kind: "model_switched" }>;

export interface NoticeCardProps {
  message: AssistantMessage & { notice: CardNotice };
  /** The latest notice of a chat that waits for the user: its actions are offered. */
  actionable: boolean;
  /** Asks again for the message the notice answered (the planner plans it anew). */
  onRetry: () => Promise<string | null>;
  onOpenSettings: () => void;
}

/** The card's heading and what happened next, in the window's language. */
export function noticeWords(notice: CardNotice): { title: string; body: string } {
  switch (notice.kind) {
    case "planner_failed":
      return {
        title: t("saidInChat.plannerFailed.title"),
        body: notice.went_on ? t("saidInChat.plannerFailed.wentOn") : t("saidInChat.plannerFailed.stopped"),
      };
    case "provider_refused":
      return { title: errorLead(notice.code), body: t("saidInChat.providerRefused.body") };
    case "questions_left":
      return { title: t("saidInChat.questionsLeft.title"), body: t("saidInChat.questionsLeft.body", { rounds: notice.rounds }) };
  }
}

/** Which actions the notice offers: a notice about the provider points to Settings. */
function actionsOf(notice: CardNotice): { retry: string | null; settings: boolean } {
  switch (notice.kind) {
    case "planner_failed":
      return { retry: t("saidInChat.planAgain"), settings: true };
    case "provider_refused":
      return { retry: t("saidInChat.retry"), settings: true };
    case "questions_left":
      return { retry: null, settings: false };
  }
}

export function NoticeCard({ message, actionable, onRetry, onOpenSettings }: NoticeCardProps) {
  const { sending, error, run: retry } = useAction(onRetry);
  const notice = message.notice;
  const { title, body } = noticeWords(notice);
  const actions = actionsOf(notice);
  return (
    <section class="card notice-card" data-testid="notice-card" data-kind={notice.kind} aria-label={title} data-message-id={message.id}>
      <h3 class="card-title">
        <span class="notice-mark" aria-hidden="true">
          !
        </span>{" "}
        {title}
      </h3>
      <p data-testid="notice-body">{body}</p>
      {(notice.kind === "planner_failed" || notice.kind === "provider_refused") && (
        <details class="notice-detail small">
          <summary>{t("saidInChat.whatWentWrong")}</summary>
          <p class="muted" data-testid="notice-detail">
            {t("errors.withDetail", { lead: errorLead(notice.code), detail: notice.detail })}
          </p>
        </details>
      )}
      {actionable && (actions.retry !== null || actions.settings) && (
        <div class="card-actions">
          {actions.retry !== null && (
            <button type="button" class="primary" data-testid="notice-retry" disabled={sending} aria-busy={sending} onClick={() => void retry()}>
              {actions.retry}
            </button>
          )}
          {actions.settings && (
            <button type="button" data-testid="notice-card-settings" onClick={onOpenSettings}>
              {t("saidInChat.openSettings")}
            </button>
          )}
          {notice.kind === "planner_failed" && notice.went_on && <span class="small muted">{t("saidInChat.planAgainHint")}</span>}
        </div>
      )}
      {error && (
        <p class="error small" role="alert" data-testid="notice-error">
          {error}
        </p>
      )}
    </section>
  );
}
