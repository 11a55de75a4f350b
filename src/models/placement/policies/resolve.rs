//! The fit test a spec names (as DSLab's per-algorithm `select_host`): one file per test, resolved once
//! per packing from the [`FitSpec`] and then called through the [`FitTest`] trait.

use super::av::Av;
use super::cantelli::Cantelli;
use super::deterministic::Deterministic;
use super::fit_test::FitTest;
use super::gpa::Gpa;
use super::max::Max;
use super::perc::Perc;
use super::spec::FitSpec;

impl FitSpec {
    /// The fit test this spec describes. The spec must be valid ([`FitSpec::validate`]). For `gpa-cal:ρ` this
    /// is GPA at the target ρ before calibration; packing with it goes through `Instance::pack_detailed`,
    /// which searches the calibrated knob ρ' and packs with GPA(ρ').
    pub fn test(&self) -> Box<dyn FitTest> {
        match *self {
            FitSpec::Gpa(rho) | FitSpec::GpaCal(rho) => Box::new(Gpa::new(rho)),
            FitSpec::Cantelli(b) => Box::new(Deterministic::new(*self, Cantelli(b))),
            FitSpec::Av(f) => Box::new(Deterministic::new(*self, Av(f))),
            FitSpec::Perc(p) => Box::new(Deterministic::new(*self, Perc(p))),
            FitSpec::Max => Box::new(Deterministic::new(*self, Max)),
        }
    }
}
