//! Every screen of `preflight chat` as ratatui's `TestBackend` draws it, at 80×24 unless
//! said, in English and Russian: `insta` snapshots of the buffer (Codex's rule: every visible
//! change comes with one). Colour and NO_COLOR are checked cell by cell.

mod fixtures;

use fixtures::*;
use preflight_engine::chat::Phase;
use preflight_tui::app::state::{ChatList, Entry, ListRow, LiveTool};
use preflight_tui::{Language, Theme};
use ratatui::style::Color;

fn questions_app(language: Language) -> preflight_tui::app::state::App {
    let mut app = app(language);
    let messages = vec![user("m1", "Add a CSV export"), question_card("m2")];
    app.load(
        view(Phase::Questions, messages, |s| s.plan_pending = Some(pending(questions()))),
        vec![],
        vec![],
    );
    app
}

fn plan_app(language: Language) -> preflight_tui::app::state::App {
    let mut app = app(language);
    let mut answered = questions();
    answered[0]["answer"] = "JSON".into();
    answered[1]["answer"] = "Only this year".into();
    let messages = vec![
        user("m1", "Add a CSV export"),
        question_card("m2"),
        answer("m3", "Which format?", "JSON"),
        answer("m4", "Which rows?", "Only this year"),
        plan_card("m5", "pending"),
    ];
    let chat = view(Phase::AwaitingApproval, messages, |s| s.plan = Some(plan_document("pending")));
    app.load(chat, vec![], vec![]);
    app
}

fn executing_app() -> preflight_tui::app::state::App {
    let mut app = app(Language::English);
    let calls = serde_json::json!([{"id": "c1", "name": "fs__read_text_file", "arguments": "{\"path\":\"src/routes.rs\"}"}]);
    let messages = vec![
        user("m1", "Add a CSV export"),
        plan_card("m5", "approved"),
        assistant("m6", "Reading the routes first.", calls),
        tool("m7", "fs__read_text_file", "pub fn routes() {\n    // 40 routes\n}\n"),
    ];
    let chat = view(Phase::Executing, messages, |s| s.plan = Some(plan_document("approved")));
    app.load(chat, tasks(&["done", "active", "pending"]), vec![]);
    app.streaming = Some(("m8".into(), "## Route added\n\nThe route **streams** rows:\n\n```rust\nrouter.get(\"/export\", export)\n```\n- one\n- two".into()));
    app.live_tools.push(LiveTool {
        name: "sandbox__run".into(),
        args: "{\"command\":\"cargo test\"}".into(),
        result: None,
        error: None,
    });
    app
}

#[test]
fn a_new_chat_shows_the_input_and_the_keys() {
    insta::assert_snapshot!(screen(&app(Language::English), 80, 24).backend());
}

#[test]
fn the_question_card_locks_the_input_and_offers_three_answers_and_your_own() {
    insta::assert_snapshot!(screen(&questions_app(Language::English), 80, 24).backend());
}

#[test]
fn an_own_answer_is_typed_on_the_card() {
    let mut app = questions_app(Language::English);
    app.entry = Entry::OwnAnswer;
    app.selection = 3;
    app.input = "Only this year".into();
    insta::assert_snapshot!(screen(&app, 80, 24).backend());
}

#[test]
fn the_plan_card_shows_steps_libraries_sandbox_and_its_actions() {
    insta::assert_snapshot!(screen(&plan_app(Language::English), 80, 24).backend());
}

#[test]
fn revision_feedback_is_typed_under_the_plan_card() {
    let mut app = plan_app(Language::English);
    app.entry = Entry::Feedback;
    app.selection = 1;
    app.input = "Write docs too".into();
    insta::assert_snapshot!(screen(&app, 80, 24).backend());
}

#[test]
fn while_it_works_the_task_list_ticks_above_the_chat_and_tools_are_folded() {
    insta::assert_snapshot!(screen(&executing_app(), 80, 24).backend());
}

#[test]
fn opened_tool_calls_show_their_arguments_and_results() {
    let mut app = executing_app();
    app.tools_open = true;
    app.streaming = None;
    insta::assert_snapshot!(screen(&app, 80, 24).backend());
}

#[test]
fn from_110_columns_the_task_list_stands_beside_the_chat() {
    insta::assert_snapshot!(screen(&executing_app(), 120, 24).backend());
}

#[test]
fn a_completed_plan_shows_its_list_as_it_ended() {
    let mut app = app(Language::English);
    let messages = vec![
        user("m1", "Add a CSV export"),
        plan_card("m5", "approved"),
        assistant("m9", "Done: the **export** works.", serde_json::json!([])),
    ];
    app.load(view(Phase::Idle, messages, |s| s.completion = Some(completion())), vec![], vec![]);
    insta::assert_snapshot!(screen(&app, 80, 24).backend());
}

