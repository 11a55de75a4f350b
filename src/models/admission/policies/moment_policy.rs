//! The admission policy of §2.7 (ALGORITHMS.md §2.7, seed 000 Def. 4.1, 4.2, 4.4, 6.1): a rule resolved from its
//! spec, with its threshold and the MARGINAL heuristic, and where its test without MARGINAL fails (the
//! lead-time diagnostic, issue 32).

use super::marginal;
use super::resolve::{resolve, Rule};
use super::rule::{AdmissionPolicy, AdmissionRule, DecisionContext};
use crate::models::admission::lead_time::Rejection;
use crate::models::admission::params::{PolicySpec, SecondParam};

/// One arrival's decision with its diagnostics ([`MomentPolicy::decide`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// The policy's own test, with MARGINAL when it is on (the cluster also requires `N + n0 ≤ C`).
    pub accept: bool,
    /// MARGINAL is on and the candidate is marginal somewhere on the look-ahead ([`marginal::somewhere`]:
    /// only such candidates can be accepted by MARGINAL alone).
    pub marginal_somewhere: bool,
    /// Where the test without MARGINAL fails (`None` if it passes, and for ZEROTH and ACCEPT_IF_FITS).
    pub rejection: Option<Rejection>,
}

/// The policies of §2.7 as one configurable struct.
#[derive(Clone, Copy, Debug)]
pub struct MomentPolicy {
    /// Policy, threshold and MARGINAL flag.
    pub spec: PolicySpec,
    /// Parametrisation of SECOND.
    pub second: SecondParam,
}

impl AdmissionPolicy for MomentPolicy {
    fn name(&self) -> String {
        let mut s = self.spec.kind.name().to_string();
        if self.spec.marginal {
            s.push_str("+MARGINAL");
        }
        s
    }
    fn needs_curves(&self) -> bool {
        self.spec.kind.needs_curves()
    }
    fn accept(&self, c: &DecisionContext) -> bool {
        self.decide(c).accept
    }
}

impl MomentPolicy {
    /// The rule the spec names.
    fn rule(&self) -> Rule {
        resolve(self.spec.kind, self.second)
    }

    /// The policy's test at one arrival and its diagnostics, in one pass over the look-ahead: ZEROTH/FIRST/SECOND
    /// of ALGORITHMS.md §2.7 (with MARGINAL a lead time also passes when the candidate's mean `μ_c(t_k)` is below
    /// `ε_m`, seed 000 Def. 6.1), whether MARGINAL could matter, and where the test without MARGINAL fails.
    pub fn decide(&self, c: &DecisionContext) -> Decision {
        let rule = self.rule();
        let marginal = self.spec.marginal;
        if !rule.needs_curves() {
            return Decision {
                accept: rule.accepts_now(c, self.spec.threshold),
                marginal_somewhere: marginal && marginal::somewhere(c),
                rejection: None,
            };
        }
        let (mut accept, mut somewhere) = (true, false);
        let mut out: Option<Rejection> = None;
        for k in 0..c.grid.policy_t.len() {
            let (ok, mc) = self.moment_point(&rule, c, k, true);
            let passes = marginal::passes(c, mc);
            accept &= ok || (marginal && passes);
            somewhere |= passes;
            if !ok {
                let t = c.grid.policy_t[k];
                let r = out.get_or_insert(Rejection {
                    first_lead_hours: t,
                    max_candidate_mean: mc,
                    without_candidate: false,
                });
                r.first_lead_hours = r.first_lead_hours.min(t);
                r.max_candidate_mean = r.max_candidate_mean.max(mc);
            }
        }
        if let Some(r) = &mut out {
            r.without_candidate =
                (0..c.grid.policy_t.len()).any(|k| !self.moment_point(&rule, c, k, false).0);
        }
        Decision {
            accept,
            marginal_somewhere: marginal && somewhere,
            rejection: out,
        }
    }

    /// FIRST/SECOND without MARGINAL: `None` if the candidate passes, else the largest candidate mean
    /// `max μ_c(t_k)` (cores) over the lead times where the moment condition fails. MARGINAL accepts the
    /// candidate exactly when this is below `ε_m` (seed 000 Def. 6.1, ALGORITHMS.md §2.7 pseudo-code line 8).
    /// `None` for ZEROTH and ACCEPT_IF_FITS.
    pub fn failing_candidate_mean(&self, c: &DecisionContext) -> Option<f64> {
        self.rejection(c).map(|r| r.max_candidate_mean)
    }

    /// Where the test without MARGINAL fails ([`Rejection`], from [`MomentPolicy::decide`]); `None` if the
    /// candidate passes, and for ZEROTH and ACCEPT_IF_FITS. The lead-time diagnostic of
    /// [`crate::models::admission::lead_time::LeadTimeCounts`] (issue 32) is made of these.
    pub fn rejection(&self, c: &DecisionContext) -> Option<Rejection> {
        self.decide(c).rejection
    }

