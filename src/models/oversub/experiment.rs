//! The oversubscription model on the experiment contract (seed 001 §6; ALGORITHMS.md §3.5–3.6).
//!
//! A run is planned with its subscribers, arrival rates and the history estimates (SL, GPA). Its units of
//! work are, first, **training episodes** of each C2MARL arm (a safety level α and a training seed; arms are
//! independent, so natively a step trains several arms at once, while one arm's episodes follow each other),
//! then **evaluation episodes**: one unit generates one evaluation episode (its requests and usage come from
//! the run's seed and the episode index only) and runs every policy on it, so all policies are compared on
//! the same episodes and each episode is generated once. Episodes are summed in index order, so the report is
//! bit for bit the same for any units per step and any thread count. Each evaluation step gives the running
//! estimate of every row.

use super::c2marl::{Dims, EpisodeLog, MarlEnv, StepOutcome, TrainedPolicy, Trainer};
use super::cluster::{cluster_obs_len, Cluster, EpisodeOutcome, ObsScale, RateMap, AGENT_OBS};
use super::params::{component, OversubParams, Preset};
use super::policies::script::ScriptRate;
use super::policies::spec::Policy;
use super::policies::{resolve, Estimates, Predictor, RatePolicy};
use super::profile::{Episode, Profiles};
use crate::experiment::Inputs;
use crate::experiment::{index_arg, map_parallel, threads, Experiment, RunError};
use crate::script::{Script, ScriptError};
use crate::substrate::rng::mix64;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::sync::{Arc, Mutex};

/// The safety levels V of the α-satisfaction table (§3.5).
pub const SAFETY_LEVELS: [f64; 3] = [0.75, 0.85, 0.95];

/// The 95% Wilson score interval of `k` successes in `n` trials.
pub fn wilson(k: f64, n: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let p = k / n;
    let den = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / den;
    let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / den;
    // (the bounds hold p exactly even where rounding would put it a hair outside)
    ((c - h).max(0.0).min(p), (c + h).min(1.0).max(p))
}

/// One policy's evaluation (§3.5), over `episodes` evaluation episodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyRow {
    /// The policy's name.
    pub policy: String,
    /// C2MARL trained in the run: the training seed (0-based); `None` otherwise.
    pub train_seed: Option<u32>,
    /// Evaluation episodes E.
    pub episodes: u32,
    /// PM-Hot-R = `max_k (1/E)·Σ_e 1{hot_k^e ≥ δ}`, fraction.
    pub pm_hot_r: f64,
    /// 95% Wilson interval of the maximising PM's proportion (it ignores the selection of the maximum).
    pub pm_hot_r_lo: f64,
    /// See `pm_hot_r_lo`.
    pub pm_hot_r_hi: f64,
    /// C-Hot-R = `(1/E)·Σ_e 1{(1/T)Σ_t C_c ≥ δ}`, fraction.
    pub c_hot_r: f64,
    /// 95% Wilson interval of C-Hot-R.
    pub c_hot_r_lo: f64,
    /// See `c_hot_r_lo`.
    pub c_hot_r_hi: f64,
    /// Share of episodes in which at least one PM is unsafe, `(1/E)·Σ_e 1{max_k hot_k^e ≥ δ}`, fraction:
    /// seed 001 App. B.2's wording of C-Hot-R ("the probability of the cluster has hot PM"), between
    /// PM-Hot-R and [`PolicyRow::c_hot_r`] (eq. 4's union of hot hours over PMs). Missing in reports of
    /// engines before it: 0.
    #[serde(default)]
    pub any_pm_unsafe_r: f64,
    /// Mean number of unsafe PMs (`hot_k ≥ δ`) per episode. Missing in older reports: 0.
    #[serde(default)]
    pub unsafe_pms: f64,
    /// S-Cores = `1 − Σa/Σc` over the VMs created, mean over episodes, fraction.
    pub s_cores: f64,
    /// 95% normal interval of the mean S-Cores.
    pub s_cores_lo: f64,
    /// See `s_cores_lo`.
    pub s_cores_hi: f64,
    /// Safety satisfied at level V ⇔ PM-Hot-R ≤ 1 − V, for V in [`SAFETY_LEVELS`].
    pub safe: Vec<bool>,
    /// Mean PM-hours hot per episode.
    pub hot_pm_hours: f64,
    /// Mean hours with some PM hot per episode.
    pub cluster_hot_hours: f64,
    /// Mean VMs rejected per episode.
    pub rejected: f64,
    /// PMs with at least one VM, mean over hours and episodes.
    pub active_pms: f64,
    /// Cores used / (active PMs · B), mean over episodes.
    pub utilization: f64,
    /// Hot PM-hours / active PM-hours (comparable with a real cluster's share of hot machine-hours).
    pub hot_share: f64,
    /// The rates the policy gave, by subscriber and hour of day.
    pub rates: RateMap,
    /// A user's script that failed at run time (issue 31): the first episode's error, with its line and
    /// column. The row's figures are then not the script's (it gave rate 1 from the error on); the other rows
    /// are unaffected. Absent when nothing failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One C2MARL arm's training curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainingCurve {
    /// The policy's name (`c2marl:α`).
    pub policy: String,
    /// Training seed (0-based).
    pub train_seed: u32,
    /// One entry per episode trained so far.
    pub log: Vec<EpisodeLog>,
}

