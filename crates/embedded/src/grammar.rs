//! The grammar of a planner turn (GBNF, llama.cpp's grammar format): exactly one
//! ```` ```plan-questions ```` or ```` ```plan ```` fence whose JSON has the shapes of DESIGN §3,
//! and nothing before or after it. Sampling under it, even a 135M model yields a card that
//! parses every time.
//!
//! Written by hand rather than generated from a JSON Schema (`json_schema_to_grammar`)
//! because three things the cards need are not expressible there without regular-expression
//! patterns that let a `"` through: every text starts with a visible character (a blank
//! question or step would be dropped by the normaliser, and a card of blanks would be
//! "neither"); every text and array is bounded (a model that rambles inside a string until
//! its token budget runs out would leave the JSON unclosed); question ids are `q1`, `q2`,
//! `q3` in order. Texts are plain: no escapes, braces or brackets, which tiny models
//! otherwise fill with fragments of JSON. Keys come in the order of DESIGN §3, on one line
//! (fewer tokens to sample).
//!
//! A plan may carry some of seed 001's optional fields (DESIGN §14), in their place in the
//! order: `approach`, `risks`, `files` after the aim, and per step `depends_on` and `check`.
//! The others (alternatives, tests, complexity, a step's files) are left to larger models.
//!
//! The bounds: 1–3 questions of exactly 3 options; 1–5 steps; 0–3 libraries; 0–2 risks; 0–2
//! files to create and to modify, paths of at most 40 characters; 0–3 dependencies of steps
//! 1–4; texts of 40 to 120 characters. Tiny models fill every array and text to its bound, so
//! the bounds are what a card costs: the longest the grammar allows is about 2,800
//! characters, within the planner's token budget.

/// The GBNF, rule `root` first.
pub const PLANNER_GRAMMAR: &str = r#"root ::= questions-fence | plan-fence
questions-fence ::= "```plan-questions\n{\"questions\": [" question1 ("," ws question2 ("," ws question3)?)? "]}\n```"
plan-fence ::= "```plan\n{\"title\": " text60 ", \"aim\": " text120 approach? risks? files? ", \"steps\": [" step ("," ws step){0,4} "], \"libraries\": [" (library ("," ws library){0,2})? "], \"sandbox\": {\"policy\": " policy ", \"notes\": " text80 "}}\n```"
question1 ::= "{\"id\": \"q1\", \"question\": " text120 ", \"options\": " options "}"
question2 ::= "{\"id\": \"q2\", \"question\": " text120 ", \"options\": " options "}"
question3 ::= "{\"id\": \"q3\", \"question\": " text120 ", \"options\": " options "}"
options ::= "[" text40 ", " text40 ", " text40 "]"
step ::= "{\"action\": " text80 ", \"expected\": " text80 depends-on? check? "}"
approach ::= ", \"approach\": " text120
risks ::= ", \"risks\": [" text80 ("," ws text80)? "]"
files ::= ", \"files\": {\"create\": [" paths "], \"modify\": [" paths "]}"
paths ::= (path ("," ws path)?)?
path ::= "\"" [A-Za-z0-9_] [A-Za-z0-9_./-]{0,39} "\""
depends-on ::= ", \"depends_on\": [" [1-4] ("," ws [1-4]){0,2} "]"
check ::= ", \"check\": " text60
library ::= "{\"name\": " text40 ", \"purpose\": " text60 ", \"usage\": " text60 "}"
policy ::= "\"reuse\"" | "\"create\""
ws ::= " "?
text40 ::= "\"" lead char{0,39} "\""
text60 ::= "\"" lead char{0,59} "\""
text80 ::= "\"" lead char{0,79} "\""
text120 ::= "\"" lead char{0,119} "\""
lead ::= [^"\\{}\x5B\x5D\x7F\x00-\x20]
char ::= [^"\\{}\x5B\x5D\x7F\x00-\x1F]
"#;

/// The longest answer, in tokens, a planner turn may need: the longest card the grammar
/// allows, at worst about one token per character.
pub const PLANNER_MAX_TOKENS: u32 = 3072;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule used is defined and every rule defined is used (from `root`).
    #[test]
    fn the_grammar_is_closed() {
        let rules: Vec<(&str, &str)> = PLANNER_GRAMMAR
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| line.split_once(" ::= ").expect("a rule per line"))
            .collect();
        assert_eq!(rules[0].0, "root");
        let defined: Vec<&str> = rules.iter().map(|(name, _)| *name).collect();
        let mut used = vec!["root"];
        for (_, body) in &rules {
            for name in rule_references(body) {
                assert!(defined.contains(&name), "{name} is used but not defined");
                used.push(name);
            }
        }
        for name in defined {
            assert!(used.contains(&name), "{name} is defined but never used");
        }
    }

    /// The identifiers of a rule body outside string literals and character classes.
    fn rule_references(body: &str) -> Vec<&str> {
        let mut names = Vec::new();
        let bytes = body.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'"' | b'[' => {
                    let close = if bytes[i] == b'"' { b'"' } else { b']' };
                    i += 1;
                    while i < bytes.len() && bytes[i] != close {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                b'{' => i = body[i..].find('}').map_or(bytes.len(), |end| i + end + 1),
                b if b.is_ascii_alphabetic() => {
                    let start = i;
                    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'-')
                    {
                        i += 1;
                    }
                    names.push(&body[start..i]);
                }
                _ => i += 1,
            }
        }
        names
    }

    /// The optional keys the grammar writes are the ones the engine's parser reads.
    #[test]
    fn a_plan_with_every_optional_field_the_grammar_allows_parses_whole() {
        use preflight_protocol::planner::{parse_planner_reply, ReplyKind};
        for key in ["approach", "risks", "files", "create", "modify", "depends_on", "check"] {
            assert!(PLANNER_GRAMMAR.contains(&format!("\\\"{key}\\\"")), "{key}");
        }
        let card = "```plan\n{\"title\": \"Greeter\", \"aim\": \"Print a greeting\", \
            \"approach\": \"One small script\", \"risks\": [\"None known\"], \
            \"files\": {\"create\": [\"hello.py\"], \"modify\": []}, \"steps\": [\
            {\"action\": \"Write hello.py\", \"expected\": \"A script\", \"check\": \"python hello.py\"}, \
            {\"action\": \"Test it\", \"expected\": \"Passes\", \"depends_on\": [1], \"check\": \"pytest -q\"}], \
            \"libraries\": [], \"sandbox\": {\"policy\": \"create\", \"notes\": \"Fresh folder\"}}\n```";
        let ReplyKind::Plan(plan) = parse_planner_reply(card).kind else { panic!("a plan") };
        assert_eq!(plan.judgement.approach.as_deref(), Some("One small script"));
        assert_eq!(plan.judgement.risks, ["None known"]);
        assert_eq!(plan.judgement.planned_files.create, ["hello.py"]);
        assert_eq!(plan.steps[1].depends_on, [1]);
        assert_eq!(plan.steps[0].check.as_deref(), Some("python hello.py"));
        assert!(plan.notes.is_empty());
    }

    #[test]
    fn reference_scanning_skips_literals_classes_and_counts() {
        assert_eq!(rule_references(r#""a\"b" x [^"\\] y{0,5} z-1"#), ["x", "y", "z-1"]);
    }
}
