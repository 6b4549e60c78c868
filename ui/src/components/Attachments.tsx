// Files on a message: the chips in the message box (picked with the paperclip, dropped on the
// window, or images pasted; name and size, an image's thumbnail, removable; one that cannot
// be attached says why and is not sent), and the list on a sent message's bubble, its images
// as thumbnails (./ImageThumbnails.tsx).
import type { Attachment } from "../generated/Attachment";
import type { PickedFile } from "../generated/PickedFile";
import { formatNumber, t } from "../lib/i18n";
import type { DraftImage, ImageProblem } from "../lib/images";
import { MessageImages } from "./ImageThumbnails";

export { mergeFiles } from "../lib/useDrafts";

/** A paperclip, drawn (the window has no emoji font to rely on). */
export function PaperclipIcon() {
  return (
    <svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
      <path d="M21 11.5l-8.6 8.6a5.5 5.5 0 0 1-7.8-7.8l8.6-8.6a3.7 3.7 0 0 1 5.2 5.2l-8.6 8.6a1.8 1.8 0 0 1-2.6-2.6l8-8" />
    </svg>
  );
}

/** `512 B`, `12.3 kB`, `4.5 MB` (Russian: `12,3 кБ`): the engine's units (chat/attachment.rs). */
export function humanSize(bytes: number): string {
  if (bytes < 1000) return t("units.B", { value: formatNumber(bytes) });
  if (bytes < 1_000_000) return t("units.kB", { value: formatNumber(bytes / 1000, 1) });
  return t("units.MB", { value: formatNumber(bytes / 1_000_000, 1) });
}

/** Why a pasted or dropped image cannot go, in words. */
export function imageProblemText(problem: ImageProblem): string {
  switch (problem.kind) {
    case "too_big":
      return t("images.tooBig", { size: humanSize(problem.size) });
    case "not_image":
      return t("images.notImage");
    case "unreadable":
      return t("images.unreadable");
    case "web":
      return t("images.web");
  }
}

export interface ChipsProps {
  files: PickedFile[];
  images?: DraftImage[];
  /** Thumbnail URLs by a file's path or an image's id. */
  thumbs?: Record<string, string>;
  onRemove: (path: string) => void;
  onRemoveImage?: (id: string) => void;
}

export function AttachmentChips({ files, images = [], thumbs = {}, onRemove, onRemoveImage }: ChipsProps) {
  if (files.length === 0 && images.length === 0) return null;
  const chips = [
    ...files.map((file) => ({ key: file.path, name: file.name, detail: file.error ?? humanSize(file.size), refused: file.error !== null, title: file.error ?? file.path, image: !!file.media_type, remove: () => onRemove(file.path) })),
    ...images.map((image) => {
      const problem = image.problem && imageProblemText(image.problem);
      const name = image.name || t("images.pasted");
      return { key: image.id, name, detail: problem ?? humanSize(image.size), refused: problem !== null, title: problem ?? name, image: true, remove: () => onRemoveImage?.(image.id) };
    }),
  ];
  return (
    <ul class="attachment-chips" data-testid="attachment-chips" aria-label={t("composer.attached")}>
      {chips.map((chip) => (
        <li key={chip.key} class={`chip${chip.refused ? " refused" : ""}${chip.image ? " image-chip" : ""}`} title={chip.title} data-testid="attachment-chip" data-image={chip.image ? "1" : undefined}>
          {thumbs[chip.key] && <img class="chip-thumb" data-testid="chip-thumb" src={thumbs[chip.key]} alt="" draggable={false} />}
          <span class="chip-name">{chip.name}</span>
          <span class="chip-size muted">{chip.detail}</span>
          <button type="button" class="chip-remove" aria-label={t("composer.removeFile", { name: chip.name })} data-testid="remove-attachment" onClick={chip.remove}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The files of a sent message: its images as thumbnails, the rest as copied (name, size),
 *  or the paths of an older message. */
export function MessageFiles({ attachments, files }: { attachments?: Attachment[]; files: string[] }) {
  const images = (attachments ?? []).filter((file) => file.media_type);
  const others = (attachments ?? []).filter((file) => !file.media_type);
  const items = attachments?.length
    ? others.map((file) => ({ key: file.name, label: file.name, size: humanSize(file.size), title: file.workspace_path ?? file.source }))
    : files.map((file) => ({ key: file, label: file, size: "", title: file }));
  return (
    <>
      <MessageImages attachments={images} />
      {items.length > 0 && (
        <ul class="message-files small" data-testid="message-files">
          {items.map((item) => (
            <li key={item.key} title={item.title}>
              <PaperclipIcon /> {item.label} {item.size && <span class="muted">{item.size}</span>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
