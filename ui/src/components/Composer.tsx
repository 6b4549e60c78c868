// The message box: Enter sends, Shift+Enter is a new line. Locked while the planner's
// questions wait ("Answer the planner's questions first"); Stop while a turn runs.
import { useState } from "preact/hooks";

export const LOCKED_NOTICE = "Answer the planner's questions first";

export interface ComposerProps {
  /** Questions wait for answers: nothing may be sent. */
  locked: boolean;
  /** A turn runs: Stop instead of Send. */
  running: boolean;
  /** A plan waits for approval: a message is revision feedback. */
  awaitingApproval: boolean;
  /** Resolves true when the message was taken (the box is then cleared). */
  onSend: (text: string) => Promise<boolean>;
  onStop: () => void;
  /** ↑ in the empty box: edit the last message. */
  onEditLast?: () => void;
}

export function Composer({ locked, running, awaitingApproval, onSend, onStop, onEditLast }: ComposerProps) {
  const [text, setText] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const send = async () => {
    if (locked) {
      setNotice(LOCKED_NOTICE);
      return;
    }
    if (text.trim() === "") return;
    setNotice(null);
    if (await onSend(text)) setText("");
  };
  const placeholder = locked
    ? LOCKED_NOTICE
    : awaitingApproval
      ? "Describe what should change in the plan, or approve it above"
      : "Message Preflight (Enter sends, Shift+Enter for a new line)";
  return (
    <form
      class={`composer${locked ? " locked" : ""}`}
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      {notice && (
        <p class="notice" role="alert" data-testid="composer-notice">
          {notice}
        </p>
      )}
      <div class="composer-row">
        <textarea
          data-testid="message-box"
          aria-label="Message"
          rows={2}
          readOnly={locked}
          aria-disabled={locked}
          placeholder={placeholder}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              void send();
            } else if (event.key === "ArrowUp" && text === "" && onEditLast) {
              event.preventDefault();
              onEditLast();
            }
          }}
        />
        {running ? (
          <button type="button" class="secondary" data-testid="stop" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" class="primary" data-testid="send">
            Send
          </button>
        )}
      </div>
    </form>
  );
}
