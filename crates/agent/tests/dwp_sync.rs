//! The protocol points the engine's tracker drives through a real plan folder: `turn_plan`
//! lists (done with a gate, drop, add, a replacing init) converted and synced, written in
//! seed 002's shape, with PROGRESS.md and README.md following every point.

/// A module named `dwp`, so that `cargo test -p preflight-agent dwp` selects these tests.
mod dwp {
    use std::path::Path;
    use std::time::Duration;

    use preflight_agent::{gate_input, plan_input, tracked_tasks};
    use preflight_dwp::{
        verify_plan, Author, DropSettled, DwpError, LockOptions, PlanFolder, PlanFolderWriter,
        TrackedTask, DROP_NEEDS,
    };
    use preflight_protocol::planner::{
        build_plan_document, Approval, Plan, PlanDocument, PlanFacts, PlanStep, SandboxPolicy,
        SandboxSpec,
    };
    use preflight_protocol::tasks::{Gate, NewTask, Operation, TaskList};
    use serde_json::{json, Value};
    use tempfile::TempDir;

    const CHAT: &str = "chat-7f3a";
    const STATE_FILE: &str = "state.json";
    const MANIFEST_FILE: &str = "manifest.json";
    const STEPS: [&str; 3] =
        ["Create webhook endpoint", "Add retry queue", "Document the webhooks"];

    /// A timestamp `minute` minutes into the test day.
    fn at(minute: u32) -> String {
        format!("2026-06-09T{:02}:{:02}:00Z", 14 + minute / 60, minute % 60)
    }

