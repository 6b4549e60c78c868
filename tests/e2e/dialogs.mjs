// The native GTK file dialogs, driven as a user would with the keyboard (xdotool on the
// test's Xvfb display): WebDriver cannot reach them. `pickInDialog` types a path into an open
// dialog (Ctrl+L, the path, Enter); `saveInDialog` types one over the proposed file name.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

import { ARTIFACTS, waitFor } from "./harness.mjs";

/** Runs xdotool on the test's display; throws with its output when it fails. */
export function xdotool(...args) {
  const result = spawnSync("xdotool", args, { encoding: "utf8", timeout: 20_000 });
  if (result.status !== 0) throw new Error(`xdotool ${args.join(" ")}: ${result.status ?? result.error} ${result.stderr}`);
  return result.stdout.trim();
}

/** The id of the open window titled `title`, or null. */
export function windowNamed(title) {
  const found = spawnSync("xdotool", ["search", "--onlyvisible", "--name", `^${title}$`], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim().split("\n").pop() : null;
}

/** How long one Enter is given to close the file chooser before it is pressed again. */
const DIALOG_CLOSE_MS = 3_000;

/** How long a dialog that has just been mapped is left to finish building itself: a GTK
 *  file chooser opened for the first time in a process loads its places and icons after it
 *  shows, and keys sent meanwhile can be lost. */
const DIALOG_SETTLE_MS = 400;

/**
 * Types `path` into the open dialog titled `title` (after `select`, the keys that put the
 * caret where the path goes, and Ctrl+A so a second try replaces the first), then Enter
 * until it closes. GTK completes a path as it is typed, and an Enter that lands on a
 * completion only accepts it: Enter is pressed again while the dialog stays open. A dialog
 * still open after that lost the keys (it was not ready): the whole path is typed again.
 */
async function typeInDialog(title, select, path) {
  const window = await waitFor(() => windowNamed(title), `the "${title}" dialog`);
  for (let round = 0; round < 3 && windowNamed(title); round++) {
    await new Promise((resolve) => setTimeout(resolve, DIALOG_SETTLE_MS * (round + 1)));
    xdotool("windowfocus", "--sync", window);
    xdotool("key", "--clearmodifiers", select);
    xdotool("key", "--clearmodifiers", "ctrl+a");
    xdotool("type", "--delay", "20", path);
    for (let attempt = 0; attempt < 3 && windowNamed(title); attempt++) {
      xdotool("key", "Return");
      await waitFor(() => windowNamed(title) === null, `the "${title}" dialog to close`, DIALOG_CLOSE_MS).catch(() => {});
    }
  }
  if (windowNamed(title)) spawnSync("import", ["-window", "root", join(ARTIFACTS, `dialog-stuck-${title.replace(/\W+/g, "-")}.png`)]);
  assert.equal(windowNamed(title), null, `the "${title}" dialog took the path and closed`);
}

/** Picks `path` in the open GTK file chooser titled `title`. */
export function pickInDialog(title, path) {
  return typeInDialog(title, "ctrl+l", path);
}

/** Saves to `path` in the open GTK save dialog titled `title`: its name field holds the
 *  proposed name, selected; a whole path typed there is taken as typed. */
export function saveInDialog(title, path) {
  return typeInDialog(title, "ctrl+a", path);
}