/// What one step computed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OversubStep {
    /// Training episodes of this step, per arm (only arms that trained).
    pub training: Vec<TrainingCurve>,
    /// After an evaluation step: every row's estimate over the evaluation episodes done so far (its
    /// `episodes` field says how many); the last step's rows are the report's.
    pub rows: Vec<PolicyRow>,
}

/// A figure the paper states (seed 001 Tables 1–3), beside which the report puts ours.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PaperFigure {
    /// Policy as the paper names it.
    pub policy: &'static str,
    /// PM-Hot-R, fraction.
    pub pm_hot_r: f64,
    /// S-Cores, fraction (`NaN`-free: `None` when the paper gives none).
    pub s_cores: Option<f64>,
}

/// The set-up a run planned.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Setup {
    /// Where the subscribers come from.
    pub profiles: String,
    /// Subscriber ids.
    pub subscribers: Vec<String>,
    /// PMs K.
    pub pms: u32,
    /// Mean new VMs per hour (all subscribers, averaged over the hours of a day).
    pub arrivals_per_hour: f64,
    /// Mean VM duration, hours.
    pub mean_duration_h: f64,
    /// Mean usage fraction over subscribers and hours of day (the profiles).
    pub mean_usage: f64,
    /// The history estimates the SL and GPA policies use.
    pub estimates: Estimates,
}

/// The report of an oversubscription run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OversubReport {
    /// `E1.1` … `E1.4`.
    pub preset: &'static str,
    /// Seed.
    pub seed: u64,
    /// The set-up.
    pub setup: Setup,
    /// One row per policy (C2MARL: per training seed), in the order of the policy list.
    pub rows: Vec<PolicyRow>,
    /// The training curves of the C2MARL arms.
    pub training: Vec<TrainingCurve>,
    /// What the paper reports for this experiment.
    pub paper: Vec<PaperFigure>,
}

/// A C2MARL arm being trained.
struct Arm {
    row: usize,
    train_seed: u32,
    trainer: Mutex<Trainer>,
    log: Vec<EpisodeLog>,
}

/// One evaluation row being accumulated.
struct RowAcc {
    policy: Policy,
    train_seed: Option<u32>,
    arm: Option<usize>,
    episodes: u32,
    unsafe_pm: Vec<u32>,
    any_pm_unsafe: u32,
    cluster_unsafe: u32,
    s_cores: Vec<f64>,
    hot_pm_hours: u64,
    cluster_hot_hours: u64,
    rejected: u64,
    active_pms: f64,
    utilization: f64,
    rate_sum: Vec<[f64; 24]>,
    rate_n: Vec<[u32; 24]>,
    error: Option<String>,
}

/// What one policy gave on one evaluation episode: the outcome ([`EpisodeOutcome`], the unsafe PMs by
/// index) and the rates given, by hour of day. JSON: the result of one pool job per policy.
#[derive(Serialize, Deserialize)]
struct RowEpisode {
    unsafe_pms: Vec<u32>,
    cluster_unsafe: bool,
    s_cores: f64,
    hot_pm_hours: u64,
    cluster_hot_hours: u32,
    rejected: u32,
    active_pms: f64,
    used_cores: f64,
    rate_sum: Vec<[f64; 24]>,
    rate_n: Vec<[u32; 24]>,
    /// A script's run-time error on this episode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

impl RowEpisode {
    fn new(
        o: EpisodeOutcome,
        rate_sum: Vec<[f64; 24]>,
        rate_n: Vec<[u32; 24]>,
        error: Option<String>,
    ) -> RowEpisode {
        RowEpisode {
            unsafe_pms: (0..o.unsafe_pms.len() as u32)
                .filter(|&k| o.unsafe_pms[k as usize])
                .collect(),
            cluster_unsafe: o.cluster_unsafe,
            s_cores: o.s_cores,
            hot_pm_hours: o.hot_pm_hours,
            cluster_hot_hours: o.cluster_hot_hours,
            rejected: o.rejected,
            active_pms: o.active_pms,
            used_cores: o.used_cores,
            rate_sum,
            rate_n,
            error,
        }
    }
}

/// The shared, read-only part of a run.
struct World {
    params: OversubParams,
    seed: u64,
    profiles: Profiles,
    means: Vec<[f64; 24]>,
    est: Estimates,
    /// The enabled scripts of `params.scripts`, compiled, by name.
    scripts: Vec<(String, Arc<Script>)>,
}

impl World {
    fn warm(&self) -> bool {
        self.params.preset.warm()
    }

    /// The fingerprint trained policies carry: every setting of the environment a policy was trained on, so
    /// that a policy is evaluated only where it was trained (a difference is refused naming the field). The
    /// subscribers' profiles (μ, s.d., arrival rates, sizes, lifetimes; they depend on the seed, `base` and
    /// `amplitude`) enter as the first 16 hex digits of the SHA-256 of their JSON.
    fn fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        let p = &self.params;
        let profiles = serde_json::to_string(&self.profiles).unwrap_or_default();
        let digest = Sha256::digest(profiles.as_bytes());
        let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        serde_json::json!({
            "preset": p.preset,
            "subscribers": self.profiles.subscribers.iter().map(|s| s.id.clone()).collect::<Vec<_>>(),
            "profiles": hex,
            "pms": p.pm_count(),
            "pm_cores": p.pm_cores,
            "pm_mem_gb": p.pm_mem_gb,
            "pm_net_gbps": p.pm_net_gbps,
            "vm_mem_gb_per_core": p.vm_mem_gb_per_core,
            "vm_net_gbps_per_core": p.vm_net_gbps_per_core,
            "base": p.base,
            "amplitude": p.amplitude,
            "arrival_order": p.arrival_order,
            "beta": p.beta,
            "delta": p.delta,
            "hours": p.hours,
            "actions": p.actions,
            "occupancy": p.occupancy,
        })
        .to_string()
    }

