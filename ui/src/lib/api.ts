// The window's side of the IPC: one typed function per shell command (src-tauri/src/commands),
// and the `{code, message}` error every command rejects with. Types come from ../generated.
import { invoke, Channel } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import { getCurrentWebview } from "@tauri-apps/api/webview";

import type { CommentDraft } from "../generated/CommentDraft";
import type { ApiError } from "../generated/ApiError";
import type { ErrorCode } from "../generated/ErrorCode";
import { ERROR_CODES } from "../generated/errorCodes";
import type { DropEvent } from "../components/Composer";
import type { AppSettings } from "../generated/AppSettings";
import type { Chat } from "../generated/Chat";
import type { ChatPage } from "../generated/ChatPage";
import type { ChatPatch } from "../generated/ChatPatch";
import type { ChatView } from "../generated/ChatView";
import type { CheckpointDiff } from "../generated/CheckpointDiff";
import type { CheckpointList } from "../generated/CheckpointList";
import type { Elicitation } from "../generated/Elicitation";
import type { Event } from "../generated/Event";
import type { ExportFormat } from "../generated/ExportFormat";
import type { ForkRequest } from "../generated/ForkRequest";
import type { MessagePage } from "../generated/MessagePage";
import type { ModelList } from "../generated/ModelList";
import type { NamedProviderSave } from "../generated/NamedProviderSave";
import type { NamedProviderView } from "../generated/NamedProviderView";
import type { McpServerSave } from "../generated/McpServerSave";
import type { McpSettings } from "../generated/McpSettings";
import type { HooksView } from "../generated/HooksView";
import type { McpTool } from "../generated/McpTool";
import type { NewChat } from "../generated/NewChat";
import type { PromptList } from "../generated/PromptList";
import type { ResourceList } from "../generated/ResourceList";
import type { PlanDocument } from "../generated/PlanDocument";
import type { PlanEdit } from "../generated/PlanEdit";
import type { PlanChange } from "../generated/PlanChange";
import type { PastedImage } from "../generated/PastedImage";
import type { PickedFile } from "../generated/PickedFile";
import type { PlanFolderLocation } from "../generated/PlanFolderLocation";
import type { RestorePreview } from "../generated/RestorePreview";
import type { SkillSet } from "../generated/SkillSet";
import type { SandboxView } from "../generated/SandboxView";
import type { SearchPage } from "../generated/SearchPage";
import type { ServerAnswer } from "../generated/ServerAnswer";
import type { ProviderCheck } from "../generated/ProviderCheck";
import type { SettingsUpdate } from "../generated/SettingsUpdate";
import type { TaskPanel } from "../generated/TaskPanel";
import type { AppInfo } from "../generated/desktop/AppInfo";
import type { ChatEvent } from "../generated/desktop/ChatEvent";
import type { ChatRef } from "../generated/desktop/ChatRef";
import type { EmbeddedModel } from "../generated/desktop/EmbeddedModel";
import type { ModelProgress } from "../generated/desktop/ModelProgress";
import type { NoticeSettings } from "../generated/desktop/NoticeSettings";
import type { ChatPhase } from "../generated/ChatPhase";
import type { MergeOutcome } from "../generated/MergeOutcome";
import type { MergeRequest } from "../generated/MergeRequest";
import type { WorktreeView } from "../generated/WorktreeView";

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/** Whether `value` is one of the engine's error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && KNOWN_CODES.has(value);
}

/** Whether `value` has our error shape: a known code and a message. */
export function isApiError(value: unknown): value is ApiError {
  return (
    typeof value === "object" &&
    value !== null &&
    "code" in value &&
    isErrorCode(value.code) &&
    "message" in value &&
    typeof value.message === "string"
  );
}

/** Whatever a command rejected with, as our error shape (an unknown code is internal). */
export function asApiError(error: unknown): ApiError {
  if (isApiError(error)) return error;
  return { code: "ERR_INTERNAL", message: messageOf(error) ?? String(error) };
}

