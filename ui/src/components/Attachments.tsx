// Files on a message: the chips in the message box (picked with the paperclip or dropped on
// the window; name and size, removable, a file that cannot be attached says why and is not
// sent), and the list on a sent message's bubble.
import type { Attachment } from "../generated/Attachment";
import type { PickedFile } from "../generated/PickedFile";
import { formatNumber, t } from "../lib/i18n";

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

/** Adds files to the chips, once per path. */
export function mergeFiles(current: PickedFile[], added: PickedFile[]): PickedFile[] {
  const seen = new Set(current.map((file) => file.path));
  return [...current, ...added.filter((file) => !seen.has(file.path) && seen.add(file.path))];
}

export function AttachmentChips({ files, onRemove }: { files: PickedFile[]; onRemove: (path: string) => void }) {
  if (files.length === 0) return null;
  return (
    <ul class="attachment-chips" data-testid="attachment-chips" aria-label={t("composer.attached")}>
      {files.map((file) => (
        <li key={file.path} class={`chip${file.error ? " refused" : ""}`} title={file.error ?? file.path} data-testid="attachment-chip">
          <span class="chip-name">{file.name}</span>
          <span class="chip-size muted">{file.error ? file.error : humanSize(file.size)}</span>
          <button type="button" class="chip-remove" aria-label={t("composer.removeFile", { name: file.name })} data-testid="remove-attachment" onClick={() => onRemove(file.path)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The files of a sent message: as copied (name, size), or the paths of an older message. */
export function MessageFiles({ attachments, files }: { attachments?: Attachment[]; files: string[] }) {
  const items = attachments?.length
    ? attachments.map((file) => ({ key: file.name, label: file.name, size: humanSize(file.size), title: file.workspace_path ?? file.source }))
    : files.map((file) => ({ key: file, label: file, size: "", title: file }));
  if (items.length === 0) return null;
  return (
    <ul class="message-files small" data-testid="message-files">
      {items.map((item) => (
        <li key={item.key} title={item.title}>
          <PaperclipIcon /> {item.label} {item.size && <span class="muted">{item.size}</span>}
        </li>
      ))}
    </ul>
  );
}
