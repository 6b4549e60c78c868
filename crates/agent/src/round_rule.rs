//! When a long turn ends although the model still asks for tools: progress, not a fixed
//! count. A turn goes on while its rounds change the task list or the workspace, or make a
//! call the turn has not made before (a new file read, a new search: research and review
//! are work too); it ends on too many rounds without progress (calls made again, or two
//! calls in turn, are none), on the same calls asked for again and again (a loop), or on a
//! high hard cap. Pure: the loop (`turn_loop.rs`) tells it what each round did.

use std::collections::HashSet;

use preflight_protocol::chat::ToolCall;
use serde_json::Value;

/// The limits of one turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundRule {
    /// Tool rounds a turn may run at most, progress or not.
    pub max_rounds: u32,
    /// Rounds in a row without progress that end the turn; `None`: never (the planner,
    /// which changes nothing by design).
    pub no_progress_rounds: Option<u32>,
    /// The same calls asked for this many rounds in a row are a loop, and the last of them
    /// is not run; `None`: no loop check.
    pub repeats: Option<u32>,
}

/// The executor's defaults (`[executor]` in config.toml).
pub const DEFAULT_MAX_ROUNDS: u32 = 200;
pub const DEFAULT_NO_PROGRESS_ROUNDS: u32 = 12;
pub const LOOP_REPEATS: u32 = 3;

impl RoundRule {
    /// Only a cap of `max_rounds` (the planner's 12).
    pub fn fixed(max_rounds: u32) -> RoundRule {
        RoundRule { max_rounds, no_progress_rounds: None, repeats: None }
    }

    /// The executor's rule: the cap, the progress window, and the loop check.
    pub fn progress(max_rounds: u32, no_progress_rounds: u32) -> RoundRule {
        RoundRule {
            max_rounds,
            no_progress_rounds: Some(no_progress_rounds),
            repeats: Some(LOOP_REPEATS),
        }
    }
}

/// Why the rule ended a turn whose model still asked for tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Halt {
    /// The hard cap: the round asked for is not run.
    RoundCap,
    /// The last rounds changed nothing; the round that made the count was run.
    NoProgress,
    /// The round asked for repeats the previous ones exactly and is not run; the tool's
    /// name, to say which call looped.
    Loop(String),
}

/// The rule's count over one turn.
#[derive(Debug, Clone)]
pub struct RoundWatch {
    rule: RoundRule,
    rounds: u32,
    without_progress: u32,
    last_calls: Vec<(String, Value)>,
    same_in_a_row: u32,
    progressed: bool,
    /// Every call the turn has made, as name and canonical arguments.
    seen: HashSet<String>,
    /// The calls of the round that runs now, in its order.
    running: Vec<String>,
}

impl RoundWatch {
    pub fn new(rule: RoundRule) -> RoundWatch {
        RoundWatch {
            rule,
            rounds: 0,
            without_progress: 0,
            last_calls: Vec::new(),
            same_in_a_row: 0,
            progressed: false,
            seen: HashSet::new(),
            running: Vec::new(),
        }
    }

    /// Before a round's calls run: `Some` when the round is refused. A round that runs is
    /// counted.
    pub fn before_round(&mut self, calls: &[ToolCall]) -> Option<Halt> {
        if self.rounds >= self.rule.max_rounds {
            return Some(Halt::RoundCap);
        }
        let signature = signature(calls);
        let keys: Vec<String> = signature.iter().map(|(name, args)| call_key(name, args)).collect();
        self.same_in_a_row = if signature == self.last_calls { self.same_in_a_row + 1 } else { 1 };
        self.last_calls = signature;
        if let Some(limit) = self.rule.repeats {
            if self.same_in_a_row >= limit {
                let name = calls.first().map(|call| call.name.clone()).unwrap_or_default();
                return Some(Halt::Loop(name));
            }
        }
        self.rounds += 1;
        self.running = keys;
        None
    }

