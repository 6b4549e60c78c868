// The desktop app end to end, in the real window (tauri-driver + WebKitWebDriver under Xvfb),
// against the scripted model server and the real filesystem MCP server. Run by
// scripts/e2e.sh, which builds what is needed; screenshots are saved as artifacts.
import assert from "node:assert/strict";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { checkA11y } from "./a11y.mjs";
import { CSV_EXPORT_PLAN as PLAN, descendants, explainFailures, openaiConfig, PLANNER, planReply, publish, questionsReply, startApp, text, toolCall, waitFor } from "./harness.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

const QUESTIONS = [
  { id: "q1", question: "Which format should the export use?", options: ["CSV", "JSON", "Excel"] },
  { id: "q2", question: "Which orders belong in it?", options: ["All of them", "Last month only", "Archived too"] },
];



/** Records every text the task count shows, so a test can see the list tick. */
const WATCH_TASK_COUNT = `
  window.__counts = [];
  const seen = () => {
    const count = document.querySelector('[data-testid="task-count"]');
    const text = count ? count.textContent : '';
    if (text && window.__counts[window.__counts.length - 1] !== text) window.__counts.push(text);
  };
  new MutationObserver(seen).observe(document.body, { subtree: true, childList: true, characterData: true });
  seen();
`;

test("first run: settings, then questions → own answer → plan → edit → approve → tasks done", async () => {
  const app = await startApp({
    name: "plan-flow",
    config: null,
    script: (workspace) => ({
      routes: [
        {
          when: PLANNER,
          replies: [
            toolCall("mcp_filesystem_list_directory", { path: workspace }, "Looking around. "),
            questionsReply(QUESTIONS),
            planReply(PLAN),
          ],
        },
        {
          replies: [
            toolCall("mcp_filesystem_read_text_file", { path: join(workspace, "README.md") }, "Reading the README first. "),
            toolCall("turn_plan", { op: "done", id: 1, outcome: "orders.csv, one row per order" }),
            toolCall("turn_plan", { op: "done", id: 2 }),
            toolCall("turn_plan", { op: "done", id: 3 }),
            text("Done: `GET /export` now answers with CSV.\n\n```rust\nasync fn export() -> String {\n    String::from(\"id,total\\n\")\n}\n```\n"),
          ],
        },
      ],
    }),
  });
  try {
    // First run: no config.toml, so the settings screen; an OpenAI-compatible local server.
    await app.find('[data-testid="settings"]');
    await app.screenshot("settings");
    await checkA11y(app, "the first-run settings");
    await app.click('[data-testid="provider"] option[value="openai"]');
    await (await app.find('[data-testid="base-url"]')).type(app.openaiUrl);
    await (await app.find('[data-testid="model"]')).type("scripted");
    await app.click('[data-testid="save-settings"]');
    await app.click('[data-testid="new-chat"]');

    // The workspace, as the folder picker would supply it (WebDriver cannot drive the picker).
    const path = await waitFor(() => app.find('[data-testid="workspace-path"]'), "the workspace field");
    await path.type(app.workspace + KEYS.enter);
    await waitFor(async () => (await path.property("value")) === app.workspace && (await app.count(".error")) === 0, "the workspace set");

    const box = await app.find('[data-testid="message-box"]');
    await box.type("Add a CSV export of the orders" + KEYS.enter);
    await app.waitText('[data-testid="status-line"]', /Drafting a plan…|Waiting for your answers/);
    await app.find('[data-testid="question-card"].active');
    publish(await app.screenshot("question-card"), "question-card.png");
    await checkA11y(app, "the question card");

    // One ready answer, one of the user's own.
    await app.click('[data-testid="question-card"].active button.option', "CSV");
    await app.byText('[data-testid="question-card"].active .option.chosen', "CSV");
    const ownButtons = await app.session.findAll('[data-testid="question-card"].active button.own');
    assert.equal(ownButtons.length, 2, "each question offers the user's own answer");
    await ownButtons[1].click();
    const field = await app.find('[data-testid="question-card"].active .own-input');
    const submit = await app.find('[data-testid="question-card"].active .own-form button[type="submit"]');
    assert.equal(await submit.property("disabled"), true, "an empty own answer cannot be sent");
    await field.type("Only orders from 2024, without refunds");
    await submit.click();

    // The plan card; steps edited before approval (a new revision).
    await app.find('[data-testid="plan-card"].active');
    await app.byText('[data-testid="plan-card"].active .badge', "revision 1");
    await app.click('[data-testid="edit-steps"]');
    const first = await app.find('[aria-label="Step 1 action"]');
    // Emptied with the keyboard, as a user does: WebDriver's clear() sends no input event, so
    // the next render (the window re-reads the chat's checkpoints on its events) puts the
    // old words back in front of the typed ones.
    await first.type(KEYS.control + "a" + KEYS.null + KEYS.backspace);
    await first.type("Read how orders are stored in orders.csv");
    await app.click('[data-testid="save-steps"]');
    await app.byText('[data-testid="plan-card"].active .badge', "revision 2");
    const edited = await app.byText('[data-testid="plan-card"].active .step-action', "Read how orders are stored in orders.csv");
    assert.equal(await edited.text(), "Read how orders are stored in orders.csv", "the step says exactly what was typed");
    publish(await app.screenshot("plan-card"), "plan-card.png");
    await checkA11y(app, "the plan card");

    // What the edit changed, against the planner's revision.
    await app.click('[data-testid="compare-revisions"]');
    await app.byText('[data-testid="revision-diff"]', "Compare revision 2 (your edit) with");
    await app.byText('[data-testid="revision-diff"] ins', "in orders.csv");
    publish(await app.screenshot("plan-diff"), "plan-diff.png");
    // The comparison made the card taller: scroll down to its buttons, as a user would.
    await app.session.execute("document.querySelector('[data-testid=\"messages\"]').scrollTop = 1e9");

    // Approve: the task list starts from the steps and ticks to done.
    await app.session.execute(WATCH_TASK_COUNT);
    await app.click('[data-testid="approve-plan"]');
    await app.waitText('[data-testid="task-count"]', /^3 of 3 done$/);
    await app.find('[data-testid="tasks-finished"]');
    const counts = await app.session.execute("return window.__counts");
    assert.equal(counts[0], "0 of 3 done", `the list started untouched: ${counts}`);
    assert.equal(counts.at(-1), "3 of 3 done");
    assert.ok(counts.length >= 2, `the panel ticked: ${counts}`);
    await app.byText(".message.assistant", "now answers with CSV");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");
    assert.ok((await app.count(".markdown code.language-rust .hljs-keyword")) > 0, "code is highlighted");
    const tools = await app.text('[data-testid="messages"]');
    assert.match(tools, /Read README\.md/, "the tool call reads as a sentence");
    const states = await Promise.all((await app.session.findAll(".task")).map((task) => task.attribute("data-status")));
    assert.deepEqual(states, ["done", "done", "done"]);
    const marks = await Promise.all((await app.session.findAll(".task .mark")).map((mark) => mark.attribute("title")));
    assert.ok(marks.every((title) => title.length > 0), `each state has its tooltip: ${marks}`);
    publish(await app.screenshot("task-panel"), "task-panel.png");
    await checkA11y(app, "the finished plan and its task panel");
  } finally {
    await app.stop();
  }
});

