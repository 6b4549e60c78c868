//! Retrying a model call with backoff, only where it is safe: the HTTP clients retry while
//! no part of the answer has been handed on (up to and including its first event), so a
//! retried call can never repeat a token the user already saw.

use std::future::Future;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::LlmError;

/// How often and how long to retry a failed call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt; 0 never retries.
    pub max_retries: u32,
    /// The wait before the first retry; it doubles for each next one.
    pub first_backoff: Duration,
    /// No single wait is longer, not even one a `retry-after` asks for: such a call fails
    /// at once with `RateLimited { retry_after }` for the caller to show.
    pub max_backoff: Duration,
    /// All waits of one call together stay within this.
    pub budget: Duration,
}

impl RetryPolicy {
    pub const NEVER: RetryPolicy = RetryPolicy {
        max_retries: 0,
        first_backoff: Duration::ZERO,
        max_backoff: Duration::ZERO,
        budget: Duration::ZERO,
    };

    /// The planner's: at most twice, within 10 s in all (DESIGN §2), then the fallback.
    pub fn planner() -> RetryPolicy {
        RetryPolicy {
            max_retries: 2,
            first_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(8),
            budget: Duration::from_secs(10),
        }
    }

    /// How long to wait before retry number `retry` (from 1) after `error`, having waited
    /// `waited` so far; `None` when the call should fail with `error` instead.
    pub fn wait_before(&self, retry: u32, error: &LlmError, waited: Duration) -> Option<Duration> {
        if retry > self.max_retries || !error.is_retryable() {
            return None;
        }
        let wait = match error {
            LlmError::RateLimited { retry_after: Some(asked), .. } => *asked,
            _ => self.first_backoff.saturating_mul(1 << (retry - 1).min(16)).min(self.max_backoff),
        };
        (wait <= self.max_backoff && waited + wait <= self.budget).then_some(wait)
    }
}

impl Default for RetryPolicy {
    /// The executor's: a few retries within half a minute.
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_retries: 3,
            first_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(20),
            budget: Duration::from_secs(30),
        }
    }
}

/// Runs `attempt` until it succeeds or the policy says stop; a stop during a wait ends with
/// `Cancelled`.
pub(crate) async fn with_retry<T, F, Fut>(
    policy: &RetryPolicy,
    cancel: &CancellationToken,
    mut attempt: F,
) -> Result<T, LlmError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, LlmError>>,
{
    let mut waited = Duration::ZERO;
    let mut retry = 0;
    loop {
        let error = match attempt().await {
            Ok(value) => return Ok(value),
            Err(error) => error,
        };
        retry += 1;
        let Some(wait) = policy.wait_before(retry, &error, waited) else {
            return Err(error);
        };
        tokio::select! {
            _ = cancel.cancelled() => return Err(LlmError::Cancelled),
            _ = tokio::time::sleep(wait) => {}
        }
        waited += wait;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;

    fn unavailable() -> LlmError {
        LlmError::Unavailable { status: Some(503), message: String::new() }
    }

    fn rate_limited(after: Option<u64>) -> LlmError {
        LlmError::RateLimited { retry_after: after.map(S), message: String::new() }
    }

    #[test]
    fn backoff_doubles_within_the_caps() {
        let policy =
            RetryPolicy { max_retries: 5, first_backoff: S(1), max_backoff: S(5), budget: S(100) };
        let waits: Vec<_> = (1..=6).map(|r| policy.wait_before(r, &unavailable(), S(0))).collect();
        assert_eq!(waits, vec![Some(S(1)), Some(S(2)), Some(S(4)), Some(S(5)), Some(S(5)), None]);
    }

    #[test]
    fn table_of_decisions() {
        let policy = RetryPolicy::planner();
        let cases = [
            (1, rate_limited(Some(3)), S(0), Some(S(3))),
            (1, rate_limited(Some(60)), S(0), None), // longer than any wait we make
            (1, rate_limited(None), S(0), Some(S(1))),
            (2, unavailable(), S(9), None), // over the 10 s budget
            (3, unavailable(), S(0), None), // the planner retries twice
            (1, LlmError::ContextTooLong { message: String::new() }, S(0), None),
            (1, LlmError::Cancelled, S(0), None),
        ];
        for (retry, error, waited, expected) in cases {
            assert_eq!(
                policy.wait_before(retry, &error, waited),
                expected,
                "{retry} {error:?} {waited:?}"
            );
        }
        assert_eq!(RetryPolicy::NEVER.wait_before(1, &unavailable(), S(0)), None);
    }
}
