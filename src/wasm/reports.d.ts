// The reports of the five models, as `ExperimentRun.report()` and `packlab run` give them (JSON; u64 counts and
// seeds are numbers, NaN and infinities are null). Written from the engine's report types (named beside each
// interface); scripts/check-report-types.mjs type-checks every pinned report of `packlab run --link`
// (tests/pins/link-*.json, run-admission-tiny.json) against them with `tsc --strict`, so a field added to or
// dropped from a report fails there until it is written here; each pinned report's first row also with a
// script's `error` set, so a row type without it fails.

/** `placement` (seed 002 §5, ALGORITHMS.md §4): the frontier, `placement::frontier::Frontier`. */
export interface PlacementReport {
  /** The usage trace's name. */
  trace: string;
  /** Items (VMs) placed. */
  items: number;
  /** Realisations per evaluation. */
  realisations: number;
  /** Observations the fit tests saw. */
  observations: number;
  /** Evaluations. */
  evaluations: number;
  /** Machine capacity. */
  capacity: number;
  /** Packing rule (`ff`, `bf`, ...). */
  rule: string;
  /** Whether packings were rebalanced. */
  rebalance: boolean;
  /** Target overflow probability ρ of calibrated points. */
  target_rho: number;
  /** One point per fit test, with its Pareto flag. */
  points: FrontierPoint[];
}

/** `placement::frontier::FrontierPoint`: one fit test packed and evaluated. */
export interface FrontierPoint {
  family: string;
  param: number | null;
  spec: string;
  /** Machines used. */
  m_abs: number;
  /** Machines used over the lower bound. */
  m_norm: number;
  m: number;
  /** Overflow probability. */
  q: number;
  utilization: number;
  pareto: boolean;
  calibration?: Calibration;
  /** A user's script that failed at run time (issue 31): its error; the figures are then 0. */
  error?: string;
}

/** `placement::calibrate::Calibration`. */
export interface Calibration {
  target: number;
  rho: number;
  q_calibration: number | null;
  met: boolean;
  fit_columns: number;
  calibration_columns: number;
  packings: number;
  note?: string;
}

/** `admission` (seed 000, ALGORITHMS.md §2): the tuned arms, `admission::scenario::AdmissionReport`. */
export interface AdmissionReport {
  model: string;
  preset: string;
  runs: number;
  seed: number;
  /** Cluster capacity, cores. */
  capacity: number;
  horizon_hours: number;
  /** The SLA: largest acceptable failure rate. */
  sla: number;
  arms: AdmissionArm[];
}

/** `admission::scenario::AdmissionArm`: one arm's tuned threshold and its evaluation. */
export interface AdmissionArm {
  label: string;
  policy: string;
  kind: string;
  marginal: boolean;
  pseudo_obs: number;
  labelling: string;
  threshold: number;
  /** `tuned`, `untunable` or `bound`. */
  status: string;
  status_reason: string;
  accepted: number;
  arrivals: number;
  requests: number;
  failures: number;
  utilization: number;
  /** 95% bootstrap interval of the utilization. */
  utilization_ci: [number, number];
  failure_rate: number;
  failure_rate_upper95: number;
  monthly_failure_rate: number;
  runs_with_failure: number;
  gain_vs_zeroth: number | null;
  sweep: SweepPoint[];
  /** A script arm's run-time error (issue 31): the arm stopped there, untunable. */
  error?: string;
}

/** `admission::scenario::SweepPoint`: one threshold the search evaluated. */
export interface SweepPoint {
  threshold: number;
  utilization: number;
  failure_rate: number;
  failure_rate_upper: number;
  accepted: number;
  requests: number;
  failures: number;
  verdict: string;
}

/** `lifetime` (seed 003 §6, ALGORITHMS.md §5): every policy on one pool, `lifetime::LifetimeReport`. */
export interface LifetimeReport {
  setup: ShareSetup;
  hosts: number;
  /** Host capacity `[cores, memory GB, GPUs]`. */
  host_capacity: [number, number, number];
  /** The pool's capacity `[cores, memory GB, GPUs]`. */
  pool_capacity: [number, number, number];
  warmup_h: number;
  /** e.g. `oracle`, `noisy:0.9`. */
  predictor: string;
  seed: number;
  /** One result per policy, best fit first. */
  results: LifetimePolicyResult[];
}

