// Accessibility and layout checks of the real window, shared by the e2e tests.
//
// `checkA11y`: axe-core (tests/peers, pinned) injected into the page through WebDriver (its
// script runs as the automation's, so the window's CSP does not stop it) and run on the whole
// document in the light and the dark theme (the themes differ only in <html data-theme>,
// which is all lib/theme.ts sets, so the check flips it and puts it back); any serious or
// critical violation fails, naming the rule, the elements and what axe says is wrong.
//
// `checkLayout`: the window's geometry from getBoundingClientRect, as a person would judge
// it: the page does not scroll sideways, no region (chat list, chat, task panel, the chat's
// parts) scrolls sideways, no visible control or card leaves the window or is cut by its
// container, no two regions and no two controls in view overlap.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { REPO } from "./harness.mjs";

const AXE_PATH = join(REPO, "tests/peers/node_modules/axe-core/axe.min.js");
let axeSource = null;

const RUN_AXE = `
  const theme = arguments[0];
  const done = arguments[arguments.length - 1];
  const root = document.documentElement;
  const before = root.dataset.theme;
  root.dataset.theme = theme;
  const serious = (v) => v.impact === "serious" || v.impact === "critical";
  axe.run(document, { resultTypes: ["violations"] }).then(
    (results) => {
      root.dataset.theme = before;
      done({ rules: results.passes.length + results.violations.length + results.incomplete.length, violations: results.violations.filter(serious).map((v) => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map((n) => ({ target: n.target.join(" "), html: n.html.slice(0, 200), summary: (n.failureSummary || "").replace(/\\s+/g, " ").slice(0, 300) })),
      })) });
    },
    (error) => {
      root.dataset.theme = before;
      done({ error: String(error && error.stack || error) });
    },
  );
`;

/**
 * Runs axe-core on what the window shows (`screen` names it in the failure) in each of
 * `themes`; fails on any serious or critical violation.
 */
export async function checkA11y(app, screen, themes = ["light", "dark"]) {
  if (!(await app.session.execute("return typeof window.axe === 'object'"))) {
    axeSource ??= readFileSync(AXE_PATH, "utf8");
    await app.session.execute(`${axeSource}\nreturn typeof window.axe;`);
  }
  const found = [];
  for (const theme of themes) {
    const result = await app.session.executeAsync(RUN_AXE, [theme]);
    if (result.error) throw new Error(`axe-core could not run on ${screen} (${theme}): ${result.error}`);
    assert.ok(result.rules > 20, `axe-core ran only ${result.rules} rules on ${screen} (${theme})`);
    for (const v of result.violations) {
      const nodes = v.nodes.slice(0, 6).map((n) => `      ${n.target}: ${n.summary}\n        ${n.html}`);
      const more = v.nodes.length > 6 ? `\n      … and ${v.nodes.length - 6} more` : "";
      found.push(`  [${theme}] ${v.impact} ${v.id}: ${v.help} (${v.nodes.length} element(s))\n${nodes.join("\n")}${more}`);
    }
  }
  assert.ok(found.length === 0, `axe-core: serious or critical violations on ${screen}:\n${found.join("\n")}`);
}

