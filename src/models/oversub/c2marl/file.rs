//! The trained policy, the exportable file ([`TrainedPolicy`]): greedy actions and the policy-file format.

use super::super::nn::{Mlp, MlpFile, Scratch};
use super::config::{C2marlConfig, MAX_FINGERPRINT_BYTES, MAX_POLICY_BYTES, POLICY_VERSION};
use super::env::Dims;
use super::log::EpisodeLog;
use serde::{Deserialize, Serialize};

/// The first index of the largest value (NaN never wins).
pub(super) fn argmax(q: &[f32]) -> usize {
    let mut best = 0;
    for (a, &v) in q.iter().enumerate().skip(1) {
        if v > q[best] {
            best = a;
        }
    }
    best
}

/// A trained C2MARL policy, the exportable file: the agents' online networks `Q^i` (decentralised
/// execution: each agent acts greedily on its own observation), with what produced them. JSON via serde;
/// loading ([`TrainedPolicy::from_json`] or any serde deserializer) checks the version, the configuration,
/// the shapes of every network against `dims` and `config.hidden`, finite parameters and log values, and
/// fails with a message naming the offending field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "PolicyFile")]
pub struct TrainedPolicy {
    /// File format version, [`POLICY_VERSION`].
    pub version: u32,
    /// The caller's description of what the policy was trained for (scenario settings).
    pub fingerprint: String,
    /// The training configuration.
    pub config: C2marlConfig,
    /// The environment's shapes.
    pub dims: Dims,
    /// `Q^i` for each agent i (`agent_obs_len → config.hidden → n_actions`).
    pub agents: Vec<Mlp>,
    /// The training log, one entry per episode.
    pub log: Vec<EpisodeLog>,
}

/// The unchecked file form of a [`TrainedPolicy`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PolicyFile {
    version: u32,
    fingerprint: String,
    config: C2marlConfig,
    dims: Dims,
    agents: Vec<MlpFile<f32>>,
    log: Vec<EpisodeLog>,
}

impl TryFrom<PolicyFile> for TrainedPolicy {
    type Error = String;

    fn try_from(f: PolicyFile) -> Result<Self, String> {
        if f.version != POLICY_VERSION {
            return Err(format!(
                "version: this engine reads C2MARL policy files of version {POLICY_VERSION}, got {}",
                f.version
            ));
        }
        let n = f.agents.len();
        let mut agents = Vec::with_capacity(n);
        for (i, a) in f.agents.into_iter().enumerate() {
            agents
                .push(Mlp::from_parts(a.sizes, a.params).map_err(|e| format!("agents[{i}].{e}"))?);
        }
        let p = TrainedPolicy {
            version: f.version,
            fingerprint: f.fingerprint,
            config: f.config,
            dims: f.dims,
            agents,
            log: f.log,
        };
        p.check()?;
        Ok(p)
    }
}

impl TrainedPolicy {
    /// Checks what loading guarantees (listed in the documentation of [`TrainedPolicy`]).
    pub fn check(&self) -> Result<(), String> {
        if self.version != POLICY_VERSION {
            return Err(format!(
                "version: expected {POLICY_VERSION}, got {}",
                self.version
            ));
        }
        if self.fingerprint.len() > MAX_FINGERPRINT_BYTES {
            return Err(format!(
                "fingerprint: {} bytes, more than {MAX_FINGERPRINT_BYTES}",
                self.fingerprint.len()
            ));
        }
        if let Some(e) = self.config.validate().first() {
            return Err(format!("config.{e}"));
        }
        self.dims.check()?;
        if self.agents.len() != self.dims.n_agents {
            return Err(format!(
                "agents: {} networks for dims.n_agents = {}",
                self.agents.len(),
                self.dims.n_agents
            ));
        }
        let want = self
            .config
            .sizes(self.dims.agent_obs_len, self.dims.n_actions);
        for (i, a) in self.agents.iter().enumerate() {
            if a.sizes() != want.as_slice() {
                return Err(format!(
                    "agents[{i}].sizes: {:?}, but dims and config.hidden give {want:?}",
                    a.sizes()
                ));
            }
            if let Some(k) = a.params().iter().position(|p| !p.is_finite()) {
                return Err(format!("agents[{i}].params[{k}]: not finite"));
            }
        }
        for (k, e) in self.log.iter().enumerate() {
            if let Some(field) = e.non_finite() {
                return Err(format!("log[{k}].{field}: not finite"));
            }
        }
        Ok(())
    }

