// The chat's polite live region (issue 48): screen readers hear what changed — a task done,
// a card to act on, an answer started or finished, a stop — in one line, not the chat again.
import { useEffect, useRef, useState } from "preact/hooks";

import { announcements, snapshotOf, type ChatSnapshot } from "../lib/announce";
import type { ChatState } from "../lib/chatState";
import { stopReasonShort } from "./StopCard";

export function Announcer({ state }: { state: ChatState }) {
  const before = useRef<ChatSnapshot | null>(null);
  const [said, setSaid] = useState("");
  useEffect(() => {
    const now = snapshotOf(state);
    const previous = before.current;
    before.current = now;
    if (previous === null) return;
    const lines = announcements(previous, now, stopReasonShort);
    if (lines.length > 0) setSaid(lines.join(" "));
  }, [state]);
  return (
    <div class="visually-hidden" role="status" aria-live="polite" aria-atomic="true" data-testid="announcer">
      {said}
    </div>
  );
}