    /// The observation scales of this world's clusters.
    fn obs_scale(&self) -> ObsScale {
        ObsScale::new(
            &self.params,
            self.profiles.subscribers.len(),
            self.profiles.mean_duration_h(),
        )
    }

    /// Evaluation episode `index` (the same for every policy).
    fn eval_episode(&self, index: u64) -> Episode {
        Episode::generate(
            &self.profiles,
            &self.params,
            &self.means,
            self.seed,
            component::EVAL,
            index,
        )
    }

    /// Runs episode `ep` under `policy` (baselines, a user's script, or a trained policy), returning its
    /// outcome, the cluster at the end (which holds the rates given) and a script's run-time error.
    fn episode<'w>(
        &'w self,
        ep: &'w Episode,
        row_policy: &Policy,
        learned: Option<&TrainedPolicy>,
    ) -> (EpisodeOutcome, Cluster<'w>, Option<ScriptError>) {
        let n = ep.subs;
        let mut c =
            Cluster::new(&self.params, Cow::Borrowed(ep), self.warm()).with_scale(self.obs_scale());
        let mut r = vec![1.0; n];
        let mut script = match row_policy {
            Policy::Script(name) => Some(ScriptRate::new(
                self.scripts
                    .iter()
                    .find(|(s, _)| s == name)
                    .map(|(_, s)| s.clone())
                    .expect("a listed script is compiled when the run is planned"),
                &self.est,
                self.params.ma_window_h as i32,
                Predictor::of(&self.params),
            )),
            _ => None,
        };
        let mut builtin = match script {
            Some(_) => None,
            None => Some(
                resolve(row_policy, &self.params, &self.est, learned, n)
                    .expect("a baseline policy, or C2MARL with its trained policy"),
            ),
        };
        let policy: &mut dyn RatePolicy = match (&mut script, &mut builtin) {
            (Some(s), _) => s,
            (None, Some(b)) => b.as_mut(),
            (None, None) => unreachable!("one of the two is set above"),
        };
        loop {
            policy.rates(&c, &mut r);
            if c.step(&r).done {
                break;
            }
        }
        let error = script.and_then(|s| s.run.take_error());
        (c.outcome(), c, error)
    }
}

/// The training environment of one arm: fresh training episodes from the run's seed.
struct TrainEnv<'a> {
    world: &'a World,
    train_seed: u32,
    cluster: Option<Cluster<'a>>,
    /// The index of the episode `cluster` runs: a reset to the same index (the greedy evaluation episode
    /// after a training episode) takes the episode back from the cluster instead of generating it again
    /// (the same requests and usage: [`Episode::generate`] depends only on its stream).
    episode: Option<u64>,
    rates: Vec<f64>,
}

impl MarlEnv for TrainEnv<'_> {
    fn n_agents(&self) -> usize {
        self.world.profiles.subscribers.len()
    }
    fn n_actions(&self) -> usize {
        self.world.params.actions.len()
    }
    fn agent_obs_len(&self) -> usize {
        AGENT_OBS
    }
    fn cluster_obs_len(&self) -> usize {
        cluster_obs_len(self.n_agents())
    }
    fn reset(&mut self, episode: u64) {
        let w = self.world;
        let ep = match self.cluster.take() {
            Some(c) if self.episode == Some(episode) => c.into_episode(),
            _ => Cow::Owned(Episode::generate_requests(
                &w.profiles,
                &w.params,
                &w.means,
                w.seed,
                component::TRAIN,
                (self.train_seed as u64) << 32 | episode,
            )),
        };
        self.episode = Some(episode);
        self.cluster = Some(
            Cluster::new(&w.params, ep, w.warm())
                .with_scale(w.obs_scale())
                .with_blame_log(),
        );
    }
    fn observe(&self, agent_obs: &mut [f32], cluster_obs: &mut [f32], mask: &mut [bool]) {
        let c = self.cluster.as_ref().expect("reset before observe");
        c.observe(agent_obs, cluster_obs);
        mask.copy_from_slice(c.mask());
    }
    fn step(&mut self, actions: &[usize]) -> StepOutcome {
        let acts = &self.world.params.actions;
        for (r, &a) in self.rates.iter_mut().zip(actions) {
            *r = acts[a.min(acts.len() - 1)];
        }
        let c = self.cluster.as_mut().expect("reset before step");
        let o = c.step(&self.rates);
        StepOutcome {
            reward: o.reward,
            cost: o.cost,
            done: o.done,
        }
    }
    fn credit(&self, reward: &mut [f64], cost: &mut [f64]) {
        self.cluster
            .as_ref()
            .expect("reset before credit")
            .credit(reward, cost);
    }
    fn creation_cost(&self, gamma: f64, cost: &mut [f64]) -> bool {
        self.cluster
            .as_ref()
            .expect("reset before creation_cost")
            .creation_cost(gamma, cost)
    }
    fn unsafe_machines(&self, out: &mut Vec<u32>) -> Option<usize> {
        let o = self
            .cluster
            .as_ref()
            .expect("reset before unsafe_machines")
            .outcome();
        out.clear();
        out.extend((0..o.unsafe_pms.len() as u32).filter(|&k| o.unsafe_pms[k as usize]));
        Some(o.unsafe_pms.len())
    }
}

