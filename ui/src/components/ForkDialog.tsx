// "Fork from before this task" (DESIGN §15): what the fork holds, and the two ways its files
// can go, each said in words before anything happens — a copy of the checkpoint's files in an
// empty folder the user chooses (the native dialog), which becomes the fork's workspace, or
// this chat's workspace shared as it is now. The new chat opens once it is made.
import { useState } from "preact/hooks";

import { t } from "../lib/i18n";
import { Dialog } from "./Dialog";

export interface ForkDialogProps {
  title: string;
  checkpoint: number;
  /** This chat's workspace, which a shared fork works in. */
  workspace: string | null;
  /** Forks with the files copied into a folder the user chooses; the error to show, or null
   *  (forked, or the folder dialog cancelled). */
  onCopy: () => Promise<string | null>;
  /** Forks sharing the workspace; the error to show, or null. */
  onShare: () => Promise<string | null>;
  onClose: () => void;
}

export function ForkDialog({ title, checkpoint, workspace, onCopy, onShare, onClose }: ForkDialogProps) {
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const act = async (fork: () => Promise<string | null>) => {
    if (sending) return;
    setSending(true);
    setError(null);
    try {
      setError(await fork());
    } finally {
      setSending(false);
    }
  };
  return (
    <Dialog title={title} testId="fork-dialog" class="fork-dialog" onClose={onClose}>
      <p>{t("fork.intro", { n: checkpoint })}</p>
      <section class="fork-choice">
        <h3>{t("fork.copyTitle")}</h3>
        <p class="small">{t("fork.copyText")}</p>
        <button type="button" class="primary" data-testid="fork-copy" disabled={sending} aria-busy={sending} onClick={() => void act(onCopy)}>
          {t("fork.copyButton")}
        </button>
      </section>
      {workspace !== null && (
        <section class="fork-choice">
          <h3>{t("fork.shareTitle")}</h3>
          <p class="small">{t("fork.shareText", { workspace })}</p>
          <button type="button" class="secondary" data-testid="fork-share" disabled={sending} onClick={() => void act(onShare)}>
            {t("fork.shareButton")}
          </button>
        </section>
      )}
      {error !== null && (
        <p class="error small" role="alert" data-testid="fork-error">
          {error}
        </p>
      )}
      <div class="card-actions">
        <button type="button" class="secondary" data-testid="fork-cancel" disabled={sending} onClick={onClose}>
          {t("fork.cancel")}
        </button>
      </div>
    </Dialog>
  );
}
