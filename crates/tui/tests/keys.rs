//! The keys on each card, as tables: the keys pressed, then the engine call they ask for and
//! what the input line is for afterwards. Pure: no engine, no terminal.

mod fixtures;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fixtures::*;
use preflight_engine::chat::Phase;
use preflight_engine::planner::{CommentAnchor, CommentDraft};
use preflight_tui::app::command::Command;
use preflight_tui::app::keys::handle_key;
use preflight_tui::app::state::{App, Entry};
use preflight_tui::Language;

fn press(app: &mut App, keys: &[KeyCode]) -> Vec<Command> {
    keys.iter()
        .filter_map(|code| handle_key(app, KeyEvent::new(*code, KeyModifiers::NONE)))
        .collect()
}

fn typed(text: &str) -> Vec<KeyCode> {
    text.chars().map(KeyCode::Char).collect()
}

fn questions_app() -> App {
    let mut app = app(Language::English);
    let messages = vec![user("m1", "Add a CSV export"), question_card("m2")];
    app.load(
        view(Phase::Questions, messages, |s| s.plan_pending = Some(pending(questions()))),
        vec![],
        vec![],
    );
    app
}

fn plan_app() -> App {
    let mut app = app(Language::English);
    let chat = view(Phase::AwaitingApproval, vec![plan_card("m5", "pending")], |s| {
        s.plan = Some(plan_document("pending"))
    });
    app.load(chat, vec![], vec![]);
    app
}

fn revise(feedback: &str, comments: Vec<CommentDraft>) -> Command {
    let feedback = (!feedback.is_empty()).then(|| feedback.to_owned());
    Command::Revise { feedback, comments }
}

fn on_step(step: u32, text: &str) -> CommentDraft {
    CommentDraft { anchor: CommentAnchor::Step(step), text: text.into() }
}

fn alt(app: &mut App, code: KeyCode) {
    assert_eq!(handle_key(app, KeyEvent::new(code, KeyModifiers::ALT)), None);
}

fn answer(question: &str, text: &str) -> Command {
    Command::Answer { question: question.into(), text: text.into() }
}

#[test]
fn question_cards_answer_with_an_option_or_your_own_words() {
    let cases: Vec<(Vec<KeyCode>, Vec<Command>, Entry)> = vec![
        (vec![KeyCode::Enter], vec![answer("q1", "CSV")], Entry::Message),
        (
            vec![KeyCode::Down, KeyCode::Down, KeyCode::Enter],
            vec![answer("q1", "Excel")],
            Entry::Message,
        ),
        (
            vec![KeyCode::Down, KeyCode::Up, KeyCode::Enter],
            vec![answer("q1", "CSV")],
            Entry::Message,
        ),
        (vec![KeyCode::Down; 9], vec![], Entry::Message),
        (typed("Parquet"), vec![], Entry::OwnAnswer),
        (
            [typed("Parquet"), vec![KeyCode::Enter]].concat(),
            vec![answer("q1", "Parquet")],
            Entry::Message,
        ),
        ([vec![KeyCode::Down; 3], vec![KeyCode::Enter]].concat(), vec![], Entry::OwnAnswer),
        ([typed("x"), vec![KeyCode::Backspace, KeyCode::Enter]].concat(), vec![], Entry::OwnAnswer),
        ([typed("Parquet"), vec![KeyCode::Esc]].concat(), vec![], Entry::Message),
    ];
    for (keys, expected, entry) in cases {
        let mut app = questions_app();
        assert_eq!(press(&mut app, &keys), expected, "{keys:?}");
        assert_eq!(app.entry, entry, "{keys:?}");
    }
}

