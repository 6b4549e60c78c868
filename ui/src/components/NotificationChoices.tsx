// Settings → Notifications: the desktop notification when a card waits or a run ends (on by
// default) and its sound (off by default); each applies at once and is kept by the window,
// like the language and the theme (lib/notifications.ts).
import { useState } from "preact/hooks";

import { t } from "../lib/i18n";
import { setNotificationChoice, storedNotificationChoice, type NotificationChoice } from "../lib/notifications";

export function NotificationChoices() {
  const [choice, setChoice] = useState<NotificationChoice>(storedNotificationChoice);
  const change = (next: Partial<NotificationChoice>) => {
    const changed = { ...choice, ...next };
    setChoice(changed);
    void setNotificationChoice(changed);
  };
  return (
    <fieldset data-testid="notification-choices">
      <legend>{t("notifications.legend")}</legend>
      <label class="check">
        <input type="checkbox" data-testid="notify" checked={choice.enabled} onChange={(event) => change({ enabled: event.currentTarget.checked })} />
        {t("notifications.enabled")}
      </label>
      <p class="muted">{t("notifications.hint")}</p>
      <label class="check">
        <input type="checkbox" data-testid="notify-sound" checked={choice.sound} disabled={!choice.enabled} onChange={(event) => change({ sound: event.currentTarget.checked })} />
        {t("notifications.sound")}
      </label>
    </fieldset>
  );
}
