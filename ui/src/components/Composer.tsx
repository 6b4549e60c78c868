// The message box: Enter sends, Shift+Enter is a new line. Locked while the planner's
// questions wait ("Answer the planner's questions first"); Stop while a turn runs.
// Files come with the paperclip (the native picker) or dropped on the window; their chips
// show name and size and can be removed before sending. Under the box, how full the model's
// context is (`meter`, ./Usage.tsx).
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

import type { PickedFile } from "../generated/PickedFile";
import { t } from "../lib/i18n";
import { AttachmentChips, PaperclipIcon, mergeFiles } from "./Attachments";

/** What the box says while the planner's questions wait (ERR_PLAN_PENDING too). */
export function lockedNotice(): string {
  return t("composer.locked");
}

/** What dropping files on the window reports (the shell's drag-and-drop events). */
export type DropEvent = { type: "over" } | { type: "drop"; paths: string[] } | { type: "leave" };

/** Attaching files: the picker, the check of dropped paths, and the window's drops. */
export interface FileSource {
  pick: () => Promise<PickedFile[]>;
  check: (paths: string[]) => Promise<PickedFile[]>;
  /** Calls `handler` for each drag-and-drop event until the returned function is called. */
  subscribe: (handler: (event: DropEvent) => void) => () => void;
}

export interface ComposerProps {
  /** Questions wait for answers: nothing may be sent. */
  locked: boolean;
  /** A turn runs: Stop instead of Send. */
  running: boolean;
  /** A plan waits for approval: a message is revision feedback. */
  awaitingApproval: boolean;
  /** Resolves true when the message was taken (the box is then cleared). */
  onSend: (text: string, files: string[]) => Promise<boolean>;
  onStop: () => void;
  /** ↑ in the empty box: edit the last message. */
  onEditLast?: () => void;
  /** Without it the box takes no files. */
  files?: FileSource;
  /** Shown under the box: the context meter. */
  meter?: ComponentChildren;
}

export function Composer({ locked, running, awaitingApproval, onSend, onStop, onEditLast, files: source, meter }: ComposerProps) {
  const [text, setText] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const [files, setFiles] = useState<PickedFile[]>([]);
  const [dragging, setDragging] = useState(false);
  // Plan feedback carries no files (the engine refuses them): the paperclip waits.
  const attachable = source !== undefined && !locked && !awaitingApproval;
  const add = (added: PickedFile[]) => setFiles((current) => mergeFiles(current, added));
  useEffect(() => {
    if (!source || !attachable) return undefined;
    return source.subscribe((event) => {
      setDragging(event.type === "over");
      if (event.type === "drop" && event.paths.length > 0) void source.check(event.paths).then(add);
    });
  }, [source, attachable]);
  const send = async () => {
    if (locked) {
      setNotice(lockedNotice());
      return;
    }
    if (text.trim() === "") return;
    const refused = files.find((file) => file.error);
    if (refused) {
      setNotice(t("composer.refused", { name: refused.name }));
      return;
    }
    setNotice(null);
    if (await onSend(text, files.map((file) => file.path))) {
      setText("");
      setFiles([]);
    }
  };
  const placeholder = locked
    ? lockedNotice()
    : awaitingApproval
      ? t("composer.feedbackPlaceholder")
      : t("composer.placeholder");
  return (
    <form
      class={`composer${locked ? " locked" : ""}${dragging ? " dragging" : ""}`}
      data-testid="composer"
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
      {dragging && <p class="drop-hint" data-testid="drop-hint">{t("composer.dropHint")}</p>}
      <AttachmentChips files={files} onRemove={(path) => setFiles(files.filter((file) => file.path !== path))} />
      <div class="composer-row">
        {source && (
          <button
            type="button"
            class="secondary attach"
            data-testid="attach"
            aria-label={t("composer.attach")}
            title={attachable ? t("composer.attachHint") : t("composer.attachNotNow")}
            disabled={!attachable}
            onClick={() => void source.pick().then(add)}
          >
            <PaperclipIcon />
          </button>
        )}
        <textarea
          data-testid="message-box"
          aria-label={t("composer.message")}
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
            {t("composer.stop")}
          </button>
        ) : (
          <button type="submit" class="primary" data-testid="send">
            {t("composer.send")}
          </button>
        )}
      </div>
      {meter}
    </form>
  );
}