#[test]
fn plan_cards_approve_revise_or_cancel() {
    let cases: Vec<(Vec<KeyCode>, Vec<Command>)> = vec![
        (vec![KeyCode::Enter], vec![Command::Approve { run_unconfined: false }]),
        (vec![KeyCode::Right, KeyCode::Right, KeyCode::Enter], vec![Command::CancelPlan]),
        (
            [vec![KeyCode::Right, KeyCode::Enter], typed("shorter"), vec![KeyCode::Enter]].concat(),
            vec![revise("shorter", vec![])],
        ),
        ([typed("add docs"), vec![KeyCode::Enter]].concat(), vec![revise("add docs", vec![])]),
        (vec![KeyCode::Right, KeyCode::Enter, KeyCode::Enter], vec![]),
    ];
    for (keys, expected) in cases {
        let mut app = plan_app();
        assert_eq!(press(&mut app, &keys), expected, "{keys:?}");
    }
}

#[test]
fn a_comment_goes_on_the_step_under_the_cursor_and_revise_sends_them_all() {
    let mut app = plan_app();
    alt(&mut app, KeyCode::Down);
    alt(&mut app, KeyCode::Down);
    assert_eq!(app.step_cursor, Some(1));
    assert_eq!(press(&mut app, &typed("Use a fixture")), vec![]);
    assert_eq!(app.entry, Entry::StepComment(1));
    assert_eq!(press(&mut app, &[KeyCode::Enter]), vec![]);
    assert_eq!(app.plan_comments, [on_step(2, "Use a fixture")]);
    alt(&mut app, KeyCode::Up);
    press(&mut app, &[typed("Name the route"), vec![KeyCode::Enter]].concat());
    assert_eq!(app.entry, Entry::Message);
    let both = vec![on_step(2, "Use a fixture"), on_step(1, "Name the route")];
    // Revise is the chosen row now: Enter sends them without more words.
    assert_eq!(app.selection, 1);
    let sent = press(&mut app, &[KeyCode::Enter]);
    assert_eq!(sent, vec![revise("", both.clone())]);
    assert!(app.plan_comments.is_empty());

    let mut app = plan_app();
    alt(&mut app, KeyCode::Down);
    press(&mut app, &[typed("Smaller"), vec![KeyCode::Enter]].concat());
    press(&mut app, &[KeyCode::Esc]);
    assert_eq!(app.step_cursor, None, "Esc leaves the steps");
    let sent = press(&mut app, &[typed("and faster"), vec![KeyCode::Enter]].concat());
    assert_eq!(sent, vec![revise("and faster", vec![on_step(1, "Smaller")])]);
}

#[test]
fn esc_stops_a_running_turn_and_control_keys_do_the_rest() {
    let mut working = app(Language::English);
    working.load(view(Phase::Executing, vec![user("m1", "go")], |_| {}), vec![], vec![]);
    assert_eq!(press(&mut working, &[KeyCode::Esc]), vec![Command::Stop]);
    assert_eq!(
        press(&mut working, &[typed("hi"), vec![KeyCode::Enter]].concat()),
        vec![Command::Send("hi".into())]
    );

    let control = |app: &mut App, ch| {
        handle_key(app, KeyEvent::new(KeyCode::Char(ch), KeyModifiers::CONTROL))
    };
    let mut idle = app(Language::English);
    assert_eq!(control(&mut idle, 'x'), None, "nothing to cancel in a chat that does not plan");
    assert_eq!(control(&mut idle, 'n'), Some(Command::NewChat));
    assert_eq!(control(&mut idle, 'l'), Some(Command::Search(String::new())));
    assert!(idle.chat_list.is_some());
    assert_eq!(
        press(&mut idle, &typed("ex")),
        vec![Command::Search("e".into()), Command::Search("ex".into())]
    );
    assert_eq!(press(&mut idle, &[KeyCode::Esc]), vec![]);
    assert!(idle.chat_list.is_none());
    assert_eq!(control(&mut idle, 't'), None);
    assert!(idle.tools_open);
    assert_eq!(control(&mut idle, 'c'), None);
    assert!(idle.quit);

    let mut planning = questions_app();
    assert_eq!(control(&mut planning, 'x'), Some(Command::CancelPlan));
}

#[test]
fn a_blank_message_sends_nothing() {
    let mut app = app(Language::English);
    assert_eq!(press(&mut app, &[KeyCode::Char(' '), KeyCode::Enter, KeyCode::Enter]), vec![]);
}