test("cancel plan: the chat is as right after its first message; the box is locked while questions wait", async () => {
  const app = await startApp({
    name: "cancel",
    config: (url) => openaiConfig(url),
    script: () => ({ routes: [{ when: PLANNER, replies: [questionsReply(QUESTIONS)] }, { replies: [text("unused")] }] }),
  });
  try {
    await app.click('[data-testid="new-chat"]');
    const box = await waitFor(() => app.find('[data-testid="message-box"]'), "the message box");
    await box.type("Add a CSV export" + KEYS.enter);
    await app.find('[data-testid="question-card"].active');

    // Locked: read-only, and sending says why; nothing reaches the engine.
    await waitFor(async () => (await (await app.find('[data-testid="message-box"]')).property("readOnly")) === true, "the box to lock");
    await app.click('[data-testid="send"]');
    assert.equal(await app.text('[data-testid="composer-notice"]'), "Answer the planner's questions first");
    publish(await app.screenshot("locked"), "locked-message-box.png");

    // Keys 1–3 pick the first unanswered question's answers.
    await app.session.press("2");
    await app.byText('[data-testid="question-card"].active .option.chosen', "JSON");

    await app.click('[data-testid="question-card"].active [data-testid="cancel-plan"]');
    await waitFor(async () => (await app.count('[data-testid="question-card"]')) === 0, "the card to go");
    assert.equal(await app.text('[data-testid="chat"] .message.user .user-text'), "Add a CSV export");
    assert.equal(await app.count('[data-testid="messages"] > :not([data-testid="announcer"])'), 1, "only the original message is left");
    await app.find('[data-testid="plan-again"]');
    assert.equal(await (await app.find('[data-testid="message-box"]')).property("readOnly"), false, "unlocked again");
    assert.equal(await (await app.find('[data-testid="chat"]')).attribute("data-phase"), "idle");
    await app.screenshot("cancelled");
  } finally {
    await app.stop();
  }
});

