//! SECOND (seed 000 Def. 4.4, ALGORITHMS.md §2.7): at every lead time, the Cantelli bound on the overflow
//! probability `V_k/(V_k + (C − E_k)²) < θ2` with `E_k < C` (dimensionless θ2), or in the cores form
//! `E_k + sqrt(V_k(1−δ2)/δ2) < θ2` (θ2 in cores).

use super::rule::{AdmissionRule, DecisionContext};
use crate::models::admission::params::SecondParam;

/// SECOND in the parametrisation of [`SecondParam`].
#[derive(Clone, Copy, Debug)]
pub struct Second(pub SecondParam);

impl AdmissionRule for Second {
    fn needs_curves(&self) -> bool {
        true
    }
    fn holds(&self, c: &DecisionContext, threshold: f64, e: f64, v: impl FnOnce() -> f64) -> bool {
        let v = v();
        match self.0 {
            SecondParam::Ratio => {
                let d = c.capacity - e;
                e < c.capacity && v / (v + d * d) < threshold
            }
            SecondParam::Cores { delta } => e + (v * (1.0 - delta) / delta).sqrt() < threshold,
        }
    }
}
