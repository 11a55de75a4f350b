/* tslint:disable */
/* eslint-disable */

/** What every export throws: `{ kind, message, field? }`; an invalid scenario lists every bad field
 * (`errors`), a file that cannot be read names its line and column. */
export type PacklabError =
| { kind: "scenario" | "run" | "input" | "chart" | "internal"; message: string; field?: string }
| { kind: "scenario"; message: string; field: string; errors: { field: string; message: string }[] }
| { kind: "trace"; file: string; line: number | null; column: number | null; message: string; display: string };


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



/**
 * An experiment in progress (any model). It keeps its state after the last step, for queries such as the
 * placement model's teaching view.
 */
export class ExperimentRun {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * Completes the step of the last [`ExperimentRun::jobs`] with their results (JSON text, in job order)
     * and returns its partial results (an array: one per part of the run advanced, e.g. per admission arm,
     * each as [`ExperimentRun::step`] gives it). Errors: `{ kind: "run", message }` when the results do not
     * answer the jobs (the run is then unchanged).
     */
    absorb(results: string[]): Step[];
    /**
     * Computes one job of [`ExperimentRun::jobs`] (JSON text) and returns its result as JSON text (exact:
     * numbers round-trip bit for bit). Errors: `{ kind: "run", message }` for a job this run did not issue.
     */
    compute(job: string): string;
    /**
     * Units of work done so far.
     */
    done(): number;
    /**
     * The next step's jobs for the pool of workers ([`crate::experiment::Experiment::jobs`]), at most
     * `units`, each as JSON text: computed by [`ExperimentRun::compute`] on any copy of this run (planned
     * from the same scenario and inputs), then given back in order to [`ExperimentRun::absorb`]. Empty when
     * the run does not split its next step: call [`ExperimentRun::step`] instead.
     */
    jobs(units: number): string[];
    /**
     * Validates `scenario` (once) and plans its model's run on `inputs` (none: a model that reads nothing
     * but its scenario). Errors: `{ kind: "scenario", field, message, errors }` or `{ kind: "run", field?,
     * message }` (e.g. a model that reads a trace given none).
     */
    constructor(scenario: any, inputs?: RunInputs | null);
    /**
     * A run operation of the model's `run_ops` (e.g. `machine` with `{ fit, machine }`).
     */
    query(op: string, args: any): any;
    /**
     * The report (what `packlab run` prints for the same scenario; its shape by model: `ModelReports`); an
     * error before the last step.
     */
    report(): Report;
    /**
     * The report as the JSON text `packlab run` prints (exact: what a sweep's results are assembled from);
     * an error before the last step.
     */
    report_json(): string;
    /**
     * Runs every remaining step and returns the report (for tests and timing).
     */
    run_all(): Report;
    /**
     * Advances by one unit of work and returns the model's partial result (e.g. `{ first, points }` for a
     * frontier, `{ done, total, arm, label, evaluated, finished }` for an admission tuning), or `null` when
     * everything is done. Errors: the experiment's own (e.g. a set-up that failed), `{ kind: "run", ... }`.
     */
    step(): Step | null;
    /**
     * Units of work planned.
     */
    total(): number;
}

/**
 * A parsed workload (VM records) and the SHA-256 of the bytes it came from.
 */
export class LoadedWorkload {
    private constructor();
    free(): void;
    [Symbol.dispose](): void;
    /**
     * Its name.
     */
    name(): string;
    /**
     * SHA-256 of its files.
     */
    sha256(): string;
    /**
     * Counts, totals and the window ([`crate::workload::WorkloadSummary`]).
     */
    summary(): any;
}

/**
 * What a run reads besides its scenario (the engine's [`Inputs`]), gathered before
 * [`ExperimentRun::new`]: the loaded usage trace ([`RunInputs::use_trace`]), the loaded workload
 * ([`RunInputs::use_workload`]) and named input files ([`RunInputs::add`], e.g. `oversub`'s `c2marl:FILE`
 * policies). The trace and workload are shared, not copied; the run copies the files it needs while it is
 * planned. Which of them a model reads, the registry says (`uses_trace`, `uses_workload`).
 */
