// Settings → MCP servers in the real window: the reference `everything` server (npm,
// tests/peers) added by pasting the entry other clients use, tested (its tools listed as
// execution-only), saved into mcp.json; then a broken entry refused with the engine's own
// error, and mcp.json left as it was. Settings → Skills beside it: the user's skill listed with
// what it is for, and a folder that is no skill said with why.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { explainFailures, openaiConfig, publish, REPO, startApp, waitFor } from "./harness.mjs";

explainFailures();

const EVERYTHING = join(REPO, "tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");

/** The user's own skills: one, and a folder whose SKILL.md names no skill. */
function writeSkills(home) {
  const skill = join(home, "skills", "release-notes");
  mkdirSync(skill, { recursive: true });
  writeFileSync(join(skill, "SKILL.md"), "---\nname: release-notes\ndescription: Write the release notes from the merged changes\n---\nGroup by area; link each change.\n");
  mkdirSync(join(home, "skills", "Draft"), { recursive: true });
  writeFileSync(join(home, "skills", "Draft", "SKILL.md"), "---\ndescription: unfinished\n---\n");
}

test("MCP servers in Settings: add the everything server by pasting its entry, test it, save it; a broken entry shows the engine's error; the user's skills listed", async () => {
  const app = await startApp({ name: "mcp-settings", config: (url) => openaiConfig(url), script: () => ({ routes: [] }), prepare: writeSkills });
  try {
    await app.click('[data-testid="open-settings"]');
    await app.byText('[data-testid="mcp-server"]', "filesystem");
    await app.byText('[data-testid="mcp-server"]', "added by Preflight");

    await app.click('[data-testid="mcp-add"]');
    await app.click('[data-testid="mcp-paste-tab"]');
    const entry = { mcpServers: { everything: { command: "node", args: [EVERYTHING, "stdio"] } } };
    await (await app.find('[data-testid="mcp-paste"]')).type(JSON.stringify(entry));
    await app.click('[data-testid="mcp-editor-test"]');
    const tools = await app.byText('[data-testid="mcp-editor"] [data-testid="execution-tools"]', "echo");
    assert.match(await tools.text(), /^Execution only: /);
    assert.equal(await app.count('[data-testid="mcp-editor"] [data-testid="planning-tools"]'), 0, "the planner sees none of them");
    await app.click('[data-testid="mcp-save"]');
    await app.byText('[data-testid="mcp-server"]', "everything");
    const file = join(app.home, "mcp.json");
    assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), entry);
    const shot = await app.screenshot("mcp-servers");

    // A typo in the key: the engine's error (file, key, line), and nothing written.
    await app.click('[data-testid="mcp-server"][data-name="everything"] [data-testid="mcp-edit"]');
    await app.click('[data-testid="mcp-paste-tab"]');
    const paste = await app.find('[data-testid="mcp-paste"]');
    await paste.clear();
    await paste.type(JSON.stringify({ everything: { comand: "node" } }));
    await app.click('[data-testid="mcp-save"]');
    const error = await app.byText('[data-testid="mcp-error"]', "unknown field `comand`");
    assert.match(await error.text(), /mcp\.json: unknown field `comand`, expected one of `command`.* at line \d+ column \d+/);
    assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), entry, "mcp.json unchanged");
    await app.screenshot("mcp-error");
    publish(shot, "mcp-servers.png");
    await waitFor(async () => (await app.count('[data-testid="mcp-editor"]')) === 1, "the editor to stay open");

    const skill = await app.byText('[data-testid="skill"]', "release-notes");
    assert.match(await skill.text(), /release-notes yoursWrite the release notes from the merged changes/);
    const problem = await app.byText('[data-testid="skill-problem"]', "Draft");
    assert.match(await problem.text(), /Draft: its name is missing/);
    await app.session.execute("document.querySelector('[data-testid=\"skills\"]').scrollIntoView()");
    publish(await app.screenshot("skills"), "settings-skills.png");
  } finally {
    await app.stop();
  }
});
