//! The style contract that runs with the tests (in the spirit of rust-analyzer's tidy):
//! every Rust file opens with a `//!` line, no file is over 500 lines and no function over 60
//! without a named exception below, the engine's public API has no `Result<_, String>`, and
//! the UI calls exactly the commands the desktop shell registers.
//!
//! Exceptions are named with the reason they stand; an exception that is no longer needed
//! fails too, so the lists only shrink. Formatting (`cargo fmt --check`) and lints (clippy
//! with warnings as errors, inside the build: `scripts/lib/dev-build.sh`) run beside this
//! test in `scripts/test.sh`.

mod support;

use std::collections::BTreeSet;
use std::path::Path;

use support::tidy::imports::{circles, ModuleFile};
use support::tidy::{functions, public_signatures, repository, rust_files, strip_code, SourceFile};

const MAX_FILE_LINES: usize = 500;
const MAX_FUNCTION_LINES: usize = 60;

/// Files allowed past 500 lines, each with why splitting would not help a reader.
const LONG_FILES: &[(&str, &str)] = &[];

/// Functions allowed past 60 lines: (file, function, why).
const LONG_FUNCTIONS: &[(&str, &str, &str)] = &[
    (
        "crates/mcp/benches/mcp.rs",
        "bench_tool_calls",
        "one benchmark's set-up and its printed table",
    ),
    ("crates/llm/src/openai/format/tests.rs", "recorded_answers_of_each_server", TABLE),
    ("crates/protocol/src/tasks/tests/parse.rs", "refused_shapes", TABLE),
    (
        "crates/agent/tests/agent_loop.rs",
        "an_executor_turn_keeps_its_plan_in_the_store_and_the_state_tail",
        SCENARIO,
    ),
    ("crates/engine/tests/config_file.rs", "every_mistake_names_its_line_and_key", TABLE),
    ("crates/store/tests/store_checker.rs", "half_steps", TABLE),
    (
        "crates/store/tests/store_turns.rs",
        "wrong_state_steps_are_typed_errors_that_change_nothing",
        TABLE,
    ),
    ("tests/api_basics.rs", "bad_input_is_refused_with_a_clear_code_and_changes_nothing", TABLE),
    (
        "tests/api_planning.rs",
        "questions_then_a_custom_answer_then_a_plan_edited_approved_and_ticked_off",
        SCENARIO,
    ),
    (
        "tests/dwp_cli/main.rs",
        "dwp_update_records_gates_and_completes_only_with_passing_evidence",
        SCENARIO,
    ),
    (
        "src-tauri/src/commands/mod.rs",
        "handler",
        "the window's every command, one a line, as names.rs lists them",
    ),
];

/// Why a data-driven test is long: its table is the test, one row a case.
const TABLE: &str = "a table of cases, one row each";
/// Why a black-box scenario is long: it follows one user's session from start to end.
const SCENARIO: &str = "one user's session through the product, read top to bottom";

/// Files that cannot open with an inner doc comment.
const NO_MODULE_DOC: &[(&str, &str)] = &[(
    "src-tauri/src/commands/names.rs",
    "build.rs include!s it as an expression, where an inner doc comment is not allowed",
)];

/// The crates whose `pub fn`s make up the engine's public API.
const ENGINE_API: &[&str] = &[
    "crates/protocol/src",
    "crates/store/src",
    "crates/llm/src",
    "crates/mcp/src",
    "crates/agent/src",
    "crates/engine/src",
    "crates/dwp/src",
    "crates/files/src",
];

fn sources() -> Vec<SourceFile> {
    let root = repository();
    rust_files(&root).into_iter().map(|path| SourceFile::read(&root, &path)).collect()
}

