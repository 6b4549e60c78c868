//! Desktop notifications (DESIGN §15 "Notice"): when a card starts waiting or a run ends in
//! any chat (the engine's [`Engine::attention`] decides what counts) and the window is not in
//! front, a freedesktop notification titled with the chat's title says what waits; clicking
//! it brings the window to the front and opens that chat (the `open-chat` event). One
//! notification per chat, replaced by the chat's next one rather than piled up.
//!
//! The notification server is spoken to over D-Bus with zbus directly, not through
//! `tauri-plugin-notification`: on the desktop that plugin hands the notification to
//! notify-rust and drops the handle, so a click is never reported (its `onAction` is
//! mobile-only; plugins-workspace#2150 is open). zbus is in the build already (the key
//! store's), and one connection with one signal stream serves every notification, where
//! notify-rust would hold a connection and a blocked thread for each. The window gets no
//! permission for this: the shell raises the notifications itself.
//!
//! [`Engine::attention`]: preflight_engine::lifecycle::Engine::attention

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError, RwLock};

use preflight_engine::lifecycle::{Attended, Waiting};
use preflight_engine::ChatId;
use tauri::{AppHandle, Emitter, Manager};

use crate::ipc::{ChatRef, NoticeSettings, NoticeWords, OPEN_CHAT};
use crate::shell::Shell;

/// The main window's label (`tauri.conf.json`).
const WINDOW: &str = "main";

/// What the shell knows of its notifications.
#[derive(Default)]
pub struct Notices {
    settings: RwLock<NoticeSettings>,
    /// The server's id of each chat's notification, and the other way round.
    shown: Mutex<Shown>,
    #[cfg(target_os = "linux")]
    bus: tokio::sync::OnceCell<Option<bus::Bus>>,
}

#[derive(Default)]
struct Shown {
    by_chat: HashMap<ChatId, u32>,
    by_id: HashMap<u32, ChatId>,
}

impl Shown {
    fn record(&mut self, chat_id: ChatId, id: u32) {
        if let Some(old) = self.by_chat.insert(chat_id.clone(), id) {
            self.by_id.remove(&old);
        }
        self.by_id.insert(id, chat_id);
    }

    /// The server closed notification `id` (expired, dismissed, clicked).
    fn closed(&mut self, id: u32) {
        if let Some(chat_id) = self.by_id.remove(&id) {
            self.by_chat.remove(&chat_id);
        }
    }
}

impl Notices {
    pub fn set(&self, settings: NoticeSettings) {
        *self.settings.write().unwrap_or_else(PoisonError::into_inner) = settings;
    }