    /// The rule's moment condition at policy point k, with the candidate's curves included
    /// (`with_candidate`) or left out (the admitted deployments alone): (the condition holds, candidate mean
    /// `μ_c(t_k)`).
    fn moment_point(
        &self,
        rule: &Rule,
        c: &DecisionContext,
        k: usize,
        with_candidate: bool,
    ) -> (bool, f64) {
        let g = c.grid;
        let mc = g.at(c.cand_mean, k);
        let w = if with_candidate { 1.0 } else { 0.0 };
        let e = g.at(c.sum_mean, k) + w * mc;
        let ok = rule.holds(c, self.spec.threshold, e, || {
            g.at(c.sum_var, k) + w * g.at(c.cand_var, k)
        });
        (ok, mc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::admission::lookahead::LeadGrid;
    use crate::models::admission::params::PolicyKind;

    /// Hand-made look-ahead with lead times 0.5, 1, 10, 20, 100, 200, 1000, 2000 h (exact curve grid).
    fn grid() -> LeadGrid {
        LeadGrid::new(&[2000.0, 200.0, 20.0, 1.0], 2, 0)
    }

    fn first(th: f64) -> MomentPolicy {
        MomentPolicy {
            spec: PolicySpec {
                kind: PolicyKind::First,
                threshold: th,
                marginal: false,
            },
            second: SecondParam::Ratio,
        }
    }

    fn ctx<'a>(
        g: &'a LeadGrid,
        sm: &'a [f64],
        sv: &'a [f64],
        cm: &'a [f64],
        cv: &'a [f64],
    ) -> DecisionContext<'a> {
        DecisionContext {
            active: 0.0,
            capacity: 10.0,
            n0: 1,
            grid: g,
            sum_mean: sm,
            sum_var: sv,
            cand_mean: cm,
            cand_var: cv,
            marginal_eps: 0.1,
        }
    }

