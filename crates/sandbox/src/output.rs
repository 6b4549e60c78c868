//! A stream's captured output: the last 64 KiB kept, and whether anything was dropped.

/// Each stream keeps at most this many bytes, the tail (DESIGN §11).
pub const STREAM_CAP: usize = 64 * 1024;

/// Collects a stream's bytes, keeping the last `cap`. Memory stays under twice the cap
/// however much the command writes.
#[derive(Debug)]
pub struct TailBuffer {
    bytes: Vec<u8>,
    cap: usize,
    truncated: bool,
}

impl TailBuffer {
    pub fn new(cap: usize) -> Self {
        TailBuffer { bytes: Vec::new(), cap, truncated: false }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > 2 * self.cap {
            self.keep_tail();
        }
    }

    /// The kept text (lossy UTF-8, starting on a character boundary) and whether bytes were
    /// dropped from the front.
    pub fn finish(&mut self) -> (String, bool) {
        self.keep_tail();
        let mut start = 0;
        if self.truncated {
            // The cut may fall inside a character: skip its continuation bytes.
            while start < 3 && self.bytes.get(start).is_some_and(|b| b & 0xC0 == 0x80) {
                start += 1;
            }
        }
        (String::from_utf8_lossy(&self.bytes[start..]).into_owned(), self.truncated)
    }

    fn keep_tail(&mut self) {
        if self.bytes.len() > self.cap {
            let cut = self.bytes.len() - self.cap;
            self.bytes.drain(..cut);
            self.truncated = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_is_kept_and_truncation_reported() {
        let table: &[(&[&str], usize, &str, bool)] = &[
            (&["abc"], 4, "abc", false),
            (&["ab", "cd"], 4, "abcd", false),
            (&["abcdef"], 4, "cdef", true),
            (&["ab", "cd", "ef", "gh", "ij"], 4, "ghij", true),
            (&["xé"], 1, "", true),
            (&["aéb"], 2, "b", true),
        ];
        for (chunks, cap, text, truncated) in table {
            let mut buffer = TailBuffer::new(*cap);
            chunks.iter().for_each(|c| buffer.push(c.as_bytes()));
            assert_eq!(buffer.finish(), (text.to_string(), *truncated), "{chunks:?} cap {cap}");
        }
    }

    #[test]
    fn memory_stays_bounded() {
        let mut buffer = TailBuffer::new(STREAM_CAP);
        for _ in 0..1000 {
            buffer.push(&[b'x'; 8192]);
            assert!(buffer.bytes.len() <= 2 * STREAM_CAP + 8192);
        }
        let (text, truncated) = buffer.finish();
        assert_eq!((text.len(), truncated), (STREAM_CAP, true));
    }
}
