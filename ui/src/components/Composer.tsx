// The message box: Enter sends, Shift+Enter is a new line. Locked while the planner's
// questions wait ("Answer the planner's questions first"); Stop while a turn runs.
// Files come with the paperclip (the native picker) or dropped on the window; images also
// pasted (a screenshot) or dragged from a browser. Their chips show name and size (an image
// its thumbnail) and can be removed before sending; one that cannot go says why on its chip.
// When the chat's model cannot see images, the box says so before sending, naming the model,
// and offers the header's model picker; Send then explains instead of sending. While a
// message with images goes, the box says it is sending them. Under the box, how full the
// model's context is (`meter`, ./Usage.tsx). `/` and `@` open the menus of the chat's MCP
// prompts and resources (`offers`, ./OfferMenu.tsx).
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

import type { PastedImage } from "../generated/PastedImage";
import type { PickedFile } from "../generated/PickedFile";
import { t } from "../lib/i18n";
import { filesOf, nameOf, pastedImage, totalSize } from "../lib/images";
import { useDrafts, type PreviewSource } from "../lib/useDrafts";
import type { Vision } from "../lib/vision";
import { AttachmentChips, humanSize, PaperclipIcon } from "./Attachments";
import { useOfferMenu, type OfferSource } from "./OfferMenu";

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
  /** A picked or dropped image file's bytes, for its chip's thumbnail. */
  preview?: PreviewSource;
}

/** Whether the chat's model sees the images the box holds. */
export interface ImageVision {
  /** The model that would refuse them; null when none is known to. */
  blind: Vision | null;
  /** The box holds images and the model list is not read yet: read it. */
  onNeedModels?: () => void;
  /** Opens the header's model picker. */
  onChooseModel?: () => void;
}

export interface ComposerProps {
  /** Questions wait for answers: nothing may be sent. */
  locked: boolean;
  /** A turn runs: Stop instead of Send. */
  running: boolean;
  /** A plan waits for approval: a message is revision feedback. */
  awaitingApproval: boolean;
  /** Resolves true when the message was taken (the box is then cleared). */
  onSend: (text: string, files: string[], images: PastedImage[]) => Promise<boolean>;
  onStop: () => void;
  /** ↑ in the empty box: edit the last message. */
  onEditLast?: () => void;
  /** Without it the box takes no files. */
  files?: FileSource;
  vision?: ImageVision;
  /** Shown under the box: the context meter. */
  meter?: ComponentChildren;
  /** The chat's MCP prompts and resources, for the slash and @ menus. */
  offers?: OfferSource;
}

