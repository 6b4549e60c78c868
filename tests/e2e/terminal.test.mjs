// Issue 32's "done when": a chat planned, answered and approved in the terminal opens in the
// window as it was. `preflight chat` runs in tmux at 80×24 on the test's data folder (the
// window is not running: one process holds a data folder), with the same scripted model:
// the first message, a ready answer, an own answer, the plan approved, the task list ticking
// to done. Then the window opens on that folder and shows the same chat: the questions with
// both answers, the approved plan, the task list done, the answer.
import assert from "node:assert/strict";

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { ARTIFACTS, CSV_EXPORT_PLAN as PLAN, explainFailures, openaiConfig, PLANNER, planReply, publish, questionsReply, startApp, TARGET, text, toolCall, waitFor } from "./harness.mjs";

explainFailures();

const QUESTIONS = [
  { id: "q1", question: "Which format?", options: ["CSV", "JSON", "Excel"] },
  { id: "q2", question: "Which orders?", options: ["All", "Last month", "With the archive"] },
];
const OWN = "Only paid ones";
const FS_SERVER =
  process.env.PREFLIGHT_FS_SERVER ?? join(TARGET, "../runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

/** A tmux server of this test's own, running `preflight chat` in one 80×24 window. */
class Terminal {
  constructor(home, workspace) {
    this.socket = `preflight-e2e-${process.pid}`;
    const env = ["LANG=C.UTF-8", "LC_ALL=", `PREFLIGHT_HOME=${home}`, `PREFLIGHT_FS_SERVER=${FS_SERVER}`];
    const program = [join(TARGET, "debug/preflight"), "chat", "--workspace", workspace];
    this.tmux("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "80", "-y", "24", ...env.flatMap((pair) => ["-e", pair]), "sh", "-c", '"$0" "$@"; echo "[exited $?]"; read line', ...program);
  }

  tmux(...args) {
    return execFileSync("tmux", ["-u", "-L", this.socket, ...args], { encoding: "utf8" });
  }

  keys(...keys) {
    this.tmux("send-keys", "-t", "t", ...keys);
  }

  type(words) {
    this.tmux("send-keys", "-t", "t", "-l", words);
  }

  screen() {
    return this.tmux("capture-pane", "-p", "-J", "-t", "t");
  }

  /** The screen as it is now, kept as a text capture in the artifacts and the README's
   * figures (docs/screenshots). */
  capture(name) {
    mkdirSync(ARTIFACTS, { recursive: true });
    const file = join(ARTIFACTS, `terminal-${name}.txt`);
    writeFileSync(file, this.screen());
    publish(file, `terminal-${name}.txt`);
  }

  /** Waits until the screen shows `words`; a timeout says what it showed. */
  async shows(words) {
    let last = "";
    try {
      await waitFor(() => (last = this.screen()).includes(words), `the terminal to show ${JSON.stringify(words)}`, 60_000);
    } catch (error) {
      error.message += `; the screen:\n${last}`;
      throw error;
    }
  }

  close() {
    try {
      this.tmux("kill-server");
    } catch {}
  }
}

/** The chat, planned, answered, approved and done in the terminal. */
async function chatInTheTerminal(home, workspace) {
  const terminal = new Terminal(home, workspace);
  try {
    await terminal.shows("Type a task and press Enter");
    terminal.type("Add a CSV export of the orders");
    terminal.keys("Enter");
    await terminal.shows("Which format?");
    terminal.keys("Enter"); // CSV, the first of the ready answers
    await terminal.shows("Which orders?");
    terminal.type(OWN); // typing on a question card is your own answer
    terminal.keys("Enter");
    await terminal.shows("Approve");
    terminal.keys("Enter");
    await terminal.shows("3 of 3 done");
    await terminal.shows("The export is ready");
    terminal.keys("C-c");
    await terminal.shows("[exited 0]");
  } finally {
    terminal.close();
  }
}

test("a chat planned, answered and approved in the terminal opens in the window as it was", async () => {
  const app = await startApp({
    name: "terminal",
    config: (url) => openaiConfig(url),
    script: () => ({
      routes: [
        { when: PLANNER, replies: [questionsReply(QUESTIONS), planReply(PLAN)] },
        {
          replies: [
            toolCall("turn_plan", { op: "done", id: 1, outcome: "orders.csv has id,total" }),
            toolCall("turn_plan", { op: "done", id: 2 }),
            toolCall("turn_plan", { op: "done", id: 3 }),
            text("The export is ready: `GET /export` answers with CSV."),
          ],
        },
      ],
    }),
    // Before the window starts: the terminal holds the data folder while it runs.
    prepare: async (home) => chatInTheTerminal(home, join(home, "..", "workspace")),
  });
  try {
    // The chat the terminal made, selected as the newest: every card answered, as it was.
    await app.byText('[data-testid="chat"] .message.user .user-text', "Add a CSV export of the orders");
    const card = await app.find('[data-testid="question-card"]');
    assert.match(await card.text(), /Which format\?[\s\S]*CSV/);
    assert.match(await card.text(), new RegExp(`Which orders\\?[\\s\\S]*${OWN}`));
    await app.byText('[data-testid="plan-card"]', PLAN.title);
    assert.equal(await app.count('[data-testid="approve-plan"]'), 0, "the plan is approved, not waiting");
    // The list as it ended (the engine closed it; the completion record keeps it).
    await app.waitText('[data-testid="task-count"]', /^3 of 3 done$/);
    await app.find('[data-testid="tasks-finished"]');
    await app.byText('[data-testid="completion-card"]', "3 of 3 steps as planned");
    await app.byText(".message.assistant", "The export is ready");
  } finally {
    await app.stop();
  }
});

const EXPORT = "def export(orders):\n    return \"id,total\\n\"\n";

/** The plan run in the terminal, then Ctrl+G: task 2's diff, and a restore to before it,
 * asked first; the captures show both. */
async function diffAndRestoreInTheTerminal(home, workspace) {
  const terminal = new Terminal(home, workspace);
  try {
    await terminal.shows("Type a task and press Enter");
    terminal.type("Add a CSV export of the orders");
    terminal.keys("Enter");
    await terminal.shows("Approve");
    terminal.keys("Enter");
    await terminal.shows("3 of 3 done");
    await terminal.shows("▸ Wrote export.py");
    terminal.keys("C-g");
    await terminal.shows("Task 3 · Write the test");
    terminal.keys("Left");
    await terminal.shows("added export.py");
    await terminal.shows("+def export(orders):");
    terminal.capture("task-diff");
    terminal.keys("r");
    await terminal.shows("Restore the workspace to before task 2?");
    await terminal.shows("[y/N]");
    terminal.capture("restore-confirm");
    terminal.keys("y");
    await terminal.shows("↺ Restored the workspace to before task 2");
    terminal.capture("restored");
    assert.equal(existsSync(join(workspace, "export.py")), false, "the restore took task 2's file away");
    terminal.keys("C-c");
    await terminal.shows("[exited 0]");
  } finally {
    terminal.close();
  }
}

test("the terminal shows a task's diff and restores the workspace to before it, asked first", async () => {
  const app = await startApp({
    name: "terminal-restore",
    config: (url) => openaiConfig(url),
    script: (workspace) => ({
      routes: [
        { when: PLANNER, replies: [planReply(PLAN)] },
        {
          replies: [
            toolCall("turn_plan", { op: "done", id: 1 }),
            toolCall("mcp_filesystem_write_file", { path: join(workspace, "export.py"), content: EXPORT }),
            toolCall("turn_plan", { op: "done", id: 2 }),
            toolCall("turn_plan", { op: "done", id: 3 }),
            text("The export is ready."),
          ],
        },
      ],
    }),
    prepare: async (home) => diffAndRestoreInTheTerminal(home, join(home, "..", "workspace")),
  });
  try {
    // The window on the same folder: the restore is an entry of the chat; the file stays gone.
    await app.byText('[data-testid="chat"] .message.user .user-text', "Add a CSV export of the orders");
    await app.find('[data-testid="restore-entry"]');
    assert.equal(existsSync(join(app.workspace, "export.py")), false);
  } finally {
    await app.stop();
  }
});
