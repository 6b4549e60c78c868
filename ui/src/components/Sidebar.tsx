// The chats: new, select, rename (inline), delete (with an inline confirmation), import one
// from a JSON export (its refusal said under the button); settings. Only the rows in view are
// in the page (`VirtualList`); scrolling near the end loads the next page of chats.
import { useState } from "preact/hooks";

import type { Chat } from "../generated/Chat";
import type { Phase } from "../generated/Phase";
import { sharedTitles } from "../lib/chatList";
import { formatTime, t } from "../lib/i18n";
import { ForkedFromLine } from "./ForkParts";
import { VirtualList } from "./VirtualList";

/** A chat row's height in pixels; `.chat-item` in styles.css is as high. */
export const CHAT_ROW_PX = 34;

export interface SidebarProps {
  chats: Chat[];
  selectedId: string | null;
  onSelect: (id: string) => void;
  onNew: () => void;
  onRename: (id: string, title: string) => void;
  onDelete: (id: string) => void;
  onSettings: () => void;
  /** Loads the next page of chats; absent when every chat is loaded. */
  onMore?: () => void;
  /** Imports a chat export the user chooses; resolves with why not, in words, or null. */
  onImport?: () => Promise<string | null>;
  /** The chats whose turn runs now, with their phase (several run at once). */
  running?: ReadonlyMap<string, Phase>;
}

export function Sidebar(props: SidebarProps) {
  const shared = sharedTitles(props.chats);
  return (
    <nav class="sidebar" aria-label={t("sidebar.label")}>
      <div class="sidebar-head">
        <span class="brand">Preflight</span>
        <button type="button" class="primary" data-testid="new-chat" onClick={props.onNew}>
          {t("app.newChat")}
        </button>
      </div>
      <VirtualList
        class="chat-list"
        label={t("sidebar.label")}
        items={props.chats}
        rowHeight={CHAT_ROW_PX}
        keyOf={(chat) => chat.id}
        onNearEnd={props.onMore}
        render={(chat) => <ChatItem chat={chat} selected={chat.id === props.selectedId} dated={shared.has(chat.title.trim())} {...props} />}
      />
      {props.onImport && <ImportButton onImport={props.onImport} />}
      <button type="button" class="secondary settings-button" data-testid="open-settings" onClick={props.onSettings}>
        {t("sidebar.settings")}
      </button>
    </nav>
  );
}

function ImportButton({ onImport }: { onImport: () => Promise<string | null> }) {
  const [refused, setRefused] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <div class="import-chat">
      <button
        type="button"
        class="secondary import-button"
        data-testid="import-chat"
        aria-busy={busy}
        disabled={busy}
        title={t("transfer.importHint")}
        onClick={async () => {
          setBusy(true);
          setRefused(await onImport());
          setBusy(false);
        }}
      >
        {t("transfer.import")}
      </button>
      {refused && (
        <p class="error small" role="alert" data-testid="import-error">
          {refused}
        </p>
      )}
    </div>
  );
}

/** A chat that works now: a spinner and what it does; its worktree's branch in the tooltip. */
function RunningMark({ phase, branch }: { phase: Phase | undefined; branch: string | undefined }) {
  if (phase !== "planning" && phase !== "executing") return null;
  const doing = phase === "planning" ? t("sidebar.planning") : t("sidebar.working");
  return (
    <span class="chat-running small" data-testid="chat-running" data-phase={phase} title={branch ? `${doing} · ${branch}` : doing}>
      <span class="spinner" aria-hidden="true" />
      <span class="visually-hidden">{doing}</span>
    </span>
  );
}

function ChatItem({ chat, selected, dated, onSelect, onRename, onDelete, running }: SidebarProps & { chat: Chat; selected: boolean; dated: boolean }) {
  // Chats of the same title are told apart by when they were made.
  const date = dated ? formatTime(chat.created_at) : null;
  const [mode, setMode] = useState<"show" | "rename" | "delete">("show");
  const [title, setTitle] = useState(chat.title);
  if (mode === "rename") {
    return (
      <li class="chat-item selected">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (title.trim() !== "") onRename(chat.id, title.trim());
            setMode("show");
          }}
        >
          <input
            class="rename-input"
            aria-label={t("sidebar.chatTitle")}
            value={title}
            ref={(input) => input?.focus()}
            onInput={(event) => setTitle(event.currentTarget.value)}
            onKeyDown={(event) => event.key === "Escape" && setMode("show")}
          />
        </form>
      </li>
    );
  }
  return (
    <li class={`chat-item${selected ? " selected" : ""}${chat.forked_from ? " forked" : ""}`} data-chat-id={chat.id}>
      <button type="button" class="chat-title" onClick={() => onSelect(chat.id)} onDblClick={() => setMode("rename")} title={date ? `${chat.title} · ${date}` : chat.title}>
        <span class="chat-name">{chat.title}</span>
        {date && (
          <span class="chat-date small muted" data-testid="chat-date">
            {" · "}
            {date}
          </span>
        )}
        {chat.forked_from && <ForkedFromLine from={chat.forked_from} />}
        <RunningMark phase={running?.get(chat.id)} branch={chat.worktree?.branch} />
      </button>
      {mode === "delete" ? (
        <span class="confirm">
          {t("sidebar.deleteConfirm")}
          <button type="button" class="danger" onClick={() => onDelete(chat.id)}>
            {t("sidebar.yes")}
          </button>
          <button type="button" class="icon" onClick={() => setMode("show")}>
            {t("sidebar.no")}
          </button>
        </span>
      ) : (
        <span class="chat-actions">
          <button type="button" class="icon" aria-label={t("sidebar.rename", { title: chat.title })} onClick={() => { setTitle(chat.title); setMode("rename"); }}>
            ✎
          </button>
          <button type="button" class="icon" aria-label={t("sidebar.delete", { title: chat.title })} onClick={() => setMode("delete")}>
            🗑
          </button>
        </span>
      )}
    </li>
  );
}
