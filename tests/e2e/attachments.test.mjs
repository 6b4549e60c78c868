// Attaching a file in the real window: the paperclip opens the native GTK picker, driven here
// as a user would with the keyboard (xdotool on the Xvfb display: Ctrl+L, the path, Enter);
// the chip shows name and size; the message carries the file to the planner, which reads it
// with read_attachment, and the scripted model server sees both the note and the content.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { pickInDialog } from "./dialogs.mjs";
import { explainFailures, openaiConfig, PLANNER, planReply, publish, startApp, toolCall } from "./harness.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

const ORDERS = "id,total\n1,9.50\n2,12.00\n";

const PLAN = {
  title: "Sum the order totals",
  aim: "The total of orders.csv is known",
  steps: [{ action: "Add up the totals column", expected: "the sum is printed" }],
  libraries: [],
  sandbox: { policy: "none", notes: "" },
};

test("attach a file with the native picker: its chip, the bubble, and the planner reading it", async () => {
  const outside = mkdtempSync(join(tmpdir(), "preflight-e2e-outside-"));
  const file = join(outside, "orders.csv");
  writeFileSync(file, ORDERS);
  const app = await startApp({
    name: "attachments",
    config: (url) => openaiConfig(url),
    script: () => ({ routes: [{ when: PLANNER, replies: [toolCall("read_attachment", { name: "orders.csv" }, "Reading the file. "), planReply(PLAN)] }] }),
  });
  try {
    await app.click('[data-testid="new-chat"]');
    await app.click('[data-testid="attach"]');
    await pickInDialog("Attach files", file);
    const chip = await app.byText('[data-testid="attachment-chip"]', "orders.csv");
    assert.match(await chip.text(), /orders\.csv\s*24 B/);
    const box = await app.find('[data-testid="message-box"]');
    await box.type("Sum the order totals");
    const shot = await app.screenshot("chip");
    await box.type(KEYS.enter);
    await app.byText('[data-testid="plan-card"].active', "Sum the order totals");
    await app.byText('[data-testid="message-files"]', "orders.csv");
    assert.equal(await app.count('[data-testid="attachment-chip"]'), 0, "the chips went with the message");

    const requests = readFileSync(join(app.dir, "requests.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
    const [first, second] = requests;
    assert.ok(JSON.stringify(first.body.messages).includes("- orders.csv (24 B)"), "the planner is told of the file");
    assert.ok(first.body.tools.some((tool) => tool.function.name === "read_attachment"), "and offered the tool");
    assert.ok(JSON.stringify(second.body.messages).includes("2,12.00"), "the planner read the copy");
    const copy = join(app.home, "attachments");
    assert.ok(spawnSync("find", [copy, "-name", "orders.csv"], { encoding: "utf8" }).stdout.includes("orders.csv"), "copied into the data folder");
    publish(shot, "attachments.png");
  } finally {
    await app.stop();
  }
});
