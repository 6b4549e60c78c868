// A year of chats in the real window (issue 33): a data folder of 150 chats of 240 messages,
// written through the engine's store (`seed-chats`). The sidebar shows the first page and
// loads the next as it scrolls; Ctrl+K finds Russian words, one typed in part, in another
// case and with е for the ё written, in the oldest chat's first message — a chat not loaded in the sidebar, a message
// older than the chat's latest page — and opens the chat at it.
import assert from "node:assert/strict";

import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";

import { checkA11y } from "./a11y.mjs";
import { explainFailures, openaiConfig, publish, startApp, TARGET, waitFor } from "./harness.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

const CHATS = 150;
const MESSAGES = 240;

test("Ctrl+K opens the oldest chat at its first message; the sidebar pages as it scrolls", async () => {
  const app = await startApp({
    name: "search",
    config: (url) => openaiConfig(url, "\n[plan_mode]\nenabled = false\n"),
    script: () => ({ routes: [] }),
    prepare: (home) =>
      execFileSync(join(TARGET, "debug/seed-chats"), [join(home, "preflight.db"), String(CHATS), String(MESSAGES), "Ёлочная Зебрафиш"], { stdio: "ignore" }),
  });
  try {
    // The newest chat first; not every chat is loaded, and scrolling to the end loads them all.
    // (WebKitWebDriver reads an empty text for the sidebar's title buttons: read the DOM's.)
    const firstTitle = () => app.session.execute("return document.querySelector('.chat-list .chat-title')?.textContent ?? null");
    await waitFor(async () => (await firstTitle()) === `Chat ${CHATS - 1}: orders report`, "the newest chat first in the sidebar");
    const sidebarRows = () => app.session.execute("return parseFloat(document.querySelector('.chat-list .virtual-rows').style.height) / 34");
    assert.ok((await sidebarRows()) < CHATS, "the sidebar starts with a page, not every chat");
    assert.ok((await app.count(".chat-list li")) < 60, "only the rows in view (and a few more) are in the page");

    await app.session.chord(KEYS.control, "k");
    const search = await app.find('[data-testid="search-input"]');
    await search.type("елочная зебраф");
    const hit = await app.byText('[data-testid="search-hit"]', "Chat 0: orders report");
    assert.equal(await app.count('[data-testid="search-hit"]'), 1, "one message says it");
    assert.match(await hit.text(), /Ёлочная Зебрафиш/, "the snippet shows the words as they were written (ё found by е)");
    assert.ok((await app.count('[data-testid="search-hit"] mark')) >= 1, "the word is highlighted");
    publish(await app.screenshot("search-deep"), "search-deep.png");
    await checkA11y(app, "the search dialog");
    await search.type(KEYS.enter);
    await waitFor(async () => (await app.count('[data-testid="search"]')) === 0, "the search to close");

    // The chat opens at the hit: its first message, shown and marked, though older than the latest page.
    const target = await app.find(".message.search-target");
    assert.match(await target.text(), /Question 0 about the March orders Ёлочная Зебрафиш/);
    const inView = await app.session.execute(
      "const m = document.querySelector('.message.search-target').getBoundingClientRect(); const l = document.querySelector('[data-testid=\"messages\"]').getBoundingClientRect(); return m.bottom > l.top && m.top < l.bottom",
    );
    assert.ok(inView, "the hit's message is in view");

    // Scrolling the sidebar to its end loads every page.
    await waitFor(async () => {
      await app.session.execute("const l = document.querySelector('.chat-list'); l.scrollTop = l.scrollHeight");
      return (await sidebarRows()) === CHATS;
    }, `all ${CHATS} chats in the sidebar`);
  } finally {
    await app.stop();
  }
});
