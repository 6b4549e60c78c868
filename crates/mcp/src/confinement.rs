//! Whether the code sandbox can confine runs on this machine, asked of `preflight-sandbox
//! --probe` before a plan is approved, so that running a model's code unconfined is a choice
//! the user makes on the plan card (DESIGN §11), never a fallback found out afterwards; and
//! what a code-sandbox server says of its own confinement when it starts, which the host
//! checks against that choice (a server's own probe may find what the engine's did not).
//!
//! A leaf: it names nothing else of the engine.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `[sandbox] confinement`: how runs of the code sandbox are confined.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ConfinementMode {
    /// Bubblewrap where it works; where it does not, the user must allow unconfined runs on
    /// each plan before approving it.
    #[default]
    Auto,
    /// Bubblewrap or no code sandbox at all (the server refuses to start without it).
    Bubblewrap,
    /// Unconfined on purpose, chosen by the user in the configuration file.
    Off,
}

impl ConfinementMode {
    /// The spelling of the configuration file and of the sandbox's `--confinement`.
    pub fn parse(word: &str) -> Option<ConfinementMode> {
        match word {
            "auto" => Some(ConfinementMode::Auto),
            "bubblewrap" => Some(ConfinementMode::Bubblewrap),
            "off" => Some(ConfinementMode::Off),
            _ => None,
        }
    }

    /// The value of `preflight-sandbox --confinement`.
    pub fn sandbox_argument(self) -> &'static str {
        match self {
            ConfinementMode::Auto => "auto",
            ConfinementMode::Bubblewrap => "bubblewrap",
            ConfinementMode::Off => "none",
        }
    }
}

/// What the probe found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    Confined,
    /// Runs would not be confined, with bubblewrap's (or the probe's) own words on why.
    Unconfined {
        reason: String,
    },
}

/// What the plan card says beside its sandbox line when runs would not be confined.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct UnconfinedNotice {
    /// Why: bubblewrap's own words, or that the configuration turned confinement off.
    pub reason: String,
    /// Whether approving needs the user's explicit "run unconfined" (`auto` mode); false when
    /// the user chose `[sandbox] confinement = "off"` themselves.
    pub needs_consent: bool,
}

impl UnconfinedNotice {
    /// The notice for `mode` and what the probe found, or `None` when runs are confined (or
    /// cannot run at all: `bubblewrap` mode refuses to start the sandbox unconfined).
    pub fn of(mode: ConfinementMode, probe: &Probe) -> Option<UnconfinedNotice> {
        match (mode, probe) {
            (ConfinementMode::Off, _) => Some(UnconfinedNotice {
                reason: "[sandbox] confinement = \"off\" in the configuration".into(),
                needs_consent: false,
            }),
            (ConfinementMode::Auto, Probe::Unconfined { reason }) => {
                Some(UnconfinedNotice { reason: reason.clone(), needs_consent: true })
            }
            _ => None,
        }
    }
}

/// Where a code-sandbox server says whether it confines runs: a key of its `initialize`
/// result's `capabilities.experimental`, `{"confined": bool, "reason": string | null}`.
pub const REPORT_KEY: &str = "preflight/confinement";

/// What a code-sandbox server said of its confinement when it started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reported {
    Confined,
    /// It runs commands unconfined, with its own words on why.
    Unconfined {
        reason: String,
    },
    /// It said nothing readable ([`REPORT_KEY`] missing or malformed): it may be unconfined.
    Unsaid,
}

impl Reported {
    /// Read strictly from the object under [`REPORT_KEY`] (`None`: the key is missing).
    pub fn read(report: Option<&serde_json::Map<String, serde_json::Value>>) -> Reported {
        let Some(report) = report else { return Reported::Unsaid };
        match report.get("confined").and_then(serde_json::Value::as_bool) {
            Some(true) => Reported::Confined,
            Some(false) => Reported::Unconfined {
                reason: report
                    .get("reason")
                    .and_then(|r| r.as_str())
                    .unwrap_or("no reason given")
                    .to_owned(),
            },
            None => Reported::Unsaid,
        }
    }

    /// Why runs of a server that said this would be unconfined, in words; `None` when
    /// it said they are confined.
    pub fn unconfined_because(&self) -> Option<String> {
        match self {
            Reported::Confined => None,
            Reported::Unconfined { reason } => Some(format!("it runs unconfined: {reason}")),
            Reported::Unsaid => Some("it does not say that it confines runs".to_owned()),
        }
    }
}

/// The longest the probe may take; bubblewrap answers in milliseconds.
const PROBE_LIMIT: Duration = Duration::from_secs(10);

