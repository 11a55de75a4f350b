//! The bundled-data registry: every data file shipped in `static/` for any model, with its origin and
//! attribution. The CLI finds bundled files through it and the playground asks it (wasm `bundled_data()`)
//! instead of hard-coding paths.

use serde::Serialize;

/// What a bundled file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DataKind {
    /// Per-VM usage series (a [`crate::trace::UsageTrace`]; the placement model's input).
    UsageTrace,
    /// The derived Azure 2017 arrivals bundle (the admission model's `azure_fit` input).
    AzureArrivals,
    /// A SWIM MapReduce job list (the reservation model's E4.1 jobs).
    SwimJobs,
}

impl DataKind {
    /// True for kinds that hold VM/job records (read with [`crate::workload::read_workload`]).
    pub fn is_workload(self) -> bool {
        matches!(self, DataKind::AzureArrivals | DataKind::SwimJobs)
    }
}

/// One bundled data file.
#[derive(Clone, Debug, Serialize)]
pub struct BundledData {
    /// Id used in scenarios (`trace.bundled`) and by the front end.
    pub id: &'static str,
    /// Path relative to the repository root (served at `/<path>` by `make run`).
    pub path: &'static str,
    /// What it holds.
    pub kind: DataKind,
    /// Models that read it (registry ids).
    pub models: &'static [&'static str],
    /// The usage-trace format, for usage traces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<crate::trace::TraceFormat>,
    /// One-line description.
    pub title: &'static str,
    /// Origin, authors, licence (see `static/traces/ATTRIBUTION.md`).
    pub attribution: &'static str,
}

/// The bundled PlanetLab day (the placement model's default trace).
pub const PLANETLAB_20110303: BundledData = BundledData {
        id: "planetlab-20110303",
        path: "static/traces/planetlab-20110303.tsv.gz",
        kind: DataKind::UsageTrace,
        models: &["placement"],
        format: Some(crate::trace::TraceFormat::Wide),
        title: "PlanetLab (CoMon) 2011-03-03: 1052 VMs × 288 five-minute CPU samples",
        attribution: "PlanetLab CoMon data (Park & Pai, ACM SIGOPS OSR 2006), selected by A. Beloglazov & R. Buyya \
                      (CCPE 24(13), 2012), as shipped with CloudSim (github.com/Cloudslab/cloudsim, \
                      modules/cloudsim-examples/src/main/resources/workload/planetlab/20110303). Values unchanged.",
};

/// The derived Azure 2017 arrivals (the admission model's `azure_fit` input).
pub const AZURE2017_ARRIVALS: BundledData = BundledData {
        id: "azure2017-arrivals",
        path: "static/traces/azure2017-arrivals.txt.gz",
        kind: DataKind::AzureArrivals,
        models: &["admission", "lifetime", "era"],
        format: None,
        title: "Azure 2017 VM arrivals (Bergsma et al., SOSP 2021 release): derived per-VM arrival, flavour and \
                binned-lifetime records",
        attribution: "Microsoft Azure Public Dataset V1 (Cortez et al., SOSP 2017), arrival sequences as \
                      released by Bergsma et al. (SOSP 2021); derived bundle, see static/traces/ATTRIBUTION.md.",
};

/// The SWIM Facebook FB-2010 day (the reservation model's E4.1 jobs, seed 004).
pub const SWIM_FB2010: BundledData = BundledData {
        id: "swim-fb2010",
        path: "static/traces/swim-fb2010-day0.tsv.gz",
        kind: DataKind::SwimJobs,
        models: &["era"],
        format: None,
        title: "SWIM Facebook FB-2010 synthetic day: 24,442 MapReduce jobs (submit time, input/shuffle/output bytes)",
        attribution: "SWIM (Chen et al., MASCOTS 2011; PVLDB 2012), github.com/SWIMProjectUCB/SWIM \
                      workloadSuite/FB-2010_samples_24_times_1hr_0.tsv, New BSD licence, © 2011 Regents of the \
                      University of California; bytes unchanged, see static/traces/ATTRIBUTION.md.",
};

/// Every bundled data file.
pub const BUNDLED_DATA: &[BundledData] = &[PLANETLAB_20110303, AZURE2017_ARRIVALS, SWIM_FB2010];

impl BundledData {
    /// The file name (the last component of [`BundledData::path`]).
    pub fn file_name(&self) -> &'static str {
        self.path.rsplit('/').next().unwrap_or(self.path)
    }

    /// Reads this bundled file, found at `path` on disk (native: the CLI and tests), as a workload named after
    /// its id ([`crate::workload::read_workload`], format detected). Errors: the file cannot be read (naming
    /// it), the kind holds no VM records, or the reader's own error.
    pub fn read_workload_at(
        &self,
        path: &std::path::Path,
    ) -> Result<crate::workload::Workload, String> {
        if !self.kind.is_workload() {
            return Err(format!(
                "the bundled file '{}' holds no VM records",
                self.id
            ));
        }
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = crate::input::InputFile {
            name: self.file_name().to_string(),
            bytes,
        };
        crate::workload::read_workload(self.id, &[file], None).map_err(|e| e.to_string())
    }
}

/// The bundled file with id `id`.
pub fn bundled(id: &str) -> Option<&'static BundledData> {
    BUNDLED_DATA.iter().find(|b| b.id == id)
}

/// The bundled usage trace with id `id`.
pub fn bundled_trace(id: &str) -> Option<&'static BundledData> {
    bundled(id).filter(|b| b.kind == DataKind::UsageTrace)
}

/// The bundled files a model reads.
pub fn for_model(model: &str) -> impl Iterator<Item = &'static BundledData> + '_ {
    BUNDLED_DATA
        .iter()
        .filter(move |b| b.models.contains(&model))
}
