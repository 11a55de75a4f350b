//! Errors with a location: a field path ([`FieldError`], e.g. `admission.params.capacity`) for scenarios and
//! parameters, or a file:line:column ([`TraceError`]) for inputs. Every model reports through these, so the
//! CLI prints one line naming the place and the playground puts the message next to the field or file.

use serde::Serialize;
use std::fmt;

/// A parameter error naming the offending field (dotted path, e.g. `placement.capacity`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldError {
    /// Dotted path of the field.
    pub field: String,
    /// What is wrong and the valid range.
    pub message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// A trace-reading error: file, 1-based line and column where known, and a message.
/// Displays as `file:line:column: message`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TraceError {
    /// The file (or trace) the error is in.
    pub file: String,
    /// 1-based line, when the error is tied to one.
    pub line: Option<usize>,
    /// 1-based column (character position in the line), when known.
    pub column: Option<usize>,
    /// What is wrong, in words.
    pub message: String,
}

impl TraceError {
    /// A new error at `file`, `line`, `column` (1-based).
    pub fn new(
        file: &str,
        line: Option<usize>,
        column: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        TraceError {
            file: file.to_string(),
            line,
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for TraceError {}

/// The problems of one parameter section, every field path under one prefix (e.g. `era.`, so `kappa` is reported
/// as `era.kappa`): how the models' `validate(prefix)` collect their [`FieldError`]s, in the order found.
#[derive(Clone, Debug, Default)]
pub struct FieldErrors {
    prefix: String,
    errs: Vec<FieldError>,
}

impl FieldErrors {
    /// No problems yet; fields will be reported under `prefix`.
    pub fn new(prefix: &str) -> FieldErrors {
        FieldErrors {
            prefix: prefix.into(),
            errs: Vec::new(),
        }
    }

    /// Records that `field` (relative to the prefix) is wrong: `message` says how and what is valid.
    pub fn add(&mut self, field: &str, message: String) {
        self.errs.push(FieldError {
            field: format!("{}{field}", self.prefix),
            message,
        });
    }

    /// Records every `(field, value, lo, hi)` whose value is not a finite number in `[lo, hi]` (units are the
    /// field's own), with the message "must be a number in [lo, hi], got v".
    pub fn check_ranges(&mut self, ranges: &[(&str, f64, f64, f64)]) {
        for &(field, v, lo, hi) in ranges {
            if !(v.is_finite() && v >= lo && v <= hi) {
                self.add(field, format!("must be a number in [{lo}, {hi}], got {v}"));
            }
        }
    }

    /// Whether no problem was recorded.
    pub fn is_empty(&self) -> bool {
        self.errs.is_empty()
    }

    /// The problems, in the order recorded.
    pub fn into_vec(self) -> Vec<FieldError> {
        self.errs
    }
}

/// Prefixes every field path of `errs` with `prefix` (e.g. `admission.`), keeping the order.
pub fn prefixed(prefix: &str, errs: Vec<FieldError>) -> Vec<FieldError> {
    errs.into_iter()
        .map(|e| FieldError {
            field: format!("{prefix}{}", e.field),
            message: e.message,
        })
        .collect()
}
