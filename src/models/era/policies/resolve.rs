//! The quote policy a [`Policy`] names (as DSLab's per-algorithm `select_host`), resolved once per
//! scheduler.

use super::basic_econ::BasicEcon;
use super::greedy::Greedy;
use super::on_demand::OnDemand;
use super::quote::QuotePolicy;
use super::script::ScriptQuote;
use super::spec::{Algorithm, Policy};
use crate::models::era::demand::DemandPredictor;
use crate::models::era::jobs::Prices;
use crate::script::Script;
use std::sync::Arc;

/// The quote policy of `policy` at `prices`; BASIC_ECON prices by `pricing` (which it requires: `None`
/// only for on-demand, greedy and scripts) with penalty factor `gamma_pen`; a script policy runs `script`
/// (its compiled source, which it requires) at `prices.p_fix` and `prices.p_full`.
pub fn resolve(
    policy: &Policy,
    prices: Prices,
    pricing: Option<Box<dyn DemandPredictor>>,
    gamma_pen: f64,
    script: Option<Arc<Script>>,
) -> Box<dyn QuotePolicy> {
    match policy.algorithm {
        Algorithm::Script => Box::new(ScriptQuote::new(
            script.expect("a script policy always has its compiled source"),
            prices.p_fix,
            prices.p_full,
        )),
        Algorithm::OnDemand => Box::new(OnDemand {
            p_full: prices.p_full,
        }),
        Algorithm::Greedy => Box::new(Greedy {
            p_fix: prices.p_fix,
        }),
        Algorithm::BasicEcon => Box::new(BasicEcon {
            pricing: pricing.expect("BASIC_ECON always has a demand predictor"),
            penalty: policy.penalty,
            gamma_pen,
        }),
    }
}
