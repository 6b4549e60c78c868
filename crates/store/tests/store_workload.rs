//! The lifecycle workload run in-process, with the checker after every step: every legal
//! state passes the checker, so the crash test cannot fail on a false alarm.

/// A module named `store`, so that `cargo test -p preflight-store store` selects these tests.
mod store {
    use std::collections::BTreeMap;

    use preflight_testkit::store::check::check_store;
    use preflight_testkit::store::temp_store;
    use preflight_testkit::store::workload::{self, Rng};

    #[test]
    fn every_state_the_lifecycle_reaches_passes_the_checker() {
        for seed in [1, 2, 3] {
            let (_dir, store) = temp_store();
            let mut rng = Rng::new(seed);
            let mut seen = BTreeMap::<&str, u32>::new();
            for step in 0..400 {
                // Refused steps (`refused_*`) check themselves that they changed nothing.
                let report = workload::step(&store, &mut rng).unwrap();
                *seen.entry(report.name).or_default() += 1;
                let violations = check_store(&store);
                assert!(
                    violations.is_empty(),
                    "seed {seed} step {step} ({}): {violations:#?}",
                    report.name
                );
            }
            for name in
                ["record_answer", "record_plan_card", "approve_plan", "edit_plan", "reject_plan"]
            {
                assert!(seen.contains_key(name), "seed {seed} never ran {name}: {seen:?}");
            }
        }
    }
}
