// An MCP server's questions during execution, in the real window: the reference `everything`
// server (npm, tests/peers, over stdio) asks for a form (its defaults filled in, its required
// name checked before anything is sent), then for a page to open (opened only on the user's
// click, by the browser the app starts: a recorder here); each card goes once answered, and
// the server got the answers (the tool results the model reads hold them).
import assert from "node:assert/strict";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { checkA11y } from "./a11y.mjs";
import { explainFailures, openaiConfig, publish, REPO, startApp, text, toolCall, waitFor } from "./harness.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

const EVERYTHING = join(REPO, "tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const PAGE = "https://example.com/confirm?session=42";

test("a server's form and URL questions: defaults shown, nothing sent or opened without a click, answers reach the server", async () => {
  const app = await startApp({
    name: "elicitation",
    config: (url) => openaiConfig(url, "\n[plan_mode]\nenabled = false\n"),
    env: (dir) => {
      const servers = { mcpServers: { everything: { command: "node", args: [EVERYTHING, "stdio"] } } };
      writeFileSync(join(dir, "home", "mcp.json"), JSON.stringify(servers));
      // The browser the app starts is replaced by a recorder of the page it was asked to open.
      const browser = join(dir, "open-url.sh");
      const opened = join(dir, "opened.txt");
      writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > "${opened}.part" && mv "${opened}.part" "${opened}"\n`);
      chmodSync(browser, 0o755);
      return { PREFLIGHT_OPEN_URL: browser };
    },
    script: () => ({
      routes: [
        {
          replies: [
            toolCall("mcp_everything_trigger-elicitation-request", {}),
            toolCall("mcp_everything_trigger-url-elicitation", { url: PAGE, message: "Confirm the order on the shop's page." }),
            text("Thanks, both are done."),
          ],
        },
      ],
    }),
  });
  const value = (name) => app.session.execute(`return document.querySelector('[data-testid="field-${name}"]').value`);
  try {
    await app.click('[data-testid="new-chat"]');
    const box = await app.find('[data-testid="message-box"]');
    await box.type("Collect my details, then confirm the order" + KEYS.enter);

    const form = await app.find('[data-testid="elicitation-card"][data-mode="form"]');
    assert.match(await form.text(), /everything asks/);
    assert.match(await form.text(), /Please provide inputs for the following fields:/);
    assert.equal(await value("integer"), "42");
    assert.equal(await value("firstLine"), "It was a dark and stormy night.");
    assert.equal(await app.session.execute(`return document.querySelector('[data-testid="field-untitledMultipleSelectEnum-0"]').checked`), true);
    const formShot = await app.screenshot("form");
    await checkA11y(app, "an MCP server's form");
    await app.click('[data-testid="elicitation-accept"]');
    await app.byText('[data-testid="elicitation-error"]', "“String” is required.");
    await (await app.find('[data-testid="field-name"]')).type("Ada Lovelace");
    await app.click('[data-testid="elicitation-accept"]');

    const url = await app.find('[data-testid="elicitation-card"][data-mode="url"]');
    assert.equal(await app.count('[data-testid="elicitation-card"][data-mode="form"]'), 0, "the answered form is gone");
    assert.match(await url.text(), /Confirm the order on the shop's page\./);
    assert.equal(await app.text('[data-testid="elicitation-host"]'), "example.com");
    const opened = join(app.dir, "opened.txt");
    assert.equal(existsSync(opened), false, "nothing is opened before the click");
    await app.screenshot("url");
    await app.click('[data-testid="elicitation-open"]');
    await waitFor(() => existsSync(opened), "the browser to be started");
    assert.equal(readFileSync(opened, "utf8"), PAGE);
    await app.click('[data-testid="elicitation-accept"]');

    await app.byText('[data-testid="messages"]', "Thanks, both are done.");
    assert.equal(await app.count('[data-testid="elicitation-card"]'), 0);
    const results = await app.session.execute(`return [...document.querySelectorAll('.tool-result')].map((pre) => pre.textContent).join('\\n')`);
    assert.match(results, /- Name: Ada Lovelace/);
    assert.match(results, /- Favorite Integer: 42/);
    assert.match(results, /"action": "accept"/);
    publish(formShot, "elicitation-form.png");
  } finally {
    await app.stop();
  }
});