test("edit and re-send: Plan again after a cancel, tool calls grouped, an edited first message plans anew", async () => {
  const planOf = (title) => ({ ...PLAN, title });
  const app = await startApp({
    name: "edit-resend",
    config: (url) => openaiConfig(url),
    script: () => ({
      routes: [
        { when: PLANNER, replies: [planReply(planOf("First plan")), planReply(planOf("Second plan")), planReply(planOf("Third plan"))] },
        {
          replies: [
            toolCall("turn_plan", { op: "done", id: 1 }),
            toolCall("turn_plan", { op: "done", id: 2 }),
            toolCall("turn_plan", { op: "done", id: 3 }),
            text("All three steps are done."),
          ],
        },
      ],
    }),
  });
  try {
    await app.click('[data-testid="new-chat"]');
    const box = await waitFor(() => app.find('[data-testid="message-box"]'), "the message box");
    await box.type("Add a CSV export" + KEYS.enter);
    await app.byText('[data-testid="plan-card"].active', "First plan");
    await app.click('[data-testid="plan-card"].active [data-testid="cancel-plan"]');

    // The kept message offers to plan again: the planner runs anew on it.
    await app.click('[data-testid="plan-again"]');
    await app.byText('[data-testid="plan-card"].active', "Second plan");
    await app.click('[data-testid="approve-plan"]');
    await app.byText(".message.assistant", "All three steps are done.");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");

    // Three turn_plan calls in a row: one block, one line for the task list.
    await app.byText('[data-testid="tool-count"]', "3 tool calls");
    assert.equal(await app.count('[data-testid="tool-group"]'), 1);
    await app.byText('[data-testid="task-summary"]', "task list: done 3");
    publish(await app.screenshot("tool-group"), "tool-group.png");

    // ↑ in the empty box edits the last message; Enter re-sends it: the first message plans again.
    await (await app.find('[data-testid="message-box"]')).click();
    await app.session.press(KEYS.up);
    const edit = await app.find('[data-testid="edit-box"]');
    await edit.clear();
    await edit.type("Add a CSV export of the orders" + KEYS.enter);
    await app.byText('[data-testid="plan-card"].active', "Third plan");
    assert.equal(await app.text('[data-testid="chat"] .message.user .user-text'), "Add a CSV export of the orders");
    assert.equal(await app.count('[data-testid="tool-group"]'), 0, "the later messages went");
    publish(await app.screenshot("edited"), "edit-resend.png");

    // Ctrl+K finds the chat by what its messages say.
    await app.session.chord(KEYS.control, "k");
    const search = await app.find('[data-testid="search-input"]');
    await search.type("of the orders");
    await app.byText('[data-testid="search-hit"]', "Add a CSV export of the orders");
    publish(await app.screenshot("search"), "search.png");
    await search.type(KEYS.enter);
    await waitFor(async () => (await app.count('[data-testid="search"]')) === 0, "the search to close");
  } finally {
    await app.stop();
  }
});

test("a reply carrying <img onerror> and <script> is rendered inert", async () => {
  const hostile = [
    "Here you go:",
    "",
    '<img src=x onerror="window.__pwned = 1; document.title = \'pwned\'">',
    "",
    "<script>window.__pwned = 2</script>",
    "",
    '<a href="javascript:window.__pwned=3">a link</a> and <b onmouseover="window.__pwned=4">bold</b>',
  ].join("\n");
  const app = await startApp({
    name: "inert",
    config: (url) => openaiConfig(url, "\n[plan_mode]\nenabled = false\n"),
    script: () => ({ routes: [{ replies: [text(hostile)] }] }),
  });
  try {
    await app.click('[data-testid="new-chat"]');
    const box = await waitFor(() => app.find('[data-testid="message-box"]'), "the message box");
    await box.type("Show me some HTML" + KEYS.enter);
    await app.byText(".message.assistant", "Here you go");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");
    const report = await app.session.execute(`
      const messages = document.querySelector('[data-testid="messages"]');
      const handlers = [...messages.querySelectorAll('*')].flatMap((el) => el.getAttributeNames().filter((a) => a.startsWith('on')));
      const links = [...messages.querySelectorAll('a')].map((a) => a.getAttribute('href'));
      return { scripts: messages.querySelectorAll('script').length, handlers, links,
               images: [...messages.querySelectorAll('img')].map((img) => img.getAttribute('src')),
               pwned: window.__pwned ?? null, title: document.title };
    `);
    assert.deepEqual(report.scripts, 0);
    assert.deepEqual(report.handlers, []);
    assert.ok(report.links.every((href) => href === null || !href.startsWith("javascript:")), JSON.stringify(report.links));
    assert.ok(report.images.every((src) => src === null), JSON.stringify(report.images));
    assert.equal(report.pwned, null);
    assert.equal(report.title, "Preflight");
    // Hovering and clicking what is left does nothing either.
    await app.click(".message.assistant a");
    assert.equal(await app.session.execute("return window.__pwned ?? null"), null);
    await app.screenshot("inert");
  } finally {
    await app.stop();
  }
});

