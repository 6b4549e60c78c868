// Images in the message box (DESIGN §15): what was pasted or dropped, checked as the engine
// will check it (a PNG, JPEG, GIF or WebP told by its first bytes, at most 20 MiB), so a chip
// says what will be refused before anything is sent; and the base64 the engine takes, made
// once when the message goes (one encoding: the JSON of the command carries it as is).
import type { PastedImage } from "../generated/PastedImage";

/** The largest image a model is shown (the engine's `MAX_IMAGE_BYTES`). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** The formats both provider APIs take, each with the first bytes that mark it. */
const FORMATS: [string, number[]][] = [
  ["image/png", [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ["image/jpeg", [0xff, 0xd8, 0xff]],
  ["image/gif", [0x47, 0x49, 0x46, 0x38]],
  ["image/webp", [0x52, 0x49, 0x46, 0x46]],
];

/** The media type of an image models take, read from its first bytes (as the engine's
 *  `image_media_type`); null for anything else, whatever its name or type says. */
export function imageMediaType(head: Uint8Array): string | null {
  const found = FORMATS.find(([, magic]) => magic.every((byte, i) => head[i] === byte));
  if (!found || head.length <= found[1].length) return null;
  const [type] = found;
  // RIFF holds WAV and AVI too: WebP names itself at bytes 8..12.
  if (type === "image/webp" && String.fromCharCode(...head.slice(8, 12)) !== "WEBP") return null;
  return type;
}

/** Why an image cannot go with the message; null when it can. */
export type ImageProblem = { kind: "too_big"; size: number } | { kind: "not_image" } | { kind: "unreadable" } | { kind: "web" };

/** An image in the message box, not sent yet. */
export interface DraftImage {
  /** Unique in the box (a pasted image has no path). */
  id: string;
  name: string;
  size: number;
  /** Told by its bytes; null when it is none of the four formats. */
  mediaType: string | null;
  problem: ImageProblem | null;
  file: Blob;
}

let drafted = 0;

/** Reads `blob` as `kind` (FileReader: what every webview and jsdom have). */
function read(blob: Blob, kind: "buffer"): Promise<ArrayBuffer>;
function read(blob: Blob, kind: "dataUrl"): Promise<string>;
function read(blob: Blob, kind: "buffer" | "dataUrl"): Promise<ArrayBuffer | string> {
  return new Promise((done, fail) => {
    const reader = new FileReader();
    reader.onload = () => done(reader.result as ArrayBuffer | string);
    reader.onerror = () => fail(reader.error ?? new Error("the file could not be read"));
    if (kind === "buffer") reader.readAsArrayBuffer(blob);
    else reader.readAsDataURL(blob);
  });
}

/** A pasted or dropped file as a chip: its first bytes say whether it is an image. */
export async function draftImage(file: Blob, name: string): Promise<DraftImage> {
  const id = `image-${(drafted += 1)}`;
  const base = { id, name, size: file.size, file };
  try {
    const mediaType = imageMediaType(new Uint8Array(await read(file.slice(0, 16), "buffer")));
    if (mediaType === null) return { ...base, mediaType, problem: { kind: "not_image" } };
    if (file.size > MAX_IMAGE_BYTES) return { ...base, mediaType, problem: { kind: "too_big", size: file.size } };
    return { ...base, mediaType, problem: null };
  } catch {
    return { ...base, mediaType: null, problem: { kind: "unreadable" } };
  }
}

/** The name a pasted file goes by: its own, or none (the engine then names it `pasted.png`). */
export function nameOf(file: Blob): string {
  return file instanceof File && file.name !== "" ? file.name : "";
}

/** The image as the engine takes it: its bytes as base64, encoded once, here. */
export async function pastedImage(image: DraftImage): Promise<PastedImage> {
  const url = await read(image.file, "dataUrl");
  const data = url.slice(url.indexOf(",") + 1);
  const pasted: PastedImage = { media_type: image.mediaType ?? "application/octet-stream", data };
  if (image.name !== "") pasted.name = image.name;
  return pasted;
}

/** The files of a paste or a drop (the clipboard's image, a browser's dragged image). */
export function filesOf(data: DataTransfer | null): File[] {
  if (!data) return [];
  const files = Array.from(data.files ?? []);
  if (files.length > 0) return files;
  return Array.from(data.items ?? [])
    .filter((item) => item.kind === "file")
    .map((item) => item.getAsFile())
    .filter((file): file is File => file !== null);
}

/** What a dropped "path" is: a file's path, an image carried in a `data:` URL (a browser's
 *  inline image), or an address on the web (never fetched: the window goes nowhere). */
export type DroppedItem = { kind: "path"; path: string } | { kind: "data"; file: Blob; name: string } | { kind: "web"; url: string };

export function droppedItem(path: string): DroppedItem {
  const data = /^data:([\w.+-]+\/[\w.+-]+)?(;[^,]*)?,(.*)$/s.exec(path);
  if (data) {
    const base64 = (data[2] ?? "").includes(";base64");
    const body = data[3] ?? "";
    try {
      const text = base64 ? atob(body.replace(/\s/g, "")) : decodeURIComponent(body);
      const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
      return { kind: "data", file: new Blob([bytes], { type: data[1] ?? "" }), name: "" };
    } catch {
      // Not base64 nor URL-encoded after all: its bytes cannot be known.
      return { kind: "data", file: new Blob([]), name: "" };
    }
  }
  // A scheme of two letters or more (a drive letter is one), or a page's own `blob:`.
  if (/^([a-z][a-z0-9+.-]+:\/\/|blob:)/i.test(path)) return { kind: "web", url: path };
  return { kind: "path", path };
}

/** Total bytes of the images, for the "sending" line. */
export function totalSize(images: { size: number }[]): number {
  return images.reduce((sum, image) => sum + image.size, 0);
}
