// Never silent (issue 48): a planner that fails is said in the chat as a card (what failed,
// that the work went on without a plan, Plan again), and a provider that cannot be reached is
// said once, with Try again and a way to Settings. In the real window, against the scripted
// model server.
import assert from "node:assert/strict";
import { test } from "node:test";

import { CSV_EXPORT_PLAN as PLAN, explainFailures, openaiConfig, PLANNER, planReply, publish, startApp, text, waitFor } from "./harness.mjs";
import { checkA11y } from "./a11y.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

/** The planner's provider answers HTTP 500: the first try and the planner's two retries. */
const FAILING = { status: { status: 500, body: '{"error":{"message":"the planner model crashed"}}' } };

test("a planner that fails is said as a card before the work; Plan again plans the same message", async () => {
  const app = await startApp({
    name: "planner-failed",
    config: (url) => openaiConfig(url),
    script: () => ({
      routes: [
        { when: PLANNER, replies: [FAILING, FAILING, FAILING, planReply(PLAN)] },
        { replies: [text("Done without a plan: the export route is added.")] },
      ],
    }),
  });
  try {
    await app.click('[data-testid="new-chat"]');
    const box = await waitFor(() => app.find('[data-testid="message-box"]'), "the message box");
    await box.type("Add a CSV export of orders" + KEYS.enter);

    const card = await app.find('[data-testid="notice-card"][data-kind="planner_failed"]');
    assert.match(await card.text(), /The planner could not make a plan/);
    assert.match(await card.text(), /went ahead without a plan/);
    await app.byText(".message.assistant", "Done without a plan");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");
    assert.equal(await app.count('[data-testid="error-banner"]'), 0, "said once, in the chat");
    publish(await app.screenshot("planner-failed"), "planner-failed.png");
    await checkA11y(app, "the planner's failure card");

    // Plan again: the same message, planned anew; this time the planner answers.
    await app.click('[data-testid="notice-retry"]');
    await app.find('[data-testid="approve-plan"]');
    await waitFor(async () => (await app.count('[data-testid="notice-card"]')) === 0, "the old notice to go with the edit");
  } finally {
    await app.stop();
  }
});

test("a provider that cannot be reached is said once, with Try again and Open Settings", async () => {
  // Nothing listens on port 9 of loopback: every connection is refused at once.
  const app = await startApp({
    name: "provider-down",
    config: () => openaiConfig("http://127.0.0.1:9/v1"),
    script: () => ({ routes: [] }),
  });
  try {
    await app.click('[data-testid="new-chat"]');
    const box = await waitFor(() => app.find('[data-testid="message-box"]'), "the message box");
    await box.type("Add a CSV export of orders" + KEYS.enter);

    const card = await app.find('[data-testid="notice-card"][data-kind="provider_refused"]');
    assert.match(await card.text(), /Nothing was run/);
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");
    assert.equal(await app.count('[data-testid="notice-card"]'), 1, "one notice");
    assert.equal(await app.count('[data-testid="error-banner"]'), 0, "not a second time in a banner");
    await app.find('[data-testid="notice-retry"]');
    publish(await app.screenshot("provider-down"), "provider-down.png");
    await checkA11y(app, "the provider's failure card");

    // Try again meets the same refusal: a new card in place of the old one.
    const first = await card.attribute("data-message-id");
    await app.click('[data-testid="notice-retry"]');
    const shown = () => app.session.execute(`return document.querySelector('[data-testid="notice-card"]')?.dataset.messageId ?? null`);
    await waitFor(async () => {
      const now = await shown();
      return now !== null && now !== first;
    }, "the retry's own notice");
    await app.find('[data-testid="notice-retry"]');
    assert.equal(await app.count('[data-testid="notice-card"]'), 1, "the retried message replaced what followed it");

    await app.click('[data-testid="notice-card-settings"]');
    await app.find('[data-testid="settings"]');
  } finally {
    await app.stop();
  }
});
