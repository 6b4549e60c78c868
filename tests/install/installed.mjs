// The installed package as a new user meets it, driven by scripts/install-test.sh (as root):
// every program of the package runs as that user through the command prefix in $RUN_AS (a
// JSON array: setpriv to the user, `env -i` with a fresh HOME and a plain PATH, no PREFLIGHT_*
// variable), in the user's home, never in the source tree. Only the test's own peers come from
// the build: the scripted model server and tauri-driver (copied where the user can run it).
//
//   node installed.mjs window DESKTOP_FILE   the .desktop entry's Exec reaches Settings (Xvfb)
//   node installed.mjs plan   WORKSPACE      `preflight serve` from PATH plans a chat with the
//                                            bundled filesystem server; prints the chat's id
//   node installed.mjs check  CHAT_ID        `preflight serve` still has the chat (after upgrade)
//
// Each prints one `figure NAME MS` line per first-start time it measures (stdout).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chownSync, createWriteStream, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

import { descendants, planReply, toolCall, text, waitFor, waitGone } from "../e2e/harness.mjs";
import { Session } from "../e2e/webdriver.mjs";

const RUN_AS = JSON.parse(process.env.RUN_AS);
const USER_HOME = process.env.USER_HOME;
const [USER_UID, USER_GID] = [Number(process.env.USER_UID), Number(process.env.USER_GID)];
const WORK = process.env.INSTALL_WORK;
const PROVIDER = process.env.SCRIPTED_PROVIDER_BIN;
const TAURI_DRIVER = process.env.TAURI_DRIVER;
/** Where Preflight keeps a user's data when nothing says otherwise (README). */
const DATA = join(USER_HOME, ".local/share/preflight");
/** The filesystem server below a node_modules folder (crates/engine/src/bundled.rs). */
const FS_SERVER_ENTRY = "@modelcontextprotocol/server-filesystem/dist/index.js";
/** The user's PATH inside RUN_AS. */
const USER_PATH = ["/usr/local/bin", "/usr/bin", "/bin"];

const PLAN = {
  title: "Orders report",
  aim: "A summary of orders.csv",
  steps: [{ action: "Read orders.csv", expected: "the columns are known" }],
  libraries: [],
  sandbox: { policy: "none", notes: "read only" },
};