    #[test]
    fn first_failing_lead_time_and_failure_without_the_candidate_on_hand_made_curves() {
        let g = grid();
        assert_eq!(
            g.curve_t,
            [0.5, 1.0, 10.0, 20.0, 100.0, 200.0, 1000.0, 2000.0]
        );
        let zero = [0.0; 8];
        let p = first(10.0);
        // FIRST, E = Σμ + μ_c < 10. (a) cluster 5 everywhere, candidate 6 up to 20 h then 1: fails at 0.5, 1,
        // 10, 20 h, first at 0.5 h (< 1 h), largest failing μ_c 6, passes without the candidate.
        let sm = [5.0; 8];
        let cm = [6.0, 6.0, 6.0, 6.0, 1.0, 1.0, 1.0, 1.0];
        let r = p.rejection(&ctx(&g, &sm, &zero, &cm, &zero)).unwrap();
        assert_eq!(
            (
                r.first_lead_hours,
                r.max_candidate_mean,
                r.without_candidate
            ),
            (0.5, 6.0, false)
        );
        // (b) cluster 5 up to 100 h, then 12 (the admitted deployments alone exceed 10 from 200 h), candidate
        // 0.5: first failure at 200 h (1 wk–1 mo), also without the candidate.
        let sm = [5.0, 5.0, 5.0, 5.0, 5.0, 12.0, 12.0, 12.0];
        let cm = [0.5; 8];
        let r = p.rejection(&ctx(&g, &sm, &zero, &cm, &zero)).unwrap();
        assert_eq!(
            (
                r.first_lead_hours,
                r.max_candidate_mean,
                r.without_candidate
            ),
            (200.0, 0.5, true)
        );
        // (c) cluster 9.5 only at 1000 and 2000 h, candidate 0.7: fails at 1000 and 2000 h only (> 1 mo), passes
        // without the candidate (9.5 < 10)
        let sm = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 9.5, 9.5];
        let cm = [0.7; 8];
        let r = p.rejection(&ctx(&g, &sm, &zero, &cm, &zero)).unwrap();
        assert_eq!((r.first_lead_hours, r.without_candidate), (1000.0, false));
        // (d) passes everywhere: no rejection
        assert_eq!(p.rejection(&ctx(&g, &zero, &zero, &cm, &zero)), None);
        // SECOND (ratio, C = 10): v/(v + (C − E)²) < θ2 = 0.2. Cluster E = 6, v = 1 everywhere (1/17 passes);
        // the candidate adds E 1, v 3 at 10 and 20 h: 4/(4 + 9) = 0.31 fails there, first at 10 h
        // (1 h–1 d); without it 1/17 passes.
        let second = MomentPolicy {
            spec: PolicySpec {
                kind: PolicyKind::Second,
                threshold: 0.2,
                marginal: false,
            },
            second: SecondParam::Ratio,
        };
        let (sm, sv) = ([6.0; 8], [1.0; 8]);
        let cm = [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0];
        let cv = [0.0, 0.0, 3.0, 3.0, 0.0, 0.0, 0.0, 0.0];
        let r = second.rejection(&ctx(&g, &sm, &sv, &cm, &cv)).unwrap();
        assert_eq!(
            (
                r.first_lead_hours,
                r.max_candidate_mean,
                r.without_candidate
            ),
            (10.0, 1.0, false)
        );
    }

    /// `decide`'s one pass against §2.7's definitions written out per lead time (FIRST `E_k < θ1`, SECOND
    /// `E_k < C ∧ V_k/(V_k + (C − E_k)²) < θ2`, MARGINAL `μ_c(t_k) < ε_m`) on random curves around the
    /// thresholds, MARGINAL on and off: the test, whether MARGINAL could matter, and the rejection.
    #[test]
    fn one_pass_decision_matches_the_definitions_per_lead_time() {
        use crate::substrate::rng::stream;
        use rand::RngExt;
        let g = LeadGrid::new(&[2000.0, 200.0, 20.0, 1.0], 4, 6);
        let m = g.curve_t.len();
        let mut r = stream(11, 0x30, 0);
        let mut seen = [0usize; 4]; // accepted, rejected, MARGINAL changed the test, failing without candidate
        for case in 0..1200 {
            let kind = [PolicyKind::First, PolicyKind::Second][case % 2];
            let marginal = case % 4 >= 2;
            let threshold = if kind == PolicyKind::First {
                100.0
            } else {
                0.25
            };
            let base: f64 = r.random_range(40.0..100.0);
            let mut curve =
                |lo: f64, hi: f64| -> Vec<f64> { (0..m).map(|_| r.random_range(lo..hi)).collect() };
            let sm: Vec<f64> = curve(0.0, 20.0).iter().map(|x| base + x).collect();
            let sv = curve(0.0, 400.0);
            // candidate means below ε_m = 0.1 at some lead times in about half the cases, and small everywhere
            // in a third of them (so that MARGINAL passes every failing lead time)
            let cm: Vec<f64> = if case % 3 == 0 {
                curve(0.0, 0.12)
            } else {
                curve(-4.0, 8.0).iter().map(|x| x.max(0.05)).collect()
            };
            let cv = curve(0.0, 30.0);
            let c = DecisionContext {
                active: base.floor(),
                capacity: 128.0,
                n0: 4,
                grid: &g,
                sum_mean: &sm,
                sum_var: &sv,
                cand_mean: &cm,
                cand_var: &cv,
                marginal_eps: 0.1,
            };
            let p = MomentPolicy {
                spec: PolicySpec {
                    kind,
                    threshold,
                    marginal,
                },
                second: SecondParam::Ratio,
            };
            let holds = |k: usize, w: f64| {
                let e = g.at(&sm, k) + w * g.at(&cm, k);
                let v = g.at(&sv, k) + w * g.at(&cv, k);
                match kind {
                    PolicyKind::First => e < threshold,
                    _ => e < 128.0 && v / (v + (128.0 - e) * (128.0 - e)) < threshold,
                }
            };
            let n = g.policy_t.len();
            let mc = |k: usize| g.at(&cm, k);
            let accept = (0..n).all(|k| holds(k, 1.0) || (marginal && mc(k) < 0.1));
            let failing: Vec<usize> = (0..n).filter(|&k| !holds(k, 1.0)).collect();
            let rejection = (!failing.is_empty()).then(|| Rejection {
                first_lead_hours: failing
                    .iter()
                    .map(|&k| g.policy_t[k])
                    .fold(f64::INFINITY, f64::min),
                max_candidate_mean: failing.iter().map(|&k| mc(k)).fold(f64::MIN, f64::max),
                without_candidate: (0..n).any(|k| !holds(k, 0.0)),
            });
            let want = Decision {
                accept,
                marginal_somewhere: marginal && (0..n).any(|k| mc(k) < 0.1),
                rejection,
            };
            let got = p.decide(&c);
            assert_eq!(got, want, "case {case}");
            assert_eq!(p.accept(&c), want.accept);
            assert_eq!(p.rejection(&c), want.rejection);
            seen[if accept { 0 } else { 1 }] += 1;
            seen[2] += (accept && rejection.is_some()) as usize;
            seen[3] += rejection.is_some_and(|r| r.without_candidate) as usize;
        }
        assert!(seen.iter().all(|&x| x > 20), "{seen:?}");
    }
}
