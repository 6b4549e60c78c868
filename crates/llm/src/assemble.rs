//! Joins streamed tool-call fragments into whole calls. Pure.
//!
//! Servers differ: OpenAI sends an id and name first, then argument fragments under the same
//! `index`; Ollama sends each call whole, sometimes all under index 0; llama.cpp may omit
//! ids. A fragment starts a new call when it carries an id other than the one being built,
//! or a name while the call being built already has a name and complete JSON arguments.

use preflight_protocol::chat::ToolCall;

use super::types::arguments_or_empty_object;

/// One fragment as a wire format reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolCallDelta {
    /// The stream's index of the call (OpenAI `index`, Anthropic content block index).
    pub index: u32,
    pub id: Option<String>,
    pub name: Option<String>,
    pub arguments: Option<String>,
}

#[derive(Debug, Default)]
struct Partial {
    index: u32,
    id: Option<String>,
    name: String,
    arguments: String,
}

/// The calls of one answer, in the order they began.
#[derive(Debug, Default)]
pub struct ToolCallAssembler {
    calls: Vec<Partial>,
}

impl ToolCallAssembler {
    pub fn push(&mut self, delta: ToolCallDelta) {
        let current = self.calls.iter().rposition(|call| call.index == delta.index);
        let slot = match current {
            Some(slot) if !starts_new_call(&self.calls[slot], &delta) => slot,
            _ => {
                self.calls.push(Partial { index: delta.index, ..Partial::default() });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[slot];
        if call.id.is_none() {
            call.id = delta.id.filter(|id| !id.is_empty());
        }
        if let Some(name) = delta.name.filter(|name| !name.is_empty()) {
            if call.name.is_empty() {
                call.name = name;
            }
        }
        if let Some(fragment) = delta.arguments {
            call.arguments.push_str(&fragment);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The whole calls; a call without an id gets `call_<n>` (n counting from 1) so that
    /// its result can still be matched to it.
    pub fn finish(&mut self) -> Vec<ToolCall> {
        std::mem::take(&mut self.calls)
            .into_iter()
            .enumerate()
            .map(|(n, call)| ToolCall {
                id: call.id.unwrap_or_else(|| format!("call_{}", n + 1)),
                name: call.name,
                arguments: arguments_or_empty_object(call.arguments),
            })
            .collect()
    }
}

fn starts_new_call(call: &Partial, delta: &ToolCallDelta) -> bool {
    match (&call.id, delta.id.as_deref().filter(|id| !id.is_empty())) {
        (Some(current), Some(new)) => current != new,
        (_, Some(_)) => false,
        (_, None) => {
            let named = delta.name.as_deref().is_some_and(|name| !name.is_empty());
            named
                && !call.name.is_empty()
                && serde_json::from_str::<serde_json::Value>(&call.arguments).is_ok()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(
        index: u32,
        id: Option<&str>,
        name: Option<&str>,
        args: Option<&str>,
    ) -> ToolCallDelta {
        ToolCallDelta {
            index,
            id: id.map(str::to_owned),
            name: name.map(str::to_owned),
            arguments: args.map(str::to_owned),
        }
    }

    fn assemble(deltas: Vec<ToolCallDelta>) -> Vec<(String, String, String)> {
        let mut assembler = ToolCallAssembler::default();
        deltas.into_iter().for_each(|d| assembler.push(d));
        assembler.finish().into_iter().map(|c| (c.id, c.name, c.arguments)).collect()
    }

    fn call(id: &str, name: &str, args: &str) -> (String, String, String) {
        (id.into(), name.into(), args.into())
    }

    #[test]
    fn openai_fragments_join_per_index() {
        let calls = assemble(vec![
            delta(0, Some("call_a"), Some("read"), Some("")),
            delta(1, Some("call_b"), Some("list"), Some("{\"pa")),
            delta(0, None, None, Some("{\"path\":")),
            delta(0, None, None, Some("\"x\"}")),
            delta(1, None, None, Some("th\":\".\"}")),
        ]);
        assert_eq!(
            calls,
            vec![
                call("call_a", "read", "{\"path\":\"x\"}"),
                call("call_b", "list", "{\"path\":\".\"}")
            ]
        );
    }

    #[test]
    fn whole_calls_under_one_index_stay_apart() {
        // Ollama: two whole calls, both at index 0, with ids.
        let with_ids = assemble(vec![
            delta(0, Some("call_1"), Some("read"), Some("{\"path\":\"a\"}")),
            delta(0, Some("call_2"), Some("read"), Some("{\"path\":\"b\"}")),
        ]);
        assert_eq!(with_ids.len(), 2);
        // llama.cpp without ids: a new name after complete arguments is a new call.
        let without_ids = assemble(vec![
            delta(0, None, Some("read"), Some("{\"path\":\"a\"}")),
            delta(0, None, Some("list"), Some("{}")),
        ]);
        assert_eq!(
            without_ids,
            vec![call("call_1", "read", "{\"path\":\"a\"}"), call("call_2", "list", "{}")]
        );
    }

    #[test]
    fn missing_arguments_become_an_empty_object_and_repeated_ids_append() {
        let calls = assemble(vec![
            delta(0, Some("c"), Some("now"), None),
            delta(1, Some("d"), Some("echo"), Some("{\"t\":")),
            delta(1, Some("d"), None, Some("1}")),
        ]);
        assert_eq!(calls, vec![call("c", "now", "{}"), call("d", "echo", "{\"t\":1}")]);
    }
}