/// An oversubscription experiment in progress.
pub struct OversubRun {
    world: World,
    arms: Vec<Arm>,
    rows: Vec<RowAcc>,
    /// Trained policies: per arm once trained, per row for loaded files.
    trained: Vec<Option<TrainedPolicy>>,
    loaded: Vec<Option<TrainedPolicy>>,
    /// Evaluation units: one per evaluation episode.
    units: u32,
    units_done: usize,
    /// Episodes of the pretrained arms' logs (given, not trained: not counted as work).
    pretrained_episodes: usize,
    error: Option<RunError>,
}

impl OversubRun {
    /// Plans a run: validates the section, builds the subscribers and the history estimates, loads the
    /// trained-policy files the policy list names (from `inputs.files`; refused when they do not match the
    /// scenario) and creates the C2MARL learners.
    pub fn new(params: &OversubParams, seed: u64, inputs: &Inputs) -> Result<OversubRun, RunError> {
        if let Some(e) = params.validate("oversub.").into_iter().next() {
            return Err(e.into());
        }
        OversubRun::planned(params, seed, inputs)
    }

    /// Plans the run of a section already validated ([`crate::experiment::ModelDef::start`], after the scenario's one
    /// validation); [`OversubRun::new`] validates first.
    pub(crate) fn planned(
        params: &OversubParams,
        seed: u64,
        inputs: &Inputs,
    ) -> Result<OversubRun, RunError> {
        let profiles = Profiles::of(params, seed)?;
        let means = profiles.arrival_means(params);
        let est = Estimates::fit(&profiles, params, &means, seed);
        let mut scripts = Vec::new();
        for (k, sp) in params.scripts.iter().enumerate().filter(|(_, s)| s.enabled) {
            let s = super::policies::script::compile(&sp.source).map_err(|e| {
                RunError::field(format!("oversub.scripts[{k}].source"), e.to_string())
            })?;
            scripts.push((sp.name.clone(), Arc::new(s)));
        }
        let world = World {
            params: params.clone(),
            seed,
            profiles,
            means,
            est,
            scripts,
        };
        let n = world.profiles.subscribers.len();
        let fp = world.fingerprint();
        let pretrained =
            super::pretrained::given(inputs).map_err(|e| RunError::field("oversub.policies", e))?;
        let served = super::pretrained::match_arms(params, seed, &pretrained);
        if let Some(m) = served.iter().find(|m| m.file.is_none()) {
            if let Some(d) = &m.difference {
                return Err(RunError::field(
                    "oversub.policies",
                    format!(
                        "{}: {d}; train it instead (run without the pretrained policy)",
                        m.policy
                    ),
                ));
            }
        }
        let want = Dims {
            n_agents: n,
            n_actions: params.actions.len(),
            agent_obs_len: AGENT_OBS,
            cluster_obs_len: cluster_obs_len(n),
        };
        let mut served = served.into_iter();
        let mut arms = Vec::new();
        let mut from_files = Vec::new();
        let mut rows = Vec::new();
        let mut loaded = Vec::new();
        for p in params.policy_list() {
            let seeds: Vec<Option<u32>> = match p {
                Policy::C2marl(_) => (0..params.train_seeds).map(Some).collect(),
                _ => vec![None],
            };
            for ts in seeds {
                let row = rows.len();
                let mut arm = None;
                let mut file = None;
                match (&p, ts) {
                    (Policy::C2marl(alpha), Some(s)) => {
                        let mut cfg = params.c2marl.clone();
                        cfg.alpha = *alpha;
                        cfg.delta = params.delta;
                        cfg.episodes = params.train_episodes as u64;
                        let lseed =
                            mix64(seed ^ mix64(component::LEARNER ^ alpha.to_bits()) ^ s as u64);
                        let env = TrainEnv {
                            world: &world,
                            train_seed: s,
                            cluster: None,
                            episode: None,
                            rates: Vec::new(),
                        };
                        let trainer = Trainer::new(&cfg, &env, lseed)
                            .map_err(|e| RunError::field("oversub.c2marl", e))?;
                        // a pretrained arm's recipe matches: its policy and training log stand in for
                        // the training (the same bits, see super::pretrained)
                        let pre = served.next().and_then(|m| m.file).and_then(|name| {
                            pretrained
                                .iter()
                                .find(|(f, _)| *f == name)
                                .map(|(f, p)| (f.clone(), p.policy.clone()))
                        });
                        let mut log = Vec::new();
                        let mut done = None;
                        if let Some((name, pol)) = pre {
                            check_policy(&pol, &name, &fp, &want)?;
                            if pol.log.len() != params.train_episodes as usize {
                                return Err(RunError::field(
                                    "oversub.policies",
                                    format!(
                                        "{name}: the training log has {} episodes, the recipe {}",
                                        pol.log.len(),
                                        params.train_episodes
                                    ),
                                ));
                            }
                            log = pol.log.clone();
                            done = Some(pol);
                        }
                        arm = Some(arms.len());
                        from_files.push(done);
                        arms.push(Arm {
                            row,
                            train_seed: s,
                            trainer: Mutex::new(trainer),
                            log,
                        });
                    }
                    (Policy::C2marlFile(name), _) => {
                        let bytes = inputs
                            .need_file(name)
                            .map_err(|e| RunError::field("oversub.policies", e.message))?;
                        let pol = TrainedPolicy::from_json(bytes).map_err(|e| {
                            RunError::field("oversub.policies", format!("{name}: {e}"))
                        })?;
                        check_policy(&pol, name, &fp, &want)?;
                        file = Some(pol);
                    }
                    _ => {}
                }
                loaded.push(file);
                rows.push(RowAcc {
                    policy: p.clone(),
                    train_seed: ts,
                    arm,
                    episodes: 0,
                    unsafe_pm: vec![0; params.pm_count() as usize],
                    any_pm_unsafe: 0,
                    cluster_unsafe: 0,
                    s_cores: Vec::new(),
                    hot_pm_hours: 0,
                    cluster_hot_hours: 0,
                    rejected: 0,
                    active_pms: 0.0,
                    utilization: 0.0,
                    rate_sum: vec![[0.0; 24]; n],
                    rate_n: vec![[0; 24]; n],
                    error: None,
                });
            }
        }
        let units = params.eval_episodes;
        Ok(OversubRun {
            pretrained_episodes: arms.iter().map(|a| a.log.len()).sum(),
            trained: from_files,
            world,
            arms,
            rows,
            loaded,
            units,
            units_done: 0,
            error: None,
        })
    }

