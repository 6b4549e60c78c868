//! Tool names as models see them: `mcp_<server>_<tool>`, resolved back through a map, never
//! by splitting on `_` (server and tool names may contain `_` themselves). Pure.
//!
//! Provider APIs accept names matching `^[a-zA-Z0-9_-]{1,64}$`, so each name is sanitised
//! (any other character becomes `_`) and cut to 64 characters. When two tools would get the
//! same name (`a_b`+`c` and `a`+`b_c`, or two names that sanitise or cut alike), *each* of
//! them gets a suffix `_` + 8 hex digits of a hash of its own server and tool name instead,
//! so neither holds the ambiguous name and the suffix does not depend on input order.

use std::collections::{HashMap, HashSet};

use crate::turn::profile::ToolRef;

/// The longest tool name provider APIs accept.
pub const MAX_NAME_LEN: usize = 64;
const PREFIX: &str = "mcp_";
/// `_` and 8 hex digits.
const SUFFIX_LEN: usize = 9;

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_valid_name(name: &str) -> bool {
    (1..=MAX_NAME_LEN).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A two-way map between exposed names and (server, tool) for one set of tools.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameMap {
    entries: Vec<Entry>,
    by_name: HashMap<String, usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    exposed: String,
    server: String,
    tool: String,
}

impl NameMap {
    /// Names for `tools` (duplicates of a (server, tool) pair are named once). The result
    /// depends on the set of tools only, not on their order.
    pub fn build<'a>(tools: impl IntoIterator<Item = ToolRef<'a>>) -> NameMap {
        let mut seen = HashSet::new();
        let unique: Vec<ToolRef> = tools.into_iter().filter(|t| seen.insert(*t)).collect();
        let bases: Vec<String> = unique.iter().map(|t| base_name(t.server, t.tool)).collect();
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for base in &bases {
            *counts.entry(base).or_default() += 1;
        }
        let mut order: Vec<usize> = (0..unique.len()).collect();
        order.sort_by_key(|&i| unique[i]);
        let mut names = vec![String::new(); unique.len()];
        let mut used = HashSet::new();
        for i in order {
            let t = unique[i];
            let mut salt = 0;
            let mut name = if counts[bases[i].as_str()] == 1 {
                bases[i].clone()
            } else {
                hashed(&bases[i], t, salt)
            };
            while used.contains(&name) {
                salt += 1;
                name = hashed(&bases[i], t, salt);
            }
            used.insert(name.clone());
            names[i] = name;
        }
        let entries: Vec<Entry> = unique
            .iter()
            .zip(names)
            .map(|(t, exposed)| Entry { exposed, server: t.server.into(), tool: t.tool.into() })
            .collect();
        let by_name = entries.iter().enumerate().map(|(i, e)| (e.exposed.clone(), i)).collect();
        NameMap { entries, by_name }
    }

    /// The (server, tool) a model's tool name stands for, if it is in this map.
    pub fn resolve(&self, exposed: &str) -> Option<ToolRef<'_>> {
        let entry = &self.entries[*self.by_name.get(exposed)?];
        Some(ToolRef { server: &entry.server, tool: &entry.tool })
    }

    /// The name a model sees for `tool` of `server` (the tests' way in).
    #[cfg(test)]
    pub fn exposed(&self, server: &str, tool: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| e.server == server && e.tool == tool)
            .map(|e| e.exposed.as_str())
    }

    /// (exposed name, server, tool) in the order the tools were given.
    pub fn iter(&self) -> impl Iterator<Item = (&str, ToolRef<'_>)> {
        self.entries
            .iter()
            .map(|e| (e.exposed.as_str(), ToolRef { server: &e.server, tool: &e.tool }))
    }
}

/// The prefix every tool of `server` starts with, before disambiguation.
pub fn server_prefix(server: &str) -> String {
    format!("{PREFIX}{}_", sanitize(server))
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .collect()
}

fn base_name(server: &str, tool: &str) -> String {
    let mut name = format!("{}{}", server_prefix(server), sanitize(tool));
    name.truncate(MAX_NAME_LEN);
    name
}

fn hashed(base: &str, tool: ToolRef, salt: u32) -> String {
    let keep = base.len().min(MAX_NAME_LEN - SUFFIX_LEN);
    format!("{}_{:08x}", &base[..keep], fnv1a(tool, salt))
}