test("chats are renamed and deleted; a chat's own switches; the plan folder, its link, an auto-approved drop and the completion", async () => {
  const PLAN_FILES = {
    title: "Settings page",
    aim: "Users can change their e-mail address",
    steps: [
      { action: "Add a settings table", expected: "the migration runs" },
      { action: "Add the settings page", expected: "the page saves the address" },
    ],
    libraries: [],
    sandbox: { policy: "reuse", notes: "" },
  };
  const app = await startApp({
    name: "plan-files",
    config: (url) => openaiConfig(url),
    // The file manager the app starts is replaced by a recorder of what it was asked to show.
    env: (dir) => {
      const opener = join(dir, "open-folder.sh");
      // Written aside, then renamed: the test never reads a half-written file.
      const opened = join(dir, "opened.txt");
      writeFileSync(opener, `#!/bin/sh\nprintf '%s' "$1" > "${opened}.part" && mv "${opened}.part" "${opened}"\n`);
      chmodSync(opener, 0o755);
      return { PREFLIGHT_OPEN_FOLDER: opener };
    },
    script: () => ({
      routes: [
        { when: PLANNER, replies: [planReply(PLAN_FILES)] },
        {
          replies: [
            toolCall("turn_plan", { op: "drop", id: 1, outcome: "the users table already has the column" }),
            toolCall("turn_plan", { op: "done", id: 2, gate: { command: "echo '12 passing'" } }),
            text("The settings page saves the address; no new table was needed."),
          ],
        },
      ],
    }),
  });
  try {
    // Rename (✎) and delete (with its confirmation) in the sidebar.
    await app.click('[data-testid="new-chat"]');
    await waitFor(async () => (await app.count(".chat-item")) === 1, "the first chat");
    await app.click('[data-testid="new-chat"]');
    await waitFor(async () => (await app.count(".chat-item")) === 2, "the second chat");
    await app.click('.chat-item.selected [aria-label^="Rename"]');
    const title = await app.find('[aria-label="Chat title"]');
    await title.clear();
    await title.type("Settings page" + KEYS.enter);
    // (WebKitWebDriver reads an empty text for the sidebar's title buttons: read the DOM's.)
    const titles = () => app.session.execute("return [...document.querySelectorAll('.chat-item .chat-title')].map((b) => b.textContent)");
    await waitFor(async () => (await titles())[0] === "Settings page", "the sidebar to show the new title");
    await app.byText(".chat-heading", "Settings page");
    await app.click(".chat-item:not(.selected) .chat-title");
    await app.byText(".chat-heading", "New chat");
    await app.click('.chat-item.selected [aria-label^="Delete"]');
    await app.click(".chat-item .confirm button.danger");
    await waitFor(async () => (await app.count(".chat-item")) === 1, "the other chat to be deleted");
    assert.deepEqual(await titles(), ["Settings page"]);

    // A git workspace turns "save plans" on; this chat approves its plans by itself.
    mkdirSync(join(app.workspace, ".git"));
    const path = await app.find('[data-testid="workspace-path"]');
    await path.type(app.workspace + KEYS.enter);
    await waitFor(async () => (await app.find('[data-testid="chat-save-plans"]').then((box) => box.property("checked"))) === true, "save plans on");
    assert.equal(await (await app.find('[data-testid="chat-auto-approve"]')).property("checked"), false);
    await app.click('[data-testid="chat-auto-approve"]');
    await waitFor(async () => (await (await app.find('[data-testid="chat-auto-approve"]')).property("checked")) === true, "auto-approve on");

    const box = await app.find('[data-testid="message-box"]');
    await box.type("Let users change their e-mail address" + KEYS.enter);
    await app.byText(".message.assistant", "no new table was needed");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");
    assert.equal(await app.count('[data-testid="approve-plan"]'), 0, "no approval was asked for");

    // This chat approves its own changes: the drop was applied at once and recorded, the
    // plan completed, and the folder says so.
    await app.byText('[data-testid="change-answer"]', "Applied by this chat's auto-approve");
    await app.byText('[data-testid="adherence"]', "1 of 2 steps as planned · 1 dropped · in order");
    const plans = join(app.workspace, ".dwp/plans");
    const [folder] = readdirSync(plans);
    const stateOf = () => JSON.parse(readFileSync(join(plans, folder, "state.json"), "utf8"));
    assert.deepEqual(stateOf().tasks.map((task) => task.status), ["skipped", "completed"]);
    assert.equal(stateOf().status, "completed");
    assert.match(readFileSync(join(plans, folder, "PROGRESS.md"), "utf8"), /Plan completed: 1 of 2 steps done as planned/);

    // The finished list closed, the task panel still names the plan folder.
    const link = await app.byText('[data-testid="open-plan-folder"]', `.dwp/plans/${folder}`);
    publish(await app.screenshot("plan-files"), "plan-folder.png");
    await link.click();
    const opened = join(app.dir, "opened.txt");
    await waitFor(() => existsSync(opened), "the file manager to be started");
    assert.equal(readFileSync(opened, "utf8"), join(plans, folder));

    // Deleting the last chat empties the sidebar; the plan stays in the workspace.
    await app.click('.chat-item [aria-label^="Delete"]');
    await app.click(".chat-item .confirm button.danger");
    await waitFor(async () => (await app.count(".chat-item")) === 0, "the chat to be deleted");
    await app.byText("main.chat.empty", "No chats yet.");
    assert.ok(existsSync(join(plans, folder, "README.md")));
  } finally {
    await app.stop();
  }
});

