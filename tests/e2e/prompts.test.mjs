// An MCP server's prompt from the message box's slash menu, in the real window (DESIGN §17):
// the reference `everything` server (npm, tests/peers, over stdio) offers its prompts; `/`
// opens the menu, typing filters it, Enter completes the name and the arguments to fill are
// shown; the message sent shows as typed, with the expansion the model read unfoldable.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { explainFailures, openaiConfig, publish, REPO, startApp, text, waitFor } from "./harness.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

const EVERYTHING = join(REPO, "tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");

test("the slash menu opens, completes a prompt and sends it expanded", async () => {
  const app = await startApp({
    name: "prompts",
    config: (url) => openaiConfig(url, "\n[plan_mode]\nenabled = false\n"),
    env: (dir) => {
      const servers = { mcpServers: { everything: { command: "node", args: [EVERYTHING, "stdio"] } } };
      writeFileSync(join(dir, "home", "mcp.json"), JSON.stringify(servers));
      return {};
    },
    script: () => ({ routes: [{ replies: [text("Sunny, 24 °C.")] }] }),
  });
  try {
    await app.click('[data-testid="new-chat"]');
    const box = await app.find('[data-testid="message-box"]');
    await box.type("/");
    const option = await app.byText('[data-testid="slash-menu"] [role="option"]', "/args-prompt city [state]");
    assert.match(await option.text(), /from everything/);
    assert.ok((await app.count('[data-testid="slash-menu"] [role="option"]')) > 1, "every prompt is offered");
    const shot = await app.screenshot("slash-menu");
    await box.type("args");
    await waitFor(async () => (await app.count('[data-testid="slash-menu"] [role="option"]')) === 1, "the menu to be filtered");
    await box.type(KEYS.enter);
    await app.byText('[data-testid="prompt-arguments"]', "Name of the city");
    assert.equal(await app.session.execute(`return document.querySelector('[data-testid="message-box"]').value`), "/args-prompt ");
    await box.type("Paris" + KEYS.enter);

    await app.byText('[data-testid="messages"]', "Sunny, 24 °C.");
    await app.byText(".message.user .user-text", "/args-prompt Paris");
    assert.equal(await app.count('[data-testid="prompt-expansion"]'), 1);
    const asked = JSON.stringify(app.requests().at(-1));
    assert.match(asked, /What's weather in Paris\?/);
    publish(shot, "slash-menu.png");
  } finally {
    await app.stop();
  }
});
