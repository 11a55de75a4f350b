//! The trait every workload reader implements.

use super::format::WorkloadFormat;
use super::record::Workload;
use crate::input::{InputFile, TraceError};

/// A reader of one workload format (the workload counterpart of [`crate::trace::TraceReader`]).
pub trait WorkloadReader {
    /// The format this reader handles.
    fn format(&self) -> WorkloadFormat;
    /// Reads `files` into a workload called `name`. Errors name file, line and column; never panics.
    fn read(&self, name: &str, files: &[InputFile]) -> Result<Workload, TraceError>;
}
