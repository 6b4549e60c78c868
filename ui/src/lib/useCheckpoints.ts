// The open chat's checkpoints (issue 31): read when the chat opens and again, at most once per
// RELOAD_MS and one request at a time, after the events that may have added one (a task
// list change, a stored message, a turn's end). A chat without a workspace has none.
import { useEffect, useRef, useState } from "preact/hooks";

import type { CheckpointList } from "../generated/CheckpointList";
import type { Event } from "../generated/Event";
import { api } from "./api";

/** Events close together (a round of tool calls) make one read, this long after the first. */
export const RELOAD_MS = 300;

export interface CheckpointsController {
  list: CheckpointList | null;
  /** Reads the list again soon (coalesced with any other read asked for meanwhile). */
  reload: () => void;
  /** Passes a chat event: those that may come with a new checkpoint schedule a read. */
  onEvent: (event: Event) => void;
}

/** Whether `event` may come with a new checkpoint or a changed task span. */
export function mayAddCheckpoint(event: Event): boolean {
  return event.type === "plan" || event.type === "message" || event.type === "plan_status";
}

export function useCheckpoints(chatId: string | null, generation: number, load = api.listCheckpoints): CheckpointsController {
  const [list, setList] = useState<CheckpointList | null>(null);
  const reloadRef = useRef<() => void>(() => {});
  useEffect(() => {
    setList(null);
    if (chatId === null) return;
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let reading = false;
    let readAgain = false;
    const read = async () => {
      if (reading) {
        readAgain = true;
        return;
      }
      reading = true;
      try {
        const answer = await load(chatId);
        if (alive) setList(answer);
      } catch {
        // No workspace, or the chat was deleted meanwhile: nothing to show, nothing to retry.
      } finally {
        reading = false;
        if (readAgain && alive) {
          readAgain = false;
          void read();
        }
      }
    };
    reloadRef.current = () => {
      timer ??= setTimeout(() => {
        timer = null;
        if (alive) void read();
      }, RELOAD_MS);
    };
    void read();
    return () => {
      alive = false;
      if (timer) clearTimeout(timer);
      reloadRef.current = () => {};
    };
  }, [chatId, generation, load]);
  return {
    list,
    reload: () => reloadRef.current(),
    onEvent: (event) => {
      if (mayAddCheckpoint(event)) reloadRef.current();
    },
  };
}
