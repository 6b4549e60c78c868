// Images and export/import in the real window (issue 50). An image pasted into the message box
// (a paste event carrying a File, as the clipboard gives one) is a chip with its thumbnail;
// sent, the scripted provider's request carries it as an image part byte for byte, and the
// message shows its thumbnail (read through the shell under the window's CSP), which opens the
// full image (Escape closes it, the focus goes back). The chat's menu exports it as JSON
// through the native save dialog (xdotool), and the export command writes Markdown to a path
// given directly. Switched to a provider with `vision = false`, the box names the model before
// sending and Send explains: nothing reaches that server. Last, the sidebar's Import reads the
// JSON back through the open dialog: the imported chat opens, its image named as not there.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { deflateSync } from "node:zlib";

import { checkA11y } from "./a11y.mjs";
import { pickInDialog, saveInDialog } from "./dialogs.mjs";
import { explainFailures, publish, startApp, text, waitFor } from "./harness.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes) => (bytes.reduce((c, byte) => CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8), 0xffffffff) ^ 0xffffffff) >>> 0;

function pngChunk(type, data) {
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A `width`×`height` RGB PNG whose pixels `paint(x, y)` gives. */
function png(width, height, paint) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows.set(paint(x, y), y * (width * 3 + 1) + 1 + x * 3);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, pngChunk("IHDR", header), pngChunk("IDAT", deflateSync(rows)), pngChunk("IEND", Buffer.alloc(0))]);
}

/** Orders by month as a bar chart: four blue bars rising on white. */
const CHART = png(240, 160, (x, y) => {
  const bar = Math.floor((x - 20) / 55);
  const inBar = x >= 20 && (x - 20) % 55 < 40 && bar < 4 && y >= 140 - (bar + 1) * 28 && y < 140;
  return inBar ? [33, 88, 214] : y === 140 && x >= 10 && x < 230 ? [90, 99, 110] : [255, 255, 255];
});
/** A second image, pasted and not sent: an orange square. */
const SKETCH = png(64, 64, (x, y) => (x > 8 && x < 56 && y > 8 && y < 56 ? [240, 140, 40] : [250, 250, 250]));

const config = (url, { blind }) => `[provider]
kind = "openai"
base_url = "${url}"
model = "scripted"

[plan_mode]
enabled = false

[providers.blind]
kind = "openai"
base_url = "${blind}"
model = "text-only"
vision = false
`;

const QUESTION = "Which month sold the most?";
const ANSWER = "The last bar is the highest: April sold the most.";

/** Pastes `bytes` into the message box as the clipboard would: a paste event with a File. */
function paste(app, bytes, name) {
  return app.session.execute(
    `const [base64, name] = arguments;
     const file = new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name, { type: "image/png" });
     const data = new DataTransfer();
     data.items.add(file);
     const box = document.querySelector('[data-testid="message-box"]');
     box.focus();
     let event = new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true });
     if (!event.clipboardData) {
       event = new Event("paste", { bubbles: true, cancelable: true });
       Object.defineProperty(event, "clipboardData", { value: data });
     }
     return !box.dispatchEvent(event);`,
    [bytes.toString("base64"), name],
  );
}

/** The natural width of the image `selector` finds, once loaded (0 before, or when refused). */
const loadedWidth = (app, selector) => app.session.execute(`const image = document.querySelector(arguments[0]); return image && image.complete ? image.naturalWidth : 0;`, [selector]);

/** Calls a shell command as lib/api.ts does (the page's Tauri IPC). */
const invoke = (app, command, args) =>
  app.session.executeAsync(
    `const [command, args, done] = arguments;
     window.__TAURI_INTERNALS__.invoke(command, args).then((value) => done({ value }), (error) => done({ error }));`,
    [command, args],
  );