#[test]
fn an_mcp_form_is_filled_field_by_field_then_accepted() {
    use preflight_engine::mcp::Answer;
    let mut app = app(Language::English);
    app.load(
        view(Phase::Executing, vec![user("m1", "push it")], |_| {}),
        vec![],
        vec![form_question()],
    );
    assert_eq!(app.input, "");
    // The force field: a bad value is refused with a notice, then "yes" is taken.
    assert_eq!(press(&mut app, &[KeyCode::Down, KeyCode::Enter]), vec![]);
    assert_eq!(app.entry, Entry::Field(1));
    press(&mut app, &[typed("maybe"), vec![KeyCode::Enter]].concat());
    assert!(app.notice.is_some() && app.entry == Entry::Field(1));
    app.input.clear();
    press(&mut app, &[typed("yes"), vec![KeyCode::Enter]].concat());
    assert_eq!(app.entry, Entry::Message);
    assert_eq!(app.selection, 2, "on to the next row: Accept");
    let sent = press(&mut app, &[KeyCode::Enter]);
    let content = serde_json::json!({"branch": "main", "force": true});
    let content = content.as_object().unwrap().clone();
    assert_eq!(
        sent,
        vec![Command::AnswerElicitation { id: "e-1".into(), answer: Answer::Accept { content } }]
    );
}

#[test]
fn page_up_reads_older_messages_while_there_are_some() {
    let mut app = app(Language::English);
    app.load(view(Phase::Idle, vec![user("m1", "go")], |_| {}), vec![], vec![]);
    assert_eq!(press(&mut app, &[KeyCode::PageUp]), vec![], "the whole chat is shown");
    let mut chat = view(Phase::Idle, vec![user("m1", "go")], |_| {});
    chat.messages_cursor = Some("m5".into());
    app.load(chat, vec![], vec![]);
    assert_eq!(press(&mut app, &[KeyCode::PageUp]), vec![Command::LoadOlder]);
    assert_eq!(app.scroll, 20);
    assert_eq!(press(&mut app, &[KeyCode::PageDown, KeyCode::PageDown, KeyCode::PageDown]), vec![]);
    assert_eq!(app.scroll, 0);
}

#[test]
fn a_paste_arrives_whole_and_inert() {
    let mut app = app(Language::English);
    app.paste("line one\nline two\x1b[2J");
    assert_eq!(app.input, "line one\nline two[2J");
    assert_eq!(
        press(&mut app, &[KeyCode::Enter]),
        vec![Command::Send("line one\nline two[2J".into())]
    );
}

#[test]
fn alt_enter_and_ctrl_j_start_a_new_line_enter_sends_both() {
    let mut app = app(Language::English);
    press(&mut app, &typed("first"));
    let alt_enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT);
    assert_eq!(handle_key(&mut app, alt_enter), None);
    press(&mut app, &typed("second"));
    let ctrl_j = KeyEvent::new(KeyCode::Char('j'), KeyModifiers::CONTROL);
    assert_eq!(handle_key(&mut app, ctrl_j), None);
    press(&mut app, &typed("third"));
    assert_eq!(
        press(&mut app, &[KeyCode::Enter]),
        vec![Command::Send("first\nsecond\nthird".into())]
    );
}

