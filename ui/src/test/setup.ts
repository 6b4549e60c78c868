// Each test renders into a fresh document, in English (the texts the tests assert) and the
// light theme, whatever the machine's locale; a test that switches language or theme gets
// English and a clean storage back afterwards.
import { cleanup } from "@testing-library/preact";
import { afterEach, beforeEach } from "vitest";

import { applyLanguage } from "../lib/i18n";

beforeEach(() => applyLanguage("en"));
afterEach(() => {
  cleanup();
  localStorage.clear();
  applyLanguage("en");
});