    fn settings(&self) -> NoticeSettings {
        self.settings.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn shown(&self) -> std::sync::MutexGuard<'_, Shown> {
        self.shown.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The chat a notification of ours opens; `None` for another program's.
    fn chat_of(&self, id: u32) -> Option<ChatId> {
        self.shown().by_id.get(&id).cloned()
    }

    /// Raises `attended`'s notification unless notifications are off or the window is in
    /// front (focused, shown, not minimised).
    async fn raise(&self, app: &AppHandle, attended: Attended) {
        let settings = self.settings();
        if !settings.enabled || in_front(app) {
            return;
        }
        let body = body(&settings.words, attended.waiting);
        let replaces = self.shown().by_chat.get(&attended.chat_id).copied().unwrap_or(0);
        let notification = Notification {
            replaces,
            title: &attended.title,
            body,
            open: &settings.words.open,
            sound: settings.sound,
        };
        if let Some(id) = self.show(app, notification).await {
            self.shown().record(attended.chat_id, id);
        }
    }

    #[cfg(target_os = "linux")]
    async fn show(&self, app: &AppHandle, notification: Notification<'_>) -> Option<u32> {
        let bus = self.bus.get_or_init(|| bus::Bus::connect(app.clone())).await.as_ref()?;
        match bus.notify(&notification).await {
            Ok(id) => Some(id),
            Err(error) => {
                tracing::warn!(%error, "the notification server did not take a notification");
                None
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    async fn show(&self, _app: &AppHandle, _notification: Notification<'_>) -> Option<u32> {
        None
    }
}

/// One notification as the server is asked for it.
struct Notification<'a> {
    /// The chat's earlier notification, replaced (0: none).
    replaces: u32,
    title: &'a str,
    body: &'a str,
    open: &'a str,
    sound: bool,
}

/// What a notification says waits.
fn body(words: &NoticeWords, waiting: Waiting) -> &str {
    match waiting {
        Waiting::Questions => &words.questions,
        Waiting::Plan => &words.plan,
        Waiting::Unconfined => &words.unconfined,
        Waiting::PlanChange => &words.plan_change,
        Waiting::Elicitation => &words.elicitation,
        Waiting::Stopped => &words.stopped,
        Waiting::Done => &words.done,
        Waiting::Unverified => &words.unverified,
        Waiting::Failed => &words.failed,
    }
}

/// Whether the user sees the window now.
fn in_front(app: &AppHandle) -> bool {
    let Some(window) = app.get_webview_window(WINDOW) else { return false };
    window.is_focused().unwrap_or(false)
        && window.is_visible().unwrap_or(false)
        && !window.is_minimized().unwrap_or(false)
}

/// The click: the window unminimised, shown and focused, then told which chat to open.
fn open_chat(app: &AppHandle, chat_id: ChatId) {
    if let Some(window) = app.get_webview_window(WINDOW) {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
    let _ = app.emit_to(WINDOW, OPEN_CHAT, ChatRef { chat_id });
}

/// Follows every chat's attentions for the life of the app, on the engine open now (a new
/// one after the settings re-open it).
pub fn follow(app: AppHandle) {
    tauri::async_runtime::spawn(async move {
        let shell = app.state::<Shell>();
        let notices = app.state::<Notices>();
        let (app, notices) = (&app, &notices);
        shell
            .each_engine(|engine| async move {
                let mut attention = engine.attention();
                while let Some(attended) = attention.next().await {
                    notices.raise(app, attended).await;
                }
            })
            .await;
    });
}

#[cfg(target_os = "linux")]
mod bus {
    //! The freedesktop notification server (org.freedesktop.Notifications) on the session
    //! bus: `Notify` with the `default` action (what a click on the notification invokes),
    //! and its `ActionInvoked` and `NotificationClosed` signals.

    use std::collections::HashMap;

    use futures_util::StreamExt;
    use tauri::{AppHandle, Manager};
    use zbus::zvariant::Value;

    use super::{open_chat, Notices, Notification};

    #[zbus::proxy(
        interface = "org.freedesktop.Notifications",
        default_service = "org.freedesktop.Notifications",
        default_path = "/org/freedesktop/Notifications"
    )]
    trait Notifications {
        #[allow(clippy::too_many_arguments)]
        fn notify(
            &self,
            app_name: &str,
            replaces_id: u32,
            app_icon: &str,
            summary: &str,
            body: &str,
            actions: &[&str],
            hints: HashMap<&str, Value<'_>>,
            expire_timeout: i32,
        ) -> zbus::Result<u32>;

        fn close_notification(&self, id: u32) -> zbus::Result<()>;

        #[zbus(signal)]
        fn action_invoked(&self, id: u32, action_key: String) -> zbus::Result<()>;

        #[zbus(signal)]
        fn notification_closed(&self, id: u32, reason: u32) -> zbus::Result<()>;
    }

    pub struct Bus {
        proxy: NotificationsProxy<'static>,
    }

    impl Bus {
        /// The session bus and a task answering clicks; `None` (said once in the log) where
        /// there is no session bus: then no notification is raised.
        pub async fn connect(app: AppHandle) -> Option<Bus> {
            let connected = async {
                let connection = zbus::Connection::session().await?;
                NotificationsProxy::new(&connection).await
            };
            let proxy = match connected.await {
                Ok(proxy) => proxy,
                Err(error) => {
                    tracing::warn!(%error, "no session bus: desktop notifications are off");
                    return None;
                }
            };
            let clicks = proxy.receive_action_invoked().await.ok()?;
            let closes = proxy.receive_notification_closed().await.ok()?;
            tauri::async_runtime::spawn(answer(app, proxy.clone(), clicks, closes));
            Some(Bus { proxy })
        }

        pub async fn notify(&self, notification: &Notification<'_>) -> zbus::Result<u32> {
            let actions = ["default", notification.open];
            self.proxy
                .notify(
                    "Preflight",
                    notification.replaces,
                    // The icon the package installs, named as its binary.
                    "preflight-desktop",
                    notification.title,
                    notification.body,
                    &actions,
                    hints(notification.sound),
                    -1,
                )
                .await
        }
    }

    /// A click opens the chat of a notification of ours, which has said what it had to and
    /// is closed (not every server closes it by itself); a close forgets it.
    async fn answer(
        app: AppHandle,
        proxy: NotificationsProxy<'static>,
        mut clicks: ActionInvokedStream<'static>,
        mut closes: NotificationClosedStream<'static>,
    ) {
        loop {
            tokio::select! {
                Some(click) = clicks.next() => {
                    let Ok(args) = click.args() else { continue };
                    let chat = app.state::<Notices>().chat_of(args.id);
                    if let (Some(chat_id), "default") = (chat, args.action_key.as_str()) {
                        open_chat(&app, chat_id);
                        let _ = proxy.close_notification(args.id).await;
                    }
                }
                Some(closed) = closes.next() => {
                    if let Ok(args) = closed.args() {
                        app.state::<Notices>().shown().closed(args.id);
                    }
                }
                else => return,
            }
        }
    }

    /// The server's message sound, or none at all ("suppress-sound"); the desktop entry the
    /// notification belongs to.
    pub(super) fn hints(sound: bool) -> HashMap<&'static str, Value<'static>> {
        let mut hints = HashMap::from([("desktop-entry", Value::from("Preflight"))]);
        match sound {
            true => hints.insert("sound-name", Value::from("message-new-instant")),
            false => hints.insert("suppress-sound", Value::from(true)),
        };
        hints
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chats_next_notification_replaces_its_last_and_a_close_forgets_it() {
        let mut shown = Shown::default();
        shown.record("a".into(), 7);
        shown.record("b".into(), 8);
        shown.record("a".into(), 9);
        assert_eq!(shown.by_chat.get("a"), Some(&9));
        assert!(!shown.by_id.contains_key(&7), "the replaced id opens nothing");
        shown.closed(9);
        assert!(!shown.by_chat.contains_key("a") && shown.by_id.get(&8) == Some(&"b".into()));
    }

    #[test]
    fn each_waiting_says_its_own_words() {
        let words = NoticeWords {
            questions: "q".into(),
            plan: "p".into(),
            unconfined: "u".into(),
            plan_change: "c".into(),
            elicitation: "e".into(),
            stopped: "s".into(),
            done: "d".into(),
            unverified: "v".into(),
            failed: "f".into(),
            open: "o".into(),
        };
        let all = [
            Waiting::Questions,
            Waiting::Plan,
            Waiting::Unconfined,
            Waiting::PlanChange,
            Waiting::Elicitation,
            Waiting::Stopped,
            Waiting::Done,
            Waiting::Unverified,
            Waiting::Failed,
        ];
        let said: String = all.iter().map(|waiting| body(&words, *waiting)).collect();
        assert_eq!(said, "qpucesdvf");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_sound_is_the_servers_message_sound_or_none() {
        use zbus::zvariant::Value;
        let on = bus::hints(true);
        assert_eq!(on.get("sound-name"), Some(&Value::from("message-new-instant")));
        assert!(!on.contains_key("suppress-sound"));
        let off = bus::hints(false);
        assert_eq!(off.get("suppress-sound"), Some(&Value::from(true)));
        assert!(!off.contains_key("sound-name"));
    }
}