#[test]
fn the_input_is_edited_where_the_cursor_is() {
    let ctrl = |ch| KeyEvent::new(KeyCode::Char(ch), KeyModifiers::CONTROL);
    let mut app = app(Language::English);
    press(&mut app, &typed("hello world"));
    press(&mut app, &[KeyCode::Left; 5]);
    press(&mut app, &typed("big "));
    assert_eq!(app.input, "hello big world");
    press(&mut app, &[KeyCode::Home, KeyCode::Delete, KeyCode::End, KeyCode::Backspace]);
    assert_eq!(app.input, "ello big worl");
    handle_key(&mut app, ctrl('w'));
    assert_eq!(app.input, "ello big ", "Ctrl+W: the word before the cursor");
    press(&mut app, &[KeyCode::Left, KeyCode::Left]);
    handle_key(&mut app, ctrl('k'));
    assert_eq!(app.input, "ello bi", "Ctrl+K: all after the cursor");
    handle_key(&mut app, ctrl('a'));
    press(&mut app, &typed("Я "));
    handle_key(&mut app, ctrl('e'));
    press(&mut app, &typed("g"));
    assert_eq!(app.input, "Я ello big", "multi-byte letters move as one");
    press(&mut app, &[KeyCode::Left; 3]);
    handle_key(&mut app, ctrl('u'));
    assert_eq!(app.input, "big", "Ctrl+U: all before the cursor");
    press(&mut app, &[KeyCode::Right; 9]);
    press(&mut app, &typed("!"));
    assert_eq!(press(&mut app, &[KeyCode::Enter]), vec![Command::Send("big!".into())]);
    press(&mut app, &typed("next"));
    assert_eq!(app.input, "next", "after sending, typing starts at the end of a new line");
}

#[test]
fn delete_in_the_chat_list_asks_first() {
    use preflight_tui::app::state::{ChatList, ListRow};
    let mut app = app(Language::English);
    let row = |id: &str| ListRow { chat_id: id.into(), title: id.into(), detail: String::new() };
    app.chat_list =
        Some(ChatList { rows: vec![row("c-1"), row("c-2")], selected: 1, ..ChatList::default() });
    assert_eq!(press(&mut app, &[KeyCode::Delete, KeyCode::Esc]), vec![], "Esc keeps it");
    assert!(app.chat_list.is_some(), "and the list stays open");
    assert_eq!(
        press(&mut app, &[KeyCode::Delete, KeyCode::Char('y')]),
        vec![],
        "only Enter deletes"
    );
    assert_eq!(
        press(&mut app, &[KeyCode::Delete, KeyCode::Enter]),
        vec![Command::DeleteChat("c-2".into())]
    );
    assert!(!app.chat_list.as_ref().unwrap().deleting);
}

#[test]
fn words_typed_before_the_questions_showed_become_an_own_answer_not_the_first_option() {
    let mut app = app(Language::English);
    press(&mut app, &typed("use postgres"));
    let messages = vec![user("m1", "Add a CSV export"), question_card("m2")];
    app.load(
        view(Phase::Questions, messages, |s| s.plan_pending = Some(pending(questions()))),
        vec![],
        vec![],
    );
    assert_eq!(press(&mut app, &[KeyCode::Enter]), vec![], "shown as an own answer first");
    assert_eq!(app.entry, Entry::OwnAnswer);
    let sent = press(&mut app, &[KeyCode::Enter]);
    assert!(
        matches!(&sent[..], [Command::Answer { text, .. }] if text == "use postgres"),
        "{sent:?}"
    );
}

/// A plan finished but not verified: Enter runs the checks again; Continue works on the task
/// open again; Accept as is needs a second Enter, and any other key takes it back.
#[test]
fn the_unverified_card_checks_again_continues_or_accepts_after_asking() {
    let unverified = || {
        let mut app = app(Language::English);
        let chat = view(Phase::Idle, vec![user("m1", "Add a CSV export")], |s| {
            s.completion = Some(unverified_completion())
        });
        app.load(chat, tasks(&["done", "pending"]), vec![]);
        app
    };
    let mut app = unverified();
    assert!(matches!(press(&mut app, &[KeyCode::Enter])[..], [Command::VerifyPlan]));
    let mut app = unverified();
    assert!(matches!(press(&mut app, &[KeyCode::Right, KeyCode::Enter])[..], [Command::Continue]));
    let mut app = unverified();
    let right = [KeyCode::Right, KeyCode::Right];
    assert!(press(&mut app, &[&right[..], &[KeyCode::Enter]].concat()).is_empty(), "asked first");
    assert!(app.notice.as_deref().unwrap_or_default().contains("Enter again accepts"));
    assert!(matches!(press(&mut app, &[KeyCode::Enter])[..], [Command::AcceptPlan]));
    let mut app = unverified();
    press(&mut app, &[&right[..], &[KeyCode::Enter]].concat());
    assert!(press(&mut app, &[KeyCode::Esc, KeyCode::Enter])
        .iter()
        .all(|c| !matches!(c, Command::AcceptPlan)));
}