    /// Training episodes of the run (pretrained arms have none).
    fn train_total(&self) -> usize {
        self.arms.len() * self.world.params.train_episodes as usize - self.pretrained_episodes
    }

    fn train_done(&self) -> usize {
        self.arms.iter().map(|a| a.log.len()).sum::<usize>() - self.pretrained_episodes
    }

    /// The trained policy of row `row` (a C2MARL arm once trained, or a loaded file).
    pub fn policy_of_row(&self, row: usize) -> Option<&TrainedPolicy> {
        let r = self.rows.get(row)?;
        match r.arm {
            Some(a) => self.trained[a].as_ref(),
            None => self.loaded[row].as_ref(),
        }
    }

    fn train_step(&mut self, units: usize) -> Vec<TrainingCurve> {
        let te = self.world.params.train_episodes as usize;
        // Round-robin: each arm with episodes left gets its share of the units.
        let mut count = vec![0usize; self.arms.len()];
        let mut left = units.max(1);
        while left > 0 {
            let mut any = false;
            for (j, a) in self.arms.iter().enumerate() {
                if left > 0 && a.log.len() + count[j] < te {
                    count[j] += 1;
                    left -= 1;
                    any = true;
                }
            }
            if !any {
                break;
            }
        }
        let work: Vec<(usize, usize)> = count
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(j, &c)| (j, c))
            .collect();
        let world = &self.world;
        let arms = &self.arms;
        let logs = map_parallel(threads(), &work, |&(j, c)| {
            let arm = &arms[j];
            let mut tr = arm.trainer.lock().expect("one thread per arm");
            let mut env = TrainEnv {
                world,
                train_seed: arm.train_seed,
                cluster: None,
                episode: None,
                rates: vec![1.0; world.profiles.subscribers.len()],
            };
            let first = arm.log.len() as u64;
            (0..c as u64)
                .map(|k| tr.train_episode(&mut env, first + k))
                .collect::<Vec<_>>()
        });
        let mut out = Vec::new();
        for ((j, _), log) in work.into_iter().zip(logs) {
            let arm = &mut self.arms[j];
            arm.log.extend(log.iter().cloned());
            if arm.log.len() == te {
                let fp = self.world.fingerprint();
                self.trained[j] = Some(arm.trainer.lock().expect("not poisoned").policy(fp));
            }
            out.push(TrainingCurve {
                policy: self.rows[arm.row].policy.name(),
                train_seed: arm.train_seed,
                log,
            });
        }
        out
    }

    /// Evaluates the next `units` episodes under every policy; gives every row's running estimate.
    fn eval_step(&mut self, units: usize) -> Vec<PolicyRow> {
        let from = self.units_done as u32;
        let to = (from + units.max(1) as u32).min(self.units);
        let indices: Vec<u32> = (from..to).collect();
        let this = &*self;
        let per_episode = map_parallel(threads(), &indices, |&e| this.eval_episode(e));
        self.absorb_episodes(per_episode)
    }

    /// Every row's policy on evaluation episode `e`.
    fn eval_episode(&self, e: u32) -> Vec<RowEpisode> {
        let ep = self.world.eval_episode(e as u64);
        (0..self.rows.len())
            .map(|row| {
                let learned = self.policy_of_row(row);
                let (outcome, c, error) = self.world.episode(&ep, &self.rows[row].policy, learned);
                RowEpisode::new(outcome, c.rate_sum, c.rate_n, error.map(|e| e.to_string()))
            })
            .collect()
    }

    /// Adds the next evaluation episodes (in index order) to the rows; every row's estimate so far.
    fn absorb_episodes(&mut self, per_episode: Vec<Vec<RowEpisode>>) -> Vec<PolicyRow> {
        let b = self.world.params.pm_cores;
        for results in per_episode {
            let episode = self.units_done;
            self.units_done += 1;
            for (r, o) in self.rows.iter_mut().zip(results) {
                r.episodes += 1;
                if r.error.is_none() {
                    r.error = o
                        .error
                        .map(|e| format!("evaluation episode {episode}: {e}"));
                }
                for &k in &o.unsafe_pms {
                    r.unsafe_pm[k as usize] += 1;
                }
                r.any_pm_unsafe += !o.unsafe_pms.is_empty() as u32;
                r.cluster_unsafe += o.cluster_unsafe as u32;
                r.s_cores.push(o.s_cores);
                r.hot_pm_hours += o.hot_pm_hours;
                r.cluster_hot_hours += o.cluster_hot_hours as u64;
                r.rejected += o.rejected as u64;
                r.active_pms += o.active_pms;
                r.utilization += if o.active_pms > 0.0 {
                    o.used_cores / (o.active_pms * b)
                } else {
                    0.0
                };
                for i in 0..r.rate_sum.len() {
                    for h in 0..24 {
                        r.rate_sum[i][h] += o.rate_sum[i][h];
                        r.rate_n[i][h] += o.rate_n[i][h];
                    }
                }
            }
        }
        (0..self.rows.len())
            .map(|row| self.row_result(row))
            .collect()
    }

    fn row_result(&self, row: usize) -> PolicyRow {
        let r = &self.rows[row];
        let e = r.episodes.max(1) as f64;
        let worst = r.unsafe_pm.iter().copied().max().unwrap_or(0) as f64;
        let pm_hot_r = worst / e;
        let (pl, ph) = wilson(worst, e);
        let c_hot_r = r.cluster_unsafe as f64 / e;
        let (cl, chh) = wilson(r.cluster_unsafe as f64, e);
        let m = r.s_cores.iter().sum::<f64>() / e;
        let var = if r.s_cores.len() > 1 {
            r.s_cores.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (e - 1.0)
        } else {
            0.0
        };
        let half = 1.959_963_984_540_054 * (var / e).sqrt();
        let n = r.rate_sum.len();
        PolicyRow {
            policy: r.policy.name(),
            train_seed: r.train_seed,
            episodes: r.episodes,
            pm_hot_r,
            pm_hot_r_lo: pl,
            pm_hot_r_hi: ph,
            c_hot_r,
            c_hot_r_lo: cl,
            c_hot_r_hi: chh,
            any_pm_unsafe_r: r.any_pm_unsafe as f64 / e,
            unsafe_pms: r.unsafe_pm.iter().map(|&n| n as f64).sum::<f64>() / e,
            s_cores: m,
            s_cores_lo: m - half,
            s_cores_hi: m + half,
            safe: SAFETY_LEVELS
                .iter()
                .map(|v| pm_hot_r <= 1.0 - v + 1e-12)
                .collect(),
            hot_pm_hours: r.hot_pm_hours as f64 / e,
            cluster_hot_hours: r.cluster_hot_hours as f64 / e,
            rejected: r.rejected as f64 / e,
            active_pms: r.active_pms / e,
            utilization: r.utilization / e,
            hot_share: if r.active_pms > 0.0 {
                r.hot_pm_hours as f64 / (r.active_pms * self.world.params.hours as f64)
            } else {
                0.0
            },
            rates: RateMap {
                policy: r.policy.name(),
                subscribers: self
                    .world
                    .profiles
                    .subscribers
                    .iter()
                    .map(|s| s.id.clone())
                    .collect(),
                rates: (0..n)
                    .map(|i| {
                        (0..24)
                            .map(|h| {
                                (r.rate_n[i][h] > 0)
                                    .then(|| r.rate_sum[i][h] / r.rate_n[i][h] as f64)
                            })
                            .collect()
                    })
                    .collect(),
                mu: self
                    .world
                    .profiles
                    .subscribers
                    .iter()
                    .map(|s| s.mu.clone())
                    .collect(),
            },
            error: r.error.clone(),
        }
    }

    fn setup(&self) -> Setup {
        let w = &self.world;
        let n = w.profiles.subscribers.len() as f64;
        Setup {
            profiles: w.profiles.name.clone(),
            subscribers: w
                .profiles
                .subscribers
                .iter()
                .map(|s| s.id.clone())
                .collect(),
            pms: w.params.pm_count(),
            arrivals_per_hour: w.means.iter().map(|m| m.iter().sum::<f64>()).sum::<f64>() / 24.0,
            mean_duration_h: w.profiles.mean_duration_h(),
            mean_usage: w
                .profiles
                .subscribers
                .iter()
                .map(|s| s.mu.iter().sum::<f64>() / 24.0)
                .sum::<f64>()
                / n,
            estimates: w.est.clone(),
        }
    }
}