#[test]
fn a_stopped_executor_offers_continue() {
    let mut app = app(Language::English);
    let messages = vec![user("m1", "Add a CSV export"), plan_card("m5", "approved")];
    app.load(
        view(Phase::Idle, messages, |s| s.stopped = Some(stop())),
        tasks(&["done", "active"]),
        vec![],
    );
    insta::assert_snapshot!(screen(&app, 80, 24).backend());
}

#[test]
fn the_header_says_what_planning_and_execution_used_and_cost() {
    use preflight_engine::usage::{ContextMeter, PhaseUsage};
    let mut app = app(Language::English);
    let messages = vec![user("m1", "Add a CSV export"), plan_card("m5", "approved")];
    let mut shown = view(Phase::Idle, messages, |s| s.stopped = Some(stop()));
    let phase = |calls, input, output, cost| PhaseUsage {
        calls,
        input_tokens: input,
        output_tokens: output,
        cost,
        ..PhaseUsage::default()
    };
    shown.usage.planning = phase(1, 1_000, 200, Some(0.004));
    shown.usage.execution = phase(3, 20_000, 900, Some(0.07));
    shown.usage.context = ContextMeter { used: 9_000, window: 32_768 };
    app.load(shown, tasks(&["done", "active"]), vec![]);
    app.info = Some("Models: scripted (default), big (cloud).".into());
    let drawn = screen(&app, 100, 24);
    insta::assert_snapshot!(drawn.backend());
}

#[test]
fn the_chat_list_searches_over_the_chat() {
    let mut app = questions_app(Language::English);
    let row = |id: &str, title: &str, detail: &str| ListRow {
        chat_id: id.into(),
        title: title.into(),
        detail: detail.into(),
    };
    app.chat_list = Some(ChatList {
        query: "export".into(),
        rows: vec![
            row("c-1", "Add a CSV export", "…a CSV export of orders…"),
            row("c-2", "Fix the export", "export breaks on…"),
        ],
        selected: 1,
        deleting: false,
    });
    insta::assert_snapshot!(screen(&app, 80, 24).backend());
    app.chat_list.as_mut().unwrap().deleting = true;
    insta::assert_snapshot!("chat_list_delete", screen(&app, 80, 24).backend());
}

#[test]
fn russian_questions_and_plan() {
    insta::assert_snapshot!(
        "russian_questions",
        screen(&questions_app(Language::Russian), 80, 24).backend()
    );
    insta::assert_snapshot!("russian_plan", screen(&plan_app(Language::Russian), 80, 24).backend());
}

#[test]
fn no_color_draws_no_colour_and_colour_draws_some() {
    let mut app = executing_app();
    let coloured = screen(&app, 80, 24);
    let cells = coloured.backend().buffer().content();
    assert!(cells.iter().any(|cell| cell.fg == Color::Cyan), "colour on: the accent shows");
    app.theme = Theme { colour: false };
    let plain = screen(&app, 80, 24);
    for cell in plain.backend().buffer().content() {
        assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset), "{cell:?}");
    }
}

#[test]
fn model_output_reaches_the_screen_inert() {
    let mut app = app(Language::English);
    let evil = "\x1b[2J\x1b]0;owned\x07ok \u{9b}31m done";
    let messages = vec![user("m1", "hi"), assistant("m2", evil, serde_json::json!([]))];
    app.load(view(Phase::Idle, messages, |_| {}), vec![], vec![]);
    let terminal = screen(&app, 80, 24);
    for cell in terminal.backend().buffer().content() {
        assert!(!cell.symbol().chars().any(char::is_control), "{cell:?}");
    }
}

#[test]
fn a_change_the_executor_asks_for_waits_on_a_card() {
    let mut app = app(Language::English);
    let messages = vec![user("m1", "Add a CSV export"), plan_card("m5", "approved")];
    app.load(
        view(Phase::Idle, messages, |s| s.changes = vec![change()]),
        tasks(&["done", "active"]),
        vec![],
    );
    insta::assert_snapshot!(screen(&app, 80, 24).backend());
}

#[test]
fn an_mcp_servers_form_and_page_are_cards() {
    let mut app = app(Language::English);
    app.load(
        view(Phase::Executing, vec![user("m1", "push it")], |_| {}),
        vec![],
        vec![form_question()],
    );
    insta::assert_snapshot!("mcp_form", screen(&app, 80, 24).backend());
    app.load(
        view(Phase::Executing, vec![user("m1", "push it")], |_| {}),
        vec![],
        vec![url_question()],
    );
    insta::assert_snapshot!("mcp_page", screen(&app, 80, 24).backend());
}