    /// After a round ran: whether it changed the task list or the workspace, and which of
    /// its calls answered without an error (in the round's order). `Some` when the turn
    /// ends here for want of progress: in the window's rounds neither a change nor a new
    /// call that answered (a call that failed is no news, and is not new when made again).
    pub fn after_round(&mut self, progressed: bool, answered: &[bool]) -> Option<Halt> {
        let mut new_call = false;
        for (key, ok) in std::mem::take(&mut self.running).into_iter().zip(answered) {
            // Every call is written down, none skipped: each is old from now on.
            new_call |= self.seen.insert(key) && *ok;
        }
        if progressed {
            self.without_progress = 0;
            self.progressed = true;
            return None;
        }
        if new_call {
            self.without_progress = 0;
            return None;
        }
        self.without_progress += 1;
        match self.rule.no_progress_rounds {
            Some(limit) if self.without_progress >= limit => Some(Halt::NoProgress),
            _ => None,
        }
    }

    /// Rounds run so far.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// Whether any round of the turn made progress.
    pub fn progressed(&self) -> bool {
        self.progressed
    }
}

/// A round's calls as names and parsed arguments: the same call written with its keys in
/// another order, or other spacing, is the same call.
fn signature(calls: &[ToolCall]) -> Vec<(String, Value)> {
    calls
        .iter()
        .map(|call| {
            let arguments = serde_json::from_str(&call.arguments)
                .unwrap_or_else(|_| Value::String(call.arguments.clone()));
            (call.name.clone(), arguments)
        })
        .collect()
}