/** `lifetime::pool::ShareSetup`: the pool's share of the workload. */
export interface ShareSetup {
  workload: string;
  split: string;
  split_vms: number;
  split_batches: number;
  vms: number;
  batches: number;
  censored: number;
  window_h: number;
  hosts: number;
  training_vms: number;
  mean_lifetime_h: number;
  offered_allocation: number;
  notes: string[];
  alive_at_start?: number;
  alive_at_start_drawn?: number;
}

/** `lifetime::sampling::PolicyResult` (ALGORITHMS.md §5.8; fractions in [0, 1]). */
export interface LifetimePolicyResult {
  policy: string;
  empty_hosts: number;
  empty_hosts_pp_vs_best_fit: number;
  empty_to_free: number;
  packing_density: number;
  allocation: number;
  stranded_cpu: number;
  stranded_mem: number;
  migrations: number;
  migrations_saved: number;
  migration_failures: number;
  drained_hosts: number;
  start_order: MigrationCounts | null;
  lars?: MigrationCounts;
  random_order?: MigrationCounts;
  closed_loop_start_order?: MigrationCounts;
  closed_loop_lars?: MigrationCounts;
  diagnostics?: Record<string, number | number[]>;
  failures: number;
  failures_measured: number;
  optimum_empty_hosts: number;
  samples: number;
  stranding_samples: number;
  arrivals: number;
  events: number;
  /** Empty-host fraction per hour from time 0. */
  empty_series: number[];
  /** A `script:NAME` policy's first run-time error (issue 31): the rest of its run placed by best fit. */
  error?: string;
}

/** `lifetime::lars::MigrationCounts`. */
export interface MigrationCounts {
  migrations: number;
  migrations_saved: number;
  drained_hosts: number;
  reordered_drains: number;
  waited: number;
}

/** `era` (seed 004, ALGORITHMS.md §6): every (policy, κ_use) cell, `era::EraReport`. */
export interface EraReport {
  preset: string;
  seed: number;
  setup: EraSetup;
  prices: EraPrices;
  cells: EraCell[];
  /** What the paper reports for this experiment. */
  paper: { policy: string; metric: string; value: number }[];
}

/** `era::jobs::SetupSummary`. */
export interface EraSetup {
  workload: string;
  history_requests: number;
  requests: number;
  capacity: number;
  offered_load: number;
  window: [number, number];
  actual_mean: number;
  actual_min: number;
  classes: {
    class: string;
    requests: number;
    work_share: number;
    value_share: number;
    mean_w: number;
    mean_t: number;
    mean_unit_value: number;
  }[];
  wider_than_capacity: number;
  notes: string[];
}

/** `era::jobs::Prices`. */
export interface EraPrices {
  p_min: number;
  p_max: number | null;
  p_fix: number;
  p_full: number;
}

/** `era::exec::CellResult`: one policy at one κ_use. */
export interface EraCell {
  policy: string;
  kappa: number;
  requests: number;
  accepted: number;
  value_efficiency: number;
  revenue: number;
  late_pct: number;
  late: number;
  zero_slack_starts: number;
  utilization: number;
  total_allocation: number;
  accepted_work: number;
  mean_unit_price: number;
  accepted_by_class: number[];
  efficiency_by_class: number[];
  lp_value: number;
  truthful_checks: number;
  truthful_violations: number;
  /** A `script:NAME` policy's first run-time error (issue 31): it quoted nothing from then on. */
  error?: string;
}

/** `oversub` (seed 001, ALGORITHMS.md §3): every policy evaluated, `oversub::OversubReport`. */
export interface OversubReport {
  preset: string;
  seed: number;
  setup: OversubSetup;
  rows: OversubRow[];
  /** The training curves of the trained arms. */
  training: TrainingCurve[];
  /** What the paper reports for this experiment. */
  paper: { policy: string; pm_hot_r: number; s_cores: number }[];
}