#[test]
fn every_rust_file_opens_with_a_module_doc_line() {
    let missing: Vec<String> = sources()
        .iter()
        .filter(|file| !excepted(NO_MODULE_DOC.iter().map(|e| e.0), &file.relative))
        .filter(|file| !file.text.trim_start().starts_with("//!"))
        .map(|file| file.relative.clone())
        .collect();
    assert!(missing.is_empty(), "these files do not open with a `//!` line: {missing:#?}");
    check_exceptions_exist(NO_MODULE_DOC.iter().map(|e| e.0), |file| {
        !file.text.trim_start().starts_with("//!")
    });
}

#[test]
fn no_file_is_longer_than_500_lines_without_a_named_exception() {
    let long: Vec<String> = sources()
        .iter()
        .filter(|file| file.line_count() > MAX_FILE_LINES)
        .filter(|file| !excepted(LONG_FILES.iter().map(|e| e.0), &file.relative))
        .map(|file| format!("{} ({} lines)", file.relative, file.line_count()))
        .collect();
    assert!(
        long.is_empty(),
        "split these files by concern (over {MAX_FILE_LINES} lines): {long:#?}"
    );
    check_exceptions_exist(LONG_FILES.iter().map(|e| e.0), |file| {
        file.line_count() > MAX_FILE_LINES
    });
}

#[test]
fn no_function_is_longer_than_60_lines_without_a_named_exception() {
    let mut long = Vec::new();
    let mut used = BTreeSet::new();
    for file in sources() {
        for function in functions(&strip_code(&file.text)) {
            if function.lines <= MAX_FUNCTION_LINES {
                continue;
            }
            let key = (file.relative.as_str(), function.name.as_str());
            match LONG_FUNCTIONS.iter().find(|(path, name, _)| (*path, *name) == key) {
                Some(_) => {
                    used.insert((file.relative.clone(), function.name.clone()));
                }
                None => long.push(format!(
                    "{}:{} fn {} ({} lines)",
                    file.relative, function.line, function.name, function.lines
                )),
            }
        }
    }
    assert!(long.is_empty(), "split these functions (over {MAX_FUNCTION_LINES} lines): {long:#?}");
    let stale: Vec<_> = LONG_FUNCTIONS
        .iter()
        .filter(|(path, name, _)| !used.contains(&(path.to_string(), name.to_string())))
        .collect();
    assert!(stale.is_empty(), "these exceptions are no longer needed, remove them: {stale:#?}");
}

#[test]
fn the_engine_api_has_no_string_errors() {
    let mut found = Vec::new();
    for file in sources() {
        if !ENGINE_API.iter().any(|dir| file.relative.starts_with(dir)) {
            continue;
        }
        for signature in public_signatures(&strip_code(&file.text)) {
            if returns_string_error(&signature.text) {
                found.push(format!("{}:{}: {}", file.relative, signature.line, signature.text));
            }
        }
    }
    assert!(
        found.is_empty(),
        "public functions must return a typed error (thiserror), not String: {found:#?}"
    );
}

#[test]
fn the_ui_calls_exactly_the_commands_the_shell_registers() {
    let root = repository();
    let shell = quoted_names(&read(&root, "src-tauri/src/commands/names.rs"));
    let api = read(&root, "ui/src/lib/api.ts");
    let mut ui = BTreeSet::new();
    for part in api.split("call<").skip(1) {
        let Some(open) = part.find("(\"") else { continue };
        let name: String = part[open + 2..].chars().take_while(|c| *c != '"').collect();
        ui.insert(name);
    }
    assert!(!shell.is_empty() && !ui.is_empty(), "no command names found");
    let missing_in_shell: Vec<_> = ui.difference(&shell).collect();
    let unused_by_ui: Vec<_> = shell.difference(&ui).collect();
    assert!(
        missing_in_shell.is_empty() && unused_by_ui.is_empty(),
        "ui/src/lib/api.ts calls {missing_in_shell:?} that the shell does not register, and the \
         shell registers {unused_by_ui:?} that the UI never calls"
    );
}

