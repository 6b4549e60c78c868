//! Parsing `turn_plan` arguments: each input beside what it parses to or why it is refused.

use expect_test::{expect, Expect};

use crate::tasks::Operation;

/// One line per input: `input => parsed op (as Debug)` or `input => error: message`.
fn check(inputs: &[&str], expected: Expect) {
    let mut log = String::new();
    for input in inputs {
        let shown = match Operation::from_json(input) {
            Ok(op) => format!("{op:?}"),
            Err(refusal) => format!("error: {refusal}"),
        };
        log.push_str(&format!("{input}\n  => {shown}\n"));
    }
    expected.assert_eq(&log);
}

#[test]
fn the_five_ops() {
    check(
        &[
            r#"{"op":"init","tasks":[{"title":"find call sites","phase":"dig"},{"title":"fix"}]}"#,
            r#"{"op":"init","tasks":[]}"#,
            r#"{"op":"add","tasks":[{"title":"update the book","phase":"build"}]}"#,
            r#"{"op":"start","id":2}"#,
            r#"{"op":"done","id":1,"outcome":"all in agent.rs"}"#,
            r#"{"op":"done","id":1,"gate":{"command":"cargo test","exit_code":0,"evidence":"41 passed"}}"#,
            r#"{"op":"drop","id":3,"outcome":"not needed"}"#,
            r#"{"op":"drop","id":3}"#,
        ],
        expect![[r#"
            {"op":"init","tasks":[{"title":"find call sites","phase":"dig"},{"title":"fix"}]}
              => Init { tasks: [NewTask { title: "find call sites", phase: Some("dig"), priority: None }, NewTask { title: "fix", phase: None, priority: None }] }
            {"op":"init","tasks":[]}
              => Init { tasks: [] }
            {"op":"add","tasks":[{"title":"update the book","phase":"build"}]}
              => Add { tasks: [NewTask { title: "update the book", phase: Some("build"), priority: None }] }
            {"op":"start","id":2}
              => Start { id: 2 }
            {"op":"done","id":1,"outcome":"all in agent.rs"}
              => Done { id: 1, outcome: Some("all in agent.rs"), gate: None }
            {"op":"done","id":1,"gate":{"command":"cargo test","exit_code":0,"evidence":"41 passed"}}
              => Done { id: 1, outcome: None, gate: Some(GateRequest { command: "cargo test", claimed: true }) }
            {"op":"drop","id":3,"outcome":"not needed"}
              => Drop { id: 3, outcome: Some("not needed") }
            {"op":"drop","id":3}
              => Drop { id: 3, outcome: None }
        "#]],
    );
}

#[test]
fn tolerated_slips() {
    check(
        &[
            r#"{"op":"start","id":"3"}"#,
            r#"{"op":"start","id":" 3 "}"#,
            r#"{"op":"start","id":3.0}"#,
            r#"{"op":" Done ","id":1,"outcome":null,"gate":null}"#,
            r#"{"op":"add","tasks":["read the schema",{"title":"fix","phase":null}]}"#,
            r#"{"op":"done","id":1,"gate":{"command":"make","exit_code":"2","evidence":""}}"#,
        ],
        expect![[r#"
            {"op":"start","id":"3"}
              => Start { id: 3 }
            {"op":"start","id":" 3 "}
              => Start { id: 3 }
            {"op":"start","id":3.0}
              => Start { id: 3 }
            {"op":" Done ","id":1,"outcome":null,"gate":null}
              => Done { id: 1, outcome: None, gate: None }
            {"op":"add","tasks":["read the schema",{"title":"fix","phase":null}]}
              => Add { tasks: [NewTask { title: "read the schema", phase: None, priority: None }, NewTask { title: "fix", phase: None, priority: None }] }
            {"op":"done","id":1,"gate":{"command":"make","exit_code":"2","evidence":""}}
              => Done { id: 1, outcome: None, gate: Some(GateRequest { command: "make", claimed: true }) }
        "#]],
    );
}

#[test]
fn refused_shapes() {
    check(
        &[
            r#"[{"op":"start","id":1}]"#,
            r#"not json"#,
            r#"{"id":1}"#,
            r#"{"op":null,"id":1}"#,
            r#"{"op":7}"#,
            r#"{"op":"finish","id":1}"#,
            r#"{"op":"start"}"#,
            r#"{"op":"start","id":"three"}"#,
            r#"{"op":"start","id":-1}"#,
            r#"{"op":"start","id":2.5}"#,
            r#"{"op":"start","id":4294967296}"#,
            r#"{"op":"drop","id":1,"reason":"obsolete"}"#,
            r#"{"op":"drop","id":1,"gate":{"command":"x","exit_code":0,"evidence":"y"}}"#,
            r#"{"op":"init"}"#,
            r#"{"op":"add","tasks":{"title":"one"}}"#,
            r#"{"op":"add","tasks":[{"name":"one"}]}"#,
            r#"{"op":"add","tasks":[{"title":"one","status":"done"}]}"#,
            r#"{"op":"add","tasks":[3]}"#,
            r#"{"op":"done","id":1,"gate":{"command":"make"}}"#,
            r#"{"op":"done","id":1,"outcome":5}"#,
        ],
        expect![[r#"
            [{"op":"start","id":1}]
              => error: turn_plan arguments must be a JSON object such as {"op":"start","id":2}
            not json
              => error: turn_plan arguments are not valid JSON (expected ident at line 1 column 2); send one object such as {"op":"start","id":2}
            {"id":1}
              => error: missing "op"; use one of: init, add, start, done, drop, modify
            {"op":null,"id":1}
              => error: missing "op"; use one of: init, add, start, done, drop, modify
            {"op":7}
              => error: unknown op "7"; use one of: init, add, start, done, drop, modify
            {"op":"finish","id":1}
              => error: unknown op "finish"; use one of: init, add, start, done, drop, modify
            {"op":"start"}
              => error: bad arguments for "start": missing field `id`. Use {"op":"start","id":2}
            {"op":"start","id":"three"}
              => error: bad arguments for "start": invalid value: string "three", expected a task id such as 3. Use {"op":"start","id":2}
            {"op":"start","id":-1}
              => error: bad arguments for "start": invalid value: integer `-1`, expected a task id such as 3. Use {"op":"start","id":2}
            {"op":"start","id":2.5}
              => error: bad arguments for "start": invalid value: floating point `2.5`, expected a task id such as 3. Use {"op":"start","id":2}
            {"op":"start","id":4294967296}
              => error: bad arguments for "start": invalid value: integer `4294967296`, expected a task id such as 3. Use {"op":"start","id":2}
            {"op":"drop","id":1,"reason":"obsolete"}
              => error: bad arguments for "drop": unknown field `reason`, expected `id` or `outcome`. Use {"op":"drop","id":2,"outcome":"…"}
            {"op":"drop","id":1,"gate":{"command":"x","exit_code":0,"evidence":"y"}}
              => error: bad arguments for "drop": unknown field `gate`, expected `id` or `outcome`. Use {"op":"drop","id":2,"outcome":"…"}
            {"op":"init"}
              => error: bad arguments for "init": missing field `tasks`. Use {"op":"init","tasks":[{"title":"…","phase":"…"}]}
            {"op":"add","tasks":{"title":"one"}}
              => error: bad arguments for "add": invalid type: map, expected a sequence. Use {"op":"add","tasks":[{"title":"…","phase":"…"}]}
            {"op":"add","tasks":[{"name":"one"}]}
              => error: bad arguments for "add": a task: unknown field `name`, expected one of `title`, `phase`, `priority`. Use {"op":"add","tasks":[{"title":"…","phase":"…"}]}
            {"op":"add","tasks":[{"title":"one","status":"done"}]}
              => error: bad arguments for "add": a task: unknown field `status`, expected one of `title`, `phase`, `priority`. Use {"op":"add","tasks":[{"title":"…","phase":"…"}]}
            {"op":"add","tasks":[3]}
              => error: bad arguments for "add": a task is a title or {"title","phase","priority"}, not 3. Use {"op":"add","tasks":[{"title":"…","phase":"…"}]}
            {"op":"done","id":1,"gate":{"command":"make"}}
              => Done { id: 1, outcome: None, gate: Some(GateRequest { command: "make", claimed: false }) }
            {"op":"done","id":1,"outcome":5}
              => error: bad arguments for "done": invalid type: integer `5`, expected a string. Use {"op":"done","id":2,"outcome":"…","gate":{"command":"cargo test"}}
        "#]],
    );
}

#[test]
fn serialises_back_to_the_shape_it_parses_from() {
    for input in [
        r#"{"op":"init","tasks":[{"title":"a","phase":"dig"},{"title":"b"}]}"#,
        r#"{"op":"add","tasks":[{"title":"c"}]}"#,
        r#"{"op":"start","id":2}"#,
        r#"{"op":"done","id":1,"outcome":"ok","gate":{"command":"make"}}"#,
        r#"{"op":"drop","id":3}"#,
    ] {
        let op = Operation::from_json(input).unwrap();
        assert_eq!(serde_json::to_string(&op).unwrap(), input);
        let via_serde: Operation = serde_json::from_str(input).unwrap();
        assert_eq!(via_serde, op);
    }
}

#[test]
fn serde_deserialize_reports_the_trackers_message() {
    let refusal = serde_json::from_str::<Operation>(r#"{"op":"finish"}"#).unwrap_err();
    assert_eq!(
        refusal.to_string(),
        r#"unknown op "finish"; use one of: init, add, start, done, drop, modify"#
    );
}
