// A fake desktop shell for tests of the whole window: Tauri's `invoke` answers from
// `shell.answers` (a command without an answer is `ERR_INTERNAL`, so a test sees what it did
// not expect), every call is kept in `shell.calls`, and `listen` keeps each event's handler in
// `shell.listeners` for the test to fire. A test file mocks Tauri's modules with it:
//
//   vi.mock("@tauri-apps/api/core", () => import("./fakeShell").then((fake) => fake.core));
//   vi.mock("@tauri-apps/api/event", () => import("./fakeShell").then((fake) => fake.event));
//   vi.mock("@tauri-apps/api/webview", () => import("./fakeShell").then((fake) => fake.webview));
import { vi } from "vitest";

export const shell = {
  calls: [] as { command: string; args: Record<string, unknown> | undefined }[],
  listeners: {} as Record<string, (event: { payload: unknown }) => void>,
  /** What each command answers, by name. */
  answers: {} as Record<string, (args: Record<string, unknown> | undefined) => unknown>,
};

export const core = {
  invoke: vi.fn(async (command: string, args?: Record<string, unknown>) => {
    shell.calls.push({ command, args });
    const answer = shell.answers[command];
    if (!answer) throw { code: "ERR_INTERNAL", message: `no fake for ${command}` };
    return answer(args);
  }),
  Channel: class {
    onmessage: (message: unknown) => void = () => {};
  },
};

export const event = {
  listen: async (name: string, handler: (event: { payload: unknown }) => void) => {
    shell.listeners[name] = handler;
    return () => delete shell.listeners[name];
  },
};

export const webview = {
  getCurrentWebview: () => ({ onDragDropEvent: async () => () => {} }),
};
