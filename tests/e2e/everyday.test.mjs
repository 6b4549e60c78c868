// A model per chat and what it costs (issue 50), in the real window: a home with the default
// `[provider]` and two named ones — `cloud` (a second scripted server, with prices) and
// `offline` (nothing listens) — one message answered with the usage the server reports, the
// context meter and the header's tokens read, the model switched in the header's picker
// (the offline provider said with its error, its model still offered), a second message that
// reaches the second server only, the divider in the conversation, the cost at cloud's
// prices, and Settings → Providers reached from "prices not set", where a provider is added
// (its form's problems said first) and the picker then offers it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

import { checkA11y } from "./a11y.mjs";
import { explainFailures, publish, startApp, text, waitFor } from "./harness.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

/** A streamed answer reporting `usage` ([input, output] tokens). */
const answer = (words, usage) => ({ answer: { ...text(words).answer, usage } });

const config = (url, { cloud }) => `[provider]
kind = "openai"
base_url = "${url}"
model = "scripted"
context_window = 8192
vision = false

[plan_mode]
enabled = false

[providers.cloud]
kind = "openai"
base_url = "${cloud}"
model = "scripted-large"
context_window = 32768
price_input_per_mtok = 2.5
price_output_per_mtok = 10

[providers.offline]
kind = "openai"
base_url = "http://127.0.0.1:9/v1"
model = "llama3.1:8b"
`;

const FIRST = "Where do the orders live?";
const SECOND = "Sum them by month";

/** The model the header's picker names (its text is cut with an ellipsis when long, which
 *  WebDriver's element text reads as none). */
const modelName = (app) => app.session.execute(`return document.querySelector('[data-testid="model-name"]')?.textContent ?? ""`);

/** The chat completions a provider was asked, as the texts of their last user message. */
const asked = (app, name) =>
  app
    .requests(name)
    .filter((request) => request.path.endsWith("/chat/completions"))
    .map((request) => request.body.messages.filter((message) => message.role === "user").at(-1)?.content);

