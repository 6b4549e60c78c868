//! Model providers: OpenAI-compatible and Anthropic over HTTP with SSE (issue 3).