#[test]
fn slash_model_lists_or_switches_the_chats_model_instead_of_sending() {
    let cases = [
        ("/model", Command::ChooseModel { planner: false, name: String::new() }),
        ("/model  claude/big ", Command::ChooseModel { planner: false, name: "claude/big".into() }),
        ("/planner-model default", Command::ChooseModel { planner: true, name: "default".into() }),
        ("/models please", Command::Send("/models please".into())),
        ("use /model x", Command::Send("use /model x".into())),
        // The terminal's own commands win over a server's prompt of the same name; any
        // other `/NAME args` is sent for the engine to expand (DESIGN §17).
        ("/prompts", Command::ListOffers { resources: false }),
        ("/resources", Command::ListOffers { resources: true }),
        ("/args-prompt Paris", Command::Send("/args-prompt Paris".into())),
    ];
    for (text, expected) in cases {
        let mut app = app(Language::English);
        let mut keys = typed(text);
        keys.push(KeyCode::Enter);
        assert_eq!(press(&mut app, &keys), vec![expected], "{text:?}");
    }
}

/// The worktree's commands as typed, and the keys over its panel: y merges only a preview
/// that can merge (as it said: merge or squash), any other key but scrolling closes it.
#[test]
fn worktree_commands_and_the_merge_preview_keys() {
    use fixtures::worktree::{merge_preview, worktree_chat};
    use preflight_engine::chat::{MergeMode, WorktreeState};
    use preflight_tui::app::state::{PanelShows, WorktreePanel};
    let typed_commands = [
        ("/diff", Command::WorktreeDiff),
        ("/merge", Command::PreviewMerge(MergeMode::Merge)),
        ("/merge squash", Command::PreviewMerge(MergeMode::Squash)),
        ("/keep", Command::KeepBranch),
        ("/recreate", Command::RecreateWorktree),
        ("/keeper", Command::Send("/keeper".into())),
    ];
    for (text, command) in typed_commands {
        let mut app = app(Language::English);
        let mut keys = typed(text);
        keys.push(KeyCode::Enter);
        assert_eq!(press(&mut app, &keys), [command], "{text}");
    }
    let open = |app: &mut App, mode: MergeMode, conflicts: &[&str]| {
        let preview = merge_preview(mode, conflicts, &[]);
        app.worktree_panel = Some(WorktreePanel::new(PanelShows::Merge(Box::new(preview))));
    };
    let mut app = app(Language::English);
    app.load(worktree_chat(WorktreeState::Active), vec![], vec![]);
    open(&mut app, MergeMode::Squash, &[]);
    app.worktree_panel.as_ref().unwrap().overflow.set(5);
    assert!(press(&mut app, &[KeyCode::Down, KeyCode::Down]).is_empty());
    assert_eq!(app.worktree_panel.as_ref().map(|panel| panel.scroll), Some(2));
    assert_eq!(press(&mut app, &[KeyCode::Char('y')]), [Command::Merge(MergeMode::Squash)]);
    assert!(app.worktree_panel.is_none());
    for key in [KeyCode::Char('n'), KeyCode::Esc, KeyCode::Enter] {
        open(&mut app, MergeMode::Merge, &[]);
        assert!(press(&mut app, &[key]).is_empty() && app.worktree_panel.is_none(), "{key:?}");
    }
    open(&mut app, MergeMode::Merge, &["prices.txt"]);
    assert!(press(&mut app, &[KeyCode::Char('y')]).is_empty(), "a refused preview merges nothing");
    assert!(app.worktree_panel.is_none());
    assert!(app.input.is_empty(), "keys over the panel are not typed");
    open(&mut app, MergeMode::Merge, &[]);
    app.clear_chat();
    assert!(app.worktree_panel.is_none(), "another chat does not show this one's panel");
}
