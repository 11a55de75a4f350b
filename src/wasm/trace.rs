//! Uploads and bundled usage traces: files are added one by one, then parsed into a [`Trace`].

use super::convert::{to_js, trace_error, JsResult};
use crate::input::{InputFile, TraceError};
use crate::trace::{self, UsageTrace};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// Collects the files of an upload (or a bundled trace's bytes) one by one, then parses them.
#[wasm_bindgen]
#[derive(Default)]
pub struct TraceBuilder {
    files: Vec<InputFile>,
    bytes: usize,
}

#[wasm_bindgen]
impl TraceBuilder {
    #[wasm_bindgen(constructor)]
    pub fn new() -> TraceBuilder {
        TraceBuilder::default()
    }

    /// Adds one file: its name (a relative path for folder uploads, e.g. `20110303/vm1`) and bytes.
    /// Errors when the upload grows past [`crate::input::MAX_UPLOAD_BYTES`].
    pub fn add(&mut self, name: String, bytes: Vec<u8>) -> JsResult<()> {
        self.bytes += bytes.len();
        if self.bytes > crate::input::MAX_UPLOAD_BYTES {
            return Err(trace_error(&TraceError::new(
                &name,
                None,
                None,
                format!(
                    "the upload exceeds the limit of {} MiB",
                    crate::input::MAX_UPLOAD_BYTES >> 20
                ),
            )));
        }
        self.files.push(InputFile { name, bytes });
        Ok(())
    }

    /// SHA-256 of the files added so far ([`crate::input::upload_sha256`]), to check an upload against a link
    /// before parsing it.
    pub fn sha256(&self) -> String {
        crate::input::upload_sha256(&self.files)
    }

    /// Number of files added so far.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file was added.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Detects the format and parses (see [`trace::read_upload`]); consumes the builder. The trace is
    /// called `name` when given (a bundled trace's id, as the CLI names it), else after the upload
    /// ([`crate::input::upload_name`]). Errors are `{ kind: "trace", file, line, column, message, display }`.
    pub fn finish(self, name: Option<String>) -> JsResult<Trace> {
        let files_sha256 = crate::input::upload_sha256(&self.files);
        let name = name
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| crate::input::upload_name(&self.files));
        let t = trace::read_trace(&name, &self.files, None).map_err(|e| trace_error(&e))?;
        Ok(Trace {
            sha256: t.content_sha256(),
            inner: Rc::new(t),
            files_sha256,
        })
    }

    /// Like [`TraceBuilder::finish`] for a workload of VM records (the Azure 2017 arrivals, Azure vmtables,
    /// Alibaba GPU 2023; format detected, see [`crate::workload::read_workload`]).
    pub fn finish_workload(self, name: Option<String>) -> JsResult<LoadedWorkload> {
        let sha256 = crate::input::upload_sha256(&self.files);
        let name = name
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| crate::input::upload_name(&self.files));
        let w = crate::workload::read_workload(&name, &self.files, None)
            .map_err(|e| trace_error(&e))?;
        Ok(LoadedWorkload {
            inner: Rc::new(w),
            sha256,
        })
    }
}

/// A parsed workload (VM records) and the SHA-256 of the bytes it came from.
#[wasm_bindgen]
pub struct LoadedWorkload {
    inner: Rc<crate::workload::Workload>,
    sha256: String,
}

#[wasm_bindgen]
impl LoadedWorkload {
    /// Its name.
    pub fn name(&self) -> String {
        self.inner.name.clone()
    }
    /// SHA-256 of its files.
    pub fn sha256(&self) -> String {
        self.sha256.clone()
    }
    /// Counts, totals and the window ([`crate::workload::WorkloadSummary`]).
    pub fn summary(&self) -> JsResult<JsValue> {
        to_js(&self.inner.summary())
    }
}

impl LoadedWorkload {
    /// The engine's workload.
    pub fn workload(&self) -> &crate::workload::Workload {
        &self.inner
    }

    /// A shared handle on it (a [`super::run::RunInputs`] keeps one; no copy).
    pub(crate) fn shared(&self) -> Rc<crate::workload::Workload> {
        Rc::clone(&self.inner)
    }
}

/// A parsed trace, the SHA-256 of its content (what upload share links record) and that of the files it came
/// from (what links made before content identity record).
#[wasm_bindgen]
pub struct Trace {
    inner: Rc<UsageTrace>,
    sha256: String,
    files_sha256: String,
}

#[wasm_bindgen]
impl Trace {
    /// Trace name (file or folder name).
    pub fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// Lower-case hex SHA-256 of the trace's content ([`UsageTrace::content_sha256`]): the same for the same
    /// data picked as files, a folder or a zip.
    pub fn sha256(&self) -> String {
        self.sha256.clone()
    }

    /// Lower-case hex SHA-256 of the files it was read from ([`crate::input::upload_sha256`]), what links
    /// made before content identity record.
    pub fn files_sha256(&self) -> String {
        self.files_sha256.clone()
    }

    /// Whether `sha256` names this trace: its content hash, or its files' hash (an older link).
    pub fn is_named_by(&self, sha256: &str) -> bool {
        sha256 == self.sha256 || sha256 == self.files_sha256
    }

    /// Number of VMs.
    pub fn vms(&self) -> usize {
        self.inner.items.len()
    }

    /// Samples per VM.
    pub fn samples(&self) -> usize {
        self.inner.samples
    }

    /// The trace summary (VMs, samples, mean, s.d., min, max, histogram).
    pub fn summary(&self) -> JsResult<JsValue> {
        to_js(&self.inner.summary())
    }
}

impl Trace {
    /// The engine's trace (for Rust callers and tests).
    pub fn usage_trace(&self) -> &UsageTrace {
        &self.inner
    }

    /// A shared handle on it (a [`super::run::RunInputs`] keeps one; no copy).
    pub(crate) fn shared(&self) -> Rc<UsageTrace> {
        Rc::clone(&self.inner)
    }
}