/// Asks `program --probe` (with the environment the server will get) whether runs can be
/// confined. A probe that cannot run or answers nonsense counts as unconfined, with why.
pub fn probe(program: &Path, env: &[(String, String)]) -> Probe {
    let mut command = Command::new(program);
    command.arg("--probe").envs(env.iter().map(|(k, v)| (k, v)));
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
    let child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return unconfined(format!("the sandbox {} would not start: {e}", program.display()))
        }
    };
    match wait_with_limit(child) {
        Ok(stdout) => read_report(&stdout),
        Err(reason) => unconfined(reason),
    }
}

fn wait_with_limit(mut child: std::process::Child) -> Result<Vec<u8>, String> {
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() > PROBE_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("the sandbox's probe gave no answer in {PROBE_LIMIT:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("the sandbox's probe could not be waited for: {e}")),
        }
    }
    let output = child.wait_with_output().map_err(|e| format!("reading the probe: {e}"))?;
    Ok(output.stdout)
}

/// `{"confined": true}` or `{"confined": false, "reason": "…"}`.
fn read_report(stdout: &[u8]) -> Probe {
    let report: serde_json::Value = match serde_json::from_slice(stdout) {
        Ok(report) => report,
        Err(_) => return unconfined("the sandbox's probe gave no readable answer".into()),
    };
    match (report["confined"].as_bool(), report["reason"].as_str()) {
        (Some(true), _) => Probe::Confined,
        (Some(false), Some(reason)) => unconfined(reason.to_owned()),
        _ => unconfined("the sandbox's probe gave no readable answer".into()),
    }
}

fn unconfined(reason: String) -> Probe {
    Probe::Unconfined { reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_is_read_strictly() {
        assert_eq!(read_report(br#"{"confined":true}"#), Probe::Confined);
        assert_eq!(
            read_report(br#"{"confined":false,"reason":"no userns"}"#),
            Probe::Unconfined { reason: "no userns".into() }
        );
        for nonsense in [&b""[..], b"yes", br#"{"confined":"maybe"}"#, br#"{"confined":false}"#] {
            assert!(matches!(read_report(nonsense), Probe::Unconfined { .. }));
        }
    }

    #[test]
    fn modes_have_one_spelling_each() {
        for (word, mode, argument) in [
            ("auto", ConfinementMode::Auto, "auto"),
            ("bubblewrap", ConfinementMode::Bubblewrap, "bubblewrap"),
            ("off", ConfinementMode::Off, "none"),
        ] {
            assert_eq!(ConfinementMode::parse(word), Some(mode));
            assert_eq!(mode.sandbox_argument(), argument);
        }
        assert_eq!(ConfinementMode::parse("none"), None);
    }

    #[test]
    fn consent_is_asked_only_where_auto_met_an_unconfined_machine() {
        let down = Probe::Unconfined { reason: "no userns".into() };
        let notice = UnconfinedNotice::of(ConfinementMode::Auto, &down).unwrap();
        assert!(notice.needs_consent && notice.reason == "no userns");
        assert_eq!(UnconfinedNotice::of(ConfinementMode::Auto, &Probe::Confined), None);
        assert_eq!(UnconfinedNotice::of(ConfinementMode::Bubblewrap, &down), None);
        let chosen = UnconfinedNotice::of(ConfinementMode::Off, &Probe::Confined).unwrap();
        assert!(!chosen.needs_consent);
    }

    #[test]
    fn a_servers_report_is_read_strictly_and_silence_is_not_confinement() {
        let object = |value: serde_json::Value| value.as_object().cloned().unwrap();
        let table = [
            (
                Some(object(serde_json::json!({"confined": true, "reason": null}))),
                Reported::Confined,
            ),
            (
                Some(object(serde_json::json!({"confined": false, "reason": "no userns"}))),
                Reported::Unconfined { reason: "no userns".into() },
            ),
            (
                Some(object(serde_json::json!({"confined": false}))),
                Reported::Unconfined { reason: "no reason given".into() },
            ),
            (Some(object(serde_json::json!({"confined": "yes"}))), Reported::Unsaid),
            (Some(object(serde_json::json!({}))), Reported::Unsaid),
            (None, Reported::Unsaid),
        ];
        for (report, want) in table {
            assert_eq!(Reported::read(report.as_ref()), want, "{report:?}");
        }
        assert_eq!(Reported::Confined.unconfined_because(), None);
        assert!(Reported::Unsaid.unconfined_because().unwrap().contains("does not say"));
    }

    #[test]
    fn a_program_that_does_not_start_is_unconfined_with_why() {
        let probe = probe(Path::new("/nonexistent/preflight-sandbox"), &[]);
        let Probe::Unconfined { reason } = probe else { panic!("{probe:?}") };
        assert!(reason.contains("would not start"), "{reason}");
    }
}
