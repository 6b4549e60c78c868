//! Cutting git's `--patch` output into one section per file as it streams by, each kept up to
//! a cap: a huge rewrite costs its cap, never its size. Pure: fed lines, no I/O.

/// One file's part of a patch: its text, or nothing when it went past the cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    pub text: Vec<u8>,
    pub too_large: bool,
}

/// The sections seen so far.
#[derive(Debug)]
pub(crate) struct Sections {
    cap: usize,
    pub sections: Vec<Section>,
}

impl Sections {
    pub(crate) fn new(cap: usize) -> Sections {
        Sections { cap, sections: Vec::new() }
    }

    /// Takes the next line of the patch (ending with `\n`, the last one perhaps not). A file's
    /// section starts at a `diff --git ` line: any line of a hunk starts with ` `, `+`, `-`,
    /// `@` or `\`, so a file's content never looks like one.
    pub(crate) fn feed(&mut self, line: &[u8]) {
        if line.starts_with(b"diff --git ") {
            self.sections.push(Section { text: Vec::new(), too_large: false });
        }
        let Some(section) = self.sections.last_mut() else { return };
        if section.too_large {
            return;
        }
        if section.text.len() + line.len() > self.cap {
            section.too_large = true;
            section.text = Vec::new();
        } else {
            section.text.extend_from_slice(line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(patch: &str, cap: usize) -> Vec<Section> {
        let mut sections = Sections::new(cap);
        for line in patch.split_inclusive('\n') {
            sections.feed(line.as_bytes());
        }
        sections.sections
    }

    #[test]
    fn one_section_per_file_and_a_long_one_dropped() {
        let first = "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-diff --git x\n+y\n";
        let second = "diff --git a/b b/b\nBinary files a/b and b/b differ\n";
        let third = "diff --git a/c b/c\n@@ -0,0 +1 @@\n+a line much longer than the cap of seventy bytes allows\n";
        let sections = cut(&format!("{first}{second}{third}"), 70);
        let texts: Vec<(&[u8], bool)> =
            sections.iter().map(|s| (s.text.as_slice(), s.too_large)).collect();
        assert_eq!(
            texts,
            vec![(first.as_bytes(), false), (second.as_bytes(), false), (&b""[..], true)]
        );
    }

    #[test]
    fn nothing_before_the_first_header_and_no_output_is_no_section() {
        assert_eq!(cut("", 100), vec![]);
        assert_eq!(cut("stray\n", 100), vec![]);
    }
}