export class RunInputs {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * Adds the input file `name` (replacing an earlier file of that name). Errors: `{ kind: "input", field:
     * "files", message }` when the files together exceed [`MAX_RUN_FILE_BYTES`].
     */
    add(name: string, bytes: Uint8Array | number[]): void;
    /**
     * Whether no input file is held.
     */
    is_empty(): boolean;
    /**
     * Input files held.
     */
    len(): number;
    /**
     * No inputs.
     */
    constructor();
    /**
     * The run reads the loaded usage trace `trace`.
     */
    use_trace(trace: Trace): void;
    /**
     * The run replays the loaded workload `workload` (VM records).
     */
    use_workload(workload: LoadedWorkload): void;
}

/**
 * A parsed trace, the SHA-256 of its content (what upload share links record) and that of the files it came
 * from (what links made before content identity record).
 */
export class Trace {
    private constructor();
    free(): void;
    [Symbol.dispose](): void;
    /**
     * Lower-case hex SHA-256 of the files it was read from ([`crate::input::upload_sha256`]), what links
     * made before content identity record.
     */
    files_sha256(): string;
    /**
     * Whether `sha256` names this trace: its content hash, or its files' hash (an older link).
     */
    is_named_by(sha256: string): boolean;
    /**
     * Trace name (file or folder name).
     */
    name(): string;
    /**
     * Samples per VM.
     */
    samples(): number;
    /**
     * Lower-case hex SHA-256 of the trace's content ([`UsageTrace::content_sha256`]): the same for the same
     * data picked as files, a folder or a zip.
     */
    sha256(): string;
    /**
     * The trace summary (VMs, samples, mean, s.d., min, max, histogram).
     */
    summary(): any;
    /**
     * Number of VMs.
     */
    vms(): number;
}

/**
 * Collects the files of an upload (or a bundled trace's bytes) one by one, then parses them.
 */
export class TraceBuilder {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * Adds one file: its name (a relative path for folder uploads, e.g. `20110303/vm1`) and bytes.
     * Errors when the upload grows past [`crate::input::MAX_UPLOAD_BYTES`].
     */
    add(name: string, bytes: Uint8Array | number[]): void;
    /**
     * Detects the format and parses (see [`trace::read_upload`]); consumes the builder. The trace is
     * called `name` when given (a bundled trace's id, as the CLI names it), else after the upload
     * ([`crate::input::upload_name`]). Errors are `{ kind: "trace", file, line, column, message, display }`.
     */
    finish(name?: string | null): Trace;
    /**
     * Like [`TraceBuilder::finish`] for a workload of VM records (the Azure 2017 arrivals, Azure vmtables,
     * Alibaba GPU 2023; format detected, see [`crate::workload::read_workload`]).
     */
    finish_workload(name?: string | null): LoadedWorkload;
    /**
     * Whether no file was added.
     */
    is_empty(): boolean;
    /**
     * Number of files added so far.
     */
    len(): number;
    constructor();
    /**
     * SHA-256 of the files added so far ([`crate::input::upload_sha256`]), to check an upload against a link
     * before parsing it.
     */
    sha256(): string;
}

/**
 * CSS colour of series `i` of a multi-arm chart (matches the charts), for tables beside them.
 */
export function arm_color(i: number): string;

/**
 * Every bundled data file: `[{ id, path, kind, models, format?, title, attribution }]`.
 */
export function bundled_data(): any;

/**
 * Chart `name` as an SVG document of `width` × `height` px (100..=8000 each).
 */
export function chart_svg(name: string, data: any, opts: any, width: number, height: number): string;

/**
 * Merges a (partial) scenario onto the defaults and validates it: returns `{ scenario, errors }` where
 * `errors` is `[{ field, message }]` (empty when valid). Throws only when the object cannot be a scenario
 * at all (wrong types, unknown fields).
 */
