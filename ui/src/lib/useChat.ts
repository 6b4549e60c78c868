// The open chat: loads it, watches its events (tokens over the Channel, batched so that a
// fast stream re-renders at most every 50 ms), reloads the stored view after each stored
// change (and the plan folder's view after each task-list change), lists the MCP servers'
// open questions when it opens (and after a resync), and wraps the user's actions so each
// answer updates the view.
import { useEffect, useRef, useState } from "preact/hooks";

import type { ApiError } from "../generated/ApiError";
import type { ChatView } from "../generated/ChatView";
import type { Event } from "../generated/Event";
import type { PlanFolder } from "../generated/PlanFolder";
import { api, asApiError, watchChat } from "./api";
import { applyDelta, applyEvent, initialState, withElicitations, withView, type ChatState } from "./chatState";

/** How often streamed tokens are drawn at most. */
const DELTA_FLUSH_MS = 50;

export interface ChatController {
  state: ChatState | null;
  /** The chat's `.dwp` plan folder, when it writes one (refreshed as the task list changes). */
  files: PlanFolder | null;
  /** Runs an action that answers with the chat's new view; errors are returned. */
  act: (action: () => Promise<ChatView | unknown>) => Promise<ApiError | null>;
  reload: () => void;
}

export function useChat(chatId: string | null, generation: number): ChatController {
  const [state, setState] = useState<ChatState | null>(null);
  const [files, setFiles] = useState<PlanFolder | null>(null);
  const reloadRef = useRef<() => void>(() => {});

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

    const flush = () => {
      flushTimer = null;
      const batch = pending;
      pending = [];
      setState((current) => current && batch.reduce((next, delta) => applyDelta(next, delta.id, delta.text), current));
    };
    const reload = async () => {
      if (reloading) {
        reloadAgain = true;
        return;
      }
      reloading = true;
      try {
        const view = await api.chatView(chatId);
        if (alive) setState((current) => (current ? withView(current, view) : current));
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
    reloadRef.current = () => {
      void reload();
      void reloadFiles();
      void reloadElicitations();
    };
    const onDelta = (event: Event) => {
      if (event.type !== "delta") return;
      pending.push({ id: event.message_id, text: event.text });
      flushTimer ??= setTimeout(flush, DELTA_FLUSH_MS);
    };
    const onEvent = (event: Event) => {
      if (pending.length > 0) flush();
      setState((current) => current && applyEvent(current, event));
      if (event.type === "message" || event.type === "plan_status") void reload();
      if (event.type === "plan" || event.type === "plan_status") void reloadFiles();
    };

    (async () => {
      try {
        const onResync = () => {
          void reload();
          void reloadElicitations();
        };
        const unwatch = await watchChat(chatId, { onDelta, onEvent, onResync });
        if (!alive) return unwatch();
        stop = unwatch;
        const [view, panel, open] = await Promise.all([api.chatView(chatId), api.taskPanel(chatId), api.listElicitations(chatId).catch(() => [])]);
        if (!alive) return;
        setState(initialState(view, panel.tasks, open));
        setFiles(panel.files);
      } catch (error) {
        console.error("cannot open the chat", asApiError(error));
      }
    })();
    return () => {
      alive = false;
      if (flushTimer) clearTimeout(flushTimer);
      stop?.();
    };
  }, [chatId, generation]);

  const act = async (action: () => Promise<ChatView | unknown>): Promise<ApiError | null> => {
    try {
      const result = await action();
      if (result && typeof result === "object" && "messages" in result && "state" in result) {
        const view = result as ChatView;
        setState((current) => (current && current.view.id === view.id ? withView(current, view) : current));
      } else {
        reloadRef.current();
      }
      return null;
    } catch (error) {
      return asApiError(error);
    }
  };
  return { state, files, act, reload: () => reloadRef.current() };
}
