// Settings → Notifications: whether the shell raises a desktop notification when a card waits
// or a run ends in any chat while the window is not in front (on by default), and with a sound
// (off by default). Kept by the window, like its language and theme; the shell is told them,
// with the notifications' words in the window's language, at start and on every change
// (src-tauri/src/notice.rs raises them). A click on one brings the window up and opens its
// chat: `useOpenChat`.
import { useEffect, useRef } from "preact/hooks";

import type { NoticeSettings } from "../generated/desktop/NoticeSettings";
import { api } from "./api";
import { t } from "./i18n";

export type NotificationChoice = { enabled: boolean; sound: boolean };

const STORAGE_KEY = "preflight.notifications";
const DEFAULT: NotificationChoice = { enabled: true, sound: false };

/** The choice kept from an earlier run (the defaults when none, or storage is unavailable). */
export function storedNotificationChoice(): NotificationChoice {
  try {
    const kept: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "null");
    if (typeof kept !== "object" || kept === null) return DEFAULT;
    const { enabled, sound } = kept as Partial<NotificationChoice>;
    return { enabled: typeof enabled === "boolean" ? enabled : DEFAULT.enabled, sound: typeof sound === "boolean" ? sound : DEFAULT.sound };
  } catch {
    return DEFAULT;
  }
}

/** What the shell is told: the choice and the words in the window's language now. */
export function noticeSettings(choice: NotificationChoice): NoticeSettings {
  return {
    ...choice,
    words: {
      questions: t("notifications.questions"),
      plan: t("notifications.plan"),
      unconfined: t("notifications.unconfined"),
      plan_change: t("notifications.planChange"),
      elicitation: t("notifications.elicitation"),
      stopped: t("notifications.stopped"),
      done: t("notifications.done"),
      unverified: t("notifications.unverified"),
      failed: t("notifications.failed"),
      open: t("notifications.open"),
    },
  };
}

/** Tells the shell the kept choice in the window's language (at start, after a change of
 *  language). A shell that cannot take it raises no notification: nothing else to do. */
export async function tellShell(choice: NotificationChoice = storedNotificationChoice()): Promise<void> {
  await api.setNoticeSettings(noticeSettings(choice)).catch(() => undefined);
}

/** Settings → Notifications: kept across restarts and told to the shell at once. */
export async function setNotificationChoice(choice: NotificationChoice): Promise<void> {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(choice));
  } catch {
    // No storage: the choice holds for this run only.
  }
  await tellShell(choice);
}

/** Calls `open` with the chat of each notification the user clicks. */
export function useOpenChat(open: (chatId: string) => void): void {
  const latest = useRef(open);
  latest.current = open;
  useEffect(() => api.onOpenChat((chatId) => latest.current(chatId)), []);
}