test("the executor asks to change the plan: the change card, Keep the plan resumes the work, the completion card", async () => {
  const PLAN_CHANGE = {
    title: "Release notes",
    aim: "The release has its notes",
    steps: [
      { action: "Collect the merged changes", expected: "a list of changes" },
      { action: "Write the notes", expected: "NOTES.md is written" },
      { action: "Announce the release", expected: "the announcement is out" },
    ],
    libraries: [],
    sandbox: { policy: "reuse", notes: "" },
  };
  const app = await startApp({
    name: "plan-change",
    config: (url) => openaiConfig(url),
    script: () => ({
      routes: [
        { when: PLANNER, replies: [planReply(PLAN_CHANGE)] },
        {
          replies: [
            toolCall("turn_plan", { op: "done", id: 1, outcome: "14 merged changes" }),
            toolCall("turn_plan", { op: "drop", id: 3, outcome: "the team announces releases itself" }),
            toolCall("turn_plan", { op: "add", tasks: [{ title: "Check the links in the notes", priority: "high" }] }),
            text("The notes come next; dropping the announcement waits for your answer."),
            toolCall("turn_plan", { op: "done", id: 2 }),
            toolCall("turn_plan", { op: "done", id: 4 }),
            toolCall("turn_plan", { op: "done", id: 3, outcome: "posted in #releases" }),
            text("The notes are written and the release is **announced**."),
          ],
        },
      ],
    }),
  });
  try {
    await app.click('[data-testid="new-chat"]');
    const box = await waitFor(() => app.find('[data-testid="message-box"]'), "the message box");
    await box.type("Write the release notes and announce the release" + KEYS.enter);
    await app.click('[data-testid="approve-plan"]');

    // The drop of a plan step is not applied: it waits as a card; the panel marks the step.
    await app.find('[data-testid="change-card"][data-status="pending"]');
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");
    await app.byText('[data-testid="change-what"]', "Drop step 3: “Announce the release”");
    await app.byText('[data-testid="change-card"]', "the team announces releases itself");
    await app.find('[data-testid="change-asked"]');
    assert.equal(await app.count('[data-testid="completion-card"]'), 0);
    publish(await app.screenshot("change-card"), "change-card.png");

    // Keep the plan: the executor reads the answer, does every step, and the plan completes.
    await app.click('[data-testid="change-reject"]');
    await app.byText('[data-testid="change-answer"]', "You kept the plan");
    await app.byText('[data-testid="adherence"]', "3 of 3 steps as planned · 1 added · in order");
    await app.byText('[data-testid="completion-steps"]', "posted in #releases");
    await app.byText('[data-testid="deviations"]', "Added step 4 “Check the links in the notes”");
    // The summary is said once: the executor's last message holds it, so the card keeps to the facts.
    await app.byText(".message.assistant", "announced");
    await app.find('[data-testid="completion-card"]');
    assert.equal(await app.count(".completion-summary"), 0, "the summary is not said twice");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the resumed turn to end");
    publish(await app.screenshot("completion-card"), "completion-card.png");
    await checkA11y(app, "the change and completion cards");
  } finally {
    await app.stop();
  }
});