/// A call as the set of calls made knows it: its name and its arguments with every object's
/// keys sorted, so that spelling the same call another way makes nothing new.
fn call_key(name: &str, arguments: &Value) -> String {
    fn canonical(value: &Value, out: &mut String) {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for key in keys {
                    out.push_str(&Value::String(key.clone()).to_string());
                    out.push(':');
                    canonical(&map[key], out);
                    out.push(',');
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for item in items {
                    canonical(item, out);
                    out.push(',');
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut key = format!("{name}\u{0}");
    canonical(arguments, &mut key);
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, arguments: &str) -> Vec<ToolCall> {
        vec![ToolCall { id: "c".into(), name: name.into(), arguments: arguments.into() }]
    }

    #[test]
    fn productive_rounds_go_on_past_any_small_cap_until_the_hard_one() {
        let mut watch = RoundWatch::new(RoundRule::progress(200, 12));
        for round in 0..200 {
            let calls = call("write", &format!(r#"{{"n":{round}}}"#));
            assert_eq!(watch.before_round(&calls), None, "round {round}");
            assert_eq!(watch.after_round(true, &[true]), None);
        }
        assert_eq!(watch.before_round(&call("write", "{}")), Some(Halt::RoundCap));
        assert_eq!(watch.rounds(), 200);
        assert!(watch.progressed());
    }

    /// A read of `path`.
    fn read(path: &str) -> Vec<ToolCall> {
        call("read", &format!(r#"{{"p":"{path}"}}"#))
    }

    #[test]
    fn rounds_without_progress_end_the_turn_after_the_window() {
        // Two files read in turn, over and over: only the first two reads are new.
        let mut watch = RoundWatch::new(RoundRule::progress(200, 12));
        for round in 1..=14 {
            assert_eq!(watch.before_round(&read(["a", "b"][round % 2])), None, "round {round}");
            let halt = watch.after_round(false, &[true]);
            assert_eq!(halt.is_some(), round == 14, "round {round}: 2 new reads, then 12 old");
        }
        let mut watch = RoundWatch::new(RoundRule::progress(200, 3));
        let outcomes: Vec<bool> = [false, false, true, false, false, false]
            .iter()
            .enumerate()
            .map(|(i, &made)| {
                watch.before_round(&read(["a", "b"][i % 2]));
                watch.after_round(made, &[true]).is_some()
            })
            .collect();
        assert_eq!(outcomes, [false, false, false, false, false, true], "progress resets");
    }

    #[test]
    fn a_review_reading_new_files_goes_on_and_reading_them_again_does_not() {
        let mut watch = RoundWatch::new(RoundRule::progress(200, 12));
        for n in 0..30 {
            assert_eq!(watch.before_round(&read(&format!("src/{n}.rs"))), None);
            assert_eq!(
                watch.after_round(false, &[true]),
                None,
                "file {n} is new: research is work"
            );
        }
        assert!(!watch.progressed(), "reading changes nothing: no auto-continue on it alone");
        let mut halted = None;
        for n in 0..30 {
            watch.before_round(&read(&format!("src/{}.rs", (n * 7) % 30)));
            if watch.after_round(false, &[true]).is_some() {
                halted = Some(n + 1);
                break;
            }
        }
        assert_eq!(halted, Some(12), "the same files again are no progress");
        // A spelling of a call made already (other key order, spacing) is not new either;
        // a round holding one new call among old ones is.
        let mut watch = RoundWatch::new(RoundRule::progress(200, 2));
        watch.before_round(&call("grep", r#"{"q":"x","dir":"src"}"#));
        watch.after_round(false, &[true]);
        watch.before_round(&call("grep", r#"{ "dir": "src", "q": "x" }"#));
        assert_eq!(watch.after_round(false, &[true]), None);
        let mut mixed = call("grep", r#"{"q":"x","dir":"src"}"#);
        mixed.extend(read("new.rs"));
        watch.before_round(&mixed);
        assert_eq!(watch.after_round(false, &[true, true]), None, "one new call in the round");
        watch.before_round(&read("new.rs"));
        watch.after_round(false, &[true]);
        watch.before_round(&call("grep", r#"{"dir":"src","q":"x"}"#));
        assert_eq!(watch.after_round(false, &[true]), Some(Halt::NoProgress));
        // New calls that fail (a file that is not there, a tool that is not offered) are no
        // progress: the window closes on them as on old ones.
        let mut watch = RoundWatch::new(RoundRule::progress(200, 3));
        let failed: Vec<bool> = (0..3)
            .map(|n| {
                watch.before_round(&read(&format!("missing/{n}.rs")));
                watch.after_round(false, &[false]).is_some()
            })
            .collect();
        assert_eq!(failed, [false, false, true]);
    }

    #[test]
    fn the_same_call_a_third_time_in_a_row_is_a_loop_and_is_not_run() {
        let mut watch = RoundWatch::new(RoundRule::progress(200, 12));
        let same = call("read_file", r#"{"path":"a","lines":3}"#);
        let reordered = call("read_file", r#"{ "lines": 3, "path": "a" }"#);
        assert_eq!(watch.before_round(&same), None);
        watch.after_round(true, &[true]);
        assert_eq!(watch.before_round(&reordered), None);
        watch.after_round(true, &[true]);
        assert_eq!(watch.before_round(&same), Some(Halt::Loop("read_file".into())));
        assert_eq!(watch.rounds(), 2, "the looping round is not counted as run");
    }

    #[test]
    fn a_different_call_between_repeats_breaks_the_loop() {
        let mut watch = RoundWatch::new(RoundRule::progress(200, 12));
        let rounds = ["a", "a", "b", "a", "a", "b"];
        for name in rounds {
            assert_eq!(watch.before_round(&call(name, "{}")), None, "{name}");
            watch.after_round(false, &[true]);
        }
    }

    #[test]
    fn a_fixed_rule_knows_no_progress_and_no_loops() {
        let mut watch = RoundWatch::new(RoundRule::fixed(12));
        for _ in 0..12 {
            assert_eq!(watch.before_round(&call("read", "{}")), None);
            assert_eq!(watch.after_round(false, &[true]), None);
        }
        assert_eq!(watch.before_round(&call("read", "{}")), Some(Halt::RoundCap));
    }
}
