//! STUB (replaced by the helper's learner).
use serde::{Deserialize, Serialize};
pub struct StepOutcome { pub reward: f64, pub cost: f64, pub done: bool }
pub trait MarlEnv {
    fn n_agents(&self) -> usize;
    fn n_actions(&self) -> usize;
    fn agent_obs_len(&self) -> usize;
    fn cluster_obs_len(&self) -> usize;
    fn reset(&mut self, episode: u64);
    fn observe(&self, agent_obs: &mut [f32], cluster_obs: &mut [f32], mask: &mut [bool]);
    fn step(&mut self, actions: &[usize]) -> StepOutcome;
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct C2marlConfig { pub alpha: f64, pub delta: f64 }
impl Default for C2marlConfig { fn default() -> Self { C2marlConfig { alpha: 0.95, delta: 0.025 } } }
impl C2marlConfig { pub fn validate(&self) -> Vec<(String, String)> { vec![] } }
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpisodeLog { pub hot_steps: f64, pub reward_sum: f64, pub lambda: f64 }
pub struct Trainer { n: usize, na: usize }
impl Trainer {
    pub fn new(n: usize, _a: usize, _c: usize, na: usize, _cfg: &C2marlConfig, _e: u32, _s: u64) -> Trainer { Trainer { n, na } }
    pub fn train_episode<E: MarlEnv>(&mut self, env: &mut E, ep: u64) -> EpisodeLog {
        env.reset(ep);
        let mut a = vec![0.0f32; self.n * env.agent_obs_len()];
        let mut c = vec![0.0f32; env.cluster_obs_len()];
        let mut m = vec![false; self.n];
        let mut log = EpisodeLog { hot_steps: 0.0, reward_sum: 0.0, lambda: 0.0 };
        loop { env.observe(&mut a, &mut c, &mut m); let o = env.step(&vec![self.na - 1; self.n]); log.hot_steps += o.cost; log.reward_sum += o.reward; if o.done { break; } }
        log
    }
    pub fn policy(&self, fingerprint: String) -> TrainedPolicy { TrainedPolicy { fingerprint, na: self.na } }
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainedPolicy { pub fingerprint: String, na: usize }
impl TrainedPolicy {
    pub fn act(&self, _i: usize, _o: &[f32]) -> usize { self.na - 1 }
    pub fn from_json(b: &[u8]) -> Result<TrainedPolicy, String> { serde_json::from_slice(b).map_err(|e| e.to_string()) }
}
