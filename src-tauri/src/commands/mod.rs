//! The window's commands: each a few lines that call the engine and return its value or its
//! `{code, message}` error (`ApiError`), the same error `preflight serve` sends.
//! Arguments are snake_case, like every other name on the wire.

mod app;
mod chats;
mod plan;

/// The invoke handler of every command below.
pub fn handler() -> impl Fn(tauri::ipc::Invoke) -> bool + Send + Sync + 'static {
    tauri::generate_handler![
        app::app_info,
        app::ui_ready,
        app::get_settings,
        app::save_settings,
        chats::list_chats,
        chats::create_chat,
        chats::chat_view,
        chats::rename_chat,
        chats::set_chat_workspace,
        chats::choose_workspace,
        chats::delete_chat,
        chats::watch_chat,
        chats::send_message,
        chats::edit_message,
        chats::stop_turn,
        plan::answer_question,
        plan::approve_plan,
        plan::reject_plan,
        plan::cancel_plan,
        plan::edit_plan,
        plan::plan_revisions,
        plan::task_list,
    ]
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every command: `handler` registers them, `build.rs` generates their permissions and
    /// `capabilities/` grants them; the test keeps the lists equal.
    const NAMES: &[&str] = &[
        "app_info",
        "ui_ready",
        "get_settings",
        "save_settings",
        "list_chats",
        "create_chat",
        "chat_view",
        "rename_chat",
        "set_chat_workspace",
        "choose_workspace",
        "delete_chat",
        "watch_chat",
        "send_message",
        "edit_message",
        "stop_turn",
        "answer_question",
        "approve_plan",
        "reject_plan",
        "cancel_plan",
        "edit_plan",
        "plan_revisions",
        "task_list",
    ];

    fn read(relative: &str) -> String {
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)).unwrap()
    }

    /// Least privilege holds only if the window is granted exactly our commands.
    #[test]
    fn build_rs_and_the_capability_list_exactly_the_commands() {
        let build = read("build.rs");
        let capability: serde_json::Value = serde_json::from_str(&read("capabilities/default.json")).unwrap();
        let granted: Vec<String> = capability["permissions"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|permission| permission.as_str()?.strip_prefix("allow-").map(|name| name.replace('-', "_")))
            .collect();
        let handler = read("src/commands/mod.rs");
        for name in NAMES {
            assert!(build.contains(&format!("\"{name}\"")), "build.rs does not generate a permission for {name}");
            assert!(handler.contains(&format!("::{name},")), "handler() does not register {name}");
        }
        let mut expected: Vec<String> = NAMES.iter().map(|name| name.to_string()).collect();
        expected.sort();
        let mut granted_sorted = granted.clone();
        granted_sorted.sort();
        assert_eq!(granted_sorted, expected, "capabilities/default.json grants exactly our commands");
        let others: Vec<&str> = capability["permissions"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|permission| permission.as_str())
            .filter(|permission| !permission.starts_with("allow-"))
            .collect();
        assert_eq!(others, ["core:event:allow-listen", "core:event:allow-unlisten"], "and only what listen needs");
    }
}
