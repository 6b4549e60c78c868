//! The window's commands: each a few lines that call the engine and return its value or its
//! `{code, message}` error (`ApiError`), the same error `preflight serve` sends.
//! Arguments are snake_case, like every other name on the wire.

mod app;
mod chats;
mod checkpoints;
mod elicitations;
mod files;
mod fork;
mod hooks;
mod images;
mod mcp;
mod models;
#[cfg(test)]
mod names;
mod notice;
mod plan;
mod prompts;
mod providers;
mod reveal;
mod transfer;
mod worktree;

/// The invoke handler of every command below.
pub fn handler() -> impl Fn(tauri::ipc::Invoke) -> bool + Send + Sync + 'static {
    tauri::generate_handler![
        app::app_info,
        app::ui_ready,
        app::get_settings,
        app::save_settings,
        app::check_provider,
        chats::list_chats,
        chats::search_chats,
        chats::create_chat,
        chats::chat_view,
        chats::chat_messages,
        chats::sandbox_info,
        chats::list_skills,
        chats::adopt_venv,
        chats::update_chat,
        chats::choose_workspace,
        chats::choose_scope,
        chats::delete_chat,
        chats::watch_chat,
        chats::send_message,
        files::pick_files,
        files::check_files,
        chats::edit_message,
        chats::stop_turn,
        chats::continue_work,
        plan::answer_question,
        plan::approve_plan,
        plan::reject_plan,
        plan::cancel_plan,
        plan::edit_plan,
        plan::plan_revisions,
        plan::plan_view,
        plan::clear_task_list,
        plan::plan_changes,
        plan::answer_plan_change,
        plan::verify_plan,
        plan::accept_plan,
        checkpoints::list_checkpoints,
        checkpoints::checkpoint_diff,
        checkpoints::restore_preview,
        checkpoints::restore_checkpoint,
        worktree::worktree_view,
        worktree::merge_chat,
        worktree::keep_chat_branch,
        worktree::recreate_worktree,
        worktree::running_chats,
        fork::choose_fork_folder,
        fork::fork_chat,
        plan::open_plan_folder,
        elicitations::list_elicitations,
        elicitations::answer_elicitation,
        elicitations::open_elicitation_url,
        mcp::mcp_settings,
        mcp::save_mcp_server,
        mcp::remove_mcp_server,
        mcp::restart_mcp_server,
        mcp::test_mcp_server,
        mcp::mcp_sign_in,
        mcp::mcp_sign_out,
        models::install_model,
        models::cancel_model_install,
        models::remove_model,
        providers::list_models,
        providers::named_providers,
        providers::save_named_provider,
        providers::remove_named_provider,
        images::attachment_image,
        images::image_preview,
        transfer::choose_export_file,
        transfer::export_chat,
        transfer::choose_import_file,
        transfer::import_chat,
        notice::set_notice_settings,
        prompts::chat_prompts,
        prompts::chat_resources,
        hooks::hooks_settings,
        hooks::trust_hooks,
    ]
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::names::COMMANDS as NAMES;

    fn read(relative: &str) -> String {
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)).unwrap()
    }

    /// Least privilege holds only if the window is granted exactly our commands.
    #[test]
    fn build_rs_and_the_capability_list_exactly_the_commands() {
        let build = read("build.rs");
        let capability: serde_json::Value =
            serde_json::from_str(&read("capabilities/default.json")).unwrap();
        let granted: Vec<String> = capability["permissions"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|permission| {
                permission.as_str()?.strip_prefix("allow-").map(|name| name.replace('-', "_"))
            })
            .collect();
        let handler = read("src/commands/mod.rs");
        assert!(
            build.contains("include!(\"src/commands/names.rs\")"),
            "build.rs generates the permissions from names.rs"
        );
        for name in NAMES {
            assert!(handler.contains(&format!("::{name},")), "handler() does not register {name}");
        }
        let mut expected: Vec<String> = NAMES.iter().map(|name| name.to_string()).collect();
        expected.sort();
        let mut granted_sorted = granted.clone();
        granted_sorted.sort();
        assert_eq!(
            granted_sorted, expected,
            "capabilities/default.json grants exactly our commands"
        );
        let others: Vec<&str> = capability["permissions"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|permission| permission.as_str())
            .filter(|permission| !permission.starts_with("allow-"))
            .collect();
        assert_eq!(
            others,
            ["core:event:allow-listen", "core:event:allow-unlisten"],
            "and only what listen needs"
        );
    }
}
