// Chats in their own worktrees in the real window (issue 54, DESIGN §18): two chats on one
// repository, each switched to its own worktree before its first message, run at the same
// time (both marked as working in the chat list at once); the first one's Merge shows its
// preview (the file, the commit message) and merges into main; the second one's preview
// lists the conflict and offers no merge, and the user's repository stays as the first
// merge left it. At 640 px the bar and the dialog still fit.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { checkA11y, checkLayout } from "./a11y.mjs";
import { explainFailures, openaiConfig, planReply, publish, startApp, text, toolCall, waitFor, sandboxRun as run } from "./harness.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

function git(dir, ...args) {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: dir }).toString();
}

const pricesPlan = (title, price) => ({
  title,
  aim: `apple costs ${price}`,
  steps: [{ action: `Set apple to ${price}`, expected: `prices.txt says apple ${price}` }],
  libraries: [],
  sandbox: { policy: "create", notes: "" },
});

/** Each chat's executor, told apart by its plan's title; it sleeps so the two overlap. */
function executor(title, price) {
  return {
    when: { body_contains: title },
    replies: [
      run(`sleep 4 && printf 'apple ${price}\\n' > prices.txt`),
      toolCall("turn_plan", { op: "done", id: 1, outcome: "price set", gate: { command: `grep -q 'apple ${price}' prices.txt` } }),
      text("Prices set."),
    ],
  };
}

/** Types into the element `selector` finds, finding it again while the chat re-renders. */
async function typeInto(app, selector, words) {
  await waitFor(async () => {
    await (await app.find(selector)).type(words);
    return true;
  }, `${selector} to take the typing`);
}

/** Opens the chat the list names `title` (read as the page holds it: the list's rows are
 *  drawn by the virtual list, whose text WebDriver does not always read). */
async function openChat(app, title) {
  const script = "const row = [...document.querySelectorAll('.chat-item .chat-title')].find((b) => b.textContent.includes(arguments[0])); if (row) row.click(); return !!row;";
  await waitFor(() => app.session.execute(script, [title]), `the chat ${title} in the list`);
  await app.byText('[data-testid="chat"] .chat-heading', title);
}

/** A new chat on the repository, in its own worktree, given its task; its plan approved. */
async function startChat(app, workspace, task) {
  await app.click('[data-testid="new-chat"]');
  await app.byText('[data-testid="chat"] .chat-heading', "New chat");
  await typeInto(app, '[data-testid="workspace-path"]', workspace + KEYS.enter);
  await app.find('[data-testid="sandbox-button"]');
  await app.click('[data-testid="chat-worktree"]');
  await app.byText('[data-testid="worktree-status"]', "no changes yet");
  await typeInto(app, '[data-testid="message-box"]', task + KEYS.enter);
  await app.click('[data-testid="approve-plan"]');
}

test("two chats run at once in their own worktrees; the first merges after its preview, the second's preview lists the conflict", async () => {
  const app = await startApp({
    name: "worktrees",
    config: (url) => openaiConfig(url),
    script: () => ({
      routes: [
        executor("Alpha prices", 2),
        executor("Beta prices", 3),
        { when: { body_contains: "task alpha" }, replies: [planReply(pricesPlan("Alpha prices", 2))] },
        { when: { body_contains: "task beta" }, replies: [planReply(pricesPlan("Beta prices", 3))] },
      ],
    }),
  });
  try {
    const ws = app.workspace;
    writeFileSync(join(ws, "prices.txt"), "apple 1\n");
    writeFileSync(join(ws, ".gitignore"), ".sandbox/\n");
    git(ws, "init", "-q", "-b", "main");
    git(ws, "add", ".");
    git(ws, "commit", "-q", "-m", "start");

    await startChat(app, ws, "task alpha");
    await startChat(app, ws, "task beta");
    await waitFor(async () => (await app.count('[data-testid="chat-running"]')) === 2, "both chats to work at once");
    publish(await app.screenshot("worktrees-running"), "worktrees-running.png");
    await waitFor(async () => (await app.count('[data-testid="chat-running"]')) === 0, "both runs to end", 90_000);
    assert.equal(readFileSync(join(ws, "prices.txt"), "utf8"), "apple 1\n", "the user's checkout is untouched");

    await openChat(app, "task alpha");
    // Its work: the price, and the plan folder it saved (the chat saves plans in a repository).
    await app.waitText('[data-testid="worktree-status"]', /files?, \+\d+ −1/);
    await app.click('[data-testid="worktree-merge"]');
    await app.byText('[data-testid="merge-preview"] [data-testid="diff-file"]', "prices.txt");
    await app.byText('[data-testid="merge-message"]', "Alpha prices");
    publish(await app.screenshot("merge-preview"), "merge-preview.png");
    await checkA11y(app, "the merge preview");
    await app.click('[data-testid="merge-confirm"]');
    await app.find('[data-testid="merge-done"]');
    assert.equal(readFileSync(join(ws, "prices.txt"), "utf8"), "apple 2\n", "merged into the checkout of main");
    const merged = git(ws, "rev-parse", "main");

    await openChat(app, "task beta");
    await app.click('[data-testid="worktree-merge"]');
    await app.byText('[data-testid="merge-conflicts"]', "prices.txt");
    assert.equal(await app.count('[data-testid="merge-confirm"]:disabled'), 1, "no merge is offered");
    publish(await app.screenshot("merge-conflict"), "merge-conflict.png");
    assert.equal(git(ws, "rev-parse", "main"), merged, "the preview changed nothing");
    assert.equal(readFileSync(join(ws, "prices.txt"), "utf8"), "apple 2\n");

    // At 640 px the dialog and the bar still fit: nothing sideways, nothing overlapping.
    await app.resize(640, 800);
    await app.painted();
    await checkLayout(app, "Merge's preview at 640 px", '[data-testid="merge-dialog"]');
    await app.click('[data-testid="merge-cancel"]');
    await app.painted();
    await checkLayout(app, "the worktree bar at 640 px", '[data-testid="worktree-bar"]');
  } finally {
    await app.stop();
  }
});