/// Checks that a trained policy (file `name`) fits the scenario of fingerprint `fp` and the shapes `want`.
fn check_policy(pol: &TrainedPolicy, name: &str, fp: &str, want: &Dims) -> Result<(), RunError> {
    if pol.fingerprint != fp {
        return Err(RunError::field(
            "oversub.policies",
            format!(
                "{name}: the policy was trained for another scenario ({})",
                super::c2marl::fingerprint_difference(&pol.fingerprint, fp)
            ),
        ));
    }
    pol.check_dims(want)
        .map_err(|e| RunError::field("oversub.policies", format!("{name}: {e}")))
}

/// The paper's figures for a preset (seed 001 Tables 1–3, ALGORITHMS.md §3.6).
pub fn paper_figures(preset: Preset) -> Vec<PaperFigure> {
    let f = |policy, h, s| PaperFigure {
        policy,
        pm_hot_r: h,
        s_cores: s,
    };
    match preset {
        Preset::E11 | Preset::E14 => vec![
            f("grid:0.2", 0.309, Some(0.80)),
            f("grid:0.4", 0.227, Some(0.60)),
            f("grid:0.6", 0.0, Some(0.40)),
            f("ma", 0.0, Some(0.492)),
            f("sl", 0.002, Some(0.499)),
            f("c2marl:0.75", 0.098, Some(0.661)),
            f("c2marl:0.85", 0.066, Some(0.617)),
            f("c2marl:0.95", 0.035, Some(0.599)),
        ],
        Preset::E12 => vec![
            f("grid:0.2", 0.954, Some(0.80)),
            f("grid:0.4", 1.0, Some(0.60)),
            f("grid:0.6", 0.0, Some(0.40)),
            f("ma", 0.0, Some(0.492)),
            f("sl", 0.008, Some(0.499)),
            f("c2marl:0.75", 0.116, Some(0.692)),
            f("c2marl:0.85", 0.068, Some(0.651)),
            f("c2marl:0.95", 0.035, Some(0.69)),
        ],
        Preset::E13 => vec![
            f("grid:0.2", 1.0, Some(0.80)),
            f("grid:0.4", 1.0, Some(0.60)),
            f("grid:0.6", 1.0, Some(0.40)),
            f("ma", 0.0, Some(0.082)),
            f("sl", 0.0, Some(0.076)),
            f("c2marl:0.75", 0.19, Some(0.153)),
            f("c2marl:0.85", 0.083, Some(0.146)),
            f("c2marl:0.95", 0.0, Some(0.104)),
        ],
    }
}