/// FNV-1a, 32 bits: stable across builds and platforms, unlike std's hasher.
fn fnv1a(tool: ToolRef, salt: u32) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    let bytes =
        tool.server.bytes().chain([0xff]).chain(tool.tool.bytes()).chain(salt.to_le_bytes());
    for byte in bytes {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn refs<'a>(pairs: &'a [(&'a str, &'a str)]) -> Vec<ToolRef<'a>> {
        pairs.iter().map(|(server, tool)| ToolRef { server, tool }).collect()
    }

    #[test]
    fn plain_names_are_mcp_server_tool() {
        let map =
            NameMap::build(refs(&[("filesystem", "read_text_file"), ("context7", "query-docs")]));
        assert_eq!(
            map.exposed("filesystem", "read_text_file"),
            Some("mcp_filesystem_read_text_file")
        );
        assert_eq!(map.exposed("context7", "query-docs"), Some("mcp_context7_query-docs"));
        let back = map.resolve("mcp_filesystem_read_text_file").unwrap();
        assert_eq!((back.server, back.tool), ("filesystem", "read_text_file"));
        assert_eq!(map.resolve("mcp_filesystem_write_file"), None);
        assert_eq!(map.resolve("read_text_file"), None);
    }

    #[test]
    fn underscores_in_server_and_tool_names_round_trip() {
        let pairs = [("my_server", "read_file"), ("my", "server_read_file"), ("x", "y")];
        let map = NameMap::build(refs(&pairs));
        // The first two would both be `mcp_my_server_read_file`: each gets its own suffix.
        let a = map.exposed("my_server", "read_file").unwrap();
        let b = map.exposed("my", "server_read_file").unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("mcp_my_server_read_file_") && a.len() == 24 + 8, "{a}");
        assert!(b.starts_with("mcp_my_server_read_file_"), "{b}");
        assert_eq!(map.exposed("x", "y"), Some("mcp_x_y"));
        for (server, tool) in pairs {
            let back = map.resolve(map.exposed(server, tool).unwrap()).unwrap();
            assert_eq!((back.server, back.tool), (server, tool));
        }
        // A server with `_` and no collision keeps the plain name.
        let map = NameMap::build(refs(&[("my_server", "read_file")]));
        assert_eq!(map.exposed("my_server", "read_file"), Some("mcp_my_server_read_file"));
    }

    #[test]
    fn names_are_sanitised_and_cut_for_provider_apis() {
        let long = "t".repeat(80);
        let pairs = [("my server", "list.files"), ("файлы", "read"), ("s", long.as_str())];
        let map = NameMap::build(refs(&pairs));
        assert_eq!(map.exposed("my server", "list.files"), Some("mcp_my_server_list_files"));
        assert_eq!(map.exposed("файлы", "read"), Some("mcp_______read"));
        assert_eq!(map.exposed("s", &long).unwrap().len(), MAX_NAME_LEN);
        for (name, _) in map.iter() {
            assert!(is_valid_name(name), "{name}");
        }
    }

    #[test]
    fn names_that_cut_alike_are_told_apart() {
        let a = format!("{}a", "t".repeat(70));
        let b = format!("{}b", "t".repeat(70));
        let map = NameMap::build(refs(&[("s", &a), ("s", &b)]));
        let (na, nb) = (map.exposed("s", &a).unwrap(), map.exposed("s", &b).unwrap());
        assert_ne!(na, nb);
        assert!(na.len() == MAX_NAME_LEN && nb.len() == MAX_NAME_LEN);
        assert_eq!(map.resolve(na).unwrap().tool, a);
    }

    #[test]
    fn a_suffix_that_equals_another_name_is_salted_again() {
        // `a_b`+`c` gets `mcp_a_b_c_<hash>`; a tool `a`+`b_c_<hash>` has that very name.
        let colliding = [("a_b", "c"), ("a", "b_c")];
        let taken = NameMap::build(refs(&colliding)).exposed("a_b", "c").unwrap().to_string();
        let squatter_tool = taken["mcp_a_".len()..].to_string();
        let all = [colliding[0], colliding[1], ("a", squatter_tool.as_str())];
        let map = NameMap::build(refs(&all));
        assert_eq!(map.exposed("a", &squatter_tool), Some(taken.as_str()));
        let names: HashSet<&str> = map.iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), 3, "{map:?}");
        for (server, tool) in all {
            let back = map.resolve(map.exposed(server, tool).unwrap()).unwrap();
            assert_eq!((back.server, back.tool), (server, tool));
        }
    }

    proptest! {
        #[test]
        fn every_set_of_tools_gets_valid_distinct_names_that_round_trip(
            pairs in prop::collection::vec(("[a-z_ .é-]{1,12}", "[a-z_.-]{1,70}"), 0..30),
            seed in any::<u64>(),
        ) {
            let list: Vec<ToolRef> = pairs.iter().map(|(s, t)| ToolRef { server: s, tool: t }).collect();
            let map = NameMap::build(list.iter().copied());
            let mut names = HashSet::new();
            for t in &list {
                let name = map.exposed(t.server, t.tool).unwrap();
                prop_assert!(is_valid_name(name), "{}", name);
                prop_assert_eq!(map.resolve(name), Some(*t));
            }
            for (name, _) in map.iter() {
                prop_assert!(names.insert(name));
            }
            // Order does not matter.
            let mut shuffled = list.clone();
            let len = shuffled.len().max(1);
            shuffled.rotate_left((seed as usize) % len);
            shuffled.reverse();
            let other = NameMap::build(shuffled);
            for t in &list {
                prop_assert_eq!(map.exposed(t.server, t.tool), other.exposed(t.server, t.tool));
            }
        }
    }
}