test("images: pasted, sent byte for byte, shown and opened; refused before sending to a model that cannot see them; the chat exported and imported again", async () => {
  const out = mkdtempSync(join(tmpdir(), "preflight-e2e-export-"));
  const app = await startApp({
    name: "images",
    config,
    script: () => ({ routes: [{ replies: [text(ANSWER)] }] }),
    providers: { blind: () => ({ routes: [{ replies: [text("I cannot see it.")] }] }) },
  });
  try {
    await app.click('[data-testid="new-chat"]');
    await app.find('[data-testid="message-box"]');
    assert.equal(await paste(app, CHART, "orders-by-month.png"), true, "the box took the paste");
    const chip = await app.byText('[data-testid="attachment-chip"]', "orders-by-month.png");
    assert.match(await chip.text(), /orders-by-month\.png\s*\d+(\.\d)? (B|kB)/);
    await waitFor(async () => (await loadedWidth(app, '[data-testid="chip-thumb"]')) === 240, "the chip's thumbnail");

    // Sent: the provider is shown the image, byte for byte.
    await (await app.find('[data-testid="message-box"]')).type(QUESTION + KEYS.enter);
    await app.byText(".message.assistant", "April sold the most");
    const asked = app.requests().find((request) => request.path.endsWith("/chat/completions"));
    const user = asked.body.messages.find((message) => message.role === "user");
    const urls = user.content.filter((part) => part.type === "image_url").map((part) => part.image_url.url);
    assert.deepEqual(urls, [`data:image/png;base64,${CHART.toString("base64")}`], "the image part is the pasted bytes");
    assert.ok(user.content[0].text.startsWith(QUESTION), "the text goes first");
    assert.equal(await app.count('[data-testid="attachment-chip"]'), 0, "the chip went with the message");

    // The message's thumbnail, from the chat's copy, through the shell and a blob: URL.
    const thumbnail = '.message.user [data-testid="thumbnail"] img';
    await waitFor(async () => (await loadedWidth(app, thumbnail)) === 240, "the message's thumbnail");
    assert.equal(await app.session.execute(`return document.querySelector(arguments[0]).alt`, [thumbnail]), "orders-by-month.png");
    await paste(app, SKETCH, "sketch.png");
    await waitFor(async () => (await app.count('[data-testid="chip-thumb"]')) === 1, "the second image's chip");
    publish(await app.screenshot("images"), "images.png");

    // The full image opens over the window; Escape closes it and the focus goes back.
    await app.click('.message.user [data-testid="thumbnail"]');
    await app.find('[data-testid="image-overlay"]');
    await waitFor(async () => (await loadedWidth(app, '[data-testid="image-overlay"] img.full-image')) === 240, "the full image");
    await checkA11y(app, "the full image");
    await app.session.press(KEYS.escape);
    await waitFor(async () => (await app.count('[data-testid="image-overlay"]')) === 0, "the overlay to close");
    assert.ok(await app.session.execute(`return document.activeElement?.dataset.testid === "thumbnail"`), "the focus is back on the thumbnail");

    // Export from the chat's menu (the save dialog), Markdown by the same command directly.
    const chatId = await app.session.execute(`return document.querySelector(".chat-item.selected")?.dataset.chatId`);
    await app.click('[data-testid="chat-menu"]');
    await app.find('[data-testid="export-json"]');
    publish(await app.screenshot("export-menu"), "export-menu.png");
    await checkA11y(app, "the chat's menu");
    await app.click('[data-testid="export-json"]');
    const json = join(out, "orders.json");
    await saveInDialog("Export the chat", json);
    await app.byText('[data-testid="export-done"]', `Exported to ${json}`);
    const exported = JSON.parse(readFileSync(json, "utf8"));
    assert.equal(exported.format, 1);
    assert.ok(exported.messages.some((message) => message.content === ANSWER), "the export holds the answer");
    const markdown = join(out, "orders.md");
    assert.deepEqual(await invoke(app, "export_chat", { chat_id: chatId, format: "markdown", path: markdown }), { value: null });
    assert.match(readFileSync(markdown, "utf8"), new RegExp(QUESTION.replace("?", "\\?")));
    const refused = await invoke(app, "export_chat", { chat_id: chatId, format: "markdown", path: join(out, "orders.txt") });
    assert.equal(refused.error?.code, "ERR_BAD_REQUEST", "an export is written only to its format's extension");
    assert.equal(existsSync(join(out, "orders.txt")), false);

    // A model that cannot see images: said before sending, Send explains, nothing goes.
    await app.click('[data-testid="model-button"]');
    await app.click('[data-testid="model-option"][data-provider="blind"][data-model="text-only"]');
    await app.byText('[data-testid="model-divider"]', "text-only");
    await app.byText('[data-testid="blind-notice"]', "The model text-only cannot see images");
    assert.equal(await app.count('[data-testid="blind-notice"][role="status"]'), 1, "said before anything is sent");
    await (await app.find('[data-testid="message-box"]')).type("And this sketch?" + KEYS.enter);
    await app.find('[data-testid="blind-notice"][role="alert"]');
    assert.equal(await app.count('[data-testid="sending-images"]'), 0, "nothing is being sent");
    assert.deepEqual(app.requests("blind"), [], "the blind provider was asked nothing");
    await app.click('[data-testid="choose-vision-model"]');
    await app.find('[data-testid="model-popover"]');
    await app.session.press(KEYS.escape);

    // Import it again from the sidebar (the open dialog): the imported chat opens.
    await app.click('[data-testid="import-chat"]');
    await pickInDialog("Import a chat", json);
    await waitFor(async () => (await app.count(".chat-item")) === 2, "the imported chat in the sidebar");
    const opened = await app.session.execute(`return document.querySelector(".chat-item.selected")?.dataset.chatId`);
    assert.notEqual(opened, chatId, "the imported chat is the one open");
    await app.byText(".message.assistant", "April sold the most");
    // Its text read as the DOM has it: WebDriver's visible-text atom reads this one as "".
    const missing = () => app.session.execute(`return document.querySelector('[data-testid="thumbnail-missing"]')?.textContent ?? ""`);
    assert.match(await waitFor(missing, "the image named as not there"), /^orders-by-month\.png: its file is not in this chat/);
  } finally {
    await app.stop();
  }
});