export function check_scenario(scenario: any): any;

/**
 * The default scenario as a plain object.
 */
export function default_scenario(): any;

/**
 * Draws chart `name` (a model's `charts`, or `trace.histogram`) from `data` and `opts` (null or undefined
 * = defaults) into `canvas`; returns where its points landed (`{ points: [[x, y]...], plot_area,
 * zero_floor }` in canvas pixels, for charts with points to hit-test) or `null`.
 */
export function draw_chart(canvas: HTMLCanvasElement, name: string, data: any, opts: any): any;

/**
 * The engine (crate) version.
 */
export function engine_version(): string;

/**
 * A scenario-level operation of the scenario's model (its `ops`, e.g. admission `series` with `{ label,
 * threshold, run, points }`, or `azure_fit` with the bundled arrivals as the input file `file_name` /
 * `file_bytes`).
 */
export function model_call(scenario: any, op: string, args: any, file_name?: string | null, file_bytes?: Uint8Array | number[] | null): any;

/**
 * The model registry: `[{ id, title, hint, source, uses_trace, experiments, charts, ops, run_ops }]`, in
 * tab order (the playground's tab list comes from it).
 */
export function models(): any;

/**
 * Decodes a share link (payload, `#s=…` or a whole URL; `v2.d<set>.…` or the old `v1.…`) into a validated
 * scenario object. A link from a defaults set this engine does not know throws `{ field: "defaults" }`.
 */
export function scenario_from_link(link: string): any;

/**
 * The scenario as pretty JSON, exactly what `packlab run scenario.json` reads.
 */
export function scenario_json(scenario: any): string;

/**
 * The share-link payload `v2.d<set>.…` of a valid scenario (the fragment is `#s=` + it).
 */
export function scenario_to_link(scenario: any): string;

/**
 * Installs the panic hook (runs when the module is instantiated).
 */
export function start(): void;

/**
 * The cells of the sweep file `text` (JSON): `{ fields, cells: [{ index, values, scenario, link }] }`, every
 * cell validated. Errors: `{ kind: "scenario", field, message }` naming the field (`axes[1].values[2]`, or
 * `cell 4` with the axis value and the scenario's complaint).
 */
export function sweep_cells(text: string): any;

/**
 * The results of the whole sweep `text` from its cells' reports (`reports`: each the JSON text of
 * `ExperimentRun.report_json`, in cell order): `{ json, csv }`, the texts of `results.json` and
 * `results.csv` as `packlab sweep` writes them. Errors: `{ kind: "scenario", field, message }`.
 */
export function sweep_results(text: string, reports: string[]): any;

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

