//! Pretrained C2MARL arms (issue 25, the playground's default view): a C2MARL arm trained by a committed
//! command, saved with its **recipe** — everything that determines what training produces — so that a run can
//! take the saved arm instead of training it. Training is deterministic (same scenario + seed → bit-identical
//! policy), so a run that takes a matching pretrained arm gives the same report, bit for bit, as one that
//! trains; the saved arm is a precomputation, not a scenario setting, and share links do not mention it.
//!
//! A run is given pretrained arms as input files named by a bundled id of kind
//! [`crate::data::DataKind::C2marlPolicy`] (e.g. [`crate::data::OVERSUB_C2MARL_E11`], the default E1.1 scenario's
//! `c2marl:0.95` arm). Given one, every C2MARL arm of the run must match a given file's recipe; otherwise the
//! run is refused with the differing settings (`oversub.beta: 0.6 in the file, 0.7 here`): the caller then
//! trains (runs without the file). The `pretrained` scenario operation answers, without running, which arms a
//! file serves.
//!
//! File form: JSON (optionally gzip-compressed), `{ "format": 1, "recipe": { key: value, … }, "policy": <a
//! trained policy file, [`TrainedPolicy`]> }`; the training curve is the policy's own log. The policy part is
//! the exportable policy file of any version the engine reads, so a new [`super::c2marl::POLICY_VERSION`]
//! only needs the bundled file regenerated (`make oversub-pretrained`).

use super::c2marl::{TrainedPolicy, POLICY_VERSION};
use super::params::OversubParams;
use super::policies::spec::Policy;
use crate::experiment::Inputs;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The version of the pretrained-arm file form (the wrapper; the policy inside has its own).
pub const PRETRAINED_FORMAT: u32 = 1;

/// Largest pretrained-arm file (uncompressed): a policy file ([`super::c2marl::MAX_POLICY_BYTES`]) and its
/// recipe.
pub const MAX_PRETRAINED_BYTES: usize = super::c2marl::MAX_POLICY_BYTES + (1 << 16);

/// The command that regenerates the bundled pretrained arms (named in every message about an outdated file).
pub const REGENERATE: &str = "make oversub-pretrained";

/// A pretrained C2MARL arm (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pretrained {
    /// [`PRETRAINED_FORMAT`].
    pub format: u32,
    /// The arm's recipe ([`recipe`]): flat keys (`seed`, `policy`, `train_seed`, `policy_version`,
    /// `oversub.<field>`).
    pub recipe: Map<String, Value>,
    /// The trained policy, with its training log.
    pub policy: TrainedPolicy,
}

/// The recipe of the C2MARL arm `policy` (a `c2marl:α`) with training seed `train_seed` in a run of `params`
/// and `seed`: the run's seed, the policy, the training seed, the policy file version and every field of the
/// section except those that only touch the evaluation (`policies`, `eval_episodes`). Flat keys, so a
/// difference names the field (`oversub.beta`).
pub fn recipe(
    params: &OversubParams,
    seed: u64,
    policy: &Policy,
    train_seed: u32,
) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("seed".into(), Value::from(seed));
    m.insert("policy".into(), Value::from(policy.name()));
    m.insert("train_seed".into(), Value::from(train_seed));
    m.insert("policy_version".into(), Value::from(POLICY_VERSION));
    if let Ok(Value::Object(section)) = serde_json::to_value(params) {
        for (k, v) in section {
            if k != "policies" && k != "eval_episodes" {
                m.insert(format!("oversub.{k}"), v);
            }
        }
    }
    m
}

