// A plan the user can judge, in the real window (DESIGN §14): the card shows the approach,
// the risks and files folded, each step's check and dependencies and the scope it was
// planned within; the user comments on two steps and sends them at once, and the revision
// diff shows each comment beside its step (§16); after approval the panel shows the planned check before it runs, and each
// task is closed by exactly that check, run by Preflight in the sandbox.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { explainFailures, openaiConfig, PLANNER, planReply, publish, startApp, text, toolCall, waitFor } from "./harness.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

const PLAN = {
  title: "Greeting file",
  aim: "hello.txt greets, proven",
  approach: "Write the file with the shell, then prove it with grep.",
  risks: ["The file may already exist", "A locale may change the words"],
  files: { create: ["src/hello.txt"], modify: [] },
  complexity: "low",
  steps: [
    { action: "Write src/hello.txt", expected: "the file exists", files: ["src/hello.txt"], check: "test -f src/hello.txt" },
    { action: "Prove the greeting", expected: "it says hello", depends_on: [1], check: "grep -q hello src/hello.txt" },
  ],
  libraries: [],
  sandbox: { policy: "create", notes: "" },
};

// The planner's answer to the user's comments on steps 1 and 2 (DESIGN §16).
const REVISED = {
  ...PLAN,
  steps: [
    { ...PLAN.steps[0], action: "Write src/hello.txt ending in a newline" },
    { ...PLAN.steps[1], action: "Prove the whole-word greeting" },
  ],
};

const turnPlan = (args) => toolCall("turn_plan", args);

test("the card shows approach, risks, files, checks and scope; each task is closed by the check the user saw", async () => {
  const app = await startApp({
    name: "judged",
    config: (url) => openaiConfig(url),
    script: () => ({
      routes: [
        { when: PLANNER, replies: [planReply(PLAN), planReply(REVISED)] },
        {
          replies: [
            toolCall("mcp_code-sandbox_run_command", { command: "echo hello > src/hello.txt" }),
            turnPlan({ op: "done", id: 1, outcome: "written" }),
            turnPlan({ op: "done", id: 2, outcome: "it greets" }),
            text("The greeting is written and proven."),
          ],
        },
      ],
    }),
  });
  try {
    const ws = app.workspace;
    mkdirSync(join(ws, "src"));
    writeFileSync(join(ws, "src/.keep"), "");
    await app.click('[data-testid="new-chat"]');
    const path = await app.find('[data-testid="workspace-path"]');
    await path.type(ws + KEYS.enter);
    await app.find('[data-testid="scope-bar"]');
    await (await app.find('[data-testid="scope-path"]')).type("src" + KEYS.enter);
    await app.byText('[data-testid="scope-chip"]', "src");
    const box = await app.find('[data-testid="message-box"]');
    await box.type("Write a greeting" + KEYS.enter);

    await app.byText('[data-testid="plan-approach"]', "Write the file with the shell");
    await app.byText('[data-testid="plan-scope"]', "src");
    await app.byText('[data-testid="plan-risks"]', "(2)");
    await app.byText('[data-testid="plan-files"]', "(1)");
    await app.byText('[data-testid="plan-complexity"]', "");
    assert.equal(await (await app.find('[data-testid="step-check-1"]')).text(), "Check: test -f src/hello.txt");
    assert.match(await (await app.find('[data-testid="step-check-2"]')).text(), /grep -q hello src\/hello\.txt/);
    await app.byText('[data-testid="step-depends-2"]', "1");
    await app.click('[data-testid="plan-risks"] summary');
    await app.byText('[data-testid="plan-risks"]', "A locale may change the words");
    publish(await app.screenshot("plan-judged"), "plan-judged.png");

    // Reviewed like a change: a comment on each step, sent together; the planner's next
    // revision is compared with the commented one, each comment beside its step.
    const comment = async (step, words) => {
      await app.click(`[data-testid="plan-card"].active [data-testid="comment-step-${step}"]`);
      await (await app.find('[data-testid="comment-text"]')).type(words);
      await app.click('[data-testid="add-comment"]');
    };
    await comment(1, "End the file with a newline.");
    await comment(2, "Match the whole word.");
    await app.byText('[data-testid="revise-with-comments"]', "Revise with 2 comments");
    publish(await app.screenshot("plan-comments"), "plan-comments.png");
    await app.click('[data-testid="revise-with-comments"]');
    await app.byText('[data-testid="plan-card"].active .badge', "revision 2");
    await app.click('[data-testid="plan-card"].active [data-testid="compare-revisions"]');
    await app.byText('[data-testid="plan-card"].active [data-testid="diff-comments"]', "End the file with a newline.");
    await app.byText('[data-testid="plan-card"].active [data-testid="diff-comments"]', "Match the whole word.");
    publish(await app.screenshot("plan-comments-diff"), "plan-comments-diff.png");

    await app.click('[data-testid="approve-plan"]');
    await app.byText(".message.assistant", "The greeting is written and proven");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");
    await app.waitText('[data-testid="task-count"]', /2 of 2/);
    const gates = await app.session.findAll('[data-testid="task-gate"] summary');
    const commands = await Promise.all(gates.map((gate) => gate.text()));
    assert.equal(commands.length, 2, commands.join(" | "));
    assert.match(commands[0], /test -f src\/hello\.txt/, "task 1 closed by its planned check");
    assert.match(commands[1], /grep -q hello src\/hello\.txt/, "task 2 closed by its planned check");
  } finally {
    await app.stop();
  }
});