test("a model per chat and what it costs: the meter, the header's usage, the picker, the divider, the second provider", async () => {
  const app = await startApp({
    name: "everyday",
    config,
    // Its own webview storage: the language and theme chosen below stay with this test.
    env: (dir) => ({ XDG_DATA_HOME: join(dir, "data") }),
    script: () => ({ routes: [{ replies: [answer("The orders live in `orders.csv`, one row per order.", [5100, 40])] }] }),
    providers: { cloud: () => ({ routes: [{ replies: [answer("Group the rows by the month of `date` and sum `amount`.", [28000, 200])] }] }) },
  });
  try {
    await app.click('[data-testid="new-chat"]');
    await (await app.find('[data-testid="message-box"]')).type(FIRST + KEYS.enter);
    await app.byText(".message.assistant", "one row per order");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");

    // What the first call used: the default provider has no prices.
    await app.waitText('[data-testid="context-text"]', /^5\.1k \/ 8\.2k$/);
    assert.equal(await app.count('[data-testid="context-warning"]'), 0, "63% of the window is no warning");
    await app.waitText('[data-testid="usage-line"]', /Execution 5\.1k tok/);
    assert.equal(await app.count('[data-testid="usage-cost"]'), 0, "no cost without prices");
    await app.find('[data-testid="prices-not-set"]');
    assert.equal(await modelName(app), "scripted");

    // The picker: by provider, the offline one said with its error and its model kept.
    await app.click('[data-testid="model-button"]');
    const cloud = await app.find('[data-testid="model-option"][data-provider="cloud"][data-model="scripted-large"]');
    await app.byText('[data-testid="model-group-error"]', "cannot be reached");
    await app.find('[data-testid="model-option"][data-provider="offline"][data-model="llama3.1:8b"]');
    await app.find('[data-testid="model-option"][data-provider="default"][data-model="scripted-large"]');
    assert.match(await cloud.text(), /sees images/);
    assert.match(await cloud.text(), /32\.8k context/);
    await waitFor(async () => (await app.count(".model-asking")) === 0, "every provider to have answered");
    publish(await app.screenshot("model-picker"), "model-picker.png");
    await checkA11y(app, "the model picker");
    // Escape closes the list and gives the focus back to the button.
    await app.session.press(KEYS.escape);
    await waitFor(async () => (await app.count('[data-testid="model-popover"]')) === 0, "the list to close");
    assert.ok(await app.session.execute('return document.activeElement?.dataset.testid === "model-button"'), "the focus is back on the button");

    await app.click('[data-testid="model-button"]');
    await waitFor(async () => (await app.count(".model-asking")) === 0, "the list read again");
    await app.click('[data-testid="model-option"][data-provider="cloud"][data-model="scripted-large"]');
    await app.byText('[data-testid="model-divider"]', "Model: scripted-large (cloud) from here on");
    await waitFor(async () => (await modelName(app)) === "scripted-large", "the header to name cloud's model");

    // The next message goes to cloud's server, and only there.
    await (await app.find('[data-testid="message-box"]')).type(SECOND + KEYS.enter);
    await app.byText(".message.assistant", "Group the rows by the month");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the second turn to end");
    assert.deepEqual(asked(app, "cloud"), [SECOND], "cloud's server got the second message");
    assert.deepEqual(asked(app, ""), [FIRST], "the default's server got the first only");

    // Its cost at cloud's prices: 28,000 × $2.5 + 200 × $10 per million = $0.072.
    await app.waitText('[data-testid="usage-line"]', /Execution 33\.3k tok · \$0\.072/);
    await app.waitText('[data-testid="context-text"]', /^28\.2k \/ 32\.8k$/);
    await app.byText('[data-testid="context-warning"]', "86% full");
    publish(await app.screenshot("usage"), "usage.png");
    await checkA11y(app, "the chat's usage and the divider");

    // "prices not set" leads to Settings → Providers.
    await app.click('[data-testid="prices-not-set"]');
    const listed = await app.find('[data-testid="named-provider"][data-name="cloud"]');
    assert.match(await listed.text(), /\$2\.50 in · \$10(\.00)? out per million tokens/);
    await app.click('[data-testid="named-provider"][data-name="cloud"] [data-testid="test-connection"]');
    await app.byText('[data-testid="named-provider"][data-name="cloud"] [data-testid="connection-ok"]', "serves 2 models");
    await app.click('[data-testid="provider-add"]');
    await (await app.find('[data-testid="provider-name"]')).type("My PC");
    await app.click('[data-testid="provider-save"]');
    await app.byText('[data-testid="provider-problem-name"]', "1 to 40");
    await app.byText('[data-testid="provider-problem-model"]', "Name the model");
    await checkA11y(app, "Settings → Providers with a form's problems");
    // Put right, it is saved: the engine opens again on it and the picker offers it.
    const name = await app.find('[data-testid="provider-name"]');
    await name.type(KEYS.backspace.repeat(5) + "local");
    await (await app.find('[data-testid="provider-base-url"]')).type(app.openaiUrl);
    await (await app.find('[data-testid="provider-model"]')).type("scripted");
    await app.click('[data-testid="provider-save"]');
    await app.find('[data-testid="named-provider"][data-name="local"]');
    assert.equal(await app.count('[data-testid="provider-editor"]'), 0, "the editor closes once saved");

    // The same chat in Russian and dark: the picker in the other language's words.
    await app.click('[data-testid="language"] option[value="ru"]');
    await app.click('[data-testid="theme"] option[value="dark"]');
    await waitFor(() => app.session.execute('return document.documentElement.lang === "ru" && document.documentElement.dataset.theme === "dark"'), "Russian, dark");
    await app.click(".settings button.secondary", "Закрыть");
    await app.byText('[data-testid="model-divider"]', "Модель: scripted-large (cloud) с этого места");
    await app.waitText('[data-testid="usage-line"]', /Выполнение\s33,3\sтыс\.\sток\.\s·\s0,072\s\$/);
    await app.click('[data-testid="model-button"]');
    await app.byText('[data-testid="model-group-error"]', "Модели из настроек");
    await app.find('[data-testid="model-option"][data-provider="local"][data-model="scripted"]');
    await waitFor(async () => (await app.count(".model-asking")) === 0, "every provider to have answered");
    publish(await app.screenshot("model-picker-ru"), "model-picker-ru.png");
  } finally {
    await app.stop();
  }
});
