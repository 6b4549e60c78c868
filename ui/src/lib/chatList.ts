// The sidebar's chats as loaded so far, a page at a time (newest first), and how a fresh
// first page (after a chat was created, renamed or deleted) joins the pages loaded after it.
import type { Chat } from "../generated/Chat";
import type { ChatPage } from "../generated/ChatPage";

export interface LoadedChats {
  chats: Chat[];
  /** The cursor of the next (older) page; null when every chat is loaded. */
  next: string | null;
}

export const NO_CHATS: LoadedChats = { chats: [], next: null };

/** The next page appended (a chat already shown is not shown twice). */
export function withNextPage(loaded: LoadedChats, page: ChatPage): LoadedChats {
  const shown = new Set(loaded.chats.map((chat) => chat.id));
  return { chats: [...loaded.chats, ...page.data.filter((chat) => !shown.has(chat.id))], next: page.next_cursor };
}

/**
 * A fresh first page in place of the loaded one: the chats loaded after the page's last
 * chat stay (with the cursor that follows them); if that chat is not among them, the
 * pages loaded are dropped and paging starts again after the first.
 */
export function withFirstPage(loaded: LoadedChats, page: ChatPage): LoadedChats {
  const last = page.data[page.data.length - 1];
  const at = last && page.next_cursor !== null ? loaded.chats.findIndex((chat) => chat.id === last.id) : -1;
  if (at === -1) return { chats: page.data, next: page.next_cursor };
  const inPage = new Set(page.data.map((chat) => chat.id));
  return { chats: [...page.data, ...loaded.chats.slice(at + 1).filter((chat) => !inPage.has(chat.id))], next: loaded.next };
}

/** The titles two or more of `chats` share (the list shows those chats' dates, to tell them apart). */
export function sharedTitles(chats: Chat[]): Set<string> {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const chat of chats) {
    const title = chat.title.trim();
    if (seen.has(title)) shared.add(title);
    seen.add(title);
  }
  return shared;
}

/** The loaded chats without `id` (deleted). */
export function withoutChat(loaded: LoadedChats, id: string): LoadedChats {
  return { ...loaded, chats: loaded.chats.filter((chat) => chat.id !== id) };
}