#[test]
fn the_checks_themselves_see_what_they_look_for() {
    // A function, a string holding braces and `fn`, a raw string and a comment: the scanner
    // must count the function's lines and nothing else.
    let source = "//! x\nfn outer() {\n    let s = \"} fn fake() {\";\n    let r = r#\"{\"#;\n    \
                  // }\n    let c = '}';\n}\npub fn api(x: u8)\n    -> Result<u8, String> {\n    \
                  Ok(x)\n}\n";
    let code = strip_code(source);
    let found: Vec<(String, usize)> =
        functions(&code).into_iter().map(|f| (f.name, f.lines)).collect();
    assert_eq!(found, vec![("outer".to_owned(), 6), ("api".to_owned(), 4)]);
    let signatures = public_signatures(&code);
    assert_eq!(signatures.len(), 1);
    assert!(returns_string_error(&signatures[0].text), "{}", signatures[0].text);
    assert!(!returns_string_error("pub fn f() -> Result<String, Error>"));
}

#[test]
fn no_file_reaches_above_its_parent_with_super_super() {
    let found: Vec<String> = sources()
        .iter()
        .flat_map(|file| {
            let lines = super_super_lines(&file.text);
            lines.into_iter().map(move |line| format!("{}:{line}", file.relative))
        })
        .collect();
    assert!(
        found.is_empty(),
        "`super::super` reaches two floors up from where it is read: name the module from the \
         crate root (`crate::…`), or move what it reaches for down beside its users: {found:#?}"
    );
    let planted = "//! x\nuse super::super::store::Store;\nconst S: &str = \"super::super\";\n";
    assert_eq!(super_super_lines(planted), vec![2], "code is found, a string is not");
}

/// The lines of `text` whose code (not comments or strings) says `super::super`.
fn super_super_lines(text: &str) -> Vec<usize> {
    let code = strip_code(text);
    let lines = code.lines().enumerate();
    lines.filter(|(_, l)| l.contains("super::super")).map(|(k, _)| k + 1).collect()
}

#[test]
fn no_crate_has_an_import_circle() {
    let root = repository();
    let mut found = Vec::new();
    for source_root in crate_sources(&root) {
        let files: Vec<ModuleFile> = rust_files(&source_root)
            .iter()
            .filter_map(|path| {
                let relative =
                    path.strip_prefix(&source_root).ok()?.to_string_lossy().replace('\\', "/");
                ModuleFile::new(&relative, &read(&source_root, &relative))
            })
            .collect();
        let name = source_root.strip_prefix(&root).unwrap_or(&source_root).display().to_string();
        found.extend(
            circles(&files).into_iter().map(|circle| format!("{name}: {}", circle.join(" ↔ "))),
        );
    }
    assert!(
        found.is_empty(),
        "these files import one another in a circle; a reader cannot start at either end. Move \
         what both need into a file of its own below them (data on the ground floor), or pass \
         it down as a value: {found:#?}"
    );
}

/// Every crate's `src/` folder.
fn crate_sources(root: &Path) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(root.join("crates"))
        .expect("crates folder")
        .map(|entry| entry.expect("crate").path().join("src"))
        .chain([root.join("src-tauri/src")])
        .filter(|path| path.is_dir())
        .collect();
    found.sort();
    found
}

