// Which chats work now (several run at once, DESIGN §18): read once, then kept by the
// shell's `chat-phase` events; after the shell fell behind, its list replaces ours.
import { useEffect, useState } from "preact/hooks";

import type { ChatPhase } from "../generated/ChatPhase";
import type { Phase } from "../generated/Phase";

export interface RunningSource {
  runningChats: () => Promise<ChatPhase[]>;
  onChatPhases: (onPhase: (phase: ChatPhase) => void, onRunning: (running: ChatPhase[]) => void) => () => void;
}

const runs = (phase: Phase) => phase === "planning" || phase === "executing";

/** The running chats by id, with their phase. */
export function useRunning(source: RunningSource, generation: number): ReadonlyMap<string, Phase> {
  const [running, setRunning] = useState<ReadonlyMap<string, Phase>>(new Map());
  useEffect(() => {
    let current = true;
    const replace = (list: ChatPhase[]) => current && setRunning(new Map(list.filter((one) => runs(one.phase)).map((one) => [one.chat_id, one.phase])));
    const stop = source.onChatPhases(
      ({ chat_id, phase }) =>
        current &&
        setRunning((before) => {
          const next = new Map(before);
          if (runs(phase)) next.set(chat_id, phase);
          else next.delete(chat_id);
          return next;
        }),
      replace,
    );
    source.runningChats().then(replace, () => replace([]));
    return () => {
      current = false;
      stop();
    };
  }, [generation]);
  return running;
}
