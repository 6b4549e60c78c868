// Desktop notifications, the window's side, against a fake shell (Tauri's `invoke` and events
// mocked): the shell is told the switch, the sound and the words in the window's language at
// start and again when the language changes; Settings → Notifications changes and keeps them;
// a click on a notification (the shell's `open-chat`) opens that chat.
import { act, fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { App } from "../App";
import type { Chat } from "../generated/Chat";
import type { NoticeSettings } from "../generated/desktop/NoticeSettings";
import { applyLanguage } from "../lib/i18n";
import { storedNotificationChoice } from "../lib/notifications";
import { shell } from "./fakeShell";
import { chat, settings, user, view } from "./fixtures";

vi.mock("@tauri-apps/api/core", () => import("./fakeShell").then((fake) => fake.core));
vi.mock("@tauri-apps/api/event", () => import("./fakeShell").then((fake) => fake.event));
vi.mock("@tauri-apps/api/webview", () => import("./fakeShell").then((fake) => fake.webview));

const second: Chat = { ...chat, id: "chat2", title: "Export orders" };

/** What the shell was last told of the notifications. */
function told(): NoticeSettings {
  const calls = shell.calls.filter((call) => call.command === "set_notice_settings");
  expect(calls.length).toBeGreaterThan(0);
  return calls[calls.length - 1]!.args!.settings as NoticeSettings;
}

beforeEach(() => {
  localStorage.clear();
  shell.calls = [];
  shell.listeners = {};
  shell.answers = {
    app_info: () => ({ version: "0", home: "/h", startup_error: null, models_dir: "/m", models: [] }),
    get_settings: () => settings,
    list_chats: () => ({ data: [chat, second], next_cursor: null }),
    ui_ready: () => 5,
    watch_chat: () => undefined,
    chat_view: (args) => (args?.chat_id === "chat2" ? { ...view([user("u2", "Export the orders")]), ...second } : view([user("u1", "Hello")])),
    plan_view: () => ({ tasks: [], files: null }),
    list_elicitations: () => [],
    set_notice_settings: () => undefined,
    list_models: () => ({ data: [], providers: [] }),
  };
});

afterEach(() => applyLanguage("en"));

describe("desktop notifications in the window", () => {
  it("are on without a sound by default, told to the shell in the window's language", async () => {
    expect(storedNotificationChoice()).toEqual({ enabled: true, sound: false });
    render(<App />);
    await waitFor(() => expect(told().words.plan).toBe("The plan waits for your approval"));
    expect(told()).toMatchObject({ enabled: true, sound: false });
    const words = Object.values(told().words);
    expect(words.every((word) => word.trim() !== "" && !word.startsWith("notifications."))).toBe(true);
    await act(async () => applyLanguage("ru"));
    await waitFor(() => expect(told().words.plan).toBe("План ждёт вашего одобрения"));
  });

  it("are switched in Settings, kept, and the sound only with them on", async () => {
    render(<App />);
    await screen.findByTestId("chat");
    await act(async () => {
      fireEvent.click(screen.getByTestId("open-settings"));
    });
    const sound = (await screen.findByTestId("notify-sound")) as HTMLInputElement;
    await act(async () => {
      fireEvent.click(sound);
    });
    await waitFor(() => expect(told()).toMatchObject({ enabled: true, sound: true }));
    const notify = screen.getByTestId("notify") as HTMLInputElement;
    await act(async () => {
      fireEvent.click(notify);
    });
    await waitFor(() => expect(told()).toMatchObject({ enabled: false, sound: true }));
    expect(sound.disabled).toBe(true);
    expect(storedNotificationChoice()).toEqual({ enabled: false, sound: true });
  });

  it("open their chat when clicked", async () => {
    render(<App />);
    await waitFor(() => expect(screen.getByTestId("chat").querySelector(".chat-heading")?.textContent).toBe("Chat"));
    await waitFor(() => expect(shell.listeners["open-chat"]).toBeDefined());
    await act(async () => shell.listeners["open-chat"]!({ payload: { chat_id: "chat2" } }));
    await waitFor(() => expect(screen.getByTestId("chat").querySelector(".chat-heading")?.textContent).toBe("Export orders"));
  });
});
