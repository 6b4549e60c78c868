//! `preflight dwp update|verify|finalize`: the guarded updater, the verifier and the
//! finaliser of `.dwp/plans/` plan folders (seed 002), hand-parsed like the rest of the
//! command line. Exit status: 0 done (verify: no finding; finalize: VERIFIED), 1 refused,
//! findings or UNVERIFIED, 2 a usage error. A plan folder is the repository's text: every
//! line printed from it (names, findings, reasons, errors) is made inert first
//! (`preflight_engine::inert`), so no escape sequence of a planted file reaches the terminal.

use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use preflight_dwp::{
    verify_plan, AmendKind, AmendmentInput, Author, Authority, Change, GateInput, LockOptions,
    Outcome, PlanFolder, PlanFolderWriter, UpdateAction, UpdateRequest,
};
use preflight_engine::inert::inert;

pub const USAGE: &str = "\
usage: preflight dwp update PLAN [--task N] ACTION [--expected-sha256 HEX] [--agent NAME] [--model NAME] [--break-stale-lock]
       preflight dwp verify PLAN
       preflight dwp finalize PLAN

finalize checks a finished plan against its records and files and writes the attestation
PLAN/analysis_results/FINALIZATION.json: VERIFIED, or UNVERIFIED with the reasons. It runs no
command (seed 002), and a record nobody ran again is never proof: from here the verdict is
UNVERIFIED, saying so. A chat's own finalisation, at the plan's completion (or \"Run the checks
again\" in the window), runs every gate again in the chat's sandbox and can verify.

PLAN is a plan folder, or its name under ./.dwp/plans/ (with or without PLAN_).

ACTION, exactly one (each but --reconcile and --resolve-blocker needs --task N):
  --start                           the task is in progress
  --complete GATE… [--outcome-json JSON] [--commit SHA]
                                    record the gate runs, then complete the task; refused unless
                                    every live gate of the task passes with evidence
  GATE…                             only record gate runs (e.g. a failing one)
  --block-reason TEXT [--needs TEXT]   the task is blocked
  --resolve-blocker                 resolve the current blocker (with --task N: only if it is N)
  --reopen-reason TEXT              reopen a completed, blocked or skipped task: an amendment
                                    (kind reopen) is recorded first, then its evidence is
                                    invalidated (kept as history)
  --skip-reason TEXT                the user takes the task out of scope (skipped)
  --defer-reason TEXT --defer-to M  a deferred requirement: the task's criterion moves to the open
                                    task M, and this amendment (kind defer) alone closes the task
                                    (skipped, its records history); a finished plan whose M never
                                    meets it is UNVERIFIED
  --investigation TEXT              record a completed investigation: what the work found; it
                                    closes nothing by itself
  --close-by-investigation TEXT     change the task's criterion to its recorded investigation
                                    (an amendment of kind investigation naming it, TEXT the why)
                                    and close the task against it — never against the original
  --checkpoint STEP [--note TEXT]   the resume point inside the task in progress
  --reconcile                       regenerate state.json from README.md (Markdown wins)

GATE, repeatable: --gate 'COMMAND|EXIT_CODE|EVIDENCE', or --gate-json '{\"command\":…,\"exit_code\":…,\"evidence\":…}'
(the JSON form for text containing `|`; it may also carry \"passes\" and \"last_run\", which are checked).

--expected-sha256 refuses the write if state.json changed since that snapshot (the sha256 printed
by the last update or verify). Writers serialise through PLAN/.lock; a stale lock is reported, and
removed only with --break-stale-lock after checking that its writer is gone.";

/// Entry from `main`: `args` are the words after `dwp`.
pub fn main(args: &[String]) -> ExitCode {
    let outcome = match args.first().map(String::as_str) {
        Some("update") => {
            parse_update(&args[1..]).map(|(plan, request, by)| run_update(&plan, &request, by))
        }
        Some("verify") => match &args[1..] {
            [plan] if !plan.starts_with("--") => Ok(run_verify(plan)),
            _ => Err(anyhow!("verify takes one PLAN")),
        },
        Some("finalize") => match &args[1..] {
            [plan] if !plan.starts_with("--") => Ok(run_finalize(plan)),
            _ => Err(anyhow!("finalize takes one PLAN")),
        },
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => Err(anyhow!("expected `update`, `verify` or `finalize`")),
    };
    match outcome {
        Ok(Ok(code)) => code,
        Ok(Err(error)) => {
            eprintln!("preflight dwp: {}", inert(&format!("{error:#}")));
            ExitCode::FAILURE
        }
        Err(usage) => {
            eprintln!("preflight dwp: {}\n\n{USAGE}", inert(&format!("{usage:#}")));
            ExitCode::from(2)
        }
    }
}

fn run_update(plan: &str, request: &UpdateRequest, by: Author) -> anyhow::Result<ExitCode> {
    let dir = resolve(plan)?;
    let report = PlanFolderWriter::new(by).update(&dir, request, &preflight_dwp::now_rfc3339())?;
    if let Some(owner) = &report.broken_lock {
        eprintln!("removed a stale lock ({})", inert(owner));
    }
    if report.log.is_empty() {
        println!("{}: nothing to change", inert(&dir.name()));
    }
    for line in &report.log {
        println!("{}: {}", inert(&dir.name()), inert(line));
    }
    println!("state.json sha256: {}", report.sha256);
    Ok(ExitCode::SUCCESS)
}

fn run_verify(plan: &str) -> anyhow::Result<ExitCode> {
    let dir = resolve(plan)?;
    let report = verify_plan(&dir, LockOptions::default())?;
    for finding in &report.findings {
        println!("{}", inert(&finding.to_string()));
    }
    let (tasks, completed) = (report.task_count, report.completed_count);
    match report.findings.len() {
        0 => println!("{}: README.md and state.json agree ({tasks} tasks, {completed} completed); no findings", inert(&report.plan)),
        count => println!("{}: {count} finding{}", inert(&report.plan), if count == 1 { "" } else { "s" }),
    }
    if let Some(sha256) = &report.sha256 {
        println!("state.json sha256: {sha256}");
    }
    Ok(if report.findings.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn run_finalize(plan: &str) -> anyhow::Result<ExitCode> {
    let dir = resolve(plan)?;
    let writer =
        PlanFolderWriter::new(Author { agent: "preflight dwp finalize".into(), model: None });
    let report = writer.finalize(&dir, &[], &preflight_dwp::now_rfc3339())?;
    if let Some(note) = &report.recovered {
        println!("{}", inert(note));
    }
    for reason in &report.finalization.reasons {
        println!("- {}", inert(reason));
    }
    if report.finalization.reasons.iter().any(|reason| reason.contains("was not run again")) {
        println!("The checks were not run again: this command runs none. The chat's own finalisation runs them in its sandbox (in the window: Run the checks again).");
    }
    let path = report.path.display().to_string();
    println!("{}: {} ({})", inert(&dir.name()), report.verdict().as_str(), inert(&path));
    Ok(match report.verdict() {
        preflight_dwp::Verdict::Verified => ExitCode::SUCCESS,
        preflight_dwp::Verdict::Unverified => ExitCode::FAILURE,
    })
}

fn resolve(plan: &str) -> anyhow::Result<PlanFolder> {
    let cwd = std::env::current_dir().context("reading the current folder")?;
    Ok(PlanFolder::resolve(plan, &cwd)?)
}

/// The flags of `update` as given, before they are checked to make one action.
#[derive(Default)]
struct Flags {
    plan: Option<String>,
    task: Option<u32>,
    actions: Vec<&'static str>,
    gates: Vec<GateInput>,
    text: std::collections::HashMap<&'static str, String>,
    expected_sha256: Option<String>,
    break_stale_lock: bool,
}

/// Flags that take a value, and whether each names an action.
const VALUE_FLAGS: &[(&str, bool)] = &[
    ("--block-reason", true),
    ("--reopen-reason", true),
    ("--skip-reason", true),
    ("--defer-reason", true),
    ("--investigation", true),
    ("--close-by-investigation", true),
    ("--defer-to", false),
    ("--checkpoint", true),
    ("--needs", false),
    ("--note", false),
    ("--outcome-json", false),
    ("--commit", false),
    ("--agent", false),
    ("--model", false),
];

fn parse_update(args: &[String]) -> anyhow::Result<(String, UpdateRequest, Author)> {
    let flags = read_flags(args)?;
    let plan = flags.plan.clone().ok_or_else(|| anyhow!("update needs a PLAN"))?;
    let action = action(&flags)?;
    let author = Author {
        agent: flags
            .text
            .get("--agent")
            .cloned()
            .unwrap_or_else(|| "preflight dwp update".to_owned()),
        model: flags.text.get("--model").cloned(),
    };
    let request = UpdateRequest {
        action,
        expected_sha256: flags.expected_sha256,
        break_stale_lock: flags.break_stale_lock,
    };
    Ok((plan, request, author))
}

fn read_flags(args: &[String]) -> anyhow::Result<Flags> {
    let mut flags = Flags::default();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let mut value =
            |name: &str| words.next().cloned().ok_or_else(|| anyhow!("{name} needs a value"));
        match word.as_str() {
            "--task" => {
                flags.task = Some(
                    value("--task")?.parse().map_err(|_| anyhow!("--task takes a task number"))?,
                )
            }
            "--start" => flags.actions.push("--start"),
            "--complete" => flags.actions.push("--complete"),
            "--resolve-blocker" => flags.actions.push("--resolve-blocker"),
            "--reconcile" => flags.actions.push("--reconcile"),
            "--gate" => flags.gates.push(pipe_gate(&value("--gate")?)?),
            "--gate-json" => flags.gates.push(json_gate(&value("--gate-json")?)?),
            "--expected-sha256" => flags.expected_sha256 = Some(value("--expected-sha256")?),
            "--break-stale-lock" => flags.break_stale_lock = true,
            flag if flag.starts_with("--") => {
                let &(name, is_action) = VALUE_FLAGS
                    .iter()
                    .find(|(name, _)| *name == flag)
                    .ok_or_else(|| anyhow!("unknown option {flag}"))?;
                let text = value(name)?;
                if flags.text.insert(name, text).is_some() {
                    bail!("{name} given twice");
                }
                if is_action {
                    flags.actions.push(name);
                }
            }
            _ if flags.plan.is_none() => flags.plan = Some(word.clone()),
            extra => bail!("unexpected argument {extra:?}"),
        }
    }
    Ok(flags)
}

/// The one action the flags name, as an update action.
fn action(flags: &Flags) -> anyhow::Result<UpdateAction> {
    let gates_only = flags.actions.is_empty() && !flags.gates.is_empty();
    let name = match (flags.actions.as_slice(), gates_only) {
        ([name], false) => *name,
        ([], true) => "--gate",
        ([], false) => bail!("name an action: --start, --complete, --gate, --block-reason, …"),
        (many, _) => bail!("one action at a time, not {}", many.join(" and ")),
    };
    if !flags.gates.is_empty() && !matches!(name, "--complete" | "--gate") {
        bail!("gate runs go with --complete, or alone");
    }
    if flags.text.contains_key("--defer-to") && name != "--defer-reason" {
        bail!("--defer-to goes with --defer-reason");
    }
    match name {
        "--reconcile" => Ok(UpdateAction::Reconcile),
        "--resolve-blocker" => Ok(UpdateAction::ResolveBlocker { task: flags.task }),
        "--investigation" => {
            let task = flags.task.ok_or_else(|| anyhow!("{name} needs --task N"))?;
            let findings = flags.text.get(name).cloned().unwrap_or_default();
            Ok(UpdateAction::Investigation { task, findings })
        }
        _ => {
            let task = flags.task.ok_or_else(|| anyhow!("{name} needs --task N"))?;
            Ok(UpdateAction::Change(change(name, task, flags)?))
        }
    }
}

/// The transition an action flag names for `task`.
fn change(name: &str, task: u32, flags: &Flags) -> anyhow::Result<Change> {
    let text = |key: &str| flags.text.get(key).cloned().unwrap_or_default();
    let gates = flags.gates.clone();
    Ok(match name {
        "--start" => Change::Start { task },
        "--gate" => Change::RecordGates { task, gates },
        "--complete" => {
            let outcome = flags.text.get("--outcome-json").map(|json| outcome(json)).transpose()?;
            let commit = flags.text.get("--commit").cloned();
            Change::Complete { task, gates, outcome, commit }
        }
        "--block-reason" => Change::Block { task, reason: text(name), needs: text("--needs") },
        "--reopen-reason" => amendment(AmendKind::Reopen, task, text(name), None),
        "--close-by-investigation" => amendment(AmendKind::Investigation, task, text(name), None),
        "--defer-reason" => {
            let target =
                flags.text.get("--defer-to").ok_or_else(|| anyhow!("{name} needs --defer-to M"))?;
            let target = target.parse().map_err(|_| anyhow!("--defer-to takes a task number"))?;
            amendment(AmendKind::Defer, task, text(name), Some(target))
        }
        "--skip-reason" => Change::Skip { task, reason: text(name) },
        _ => Change::Checkpoint { task, step: text("--checkpoint"), note: text("--note") },
    })
}

/// The user's refinement of `task` on the command line, as its amendment record.
fn amendment(kind: AmendKind, task: u32, observed: String, target: Option<u32>) -> Change {
    Change::Amend(AmendmentInput {
        kind,
        tasks: vec![task],
        observed,
        new_title: None,
        new_check: None,
        authority: Authority::User,
        change: None,
        target,
    })
}

/// `COMMAND|EXIT_CODE|EVIDENCE`; text with more pipes needs `--gate-json`.
fn pipe_gate(text: &str) -> anyhow::Result<GateInput> {
    let parts: Vec<&str> = text.split('|').collect();
    let [command, exit_code, evidence] = parts.as_slice() else {
        bail!("--gate takes COMMAND|EXIT_CODE|EVIDENCE with exactly two `|`; use --gate-json when the text has its own");
    };
    let exit_code = exit_code
        .trim()
        .parse()
        .map_err(|_| anyhow!("--gate: {exit_code:?} is not an exit code"))?;
    Ok(GateInput::new(command, exit_code, evidence))
}

fn json_gate(json: &str) -> anyhow::Result<GateInput> {
    serde_json::from_str(json).map_err(|error| {
        anyhow!("--gate-json: {error} (fields: command, exit_code, evidence, passes?, last_run?)")
    })
}

fn outcome(json: &str) -> anyhow::Result<Outcome> {
    serde_json::from_str(json)
        .map_err(|error| anyhow!("--outcome-json: {error} (fields: tried, failed, worked, notes)"))
}
