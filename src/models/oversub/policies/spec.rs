//! The policy names of a scenario ([`Policy`]: `grid:X`, `ma`, `sl`, `peak:…`, `gpa:α`, `c2marl:α`,
//! `c2marl:FILE`, `script:NAME`), parsed and written back; [`super::resolve`] turns one into a [`super::RatePolicy`].

use serde::{Deserialize, Serialize};

/// How the peak predictor summarises a subscriber's recent VM usage rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Peak {
    /// The `p`-th percentile (0–100) of the VM-hour usage rates of the window.
    Percentile(f64),
    /// Mean + `n`·standard deviation of the VM-hour usage rates of the window.
    Sigma(f64),
}

/// The range of a safety level α of `gpa:α` and `c2marl:α` (both ends included).
pub const ALPHA_RANGE: (f64, f64) = (0.5, 0.9999);

/// A rate policy (§3.4 and the two further baselines). Serialized as its name: `grid:X`, `ma`, `sl`,
/// `peak:pP` (e.g. `peak:p95`), `peak:Nsigma` (e.g. `peak:3sigma`), `gpa:A` (α, e.g. `gpa:0.95`),
/// `c2marl:A` (trained in the run at safety level α), `c2marl:FILE` (a trained policy file given as input) or
/// `script:NAME` (a user's script of `oversub.scripts`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Policy {
    /// Every subscriber's rate is `x` at every hour.
    Grid(f64),
    /// Moving average of the subscriber's 95th-percentile VM usage rate over the last `ma_window_h` hours.
    Ma,
    /// The maximum of the subscriber's usage rate by hour of day over the history days.
    Sl,
    /// The peak predictor over the last `peak_window_h` hours.
    Peak(Peak),
    /// The analytic Gaussian chance-constrained rate at safety level α.
    Gpa(f64),
    /// C2MARL trained in the run at safety level α.
    C2marl(f64),
    /// A trained C2MARL policy from the input file of this name.
    C2marlFile(String),
    /// The user's rate script of this name in `oversub.scripts` (issue 31, [`super::script`]).
    Script(String),
}

/// Formats a number the way policy names carry it (shortest round-trip form).
fn num(x: f64) -> String {
    format!("{x}")
}

impl Policy {
    /// The policy's name (see the type's documentation).
    pub fn name(&self) -> String {
        match self {
            Policy::Grid(x) => format!("grid:{}", num(*x)),
            Policy::Ma => "ma".into(),
            Policy::Sl => "sl".into(),
            Policy::Peak(Peak::Percentile(p)) => format!("peak:p{}", num(*p)),
            Policy::Peak(Peak::Sigma(n)) => format!("peak:{}sigma", num(*n)),
            Policy::Gpa(a) => format!("gpa:{}", num(*a)),
            Policy::C2marl(a) => format!("c2marl:{}", num(*a)),
            Policy::C2marlFile(f) => format!("c2marl:{f}"),
            Policy::Script(n) => format!("script:{n}"),
        }
    }

    /// Parses a name of [`Policy::name`]. Errors name the expected forms.
    pub fn parse(s: &str) -> Result<Policy, String> {
        let s = s.trim();
        let bad = || {
            format!(
                "unknown policy '{s}' (expected grid:X, ma, sl, peak:pP, peak:Nsigma, gpa:ALPHA, c2marl:ALPHA, c2marl:FILE or script:NAME)"
            )
        };
        let number = |t: &str, lo: f64, hi: f64, what: &str| -> Result<f64, String> {
            match t.parse::<f64>() {
                Ok(v) if v.is_finite() && v >= lo && v <= hi => Ok(v),
                _ => Err(format!(
                    "policy '{s}': {what} must be a number in [{lo}, {hi}]"
                )),
            }
        };
        match s {
            "ma" => return Ok(Policy::Ma),
            "sl" => return Ok(Policy::Sl),
            _ => {}
        }
        let (head, arg) = s.split_once(':').ok_or_else(bad)?;
        match head {
            "grid" => Ok(Policy::Grid(number(arg, 0.01, 1.0, "the rate")?)),
            "gpa" => Ok(Policy::Gpa(number(arg, ALPHA_RANGE.0, ALPHA_RANGE.1, "α")?)),
            "peak" => {
                if let Some(p) = arg.strip_prefix('p') {
                    Ok(Policy::Peak(Peak::Percentile(number(
                        p,
                        1.0,
                        100.0,
                        "the percentile",
                    )?)))
                } else if let Some(n) = arg.strip_suffix("sigma") {
                    Ok(Policy::Peak(Peak::Sigma(number(n, 0.0, 10.0, "N")?)))
                } else {
                    Err(bad())
                }
            }
            "c2marl" => {
                if arg.is_empty() {
                    return Err(bad());
                }
                match arg.parse::<f64>() {
                    Ok(_) => Ok(Policy::C2marl(number(
                        arg,
                        ALPHA_RANGE.0,
                        ALPHA_RANGE.1,
                        "α",
                    )?)),
                    Err(_) => {
                        if arg.len() > 200 || arg.chars().any(|c| c.is_control()) {
                            Err(format!("policy '{s}': the file name must be at most 200 printable characters"))
                        } else {
                            Ok(Policy::C2marlFile(arg.to_string()))
                        }
                    }
                }
            }
            "script" => {
                let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
                if arg.is_empty() || arg.len() > 40 || !arg.chars().all(ok) {
                    Err(format!(
                        "policy '{s}': a script name of 1–40 letters, digits, '_' or '-' is needed"
                    ))
                } else {
                    Ok(Policy::Script(arg.to_string()))
                }
            }
            _ => Err(bad()),
        }
    }
}

// Read from its name and written as its name (serde's `try_from` / `into`).
crate::serde_by_name!(Policy, parse: Policy::parse, name: Policy::name);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_names_round_trip() {
        for n in [
            "grid:0.2",
            "grid:1",
            "ma",
            "sl",
            "peak:p95",
            "peak:p99.5",
            "peak:3sigma",
            "gpa:0.95",
            "c2marl:0.75",
            "c2marl:policy.json",
            "script:sl-recent",
        ] {
            assert_eq!(Policy::parse(n).unwrap().name(), n);
        }
        for bad in [
            "",
            "grid",
            "grid:0",
            "grid:1.5",
            "peak:q9",
            "gpa:1",
            "c2marl:",
            "c2marl:0.2",
            "x:1",
            "script:",
            "script:a b",
        ] {
            assert!(Policy::parse(bad).is_err(), "{bad}");
        }
    }
}
