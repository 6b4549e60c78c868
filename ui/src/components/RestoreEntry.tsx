// A restore in the conversation (issue 31): the workspace went back to a checkpoint. Stored
// as a user message whose content is what the model reads, so, like a Continue, it is shown
// as a marker, not as typed words, with the files written back, deleted and kept folded away.

import type { Message } from "../generated/Message";
import type { Task } from "../generated/Task";
import { t } from "../lib/i18n";
import { useAction } from "../lib/useAction";

type UserMessage = Extract<Message, { role: "user" }>;

function FileList({ heading, paths }: { heading: string; paths: string[] }) {
  if (paths.length === 0) return null;
  return (
    <>
      <h4>{heading}</h4>
      <ul class="restore-entry-files">
        {paths.map((path) => (
          <li key={path}>
            <code>{path}</code>
          </li>
        ))}
      </ul>
    </>
  );
}

/** The marker's line: the checkpoint, and the task it went back to before, when there is one. */
export function restoreLabel(message: UserMessage, taskTitle?: string): string {
  const restored = message.restored!;
  if (restored.before_task === undefined) return t("checkpoints.entry", { n: restored.checkpoint });
  if (taskTitle) return t("checkpoints.entryBeforeTitled", { n: restored.checkpoint, task: restored.before_task, title: taskTitle });
  return t("checkpoints.entryBefore", { n: restored.checkpoint, task: restored.before_task });
}

export function RestoreEntry({ message, taskTitle }: { message: UserMessage; taskTitle?: string }) {
  const restored = message.restored!;
  return (
    <details class="continue-marker restore-entry" data-testid="restore-entry" data-checkpoint={restored.checkpoint} data-message-id={message.id}>
      <summary>
        <span class="compaction-rule" aria-hidden="true" />
        <span class="continue-label">↺ {restoreLabel(message, taskTitle)}</span>
        <span class="continue-reason small">
          {t("checkpoints.entryFigures", { written: restored.written.length, deleted: restored.deleted.length, kept: restored.kept.length })}
        </span>
        <span class="compaction-rule" aria-hidden="true" />
      </summary>
      <FileList heading={t("checkpoints.written", { count: restored.written.length })} paths={restored.written} />
      <FileList heading={t("checkpoints.deleted", { count: restored.deleted.length })} paths={restored.deleted} />
      <FileList heading={t("checkpoints.kept", { count: restored.kept.length })} paths={restored.kept} />
      <p class="small muted">{t("checkpoints.entryHint")}</p>
      <pre class="continue-content">{message.content}</pre>
    </details>
  );
}

/** After a restore that left tasks open: the way on from there, as a stop card offers it. */
export function RestoreContinue({ open, onContinue }: { open: Task[]; onContinue: () => Promise<string | null> }) {
  const { sending, error, run: go } = useAction(onContinue);
  return (
    <section class="card restore-continue" data-testid="restore-continue" aria-label={t("checkpoints.reopenedTitle", { count: open.length })}>
      <h3 class="card-title">{t("checkpoints.reopenedTitle", { count: open.length })}</h3>
      <ul class="stop-tasks">
        {open.map((task) => (
          <li key={task.id} data-status={task.status}>
            <span class="task-id">{t("stop.taskId", { id: task.id })}</span> {task.title}
          </li>
        ))}
      </ul>
      <div class="card-actions">
        <button type="button" class="primary" data-testid="restore-continue-button" disabled={sending} aria-busy={sending} onClick={() => void go()}>
          {t("stop.continue")}
        </button>
        <span class="small muted">{t("checkpoints.reopenedHint")}</span>
      </div>
      {error && (
        <p class="error small" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
