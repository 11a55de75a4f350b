//! The models, one folder each, and the **model registry**.
//!
//! Every model implements [`ModelDef`]: its static facts ([`ModelInfo`]: id, title, paper, charts,
//! operations), its scenario section (a serde type with frozen defaults in `src/scenario/defaults-<k>.json`),
//! the one validation convention (`validate(section, prefix) -> Vec<FieldError>`), how a run starts (an
//! [`Experiment`](crate::experiment::Experiment), wrapped in the generated [`AnyRun`]), its scenario-level operations and
//! its charts. The registry is the single list in [`for_each_model!`]; from it come the [`Model`] enum, the
//! [`crate::scenario::Scenario`] sections, [`MODELS`], [`start`], [`call`] and [`draw_chart`], and through
//! them the CLI's `run`/`models` commands, the wasm exports and the playground's tab list.
//!
//! Adding a model: a folder `src/models/<id>/` with a `ModelDef`, one line in [`for_each_model!`], a folder
//! `www/<id>/` and one entry in `www/models.js` (ARCHITECTURE.md has the checklist).

pub mod admission;
pub mod era;
pub mod lifetime;
pub mod oversub;
pub mod placement;

use crate::chart::ChartError;
use crate::experiment::{Experiment, RunError, Steppable};
use crate::scenario::Scenario;
use crate::substrate::error::FieldError;
use crate::trace::{InputFile, UsageTrace};
use crate::workload::Workload;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use serde::{de::DeserializeOwned, Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// The registry: calls `$callback!` with one line per model, `field: Variant => ModelDef type`, in tab
/// order (the first is the default model). The only list of models in the engine.
#[macro_export]
macro_rules! for_each_model {
    ($callback:ident) => {
        $callback! {
            /// Stochastic bin packing with the Gaussian Percentile Approximation (seed 002, ALGORITHMS.md §4).
            placement: Placement => $crate::models::placement::PlacementModel,
            /// Cluster admission control with Bayesian moment policies (seed 000, ALGORITHMS.md §2); ignored
            /// by other models. Absent in v1 placement links.
            admission: Admission => $crate::models::admission::AdmissionModel,
            /// Lifetime-aware VM allocation: NILAS, LAVA, LA-Binary (seed 003, ALGORITHMS.md §5); ignored by
            /// other models. Absent in links of engines before it.
            lifetime: Lifetime => $crate::models::lifetime::LifetimeModel,
            /// Economic reservations and dynamic pricing: ERA's BASIC_ECON, greedy, on-demand (seed 004,
            /// ALGORITHMS.md §6); ignored by other models. Absent in links of engines before it.
            era: Era => $crate::models::era::EraModel,
            /// Chance-constrained oversubscription: C2MARL vs Grid, MA, SL, peak and GPA rates (seed 001,
            /// ALGORITHMS.md §3); ignored by other models. Absent in links of engines before it.
            oversub: Oversub => $crate::models::oversub::OversubModel,
        }
    };
}

/// Static facts of a model: what the CLI's `packlab models`, the wasm `models()` and the playground's tab
/// list show.
#[derive(Clone, Debug, Serialize)]
pub struct ModelInfo {
    /// Id: the scenario's `model` value and the name of its section, its `src/models/` and `www/` folders.
    pub id: &'static str,
    /// Tab title.
    pub title: &'static str,
    /// One line on what it does.
    pub hint: &'static str,
    /// The paper (seed number) and the specification section, e.g. "seed 002, ALGORITHMS.md §4".
    pub source: &'static str,
    /// Whether runs read a usage trace (the scenario's `trace`).
    pub uses_trace: bool,
    /// Whether runs read a workload of VM records (the scenario's `workload`, [`crate::workload::Workload`]).
    pub uses_workload: bool,
    /// The named experiments (presets) of its section, if any.
    pub experiments: &'static [&'static str],
    /// Its charts: names accepted by [`draw_chart`] (prefixed with the id, e.g. `placement.frontier`).
    pub charts: &'static [&'static str],
    /// Scenario-level operations accepted by [`call`] (e.g. `admission` `series`).
    pub ops: &'static [&'static str],
    /// Operations on a run accepted by [`AnyRun::query`] (e.g. `placement` `machine`).
    pub run_ops: &'static [&'static str],
}

/// What a run may read besides its scenario: the loaded usage trace and named input files (e.g. a bundled
/// data file's bytes).
#[derive(Clone, Copy, Debug, Default)]
pub struct Inputs<'a> {
    /// The loaded usage trace, for models with [`ModelInfo::uses_trace`].
    pub trace: Option<&'a UsageTrace>,
    /// The loaded workload, for models with [`ModelInfo::uses_workload`].
    pub workload: Option<&'a Workload>,
    /// Further input files by name.
    pub files: &'a [InputFile],
    /// Whether the run is in the browser (one thread, a page waiting): models refuse set-ups too long for
    /// it, with a message pointing to the CLI.
    pub browser: bool,
}

