// Fork in the real window (DESIGN §15): after a three-task run, "Fork" on task 2 asks where
// the new chat's files come from; a copy goes into a folder picked in the native folder
// dialog, the new chat opens with its "Forked from" line in the sidebar and its notice in the
// chat, the folder holds the files as they were before task 2, and the original's workspace
// is as the run left it. At 640 px the line and the notice still read.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { pickInDialog } from "./dialogs.mjs";
import { explainFailures, openaiConfig, PLANNER, planReply, publish, startApp, text, toolCall, waitFor, THREE_EDITS_PLAN as PLAN, sandboxRun as run } from "./harness.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

const done = (id) => toolCall("turn_plan", { op: "done", id, outcome: `step ${id} done` });

/** A folder's files (not folders) with their content, by name. */
function files(dir) {
  const names = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name);
  return Object.fromEntries(names.sort().map((name) => [name, readFileSync(join(dir, name), "utf8")]));
}

test("fork from before task 2 into a folder: the new chat opens, says where it came from, and the folder holds that checkpoint's files", async () => {
  const app = await startApp({
    name: "fork",
    config: (url) => openaiConfig(url),
    script: () => ({
      routes: [
        { when: PLANNER, replies: [planReply(PLAN)] },
        {
          replies: [
            run("printf 'one\\ntwo\\n' > a.txt"),
            done(1),
            run("printf 'new\\n' > c.txt && rm gone.txt"),
            done(2),
            run("printf 'keep\\nmore\\n' > b.txt"),
            done(3),
            text("All three edits are made."),
          ],
        },
      ],
    }),
  });
  try {
    const ws = app.workspace;
    for (const [name, body] of [["a.txt", "one\n"], ["b.txt", "keep\n"], ["gone.txt", "bye\n"]]) writeFileSync(join(ws, name), body);
    await app.click('[data-testid="new-chat"]');
    const path = await app.find('[data-testid="workspace-path"]');
    await path.type(ws + KEYS.enter);
    await app.find('[data-testid="sandbox-button"]');
    const box = await app.find('[data-testid="message-box"]');
    await box.type("Make the three edits" + KEYS.enter);
    await app.click('[data-testid="approve-plan"]');
    await app.byText(".message.assistant", "All three edits are made");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");
    const afterRun = files(ws);

    // Fork from before task 2: the dialog says what each way does with the files.
    await app.click('[data-testid="fork-task-2"]');
    await app.byText('[data-testid="fork-dialog"]', "is not touched");
    await app.byText('[data-testid="fork-share"]', "sharing");
    const folder = join(app.dir, "edits-again");
    mkdirSync(folder);
    await app.click('[data-testid="fork-copy"]');
    await pickInDialog("An empty folder for the fork's files", folder);

    // The fork opens: where it came from, in the sidebar and in the chat.
    await app.byText('[data-testid="fork-notice"]', "edits-again");
    await app.byText('.chat-item.selected [data-testid="forked-from"]', "Forked from");
    await waitFor(async () => (await app.count('[data-testid="fork-dialog"]')) === 0, "the dialog to close");
    await app.waitText('[data-testid="task-count"]', /1 of 3/);
    assert.deepEqual(files(folder), { "README.md": "# Shop\n\nOrders live in orders.csv.\n", "a.txt": "one\ntwo\n", "b.txt": "keep\n", "gone.txt": "bye\n" });
    assert.deepEqual(files(ws), afterRun, "the original's workspace is as the run left it");
    publish(await app.screenshot("fork"), "fork.png");

    await app.resize(640, 900);
    await app.byText('[data-testid="fork-notice"]', "edits-again");
    await app.screenshot("fork-640");
  } finally {
    await app.stop();
  }
});