/** Starts `program args` as the user, in the user's home, on this display; stderr goes to `log`. */
function asUser(program, args, log) {
  const display = process.env.DISPLAY ? [`DISPLAY=${process.env.DISPLAY}`] : [];
  const child = spawn(RUN_AS[0], [...RUN_AS.slice(1), ...display, program, ...args], {
    cwd: USER_HOME,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const file = createWriteStream(join(WORK, log), { flags: "a" });
  child.stderr.pipe(file);
  return child;
}

/** Resolves with the first `listening on URL` line `child` prints. */
function listening(child, what) {
  return new Promise((done, fail) => {
    child.once("error", fail);
    child.once("exit", (code) => fail(new Error(`${what} exited (${code}) before listening`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith("listening on ")) done(line.slice("listening on ".length).trim());
    });
  });
}

async function stop(child, what) {
  const pids = [child.pid, ...descendants(child.pid)];
  child.kill("SIGTERM");
  await waitGone(pids, what);
}

/** The program the entry's `Exec` names, found on the user's PATH as the desktop would. */
function execProgram(desktopFile) {
  const exec = readFileSync(desktopFile, "utf8").match(/^Exec=(.*)$/m)?.[1];
  assert.ok(exec, `${desktopFile} has no Exec line`);
  const [program] = exec.replace(/%[a-zA-Z]/g, "").trim().split(/\s+/);
  if (program.startsWith("/")) return program;
  const found = USER_PATH.map((dir) => join(dir, program)).find((path) => spawnSync("test", ["-x", path]).status === 0);
  assert.ok(found, `Exec=${exec}: ${program} is not on ${USER_PATH.join(":")}`);
  return found;
}

async function freePort() {
  const { createServer } = await import("node:net");
  return new Promise((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** The window from the .desktop entry, over tauri-driver run as the user, up to Settings. */
async function window(desktopFile) {
  const app = execProgram(desktopFile);
  assert.match(app, /^\/usr\/bin\//, "the entry starts the installed program");
  const port = await freePort();
  let nativePort = await freePort();
  while (nativePort === port) nativePort = await freePort();
  const driver = asUser(TAURI_DRIVER, ["--port", String(port), "--native-port", String(nativePort)], "window.log");
  driver.stdout.pipe(createWriteStream(join(WORK, "window.log"), { flags: "a" }));
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => (await fetch(`${base}/status`)).ok, "tauri-driver", 15_000);
    const started = Date.now();
    const session = await Session.start(base, app);
    await waitFor(() => session.execute("return document.documentElement.dataset.ready === '1'"), "the window to be ready", 60_000);
    await waitFor(() => session.find('[data-testid="settings"]'), "the Settings screen of a first start", 20_000);
    console.log(`figure window_first_start_ms ${Date.now() - started}`);
    const shot = join(WORK, "installed-settings.png");
    spawnSync("import", ["-window", "root", "-crop", "1200x800+0+0", "+repage", shot], { stdio: "inherit" });
    await session.end();
  } finally {
    await stop(driver, "tauri-driver and the installed app");
  }
  const log = readFileSync(join(WORK, "window.log"), "utf8");
  const interactive = log.match(/window interactive elapsed_ms=(\d+)/);
  assert.ok(interactive, "the app logged `window interactive`");
  for (const program of [`/usr/lib/Preflight/node_modules/${FS_SERVER_ENTRY}`, "/usr/bin/preflight-sandbox"]) {
    assert.ok(log.includes(`program=${program}`), `the window's engine runs ${program}`);
  }
  console.log(`figure window_interactive_ms ${interactive[1]}`);
}

/** The scripted provider (as root: the test's peer) on `script`; resolves with its URL. */
async function provider(script) {
  writeFileSync(join(WORK, "script.json"), JSON.stringify(script));
  const child = spawn(PROVIDER, [join(WORK, "script.json"), "--requests", join(WORK, "requests.jsonl")], { stdio: ["ignore", "pipe", "inherit"] });
  return { child, url: await listening(child, "scripted-provider") };
}

/** `preflight serve` from the user's PATH; resolves with a client for it and the start time. */
async function serve() {
  const started = Date.now();
  const child = asUser("preflight", ["serve"], "serve.log");
  const url = await listening(child, "preflight serve");
  const ms = Date.now() - started;
  const token = readFileSync(join(DATA, "api-token"), "utf8").trim();
  const call = async (method, path, body) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await response.json();
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  return { child, call, ms };
}

/** A chat planned by `preflight serve`: the planner lists the workspace, then plans. */
async function plan(workspace) {
  const scripted = await provider({
    routes: [
      { when: { system_contains: "plan-questions" }, replies: [toolCall("mcp_filesystem_list_directory", { path: workspace }, "Looking. "), planReply(PLAN)] },
      { repeat_last: true, replies: [text("Done.")] },
    ],
  });
  const config = join(DATA, "config.toml");
  writeFileSync(config, `[provider]\nkind = "openai"\nbase_url = "${scripted.url}/v1"\nmodel = "scripted"\n`);
  chownSync(config, USER_UID, USER_GID);
  const server = await serve();
  console.log(`figure serve_first_start_ms ${server.ms}`);
  try {
    const chat = await server.call("POST", "/v1/chats", { title: "Installed", workspace });
    await server.call("POST", `/v1/chats/${chat.id}/messages`, { content: "Summarise the orders" });
    const view = await waitFor(async () => {
      const view = await server.call("GET", `/v1/chats/${chat.id}`);
      return view.state.phase === "awaiting_approval" ? view : null;
    }, "the plan card", 60_000);
    assert.equal(view.messages.at(-1).plan.title, PLAN.title);
    const requests = readFileSync(join(WORK, "requests.jsonl"), "utf8");
    assert.ok(requests.includes("[FILE] README.md"), "the bundled filesystem server listed the workspace for the planner");
    console.log(`chat ${chat.id} ${view.messages.length}`);
  } finally {
    await stop(server.child, "preflight serve");
    await stop(scripted.child, "scripted-provider");
  }
}

/** After an upgrade: the chat and its messages are still there, still waiting for approval. */
async function check(chatId, messages) {
  const server = await serve();
  try {
    const view = await server.call("GET", `/v1/chats/${chatId}`);
    assert.equal(view.messages.length, Number(messages), "every message kept");
    assert.equal(view.state.phase, "awaiting_approval");
    assert.equal(view.messages.at(-1).plan.title, PLAN.title);
    console.log(`figure serve_start_after_upgrade_ms ${server.ms}`);
  } finally {
    await stop(server.child, "preflight serve");
  }
}

const [command, ...args] = process.argv.slice(2);
const commands = { window, plan, check };
assert.ok(commands[command], `usage: installed.mjs window|plan|check …`);
await commands[command](...args);
