// What the message box will send beside its text: files by path (the paperclip's picker, or
// dropped from the file manager; the engine checks them and tells which are images) and
// images pasted or dropped as bytes (a screenshot from the clipboard, a browser's image).
// Each image gets a thumbnail (a `blob:` URL, revoked when its chip goes); a picked image
// file's comes from the shell, which reads back only files the user offered.
import { useEffect, useRef, useState } from "preact/hooks";

import type { PickedFile } from "../generated/PickedFile";
import { draftImage, droppedItem, type DraftImage } from "./images";

/** Reads a picked or dropped image file back for its chip (the shell's `image_preview`). */
export type PreviewSource = (path: string) => Promise<ArrayBuffer>;

export interface Drafts {
  files: PickedFile[];
  images: DraftImage[];
  /** Thumbnail URLs by a file's path or an image's id. */
  thumbs: Record<string, string>;
  addFiles: (picked: PickedFile[]) => void;
  addImages: (blobs: { file: Blob; name: string }[]) => Promise<void>;
  /** Dropped "paths": files are checked by `check`, `data:` images read, web addresses refused. */
  addDropped: (paths: string[], check: (paths: string[]) => Promise<PickedFile[]>) => Promise<void>;
  removeFile: (path: string) => void;
  removeImage: (id: string) => void;
  clear: () => void;
}

/** Adds files to the chips, once per path. */
export function mergeFiles(current: PickedFile[], added: PickedFile[]): PickedFile[] {
  const seen = new Set(current.map((file) => file.path));
  return [...current, ...added.filter((file) => !seen.has(file.path) && seen.add(file.path))];
}

function objectUrl(blob: Blob): string | null {
  return typeof URL.createObjectURL === "function" ? URL.createObjectURL(blob) : null;
}

function revoke(url: string | undefined) {
  if (url && typeof URL.revokeObjectURL === "function") URL.revokeObjectURL(url);
}

export function useDrafts(preview?: PreviewSource): Drafts {
  const [files, setFiles] = useState<PickedFile[]>([]);
  const [images, setImages] = useState<DraftImage[]>([]);
  const [thumbs, setThumbs] = useState<Record<string, string>>({});
  const current = useRef(thumbs);
  current.current = thumbs;
  // Every URL goes with the box.
  useEffect(() => () => Object.values(current.current).forEach(revoke), []);

  const setThumb = (key: string, url: string | null) => {
    if (url !== null) setThumbs((all) => ({ ...all, [key]: url }));
  };
  const dropThumbs = (keys: string[]) =>
    setThumbs((all) => {
      const kept = { ...all };
      for (const key of keys) {
        revoke(kept[key]);
        delete kept[key];
      }
      return kept;
    });
  const addFiles = (picked: PickedFile[]) => {
    setFiles((now) => mergeFiles(now, picked));
    for (const file of picked.filter((f) => f.media_type && !f.error)) {
      if (!preview || current.current[file.path]) continue;
      preview(file.path).then(
        (bytes) => setThumb(file.path, objectUrl(new Blob([bytes], { type: file.media_type }))),
        () => {}, // No thumbnail: the chip still names the image.
      );
    }
  };
  const addImages = async (blobs: { file: Blob; name: string }[]) => {
    const drafted = await Promise.all(blobs.map(({ file, name }) => draftImage(file, name)));
    setImages((now) => [...now, ...drafted]);
    for (const image of drafted) if (image.problem === null) setThumb(image.id, objectUrl(image.file));
  };
  const addDropped = async (paths: string[], check: (paths: string[]) => Promise<PickedFile[]>) => {
    const items = paths.map(droppedItem);
    const onDisk = items.flatMap((item) => (item.kind === "path" ? [item.path] : []));
    const web = items.flatMap((item) => (item.kind === "web" ? [item.url] : []));
    if (web.length > 0) {
      const refused = web.map((url, n): DraftImage => ({ id: `web-${Date.now()}-${n}`, name: url, size: 0, mediaType: null, problem: { kind: "web" }, file: new Blob([]) }));
      setImages((now) => [...now, ...refused]);
    }
    await addImages(items.flatMap((item) => (item.kind === "data" ? [{ file: item.file, name: item.name }] : [])));
    if (onDisk.length > 0) addFiles(await check(onDisk));
  };
  return {
    files,
    images,
    thumbs,
    addFiles,
    addImages,
    addDropped,
    removeFile: (path) => {
      setFiles((now) => now.filter((file) => file.path !== path));
      dropThumbs([path]);
    },
    removeImage: (id) => {
      setImages((now) => now.filter((image) => image.id !== id));
      dropThumbs([id]);
    },
    clear: () => {
      dropThumbs([...files.map((file) => file.path), ...images.map((image) => image.id)]);
      setFiles([]);
      setImages([]);
    },
  };
}