test("the executor stops with a task left: the stop card says why, Continue finishes the plan", async () => {
  const TWO_STEPS = {
    title: "Changelog",
    aim: "The changelog is written and checked",
    steps: [
      { action: "Write the changelog", expected: "CHANGELOG.md exists" },
      { action: "Check the changelog", expected: "every entry has a link" },
    ],
    libraries: [],
    sandbox: { policy: "reuse", notes: "" },
  };
  const app = await startApp({
    name: "stop-continue",
    config: (url) => openaiConfig(url),
    script: () => ({
      routes: [
        { when: PLANNER, replies: [planReply(TWO_STEPS)] },
        {
          replies: [
            toolCall("turn_plan", { op: "done", id: 1, outcome: "written" }),
            text("I stop here for now."),
            toolCall("turn_plan", { op: "done", id: 2, outcome: "every entry links its PR" }),
            text("The changelog is written and checked."),
          ],
        },
      ],
    }),
  });
  try {
    await app.click('[data-testid="new-chat"]');
    const box = await waitFor(() => app.find('[data-testid="message-box"]'), "the message box");
    await box.type("Write and check the changelog" + KEYS.enter);
    await app.click('[data-testid="approve-plan"]');

    // The turn ends with task 2 open: the card names it and why, nothing else is needed.
    await app.byText('[data-testid="stop-card"]', "Check the changelog");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");
    assert.equal(await app.count('[data-testid="completion-card"]'), 0);
    // The task the work stopped on is shown as stopped, not as running.
    await app.find('[data-testid="task-state-2"].state-stopped');
    publish(await app.screenshot("stop-card"), "stop-card.png");
    await checkA11y(app, "the stop card");

    // Continue is its own turn, shown as such; the plan completes and the record names both.
    await app.click('[data-testid="stop-continue"]');
    await app.find('[data-testid="continue-marker"]');
    await app.byText(".message.assistant", "written and checked");
    await app.find('[data-testid="completion-card"]');
    await app.find('[data-testid="completion-stops"]');
    assert.equal(await app.count('[data-testid="stop-card"]'), 0);
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the resumed turn to end");
  } finally {
    await app.stop();
  }
});

test("the code sandbox: a run as a terminal block, a task closed by a gate Preflight ran, the sandbox from the workspace bar", async () => {
  const PLAN_SANDBOX = {
    title: "Report script",
    aim: "A script prints the report",
    steps: [
      { action: "Write report.py", expected: "it prints the total" },
      { action: "Document it", expected: "the README says how to run it" },
    ],
    libraries: [],
    sandbox: { policy: "create", notes: "" },
  };
  const app = await startApp({
    name: "sandbox",
    config: (url) => openaiConfig(url),
    script: () => ({
      routes: [
        { when: PLANNER, replies: [planReply(PLAN_SANDBOX)] },
        {
          replies: [
            toolCall("mcp_code-sandbox_run_command", { command: "printf 'print(\"total: 42\")\\n' > report.py && python report.py" }, "Writing the script. "),
            toolCall("turn_plan", { op: "done", id: 1, gate: { command: "python report.py | grep 'total: 42'" } }),
            text("report.py prints the total; the README is next."),
          ],
        },
      ],
    }),
  });
  try {
    await app.click('[data-testid="new-chat"]');
    const path = await app.find('[data-testid="workspace-path"]');
    await path.type(app.workspace + KEYS.enter);
    await app.find('[data-testid="sandbox-button"]');
    const box = await app.find('[data-testid="message-box"]');
    await box.type("Write a report script" + KEYS.enter);
    await app.click('[data-testid="approve-plan"]');
    await app.byText(".message.assistant", "prints the total");
    await waitFor(async () => (await app.count('[data-testid="status-line"]')) === 0, "the turn to end");

    // The run: what ran, its exit code and output, as a terminal block.
    await app.byText('[data-testid="sandbox-run"] .terminal-command', "> report.py && python report.");
    await app.byText('[data-testid="sandbox-run"] [data-testid="exit-code"]', "exit 0");
    await app.byText('[data-testid="sandbox-run"] .terminal-out', "total: 42");
    // Task 1 carries the gate Preflight ran; its evidence is the command's own output.
    await app.byText('[data-testid="task-gate"] code', "python report.py | grep 'total: 42'");
    await app.click('[data-testid="task-gate"] summary');
    await app.byText('[data-testid="gate-evidence"]', "total: 42");
    assert.ok(existsSync(join(app.workspace, "report.py")), "the run wrote into the workspace");

    // The chat and the workspace bar say whether bubblewrap confines the sandbox.
    const notice = await (await app.find('[data-testid="sandbox-notice"]')).text();
    await app.click('[data-testid="sandbox-button"]');
    const status = await app.waitText('[data-testid="sandbox-status"]', /^(Confined by bubblewrap|UNCONFINED)$/);
    const confined = status === "Confined by bubblewrap";
    assert.equal(await app.count('[data-testid="unconfined"]') > 0, !confined, "the run's block agrees");
    assert.equal(notice.includes("confined by bubblewrap"), confined, `the chat agrees: ${notice}`);
    publish(await app.screenshot("sandbox"), "sandbox.png");
  } finally {
    await app.stop();
  }
});

