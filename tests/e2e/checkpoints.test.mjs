// Checkpoints in the real window (issue 31): after a three-task run each task shows what it
// changed, its diff opens per file, and "Restore to before this task" brings the folder back
// exactly, tasks 2 and 3 open again, with the user's own .git unchanged.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { explainFailures, openaiConfig, PLANNER, planReply, publish, startApp, text, toolCall, waitFor, THREE_EDITS_PLAN as PLAN, sandboxRun as run } from "./harness.mjs";
import { checkA11y } from "./a11y.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

// The workspace is a git repository, so the chat saves its plan in .dwp/plans: a task is done
// only by a passing check, which Preflight runs.
const done = (id, check) => toolCall("turn_plan", { op: "done", id, outcome: `step ${id} done`, gate: { command: check } });

function git(dir, ...args) {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: dir }).toString();
}

/** The user's repository itself (read without refreshing it): refs, staged entries, config and the index's bytes. */
function repository(dir) {
  const index = readFileSync(join(dir, ".git/index")).toString("base64");
  return [git(dir, "show-ref"), git(dir, "ls-files", "--stage"), readFileSync(join(dir, ".git/config"), "utf8"), index];
}

test("each task shows its diff, and restoring to before task 2 brings the files back with the tasks open again", async () => {
  const app = await startApp({
    name: "checkpoints",
    config: (url) => openaiConfig(url),
    script: () => ({
      routes: [
        { when: PLANNER, replies: [planReply(PLAN)] },
        {
          replies: [
            run("printf 'one\\ntwo\\n' > a.txt"),
            done(1, "grep -q two a.txt"),
            run("printf 'new\\n' > c.txt && rm gone.txt"),
            done(2, "test -f c.txt && test ! -e gone.txt"),
            run("printf 'keep\\nmore\\n' > b.txt"),
            done(3, "grep -q more b.txt"),
            text("All three edits are made."),
            // After the restore, Continue: tasks 2 and 3 again.
            run("printf 'new\\n' > c.txt && rm gone.txt"),
            done(2, "test -f c.txt && test ! -e gone.txt"),
            run("printf 'keep\\nmore\\n' > b.txt"),
            done(3, "grep -q more b.txt"),
            text("Tasks 2 and 3 are done again."),
          ],
        },
      ],
    }),
  });
  try {
    const ws = app.workspace;
    for (const [name, body] of [["a.txt", "one\n"], ["b.txt", "keep\n"], ["gone.txt", "bye\n"]]) writeFileSync(join(ws, name), body);
    git(ws, "init", "-q", "-b", "main");
    git(ws, "add", ".");
    git(ws, "commit", "-q", "-m", "start");
    const before = repository(ws);

    await app.click('[data-testid="new-chat"]');
    const path = await app.find('[data-testid="workspace-path"]');
    await path.type(ws + KEYS.enter);
    await app.find('[data-testid="sandbox-button"]');
    const box = await app.find('[data-testid="message-box"]');
    await box.type("Make the three edits" + KEYS.enter);
    await app.click('[data-testid="approve-plan"]');
    await app.byText(".message.assistant", "All three edits are made");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");

    // Each task says what it changed; task 2 created one file and deleted another.
    await app.byText('[data-testid="task-diff-1"]', "+1");
    const task2 = await app.byText('[data-testid="task-diff-2"]', "2");
    assert.match(await task2.text(), /\+1\s*[−-]1/);
    await task2.click();
    await app.byText('[data-testid="diff-view"] [data-testid="diff-file"]', "c.txt");
    await app.byText('[data-testid="diff-view"] [data-testid="diff-file"]', "gone.txt");
    await app.byText('[data-testid="diff-view"]', "new");
    publish(await app.screenshot("task-diff"), "task-diff.png");
    await app.click('[data-testid="diff-mode-split"]');
    await app.byText('[data-testid="diff-view"]', "bye");
    await (await app.find('[data-testid="diff-view"]')).type(KEYS.escape);
    await waitFor(async () => (await app.count('[data-testid="diff-view"]')) === 0, "the diff to close");

    // Restore to before task 2: the confirmation lists what goes back, then the folder is as then.
    await app.click('[data-testid="restore-task-2"]');
    await app.byText('[data-testid="restore-preview"]', "gone.txt");
    await app.byText('[data-testid="restore-preview"]', "c.txt");
    publish(await app.screenshot("restore-confirm"), "restore-confirm.png");
    await app.click('[data-testid="restore-confirm"]');
    await app.find('[data-testid="restore-entry"]');
    await waitFor(() => existsSync(join(ws, "gone.txt")) && !existsSync(join(ws, "c.txt")), "the files to go back");
    assert.equal(readFileSync(join(ws, "gone.txt"), "utf8"), "bye\n");
    assert.equal(readFileSync(join(ws, "b.txt"), "utf8"), "keep\n");
    assert.equal(readFileSync(join(ws, "a.txt"), "utf8"), "one\ntwo\n", "task 1's work stays");
    await app.waitText('[data-testid="task-count"]', /1 of 3/);
    assert.deepEqual(repository(ws), before, "the user's own .git is unchanged");

    // The undone work links to no diff; the way on is offered: Continue with the open tasks.
    await waitFor(async () => (await app.count('[data-testid="task-diff-3"]')) === 0, "task 3's undone work to lose its diff");
    await app.byText('[data-testid="restore-continue"]', "Extend b.txt");
    publish(await app.screenshot("restore-continue"), "restore-continue.png");
    await checkA11y(app, "Continue after a restore");
    await app.click('[data-testid="restore-continue-button"]');
    await app.byText(".message.assistant", "Tasks 2 and 3 are done again");
    await app.waitText('[data-testid="task-count"]', /3 of 3/);
    assert.ok(existsSync(join(ws, "c.txt")) && !existsSync(join(ws, "gone.txt")), "task 2 done again");
  } finally {
    await app.stop();
  }
});