#[test]
fn any_size_draws_without_a_panic() {
    let mut app = executing_app();
    app.scroll = 1000;
    app.notice = Some("the chat is busy".into());
    for (width, height) in [(1, 1), (10, 5), (20, 8), (80, 6), (200, 60)] {
        screen(&app, width, height);
        screen(&plan_app(Language::Russian), width, height);
    }
}

#[test]
fn scrolled_up_the_chat_says_how_much_is_below_and_a_long_input_shows_its_end() {
    let mut app = executing_app();
    app.scroll = 4;
    app.input =
        "a long message that goes on and on past the edge of an eighty column terminal, to its end"
            .into();
    insta::assert_snapshot!(screen(&app, 80, 24).backend());
}

#[test]
fn a_plan_the_sandbox_cannot_confine_says_why_and_asks_to_run_unconfined() {
    let mut app = plan_app(Language::English);
    let mut chat = app.chat.clone().unwrap();
    chat.state.unconfined = Some(preflight_engine::confinement::UnconfinedNotice {
        reason: "bubblewrap cannot create a user namespace here".into(),
        needs_consent: true,
    });
    app.load(chat, vec![], vec![]);
    insta::assert_snapshot!(screen(&app, 80, 24).backend());
    use crossterm::event::{KeyCode, KeyEvent};
    use preflight_tui::app::{command::Command, keys::handle_key};
    let key = |code| KeyEvent::from(code);
    // Asked twice, as the window asks for a ticked box: the first Enter only asks.
    assert_eq!(handle_key(&mut app, key(KeyCode::Enter)), None);
    insta::assert_snapshot!("unconfined_asked", screen(&app, 80, 24).backend());
    assert_eq!(handle_key(&mut app, key(KeyCode::Right)), None, "another key: not approved");
    assert_eq!(handle_key(&mut app, key(KeyCode::Left)), None);
    assert_eq!(handle_key(&mut app, key(KeyCode::Enter)), None, "asked again");
    let approve = Some(Command::Approve { run_unconfined: true });
    assert_eq!(handle_key(&mut app, key(KeyCode::Enter)), approve);
}

#[test]
fn russian_change_and_stop_cards() {
    let mut app = app(Language::Russian);
    let messages = vec![user("m1", "Добавить экспорт"), plan_card("m5", "approved")];
    app.load(
        view(Phase::Idle, messages.clone(), |s| s.changes = vec![change()]),
        tasks(&["done", "active"]),
        vec![],
    );
    insta::assert_snapshot!("russian_change", screen(&app, 80, 24).backend());
    app.load(
        view(Phase::Idle, messages, |s| s.stopped = Some(stop())),
        tasks(&["done", "active"]),
        vec![],
    );
    insta::assert_snapshot!("russian_stop", screen(&app, 80, 24).backend());
}

#[test]
fn preflights_own_notices_are_said_in_the_users_language_with_the_way_on() {
    let notice = |id: &str, notice: serde_json::Value| {
        let mut message =
            assistant(id, "The planner could not make a plan: … (English)", serde_json::json!([]));
        let serde_json::Value::Object(mut body) = serde_json::to_value(&message).unwrap() else {
            unreachable!()
        };
        body.insert("notice".into(), notice);
        message = serde_json::from_value(serde_json::Value::Object(body)).unwrap();
        message
    };
    for language in [Language::English, Language::Russian] {
        let mut app = app(language);
        let messages = vec![
            user("m1", "Add a CSV export"),
            notice(
                "m2",
                serde_json::json!({"kind": "planner_failed", "went_on": true, "code": "ERR_PROVIDER_UNAVAILABLE", "detail": "the provider is unavailable (HTTP 500)"}),
            ),
            assistant("m3", "Done without a plan.", serde_json::json!([])),
            user("m4", "Again"),
            notice(
                "m5",
                serde_json::json!({"kind": "provider_refused", "code": "ERR_PROVIDER_UNAVAILABLE", "detail": "cannot connect: connection refused"}),
            ),
        ];
        app.load(view(Phase::Idle, messages, |_| {}), vec![], vec![]);
        insta::assert_snapshot!(format!("notices_{language:?}"), screen(&app, 80, 24).backend());
    }
}