function messageOf(value: unknown): string | null {
  if (typeof value !== "object" || value === null || !("message" in value)) return null;
  return typeof value.message === "string" ? value.message : null;
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw asApiError(error);
  }
}

export const api = {
  appInfo: () => call<AppInfo>("app_info"),
  uiReady: () => call<number>("ui_ready"),
  getSettings: () => call<AppSettings>("get_settings"),
  saveSettings: (update: SettingsUpdate) => call<AppSettings>("save_settings", { update }),
  /** Asks the provider the form describes for its models; nothing is saved. */
  checkProvider: (update: SettingsUpdate) => call<ProviderCheck>("check_provider", { update }),
  /** A page of chats, newest first; `cursor` is the previous page's `next_cursor`. */
  listChats: (cursor: string | null = null) => call<ChatPage>("list_chats", cursor === null ? {} : { cursor }),
  /** Titles and messages holding the words (the last one as a prefix while typed). */
  searchChats: (query: string, cursor: string | null = null) => call<SearchPage>("search_chats", cursor === null ? { query } : { query, cursor }),
  createChat: (request: NewChat) => call<Chat>("create_chat", { request }),
  /** The chat with its latest page of messages, or those from the message `from` on. */
  chatView: (chat_id: string, from: string | null = null) => call<ChatView>("chat_view", from === null ? { chat_id } : { chat_id, from }),
  /** The page of the chat's messages before `before` (a view's `messages_cursor`). */
  chatMessages: (chat_id: string, before: string) => call<MessagePage>("chat_messages", { chat_id, before }),
  sandboxInfo: (chat_id: string) => call<SandboxView>("sandbox_info", { chat_id }),
  /** Settings → Skills: the chat's skills (the user's own, then its workspace's) and the
   *  folders left out; without a chat, the user's own. */
  listSkills: (chat_id: string | null) => call<SkillSet>("list_skills", chat_id === null ? {} : { chat_id }),
  /** "Use this environment": adopts the workspace's venv an earlier Preflight made (the user's
   *  confirmation); the sandbox as it stands afterwards, or ERR_VENV_FOREIGN with why not. */
  adoptVenv: (chat_id: string) => call<SandboxView>("adopt_venv", { chat_id, confirm: true }),
  /** Changes the chat's settings; a model it chooses is checked with its provider first
   *  (ERR_BAD_REQUEST when unknown, ERR_TURN_ACTIVE while a turn runs). */
  updateChat: (chat_id: string, patch: ChatPatch) => call<Chat>("update_chat", { chat_id, patch }),
  /** Every model a chat may choose, each provider's server asked for its list. */
  listModels: () => call<ModelList>("list_models", {}),
  /** Settings → Providers: the providers config.toml names beside the default. */
  namedProviders: () => call<NamedProviderView[]>("named_providers", {}),
  /** Adds or changes one (its key to the OS key store); the engine opens again on it. */
  saveNamedProvider: (provider: NamedProviderSave) => call<NamedProviderView[]>("save_named_provider", { provider }),
  removeNamedProvider: (name: string) => call<NamedProviderView[]>("remove_named_provider", { name }),
  renameChat: (chat_id: string, title: string) => call<Chat>("update_chat", { chat_id, patch: { title } }),
  setChatWorkspace: (chat_id: string, workspace: string | null) =>
    call<Chat>("update_chat", { chat_id, patch: { workspace } }),
  chooseWorkspace: (chat_id: string) => call<Chat | null>("choose_workspace", { chat_id }),
  /** The native folder picker in the workspace: adds the folder to the chat's planning scope. */
  chooseScope: (chat_id: string) => call<Chat | null>("choose_scope", { chat_id }),
  deleteChat: (chat_id: string) => call<boolean>("delete_chat", { chat_id }),
  /** Sends a message with files (paths) and pasted or dropped images (base64, once). */
  sendMessage: (chat_id: string, content: string, files: string[] = [], images: PastedImage[] = []) =>
    call<ChatView>("send_message", images.length > 0 ? { chat_id, content, files, images } : { chat_id, content, files }),
  /** The chat's MCP prompts (the slash menu) and resources (the @ menu), DESIGN §17. */
  chatPrompts: (chat_id: string) => call<PromptList>("chat_prompts", { chat_id }),
  chatResources: (chat_id: string) => call<ResourceList>("chat_resources", { chat_id }),
  /** The bytes of the chat's image attachment `name` (its copy in the data folder). */
  attachmentImage: (chat_id: string, name: string) => call<ArrayBuffer>("attachment_image", { chat_id, name }),
  /** The bytes of an image file the user picked or dropped, for its chip. */
  imagePreview: (path: string) => call<ArrayBuffer>("image_preview", { path }),
  /** The native save dialog for the chat's export; the path chosen, or null. */
  chooseExportFile: (chat_id: string, format: ExportFormat) => call<string | null>("choose_export_file", { chat_id, format }),
  /** Writes the chat's export to `path` (absolute, ending in .md or .json). */
  exportChat: (chat_id: string, format: ExportFormat, path: string) => call<void>("export_chat", { chat_id, format, path }),
  /** The native open dialog for a chat export; the path chosen, or null. */
  chooseImportFile: () => call<string | null>("choose_import_file", {}),
  /** Imports the JSON export at `path` as a new chat (no event follows: read the list again). */
  importChat: (path: string) => call<ChatView>("import_chat", { path }),
  /** The native folder dialog for a fork's copy of a checkpoint; the folder chosen, or null. */
  chooseForkFolder: (chat_id: string) => call<string | null>("choose_fork_folder", { chat_id }),
  /** Forks the chat at a message or a checkpoint (no event follows: read the list again). */
  forkChat: (chat_id: string, request: ForkRequest) => call<ChatView>("fork_chat", { chat_id, request }),
  /** The native file picker: the files chosen, each checked ([] when cancelled). */
  pickFiles: () => call<PickedFile[]>("pick_files", {}),
  /** Checks dropped paths by the rules a send applies. */
  checkFiles: (paths: string[]) => call<PickedFile[]>("check_files", { paths }),
  /** Files dragged over and dropped on the window (the shell's drag-and-drop events). */
  onFileDrop: (handler: (event: DropEvent) => void): (() => void) => {
    const stop = getCurrentWebview().onDragDropEvent(({ payload }) => {
      if (payload.type === "drop") handler({ type: "drop", paths: payload.paths });
      else handler({ type: payload.type === "leave" ? "leave" : "over" });
    });
    return () => void stop.then((unlisten) => unlisten());
  },
  editMessage: (chat_id: string, message_id: string, content: string) =>
    call<ChatView>("edit_message", { chat_id, message_id, content }),
  stopTurn: (chat_id: string) => call<ChatView>("stop_turn", { chat_id }),
  /** Resumes an executor that stopped with tasks left (ERR_NOTHING_LEFT when none is open). */
  continueWork: (chat_id: string) => call<ChatView>("continue_work", { chat_id }),
  /** Runs an unverified plan's checks again (the new verdict comes as a `completion` event);
   *  refused when the chat has no unverified completion. */
  verifyPlan: (chat_id: string) => call<ChatView>("verify_plan", { chat_id }),
  /** Accepts an unverified plan as is: recorded in the chat and the plan folder, still not
   *  verified; refused when the chat has no unverified completion. */
  acceptPlan: (chat_id: string) => call<ChatView>("accept_plan", { chat_id }),
  /** Drops the chat's task list; whether there was one. */
  clearTaskList: (chat_id: string) => call<boolean>("clear_task_list", { chat_id }),
  answerQuestion: (chat_id: string, question_id: string, answer: string) =>
    call<ChatView>("answer_question", { chat_id, question_id, answer }),
  approvePlan: (chat_id: string, unconfined = false) => call<ChatView>("approve_plan", { chat_id, unconfined }),
  rejectPlan: (chat_id: string, feedback: string | null, comments: CommentDraft[] = []) => call<ChatView>("reject_plan", { chat_id, feedback, comments }),
  cancelPlan: (chat_id: string) => call<ChatView>("cancel_plan", { chat_id }),
  editPlan: (chat_id: string, edit: PlanEdit) => call<PlanDocument>("edit_plan", { chat_id, edit }),
  planRevisions: (chat_id: string) => call<PlanDocument[]>("plan_revisions", { chat_id }),
  taskPanel: (chat_id: string) => call<TaskPanel>("plan_view", { chat_id }),
  planChanges: (chat_id: string) => call<PlanChange[]>("plan_changes", { chat_id }),
  answerPlanChange: (chat_id: string, change_id: string, approve: boolean) =>
    call<ChatView>("answer_plan_change", { chat_id, change_id, approve }),
  openPlanFolder: (chat_id: string) => call<PlanFolderLocation>("open_plan_folder", { chat_id }),
  /** The workspace's checkpoints, each task's span and the one "Undo the last turn" restores. */
  listCheckpoints: (chat_id: string) => call<CheckpointList>("list_checkpoints", { chat_id }),
  /** What changed from checkpoint `from` to `to` (the latest when absent). */
  checkpointDiff: (chat_id: string, from: number, to?: number) =>
    call<CheckpointDiff>("checkpoint_diff", to == null ? { chat_id, from } : { chat_id, from, to }),
  /** The chat's own worktree and its diff against where it started (DESIGN §18). */
  worktreeView: (chat_id: string) => call<WorktreeView>("worktree_view", { chat_id }),
  /** Merge's preview (`preview: true`, nothing changes) or the merge itself. */
  mergeChat: (chat_id: string, request: MergeRequest) => call<MergeOutcome>("merge_chat", { chat_id, request }),
  /** Commits the chat's work on its branch and removes the worktree folder. */
  keepChatBranch: (chat_id: string) => call<Chat>("keep_chat_branch", { chat_id }),
  /** Makes the worktree folder again from the chat's branch. */
  recreateWorktree: (chat_id: string) => call<Chat>("recreate_worktree", { chat_id }),
  /** What a restore to `checkpoint` would write, delete and keep; nothing is changed. */
  restorePreview: (chat_id: string, checkpoint: number) => call<RestorePreview>("restore_preview", { chat_id, checkpoint }),
  /** Restores the workspace as the preview whose `digest` is given showed (ERR_TURN_ACTIVE
   *  while a turn runs, ERR_CHECKPOINT_CONFLICT when the plan changed since); files the user
   *  changed since the latest checkpoint are kept unless `overwrite`. */
  restoreCheckpoint: (chat_id: string, checkpoint: number, digest: string, overwrite = false) =>
    call<ChatView>("restore_checkpoint", overwrite ? { chat_id, checkpoint, digest, overwrite } : { chat_id, checkpoint, digest }),
  /** MCP servers' questions waiting for the user in the chat (after a reload). */
  listElicitations: (chat_id: string) => call<Elicitation[]>("list_elicitations", { chat_id }),
  /** Rejects with ERR_BAD_REQUEST (the question stays open) when the form does not fit. */
  answerElicitation: (chat_id: string, id: string, answer: ServerAnswer) => call<void>("answer_elicitation", { chat_id, id, answer }),
  /** Opens the page of the chat's URL question `id` in the browser; resolves with its address. */
  openElicitationUrl: (chat_id: string, id: string) => call<string>("open_elicitation_url", { chat_id, id }),
  mcpSettings: () => call<McpSettings>("mcp_settings", {}),
  saveMcpServer: (save: McpServerSave) => call<McpSettings>("save_mcp_server", { save }),
  removeMcpServer: (name: string) => call<McpSettings>("remove_mcp_server", { name }),
  restartMcpServer: (name: string) => call<McpSettings>("restart_mcp_server", { name }),
  /** Starts the entry on its own and lists its tools; nothing is saved. */
  testMcpServer: (save: McpServerSave) => call<McpTool[]>("test_mcp_server", { save }),
  /** Starts signing in to a remote server and opens the page in the browser; resolves with its address. */
  mcpSignIn: (name: string) => call<string>("mcp_sign_in", { name }),
  mcpSignOut: (name: string) => call<McpSettings>("mcp_sign_out", { name }),
  /** Downloads and verifies a catalog model, reporting to `onProgress`; resolves with its entry, installed. */
  installModel: (model_id: string, onProgress: (progress: ModelProgress) => void) => {
    const channel = new Channel<ModelProgress>();
    channel.onmessage = onProgress;
    return call<EmbeddedModel>("install_model", { model_id, channel });
  },
  /** Stops an install (it then rejects with ERR_CANCELLED); whether one was running. */
  cancelModelInstall: (model_id: string) => call<boolean>("cancel_model_install", { model_id }),
  removeModel: (model_id: string) => call<EmbeddedModel>("remove_model", { model_id }),
  /** Settings → Hooks: what runs, the files with errors, the workspaces and their trust. */
  hooksSettings: () => call<HooksView>("hooks_settings", {}),
  /** Trusts a workspace for hooks (its `.preflight/hooks.json` runs), or stops trusting it. */
  trustHooks: (workspace: string, trusted: boolean) => call<HooksView>("trust_hooks", { workspace, trusted }),
  /** Settings → Notifications with their words, for the shell that raises them. */
  setNoticeSettings: (settings: NoticeSettings) => call<void>("set_notice_settings", { settings }),
  /** The chats whose turn runs now. */
  runningChats: () => call<ChatPhase[]>("running_chats"),
  /** Each chat's phase as it changes, and every running chat after the shell fell behind.
   *  Returns a function that stops listening. */
  onChatPhases: (onPhase: (phase: ChatPhase) => void, onRunning: (running: ChatPhase[]) => void): (() => void) => {
    const stops = [listen<ChatPhase>("chat-phase", ({ payload }) => onPhase(payload)), listen<ChatPhase[]>("chats-running", ({ payload }) => onRunning(payload))];
    return () => stops.forEach((stop) => void stop.then((unlisten) => unlisten()));
  },
  /** A click on a desktop notification: the chat it opens. Returns a function that stops listening. */
  onOpenChat: (handler: (chatId: string) => void): (() => void) => {
    const stop = listen<ChatRef>("open-chat", ({ payload }) => handler(payload.chat_id));
    return () => void stop.then((unlisten) => unlisten());
  },
};

export interface ChatListeners {
  /** Executor tokens (the `Channel`). */
  onDelta: (event: Event) => void;
  /** Every other event of the chat. */
  onEvent: (event: Event) => void;
  /** The window fell behind: reload the chat. */
  onResync: () => void;
}

/**
 * Starts forwarding `chatId`'s events to the listeners (the shell forwards one chat at a
 * time: watching another stops this one). Returns a function that stops listening.
 */
export async function watchChat(chatId: string, listeners: ChatListeners): Promise<() => void> {
  const deltas = new Channel<Event>();
  let active = true;
  deltas.onmessage = (event) => {
    if (active) listeners.onDelta(event);
  };
  const unlisten: UnlistenFn[] = [
    await listen<ChatEvent>("chat-event", ({ payload }) => {
      if (active && payload.chat_id === chatId) listeners.onEvent(payload.event);
    }),
    await listen<ChatRef>("chat-resync", ({ payload }) => {
      if (active && payload.chat_id === chatId) listeners.onResync();
    }),
  ];
  await call<void>("watch_chat", { chat_id: chatId, deltas });
  return () => {
    active = false;
    unlisten.forEach((stop) => stop());
  };
}
