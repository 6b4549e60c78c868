//! Reading git's machine formats (`--raw -z` and `--numstat -z`) into plain values. Pure: no
//! I/O, tested on bytes git wrote.

/// One changed path of a `--raw -z` listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawChange {
    /// `A`, `D`, `M`, `R` (the score dropped) or `T`.
    pub status: u8,
    pub old_mode: u32,
    pub new_mode: u32,
    pub old_object: String,
    pub new_object: String,
    pub path: Vec<u8>,
    /// A rename's source.
    pub old_path: Option<Vec<u8>>,
}

/// Lines added and deleted in one path, `None` for a binary file.
pub(crate) type LineCounts = Option<(usize, usize)>;

/// The fields of a NUL-separated output, in order.
pub(crate) type Fields<'a> = std::iter::Peekable<std::slice::Split<'a, u8, fn(&u8) -> bool>>;

pub(crate) fn fields(output: &[u8]) -> Fields<'_> {
    let is_nul: fn(&u8) -> bool = |b| *b == 0;
    output.split(is_nul).peekable()
}

/// The `--raw` records at the front of `fields`; `None` when they are malformed.
pub(crate) fn raw_changes(fields: &mut Fields<'_>) -> Option<Vec<RawChange>> {
    let mut changes = Vec::new();
    while let Some(header) = fields.next_if(|field| field.starts_with(b":")) {
        let header = std::str::from_utf8(&header[1..]).ok()?;
        let mut parts = header.split(' ');
        let old_mode = u32::from_str_radix(parts.next()?, 8).ok()?;
        let new_mode = u32::from_str_radix(parts.next()?, 8).ok()?;
        let old_object = parts.next()?.to_owned();
        let new_object = parts.next()?.to_owned();
        let status = *parts.next()?.as_bytes().first()?;
        let first = fields.next()?.to_vec();
        let (path, old_path) = match status {
            b'R' | b'C' => (fields.next()?.to_vec(), Some(first)),
            _ => (first, None),
        };
        changes.push(RawChange {
            status,
            old_mode,
            new_mode,
            old_object,
            new_object,
            path,
            old_path,
        });
    }
    Some(changes)
}

/// The `--numstat` records of `fields` (to its end); `None` when they are malformed.
pub(crate) fn line_counts(fields: &mut Fields<'_>) -> Option<Vec<LineCounts>> {
    let mut counts = Vec::new();
    while let Some(record) = fields.next() {
        if record.is_empty() {
            continue;
        }
        let record = std::str::from_utf8(record).ok();
        let mut parts = record.map(|r| r.splitn(3, '\t'))?;
        let (added, deleted, path) = (parts.next()?, parts.next()?, parts.next()?);
        if path.is_empty() {
            // A rename: its source and destination follow as fields of their own.
            fields.next()?;
            fields.next()?;
        }
        counts.push(match (added, deleted) {
            ("-", "-") => None,
            _ => Some((added.parse().ok()?, deleted.parse().ok()?)),
        });
    }
    Some(counts)
}

/// The objects of a `cat-file --batch` answer, in order: each name with its content.
/// `None` when the answer is malformed or names a missing object.
pub(crate) fn batch_objects(mut output: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut objects = Vec::new();
    while !output.is_empty() {
        let end = output.iter().position(|b| *b == b'\n')?;
        let header = std::str::from_utf8(&output[..end]).ok()?;
        let mut parts = header.split(' ');
        let (name, _kind, size) = (parts.next()?, parts.next()?, parts.next()?);
        let size: usize = size.parse().ok()?;
        let content = output.get(end + 1..end + 1 + size)?;
        if output.get(end + 1 + size) != Some(&b'\n') {
            return None;
        }
        objects.push((name.to_owned(), content.to_vec()));
        output = &output[end + 2 + size..];
    }
    Some(objects)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `git diff --raw --numstat -z -M` printed for a mode change, a binary change, a
    /// rename with an edit and a file turned into a symlink.
    const OUTPUT: &[u8] = b":100644 100755 7898192aaa 422c2b7bbb M\0a.txt\0\
:100644 100644 8352675ccc 1592e5cddd M\0bin.dat\0\
:100644 100644 96cc558eee 1c5a36ffff R097\0long.txt\0long2.txt\0\
:100644 120000 a999a0c111 8d14cbf222 T\0t.txt\0\
1\t0\ta.txt\0-\t-\tbin.dat\0\
1\t0\t\0long.txt\0long2.txt\0\
1\t1\tt.txt\0";

    #[test]
    fn raw_and_numstat_records_are_read_in_order() {
        let mut fields = fields(OUTPUT);
        let changes = raw_changes(&mut fields).unwrap();
        let counts = line_counts(&mut fields).unwrap();
        let summary: Vec<String> = changes
            .iter()
            .map(|c| {
                let old = c.old_path.as_deref().map(String::from_utf8_lossy);
                let path = String::from_utf8_lossy(&c.path);
                format!("{} {path} {old:?} {:o} {:o}", c.status as char, c.old_mode, c.new_mode)
            })
            .collect();
        assert_eq!(
            summary,
            [
                "M a.txt None 100644 100755",
                "M bin.dat None 100644 100644",
                "R long2.txt Some(\"long.txt\") 100644 100644",
                "T t.txt None 100644 120000",
            ]
        );
        assert_eq!(changes[3].old_object, "a999a0c111");
        assert_eq!(counts, vec![Some((1, 0)), None, Some((1, 0)), Some((1, 1))]);
    }

    #[test]
    fn empty_and_malformed_outputs() {
        assert_eq!(raw_changes(&mut fields(b"")), Some(vec![]));
        assert_eq!(line_counts(&mut fields(b"")), Some(vec![]));
        assert_eq!(raw_changes(&mut fields(b":100644 zz\0a\0")), None);
        assert_eq!(line_counts(&mut fields(b"x\ty\tpath\0")), None);
        assert_eq!(line_counts(&mut fields(b"1\t1\t\0only-one")), None);
    }

    #[test]
    fn batch_answers_are_cut_by_their_sizes() {
        let answer = b"aaa blob 3\nx\ny\nbbb blob 0\n\n";
        let objects = batch_objects(answer).unwrap();
        assert_eq!(objects, vec![("aaa".into(), b"x\ny".to_vec()), ("bbb".into(), vec![])]);
        assert_eq!(batch_objects(b"ccc missing\n"), None);
        assert_eq!(batch_objects(b"ddd blob 5\nab\n"), None);
    }
}
