//! What the tuning of one arm gives: its result and status (ALGORITHMS.md §2.8, §2.10).

use super::stats::*;
use crate::models::admission::params::PolicyKind;
use serde::{Deserialize, Serialize};

/// How the tuning of one arm ended (ALGORITHMS.md §2.8, §2.10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TuneStatus {
    /// The threshold is the most permissive one the search certified (failure-rate bound ≤ SLA).
    #[default]
    Tuned,
    /// No threshold the search evaluated was certified: the runs carry too few scale-out requests to certify
    /// the SLA at any threshold tried (this scale is too small), or every threshold tried broke the SLA. The
    /// reported threshold is the one the reason names, not a tuned one.
    Untunable,
    /// ACCEPT_IF_FITS: no threshold, the SLA ignored (the utilization upper bound of §2.10).
    Bound,
}

/// Result of tuning one policy (one row of seed 000 Table 2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneResult {
    /// Display name, e.g. "SECOND+MARGINAL".
    pub policy: String,
    /// Policy kind.
    pub kind: PolicyKind,
    /// MARGINAL heuristic on.
    pub marginal: bool,
    /// Tuned threshold (cores for ZEROTH/FIRST, Cantelli ratio for SECOND); when untunable, the threshold
    /// its reason names; 0 for ACCEPT_IF_FITS.
    pub threshold: f64,
    /// Evaluation at `threshold`.
    pub tuned: Evaluation,
    /// How the tuning ended.
    #[serde(default)]
    pub status: TuneStatus,
    /// Why the arm is untunable (the requests its runs carried against [`requests_to_certify`], or the
    /// failures of the least permissive threshold tried), or what an upper-bound arm is; empty when tuned.
    #[serde(default)]
    pub status_reason: String,
    /// 95% BCa CI of the utilization.
    pub utilization_ci: (f64, f64),
    /// All thresholds evaluated during the search (the frontier: utilization vs failure rate).
    pub sweep: Vec<Evaluation>,
    /// A script arm's run-time error (issue 31): the arm stopped there, untunable; `None` otherwise (not
    /// serialized then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
