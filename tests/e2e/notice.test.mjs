// Desktop notifications (DESIGN §15 "Notice") in the real window, with a real notification
// server: dunst, on the D-Bus session scripts/e2e.sh runs the suite in (scripts/lib/with-dunst.sh).
// A card that waits while the window is in front raises nothing; another X window then takes
// the focus, and a plan card that starts waiting raises a notification titled with its chat's
// title, which dunst records; invoking its default action (a click on it) brings the window to
// the front with that chat open, though the window had gone to another chat meanwhile.
// Settings → Notifications is photographed for the README.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { test } from "node:test";

import { checkA11y } from "./a11y.mjs";
import { xdotool } from "./dialogs.mjs";
import { CSV_EXPORT_PLAN, explainFailures, openaiConfig, PLANNER, planReply, publish, questionsReply, startApp, waitFor } from "./harness.mjs";
import { KEYS } from "./webdriver.mjs";

explainFailures();

/** dunstctl's answer; throws with its output when it fails. */
function dunstctl(...args) {
  const result = spawnSync("dunstctl", args, { encoding: "utf8", timeout: 10_000 });
  if (result.status !== 0) throw new Error(`dunstctl ${args.join(" ")}: ${result.status ?? result.error} ${result.stderr}`);
  return result.stdout.trim();
}

/** What dunst showed and closed, newest first: `{ id, summary, body, appname }`. */
function history() {
  const [entries] = JSON.parse(dunstctl("history")).data;
  return entries.map((entry) => Object.fromEntries(["id", "summary", "body", "appname"].map((key) => [key, entry[key].data])));
}

/** Another program's window, which takes the focus as a user's click on it would. */
function otherWindow() {
  const child = spawn("display", ["-title", "elsewhere", "-geometry", "+1250+600", "-size", "200x200", "xc:gray"], { stdio: "ignore" });
  const id = xdotool("search", "--sync", "--onlyvisible", "--name", "elsewhere").split("\n")[0];
  return { id, close: () => child.kill() };
}

/** A new chat, the `count`th, open and drawn. */
async function newChat(app, count) {
  await app.click('[data-testid="new-chat"]');
  await waitFor(async () => (await app.count(".chat-item")) === count && (await app.text(".chat-heading")) === "New chat", `chat ${count} open`);
  await app.painted();
}

const hasFocus = (app) => app.session.execute("return document.hasFocus()");

test("a plan card waiting while the window is not in front raises a notification; clicking it opens that chat", async (t) => {
  if (spawnSync("dunstctl", ["is-paused"]).status !== 0) {
    t.skip("no notification server: run under scripts/e2e.sh (a D-Bus session with dunst)");
    return;
  }
  const app = await startApp({
    name: "notice",
    config: (url) => openaiConfig(url),
    script: () => ({
      routes: [
        { when: { ...PLANNER, body_contains: "Say hello" }, replies: [questionsReply([{ id: "q1", question: "To whom?", options: ["World", "Team", "Me"] }])] },
        { when: { ...PLANNER, body_contains: "orders" }, replies: [planReply(CSV_EXPORT_PLAN)] },
      ],
    }),
  });
  let other = null;
  try {
    // What earlier tests of the run left on the screen goes first.
    dunstctl("close-all");
    const before = history().length;

    // Settings → Notifications, on by default, for the README.
    await app.click('[data-testid="open-settings"]');
    const notify = await app.find('[data-testid="notify"]');
    assert.equal(await notify.property("checked"), true, "on by default");
    assert.equal(await (await app.find('[data-testid="notify-sound"]')).property("checked"), false, "no sound by default");
    publish(await app.screenshot("notification-settings"), "notification-settings.png");
    await checkA11y(app, "Settings with its notifications");
    await app.click('[data-testid="settings"] button.secondary', "Close");

    // In front: the question card waits, and no notification is raised for it.
    await newChat(app, 1);
    await (await app.find('[data-testid="message-box"]')).type("Say hello" + KEYS.enter);
    await app.find('[data-testid="question-card"].active');
    const greeting = await app.text(".chat-heading");

    // Another window takes the focus; the window, not in front, sends the orders' chat.
    await newChat(app, 2);
    await (await app.find('[data-testid="message-box"]')).type("Export the orders as CSV");
    other = otherWindow();
    xdotool("windowfocus", "--sync", other.id);
    await waitFor(async () => !(await hasFocus(app)), "the window to lose the focus");
    await app.session.execute("document.querySelector('[data-testid=\"send\"]').click()");
    await app.find('[data-testid="plan-card"].active');
    const orders = await app.text(".chat-heading");
    assert.notEqual(orders, greeting);
    await waitFor(() => dunstctl("count", "displayed") === "1", "dunst to show one notification");
    // The user looks at another chat meanwhile (still not in front).
    await app.session.execute(`[...document.querySelectorAll(".chat-item .chat-title")].find((b) => b.textContent === ${JSON.stringify(greeting)}).click()`);
    await waitFor(async () => (await app.text(".chat-heading")) === greeting, "the other chat shown");
    assert.equal(await hasFocus(app), false, "still not in front");

    // The click: the window comes to the front with the orders' chat open.
    dunstctl("action", "0");
    await waitFor(async () => (await hasFocus(app)) && (await app.text(".chat-heading")) === orders, "the window in front with the orders' chat");
    await app.find('[data-testid="plan-card"].active');
    // Clicked, the notification is closed and in dunst's record: the only one of this test.
    await waitFor(() => history().length === before + 1, "the notification in dunst's history");
    const [shown] = history();
    assert.deepEqual({ summary: shown.summary, body: shown.body, appname: shown.appname }, { summary: orders, body: "The plan waits for your approval", appname: "Preflight" });
    assert.equal(dunstctl("count", "displayed"), "0");
  } finally {
    other?.close();
    await app.stop();
  }
});

