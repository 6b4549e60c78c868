// The open chat: loads it, watches its events (tokens over the Channel, batched so that a
// fast stream re-renders at most every 50 ms), reloads the stored view after each stored
// change (and the plan folder's view after each task-list change), reads the whole chat
// again (view, task panel, the MCP servers' open questions) when it opens, when a turn ends
// and after a resync, and wraps the user's actions so each answer updates the view. Views
// are shown newest first by when they were asked for, never by when they arrived.
import { useEffect, useRef, useState } from "preact/hooks";

import type { ApiError } from "../generated/ApiError";
import type { ChatView } from "../generated/ChatView";
import type { Event } from "../generated/Event";
import type { PlanFolderLocation } from "../generated/PlanFolderLocation";
import { api, asApiError, watchChat } from "./api";
import { applyDelta, applyEvent, initialState, SnapshotOrder, turnRunning, withElicitations, withOlder, withTasks, withView, type ChatState } from "./chatState";

/** How often streamed tokens are drawn at most. */
const DELTA_FLUSH_MS = 50;

export interface ChatController {
  state: ChatState | null;
  /** The chat's `.dwp` plan folder, when it writes one (refreshed as the task list changes). */
  files: PlanFolderLocation | null;
  /** Runs an action that answers with the chat's new view; errors are returned. */
  act: (action: () => Promise<ChatView | unknown>) => Promise<ApiError | null>;
  reload: () => void;
  /** Reads the whole chat again (view, task list, open questions), as at a turn's end. */
  refresh: () => void;
  /** Loads the page of messages before those shown (the list scrolled to its top). */
  loadOlder: () => void;
}