impl<'a> Inputs<'a> {
    /// The loaded trace, or an error on the field `trace` when none is loaded.
    pub fn need_trace(&self) -> Result<&'a UsageTrace, RunError> {
        self.trace
            .ok_or_else(|| RunError::field("trace", "no trace is loaded"))
    }

    /// The loaded workload, or an error on the field `workload` when none is loaded.
    pub fn need_workload(&self) -> Result<&'a Workload, RunError> {
        self.workload
            .ok_or_else(|| RunError::field("workload", "no workload is loaded"))
    }

    /// The bytes of the input file `name`, or an error naming it.
    pub fn need_file(&self, name: &str) -> Result<&'a [u8], RunError> {
        self.files
            .iter()
            .find(|f| f.name == name)
            .map(|f| &f.bytes[..])
            .ok_or_else(|| RunError::msg(format!("the input file '{name}' was not given")))
    }
}

/// One model behind the experiment contract (see the module documentation).
pub trait ModelDef {
    /// Static facts.
    const INFO: ModelInfo;
    /// The model's scenario section (its field of [`Scenario`] is named [`ModelInfo::id`]).
    type Section: Serialize + DeserializeOwned + Default + Clone + PartialEq + std::fmt::Debug;
    /// The model's run (its experiment stepper).
    type Run: Experiment;
    /// Every problem of the section, field paths prefixed with `prefix` (e.g. `placement.`).
    fn validate(section: &Self::Section, prefix: &str) -> Vec<FieldError>;
    /// Plans the run of a validated scenario whose `model` is this one.
    fn start(sc: &Scenario, inputs: &Inputs) -> Result<Self::Run, RunError>;
    /// A scenario-level operation of [`ModelInfo::ops`] with JSON arguments; the answer is serialized with
    /// `ser`.
    fn call<S: Serializer>(
        _sc: &Scenario,
        op: &str,
        _args: &Value,
        _inputs: &Inputs,
        _ser: S,
    ) -> Result<S::Ok, RunError> {
        Err(RunError::msg(format!(
            "the {} model has no operation '{op}'",
            Self::INFO.id
        )))
    }
    /// Draws chart `name` (one of [`ModelInfo::charts`]) from `data` and `opts` (any serde deserializers:
    /// JS values in the browser, JSON natively) into `area`, returning where its points landed when the
    /// chart has points to hit-test; `None` when the chart is not this model's.
    fn draw<'de, DB: DrawingBackend, D: Deserializer<'de>>(
        _name: &str,
        _area: &DrawingArea<DB, Shift>,
        _data: D,
        _opts: D,
    ) -> Option<Result<Option<crate::chart::Layout>, ChartError>> {
        None
    }
}

