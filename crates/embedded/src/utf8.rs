//! Text from token pieces: a piece may end inside a UTF-8 character (an emoji, a CJK
//! character split over byte tokens), so bytes are held back until the character is whole.

#[derive(Debug, Default)]
pub struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    /// The text that `bytes` completes; an incomplete character at the end waits for the next
    /// piece, and bytes that can never be UTF-8 become U+FFFD.
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut text = String::new();
        loop {
            match std::str::from_utf8(&self.pending) {
                Ok(valid) => {
                    text.push_str(valid);
                    self.pending.clear();
                    return text;
                }
                Err(error) => {
                    let (valid, rest) = self.pending.split_at(error.valid_up_to());
                    text.push_str(std::str::from_utf8(valid).expect("checked above"));
                    match error.error_len() {
                        None => {
                            self.pending = rest.to_vec();
                            return text;
                        }
                        Some(bad) => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            self.pending = rest[bad..].to_vec();
                        }
                    }
                }
            }
        }
    }

    /// What is still held back, at the end of the answer.
    pub fn finish(&mut self) -> String {
        let rest = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_split_over_pieces_come_out_whole() {
        let mut stream = Utf8Stream::default();
        let heart = "❤".as_bytes();
        assert_eq!(stream.push(b"I "), "I ");
        assert_eq!(stream.push(&heart[..1]), "");
        assert_eq!(stream.push(&heart[1..]), "❤");
        assert_eq!(stream.push(&[b'a', 0xFF, b'b']), "a\u{FFFD}b");
        assert_eq!(stream.push(&heart[..2]), "");
        assert_eq!(stream.finish(), "\u{FFFD}");
        assert_eq!(stream.finish(), "");
    }
}