test("offline on the embedded model: the first-run default, its notice, and a real card from the tiny model", async () => {
  const app = await startApp({
    name: "embedded",
    config: null,
    // Nothing may reach the scripted server: the model runs inside the app.
    script: () => ({ routes: [{ replies: [text("the scripted server must not be asked")] }] }),
  });
  try {
    await app.find('[data-testid="settings"]');
    const provider = await app.find('[data-testid="provider"]');
    assert.equal(await provider.property("value"), "embedded", "a fresh install runs the embedded model");
    const model = await app.find('[data-testid="embedded-model"]');
    assert.equal(await model.property("value"), "smollm2");
    await app.click('[data-testid="save-settings"]');

    const notice = await app.byText('[data-testid="model-notice"]', "tiny model");
    assert.match(await notice.text(), /far better plans/);
    await app.click('[data-testid="new-chat"]');
    const box = await waitFor(() => app.find('[data-testid="message-box"]'), "the message box");
    await box.type("Write a script that renames my holiday photos by date" + KEYS.enter);
    await app.waitText('[data-testid="status-line"]', /Drafting a plan…/);
    // On 2 busy cores the 135M model needs some seconds to load and write its fence.
    const card = await waitFor(
      async () => (await app.session.findAll('[data-testid="question-card"].active, [data-testid="plan-card"].active'))[0] ?? null,
      "a card from the embedded model",
      180_000,
    );
    assert.ok(card, "the tiny model's reply parsed into a card");
    assert.equal(await app.count('[data-testid="model-notice"]'), 1, "the notice stays while the tiny model answers");
    publish(await app.screenshot("embedded"), "embedded-model.png");
    assert.equal(readFileSync(join(app.dir, "requests.jsonl"), { encoding: "utf8", flag: "a+" }).trim(), "", "no request left the app");
  } finally {
    await app.stop();
  }
});

/** The app process started for `home`, and its WebKit helpers, by /proc. */
function appProcesses(home) {
  const pids = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  const read = (pid, file) => {
    try {
      return readFileSync(`/proc/${pid}/${file}`, "utf8");
    } catch {
      return "";
    }
  };
  const app = pids.find((pid) => read(pid, "comm").trim() === "preflight-deskt" && read(pid, "environ").split("\0").includes(`PREFLIGHT_HOME=${home}`));
  assert.ok(app, "the app's process is found");
  // Descendants, not only children: with WebKit's bubblewrap sandbox, bwrap sits in between.
  const helpers = descendants(Number(app))
    .map((pid) => ({ pid, name: read(pid, "comm").trim(), maps: read(pid, "maps") }))
    .filter((process) => process.name.startsWith("WebKit"));
  return { app: { pid: app, maps: read(app, "maps") }, helpers };
}

