//! The admission policy of §2.7 (ALGORITHMS.md §2.7, seed 000 Def. 4.1, 4.2, 4.4, 6.1): a rule resolved from its
//! spec, with its threshold and the MARGINAL heuristic, and where its test without MARGINAL fails (the
//! lead-time diagnostic, issue 32).

use super::marginal;
use super::resolve::{resolve, Rule};
use super::rule::{AdmissionPolicy, AdmissionRule, DecisionContext};
use crate::models::admission::lead_time::Rejection;
use crate::models::admission::params::{PolicySpec, SecondParam};

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
        self.test(c, self.spec.marginal)
    }
}

impl MomentPolicy {
    /// The rule the spec names.
    fn rule(&self) -> Rule {
        resolve(self.spec.kind, self.second)
    }

    /// The policy's test with the MARGINAL heuristic on or off (`marginal`), whatever `spec.marginal` says:
    /// ZEROTH/FIRST/SECOND of ALGORITHMS.md §2.7, and with `marginal` a lead time also passes when the
    /// candidate's mean `μ_c(t_k)` is below `ε_m` (seed 000 Def. 6.1).
    pub fn test(&self, c: &DecisionContext, marginal: bool) -> bool {
        let rule = self.rule();
        if !rule.needs_curves() {
            return rule.accepts_now(c, self.spec.threshold);
        }
        (0..c.grid.policy_t.len()).all(|k| {
            let (ok, mc) = self.moment_point(&rule, c, k, true);
            ok || (marginal && marginal::passes(c, mc))
        })
    }

    /// FIRST/SECOND without MARGINAL: `None` if the candidate passes, else the largest candidate mean
    /// `max μ_c(t_k)` (cores) over the lead times where the moment condition fails. MARGINAL accepts the
    /// candidate exactly when this is below `ε_m` (seed 000 Def. 6.1, ALGORITHMS.md §2.7 pseudo-code line 8).
    /// `None` for ZEROTH and ACCEPT_IF_FITS.
    pub fn failing_candidate_mean(&self, c: &DecisionContext) -> Option<f64> {
        self.rejection(c).map(|r| r.max_candidate_mean)
    }

    /// Where the test without MARGINAL fails ([`Rejection`]); `None` if the candidate passes, and for ZEROTH
    /// and ACCEPT_IF_FITS. The lead-time diagnostic of
    /// [`crate::models::admission::lead_time::LeadTimeCounts`] (issue 32) is made of these.
    pub fn rejection(&self, c: &DecisionContext) -> Option<Rejection> {
        let rule = self.rule();
        if !rule.needs_curves() {
            return None;
        }
        let mut out: Option<Rejection> = None;
        for k in 0..c.grid.policy_t.len() {
            if let (false, mc) = self.moment_point(&rule, c, k, true) {
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
        out
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

    /// Whether the candidate is marginal somewhere on the look-ahead ([`marginal::somewhere`]): only such
    /// candidates can be accepted by MARGINAL alone.
    pub fn marginal_somewhere(&self, c: &DecisionContext) -> bool {
        marginal::somewhere(c)
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
}
