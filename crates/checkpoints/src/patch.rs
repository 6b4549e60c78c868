//! Cutting git's `--patch` output into one section per file as it streams by, each kept up to
//! a cap and all of them together up to a budget: a huge rewrite costs its cap and a huge
//! diff its budget, never their size. Pure: fed lines, no I/O.

/// One file's part of a patch: its text, or nothing when it went past the cap or the budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    pub text: Vec<u8>,
    /// Longer than the cap of one file.
    pub too_large: bool,
    /// Dropped because the sections kept before it had used up the budget.
    pub over_budget: bool,
    /// The section's whole length, kept or not.
    pub bytes: usize,
}

/// The sections seen so far.
#[derive(Debug)]
pub(crate) struct Sections {
    cap: usize,
    budget: usize,
    /// Bytes of text held in all sections.
    kept: usize,
    pub sections: Vec<Section>,
}

impl Sections {
    pub(crate) fn new(cap: usize, budget: usize) -> Sections {
        Sections { cap, budget, kept: 0, sections: Vec::new() }
    }

    /// Takes the next line of the patch (ending with `\n`, the last one perhaps not). A file's
    /// section starts at a `diff --git ` line: any line of a hunk starts with ` `, `+`, `-`,
    /// `@` or `\`, so a file's content never looks like one.
    pub(crate) fn feed(&mut self, line: &[u8]) {
        if line.starts_with(b"diff --git ") {
            let fresh =
                Section { text: Vec::new(), too_large: false, over_budget: false, bytes: 0 };
            self.sections.push(fresh);
        }
        let Some(section) = self.sections.last_mut() else { return };
        section.bytes += line.len();
        if section.too_large || section.over_budget {
            return;
        }
        if section.text.len() + line.len() > self.cap {
            section.too_large = true;
        } else if self.kept + line.len() > self.budget {
            section.over_budget = true;
        } else {
            section.text.extend_from_slice(line);
            self.kept += line.len();
            return;
        }
        self.kept -= section.text.len();
        section.text = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(patch: &str, cap: usize) -> Vec<Section> {
        cut_within(patch, cap, usize::MAX)
    }

    fn cut_within(patch: &str, cap: usize, budget: usize) -> Vec<Section> {
        let mut sections = Sections::new(cap, budget);
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

    #[test]
    fn past_the_budget_a_section_is_dropped_and_a_smaller_one_may_still_fit() {
        let first = "diff --git a/a b/a\n+0123456789\n";
        let second = "diff --git a/b b/b\n+0123456789012345678901234567890123456789\n";
        let third = "diff --git a/c b/c\n+1\n";
        let sections = cut_within(&format!("{first}{second}{third}"), 1000, 60);
        let summary: Vec<(usize, bool, usize)> =
            sections.iter().map(|s| (s.text.len(), s.over_budget, s.bytes)).collect();
        assert_eq!(
            summary,
            [
                (first.len(), false, first.len()),
                (0, true, second.len()),
                (third.len(), false, third.len())
            ]
        );
    }
}
