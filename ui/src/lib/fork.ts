// Fork from the window (DESIGN §15): at a message, or at a task's checkpoint with its files
// copied into a folder the user chooses in the native dialog (or the workspace shared), then
// the new chat opens. A refusal is said in words: the window's lead, then the engine's reason
// (a folder that is not empty, a point Preflight has no record of).
import type { ChatView } from "../generated/ChatView";
import type { ForkFiles } from "../generated/ForkFiles";
import type { ForkedFrom } from "../generated/ForkedFrom";
import type { ForkRequest } from "../generated/ForkRequest";
import { asApiError } from "./api";
import { describeError } from "./errorText";
import { t } from "./i18n";

/** The shell's side of it (`api` in the window; a stand-in in tests). */
export interface ForkSource {
  chooseForkFolder: (chatId: string) => Promise<string | null>;
  forkChat: (chatId: string, request: ForkRequest) => Promise<ChatView>;
}

/** What a fork came to: the new chat, nothing (the folder dialog was cancelled), or why not. */
export type Forked = { kind: "forked"; view: ChatView } | { kind: "cancelled" } | { kind: "refused"; text: string };

function refusal(error: unknown): Forked {
  const failure = asApiError(error);
  // The folder and the missing record are said in the window's language (their codes); other
  // refusals name what was wrong in the engine's words.
  const detail = failure.code === "ERR_BAD_REQUEST" ? failure.message : describeError(failure);
  return { kind: "refused", text: t("fork.failed", { detail }) };
}

/** Forks `chatId` as `request` says. */
export async function forkChat(source: ForkSource, chatId: string, request: ForkRequest): Promise<Forked> {
  try {
    return { kind: "forked", view: await source.forkChat(chatId, request) };
  } catch (error) {
    return refusal(error);
  }
}

/** Forks at `checkpoint` with its files copied into the folder the user chooses. */
export async function forkIntoFolder(source: ForkSource, chatId: string, checkpoint: number): Promise<Forked> {
  try {
    const workspace = await source.chooseForkFolder(chatId);
    if (workspace === null) return { kind: "cancelled" };
    return await forkChat(source, chatId, { checkpoint_id: checkpoint, workspace });
  } catch (error) {
    return refusal(error);
  }
}

/** What became of the files, in words (the fork's notice in the chat). */
export function filesText(from: ForkedFrom, files: ForkFiles): string {
  const title = from.title;
  if (files.kind === "copied") {
    return t("fork.noticeCopied", { title, n: from.checkpoint_id ?? 0, workspace: files.workspace, count: files.files });
  }
  if (files.kind === "worktree") return t("fork.noticeWorktree", { title, repository: files.repository });
  if (from.checkpoint_id !== undefined) return t("fork.noticeSharedAt", { title, n: from.checkpoint_id, workspace: files.workspace });
  return t("fork.noticeShared", { title, workspace: files.workspace });
}
