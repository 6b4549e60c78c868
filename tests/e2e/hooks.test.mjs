// Settings → Hooks in the real window: the user's hooks.json and a trusted workspace's hooks
// listed from the engine; untrusting the workspace drops its hook at once, trusting it again
// asks a second time first, and the engine keeps the choice in hooks-trust.json.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { explainFailures, openaiConfig, startApp, waitFor } from "./harness.mjs";

explainFailures();

const hooks = (event, command) => JSON.stringify({ hooks: { [event]: [{ matcher: "mcp_filesystem_write_file", hooks: [{ type: "command", command, timeout: 5 }] }] } });

test("Hooks in Settings: what runs, and a workspace's hooks trusted only when asked twice", async () => {
  let folder = "";
  const app = await startApp({
    name: "hooks-settings",
    config: (url) => openaiConfig(url),
    script: () => ({ routes: [] }),
    prepare: (home) => {
      folder = realpathSync(join(home, "..", "workspace"));
      writeFileSync(join(home, "hooks.json"), hooks("PreToolUse", "/home/me/bin/guard.sh"));
      mkdirSync(join(folder, ".preflight"), { recursive: true });
      writeFileSync(join(folder, ".preflight/hooks.json"), hooks("PostToolUse", "./format.sh"));
      writeFileSync(join(home, "hooks-trust.json"), JSON.stringify({ trusted: [folder] }));
    },
  });
  try {
    const rows = () => app.count('[data-testid="hooks-hook"]');
    await app.click('[data-testid="open-settings"]');
    await app.byText('[data-testid="hooks-hook"]', "/home/me/bin/guard.sh");
    await app.byText('[data-testid="hooks-hook"]', "./format.sh");
    await app.byText('[data-testid="hooks-workspace"]', folder);
    await app.session.execute("document.querySelector('[data-testid=\"hooks-settings\"]').scrollIntoView()");
    await app.screenshot("hooks-settings");

    await app.click('[data-testid="hooks-trust"]');
    await waitFor(async () => (await rows()) === 1, "the workspace's hook to stop running");
    await app.click('[data-testid="hooks-trust"]');
    await app.byText('[data-testid="hooks-confirm"]', join(folder, ".preflight/hooks.json"));
    assert.equal(await rows(), 1, "not trusted before the second answer");
    await app.click('[data-testid="hooks-confirm-trust"]');
    await waitFor(async () => (await rows()) === 2, "the workspace's hook to run again");
    const trust = JSON.parse(readFileSync(join(app.home, "hooks-trust.json"), "utf8"));
    assert.deepEqual(trust, { trusted: [folder] });
  } finally {
    await app.stop();
  }
});