#[test]
fn a_plan_finished_but_not_verified_offers_three_ways_on() {
    for (language, name) in
        [(Language::English, "unverified_en"), (Language::Russian, "unverified_ru")]
    {
        let mut app = app(language);
        let messages = vec![user("m1", "Add a CSV export"), plan_card("m5", "approved")];
        let shape = |s: &mut preflight_engine::lifecycle::StateView| {
            s.completion = Some(unverified_completion())
        };
        app.load(view(Phase::Idle, messages, shape), tasks(&["done", "pending"]), vec![]);
        insta::assert_snapshot!(name, screen(&app, 100, 30).backend());
    }
}

/// A chat in its own worktree: the line under the title in each of its states, a new chat
/// asked for in one, the line wrapped when it is long.
#[test]
fn a_chat_in_its_own_worktree_says_its_branch_and_what_became_of_it() {
    use fixtures::worktree::{worktree_chat, worktree_view};
    use preflight_engine::chat::{MergeMode, WorktreeState};
    let merged = WorktreeState::Merged {
        commit: "fedcba9876543210".into(),
        mode: MergeMode::Merge,
        at: "2026-12-01T11:00:00Z".into(),
    };
    let kept = WorktreeState::Kept { commit: "fedcba98".into(), at: "2026-12-01T11:00:00Z".into() };
    let cases = [
        (
            Language::English,
            WorktreeState::Active,
            Some(false),
            "⎇ preflight/ab12cd34 from main · 1 file(s) changed, +1 −1  /diff /merge /keep",
        ),
        (
            Language::English,
            WorktreeState::Active,
            None,
            "⎇ preflight/ab12cd34 from main · no changes yet  /diff /merge /keep",
        ),
        (
            Language::English,
            merged.clone(),
            None,
            "⎇ preflight/ab12cd34 from main · merged into main (fedcba9)",
        ),
        (
            Language::English,
            kept,
            None,
            "⎇ preflight/ab12cd34 from main · kept as a branch: /recreate to work on",
        ),
        (
            Language::English,
            WorktreeState::Active,
            Some(true),
            "⎇ preflight/ab12cd34 from main · its folder is gone: /recreate makes it again",
        ),
        (Language::Russian, merged, None, "⎇ preflight/ab12cd34 от main · слита в main (fedcba9)"),
    ];
    for (language, state, seen, line) in cases {
        let mut app = app(language);
        app.load(worktree_chat(state), vec![], vec![]);
        app.worktree = seen.map(worktree_view);
        let screen = format!("{}", screen(&app, 80, 24).backend());
        let row = screen.lines().nth(1).unwrap_or_default();
        assert!(row.contains(line), "{language:?} {seen:?}: {row}\n{screen}");
    }
    let mut app = app(Language::English);
    app.workspace = Some("/work/shop".into());
    app.new_worktree = Some(true);
    let screen = format!("{}", screen(&app, 80, 24).backend());
    let pending = "⎇ a worktree of its own of /work/shop, made with the first message";
    assert!(screen.contains(pending), "{screen}");
}

/// `/diff` and `/merge`'s preview over the chat: the conflicts and the user's own changes
/// that stop a merge, in words, and no question; a squash that can go, asked y/N (Russian).
#[test]
fn the_worktree_panel_shows_the_diff_and_a_merge_preview_with_what_stops_it() {
    use fixtures::worktree::{merge_preview, worktree_chat, worktree_view};
    use preflight_engine::chat::{MergeMode, WorktreeState};
    use preflight_tui::app::state::{PanelShows, WorktreePanel};
    let mut app = app(Language::English);
    app.load(worktree_chat(WorktreeState::Active), vec![], vec![]);
    app.worktree = Some(worktree_view(false));
    app.worktree_panel = Some(WorktreePanel::new(PanelShows::Diff(Box::new(worktree_view(false)))));
    insta::assert_snapshot!("worktree_diff", screen(&app, 80, 24).backend());
    let stopped = merge_preview(MergeMode::Merge, &["prices.txt"], &["README.md"]);
    app.worktree_panel = Some(WorktreePanel::new(PanelShows::Merge(Box::new(stopped))));
    insta::assert_snapshot!("worktree_merge_refused", screen(&app, 80, 24).backend());
    let mut app = app_in(Language::Russian, app);
    let squash = merge_preview(MergeMode::Squash, &[], &[]);
    app.worktree_panel = Some(WorktreePanel::new(PanelShows::Merge(Box::new(squash))));
    insta::assert_snapshot!("worktree_squash_ru", screen(&app, 80, 24).backend());
}

/// `app`'s chat and worktree, in `language`.
fn app_in(
    language: Language,
    from: preflight_tui::app::state::App,
) -> preflight_tui::app::state::App {
    let mut app = app(language);
    app.load(from.chat.unwrap(), vec![], vec![]);
    app.worktree = from.worktree;
    app
}
