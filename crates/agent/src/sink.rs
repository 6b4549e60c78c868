//! Where a turn's events go (DESIGN §7). The loop emits; the adapters forward. A quiet
//! (planner) turn emits nothing at all.

use crate::events::Event;

/// Receives a turn's events. `emit` must not block: a slow or gone listener never stalls
/// the turn (events for a listener that left are dropped).
pub trait EventSink: Send + Sync {
    fn emit(&self, event: Event);
}

/// Sends nowhere: what a quiet turn uses.
pub struct NoEvents;

impl EventSink for NoEvents {
    fn emit(&self, _event: Event) {}
}

impl EventSink for tokio::sync::mpsc::UnboundedSender<Event> {
    fn emit(&self, event: Event) {
        let _ = self.send(event);
    }
}

impl EventSink for tokio::sync::broadcast::Sender<Event> {
    fn emit(&self, event: Event) {
        let _ = self.send(event);
    }
}
