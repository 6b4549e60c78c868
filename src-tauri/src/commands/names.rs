// The window's commands, by name: `commands::handler` registers them, `build.rs` includes this
// file to generate an `allow-<command>` permission for each, and `capabilities/default.json`
// grants exactly those (a test in `commands/mod.rs` keeps the three equal).

/// Every command the window may call.
pub const COMMANDS: &[&str] = &[
    "app_info",
    "ui_ready",
    "get_settings",
    "save_settings",
    "list_chats",
    "search_chats",
    "create_chat",
    "chat_view",
    "sandbox_info",
    "update_chat",
    "choose_workspace",
    "delete_chat",
    "watch_chat",
    "send_message",
    "pick_files",
    "check_files",
    "edit_message",
    "stop_turn",
    "answer_question",
    "approve_plan",
    "reject_plan",
    "cancel_plan",
    "edit_plan",
    "plan_revisions",
    "plan_view",
    "plan_changes",
    "answer_plan_change",
    "open_plan_folder",
    "install_model",
    "cancel_model_install",
    "remove_model",
];