export interface InitOutput {
    readonly memory: WebAssembly.Memory;
    readonly __wbg_experimentrun_free: (a: number, b: number) => void;
    readonly __wbg_loadedworkload_free: (a: number, b: number) => void;
    readonly __wbg_runinputs_free: (a: number, b: number) => void;
    readonly __wbg_trace_free: (a: number, b: number) => void;
    readonly __wbg_tracebuilder_free: (a: number, b: number) => void;
    readonly arm_color: (a: number) => [number, number];
    readonly bundled_data: () => [number, number, number];
    readonly chart_svg: (a: number, b: number, c: any, d: any, e: number, f: number) => [number, number, number, number];
    readonly check_scenario: (a: any) => [number, number, number];
    readonly default_scenario: () => [number, number, number];
    readonly draw_chart: (a: any, b: number, c: number, d: any, e: any) => [number, number, number];
    readonly engine_version: () => [number, number];
    readonly experimentrun_absorb: (a: number, b: number, c: number) => [number, number, number];
    readonly experimentrun_compute: (a: number, b: number, c: number) => [number, number, number, number];
    readonly experimentrun_done: (a: number) => number;
    readonly experimentrun_jobs: (a: number, b: number) => [number, number];
    readonly experimentrun_new: (a: any, b: number) => [number, number, number];
    readonly experimentrun_query: (a: number, b: number, c: number, d: any) => [number, number, number];
    readonly experimentrun_report: (a: number) => [number, number, number];
    readonly experimentrun_report_json: (a: number) => [number, number, number, number];
    readonly experimentrun_run_all: (a: number) => [number, number, number];
    readonly experimentrun_step: (a: number) => [number, number, number];
    readonly experimentrun_total: (a: number) => number;
    readonly loadedworkload_name: (a: number) => [number, number];
    readonly loadedworkload_sha256: (a: number) => [number, number];
    readonly loadedworkload_summary: (a: number) => [number, number, number];
    readonly model_call: (a: any, b: number, c: number, d: any, e: number, f: number, g: number, h: number) => [number, number, number];
    readonly models: () => [number, number, number];
    readonly runinputs_add: (a: number, b: number, c: number, d: number, e: number) => [number, number];
    readonly runinputs_is_empty: (a: number) => number;
    readonly runinputs_len: (a: number) => number;
    readonly runinputs_new: () => number;
    readonly runinputs_use_trace: (a: number, b: number) => void;
    readonly runinputs_use_workload: (a: number, b: number) => void;
    readonly scenario_from_link: (a: number, b: number) => [number, number, number];
    readonly scenario_json: (a: any) => [number, number, number, number];
    readonly scenario_to_link: (a: any) => [number, number, number, number];
    readonly start: () => void;
    readonly sweep_cells: (a: number, b: number) => [number, number, number];
    readonly sweep_results: (a: number, b: number, c: number, d: number) => [number, number, number];
    readonly trace_files_sha256: (a: number) => [number, number];
    readonly trace_is_named_by: (a: number, b: number, c: number) => number;
    readonly trace_name: (a: number) => [number, number];
    readonly trace_samples: (a: number) => number;
    readonly trace_sha256: (a: number) => [number, number];
    readonly trace_summary: (a: number) => [number, number, number];
    readonly trace_vms: (a: number) => number;
    readonly tracebuilder_add: (a: number, b: number, c: number, d: number, e: number) => [number, number];
    readonly tracebuilder_finish: (a: number, b: number, c: number) => [number, number, number];
    readonly tracebuilder_finish_workload: (a: number, b: number, c: number) => [number, number, number];
    readonly tracebuilder_is_empty: (a: number) => number;
    readonly tracebuilder_len: (a: number) => number;
    readonly tracebuilder_new: () => number;
    readonly tracebuilder_sha256: (a: number) => [number, number];
    readonly __wbindgen_malloc: (a: number, b: number) => number;
    readonly __wbindgen_realloc: (a: number, b: number, c: number, d: number) => number;
    readonly __wbindgen_free: (a: number, b: number, c: number) => void;
    readonly __wbindgen_exn_store: (a: number) => void;
    readonly __externref_table_alloc: () => number;
    readonly __wbindgen_externrefs: WebAssembly.Table;
    readonly __externref_table_dealloc: (a: number) => void;
    readonly __externref_drop_slice: (a: number, b: number) => void;
    readonly __wbindgen_start: () => void;
}

export type SyncInitInput = BufferSource | WebAssembly.Module;

/**
 * Instantiates the given `module`, which can either be bytes or
 * a precompiled `WebAssembly.Module`.
 *
 * @param {{ module: SyncInitInput }} module - Passing `SyncInitInput` directly is deprecated.
 *
 * @returns {InitOutput}
 */
export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;

/**
 * If `module_or_path` is {RequestInfo} or {URL}, makes a request and
 * for everything else, calls `WebAssembly.instantiate` directly.
 *
 * @param {{ module_or_path: InitInput | Promise<InitInput> }} module_or_path - Passing `InitInput` directly is deprecated.
 *
 * @returns {Promise<InitOutput>}
 */
export default function __wbg_init (module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