impl Experiment for OversubRun {
    type Partial = OversubStep;
    type Report = OversubReport;

    fn total(&self) -> usize {
        self.train_total() + self.units as usize
    }

    fn done(&self) -> usize {
        self.train_done() + self.units_done
    }

    fn step(&mut self, units: usize) -> Option<OversubStep> {
        if self.error.is_some() || self.done() == self.total() {
            return None;
        }
        if self.train_done() < self.train_total() {
            let training = self.train_step(units);
            return Some(OversubStep {
                training,
                rows: Vec::new(),
            });
        }
        let rows = self.eval_step(units);
        Some(OversubStep {
            training: Vec::new(),
            rows,
        })
    }

    fn batch(&self) -> usize {
        if self.train_done() < self.train_total() {
            self.arms
                .iter()
                .filter(|a| a.log.len() < self.world.params.train_episodes as usize)
                .count()
        } else {
            // one evaluation episode per thread and step: progress and Cancel stay responsive
            1
        }
    }

    fn error(&self) -> Option<RunError> {
        self.error.clone()
    }

    /// Evaluation steps split into one job per evaluation episode (`{ "episode": e }`; its result: every
    /// row's outcome on it) when the run trains nothing (every C2MARL arm pretrained or given as a file): a
    /// copy of the run does not hold the policies the coordinator trained. Training steps do not split.
    fn jobs(&mut self, units: usize) -> Vec<serde_json::Value> {
        if self.error.is_some() || self.train_total() > 0 {
            return Vec::new();
        }
        let from = self.units_done as u32;
        let to = (from + units.max(1) as u32).min(self.units);
        (from..to)
            .map(|e| serde_json::json!({ "episode": e }))
            .collect()
    }

    fn compute(&mut self, job: &serde_json::Value) -> Result<serde_json::Value, RunError> {
        let e = index_arg(job, "episode")?;
        if self.train_done() < self.train_total() {
            return Err(RunError::msg(
                "this copy of the run has not trained its C2MARL arms",
            ));
        }
        if e >= self.units as usize {
            return Err(RunError::field(
                "episode",
                format!("must be below {}", self.units),
            ));
        }
        serde_json::to_value(self.eval_episode(e as u32)).map_err(|e| RunError::msg(e.to_string()))
    }

    fn absorb(&mut self, results: Vec<serde_json::Value>) -> Result<Vec<OversubStep>, RunError> {
        let n = self.rows.len();
        let subs = self.world.profiles.subscribers.len();
        let pms = self.world.params.pm_count();
        let mut per_episode = Vec::with_capacity(results.len());
        for r in results {
            let ep: Vec<RowEpisode> = serde_json::from_value(r)
                .map_err(|e| RunError::msg(format!("an evaluation job's result: {e}")))?;
            if ep.len() != n
                || ep.iter().any(|x| {
                    x.rate_sum.len() != subs
                        || x.rate_n.len() != subs
                        || x.unsafe_pms.iter().any(|&k| k >= pms)
                })
            {
                return Err(RunError::msg(
                    "an evaluation job's result does not fit this run",
                ));
            }
            per_episode.push(ep);
        }
        if self.units_done + per_episode.len() > self.units as usize {
            return Err(RunError::msg("more evaluation results than episodes left"));
        }
        let rows = self.absorb_episodes(per_episode);
        Ok(vec![OversubStep {
            training: Vec::new(),
            rows,
        }])
    }

