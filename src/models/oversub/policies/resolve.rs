//! A policy name ([`Policy`]) → the [`RatePolicy`] that acts for it in an episode.

use super::super::c2marl::TrainedPolicy;
use super::super::params::OversubParams;
use super::c2marl::C2marl;
use super::estimates::Estimates;
use super::gpa::Gpa;
use super::grid::Grid;
use super::ma::Ma;
use super::peak::PeakPredictor;
use super::rule::{Predictor, RatePolicy};
use super::sl::Sl;
use super::spec::Policy;

/// The policy `policy` for `n` subscribers: a baseline from the section and the history estimates, or C2MARL
/// acting with `learned` (its trained policy, required for `c2marl:α` and `c2marl:FILE`). `None`: a C2MARL
/// name without a trained policy, or a script (`script:NAME`, run by [`super::script::ScriptRate`]).
pub fn resolve<'a>(
    policy: &Policy,
    params: &'a OversubParams,
    est: &'a Estimates,
    learned: Option<&'a TrainedPolicy>,
    n: usize,
) -> Option<Box<dyn RatePolicy + 'a>> {
    if let Some(p) = learned {
        return Some(Box::new(C2marl::new(p, &params.actions, n)));
    }
    let clip = Predictor::of(params);
    Some(match policy {
        Policy::Grid(x) => Box::new(Grid { x: *x }),
        Policy::Ma => Box::new(Ma {
            window: params.ma_window_h as i32,
            clip,
        }),
        Policy::Sl => Box::new(Sl { est, clip }),
        Policy::Peak(peak) => Box::new(PeakPredictor {
            peak: *peak,
            window: params.peak_window_h as i32,
            clip,
        }),
        Policy::Gpa(alpha) => Box::new(Gpa {
            alpha: *alpha,
            params,
            est,
        }),
        Policy::C2marl(_) | Policy::C2marlFile(_) | Policy::Script(_) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::cluster::Cluster;
    use super::super::super::profile::Episode;
    use super::super::spec::Peak;
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn grid_sl_ma_and_peak_rates() {
        let p = OversubParams::default();
        let e = Estimates {
            sl: vec![[0.3; 24]],
            mu: vec![[0.2; 24]],
            sd: vec![[0.0; 24]],
            kappa: vec![8.0],
        };
        let ep = Episode::empty(1, 2);
        let c = Cluster::new(&p, Cow::Borrowed(&ep), false);
        let mut out = [0.0];
        let mut rate = |pol: Policy| {
            resolve(&pol, &p, &e, None, 1).map(|mut r| {
                r.rates(&c, &mut out);
                out[0]
            })
        };
        assert_eq!(rate(Policy::Grid(0.4)), Some(0.4));
        // the maximum usage 0.3 over β = 0.6
        assert!((rate(Policy::Sl).unwrap() - 0.3 / 0.6).abs() < 1e-15);
        // No VM in the window: MA and the peak predictor give 1.
        assert_eq!(rate(Policy::Ma), Some(1.0));
        assert_eq!(rate(Policy::Peak(Peak::Sigma(3.0))), Some(1.0));
        assert!(rate(Policy::C2marl(0.95)).is_none());
    }
}
