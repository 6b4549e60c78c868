//! The agent loop: model ↔ tools until the model answers, quiet or streaming (issue 3).
