//! A user's policy script as a scenario carries it ([`ScriptPolicy`]: name, language, on/off, source), and
//! the checks every model's `scripts` list gets ([`validate_scripts`]). The source travels in the scenario and
//! so in share links; each model compiles it against its own hook (placement's fit test, oversubscription's
//! rate, admission's admit rule).

use super::lang::{Script, ScriptError, LANGUAGE};
use crate::substrate::error::FieldErrors;
use serde::{Deserialize, Serialize};

/// A user's policy in the policy language (issue 31; docs/policies.md), run beside the papers' policies as
/// `script:<name>`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptPolicy {
    /// Name, 1–40 of `A–Z a–z 0–9 _ -`, unique among the model's scripts: the policy is `script:<name>`.
    pub name: String,
    /// The language and hook version the source is written for ([`LANGUAGE`]).
    #[serde(default = "language")]
    pub language: String,
    /// Whether the run includes it.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// The source: the model's hook functions (placement: `fits`, optional `score` and `size`;
    /// oversubscription: `rate`; admission: `admit`).
    pub source: String,
}

fn language() -> String {
    LANGUAGE.to_string()
}

fn yes() -> bool {
    true
}

impl ScriptPolicy {
    /// The script named `name` with `source`, enabled, in the current language.
    pub fn new(name: &str, source: &str) -> Self {
        ScriptPolicy {
            name: name.to_string(),
            language: language(),
            enabled: true,
            source: source.to_string(),
        }
    }

    /// The policy's spec, `script:<name>`.
    pub fn spec(&self) -> String {
        format!("script:{}", self.name)
    }
}

/// A model's starter scripts (name, source) as the playground's code box lists them (the `starters`
/// operation): enabled, in the current language.
pub fn starters(list: &[(&str, &str)]) -> Vec<ScriptPolicy> {
    list.iter()
        .map(|(name, source)| ScriptPolicy::new(name, source))
        .collect()
}

/// Most scripts in one model's section.
pub const MAX_SCRIPTS: usize = 8;

/// Checks a model's `scripts` list into `errs` (fields `scripts`, `scripts[k].name`, `scripts[k].language`,
/// `scripts[k].source`): at most [`MAX_SCRIPTS`], names of 1–40 of `A–Z a–z 0–9 _ -` used once, the current
/// [`LANGUAGE`], and a source that `compile` accepts (its error at line and column).
pub fn validate_scripts(
    scripts: &[ScriptPolicy],
    compile: impl Fn(&str) -> Result<Script, ScriptError>,
    errs: &mut FieldErrors,
) {
    if scripts.len() > MAX_SCRIPTS {
        errs.add("scripts", format!("at most {MAX_SCRIPTS} scripts"));
    }
    for (k, sp) in scripts.iter().enumerate() {
        let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if sp.name.is_empty() || sp.name.len() > 40 || !sp.name.chars().all(ok) {
            errs.add(
                &format!("scripts[{k}].name"),
                format!(
                    "a name of 1–40 letters, digits, '_' or '-' is needed, got '{}'",
                    sp.name
                ),
            );
        } else if scripts[..k].iter().any(|o| o.name == sp.name) {
            errs.add(
                &format!("scripts[{k}].name"),
                format!("the name '{}' is used twice", sp.name),
            );
        }
        if sp.language != LANGUAGE {
            errs.add(
                &format!("scripts[{k}].language"),
                format!(
                    "this engine runs scripts in {LANGUAGE}, got '{}'",
                    sp.language
                ),
            );
        } else if let Err(e) = compile(&sp.source) {
            errs.add(&format!("scripts[{k}].source"), e.to_string());
        }
    }
}
