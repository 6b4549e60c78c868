// Images in the conversation (DESIGN §15): a user message's images and those a tool returned,
// as thumbnails read from the chat's attachment copies (through the shell, as bytes, shown by
// a `blob:` URL: the CSP allows no other source); a click opens the full image over the
// window (Escape or × closes it, the focus goes back to the thumbnail; its alt text is the
// file's name). The open chat's loader comes from `ImageSource`, so the messages and tool
// blocks need not carry it.
import { createContext } from "preact";
import { useContext, useEffect, useState } from "preact/hooks";

import type { Attachment } from "../generated/Attachment";
import { t } from "../lib/i18n";
import { Dialog } from "./Dialog";

/** Reads the open chat's attachment `name` (its bytes); null outside a chat. */
export const ImageSource = createContext<((name: string) => Promise<ArrayBuffer>) | null>(null);

/** The image's `blob:` URL once read; "failed" when it could not be. Revoked on unmount. */
function useImageUrl(attachment: Attachment): string | "failed" | null {
  const load = useContext(ImageSource);
  const [url, setUrl] = useState<string | "failed" | null>(null);
  useEffect(() => {
    if (!load) return undefined;
    let made: string | null = null;
    let live = true;
    load(attachment.name).then(
      (bytes) => {
        if (!live) return;
        made = URL.createObjectURL(new Blob([bytes], { type: attachment.media_type }));
        setUrl(made);
      },
      () => live && setUrl("failed"),
    );
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [load, attachment.name]);
  return url;
}

export function MessageImages({ attachments }: { attachments?: Attachment[] }) {
  const images = (attachments ?? []).filter((attachment) => attachment.media_type);
  if (images.length === 0) return null;
  return (
    <ul class="message-images" data-testid="message-images" aria-label={t("images.inMessage")}>
      {images.map((image) => (
        <li key={image.name}>
          <Thumbnail attachment={image} />
        </li>
      ))}
    </ul>
  );
}

function Thumbnail({ attachment }: { attachment: Attachment }) {
  const url = useImageUrl(attachment);
  const [open, setOpen] = useState(false);
  if (url === "failed") {
    return (
      <span class="thumbnail missing small muted" data-testid="thumbnail-missing" title={attachment.name}>
        {t("images.missing", { name: attachment.name })}
      </span>
    );
  }
  return (
    <>
      <button
        type="button"
        class="thumbnail"
        data-testid="thumbnail"
        data-name={attachment.name}
        aria-label={t("images.open", { name: attachment.name })}
        title={attachment.name}
        disabled={url === null}
        onClick={() => setOpen(true)}
      >
        {url ? <img src={url} alt={attachment.name} draggable={false} /> : <span class="thumbnail-wait" aria-hidden="true" />}
      </button>
      {open && url && <ImageOverlay url={url} name={attachment.name} onClose={() => setOpen(false)} />}
    </>
  );
}

/** The full image over the window: a modal `Dialog` (focus in, Escape closes, focus back). */
export function ImageOverlay({ url, name, onClose }: { url: string; name: string; onClose: () => void }) {
  return (
    <Dialog title={name} testId="image-overlay" class="image-overlay" onClose={onClose}>
      <img class="full-image" src={url} alt={name} />
    </Dialog>
  );
}
