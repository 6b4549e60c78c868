// A plan finished but not verified (issue 49), in the real window: step 1's check passes
// during the turn, then step 2 moves the file it checks away, so when the finaliser runs every
// check again step 1's fails. The completion card says "Finished, not verified" with the
// engine's reason and task 1 open again; Run the checks again comes back still not verified
// over task 1; Accept as is, after its second step, leaves the card accepted with the date and no
// actions, and the plan folder records it.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { explainFailures, openaiConfig, PLANNER, planReply, publish, startApp, text, toolCall, waitFor, sandboxRun as run } from "./harness.mjs";
import { checkA11y } from "./a11y.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

const PLAN = {
  title: "Keep a copy",
  aim: "out.txt holds what keep.txt held",
  steps: [
    { action: "Create keep.txt", expected: "keep.txt exists" },
    { action: "Copy keep.txt to out.txt and tidy up", expected: "out.txt exists" },
  ],
  libraries: [],
  sandbox: { policy: "create", notes: "" },
};

// The workspace is a git repository, so the chat saves its plan in .dwp/plans and finalises it.
const done = (id, check) => toolCall("turn_plan", { op: "done", id, outcome: `step ${id} done`, gate: { command: check } });

function git(dir, ...args) {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: dir }).toString();
}

/** The plan folder's files, as text, joined (the folder's name is the plan's slug). */
function planFolder(ws) {
  const plans = join(ws, ".dwp/plans");
  if (!existsSync(plans)) return "";
  return readdirSync(plans)
    .flatMap((plan) => ["FINALIZATION.json", "state.json", "PROGRESS.md"].map((file) => join(plans, plan, file)))
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file, "utf8"))
    .join("\n");
}

test("a check that fails when run again leaves the plan finished, not verified, until the user accepts it as is", async () => {
  const app = await startApp({
    name: "unverified",
    config: (url) => openaiConfig(url),
    script: () => ({
      routes: [
        { when: PLANNER, replies: [planReply(PLAN)] },
        {
          replies: [
            run("printf 'keep\\n' > keep.txt"),
            done(1, "test -f keep.txt"),
            // Step 2 passes its own check, and takes away what step 1's checks.
            run("cp keep.txt out.txt && rm keep.txt"),
            done(2, "test -f out.txt"),
            text("Both steps are done."),
          ],
        },
      ],
    }),
  });
  try {
    const ws = app.workspace;
    writeFileSync(join(ws, "notes.txt"), "start\n");
    git(ws, "init", "-q", "-b", "main");
    git(ws, "add", ".");
    git(ws, "commit", "-q", "-m", "start");

    await app.click('[data-testid="new-chat"]');
    const path = await app.find('[data-testid="workspace-path"]');
    await path.type(ws + KEYS.enter);
    await app.find('[data-testid="sandbox-button"]');
    const box = await app.find('[data-testid="message-box"]');
    await box.type("Keep a copy of keep.txt in out.txt" + KEYS.enter);
    await app.click('[data-testid="approve-plan"]');
    await app.byText(".message.assistant", "Both steps are done");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");
    assert.ok(existsSync(join(ws, "out.txt")) && !existsSync(join(ws, "keep.txt")), "step 2 moved keep.txt away");

    // The card: not "Plan completed", the reason in the engine's words, task 1 open again.
    const card = await app.find('[data-testid="completion-card"][data-standing="not_verified"]');
    assert.equal(await (await app.find('[data-testid="completion-title"]')).text(), "Finished, not verified");
    const verdict = await app.byText('[data-testid="finalization"]', "Preflight could not confirm the work");
    assert.equal(await verdict.attribute("data-verdict"), "UNVERIFIED");
    await app.byText('[data-testid="finalization-reasons"]', "test -f keep.txt");
    await app.byText('[data-testid="finalization-reopened"]', "Create keep.txt");
    await app.find('[data-testid="finalization-continue"]');
    assert.doesNotMatch(await card.text(), /Plan completed/);
    publish(await app.screenshot("unverified"), "unverified.png");
    await checkA11y(app, "the card of a plan finished but not verified");

    // Run the checks again: keep.txt is still gone, so the plan comes back not verified again.
    const folderBefore = planFolder(ws);
    await app.click('[data-testid="finalization-verify"]');
    await waitFor(() => planFolder(ws) !== folderBefore, "the re-run's gate records in the plan folder");
    await waitFor(async () => {
      const button = await app.session.find('[data-testid="finalization-verify"]');
      return button !== null && (await button.attribute("aria-busy")) === "false" && (await button.text()) === "Run the checks again";
    }, "the checks run again to come back");
    assert.equal(await app.count('[data-testid="finalization-error"]'), 0, "the re-run was not refused");
    await app.find('[data-testid="completion-card"][data-standing="not_verified"]');
    await app.byText('[data-testid="finalization-reasons"]', "Create keep.txt");

    // Accept as is: a second step says what it records; then the card is accepted, no actions.
    await app.click('[data-testid="finalization-accept"]');
    await app.byText('[data-testid="finalization-accept-confirm"]', "the plan stays marked not verified");
    await app.click('[data-testid="finalization-accept-yes"]');
    await app.find('[data-testid="completion-card"][data-standing="accepted"]');
    assert.equal(await (await app.find('[data-testid="completion-title"]')).text(), "Accepted as is, not verified");
    await app.byText('[data-testid="finalization-accepted"]', "You accepted it as is on");
    for (const action of ["finalization-verify", "finalization-continue", "finalization-accept"]) {
      assert.equal(await app.count(`[data-testid="${action}"]`), 0, `no ${action} once accepted`);
    }
    await waitFor(() => /accepted/i.test(planFolder(ws)), "the plan folder to record the acceptance");
    publish(await app.screenshot("unverified-accepted"), "unverified-accepted.png");
  } finally {
    await app.stop();
  }
});