    fn report(&self) -> Option<OversubReport> {
        if self.done() != self.total() {
            return None;
        }
        Some(OversubReport {
            preset: self.world.params.preset.name(),
            seed: self.world.seed,
            setup: self.setup(),
            rows: (0..self.rows.len()).map(|r| self.row_result(r)).collect(),
            training: self
                .arms
                .iter()
                .map(|a| TrainingCurve {
                    policy: self.rows[a.row].policy.name(),
                    train_seed: a.train_seed,
                    log: a.log.clone(),
                })
                .collect(),
            paper: paper_figures(self.world.params.preset),
        })
    }

    /// `policy` with `{ "row": i }`: the trained policy of row i (a C2MARL arm once trained, or a loaded file)
    /// as the exportable file ([`TrainedPolicy`]); `pretrained` with `{ "row": i }`: a C2MARL arm of the run,
    /// once trained, with its recipe ([`super::pretrained::Pretrained`], the bundled policy's form).
    fn query<S: serde::Serializer>(
        &self,
        op: &str,
        args: &serde_json::Value,
        ser: S,
    ) -> Result<S::Ok, RunError> {
        if op != "policy" && op != "pretrained" {
            return Err(RunError::msg(format!(
                "the oversub run has no operation '{op}' (expected policy or pretrained)"
            )));
        }
        let row = index_arg(args, "row")?;
        if row >= self.rows.len() {
            return Err(RunError::field(
                "row",
                format!("must be below {}", self.rows.len()),
            ));
        }
        let p = self
            .policy_of_row(row)
            .ok_or_else(|| RunError::field("row", "this row has no trained policy (yet)"))?;
        if op == "pretrained" {
            let r = &self.rows[row];
            let ts = match (r.arm, r.train_seed) {
                (Some(_), Some(ts)) => ts,
                _ => {
                    return Err(RunError::field(
                        "row",
                        "only a C2MARL arm trained in the run has a recipe (this row's policy was given as a file)",
                    ))
                }
            };
            return super::pretrained::Pretrained {
                format: super::pretrained::PRETRAINED_FORMAT,
                recipe: super::pretrained::recipe(
                    &self.world.params,
                    self.world.seed,
                    &r.policy,
                    ts,
                ),
                policy: p.clone(),
            }
            .serialize(ser)
            .map_err(|e| RunError::msg(e.to_string()));
        }
        p.serialize(ser).map_err(|e| RunError::msg(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reset to the index the environment already runs (the greedy episode after a training episode) reuses
    /// that episode: after a whole episode on it, the requests and usage are still those `Episode::generate`
    /// gives for the index; a reset to another index generates that one.
    #[test]
    fn a_reset_to_the_same_index_runs_the_same_episode() {
        let params = OversubParams {
            hours: 48,
            ..OversubParams::default()
        };
        let profiles = Profiles::of(&params, 3).unwrap();
        let means = profiles.arrival_means(&params);
        let est = Estimates::fit(&profiles, &params, &means, 3);
        let world = World {
            params,
            seed: 3,
            profiles,
            means,
            est,
            scripts: Vec::new(),
        };
        let n = world.profiles.subscribers.len();
        let mut env = TrainEnv {
            world: &world,
            train_seed: 2,
            cluster: None,
            episode: None,
            rates: vec![1.0; n],
        };
        let fresh = |e: u64| {
            Episode::generate(
                &world.profiles,
                &world.params,
                &world.means,
                3,
                component::TRAIN,
                2 << 32 | e,
            )
        };
        let same = |env: &TrainEnv, ep: &Episode| {
            let c = env.cluster.as_ref().unwrap().episode();
            c.vms == ep.vms && c.usage == ep.usage
        };
        let (e5, e6) = (fresh(5), fresh(6));
        assert!(e5.vms != e6.vms);
        let actions = vec![1; n];
        let mut hours = [0; 2];
        for (k, h) in hours.iter_mut().enumerate() {
            env.reset(5);
            assert!(same(&env, &e5), "reset {k} to episode 5");
            while !env.step(&actions).done {
                *h += 1;
            }
        }
        assert_eq!(hours, [47, 47]);
        assert!(same(&env, &e5));
        env.reset(6);
        assert!(same(&env, &e6));
    }

    #[test]
    fn wilson_by_hand() {
        // k = 0: the upper bound is z²/(n + z²).
        let z2 = 1.959_963_984_540_054_f64.powi(2);
        let (lo, hi) = wilson(0.0, 10.0);
        assert_eq!(lo, 0.0);
        assert!((hi - z2 / (10.0 + z2)).abs() < 1e-12);
        // k = n is the mirror image.
        let (lo, hi) = wilson(10.0, 10.0);
        assert!((lo - 10.0 / (10.0 + z2)).abs() < 1e-12);
        assert_eq!(hi, 1.0);
        // 30 of 100: the textbook interval [0.2189, 0.3958].
        let (lo, hi) = wilson(30.0, 100.0);
        assert!(
            (lo - 0.2189).abs() < 1e-4 && (hi - 0.3958).abs() < 1e-4,
            "{lo} {hi}"
        );
    }
}
