//! A server-sent events decoder: bytes in, whole events out. Pure and incremental, so a
//! chunk may end anywhere, even inside a UTF-8 character or between `\r` and `\n`.

/// One dispatched event. `event` is the `event:` field when there was one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

/// The decoder's state between chunks (the WHATWG event-stream rules, minus `id`/`retry`,
/// which no model API relies on).
#[derive(Debug, Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    data: String,
    event: Option<String>,
    has_data: bool,
    /// The last byte was `\r`: a `\n` right after it ends nothing more.
    after_cr: bool,
}

impl SseDecoder {
    pub fn new() -> SseDecoder {
        SseDecoder::default()
    }

    /// Feeds `bytes`; every event they complete is pushed to `out`.
    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<SseEvent>) {
        if self.after_cr && bytes.first() == Some(&b'\n') {
            bytes = &bytes[1..];
        }
        self.after_cr = false;
        while let Some(end) = bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&bytes[..end]);
            self.end_line(out);
            let crlf = bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n');
            if bytes[end] == b'\r' && end + 1 == bytes.len() {
                self.after_cr = true;
            }
            bytes = &bytes[end + if crlf { 2 } else { 1 }..];
        }
        self.line.extend_from_slice(bytes);
    }

    /// The end of the stream: an event whose blank line never came is still dispatched
    /// (servers that close right after `data: [DONE]\n` are common enough).
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) {
        if !self.line.is_empty() {
            self.end_line(out);
        }
        self.dispatch(out);
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            self.dispatch(out);
        } else {
            self.field(&String::from_utf8_lossy(&line));
        }
        self.line = line;
        self.line.clear();
    }

    fn field(&mut self, line: &str) {
        if line.starts_with(':') {
            return; // a comment, e.g. a keep-alive
        }
        let (name, value) = match line.split_once(':') {
            Some((name, value)) => (name, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match name {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_owned()),
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        if self.has_data {
            out.push(SseEvent { event: self.event.take(), data: std::mem::take(&mut self.data) });
        }
        self.has_data = false;
        self.event = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(stream: &[u8], piece: usize) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        for chunk in stream.chunks(piece) {
            decoder.push(chunk, &mut out);
        }
        decoder.finish(&mut out);
        out
    }

    fn event(name: Option<&str>, data: &str) -> SseEvent {
        SseEvent { event: name.map(str::to_owned), data: data.to_owned() }
    }

    #[test]
    fn every_split_of_the_stream_gives_the_same_events() {
        let stream = "event: message_start\r\ndata: {\"a\":\"é\"}\r\n\r\n: keep-alive\n\ndata: one\ndata: two\n\ndata:three\r\rdata: [DONE]\n\n";
        let expected = vec![
            event(Some("message_start"), "{\"a\":\"é\"}"),
            event(None, "one\ntwo"),
            event(None, "three"),
            event(None, "[DONE]"),
        ];
        for piece in 1..=stream.len() {
            assert_eq!(decode_in_pieces(stream.as_bytes(), piece), expected, "pieces of {piece}");
        }
    }

    #[test]
    fn table_of_edge_cases() {
        type Case = (&'static str, &'static [(Option<&'static str>, &'static str)]);
        let cases: &[Case] = &[
            ("", &[]),
            (": only a comment\n\n", &[]),
            ("event: ping\n\n", &[]), // no data: nothing dispatched
            ("data\n\n", &[(None, "")]),
            ("data:  two spaces\n\n", &[(None, " two spaces")]),
            ("data: unterminated", &[(None, "unterminated")]),
            ("id: 7\nretry: 10\ndata: x\n\n", &[(None, "x")]),
            ("event: a\ndata: 1\n\ndata: 2\n\n", &[(Some("a"), "1"), (None, "2")]),
        ];
        for (stream, expected) in cases {
            let expected: Vec<SseEvent> = expected.iter().map(|(n, d)| event(*n, d)).collect();
            assert_eq!(decode_in_pieces(stream.as_bytes(), 3), expected, "{stream:?}");
        }
    }
}