#[test]
fn the_circle_check_sees_a_planted_circle_and_only_that() {
    let crate_of = |files: &[(&str, &str)]| -> Vec<Vec<String>> {
        let files: Vec<ModuleFile> =
            files.iter().filter_map(|(path, text)| ModuleFile::new(path, text)).collect();
        circles(&files)
    };
    let facade = (
        "mcp/mod.rs",
        "//! f\nmod a;\nmod b;\npub use a::Alpha;\npub use b::{Beta, Gamma as G};\n",
    );
    let leaf = ("mcp/a.rs", "//! a\npub struct Alpha;\n");
    let user = ("mcp/b.rs", "//! b\nuse crate::mcp::Alpha;\nuse super::a;\npub struct Beta;\npub struct Gamma;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n");
    let root = ("lib.rs", "//! r\nmod mcp;\npub use mcp::G;\n");
    assert_eq!(crate_of(&[facade, leaf, user, root]), Vec::<Vec<String>>::new());
    let back = ("mcp/a.rs", "//! a\nuse crate::mcp::{\n    G,\n};\npub struct Alpha;\n");
    assert_eq!(
        crate_of(&[facade, back, user, root]),
        vec![vec!["mcp::a".to_owned(), "mcp::b".to_owned()]]
    );
    let through_parent =
        ("mcp/a.rs", "//! a\npub use self::super::b::Beta as B;\npub struct Alpha;\n");
    assert_eq!(crate_of(&[facade, through_parent, user, root]).len(), 1);
    let in_a_string =
        ("mcp/a.rs", "//! a\nconst S: &str = \"use super::b::Beta;\";\npub struct Alpha;\n");
    assert!(crate_of(&[facade, in_a_string, user, root]).is_empty());
    let written_out =
        ("mcp/a.rs", "//! a\npub struct Alpha;\nfn f() -> u8 { crate::mcp::b::size() }\n");
    assert_eq!(crate_of(&[facade, written_out, user, root]).len(), 1, "a path in code imports");
    let visibility = ("mcp/a.rs", "//! a\npub(in crate::mcp) struct Alpha;\n");
    assert!(crate_of(&[facade, visibility, user, root]).is_empty(), "`pub(in …)` imports nothing");
    // The circle no file makes alone: it leaves `runner` from runner.rs and comes back into
    // it at runner/tools.rs, which the facade re-exports.
    let rooms = [
        ("lifecycle/mod.rs", "//! l\nmod completion;\nmod finalize;\nmod runner;\n"),
        ("lifecycle/runner.rs", "//! r\nuse crate::lifecycle::completion::done;\nmod tools;\npub(crate) use tools::gates;\n"),
        ("lifecycle/runner/tools.rs", "//! t\npub fn gates() {}\n"),
        ("lifecycle/completion.rs", "//! c\nuse super::finalize::finalize;\npub fn done() {}\n"),
        ("lifecycle/finalize.rs", "//! f\nuse crate::lifecycle::runner::gates;\npub fn finalize() {}\n"),
        ("lib.rs", "//! r\nmod lifecycle;\n"),
    ];
    let rooms_of = ["lifecycle::completion", "lifecycle::finalize", "lifecycle::runner"];
    assert_eq!(crate_of(&rooms), vec![rooms_of.map(str::to_owned).to_vec()]);
    let mut downhill = rooms;
    downhill[4] = ("lifecycle/finalize.rs", "//! f\npub fn finalize() {}\n");
    assert!(crate_of(&downhill).is_empty(), "a child importing its parent's facade is no circle");
}

fn returns_string_error(signature: &str) -> bool {
    let compact: String = signature.chars().filter(|c| !c.is_whitespace()).collect();
    compact.contains("Result<") && compact.contains(",String>")
}

fn excepted<'a>(mut names: impl Iterator<Item = &'a str>, relative: &str) -> bool {
    names.any(|name| name == relative)
}

fn check_exceptions_exist<'a>(
    names: impl Iterator<Item = &'a str>,
    still_needed: impl Fn(&SourceFile) -> bool,
) {
    let root = repository();
    for name in names {
        let path = root.join(name);
        assert!(path.exists(), "the exception names {name}, which does not exist: remove it");
        let file = SourceFile::read(&root, &path);
        assert!(still_needed(&file), "{name} no longer needs its exception: remove it");
    }
}

fn quoted_names(text: &str) -> BTreeSet<String> {
    let code: String = text.lines().filter(|line| !line.trim_start().starts_with("//")).collect();
    code.split('"').skip(1).step_by(2).map(str::to_owned).collect()
}

fn read(root: &Path, relative: &str) -> String {
    std::fs::read_to_string(root.join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}