    /// A git workspace (a `.git` folder is what is looked for).
    fn workspace() -> TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        dir
    }

    fn plan_document(title: &str, steps: &[&str], approval: Approval) -> PlanDocument {
        let plan = Plan {
            title: title.to_owned(),
            aim: "Accept signed webhooks and retry failed deliveries.".to_owned(),
            steps: steps
                .iter()
                .map(|action| PlanStep {
                    action: (*action).to_owned(),
                    expected: format!("{action} works"),
                    ..PlanStep::default()
                })
                .collect(),
            libraries: vec![],
            sandbox: SandboxSpec { policy: SandboxPolicy::Create, notes: String::new() },
            ..Plan::default()
        };
        let facts = PlanFacts {
            workspace: None,
            sandbox_exists: false,
            context7_available: false,
            files: vec![],
            created_at: at(0),
            revision: 1,
            approval,
        };
        build_plan_document(&plan, "", &facts)
    }

    fn plan_files() -> PlanFolderWriter {
        PlanFolderWriter::new(Author::preflight(Some("test-model"))).with_lock(LockOptions {
            wait: Duration::from_secs(30),
            stale_after: Duration::from_secs(120),
        })
    }

    fn tracked(list: &TaskList) -> Vec<TrackedTask> {
        tracked_tasks(list)
    }

    /// An approved three-task plan materialised in `workspace`, with the tracker's list.
    fn materialised(workspace: &Path) -> (PlanFolder, TaskList) {
        let document = plan_document("Add payment webhook handling", &STEPS, Approval::Approved);
        let tasks = TaskList::from_steps(STEPS).unwrap();
        let dir = plan_files()
            .materialize(workspace, &plan_input(&document), &tracked(&tasks), CHAT, &at(0))
            .unwrap();
        (dir, tasks)
    }

    /// A gate run as Preflight records it, not yet stamped (the sync stamps it).
    fn run(command: &str, exit_code: i64, evidence: &str) -> Gate {
        Gate {
            command: command.to_owned(),
            exit_code,
            passes: exit_code == 0,
            evidence: evidence.to_owned(),
            duration_ms: 30,
            last_run: String::new(),
            timed_out: false,
        }
    }

    fn passing(command: &str) -> Gate {
        run(command, 0, "42 passed, 0 failed")
    }

    /// `done` of task `id` with the gate Preflight measured.
    fn done(list: &TaskList, id: u32, outcome: Option<&str>, gate: Gate) -> TaskList {
        let op = Operation::Done { id, outcome: outcome.map(str::to_owned), gate: None };
        list.apply_measured(&op, Some(&gate)).unwrap()
    }

    fn read_json(path: &Path) -> Value {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        serde_json::from_str(&text)
            .unwrap_or_else(|error| panic!("{} is not JSON: {error}\n{text}", path.display()))
    }

    /// The keys of a JSON object, in file order.
    fn keys(value: &Value) -> Vec<&str> {
        value.as_object().expect("an object").keys().map(String::as_str).collect()
    }

    #[test]
    fn protocol_points_write_gates_outcomes_and_blockers_in_the_seeds_shape() {
        let ws = workspace();
        let (dir, tasks) = materialised(ws.path());
        let files = plan_files();
        let done = done(&tasks, 1, Some("verify the signature first"), passing("pnpm run test"));
        files.sync(&dir, &tracked(&done), &at(10)).unwrap();
        let dropped = done
            .apply(&Operation::Drop {
                id: 2,
                outcome: Some("the queue needs a Redis licence".into()),
            })
            .unwrap();
        // The engine's own drops are approved before they reach the files (DESIGN §12); a
        // drop nobody approved yet (another writer's) waits as a blocker in the seed's shape.
        let mut unapproved = tracked(&dropped);
        unapproved[1].drop_settled = DropSettled::No;
        files.sync(&dir, &unapproved, &at(20)).unwrap();
        files.checkpoint(&dir, "instructions:2", "half the pages written", &at(25)).unwrap();

        let state = read_json(&dir.file(STATE_FILE));
        let first = &state["tasks"][0];
        assert_eq!(first["status"], "completed");
        assert_eq!(first["completed_at"], at(10), "a completed entry MUST carry completed_at");
        let gate = &first["gates"][0];
        assert_eq!(keys(gate), vec!["command", "passes", "exit_code", "last_run", "evidence"]);
        assert_eq!(gate["command"], "pnpm run test");
        assert_eq!((gate["passes"].clone(), gate["exit_code"].clone()), (json!(true), json!(0)));
        assert_eq!(gate["last_run"], at(10), "last_run is set by the engine");
        assert_eq!(gate["evidence"], "42 passed, 0 failed");
        let outcome = json!({"tried": ["`pnpm run test`"], "failed": [], "worked": "verify the signature first"});
        assert_eq!(first["outcome"], outcome, "tried: the check Preflight ran (seed 002)");

        assert_eq!(
            state["tasks"][1]["status"], "blocked",
            "dropped → blocked until the user confirms"
        );
        assert_eq!(
            state["blocked"],
            json!({"task": 2, "reason": "the queue needs a Redis licence", "since": at(20), "needs": DROP_NEEDS})
        );
        assert_eq!(
            state["checkpoint"],
            json!({"task": 3, "step": "instructions:2", "at": at(25), "note": "half the pages written"})
        );
        assert_eq!(
            (state["status"].as_str(), state["completed_count"].as_u64()),
            (Some("blocked"), Some(1))
        );

        files.confirm_drop(&dir, 2, "Redis is out", &at(30)).unwrap();
        let state = read_json(&dir.file(STATE_FILE));
        assert_eq!(
            (state["tasks"][1]["status"].as_str(), &state["blocked"]),
            (Some("skipped"), &Value::Null)
        );
        let report = verify_plan(&dir, LockOptions::default()).unwrap();
        assert!(report.findings.is_empty(), "{:#?}", report.findings);
    }

    #[test]
    fn progress_and_readme_follow_every_protocol_point() {
        let ws = workspace();
        let (dir, tasks) = materialised(ws.path());
        let files = plan_files();
        let failing = run("pnpm run test", 1, "2 failed");
        files.record_gate(&dir, 1, gate_input(&failing), &at(5)).unwrap();
        let done = done(&tasks, 1, None, passing("pnpm run test"));
        files.sync(&dir, &tracked(&done), &at(10)).unwrap();
        let progress = std::fs::read_to_string(dir.file("PROGRESS.md")).unwrap();
        let entries: Vec<&str> = progress.lines().filter(|line| line.starts_with("- ")).collect();
        assert_eq!(
            entries,
            vec![
                format!("- {} — Plan materialised: 3 tasks, approval approved.", at(0)),
                format!("- {} — Task 1 started: Create webhook endpoint.", at(0)),
                format!("- {} — Task 1 gate `pnpm run test`: fails (exit 1) — 2 failed.", at(5)),
                format!(
                    "- {} — Task 1 gate `pnpm run test`: passes (exit 0) — 42 passed, 0 failed.",
                    at(10)
                ),
                format!("- {} — Task 1 completed: Create webhook endpoint.", at(10)),
                format!("- {} — Task 2 started: Add retry queue.", at(10)),
            ]
        );
        let readme = std::fs::read_to_string(dir.file("README.md")).unwrap();
        assert!(readme.contains("**Approval:** approved"), "{readme}");
        assert!(readme.contains("- [x] **1.** Create webhook endpoint {#task-1}"), "{readme}");
        assert!(
            readme.contains("- [ ] **2.** Add retry queue {#task-2}\n  - Status: in_progress"),
            "{readme}"
        );
    }

    #[test]
    fn an_added_task_and_a_replaced_list() {
        let ws = workspace();
        let (dir, tasks) = materialised(ws.path());
        let added = tasks
            .apply(&Operation::Add { tasks: vec![NewTask::new("Load test", Some("verify"))] })
            .unwrap();
        plan_files().sync(&dir, &tracked(&added), &at(5)).unwrap();
        let state = read_json(&dir.file(STATE_FILE));
        assert_eq!(state["task_count"], 4);
        assert_eq!(state["tasks"][3]["phase"], "verify", "additive field");
        assert_eq!(
            read_json(&dir.file(MANIFEST_FILE))["task_count"],
            3,
            "the manifest keeps its creation provenance"
        );
        let replaced = added
            .apply(&Operation::Init { tasks: vec![NewTask::new("something else", None)] })
            .unwrap();
        let before = std::fs::read(dir.file(STATE_FILE)).unwrap();
        let error = plan_files().sync(&dir, &tracked(&replaced), &at(6)).unwrap_err();
        assert!(matches!(error, DwpError::TaskListReplaced { .. }), "{error}");
        assert_eq!(std::fs::read(dir.file(STATE_FILE)).unwrap(), before);
        assert_eq!(
            plan_files().sync(&dir, &tracked(&TaskList::empty()), &at(7)).unwrap().points.len(),
            0,
            "a closed list changes nothing"
        );
    }

    /// The plan document's judgement and each step's files, dependencies and check reach
    /// README.md and the task files through `plan_input`.
    #[test]
    fn every_optional_field_of_the_plan_reaches_the_folder() {
        use preflight_protocol::planner::{Complexity, PlanJudgement, PlannedFiles};
        let ws = workspace();
        let mut document =
            plan_document("Add payment webhook handling", &STEPS, Approval::Approved);
        document.judgement = PlanJudgement {
            approach: Some("Verify the signature before parsing.".to_owned()),
            alternatives: vec!["A hosted webhook relay".to_owned()],
            risks: vec!["Clock skew rejects valid signatures".to_owned()],
            planned_files: PlannedFiles {
                create: vec!["src/webhook.rs".to_owned()],
                modify: vec!["src/main.rs".to_owned()],
            },
            tests: vec!["a forged signature is refused".to_owned()],
            complexity: Some(Complexity::Medium),
        };
        document.steps[0].files = vec!["src/webhook.rs".to_owned()];
        document.steps[0].check = Some("cargo test webhook".to_owned());
        document.steps[1].depends_on = vec![1];
        let tasks = TaskList::from_steps(STEPS).unwrap();
        let dir = plan_files()
            .materialize(ws.path(), &plan_input(&document), &tracked(&tasks), CHAT, &at(0))
            .unwrap();
        let readme = std::fs::read_to_string(dir.file("README.md")).unwrap();
        for line in [
            "- **Approach:** Verify the signature before parsing.\n",
            "- **Complexity:** medium\n",
            "- **Alternatives weighed:**\n  - A hosted webhook relay\n",
            "- **Risks:**\n  - Clock skew rejects valid signatures\n",
            "- **Files to create:** `src/webhook.rs`\n- **Files to modify:** `src/main.rs`\n",
            "- **Tests to write:**\n  - a forged signature is refused\n",
            "   Files: `src/webhook.rs`\n   Check: `cargo test webhook`\n",
            "   Depends on: step 1\n",
        ] {
            assert!(readme.contains(line), "{line:?} in\n{readme}");
        }
        let first = std::fs::read_to_string(dir.file("1.task_create_webhook_endpoint.md")).unwrap();
        assert!(first.contains("- Files: `src/webhook.rs`\n- Check: `cargo test webhook`\n"));
        let second = std::fs::read_to_string(dir.file("2.task_add_retry_queue.md")).unwrap();
        assert!(second.contains("- Depends on: step 1\n"), "{second}");
        let report = verify_plan(&dir, LockOptions::default()).unwrap();
        assert!(report.findings.is_empty(), "{:?}", report.findings);
    }
}
