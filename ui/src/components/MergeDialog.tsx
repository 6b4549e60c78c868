// Merge (DESIGN §18): what merging the chat's branch into the branch it came from would
// change, asked of the engine before anything happens (the files, any conflicts, files the
// user changed in their own checkout, the commit message), as a merge commit or one squashed
// commit; Merge is offered only when the preview says it can go ahead. Nothing changes until
// the user clicks it; a refusal then says why, and nothing changed.
import { useEffect, useState } from "preact/hooks";

import type { MergeMode } from "../generated/MergeMode";
import type { MergeOutcome } from "../generated/MergeOutcome";
import type { MergeRequest } from "../generated/MergeRequest";
import { asApiError } from "../lib/api";
import { statText } from "../lib/checkpoints";
import { describeError } from "../lib/errorText";
import { t } from "../lib/i18n";
import { Dialog } from "./Dialog";
import { DiffFile } from "./DiffFile";

export interface MergeDialogProps {
  branch: string;
  merge: (request: MergeRequest) => Promise<MergeOutcome>;
  /** After a merge: the chat changed (its worktree is merged). */
  onMerged: (outcome: MergeOutcome) => void;
  onClose: () => void;
}

type Shown = { kind: "loading" } | { kind: "preview"; outcome: MergeOutcome } | { kind: "failed"; problem: string };

export function MergeDialog({ branch, merge, onMerged, onClose }: MergeDialogProps) {
  const [mode, setMode] = useState<MergeMode>("merge");
  const [shown, setShown] = useState<Shown>({ kind: "loading" });
  const [merging, setMerging] = useState(false);
  const [refused, setRefused] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    setShown({ kind: "loading" });
    merge({ mode, preview: true }).then(
      (outcome) => current && setShown({ kind: "preview", outcome }),
      (error: unknown) => current && setShown({ kind: "failed", problem: describeError(asApiError(error)) }),
    );
    return () => {
      current = false;
    };
  }, [mode]);
  const confirm = async () => {
    setMerging(true);
    setRefused(null);
    try {
      // The preview's digest goes back: a merge of anything else than what was shown is refused.
      const digest = shown.kind === "preview" ? shown.outcome.digest : undefined;
      onMerged(await merge({ mode, preview: false, digest }));
    } catch (error: unknown) {
      setRefused(describeError(asApiError(error)));
    } finally {
      setMerging(false);
    }
  };
  const preview = shown.kind === "preview" ? shown.outcome : null;
  return (
    <Dialog title={t("merge.title", { branch })} testId="merge-dialog" class="merge-dialog" onClose={onClose}>
      <fieldset class="merge-modes">
        <legend class="small muted">{t("merge.how")}</legend>
        <label class="check">
          <input type="radio" name="merge-mode" data-testid="merge-mode-merge" checked={mode === "merge"} onChange={() => setMode("merge")} />
          {t("merge.modeMerge")}
        </label>
        <label class="check">
          <input type="radio" name="merge-mode" data-testid="merge-mode-squash" checked={mode === "squash"} onChange={() => setMode("squash")} />
          {t("merge.modeSquash")}
        </label>
      </fieldset>
      {shown.kind === "loading" && <p class="muted">{t("merge.checking")}</p>}
      {shown.kind === "failed" && (
        <p class="error" role="alert" data-testid="merge-error">
          {shown.problem}
        </p>
      )}
      {preview && <PreviewBody preview={preview} />}
      {refused !== null && (
        <p class="error" role="alert" data-testid="merge-refused">
          {refused}
        </p>
      )}
      <div class="card-actions">
        <button type="button" class="primary" data-testid="merge-confirm" disabled={!preview?.can_merge || merging} aria-busy={merging} onClick={() => void confirm()}>
          {merging ? t("merge.merging") : t("merge.confirm", { base: preview?.base ?? "" })}
        </button>
        <button type="button" class="secondary" data-testid="merge-cancel" disabled={merging} onClick={onClose}>
          {t("merge.cancel")}
        </button>
      </div>
    </Dialog>
  );
}

/** What the preview found: why it cannot go ahead, or what it would do. */
function PreviewBody({ preview }: { preview: MergeOutcome }) {
  return (
    <div data-testid="merge-preview">
      {preview.nothing_to_merge && <p class="muted" data-testid="merge-nothing">{t("merge.nothing", { base: preview.base })}</p>}
      {preview.conflicts.length > 0 && (
        <div class="error small" role="alert" data-testid="merge-conflicts">
          <p>{t("merge.conflicts", { count: preview.conflicts.length, base: preview.base })}</p>
          <ul>
            {preview.conflicts.map((file) => (
              <li key={file}>
                <code>{file}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {preview.checkout_changed.length > 0 && (
        <div class="error small" role="alert" data-testid="merge-checkout-changed">
          <p>{t("merge.checkoutChanged", { count: preview.checkout_changed.length, base: preview.base })}</p>
          <ul>
            {preview.checkout_changed.map((file) => (
              <li key={file}>
                <code>{file}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {!preview.nothing_to_merge && (
        <>
          <p class="small" data-testid="merge-summary">
            {t("merge.into", { base: preview.base })} {statText(preview.stat) ?? t("worktree.noChanges")}
          </p>
          <p class="small muted">{t("merge.message")}</p>
          <pre class="merge-message" data-testid="merge-message">
            {preview.message}
          </pre>
          {/* The work's files open; the plan folder's records (Preflight's own) folded. */}
          {preview.files.map((file) => (
            <DiffFile key={`${file.old_path ?? ""}:${file.path}`} file={file} mode="unified" open={!file.path.startsWith(".dwp/")} />
          ))}
        </>
      )}
    </div>
  );
}
