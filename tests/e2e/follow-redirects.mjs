#!/usr/bin/env node
// The "browser" of the sign-in e2e test (the window opens it through $PREFLIGHT_OPEN_URL):
// it opens the authorization page and follows the authorization server's redirects, as a
// browser would after the user approved, which brings it back to the engine's loopback
// port. Writes where it landed to $SIGNIN_LANDED_FILE.
import { appendFileSync } from "node:fs";

const url = process.argv[2];
const response = await fetch(url, { redirect: "follow" });
const landed = `${response.status} ${response.url}\n${await response.text()}\n`;
if (process.env.SIGNIN_LANDED_FILE) appendFileSync(process.env.SIGNIN_LANDED_FILE, landed);
