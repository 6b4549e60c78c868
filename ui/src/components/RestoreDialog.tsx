// "Restore to before this task" and "Undo the last turn" (issue 31): first what the restore
// would do, as the engine previews it — the files it writes back and deletes, the tasks that
// open again — with the files the user changed since the latest checkpoint named apart and
// kept unless "Overwrite my changes too" is ticked; then Restore, or the refusal on the dialog.
import { useEffect, useState } from "preact/hooks";

import type { RestorePreview } from "../generated/RestorePreview";
import { asApiError } from "../lib/api";
import { describeError } from "../lib/errorText";
import { t } from "../lib/i18n";
import { Dialog } from "./Dialog";

export interface RestoreDialogProps {
  title: string;
  /** What the restore would do; nothing is changed yet. */
  load: () => Promise<RestorePreview>;
  /** Restores as the shown preview (its `digest`: the engine refuses a plan changed since);
   *  resolves with the error to show when the engine refused. */
  onConfirm: (overwrite: boolean, digest: string) => Promise<string | null>;
  /** A turn runs: the engine refuses a restore meanwhile. */
  busy: boolean;
  /** A task's title by id, when the list still has it. */
  taskTitle: (id: number) => string | undefined;
  onClose: () => void;
}

function Files({ testId, heading, paths }: { testId: string; heading: string; paths: string[] }) {
  if (paths.length === 0) return null;
  return (
    <section class="restore-files" data-testid={testId}>
      <h3>{heading}</h3>
      <ul>
        {paths.map((path) => (
          <li key={path}>
            <code>{path}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Preview({ preview, overwrite, onOverwrite, taskTitle }: { preview: RestorePreview; overwrite: boolean; onOverwrite: (on: boolean) => void; taskTitle: RestoreDialogProps["taskTitle"] }) {
  const mine = new Set(preview.user_changed);
  const writes = preview.writes.filter((path) => !mine.has(path));
  const deletes = preview.deletes.filter((path) => !mine.has(path));
  return (
    <div class="restore-preview" data-testid="restore-preview">
      <p>{t("checkpoints.restoreTo", { n: preview.to })}</p>
      <Files testId="restore-writes" heading={t("checkpoints.writes", { count: writes.length })} paths={writes} />
      <Files testId="restore-deletes" heading={t("checkpoints.deletes", { count: deletes.length })} paths={deletes} />
      {writes.length + deletes.length + mine.size === 0 && <p class="muted">{t("checkpoints.nothingToRestore")}</p>}
      {mine.size > 0 && (
        <div class={`restore-mine ${overwrite ? "overwritten" : "kept"}`}>
          <Files
            testId="restore-user-changed"
            heading={overwrite ? t("checkpoints.userChangedOverwritten", { count: mine.size }) : t("checkpoints.userChangedKept", { count: mine.size })}
            paths={preview.user_changed}
          />
          <label class="check">
            <input type="checkbox" data-testid="restore-overwrite" checked={overwrite} onChange={(event) => onOverwrite(event.currentTarget.checked)} />{" "}
            {t("checkpoints.overwrite")}
          </label>
        </div>
      )}
      {preview.reopens.length > 0 && (
        <section class="restore-files" data-testid="restore-reopens">
          <h3>{t("checkpoints.reopens", { count: preview.reopens.length })}</h3>
          <ul>
            {preview.reopens.map((id) => (
              <li key={id}>
                <span class="task-id">{t("stop.taskId", { id })}</span> {taskTitle(id) ?? ""}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

type Loaded = { kind: "loading" } | { kind: "preview"; preview: RestorePreview } | { kind: "failed"; problem: string };

export function RestoreDialog({ title, load, onConfirm, busy, taskTitle, onClose }: RestoreDialogProps) {
  const [loaded, setLoaded] = useState<Loaded>({ kind: "loading" });
  const [overwrite, setOverwrite] = useState(false);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    load().then(
      (preview) => current && setLoaded({ kind: "preview", preview }),
      (problem: unknown) => current && setLoaded({ kind: "failed", problem: describeError(asApiError(problem)) }),
    );
    return () => {
      current = false;
    };
    // One preview per dialog: another checkpoint opens another dialog (App keys it).
  }, []);
  const confirm = async () => {
    if (sending || loaded.kind !== "preview") return;
    setSending(true);
    setError(null);
    try {
      const { preview } = loaded;
      const refused = await onConfirm(overwrite && preview.user_changed.length > 0, preview.digest);
      if (refused === null) onClose();
      else setError(refused);
    } finally {
      setSending(false);
    }
  };
  const problem = error ?? (loaded.kind === "failed" ? loaded.problem : null);
  return (
    <Dialog title={title} testId="restore-dialog" class="restore-dialog" onClose={onClose}>
      {loaded.kind === "loading" && <p class="muted">{t("checkpoints.loadingPreview")}</p>}
      {loaded.kind === "preview" && <Preview preview={loaded.preview} overwrite={overwrite} onOverwrite={setOverwrite} taskTitle={taskTitle} />}
      {problem !== null && (
        <p class="error small" role="alert" data-testid="restore-error">
          {problem}
        </p>
      )}
      <div class="card-actions">
        <button type="button" class="primary" data-testid="restore-confirm" disabled={busy || sending || loaded.kind !== "preview"} aria-busy={sending} onClick={() => void confirm()}>
          {t("checkpoints.confirm")}
        </button>
        <button type="button" class="secondary" data-testid="restore-cancel" disabled={sending} onClick={onClose}>
          {t("checkpoints.cancel")}
        </button>
        {busy && <span class="small muted">{t("checkpoints.busy")}</span>}
      </div>
    </Dialog>
  );
}
