// The executor stopped with tasks left (`state.stopped`): why, in the window's language (the
// failing check's command, exit code and evidence; the provider's or the loop's specifics as
// the engine said them), the tasks still open, and Continue, which hands them back to the
// executor. Shown at the end of the conversation while no turn runs.

import type { ExecutorStop } from "../generated/ExecutorStop";
import type { StopReason } from "../generated/StopReason";
import { t } from "../lib/i18n";
import { useAction } from "../lib/useAction";

export interface StopCardProps {
  stopped: ExecutorStop;
  /** Continues the work; resolves with the error to show when the engine refused it. */
  onContinue: () => Promise<string | null>;
}

/** Why the executor stopped, in a sentence. */
export function stopReasonText(reason: StopReason): string {
  switch (reason) {
    case "answered":
      return t("stop.reason.answered");
    case "gate_failed":
      return t("stop.reason.gateFailed");
    case "no_progress":
      return t("stop.reason.noProgress");
    case "loop":
      return t("stop.reason.loop");
    case "round_cap":
      return t("stop.reason.roundCap");
    case "provider_error":
      return t("stop.reason.providerError");
    case "user_stop":
      return t("stop.reason.userStop");
    case "interrupted":
      return t("stop.reason.interrupted");
    case "forked":
      return t("stop.reason.forked");
  }
}

/** Why the executor stopped, in a few words (the Continue marker, the completion card). */
export function stopReasonShort(reason: StopReason): string {
  switch (reason) {
    case "answered":
      return t("stop.short.answered");
    case "gate_failed":
      return t("stop.short.gateFailed");
    case "no_progress":
      return t("stop.short.noProgress");
    case "loop":
      return t("stop.short.loop");
    case "round_cap":
      return t("stop.short.roundCap");
    case "provider_error":
      return t("stop.short.providerError");
    case "user_stop":
      return t("stop.short.userStop");
    case "interrupted":
      return t("stop.short.interrupted");
    case "forked":
      return t("stop.short.forked");
  }
}

/** The engine's own words (English) as a second line, in every language, only where they carry
 *  specifics the reason does not (the provider's error, the loop's call): otherwise they would
 *  say the reason a second time. */
export function engineDetail(stopped: ExecutorStop): string | null {
  const text = stopped.text.trim();
  if (text === "") return null;
  const specific = stopped.reason === "provider_error" || stopped.reason === "loop";
  return specific ? text : null;
}

export function StopCard({ stopped, onContinue }: StopCardProps) {
  const { sending, error, run: go } = useAction(onContinue);
  const detail = engineDetail(stopped);
  const gate = stopped.gate;
  return (
    <section class="card stop-card" data-testid="stop-card" data-reason={stopped.reason} aria-label={t("stop.label")}>
      <h3 class="card-title">{t("stop.title")}</h3>
      <p class="stop-reason" data-testid="stop-reason">
        {stopReasonText(stopped.reason)}
      </p>
      {detail !== null && (
        <p class="small muted stop-detail" data-testid="stop-detail">
          {detail}
        </p>
      )}
      {gate && (
        <div class="stop-gate gate failed" data-testid="stop-gate">
          <p class="small">
            <span class="gate-mark">✗</span> {t("stop.gateOf", { task: gate.task })} <code>{gate.command}</code>{" "}
            <span class="muted">{t("gate.exit", { code: gate.exit_code })}</span>
          </p>
          {gate.evidence.trim() !== "" && (
            <pre class="gate-evidence" data-testid="stop-evidence">
              {gate.evidence}
            </pre>
          )}
        </div>
      )}
      {stopped.tasks_left.length > 0 && (
        <>
          <h4>{t("stop.tasksLeft", { count: stopped.tasks_left.length })}</h4>
          <ul class="stop-tasks" data-testid="stop-tasks">
            {stopped.tasks_left.map((task) => (
              <li key={task.id} data-status={task.status}>
                <span class="task-id">{t("stop.taskId", { id: task.id })}</span> {task.title}
              </li>
            ))}
          </ul>
        </>
      )}
      <div class="card-actions">
        <button type="button" class="primary" data-testid="stop-continue" disabled={sending} aria-busy={sending} onClick={() => void go()}>
          {t("stop.continue")}
        </button>
        <span class="small muted">{t("stop.continueHint")}</span>
      </div>
      {error && (
        <p class="error small" role="alert" data-testid="stop-error">
          {error}
        </p>
      )}
    </section>
  );
}