/** `oversub::experiment::Setup`. */
export interface OversubSetup {
  profiles: string;
  subscribers: string[];
  pms: number;
  arrivals_per_hour: number;
  mean_duration_h: number;
  mean_usage: number;
  /** `oversub::policies::estimates::Estimates`. */
  estimates: { sl: number[][]; mu: number[][]; sd: number[][]; kappa: number[] };
}

/** `oversub::experiment::PolicyRow`: one policy's evaluation, with 95% intervals over episodes. */
export interface OversubRow {
  policy: string;
  train_seed: number | null;
  episodes: number;
  pm_hot_r: number;
  pm_hot_r_lo: number;
  pm_hot_r_hi: number;
  c_hot_r: number;
  c_hot_r_lo: number;
  c_hot_r_hi: number;
  /** Share of evaluation episodes with at least one unsafe PM (seed 001 App. B.2's wording of C-Hot-R), 0–1. */
  any_pm_unsafe_r: number;
  /** Mean number of unsafe PMs per evaluation episode. */
  unsafe_pms: number;
  s_cores: number;
  s_cores_lo: number;
  s_cores_hi: number;
  safe: boolean[];
  hot_pm_hours: number;
  cluster_hot_hours: number;
  rejected: number;
  active_pms: number;
  utilization: number;
  hot_share: number;
  /** `oversub::cluster::RateMap`: the oversubscription rates. */
  rates: { policy: string; subscribers: string[]; rates: number[][]; mu: number[][] };
  /** A user's script that failed at run time (issue 31): the first episode's error. */
  error?: string;
}

/** `oversub::experiment::TrainingCurve`: one trained C2MARL arm's episodes so far. */
export interface TrainingCurve {
  policy: string;
  train_seed: number;
  log: EpisodeLog[];
}

/** `oversub::c2marl::log::EpisodeLog`: one training episode. */
export interface EpisodeLog {
  episode: number;
  steps: number;
  hot_steps: number;
  reward_sum: number;
  mean_reward: number;
  mean_cost: number;
  greedy_cost: number | null;
  lambda: number;
  epsilon: number;
  mean_loss: number;
}

/** Each model's report by model id (the scenario's `model`). */
export interface ModelReports {
  placement: PlacementReport;
  admission: AdmissionReport;
  lifetime: LifetimeReport;
  era: EraReport;
  oversub: OversubReport;
}

/** The report of a run of any model. */
export type Report = ModelReports[keyof ModelReports];

/** `placement::FrontierStep`: the frontier points of one step, the first at index `first`. */
export interface FrontierStep {
  first: number;
  points: FrontierPoint[];
}

/** `admission::AdmissionStep`: what one step of a tuning did. */
export interface AdmissionStep {
  /** Runs done so far (of `total`, importance-sampling pilots included). */
  done: number;
  total: number;
  /** The arm worked on: its index and label. */
  arm: number;
  label: string;
  /** A threshold whose runs just completed. */
  evaluated: SweepPoint | null;
  /** The arm's result when it just completed (its gain over ZEROTH comes with the report). */
  finished: AdmissionArm | null;
}

/** `lifetime::LifetimeStep`: the policy runs of one step, the first at index `first`. */
export interface LifetimeStep {
  first: number;
  results: LifetimePolicyResult[];
}

/** `era::EraStep`: the (policy, κ_use) cells of one step, the first at index `first`. */
export interface EraStep {
  first: number;
  cells: EraCell[];
}

/** `oversub::OversubStep`: the training episodes of a step, or every row's estimate so far after an evaluation step. */
export interface OversubStep {
  training: TrainingCurve[];
  rows: OversubRow[];
}

/** Each model's partial result (`step()`, each of `absorb()`'s) by model id; keys checked against real steps by tests/integration/pool_jobs.rs. */
export interface ModelSteps {
  placement: FrontierStep;
  admission: AdmissionStep;
  lifetime: LifetimeStep;
  era: EraStep;
  oversub: OversubStep;
}

/** The partial result of a step of any model. */
export type Step = ModelSteps[keyof ModelSteps];