macro_rules! define_registry {
    ($( $(#[$doc:meta])* $field:ident : $variant:ident => $def:ty ),+ $(,)?) => {
        /// Which model a scenario runs (serialized as the model's id, e.g. `"placement"`); the first model of
        /// the registry is the default.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "lowercase")]
        pub enum Model {
            $( $(#[$doc])* $variant, )+
        }

        impl Default for Model {
            fn default() -> Self {
                [$( Model::$variant ),+][0]
            }
        }

        impl Model {
            /// Every model, in registry order.
            pub const ALL: &'static [Model] = &[$( Model::$variant ),+];

            /// The model's static facts.
            pub fn info(self) -> &'static ModelInfo {
                match self {
                    $( Model::$variant => &<$def as ModelDef>::INFO, )+
                }
            }

            /// The model with id `id`.
            pub fn from_id(id: &str) -> Option<Model> {
                Model::ALL.iter().copied().find(|m| m.info().id == id)
            }
        }

        /// The static facts of every model, in registry order.
        pub const MODELS: &[ModelInfo] = &[$( <$def as ModelDef>::INFO ),+];

        /// A run of any model (its [`ModelDef::Run`]), without type erasure: results are serialized with the
        /// caller's serializer.
        pub enum AnyRun {
            $( $(#[$doc])* $variant(<$def as ModelDef>::Run), )+
        }

        impl Steppable for AnyRun {
            fn total(&self) -> usize {
                match self { $( AnyRun::$variant(r) => Experiment::total(r), )+ }
            }
            fn done(&self) -> usize {
                match self { $( AnyRun::$variant(r) => Experiment::done(r), )+ }
            }
            fn advance(&mut self, units: usize) -> bool {
                match self { $( AnyRun::$variant(r) => r.step(units).is_some(), )+ }
            }
            fn batch(&self) -> usize {
                match self { $( AnyRun::$variant(r) => Experiment::batch(r), )+ }
            }
            fn error(&self) -> Option<RunError> {
                match self { $( AnyRun::$variant(r) => Experiment::error(r), )+ }
            }
        }

        impl AnyRun {
            /// [`Experiment::step`], the partial result serialized with `ser`; `None` once everything is done.
            pub fn step<S: Serializer>(&mut self, units: usize, ser: S) -> Option<Result<S::Ok, S::Error>> {
                match self { $( AnyRun::$variant(r) => r.step(units).map(|p| p.serialize(ser)), )+ }
            }
            /// [`Experiment::report`] serialized with `ser`; `None` before the end.
            pub fn report<S: Serializer>(&self, ser: S) -> Option<Result<S::Ok, S::Error>> {
                match self { $( AnyRun::$variant(r) => r.report().map(|p| p.serialize(ser)), )+ }
            }
            /// [`Experiment::jobs`].
            pub fn jobs(&mut self, units: usize) -> Vec<Value> {
                match self { $( AnyRun::$variant(r) => r.jobs(units), )+ }
            }
            /// [`Experiment::compute`].
            pub fn compute(&mut self, job: &Value) -> Result<Value, RunError> {
                match self { $( AnyRun::$variant(r) => r.compute(job), )+ }
            }
            /// [`Experiment::absorb`], each partial result serialized with a serializer from `ser`.
            pub fn absorb<S: Serializer>(
                &mut self,
                results: Vec<Value>,
                ser: impl Fn() -> S,
            ) -> Result<Vec<S::Ok>, RunError> {
                match self {
                    $( AnyRun::$variant(r) => r
                        .absorb(results)?
                        .iter()
                        .map(|p| p.serialize(ser()).map_err(crate::experiment::ser_error))
                        .collect(), )+
                }
            }
            /// [`Experiment::query`].
            pub fn query<S: Serializer>(&self, op: &str, args: &Value, ser: S) -> Result<S::Ok, RunError> {
                match self { $( AnyRun::$variant(r) => r.query(op, args, ser), )+ }
            }
        }

        /// Validates `sc` and plans its model's run (see [`ModelDef::start`]). Errors: the first invalid field.
        pub fn start(sc: &Scenario, inputs: &Inputs) -> Result<AnyRun, RunError> {
            if let Err(errs) = sc.validate() {
                return Err(errs.into_iter().next().expect("at least one error").into());
            }
            match sc.model {
                $( Model::$variant => <$def as ModelDef>::start(sc, inputs).map(AnyRun::$variant), )+
            }
        }

        /// Operation `op` of `sc`'s model ([`ModelDef::call`]), the answer serialized with `ser`.
        pub fn call<S: Serializer>(
            sc: &Scenario,
            op: &str,
            args: &Value,
            inputs: &Inputs,
            ser: S,
        ) -> Result<S::Ok, RunError> {
            match sc.model {
                $( Model::$variant => <$def as ModelDef>::call(sc, op, args, inputs, ser), )+
            }
        }

        /// Draws the chart `name` of any model (or the shared `trace.histogram`) into `area` from `data` and
        /// `opts` (serde deserializers; null options give the defaults); returns where its points landed, for
        /// charts with points to hit-test.
        pub fn draw_chart<'de, DB: DrawingBackend, D: Deserializer<'de>>(
            name: &str,
            area: &DrawingArea<DB, Shift>,
            data: D,
            opts: D,
        ) -> Result<Option<crate::chart::Layout>, ChartError> {
            if name == "trace.histogram" {
                return crate::chart::draw_shared(area, data, opts).map(|_| None);
            }
            $(
                if name.starts_with(concat!(stringify!($field), ".")) {
                    return <$def as ModelDef>::draw(name, area, data, opts)
                        .unwrap_or_else(|| Err(ChartError(format!("no chart '{name}'"))));
                }
            )+
            Err(ChartError(format!("no chart '{name}'")))
        }
    };
}
for_each_model!(define_registry);

/// The chart `name` as an SVG document of `width` × `height` px ([`draw_chart`] on an SVG backend) from JSON
/// data and options.
pub fn chart_svg(
    name: &str,
    data: &Value,
    opts: &Value,
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    crate::chart::render_svg(width, height, |area| {
        draw_chart(name, area, data, opts).map(|_| ())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_lists_every_model_once_with_its_section() {
        let ids: Vec<&str> = MODELS.iter().map(|m| m.id).collect();
        assert_eq!(
            ids,
            vec!["placement", "admission", "lifetime", "era", "oversub"]
        );
        assert_eq!(Model::default(), Model::Placement);
        let json = serde_json::to_value(Scenario::default()).unwrap();
        for m in Model::ALL {
            let id = m.info().id;
            assert_eq!(Model::from_id(id), Some(*m));
            assert_eq!(serde_json::to_value(m).unwrap(), id);
            assert!(json.get(id).is_some(), "the scenario has a section '{id}'");
            for c in m.info().charts {
                assert!(c.starts_with(&format!("{id}.")), "{c}");
            }
        }
        assert_eq!(Model::from_id("nope"), None);
        // the admission model's experiments are its presets, each parsing back to itself
        for name in Model::Admission.info().experiments {
            let p = crate::admission::tuning::Preset::parse(name).unwrap();
            assert_eq!(p.name(), *name);
        }
    }
}
