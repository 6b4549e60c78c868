//! The five `turn_plan` operations and their parsing from a tool call's JSON arguments.
//!
//! Tolerant where a model plausibly slips (an id sent as `"3"`, `"Done"` for `done`, a task
//! sent as a bare string, `null` for an absent optional field) and strict otherwise: an
//! unknown field is refused rather than ignored, so nothing the model said is silently lost.
//! Parsing checks shape only; limits belong to the tracker, which also sees built values.

use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Priority, TrackerError};

/// One `turn_plan` call. Serialises to the wire shape it is parsed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Operation {
    /// Replace the whole list; an empty `tasks` clears it. Ids restart at 1.
    Init {
        tasks: Vec<NewTask>,
    },
    Add {
        tasks: Vec<NewTask>,
    },
    /// Make a task the active one (the previous active one goes back to pending).
    Start {
        id: u32,
    },
    Done {
        id: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        outcome: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        gate: Option<GateRequest>,
    },
    Drop {
        id: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        outcome: Option<String>,
    },
    /// Reword a task; `reason` says why (a plan step's rewording asks the user, DESIGN §12).
    Modify {
        id: u32,
        title: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

/// A `done`'s gate as the model asks for it: the command Preflight is to run. An
/// `exit_code` or `evidence` the model wrote is not kept; `claimed` says it gave some, so
/// the answer can say that Preflight measures them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateRequest {
    pub command: String,
    #[serde(skip)]
    pub claimed: bool,
}

impl GateRequest {
    pub fn new(command: impl Into<String>) -> GateRequest {
        GateRequest { command: command.into(), claimed: false }
    }
}

/// A task as `init` and `add` take it: `{title, phase?, priority?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NewTask {
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub phase: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub priority: Option<Priority>,
}

impl NewTask {
    pub fn new(title: impl Into<String>, phase: Option<&str>) -> Self {
        NewTask { title: title.into(), phase: phase.map(str::to_owned), priority: None }
    }
}

impl Operation {
    /// Parses the arguments as a provider delivers them: a JSON text.
    pub fn from_json(arguments: &str) -> Result<Operation, TrackerError> {
        let value: Value = serde_json::from_str(arguments)
            .map_err(|error| TrackerError::InvalidJson { detail: error.to_string() })?;
        Operation::from_value(&value)
    }

    /// Parses arguments already decoded to JSON.
    pub fn from_value(arguments: &Value) -> Result<Operation, TrackerError> {
        let object = arguments.as_object().ok_or(TrackerError::NotAnObject)?;
        let mut rest = object.clone();
        let op = match rest.remove("op") {
            None | Some(Value::Null) => return Err(TrackerError::MissingOp),
            Some(Value::String(op)) => op.trim().to_lowercase(),
            Some(other) => return Err(TrackerError::UnknownOp { op: other.to_string() }),
        };
        match op.as_str() {
            "init" => args::<TasksArgs>("init", rest).map(|a| Operation::Init { tasks: a.tasks }),
            "add" => args::<TasksArgs>("add", rest).map(|a| Operation::Add { tasks: a.tasks }),
            "start" => args::<StartArgs>("start", rest).map(|a| Operation::Start { id: a.id.0 }),
            "done" => args::<DoneArgs>("done", rest).map(|a| Operation::Done {
                id: a.id.0,
                outcome: a.outcome,
                gate: a.gate.map(GateArgs::into_request),
            }),
            "drop" => args::<DropArgs>("drop", rest)
                .map(|a| Operation::Drop { id: a.id.0, outcome: a.outcome }),
            "modify" => args::<ModifyArgs>("modify", rest).map(|a| Operation::Modify {
                id: a.id.0,
                title: a.title,
                reason: a.reason,
            }),
            _ => Err(TrackerError::UnknownOp { op }),
        }
    }

    /// The op's name as it appears in `"op"`.
    pub fn name(&self) -> &'static str {
        match self {
            Operation::Init { .. } => "init",
            Operation::Add { .. } => "add",
            Operation::Start { .. } => "start",
            Operation::Done { .. } => "done",
            Operation::Drop { .. } => "drop",
            Operation::Modify { .. } => "modify",
        }
    }
}