/** `listener` hears each of the chat's events after the chat's state has taken it in. */
export function useChat(chatId: string | null, generation: number, listener?: (event: Event) => void, openAt: string | null = null): ChatController {
  const [state, setState] = useState<ChatState | null>(null);
  const listenerRef = useRef(listener);
  listenerRef.current = listener;
  const [files, setFiles] = useState<PlanFolderLocation | null>(null);
  const reloadRef = useRef<() => void>(() => {});
  const refreshRef = useRef<() => void>(() => {});
  const olderRef = useRef<() => void>(() => {});
  /**
   * The oldest message shown once the list reaches further back than the latest page (a
   * search hit opened, older pages loaded): views are then read from it on, so a reload
   * never drops what the user scrolled back to. Null: the latest page.
   */
  const fromRef = useRef<string | null>(null);
  /** Where the shown messages page back from (the view's cursor). */
  const cursorRef = useRef<string | undefined>(undefined);
  cursorRef.current = state?.view.messages_cursor;
  /** The open chat's snapshots in the order they were asked for (see `SnapshotOrder`). */
  const orderRef = useRef(new SnapshotOrder());

  useEffect(() => {
    setState(null);
    setFiles(null);
    if (chatId === null) return;
    let alive = true;
    let stop: (() => void) | null = null;
    let pending: { id: string; text: string }[] = [];
    let flushTimer: ReturnType<typeof setTimeout> | null = null;
    let reloading = false;
    let reloadAgain = false;
    // Until the first snapshot is shown there is no state to apply events to: one that
    // arrives meanwhile may be newer than that snapshot, so the chat is read again.
    let opened = false;
    let missedWhileOpening = false;
    const order = new SnapshotOrder();
    orderRef.current = order;
    fromRef.current = openAt;
    /** The view from `fromRef` on; the latest page when that message is gone. */
    const readView = async () => {
      const from = fromRef.current;
      if (from === null) return api.chatView(chatId);
      try {
        return await api.chatView(chatId, from);
      } catch {
        fromRef.current = null;
        return api.chatView(chatId);
      }
    };
    let loadingOlder = false;
    const loadOlder = async () => {
      const cursor = cursorRef.current;
      if (loadingOlder || !cursor) return;
      loadingOlder = true;
      try {
        const page = await api.chatMessages(chatId, cursor);
        if (!alive || page.data.length === 0) return;
        fromRef.current = page.data[0]!.id;
        setState((current) => (current && current.view.messages_cursor === cursor ? withOlder(current, page) : current));
      } catch {
        // The chat was deleted meanwhile, as below.
      } finally {
        loadingOlder = false;
      }
    };
    olderRef.current = () => void loadOlder();

    const flush = () => {
      flushTimer = null;
      const batch = pending;
      pending = [];
      setState((current) => current && batch.reduce((next, delta) => applyDelta(next, delta.id, delta.text), current));
    };
    /** Re-reads the stored view (after each stored change); one read at a time. */
    const reload = async () => {
      if (reloading) {
        reloadAgain = true;
        return;
      }
      reloading = true;
      try {
        const ticket = order.ask();
        const view = await readView();
        if (alive && opened && order.show(ticket)) setState((current) => (current ? withView(current, view) : current));
      } catch {
        // The chat was deleted meanwhile: the sidebar's reload takes care of it.
      } finally {
        reloading = false;
        if (reloadAgain && alive) {
          reloadAgain = false;
          void reload();
        }
      }
    };
    const reloadFiles = async () => {
      try {
        const panel = await api.taskPanel(chatId);
        if (alive) setFiles(panel.files);
      } catch {
        // As above: a deleted chat has no folder to show.
      }
    };
    const reloadElicitations = async () => {
      try {
        const open = await api.listElicitations(chatId);
        if (alive) setState((current) => (current ? withElicitations(current, open) : current));
      } catch {
        // As above.
      }
    };
    /**
     * Reads the whole chat again and shows it as the engine has it: the view (messages, tool
     * groups, cards), the task panel and the open questions. Run when the chat opens, when a
     * turn ends and when the window fell behind, so that an event it missed is made good.
     */
    const refresh = async () => {
      const ticket = order.ask();
      try {
        const [view, panel, open] = await Promise.all([readView(), api.taskPanel(chatId), api.listElicitations(chatId).catch(() => [])]);
        if (!alive) return;
        const newest = order.show(ticket);
        setState((current) => {
          if (!current) return initialState(view, panel.tasks, open);
          return withElicitations(withTasks(newest ? withView(current, view) : current, panel.tasks), open);
        });
        setFiles(panel.files);
        if (!opened) {
          opened = true;
          if (missedWhileOpening) void refresh();
        }
      } catch (error) {
        if (!opened) console.error("cannot open the chat", asApiError(error));
      }
    };
    refreshRef.current = () => void refresh();
    reloadRef.current = () => {
      void reload();
      void reloadFiles();
      void reloadElicitations();
    };
    const onDelta = (event: Event) => {
      if (event.type !== "delta") return;
      if (!opened) missedWhileOpening = true;
      pending.push({ id: event.message_id, text: event.text });
      flushTimer ??= setTimeout(flush, DELTA_FLUSH_MS);
    };
    const onEvent = (event: Event) => {
      if (!opened) missedWhileOpening = true;
      if (pending.length > 0) flush();
      setState((current) => current && applyEvent(current, event));
      listenerRef.current?.(event);
      if (event.type === "plan_status" && !turnRunning(event.phase)) {
        void refresh();
        return;
      }
      if (event.type === "message" || event.type === "plan_status") void reload();
      if (event.type === "plan" || event.type === "plan_status") void reloadFiles();
    };

    (async () => {
      try {
        const onResync = () => void refresh();
        // Watch first, then read: an event sent after the read is applied to it.
        const unwatch = await watchChat(chatId, { onDelta, onEvent, onResync });
        if (!alive) return unwatch();
        stop = unwatch;
        await refresh();
      } catch (error) {
        console.error("cannot open the chat", asApiError(error));
      }
    })();
    return () => {
      alive = false;
      if (flushTimer) clearTimeout(flushTimer);
      stop?.();
    };
  }, [chatId, generation, openAt]);

  const act = async (action: () => Promise<ChatView | unknown>): Promise<ApiError | null> => {
    const order = orderRef.current;
    const ticket = order.ask();
    try {
      const result = await action();
      if (result && typeof result === "object" && "messages" in result && "state" in result) {
        const view = result as ChatView;
        // An answer older than a view already shown is dropped, and the chat read again: the
        // action's own change is then in the view, whichever of the two was newer.
        if (order !== orderRef.current) return null;
        // It holds the latest page only: a list that reaches further back reads its own.
        if (fromRef.current !== null) reloadRef.current();
        else if (order.show(ticket)) setState((current) => (current && current.view.id === view.id ? withView(current, view) : current));
        else reloadRef.current();
      } else {
        reloadRef.current();
      }
      return null;
    } catch (error) {
      return asApiError(error);
    }
  };
  return { state, files, act, reload: () => reloadRef.current(), refresh: () => refreshRef.current(), loadOlder: () => olderRef.current() };
}
