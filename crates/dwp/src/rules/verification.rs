//! The finaliser's verdict as `state.json` keeps it (additive fields `verification` and
//! `withdrawn_verifications`): seed 002's last task closes through the finaliser, so the
//! plan is `completed` only under a verdict that closes it.

use serde::{Deserialize, Serialize};

/// The finaliser's verdict as `state.json` keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verification {
    pub verdict: Verdict,
    pub at: String,
    #[serde(default)]
    pub reasons: Vec<String>,
    /// The attestation, relative to the plan folder (`analysis_results/FINALIZATION.json`,
    /// or its copy under `analysis_results/history/` once withdrawn).
    pub attestation: String,
    /// The user accepted the plan as finished although it is not verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<Acceptance>,
    /// Why the verdict no longer holds, once withdrawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawn: Option<String>,
}

/// The user's explicit choice to take an unverified plan as finished.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Acceptance {
    pub at: String,
    pub by: String,
}

/// The finaliser's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    Verified,
    Unverified,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Verified => "VERIFIED",
            Verdict::Unverified => "UNVERIFIED",
        }
    }
}

impl Verification {
    /// The plan may be `completed` under this verdict.
    pub fn closes_the_plan(&self) -> bool {
        self.verdict == Verdict::Verified || self.accepted.is_some()
    }
}