export function Composer({ locked, running, awaitingApproval, onSend, onStop, onEditLast, files: source, vision, meter, offers }: ComposerProps) {
  const [text, setText] = useState("");
  const menu = useOfferMenu(text, setText, locked ? undefined : offers);
  const [notice, setNotice] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [sending, setSending] = useState<string | null>(null);
  /** Send was pressed while the model cannot see the images: the notice says it again, aloud. */
  const [explained, setExplained] = useState(false);
  const drafts = useDrafts(source?.preview);
  // Plan feedback carries no files (the engine refuses them): the paperclip waits.
  const attachable = source !== undefined && !locked && !awaitingApproval;
  const images = drafts.images.filter((image) => image.problem === null);
  const imageCount = images.length + drafts.files.filter((file) => file.media_type && !file.error).length;
  const blind = imageCount > 0 ? (vision?.blind ?? null) : null;
  useEffect(() => {
    if (imageCount > 0) vision?.onNeedModels?.();
  }, [imageCount > 0]);
  // What the box said of its chips is stale once they change.
  useEffect(() => {
    setNotice(null);
    setExplained(false);
  }, [drafts.files.length, drafts.images.length]);
  useEffect(() => {
    if (!source || !attachable) return undefined;
    return source.subscribe((event) => {
      setDragging(event.type === "over");
      if (event.type === "drop" && event.paths.length > 0) void drafts.addDropped(event.paths, source.check);
    });
  }, [source, attachable]);
  /** Images pasted, or dropped where the window (not the shell) took the drop. */
  const takeImages = (blobs: File[]) => {
    if (blobs.length === 0) return false;
    if (!attachable) setNotice(t("composer.attachNotNow"));
    else void drafts.addImages(blobs.map((file) => ({ file, name: nameOf(file) })));
    return true;
  };
  const send = async () => {
    if (locked) return setNotice(lockedNotice());
    if (text.trim() === "" || sending !== null) return;
    const refused = drafts.files.find((file) => file.error) ?? drafts.images.find((image) => image.problem);
    if (refused) return setNotice(t("composer.refused", { name: refused.name || t("images.pasted") }));
    if (blind) return setExplained(true);
    setNotice(null);
    if (images.length > 0) setSending(t("images.sending", { count: images.length, size: humanSize(totalSize(images)) }));
    try {
      // Encoded as the message goes (an image may be megabytes); a message without is sent at once.
      const pasted = images.length > 0 ? await Promise.all(images.map(pastedImage)) : [];
      if (await onSend(text, drafts.files.map((file) => file.path), pasted)) {
        setText("");
        drafts.clear();
      }
    } catch {
      setNotice(t("images.unreadable"));
    } finally {
      setSending(null);
    }
  };
  const placeholder = locked ? lockedNotice() : awaitingApproval ? t("composer.feedbackPlaceholder") : t("composer.placeholder");
  return (
    <form
      class={`composer${locked ? " locked" : ""}${dragging ? " dragging" : ""}`}
      data-testid="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
      onDragOver={(event) => {
        if (source && event.dataTransfer?.types.includes("Files")) event.preventDefault();
      }}
      onDrop={(event) => {
        if (source && takeImages(filesOf(event.dataTransfer))) event.preventDefault();
      }}
    >
      {notice && (
        <p class="notice" role="alert" data-testid="composer-notice">
          {notice}
        </p>
      )}
      {blind && <BlindNotice model={blind.model} count={imageCount} alert={explained} onChooseModel={vision?.onChooseModel} />}
      {dragging && <p class="drop-hint" data-testid="drop-hint">{t("composer.dropHint")}</p>}
      <AttachmentChips files={drafts.files} images={drafts.images} thumbs={drafts.thumbs} onRemove={drafts.removeFile} onRemoveImage={drafts.removeImage} />
      {sending && (
        <p class="sending small muted" role="status" data-testid="sending-images">
          <span class="spinner" aria-hidden="true" /> {sending}
        </p>
      )}
      {menu.element}
      <div class="composer-row">
        {source && (
          <button
            type="button"
            class="secondary attach"
            data-testid="attach"
            aria-label={t("composer.attach")}
            title={attachable ? t("composer.attachHint") : t("composer.attachNotNow")}
            disabled={!attachable}
            onClick={() => void source.pick().then(drafts.addFiles)}
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
          onPaste={(event) => {
            if (source && takeImages(filesOf(event.clipboardData))) event.preventDefault();
          }}
          onKeyDown={(event) => {
            if (!event.isComposing && menu.onKey(event)) {
              event.preventDefault();
            } else if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
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
          <button
            type="submit"
            class="primary"
            data-testid="send"
            aria-disabled={blind !== null || sending !== null}
            aria-busy={sending !== null}
            title={blind ? t("images.blind", { model: blind.model, count: imageCount }) : undefined}
          >
            {sending ? t("composer.sending") : t("composer.send")}
          </button>
        )}
      </div>
      {meter}
    </form>
  );
}

/** The chat's model cannot see the images: said before sending, with the way out; said as an
 *  alert once Send was pressed (`alert`), instead of sending. */
function BlindNotice({ model, count, alert, onChooseModel }: { model: string; count: number; alert: boolean; onChooseModel?: () => void }) {
  return (
    <p class={`blind-notice small${alert ? " pressed" : ""}`} role={alert ? "alert" : "status"} data-testid="blind-notice">
      {t("images.blind", { model, count })}{" "}
      {onChooseModel ? (
        <button type="button" class="secondary small" data-testid="choose-vision-model" onClick={onChooseModel}>
          {t("images.chooseModel")}
        </button>
      ) : (
        <span class="muted">{t("images.inSettings")}</span>
      )}
    </p>
  );
}