    /// Checks that the policy's shapes are those of the environment it is to act in (`want`, e.g.
    /// `Dims::of(env)`): a file can be well formed and still be for other shapes, and acting with it would
    /// index past its networks. Errors name the field (`dims.<field>`) with both values.
    pub fn check_dims(&self, want: &Dims) -> Result<(), String> {
        let d = &self.dims;
        for (field, got, need) in [
            ("n_agents", d.n_agents, want.n_agents),
            ("n_actions", d.n_actions, want.n_actions),
            ("agent_obs_len", d.agent_obs_len, want.agent_obs_len),
            ("cluster_obs_len", d.cluster_obs_len, want.cluster_obs_len),
        ] {
            if got != need {
                return Err(format!(
                    "dims.{field}: the policy is for {got}, this scenario needs {need}"
                ));
            }
        }
        Ok(())
    }

    /// Reads a policy file (JSON, at most [`MAX_POLICY_BYTES`]). Errors name the offending field, or the
    /// line and column of a syntax error.
    pub fn from_json(bytes: &[u8]) -> Result<TrainedPolicy, String> {
        if bytes.len() > MAX_POLICY_BYTES {
            return Err(format!(
                "policy file of {} bytes exceeds the limit of {MAX_POLICY_BYTES} bytes",
                bytes.len()
            ));
        }
        serde_json::from_slice(bytes).map_err(|e| format!("policy file: {e}"))
    }

    /// The policy as JSON. Errors: a policy that would not load back ([`TrainedPolicy::check`]: e.g. a
    /// diverged training's non-finite values, which JSON cannot hold).
    pub fn to_json(&self) -> Result<String, String> {
        self.check()?;
        let s = serde_json::to_string(self).map_err(|e| e.to_string())?;
        if s.len() > MAX_POLICY_BYTES {
            return Err(format!(
                "policy file of {} bytes exceeds the limit of {MAX_POLICY_BYTES} bytes",
                s.len()
            ));
        }
        Ok(s)
    }

    /// A scratch space for [`TrainedPolicy::act_with`].
    pub fn scratch(&self) -> Scratch {
        self.agents
            .first()
            .map(|a| a.scratch(1))
            .unwrap_or_default()
    }

    /// Agent `agent`'s greedy action `argmax_a Q^i(obs, a)` (lowest index on ties) for its observation `obs`
    /// (`dims.agent_obs_len` values). Panics if `agent` or `obs.len()` do not fit `dims`.
    pub fn act(&self, agent: usize, obs: &[f32]) -> usize {
        self.act_with(agent, obs, &mut self.scratch())
    }

    /// [`TrainedPolicy::act`] with a reusable scratch space (no allocation).
    pub fn act_with(&self, agent: usize, obs: &[f32], scratch: &mut Scratch) -> usize {
        argmax(self.agents[agent].forward(obs, scratch))
    }
}

/// At most [`FINGERPRINT_SHOWN`] characters of `s`, with `…` when cut.
pub(super) fn clip(s: &str) -> String {
    match s.char_indices().nth(FINGERPRINT_SHOWN) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Characters of one fingerprint value (or of a whole fingerprint) a message shows: a file's fingerprint can
/// be 64 KiB ([`MAX_FINGERPRINT_BYTES`]).
const FINGERPRINT_SHOWN: usize = 100;

/// What differs between a policy file's fingerprint and the scenario's, as `key: file value ≠ scenario value`
/// for each differing key (the whole fingerprints when the file's is not a JSON object); each value is cut
/// to [`FINGERPRINT_SHOWN`] characters, and at most 5 keys are listed (then how many more differ).
pub fn fingerprint_difference(file: &str, scenario: &str) -> String {
    let (a, b) = match (
        serde_json::from_str::<serde_json::Value>(file),
        serde_json::from_str::<serde_json::Value>(scenario),
    ) {
        (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) => (a, b),
        _ => {
            return format!(
                "trained for {}; this scenario is {}",
                clip(file),
                clip(scenario)
            )
        }
    };
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    let null = serde_json::Value::Null;
    let differ: Vec<&String> = keys
        .into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .collect();
    let mut out = differ
        .iter()
        .take(5)
        .map(|k| {
            format!(
                "{}: {} in the file, {} here",
                clip(k),
                clip(&a.get(*k).unwrap_or(&null).to_string()),
                clip(&b.get(*k).unwrap_or(&null).to_string())
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    if differ.len() > 5 {
        out.push_str(&format!("; and {} more", differ.len() - 5));
    }
    out
}