const MEASURE = `
  const SCOPE = arguments[0];
  const inScope = (el) => !SCOPE || el.closest(SCOPE) !== null;
  const W = document.documentElement.clientWidth, H = document.documentElement.clientHeight;
  const problems = [];
  const name = (el) => {
    const id = el.getAttribute("data-testid");
    const cls = typeof el.className === "string" && el.className.trim() ? "." + el.className.trim().split(/\\s+/).join(".") : "";
    const words = (el.innerText || el.value || el.getAttribute("aria-label") || el.getAttribute("placeholder") || "").replace(/\\s+/g, " ").trim().slice(0, 40);
    return el.tagName.toLowerCase() + (id ? '[data-testid="' + id + '"]' : cls) + (words ? ' "' + words + '"' : "");
  };
  const shown = (el) => {
    if (el.getClientRects().length === 0) return false;
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.visibility === "hidden" || s.opacity === "0") return false;
    }
    return true;
  };
  // Containers that scroll sideways on purpose: code, tables, diffs.
  const SCROLLERS = "pre, table, .diff-scroll, .sandbox-text, .gate-evidence, .continue-content";
  const clips = (e) => { const s = getComputedStyle(e); return s.overflowX !== "visible" || s.overflowY !== "visible"; };
  /** The part of el's box not cut away by its scrolling or clipping ancestors, or null. */
  const inView = (el) => {
    const r = el.getBoundingClientRect();
    let [l, t, rr, b] = [r.left, r.top, r.right, r.bottom];
    for (let e = el.parentElement; e && e !== document.documentElement; e = e.parentElement) {
      if (!clips(e)) continue;
      const c = e.getBoundingClientRect();
      l = Math.max(l, c.left); t = Math.max(t, c.top); rr = Math.min(rr, c.right); b = Math.min(b, c.bottom);
    }
    l = Math.max(l, 0); t = Math.max(t, 0); rr = Math.min(rr, W); b = Math.min(b, H);
    return rr - l > 1 && b - t > 1 ? { l, t, r: rr, b } : null;
  };

  // 1. The page itself never scrolls sideways.
  for (const el of [document.documentElement, document.body]) {
    if (el.scrollWidth > el.clientWidth + 1) problems.push("the page scrolls sideways: " + el.tagName.toLowerCase() + " is " + el.scrollWidth + " px wide in a " + el.clientWidth + " px window");
  }
  // 2. No region scrolls sideways.
  const REGIONS = "nav.sidebar, .chat-list, main.chat, .chat-head, .messages, .composer, .status-line, [data-testid=error-banner], aside.task-panel, .fold-head, .dialog, .dialog-body, .settings, .model-popover";
  const regions = [...document.querySelectorAll(REGIONS)].filter(shown).filter(inScope);
  for (const el of regions) {
    if (el.scrollWidth > el.clientWidth + 1) problems.push(name(el) + " is too narrow for what it holds: it scrolls sideways or spills over (" + el.scrollWidth + " px of content in " + el.clientWidth + " px)");
  }
  // 3. Controls and cards stay in the window and in their own column, and are not cut by what holds them.
  const COLUMNS = "nav.sidebar, main.chat, aside.task-panel, .dialog, .search";
  const CONTROLS = "button, input, select, textarea, summary, a[href], [role=button]";
  const CARDS = ".card, .message, .terminal, .tool-group, .tool, .continue-marker, .compaction, .task, .chat-item, .model-popover, .model-option";
  const items = [...document.querySelectorAll(CONTROLS + ", " + CARDS)].filter(shown).filter(inScope).filter((el) => !el.closest(SCROLLERS));
  for (const el of items) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < -1 || r.right > W + 1) {
      problems.push(name(el) + " leaves the window: x " + Math.round(r.left) + "…" + Math.round(r.right) + " of 0…" + W);
      continue;
    }
    const column = el.closest(COLUMNS);
    const c = column && column.getBoundingClientRect();
    if (c && (r.left < c.left - 1 || r.right > c.right + 1)) {
      problems.push(name(el) + " spills out of " + name(column) + " over what is beside it: x " + Math.round(r.left) + "…" + Math.round(r.right) + " in " + Math.round(c.left) + "…" + Math.round(c.right));
      continue;
    }
    for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
      if (!clips(e)) continue;
      const c = e.getBoundingClientRect();
      if (r.left < c.left - 1 || r.right > c.right + 1) {
        problems.push(name(el) + " is cut by " + name(e) + ": x " + Math.round(r.left) + "…" + Math.round(r.right) + " in " + Math.round(c.left) + "…" + Math.round(c.right));
        break;
      }
    }
  }
  // 4. Regions beside each other do not overlap: the three columns, and the chat's parts.
  const overlap = (a, b) => Math.min(a.r, b.r) - Math.max(a.l, b.l) > 1 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 1;
  const box = (el) => { const r = el.getBoundingClientRect(); return { l: r.left, t: r.top, r: r.right, b: r.bottom }; };
  const SIBLINGS = ["nav.sidebar, main.chat, aside.task-panel", "main.chat > .chat-head, main.chat > .messages, main.chat > .status-line, main.chat > .error, main.chat > .composer"];
  for (const group of SIBLINGS) {
    const els = [...document.querySelectorAll(group)].filter(shown).filter(inScope);
    for (let i = 0; i < els.length; i++)
      for (let j = i + 1; j < els.length; j++)
        if (overlap(box(els[i]), box(els[j]))) problems.push(name(els[i]) + " overlaps " + name(els[j]));
  }
  // 5. No two controls in view overlap (one inside the other is fine: a button in a summary).
  const controls = [...document.querySelectorAll(CONTROLS)].filter(shown).filter(inScope).map((el) => ({ el, v: inView(el) })).filter((c) => c.v);
  for (let i = 0; i < controls.length; i++)
    for (let j = i + 1; j < controls.length; j++) {
      const [a, b] = [controls[i], controls[j]];
      if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
      if (overlap(a.v, b.v)) problems.push(name(a.el) + " overlaps " + name(b.el));
    }
  return { width: W, height: H, checked: items.length, problems };
`;

/**
 * Checks the window's geometry as it is now (see the file's head); `what` names the state in
 * the failure; `scope` (a selector) limits the check to what is inside it, e.g. a panel open
 * over the chat. Returns how many controls and cards were checked.
 */
export async function checkLayout(app, what, scope = null) {
  const result = await app.session.execute(MEASURE, [scope]);
  assert.ok(result.checked > 0, `${what}: nothing to check in the window`);
  assert.ok(result.problems.length === 0, `${what} (${result.width}×${result.height}): the layout is broken:\n  ${result.problems.join("\n  ")}`);
  return result.checked;
}