impl Pretrained {
    /// Reads a pretrained-arm file (JSON, or its gzip; at most [`MAX_PRETRAINED_BYTES`] uncompressed; the policy
    /// checked as [`TrainedPolicy`] loading checks it). Errors name the offending field, or the command that
    /// regenerates the bundled files when the file is of another format or policy version.
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<Pretrained, String> {
        let raw = crate::input::maybe_gunzip(name, bytes).map_err(|e| e.to_string())?;
        if raw.len() > MAX_PRETRAINED_BYTES {
            return Err(format!(
                "{name}: {} bytes, more than {MAX_PRETRAINED_BYTES}",
                raw.len()
            ));
        }
        let v: Value = serde_json::from_slice(&raw).map_err(|e| format!("{name}: {e}"))?;
        let format = v.get("format").and_then(Value::as_u64);
        if format != Some(PRETRAINED_FORMAT as u64) {
            return Err(format!(
                "{name}: a pretrained C2MARL file of format {PRETRAINED_FORMAT} was expected, got {}; regenerate it with `{REGENERATE}`",
                format.map_or("none".to_string(), |f| f.to_string())
            ));
        }
        let version = v.pointer("/policy/version").and_then(Value::as_u64);
        if version != Some(POLICY_VERSION as u64) {
            return Err(format!(
                "{name}: the policy inside is of version {}, this engine reads version {POLICY_VERSION}; regenerate it with `{REGENERATE}`",
                version.map_or("none".to_string(), |f| f.to_string())
            ));
        }
        serde_json::from_value(v).map_err(|e| format!("{name}: {e}"))
    }

    /// The file form (JSON). Errors: a policy that would not load back.
    pub fn to_json(&self) -> Result<String, String> {
        self.policy.check()?;
        serde_json::to_string(self).map_err(|e| e.to_string())
    }
}

/// The input files of a run that are pretrained arms (named by a bundled id of kind
/// [`crate::data::DataKind::C2marlPolicy`]), read. Errors: a file that does not read, naming it.
pub fn given(inputs: &Inputs) -> Result<Vec<(String, Pretrained)>, String> {
    let mut out = Vec::new();
    for f in inputs.files {
        if crate::data::bundled(&f.name)
            .is_some_and(|b| b.kind == crate::data::DataKind::C2marlPolicy)
        {
            out.push((f.name.clone(), Pretrained::from_bytes(&f.name, &f.bytes)?));
        }
    }
    Ok(out)
}

/// How a C2MARL arm of a run stands against the given pretrained files.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArmMatch {
    /// The policy (`c2marl:α`).
    pub policy: String,
    /// The training seed (0-based).
    pub train_seed: u32,
    /// The file that serves the arm (`None`: the arm must be trained).
    pub file: Option<String>,
    /// Why no file serves it: the settings that differ from the closest file's recipe, as `key: file value
    /// ≠ here`; `None` when served (or when no file was given).
    pub difference: Option<String>,
}

/// The C2MARL arms of a run of `params` and `seed` (in the run's order), each with the given file whose
/// recipe it matches, or the difference to the first given file.
pub fn match_arms(
    params: &OversubParams,
    seed: u64,
    files: &[(String, Pretrained)],
) -> Vec<ArmMatch> {
    let mut out = Vec::new();
    for p in params.policy_list() {
        if !matches!(p, Policy::C2marl(_)) {
            continue;
        }
        for s in 0..params.train_seeds {
            let want = recipe(params, seed, &p, s);
            let hit = files.iter().find(|(_, f)| f.recipe == want);
            out.push(ArmMatch {
                policy: p.name(),
                train_seed: s,
                file: hit.map(|(n, _)| n.clone()),
                difference: match (hit, files.first()) {
                    (None, Some((name, f))) => Some(format!(
                        "the pretrained policy '{name}' was trained for another scenario ({})",
                        super::c2marl::fingerprint_difference(
                            &Value::Object(f.recipe.clone()).to_string(),
                            &Value::Object(want).to_string()
                        )
                    )),
                    _ => None,
                },
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipes_name_the_fields_that_differ() {
        let p = OversubParams::default();
        let a = recipe(&p, 1, &Policy::C2marl(0.95), 0);
        // the evaluation-only fields are not part of it
        let q = OversubParams {
            eval_episodes: 3,
            policies: vec![Policy::Ma],
            ..p.clone()
        };
        assert_eq!(recipe(&q, 1, &Policy::C2marl(0.95), 0), a);
        let q = OversubParams {
            beta: 0.7,
            ..p.clone()
        };
        let b = recipe(&q, 1, &Policy::C2marl(0.9), 0);
        let d = super::super::c2marl::fingerprint_difference(
            &Value::Object(a).to_string(),
            &Value::Object(b).to_string(),
        );
        assert_eq!(
            d,
            "oversub.beta: 0.6 in the file, 0.7 here; policy: \"c2marl:0.95\" in the file, \"c2marl:0.9\" here"
        );
    }
}
