// A chat in its own git worktree (DESIGN §18), in the header where the workspace folder is
// otherwise: the repository it came from, its branch and the branch it started from, what
// it changed so far, and what the user may do with it: see the changes, Merge (with its
// preview), Keep as branch, or Recreate a folder that is gone.
import { useEffect, useState } from "preact/hooks";

import type { Chat } from "../generated/Chat";
import type { MergeOutcome } from "../generated/MergeOutcome";
import type { MergeRequest } from "../generated/MergeRequest";
import type { Worktree } from "../generated/Worktree";
import type { WorktreeView } from "../generated/WorktreeView";
import { asApiError } from "../lib/api";
import { statText } from "../lib/checkpoints";
import { describeError } from "../lib/errorText";
import { t } from "../lib/i18n";
import { DiffView } from "./DiffView";
import { MergeDialog } from "./MergeDialog";

export interface WorktreeBarProps {
  chat: Chat & { worktree: Worktree };
  /** A turn runs: Merge and Keep wait for its end. */
  busy: boolean;
  /** Reads the worktree's diff (again after every turn: `refreshKey` changes). */
  load: () => Promise<WorktreeView>;
  refreshKey: string;
  onShowChanges: () => void;
  onMerge: () => void;
  onKeep: () => void;
  onRecreate: () => void;
}

/** The folder's last part: the repository's name as the user knows it. */
function folderName(path: string): string {
  const parts = path.split("/").filter((part) => part !== "");
  return parts[parts.length - 1] ?? path;
}

export function WorktreeBar({ chat, busy, load, refreshKey, onShowChanges, onMerge, onKeep, onRecreate }: WorktreeBarProps) {
  const worktree = chat.worktree;
  const [view, setView] = useState<WorktreeView | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    load().then(
      (loaded) => {
        if (!current) return;
        setView(loaded);
        setProblem(null);
      },
      (error: unknown) => current && setProblem(describeError(asApiError(error))),
    );
    return () => {
      current = false;
    };
  }, [chat.id, refreshKey]);
  const state = worktree.state.state;
  const missing = view?.missing === true;
  const kept = state === "kept";
  const from = worktree.base_branch ? t("worktree.from", { branch: worktree.base_branch }) : t("worktree.fromDetached", { commit: worktree.base_commit.slice(0, 8) });
  return (
    <div class="worktree-bar" data-testid="worktree-bar" data-state={missing ? "missing" : state}>
      <span class="worktree-where" title={worktree.repository}>
        <span class="muted">{t("worktree.label")}</span> <strong>{folderName(worktree.repository)}</strong>
      </span>
      <code class="worktree-branch" data-testid="worktree-branch" title={worktree.path}>
        {worktree.branch}
      </code>
      <span class="muted small">{from}</span>
      <span class="worktree-status small" data-testid="worktree-status" aria-live="polite">
        {statusText(state, worktree, view, missing)}
      </span>
      {problem !== null && (
        <span class="error small" role="alert">
          {problem}
        </span>
      )}
      <span class="worktree-actions">
        {(missing || kept) && (
          <button type="button" class="secondary small" data-testid="worktree-recreate" onClick={onRecreate}>
            {t("worktree.recreate")}
          </button>
        )}
        {!missing && !kept && (
          <>
            <button type="button" class="secondary small" data-testid="worktree-changes" onClick={onShowChanges}>
              {t("worktree.changes")}
            </button>
            <button
              type="button"
              class="small"
              data-testid="worktree-merge"
              disabled={busy || !worktree.base_branch}
              title={busy ? t("worktree.busy") : worktree.base_branch ? t("worktree.mergeHint") : t("worktree.detachedHint")}
              onClick={onMerge}
            >
              {t("worktree.merge")}
            </button>
            <button type="button" class="secondary small" data-testid="worktree-keep" disabled={busy} title={busy ? t("worktree.busy") : t("worktree.keepHint")} onClick={onKeep}>
              {t("worktree.keep")}
            </button>
          </>
        )}
      </span>
    </div>
  );
}

/** Where the worktree stands, in words. */
function statusText(state: string, worktree: Worktree, view: WorktreeView | null, missing: boolean): string {
  if (missing) return t("worktree.missing");
  if (state === "kept") return t("worktree.kept", { branch: worktree.branch });
  const changed = view ? (statText(view.stat) ?? t("worktree.noChanges")) : t("worktree.reading");
  if (worktree.state.state === "merged") return `${t("worktree.merged", { branch: worktree.base_branch ?? "" })} · ${changed}`;
  return changed;
}

export interface WorktreeSectionProps {
  chat: Chat & { worktree: Worktree };
  busy: boolean;
  /** Changes after each turn and each action: the diff is read again. */
  refreshKey: string;
  /** Runs an action the way the window runs every action (its error in the banner). */
  run: (action: () => Promise<unknown>, after?: () => void) => Promise<boolean>;
  /** The chat changed (merged, kept, recreated): read it and the list again. */
  onChanged: () => void;
  api: {
    worktreeView: (chatId: string) => Promise<WorktreeView>;
    mergeChat: (chatId: string, request: MergeRequest) => Promise<MergeOutcome>;
    keepChatBranch: (chatId: string) => Promise<Chat>;
    recreateWorktree: (chatId: string) => Promise<Chat>;
  };
}

/** The bar with its two dialogs: the chat's changes, and Merge. */
export function WorktreeSection({ chat, busy, refreshKey, run, onChanged, api }: WorktreeSectionProps) {
  const [open, setOpen] = useState<"changes" | "merge" | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [actions, setActions] = useState(0);
  const after = () => {
    setActions((n) => n + 1);
    onChanged();
  };
  const load = () => api.worktreeView(chat.id);
  return (
    <>
      <WorktreeBar
        chat={chat}
        busy={busy}
        load={load}
        refreshKey={`${refreshKey}:${actions}:${chat.updated_at}`}
        onShowChanges={() => setOpen("changes")}
        onMerge={() => {
          setDone(null);
          setOpen("merge");
        }}
        onKeep={() => void run(() => api.keepChatBranch(chat.id), after)}
        onRecreate={() => void run(() => api.recreateWorktree(chat.id), after)}
      />
      {done !== null && (
        <p class="small worktree-done" role="status" data-testid="merge-done">
          {done}
        </p>
      )}
      {open === "changes" && (
        <DiffView
          title={t("worktree.changesTitle", { branch: chat.worktree.branch })}
          load={() => load().then((view) => ({ from: 0, to: 0, stat: view.stat, files: view.files, truncated: view.truncated }))}
          leftOut={[]}
          onClose={() => setOpen(null)}
        />
      )}
      {open === "merge" && (
        <MergeDialog
          branch={chat.worktree.branch}
          merge={(request) => api.mergeChat(chat.id, request)}
          onMerged={(outcome) => {
            setOpen(null);
            setDone(t("merge.done", { base: outcome.base, commit: (outcome.commit ?? "").slice(0, 8) }));
            after();
          }}
          onClose={() => setOpen(null)}
        />
      )}
    </>
  );
}
