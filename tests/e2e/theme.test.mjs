// Light and dark in the real window: Settings → Theme sets <html data-theme> at once, a
// planned chat (plan card, task panel, highlighted code) is shown in both, and "System"
// follows the system's preference again. The screenshots are the README's dark.png/light.png.
import assert from "node:assert/strict";

import { join } from "node:path";
import { test } from "node:test";

import { CSV_EXPORT_PLAN as PLAN, explainFailures, openaiConfig, PLANNER, planReply, publish, startApp, text, toolCall, waitFor } from "./harness.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();


const ANSWER = 'Done: `GET /export` now answers with CSV.\n\n```rust\n// One row per order.\nasync fn export(State(db): State<Db>) -> String {\n    let rows = db.orders().await;\n    format!("id,total\\n{}", rows.len())\n}\n```\n';


async function chooseTheme(app, value) {
  await app.click('[data-testid="open-settings"]');
  await app.click(`[data-testid="theme"] option[value="${value}"]`);
  const html = () => app.session.execute("return [document.documentElement.dataset.theme, document.documentElement.dataset.themeChoice]");
  await waitFor(async () => (await html())[1] === value, `the theme choice ${value}`);
  const [theme] = await html();
  await app.click(".settings button.secondary", "Close");
  return theme;
}

test("dark and light: a planned chat in both, System follows the system again", async () => {
  const app = await startApp({
    name: "theme",
    config: (url) => openaiConfig(url),
    env: (dir) => ({ XDG_DATA_HOME: join(dir, "data") }),
    script: () => ({
      routes: [
        { when: PLANNER, replies: [planReply(PLAN)] },
        {
          replies: [
            toolCall("turn_plan", { op: "done", id: 1, outcome: "one row per order" }),
            toolCall("turn_plan", { op: "done", id: 2 }),
            toolCall("turn_plan", { op: "done", id: 3 }),
            text(ANSWER),
          ],
        },
      ],
    }),
  });
  try {
    assert.equal(await chooseTheme(app, "dark"), "dark");
    await app.click('[data-testid="new-chat"]');
    const path = await waitFor(() => app.find('[data-testid="workspace-path"]'), "the workspace field");
    await path.type(app.workspace + KEYS.enter);
    await waitFor(async () => (await path.property("value")) === app.workspace && (await app.count(".error")) === 0, "the workspace set");
    await (await app.find('[data-testid="message-box"]')).type("Add a CSV export of the orders" + KEYS.enter);
    await app.find('[data-testid="plan-card"].active');
    publish(await app.screenshot("dark-plan"), "dark-plan.png");
    await app.click('[data-testid="approve-plan"]');
    await app.waitText('[data-testid="task-count"]', /^3 of 3 done$/, 30_000);
    await app.byText(".message.assistant", "now answers with CSV");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");
    assert.ok((await app.count(".markdown code.language-rust .hljs-keyword")) > 0, "code is highlighted");
    // The page's own colours, as the webview computed them from the dark variables.
    const colours = await app.session.execute(
      "const s = (q) => getComputedStyle(document.querySelector(q)); return [s('html').backgroundColor, s('.task-panel').color, s('.markdown code.language-rust .hljs-keyword').color]",
    );
    assert.deepEqual(colours, ["rgb(15, 17, 21)", "rgb(230, 232, 235)", "rgb(255, 123, 114)"]);
    publish(await app.screenshot("dark"), "dark.png");

    assert.equal(await chooseTheme(app, "light"), "light");
    publish(await app.screenshot("light"), "light.png");

    // System: whatever the display prefers (Xvfb's WebKit prefers light), followed again.
    const system = await chooseTheme(app, "system");
    const prefersDark = await app.session.execute("return matchMedia('(prefers-color-scheme: dark)').matches");
    assert.equal(system, prefersDark ? "dark" : "light");
  } finally {
    await app.stop();
  }
});
