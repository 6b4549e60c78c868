// `node tests/e2e/signin-window.mjs <server-url>`: the client command of the sign-in e2e test,
// started by the MCP conformance suite for its `auth/metadata-default` scenario (the suite's
// MCP server behind its own OAuth authorization server). It starts the real window with that
// server in mcp.json and signs in the way a user does: Settings → MCP servers → Sign in; the
// browser (follow-redirects.mjs) approves and comes back to the engine's loopback port; the
// window then says "Signed in", Test lists the server's tools with the stored tokens, and
// Sign out forgets them.
// Exit 0 when all of it happened; the suite checks the OAuth flow itself.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { openaiConfig, publish, REPO, startApp, waitFor } from "./harness.mjs";

const server = process.argv[2];
const app = await startApp({
  name: "mcp-sign-in",
  config: (url) => openaiConfig(url),
  script: () => ({ routes: [] }),
  env: (dir) => {
    writeFileSync(join(dir, "home", "mcp.json"), JSON.stringify({ mcpServers: { tracker: { type: "http", url: server } } }));
    return { PREFLIGHT_OPEN_URL: join(REPO, "tests/e2e/follow-redirects.mjs"), SIGNIN_LANDED_FILE: join(dir, "landed.txt") };
  },
});
let failed = false;
try {
  await app.click('[data-testid="open-settings"]');
  const row = '[data-testid="mcp-server"][data-name="tracker"]';
  await app.byText(`${row} [data-testid="mcp-remote-url"]`, server);
  await app.click(`${row} [data-testid="mcp-sign-in"]`);
  await app.find(`${row} [data-testid="mcp-signed-in"]`, 30_000);
  const landed = join(app.dir, "landed.txt");
  await waitFor(() => existsSync(landed), "the browser to come back");
  const page = readFileSync(landed, "utf8");
  if (!/^200 http:\/\/127\.0\.0\.1:\d+\/callback\?/.test(page) || !page.includes("Preflight is signed in to tracker")) {
    throw new Error(`the browser landed on an unexpected page: ${page.slice(0, 300)}`);
  }
  // Test connects anew with the stored tokens and lists the server's tools.
  await app.click(`${row} [data-testid="mcp-test"]`);
  await app.find(`${row} [data-testid="execution-tools"]`, 30_000);
  await app.session.execute(`document.querySelector('${row}').scrollIntoView({ block: "center" })`);
  const shot = await app.screenshot("signed-in");
  publish(shot, "mcp-sign-in.png");
  // Sign out forgets the tokens (the key store keeps nothing of the test) and offers Sign in.
  await app.click(`${row} [data-testid="mcp-sign-out"]`);
  await app.find(`${row} [data-testid="mcp-sign-in"]`);
} catch (error) {
  failed = true;
  console.error(`sign-in in the window failed: ${error.stack ?? error}`);
  await app.screenshot("sign-in-failed").catch(() => {});
} finally {
  await app.stop();
}
process.exit(failed ? 1 : 0);
