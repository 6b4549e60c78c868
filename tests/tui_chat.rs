//! `preflight chat` in a real terminal (tmux, 80×24), against a scripted provider on loopback
//! and the real filesystem server: plan, answer (an option, then an own answer), revise,
//! approve, watch the task list tick to done; cancel; Stop with Esc while an answer streams,
//! then Continue, and while the planner drafts; a chat deleted from the chat list once asked;
//! and the refusals that change nothing. After each session the same chat is
//! read through `preflight serve`, as the window would read it. A chat in its own git
//! worktree: `worktree.rs`.

mod support;
#[path = "tui_chat/worktree.rs"]
mod worktree;

use preflight_testkit::{Answer, Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::pane::{chat_env, Pane};
use support::script::{anyone, plan, planner, questions};
use support::{openai_config, Serve};
use tempfile::TempDir;

/// A data folder with the scripted provider as its model, and a workspace to work in.
struct World {
    provider: ScriptedServer,
    home: TempDir,
    workspace: TempDir,
}

async fn world(script: Script, config_extra: &str) -> World {
    let provider = ScriptedServer::start(script).await.unwrap();
    let home = TempDir::new().unwrap();
    let config = format!("{}{config_extra}", openai_config(&provider.openai_url()));
    std::fs::write(home.path().join("config.toml"), config).unwrap();
    let workspace = TempDir::new().unwrap();
    std::fs::write(workspace.path().join("README.md"), "# Shop\nOrders live in orders.csv\n")
        .unwrap();
    World { provider, home, workspace }
}

impl World {
    fn chat(&self, args: &[&str], extra_env: &[(&'static str, &str)]) -> Pane {
        let mut env = chat_env(self.home.path());
        env.extend(extra_env.iter().map(|(name, value)| (*name, value.to_string())));
        Pane::start(&[&["chat"], args].concat(), &env)
    }

    fn workspace(&self) -> &str {
        self.workspace.path().to_str().unwrap()
    }

    /// The chats as the window reads them: `preflight serve` on the same data folder.
    async fn chats_as_the_window_sees_them(self) -> Vec<Value> {
        let serve = Serve::start_in(self.home);
        let (status, list) = serve.get("/v1/chats").await;
        assert_eq!(status, 200, "{list}");
        let mut chats = Vec::new();
        for chat in list["data"].as_array().unwrap() {
            chats.push(serve.chat(chat["id"].as_str().unwrap()).await);
        }
        drop(self.provider);
        chats
    }
}

/// Quits with Ctrl+C and checks the terminal was given back: the alternate screen left (the
/// shell's lines show) and raw mode off.
async fn quit(pane: &Pane) {
    pane.keys(&["C-c"]);
    pane.wait_for(&["[tty sane]", "[exited 0]"]).await;
}

fn roles(chat: &Value) -> Vec<&str> {
    chat["messages"].as_array().unwrap().iter().map(kind).collect()
}

fn kind(message: &Value) -> &str {
    if !message["questions"].is_null() {
        "questions"
    } else if !message["plan"].is_null() {
        "plan"
    } else if message["plan_answer"] == true {
        "answer"
    } else {
        message["role"].as_str().unwrap()
    }
}

/// Whether an SGR sequence in `styled` sets a foreground or background colour (39 and 49,
/// "the terminal's default", do not count).
fn sets_a_colour(styled: &str) -> bool {
    styled.split("\x1b[").skip(1).any(|sequence| {
        let codes = sequence.split('m').next().unwrap_or("");
        codes
            .split(';')
            .any(|code| matches!(code.parse::<u32>(), Ok(30..=38 | 40..=48 | 90..=97 | 100..=107)))
    })
}

fn two_questions() -> Reply {
    questions(&[
        ("q1", "Which format?", ["CSV", "JSON", "Excel"]),
        ("q2", "Which rows?", ["All", "Last month", "Archived too"]),
    ])
}

fn done(id: u32) -> Reply {
    Answer::new().tool_call("turn_plan", json!({"op": "done", "id": id})).into()
}

const PLAN_CARD_PARTS: [&str; 4] = [
    "Libraries: csv (write rows: csv::Writer)",
    "Sandbox: a new sandbox",
    "Revise…",
    "Cancel plan",
];

#[tokio::test]
async fn plan_answer_revise_approve_and_the_task_list_ticks_to_done() {
    let script = Script::new()
        .route(
            planner(),
            [
                two_questions(),
                plan("CSV export", &["Add the route", "Write the test"]),
                plan("CSV export with docs", &["Add the route", "Write the docs"]),
            ],
        )
        .route(anyone(), [done(1), done(2), Reply::text("Done: the **export** works.")]);
    let world = world(script, "").await;
    let pane = world.chat(&["--workspace", world.workspace()], &[]);
    pane.wait_for(&["Preflight · New chat", "Type a task and press Enter", "^C quit"]).await;

    pane.type_text("Add a CSV export");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for(&["question 1 of 2", "Which format?", "Your own answer"]).await;
    assert!(screen.contains("Answer the planner's questions first"), "input locked:\n{screen}");
    assert!(screen.contains("Waiting for your answers"), "the status line:\n{screen}");

    pane.keys(&["Down", "Enter"]);
    pane.wait_for(&["question 2 of 2", "Which rows?"]).await;
    pane.type_text("Only this year");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for(&["The plan · revision 1", "Write the test", "Approve"]).await;
    for part in PLAN_CARD_PARTS {
        assert!(screen.contains(part), "the plan card shows {part:?}:\n{screen}");
    }
    assert!(screen.contains("Which format? JSON"), "the option chosen:\n{screen}");
    assert!(screen.contains("Which rows? Only this year"), "the own answer:\n{screen}");

    pane.type_text("Write docs instead of a test");
    pane.keys(&["Enter"]);
    pane.wait_for(&["The plan · revision 2", "Write the docs"]).await;
    pane.keys(&["Enter"]);
    let screen =
        pane.wait_for(&["Plan completed ✓ · 2 of 2 done", "Done: the export works."]).await;
    assert!(screen.contains("✓ Add the route") && screen.contains("✓ Write the docs"), "{screen}");
    pane.resize(120, 30);
    pane.wait_for(&["┌ Plan completed ✓ · 2 of 2 done"]).await;
    pane.resize(80, 24);
    pane.wait_gone("┌ Plan completed").await;
    pane.wait_for(&[" Plan completed ✓ · 2 of 2 done ─"]).await;
    quit(&pane).await;
    drop(pane);

    let chats = world.chats_as_the_window_sees_them().await;
    let chat = &chats[0];
    assert_eq!(
        roles(chat)[..7],
        ["user", "questions", "answer", "answer", "plan", "answer", "plan"]
    );
    assert_eq!(chat["state"]["phase"], "idle");
    assert_eq!(chat["state"]["completion"]["tasks"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn stop_with_esc_while_an_answer_streams_then_continue_to_done() {
    let stalled = Answer::new().words("Writing the test now ").stall().into();
    let script = Script::new()
        .route(planner(), [plan("Report", &["Add the route", "Write the test"])])
        .route(anyone(), [done(1), stalled, done(2), Reply::text("All done.")]);
    let world = world(script, "").await;
    let pane = world.chat(&["--workspace", world.workspace()], &[]);
    pane.wait_for(&["Type a task"]).await;
    pane.type_text("Make a report");
    pane.keys(&["Enter"]);
    pane.wait_for(&["The plan · revision 1"]).await;
    pane.keys(&["Enter"]);

    let screen = pane.wait_for(&["Writing the test now", "Esc stop"]).await;
    assert!(screen.contains("✓ Add the route"), "the first task ticked:\n{screen}");
    assert!(screen.contains("▶ Write the test"), "the second one runs:\n{screen}");
    assert!(screen.contains("1 of 2 done"), "{screen}");
    pane.keys(&["Escape"]);
    let screen = pane.wait_for(&["The executor stopped with tasks left", "Continue"]).await;
    assert!(!screen.contains("Esc stop"), "nothing runs any more:\n{screen}");

    pane.keys(&["Enter"]);
    pane.wait_for(&["Plan completed ✓ · 2 of 2 done", "All done."]).await;

    pane.keys(&["C-n"]);
    pane.wait_for(&["Preflight · New chat"]).await;
    pane.wait_gone("All done.").await;
    pane.keys(&["C-l"]);
    pane.wait_for(&["Chats", "Make a report"]).await;
    pane.type_text("repo");
    pane.wait_for(&["Search: repo", "› Make a report"]).await;
    pane.keys(&["Enter"]);
    pane.wait_for(&["Preflight · Make a report", "Plan completed ✓ · 2 of 2 done", "All done."])
        .await;
    quit(&pane).await;
    drop(pane);
    let chats = world.chats_as_the_window_sees_them().await;
    assert_eq!(chats[0]["state"]["phase"], "idle");
    assert!(chats[0]["state"]["completion"].is_object(), "{}", chats[0]["state"]);
}

#[tokio::test]
async fn esc_while_the_planner_drafts_stops_it_and_executes_nothing() {
    let drafting = Answer::new().text("Reading the code").stall().into();
    let script = Script::new().route(planner(), [drafting]).route(anyone(), [Reply::text("no")]);
    let world = world(script, "").await;
    let pane = world.chat(&["--workspace", world.workspace()], &[]);
    pane.wait_for(&["Type a task"]).await;
    pane.type_text("Plan something");
    pane.keys(&["Enter"]);
    pane.wait_for(&["Drafting a plan…", "Esc stop", "^X cancel plan"]).await;
    let asked = world.provider.wait_for_requests(1);
    tokio::time::timeout(std::time::Duration::from_secs(60), asked)
        .await
        .expect("the planner asks");
    pane.keys(&["Escape"]);
    let screen = pane.wait_gone("Drafting a plan…").await;
    assert!(!screen.contains("Esc stop"), "{screen}");
    quit(&pane).await;
    drop(pane);
    let requests = world.provider.requests().len();
    let chats = world.chats_as_the_window_sees_them().await;
    assert_eq!(requests, 1, "the planner's request only: nothing was executed");
    assert_eq!(roles(&chats[0]), ["user"]);
    assert_eq!(chats[0]["state"]["phase"], "idle");
}

#[tokio::test]
async fn cancel_a_plan_on_its_card_and_questions_with_ctrl_x_in_russian_without_colour() {
    let script =
        Script::new().route(planner(), [plan("Export", &["Add the route"]), two_questions()]);
    let world = world(script, "").await;
    let env = [("NO_COLOR", "1"), ("LANG", "ru_RU.UTF-8")];
    let pane = world.chat(&["--workspace", world.workspace()], &env);
    pane.wait_for(&["Опишите задачу и нажмите Enter", "^C выход"]).await;
    pane.type_text("Первая задача");
    pane.keys(&["Enter"]);
    pane.wait_for(&["План · редакция 1", "Одобрить", "Отменить план"]).await;
    let styled = pane.screen_with_styles();
    assert!(styled.contains("\x1b[1m"), "bold stays: {styled:?}");
    assert!(!sets_a_colour(&styled), "NO_COLOR: no colour at all: {styled:?}");
    pane.keys(&["Right", "Right", "Enter"]);
    pane.wait_gone("План · редакция 1").await;
    pane.wait_for(&["Опишите задачу"]).await;

    pane.keys(&["C-n"]);
    pane.wait_for(&["Preflight · Новый чат"]).await;
    pane.type_text("Вторая задача");
    pane.keys(&["Enter"]);
    pane.wait_for(&["Which format?", "вопрос 1 из 2", "^X отменить план"]).await;
    pane.keys(&["C-x"]);
    pane.wait_gone("Which format?").await;
    pane.wait_for(&["Опишите задачу"]).await;

    // The chat list deletes a chat only once asked: here the open one, the newest.
    pane.keys(&["C-l"]);
    pane.wait_for(&["Del удалить"]).await;
    pane.keys(&["DC"]);
    pane.wait_for(&["Удалить этот чат? Enter — удалить, Esc — оставить"]).await;
    pane.keys(&["Enter"]);
    pane.wait_gone("Удалить этот чат?").await;
    pane.keys(&["Escape"]);
    pane.wait_gone("Del удалить").await;
    quit(&pane).await;
    drop(pane);

    let chats = world.chats_as_the_window_sees_them().await;
    assert_eq!(chats.len(), 1, "one of the two chats was deleted");
    for chat in &chats {
        assert_eq!(roles(chat), ["user"], "only the task is left: {chat}");
        assert_eq!(chat["state"]["phase"], "idle");
    }
}

#[tokio::test]
async fn refusals_say_why_and_change_nothing() {
    let world = world(Script::new(), "").await;
    let serve = Serve::start_in(TempDir::new().unwrap());
    let busy = Pane::start(&["chat"], &chat_env(serve.home_path()));
    let screen = busy.wait_for(&["[tty sane]", "[exited 1]"]).await;
    assert!(screen.contains("in use by preflight serve"), "{screen}");
    assert!(screen.contains("does not start beside the window"), "{screen}");

    let unknown = world.chat(&["no-such-chat"], &[]);
    let screen = unknown.wait_for(&["[exited 1]"]).await;
    assert!(screen.contains("no chat no-such-chat"), "{screen}");
    let not_a_folder = world.chat(&["--workspace", "/no/such/folder"], &[]);
    let screen = not_a_folder.wait_for(&["[exited 1]"]).await;
    assert!(screen.contains("not an existing folder"), "{screen}");
    let russian = [("LANG", "ru_RU.UTF-8")];
    let no_repository = world.chat(&["--workspace", world.workspace(), "--worktree"], &russian);
    let screen = no_repository.wait_for(&["[exited 1]"]).await;
    assert!(screen.contains("не git-репозиторий"), "said in the user's language: {screen}");
    drop((unknown, not_a_folder, no_repository));
    assert!(world.chats_as_the_window_sees_them().await.is_empty(), "no chat was made");
}

#[test]
fn help_lists_the_options_and_the_keys_and_unknown_options_still_refuse() {
    let chat = |args: &[&str], lang: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_preflight"))
            .arg("chat")
            .args(args)
            .env("LANG", lang)
            .env("LC_ALL", "")
            .env("PREFLIGHT_HOME", "/nonexistent/preflight-help-needs-no-data-folder")
            .output()
            .unwrap()
    };
    for flag in ["--help", "-h"] {
        let help = chat(&[flag], "C.UTF-8");
        assert!(help.status.success(), "{help:?}");
        let text = String::from_utf8(help.stdout).unwrap();
        for part in ["usage: preflight chat", "--workspace DIR", "^G", "y/N", "^C", "NO_COLOR"] {
            assert!(text.contains(part), "{flag} names {part:?}:\n{text}");
        }
    }
    let russian = chat(&["--help"], "ru_RU.UTF-8");
    assert!(String::from_utf8(russian.stdout).unwrap().contains("клавиши:"));
    let unknown = chat(&["--verbose"], "C.UTF-8");
    assert_eq!(unknown.status.code(), Some(1));
    let error = String::from_utf8(unknown.stderr).unwrap();
    assert!(error.contains("unknown option --verbose") && error.contains("--help"), "{error}");
}

/// A plan with every part the window's card shows: complexity, approach, steps with their
/// expected results, order and files, a library, the sandbox, risks, alternatives, tests
/// and the files it will create and change.
fn whole_plan() -> Reply {
    let plan = json!({
        "title": "Text utils",
        "aim": "A shout() helper, documented",
        "approach": "One small module and a line in the README",
        "complexity": "low",
        "steps": [
            {"action": "Write textutils.py", "expected": "shout() upper-cases", "files": ["textutils.py"]},
            {"action": "Note it in the README", "expected": "the README names it", "files": ["README.md"], "depends_on": [1]}
        ],
        "libraries": [{"name": "unittest", "purpose": "check shout()", "usage": "python3 -m unittest"}],
        "sandbox": {"policy": "create", "notes": "no network"},
        "risks": ["the README intro clashes", "shout() of something not a string fails loudly, not quietly"],
        "alternatives": ["a function in an existing module"],
        "tests": ["shout of a is A"],
        "files": {"create": ["textutils.py"], "modify": ["README.md"]}
    });
    Reply::text(&format!("Here is the plan.\n\n```plan\n{plan}\n```"))
}

fn call(name: &str, arguments: Value) -> Reply {
    Answer::new().tool_call(name, arguments).into()
}

/// The executor writes a module (task 1), lists the workspace and changes the README (task
/// 2), and ends with a bullet longer than a line.
fn text_utils_run(root: &str) -> Script {
    let module = "def shout(text):\n    return text.upper()\n";
    let readme = "# Shop\nOrders live in orders.csv\nText utils: see textutils.py\n";
    let executor = [
        call("mcp_filesystem_write_file", json!({"path": format!("{root}/textutils.py"), "content": module})),
        done(1),
        call("mcp_code-sandbox_run_command", json!({"command": "ls"})),
        call("mcp_filesystem_write_file", json!({"path": format!("{root}/README.md"), "content": readme})),
        done(2),
        Reply::text("Done.\n\n- The shout helper lives in textutils.py, and the README now points people to it with a line"),
    ];
    Script::new().route(planner(), [whole_plan()]).route(anyone(), executor)
}

const LONG_TASK: &str = "Add a text utility module with a shout function, and say so in the README so that people find it";

#[tokio::test]
async fn the_whole_plan_card_tool_sentences_hanging_wraps_then_a_tasks_diff_and_a_restore() {
    let workspace = TempDir::new().unwrap();
    let root = workspace.path().to_str().unwrap().to_owned();
    let script = text_utils_run(&root);
    let mut world = world(script, "").await;
    std::fs::write(workspace.path().join("README.md"), "# Shop\nOrders live in orders.csv\n")
        .unwrap();
    world.workspace = workspace;
    let pane = world.chat(&["--workspace", world.workspace()], &[]);
    pane.wait_for(&["Type a task"]).await;
    pane.type_text(LONG_TASK);
    pane.keys(&["Enter"]);

    let screen = pane.wait_for(&["The plan · revision 1", "Text utils · low complexity"]).await;
    assert!(screen.contains("Write textutils.py → shout() upper-cases"), "{screen}");
    assert!(screen.contains("after step 1 · files: README.md"), "{screen}");
    assert!(screen.contains("more lines (PgDn)"), "the card says what is below:\n{screen}");
    assert!(!screen.contains("Files: create"), "below the card's room until PgDn:\n{screen}");
    pane.keys(&["PageDown"]);
    let screen = pane.wait_for(&["Risks: the README intro clashes;", "Files: create"]).await;
    for part in [
        "Sandbox: a new sandbox (",
        "— no network",
        "Alternatives: a function in an existing module",
        "Tests: shout of a is A",
        "Files: create textutils.py; change README.md",
        "unittest (check shout(): python3 -m unittest)",
    ] {
        assert!(screen.contains(part), "the plan card shows {part:?}:\n{screen}");
    }
    pane.keys(&["Enter"]);
    pane.wait_for(&["Plan completed ✓ · 2 of 2 done"]).await;
    pane.resize(80, 50);
    let screen = pane.wait_for(&["▸ Wrote textutils.py", "▸ Wrote README.md"]).await;
    assert!(screen.contains("▸ Updated the task list"), "{screen}");
    assert!(screen.contains("▸ Ran ls — exit 0 in "), "{screen}");
    for raw in ["mcp_filesystem", "mcp_code-sandbox", "turn_plan", "{\""] {
        assert!(!screen.contains(raw), "no raw tool names or JSON ({raw}):\n{screen}");
    }
    let rows: Vec<&str> = screen.lines().collect();
    let you = rows.iter().position(|row| row.starts_with("You: Add a text utility")).unwrap();
    assert!(rows[you + 1].starts_with("     ") && !rows[you + 1].starts_with("      "), "{screen}");
    let bullet = rows.iter().position(|row| row.starts_with("• The shout helper")).unwrap();
    assert!(rows[bullet + 1].starts_with("  ") && !rows[bullet + 1].starts_with("   "), "{screen}");

    diff_then_restore(&pane, &world).await;
    quit(&pane).await;
}

/// Ctrl+G: the last finished task's diff, the one before with ←, a restore refused with n
/// and done with y; the workspace is as it was before task 1.
async fn diff_then_restore(pane: &Pane, world: &World) {
    let dir = world.workspace.path();
    pane.keys(&["C-g"]);
    pane.wait_for(&[
        "Task 2 · Note it in the README",
        "changed README.md",
        "+Text utils: see textutils.py",
    ])
    .await;
    pane.keys(&["Left"]);
    pane.wait_for(&["Task 1 · Write textutils.py", "added textutils.py", "+def shout(text):"])
        .await;
    pane.keys(&["r"]);
    let ask =
        ["Restore the workspace to before task 1? 1 file(s) written back, 1 deleted.", "[y/N]"];
    pane.wait_for(&ask).await;
    pane.keys(&["n"]);
    pane.wait_gone("[y/N]").await;
    assert!(dir.join("textutils.py").exists(), "n keeps the workspace");
    pane.keys(&["r"]);
    pane.wait_for(&ask).await;
    pane.keys(&["y"]);
    pane.wait_for(&[
        "↺ Restored the workspace to before task 1: 1 file(s) written back, 1 deleted.",
    ])
    .await;
    assert!(!dir.join("textutils.py").exists(), "the task's new file is gone");
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert_eq!(readme, "# Shop\nOrders live in orders.csv\n", "the README is back");
}
