// What the executor changed in the workspace between two checkpoints (issue 31): a dialog
// with the figures, a note naming the files the checkpoints left out, and each file's diff,
// unified or side by side (the choice is kept for the next diff opened).
import { useEffect, useState } from "preact/hooks";

import type { CheckpointDiff } from "../generated/CheckpointDiff";
import type { LeftOut } from "../generated/LeftOut";
import { asApiError } from "../lib/api";
import { statText } from "../lib/checkpoints";
import { describeError } from "../lib/errorText";
import { t } from "../lib/i18n";
import { humanSize } from "./Attachments";
import { Dialog } from "./Dialog";
import { DiffFile, type DiffMode } from "./DiffFile";

export interface DiffViewProps {
  title: string;
  /** Loads the diff (the engine computes it from the two checkpoints). */
  load: () => Promise<CheckpointDiff>;
  /** Files the checkpoints of the range left out: not in the diff, so named in a note. */
  leftOut: LeftOut[];
  onClose: () => void;
}

const MODE_KEY = "preflight.diffMode";

function storedMode(): DiffMode {
  try {
    return localStorage.getItem(MODE_KEY) === "split" ? "split" : "unified";
  } catch {
    return "unified";
  }
}

function keepMode(mode: DiffMode) {
  try {
    localStorage.setItem(MODE_KEY, mode);
  } catch {
    // No storage: the choice holds while the window is open.
  }
}

type Loaded = { kind: "loading" } | { kind: "diff"; diff: CheckpointDiff } | { kind: "failed"; problem: string };

export function DiffView({ title, load, leftOut, onClose }: DiffViewProps) {
  const [loaded, setLoaded] = useState<Loaded>({ kind: "loading" });
  const [mode, setMode] = useState<DiffMode>(storedMode);
  useEffect(() => {
    let current = true;
    load().then(
      (diff) => current && setLoaded({ kind: "diff", diff }),
      (error: unknown) => current && setLoaded({ kind: "failed", problem: describeError(asApiError(error)) }),
    );
    return () => {
      current = false;
    };
    // One load per dialog: a new range opens a new dialog (App keys it by the range).
  }, []);
  const choose = (next: DiffMode) => {
    setMode(next);
    keepMode(next);
  };
  return (
    <Dialog title={title} testId="diff-view" class="diff-view" onClose={onClose}>
      <div class="diff-toolbar">
        <p class="diff-summary small" data-testid="diff-summary" aria-live="polite">
          {loaded.kind === "loading" && <span class="muted">{t("checkpoints.loadingDiff")}</span>}
          {loaded.kind === "diff" && (
            <>
              <span class="muted">{t("checkpoints.range")}</span>{" "}
              {statText(loaded.diff.stat) ?? t("checkpoints.noChange")}
            </>
          )}
        </p>
        <div class="diff-modes" role="group" aria-label={t("checkpoints.layout")}>
          <button type="button" class="secondary small" data-testid="diff-mode-unified" aria-pressed={mode === "unified"} onClick={() => choose("unified")}>
            {t("checkpoints.unified")}
          </button>
          <button type="button" class="secondary small" data-testid="diff-mode-split" aria-pressed={mode === "split"} onClick={() => choose("split")}>
            {t("checkpoints.split")}
          </button>
        </div>
      </div>
      <p class="small muted" data-testid="diff-caches-note">
        {t("checkpoints.cachesLeftOut")}
      </p>
      {loaded.kind === "failed" && (
        <p class="error small" role="alert" data-testid="diff-error">
          {loaded.problem}
        </p>
      )}
      {leftOut.length > 0 && (
        <div class="diff-left-out small" data-testid="diff-left-out">
          <p>{t("checkpoints.leftOut", { count: leftOut.length })}</p>
          <ul>
            {leftOut.map((file) => (
              <li key={file.path}>
                <code>{file.path}</code> <span class="muted">{t("checkpoints.leftOutWhy", { size: humanSize(file.bytes), reason: file.reason })}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {loaded.kind === "diff" && loaded.diff.truncated && (
        <p class="diff-left-out small" role="note" data-testid="diff-truncated">
          {t("checkpoints.truncated", {
            budget: humanSize(loaded.diff.truncated.budget),
            files: loaded.diff.truncated.files_left_out,
            patches: loaded.diff.truncated.patches_left_out,
            bytes: humanSize(loaded.diff.truncated.bytes_left_out),
          })}
        </p>
      )}
      {loaded.kind === "diff" &&
        (loaded.diff.files.length === 0 ? (
          <p class="muted">{t("checkpoints.noFiles")}</p>
        ) : (
          loaded.diff.files.map((file) => <DiffFile key={`${file.old_path ?? ""}:${file.path}`} file={file} mode={mode} />)
        ))}
    </Dialog>
  );
}
