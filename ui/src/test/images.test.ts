// Images in the message box, checked as the engine checks them: told by their first bytes,
// at most 20 MiB; a dropped "path" that is a data: URL or a web address; the base64 made
// once for the engine, byte for byte.
import { describe, expect, it } from "vitest";

import { PNG, PNG_BASE64 } from "./fixtures";
import { draftImage, droppedItem, filesOf, imageMediaType, MAX_IMAGE_BYTES, pastedImage } from "../lib/images";

const bytes = (...parts: (number[] | string)[]) =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === "string" ? [...part].map((c) => c.charCodeAt(0)) : part)));


describe("images", () => {
  it.each([
    ["a PNG", bytes([0x89], "PNG\r\n\x1a\n", [0, 0]), "image/png"],
    ["a JPEG", bytes([0xff, 0xd8, 0xff, 0xe0]), "image/jpeg"],
    ["a GIF", bytes("GIF89a"), "image/gif"],
    ["a WebP", bytes("RIFF", [0, 0, 0, 0], "WEBPVP8 "), "image/webp"],
    ["a WAV (RIFF, not WebP)", bytes("RIFF", [0, 0, 0, 0], "WAVEfmt "), null],
    ["text", bytes("hello, world"), null],
    ["the marker alone", bytes([0xff, 0xd8, 0xff]), null],
    ["nothing", bytes(), null],
  ])("%s is told by its bytes", (_, head, expected) => {
    expect(imageMediaType(head)).toBe(expected);
  });

  it("a chip knows what it holds: an image, something else, or too much", async () => {
    const image = await draftImage(new Blob([PNG], { type: "image/png" }), "shot.png");
    expect(image).toMatchObject({ name: "shot.png", size: PNG.length, mediaType: "image/png", problem: null });
    const named = await draftImage(new Blob([bytes("<svg/>")], { type: "image/png" }), "fake.png");
    expect(named.problem).toEqual({ kind: "not_image" });
    const big = new Uint8Array(MAX_IMAGE_BYTES + 1);
    big.set(PNG);
    expect((await draftImage(new Blob([big]), "huge.png")).problem).toEqual({ kind: "too_big", size: MAX_IMAGE_BYTES + 1 });
  });

  it("the engine gets the bytes as base64 once, exactly", async () => {
    const image = await draftImage(new Blob([PNG]), "");
    expect(await pastedImage(image)).toEqual({ media_type: "image/png", data: PNG_BASE64 });
    const named = await draftImage(new Blob([PNG]), "shot.png");
    expect((await pastedImage(named)).name).toBe("shot.png");
  });

  it("a dropped path is a file, an image in a data: URL, or the web's (never fetched)", async () => {
    expect(droppedItem("/home/u/shot.png")).toEqual({ kind: "path", path: "/home/u/shot.png" });
    expect(droppedItem("https://example.com/cat.jpg")).toEqual({ kind: "web", url: "https://example.com/cat.jpg" });
    expect(droppedItem("blob:tauri://localhost/1234").kind).toBe("web");
    const inline = droppedItem(`data:image/png;base64,${PNG_BASE64}`);
    expect(inline.kind).toBe("data");
    if (inline.kind !== "data") return;
    const drafted = await draftImage(inline.file, inline.name);
    expect(drafted.problem).toBeNull();
    expect((await pastedImage(drafted)).data).toBe(PNG_BASE64);
  });

  it("a paste's files come from its files, or else its items", () => {
    const file = new File([PNG], "image.png", { type: "image/png" });
    const withFiles = { files: [file], items: [] } as unknown as DataTransfer;
    expect(filesOf(withFiles)).toEqual([file]);
    const withItems = { files: [], items: [{ kind: "string", getAsFile: () => null }, { kind: "file", getAsFile: () => file }] } as unknown as DataTransfer;
    expect(filesOf(withItems)).toEqual([file]);
    expect(filesOf(null)).toEqual([]);
  });
});
