//! Recorded answers replayed through a wire format's decoder, as the HTTP reader feeds it
//! (the format tests' fixtures).

use std::collections::VecDeque;

use crate::http::ChunkDecoder;
use crate::sse::SseDecoder;
use crate::{LlmError, StreamEvent};

/// Runs a recorded stream through `decoder` as the reader would, in 7-byte pieces: the
/// events it yields, and the error that ended it, if any.
pub(crate) fn decode_recorded(
    stream: &str,
    mut decoder: Box<dyn ChunkDecoder>,
) -> (Vec<StreamEvent>, Option<LlmError>) {
    let mut sse = SseDecoder::new();
    let mut events = Vec::new();
    let mut out = VecDeque::new();
    let mut run = || {
        for piece in stream.as_bytes().chunks(7) {
            sse.push(piece, &mut events);
            for event in events.drain(..) {
                if !decoder.is_done() {
                    decoder.decode(&event, &mut out)?;
                }
            }
        }
        sse.finish(&mut events);
        for event in events.drain(..) {
            if !decoder.is_done() {
                decoder.decode(&event, &mut out)?;
            }
        }
        decoder.finish(&mut out)
    };
    let error = run().err();
    (out.into_iter().collect(), error)
}