impl<'de> Deserialize<'de> for Operation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Operation::from_value(&value).map_err(de::Error::custom)
    }
}

/// The arguments of `op` without `"op"` itself, or a refusal showing the right shape.
fn args<T: DeserializeOwned>(
    op: &'static str,
    rest: Map<String, Value>,
) -> Result<T, TrackerError> {
    serde_json::from_value(Value::Object(rest)).map_err(|error| TrackerError::BadArguments {
        op,
        detail: error.to_string(),
        usage: usage(op),
    })
}

/// The call shape shown when an op's arguments are malformed.
pub(crate) fn usage(op: &str) -> &'static str {
    match op {
        "init" => r#"{"op":"init","tasks":[{"title":"…","phase":"…"}]}"#,
        "add" => r#"{"op":"add","tasks":[{"title":"…","phase":"…"}]}"#,
        "start" => r#"{"op":"start","id":2}"#,
        "done" => r#"{"op":"done","id":2,"outcome":"…","gate":{"command":"cargo test"}}"#,
        "modify" => r#"{"op":"modify","id":2,"title":"…","reason":"…"}"#,
        _ => r#"{"op":"drop","id":2,"outcome":"…"}"#,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TasksArgs {
    tasks: Vec<NewTask>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StartArgs {
    id: TaskId,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DoneArgs {
    id: TaskId,
    #[serde(default)]
    outcome: Option<String>,
    #[serde(default)]
    gate: Option<GateArgs>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DropArgs {
    id: TaskId,
    #[serde(default)]
    outcome: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModifyArgs {
    id: TaskId,
    title: String,
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GateArgs {
    command: String,
    /// Accepted and ignored: Preflight runs the command and measures these itself.
    #[serde(default)]
    exit_code: Option<Value>,
    #[serde(default)]
    evidence: Option<Value>,
}

impl GateArgs {
    fn into_request(self) -> GateRequest {
        let claimed = self.exit_code.is_some() || self.evidence.is_some();
        GateRequest { command: self.command, claimed }
    }
}

/// `{title, phase?}`, or a bare string taken as the title.
impl<'de> Deserialize<'de> for NewTask {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Object {
            title: String,
            #[serde(default)]
            phase: Option<String>,
            #[serde(default)]
            priority: Option<Priority>,
        }
        let value = Value::deserialize(deserializer)?;
        if let Value::String(title) = value {
            return Ok(NewTask { title, phase: None, priority: None });
        }
        if !value.is_object() {
            return Err(de::Error::custom(format!(
                "a task is a title or {{\"title\",\"phase\",\"priority\"}}, not {value}"
            )));
        }
        let task: Object = serde_json::from_value(value)
            .map_err(|error| de::Error::custom(format!("a task: {error}")))?;
        Ok(NewTask { title: task.title, phase: task.phase, priority: task.priority })
    }
}

/// A task id: a JSON integer, tolerated as an integral float or a numeric string.
struct TaskId(u32);

impl<'de> Deserialize<'de> for TaskId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(LenientInteger::new("a task id such as 3")).map(TaskId)
    }
}

/// Accepts `3`, `3.0` and `"3"`; the target type `T` decides the range.
struct LenientInteger<T> {
    expected: &'static str,
    target: PhantomData<T>,
}

impl<T> LenientInteger<T> {
    fn new(expected: &'static str) -> Self {
        LenientInteger { expected, target: PhantomData }
    }
}

impl<'de, T: TryFrom<i128>> Visitor<'de> for LenientInteger<T> {
    type Value = T;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str(self.expected)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::try_from(i128::from(v)).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::try_from(i128::from(v)).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        let integral = v.fract() == 0.0 && v.abs() < 1e18;
        let refused = || E::invalid_value(de::Unexpected::Float(v), &self);
        if !integral {
            return Err(refused());
        }
        T::try_from(v as i128).map_err(|_| refused())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        let refused = || E::invalid_value(de::Unexpected::Str(v), &self);
        let number: i128 = v.trim().parse().map_err(|_| refused())?;
        T::try_from(number).map_err(|_| refused())
    }
}