test("the app and WebKit's helpers load the silent flite, checked from an empty cache; speech synthesis still answers", async () => {
  const app = await startApp({
    name: "nospeech",
    config: (url) => openaiConfig(url),
    script: () => ({ routes: [] }),
    env: (dir) => ({ XDG_CACHE_HOME: join(dir, "cache") }),
  });
  try {
    const { app: main, helpers } = appProcesses(app.home);
    const names = helpers.map((helper) => helper.name);
    assert.ok(names.includes("WebKitNetworkPr") && names.includes("WebKitWebProces"), JSON.stringify(names));
    // The app executed itself again once (same pid) so that it, too, loads the stand-in.
    for (const process of [{ name: "preflight-desktop", maps: main.maps }, ...helpers]) {
      assert.match(process.maps, /libpreflight-nospeech\.so/, `${process.name} maps the stand-in`);
      assert.doesNotMatch(process.maps, /libflite/, `${process.name} maps no real flite library`);
    }
    const folders = readdirSync(join(app.dir, "cache/preflight"));
    assert.equal(folders.length, 1, JSON.stringify(folders));
    const folder = join(app.dir, "cache/preflight", folders[0]);
    const verdicts = readdirSync(folder).filter((name) => name.startsWith("verified-"));
    assert.equal(verdicts.length, 1, JSON.stringify(verdicts));
    assert.match(readFileSync(join(folder, verdicts[0]), "utf8"), /libwebkit2gtk-4\.1\.so/);

    // The Web Speech API still lists WebKit's flite voices and finishes an utterance, in
    // silence, without breaking the page.
    const voices = await waitFor(async () => {
      const list = await app.session.execute("return speechSynthesis.getVoices().map((voice) => voice.name)");
      return list.length ? list : null;
    }, "the voice list");
    assert.ok(voices.includes("kal"), JSON.stringify(voices));
    await app.session.execute(`
      window.__speech = 'pending';
      const utterance = new SpeechSynthesisUtterance('Plan approved');
      utterance.onend = () => { window.__speech = 'end'; };
      utterance.onerror = (event) => { window.__speech = 'error: ' + event.error; };
      speechSynthesis.speak(utterance);
    `);
    const outcome = await waitFor(async () => {
      const state = await app.session.execute("return window.__speech");
      return state === "pending" ? null : state;
    }, "the utterance to finish");
    assert.equal(outcome, "end");
    // GStreamer, which played it, kept its registry in the app's own file.
    assert.ok(existsSync(join(app.dir, "cache/gstreamer-1.0/registry.preflight.bin")), "the app's GStreamer registry");
    assert.equal(await app.session.execute("return document.documentElement.dataset.ready"), "1");
  } finally {
    await app.stop();
  }
});

test("a stand-in folder others could write, with a library planted in it, is made afresh before anything loads from it", async () => {
  // One cache for two starts: the first makes the folder, the second finds it tampered with.
  const cache = mkdtempSync(join(tmpdir(), "preflight-e2e-nospeech-cache-"));
  const options = { config: (url) => openaiConfig(url), script: () => ({ routes: [] }), env: () => ({ XDG_CACHE_HOME: cache }) };
  try {
    let app = await startApp({ name: "nospeech-made", ...options });
    const made = appProcesses(app.home).app.maps;
    await app.stop();
    const folder = join(cache, "preflight", readdirSync(join(cache, "preflight")).find((name) => name.startsWith("webkit-nospeech-")));
    // Open to everyone, and someone put a library the app loads there (a real copy, so that
    // the app would run with it).
    const gmodule = /(\/\S*\/libgmodule-2\.0\.so\.0[\d.]*)$/m.exec(made)?.[1];
    assert.ok(gmodule, "the app maps GLib's gmodule");
    copyFileSync(gmodule, join(folder, "libgmodule-2.0.so.0"));
    chmodSync(folder, 0o777);

    app = await startApp({ name: "nospeech-afresh", ...options });
    try {
      const { app: main, helpers } = appProcesses(app.home);
      for (const process of [{ name: "preflight-desktop", maps: main.maps }, ...helpers]) {
        assert.ok(!process.maps.includes(join(folder, "libgmodule")), `${process.name} maps no planted library`);
        assert.match(process.maps, /libpreflight-nospeech\.so/, `${process.name} maps the stand-in, made afresh`);
      }
      assert.equal((statSync(folder).mode & 0o7777).toString(8), "700");
      const entries = readdirSync(folder).filter((name) => !/^(libflite.*|libpreflight-nospeech\.so|verified-[0-9a-f]{16})$/.test(name));
      assert.deepEqual(entries, [], "nothing but the library, its links and a verdict");
      assert.match(readFileSync(join(app.dir, "app.log"), "utf8"), /made afresh: .*mode 777, not 700/);
    } finally {
      await app.stop();
    }
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});
