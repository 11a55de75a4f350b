//! The models, one folder each, and the **model registry**.
//!
//! Every model implements [`ModelDef`] (the model contract, [`crate::experiment`]): its static facts
//! ([`ModelInfo`]: id, title, paper, charts, operations), its scenario section (a serde type with frozen
//! defaults in `src/scenario/defaults-<k>.json`), the one validation convention (`validate(section, prefix) ->
//! Vec<FieldError>`), how a run starts from its section and the seed (an
//! [`Experiment`](crate::experiment::Experiment), wrapped in the generated [`AnyRun`]), its operations and
//! its charts. The registry is the single list in [`for_each_model!`]; from it come the [`Model`] enum,
//! [`MODELS`], [`AnyRun`] and [`draw_chart`] here, the [`crate::scenario::Scenario`] sections and the
//! scenario-level [`crate::scenario::start`] and [`crate::scenario::call`], and through them the CLI's
//! `run`/`models` commands, the wasm exports and the playground's tab list.
//!
//! Adding a model: a folder `src/models/<id>/` with a `ModelDef`, one line in [`for_each_model!`], a folder
//! `www/<id>/` and one entry in `www/models.js` (ARCHITECTURE.md has the checklist).

pub mod admission;
pub mod era;
pub mod lifetime;
pub mod oversub;
pub mod placement;

pub use crate::experiment::{Inputs, ModelDef, ModelInfo};

use crate::chart::ChartError;
use crate::experiment::{Experiment, RunError, Steppable};
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// The registry: calls `$callback!` with one line per model, `field: Variant => ModelDef type`, in tab
/// order (the first is the default model), with `where "feature"` for a model a build may leave out (its runs,
/// operations and charts; [`if_model_built!`]). The only list of models in the engine.
#[macro_export]
macro_rules! for_each_model {
    ($callback:ident) => {
        $callback! {
            /// Stochastic bin packing with the Gaussian Percentile Approximation (seed 002, ALGORITHMS.md §4).
            placement: Placement => $crate::models::placement::PlacementModel,
            /// Cluster admission control with Bayesian moment policies (seed 000, ALGORITHMS.md §2); ignored
            /// by other models. Absent in v1 placement links.
            admission: Admission => $crate::models::admission::AdmissionModel where "model-admission",
            /// Lifetime-aware VM allocation: NILAS, LAVA, LA-Binary (seed 003, ALGORITHMS.md §5); ignored by
            /// other models. Absent in links of engines before it.
            lifetime: Lifetime => $crate::models::lifetime::LifetimeModel where "model-lifetime",
            /// Economic reservations and dynamic pricing: ERA's BASIC_ECON, greedy, on-demand (seed 004,
            /// ALGORITHMS.md §6); ignored by other models. Absent in links of engines before it.
            era: Era => $crate::models::era::EraModel where "model-era",
            /// Chance-constrained oversubscription: C2MARL vs Grid, MA, SL, peak and GPA rates (seed 001,
            /// ALGORITHMS.md §3); ignored by other models. Absent in links of engines before it.
            oversub: Oversub => $crate::models::oversub::OversubModel where "model-oversub",
        }
    };
}

/// `$on` when the model's cargo feature `$feat` is on (or it has none), else `$off`: the registry's arms that
/// start, call or draw a model (issue 30: the page's first wasm module leaves out every model but placement).
#[doc(hidden)]
#[macro_export]
macro_rules! if_model_built {
    ([] $on:expr, $off:expr) => {
        $on
    };
    ([$feat:literal] $on:expr, $off:expr) => {{
        #[cfg(feature = $feat)]
        let r = $on;
        #[cfg(not(feature = $feat))]
        let r = $off;
        r
    }};
}

macro_rules! define_registry {
    ($( $(#[$doc:meta])* $field:ident : $variant:ident => $def:ty $(where $feat:literal)? ),+ $(,)?) => {
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
            $( $(#[$doc])* $(#[cfg(feature = $feat)])? $variant(<$def as ModelDef>::Run), )+
        }

        impl Steppable for AnyRun {
            fn total(&self) -> usize {
                match self { $( $(#[cfg(feature = $feat)])? AnyRun::$variant(r) => Experiment::total(r), )+ }
            }
            fn done(&self) -> usize {
                match self { $( $(#[cfg(feature = $feat)])? AnyRun::$variant(r) => Experiment::done(r), )+ }
            }
            fn advance(&mut self, units: usize) -> bool {
                match self { $( $(#[cfg(feature = $feat)])? AnyRun::$variant(r) => r.step(units).is_some(), )+ }
            }
            fn batch(&self) -> usize {
                match self { $( $(#[cfg(feature = $feat)])? AnyRun::$variant(r) => Experiment::batch(r), )+ }
            }
            fn error(&self) -> Option<RunError> {
                match self { $( $(#[cfg(feature = $feat)])? AnyRun::$variant(r) => Experiment::error(r), )+ }
            }
        }

        impl AnyRun {
            /// [`Experiment::step`], the partial result serialized with `ser`; `None` once everything is done.
            pub fn step<S: Serializer>(&mut self, units: usize, ser: S) -> Option<Result<S::Ok, S::Error>> {
                match self { $( $(#[cfg(feature = $feat)])? AnyRun::$variant(r) => r.step(units).map(|p| p.serialize(ser)), )+ }
            }
            /// [`Experiment::report`] serialized with `ser`; `None` before the end.
            pub fn report<S: Serializer>(&self, ser: S) -> Option<Result<S::Ok, S::Error>> {
                match self { $( $(#[cfg(feature = $feat)])? AnyRun::$variant(r) => r.report().map(|p| p.serialize(ser)), )+ }
            }
            /// [`Experiment::jobs`].
            pub fn jobs(&mut self, units: usize) -> Vec<Value> {
                match self { $( $(#[cfg(feature = $feat)])? AnyRun::$variant(r) => r.jobs(units), )+ }
            }
            /// [`Experiment::compute`].
            pub fn compute(&mut self, job: &Value) -> Result<Value, RunError> {
                match self { $( $(#[cfg(feature = $feat)])? AnyRun::$variant(r) => r.compute(job), )+ }
            }
            /// [`Experiment::absorb`], each partial result serialized with a serializer from `ser`.
            pub fn absorb<S: Serializer>(
                &mut self,
                results: Vec<Value>,
                ser: impl Fn() -> S,
            ) -> Result<Vec<S::Ok>, RunError> {
                match self {
                    $( $(#[cfg(feature = $feat)])? AnyRun::$variant(r) => r
                        .absorb(results)?
                        .iter()
                        .map(|p| p.serialize(ser()).map_err(crate::experiment::ser_error))
                        .collect(), )+
                }
            }
            /// [`Experiment::query`].
            pub fn query<S: Serializer>(&self, op: &str, args: &Value, ser: S) -> Result<S::Ok, RunError> {
                match self { $( $(#[cfg(feature = $feat)])? AnyRun::$variant(r) => r.query(op, args, ser), )+ }
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
                    return $crate::if_model_built!([$($feat)?]
                        $crate::models::$field::chart::draw(name, area, data, opts)
                            .unwrap_or_else(|| Err(ChartError(format!("no chart '{name}'")))),
                        Err(ChartError(crate::experiment::RunError::not_in_build(stringify!($field)).message)));
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
        let json = serde_json::to_value(crate::scenario::Scenario::default()).unwrap();
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
            let p = crate::models::admission::tuning::Preset::parse(name).unwrap();
            assert_eq!(p.name(), *name);
        }
    }
}
