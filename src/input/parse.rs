//! Field parsing shared by the usage and record readers: CSV records with 1-based line and column positions,
//! checked numbers (finite, non-negative, bounded), positioned errors and blank-skipping line iteration.

use crate::substrate::error::TraceError;

/// Longest field of a text input (an item or VM id, a number, a CSV cell), bytes: 4,096.
pub const MAX_FIELD_BYTES: usize = 4096;

/// Clips a field for an error message (at most 40 characters).
pub(crate) fn clip(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

/// The base name of a path (after the last `/` or `\`).
pub(crate) fn base(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// One CSV record with its file and 1-based line, for positioned errors.
pub(crate) struct Row<'r> {
    pub file: &'r str,
    pub line: usize,
    pub rec: &'r csv::StringRecord,
}

impl Row<'_> {
    /// Number of fields.
    pub fn len(&self) -> usize {
        self.rec.len()
    }

    /// 1-based column (characters) of the first non-blank character of field `k` (fields may be padded, as
    /// Bitbrains' `;` + TAB); one past the end of the line when `k ≥ len`. Exact for unquoted fields (all the
    /// sources here).
    pub fn col(&self, k: usize) -> usize {
        let start = 1
            + (0..k.min(self.rec.len()))
                .map(|j| self.rec[j].chars().count() + 1)
                .sum::<usize>()
            - usize::from(k >= self.rec.len() && !self.rec.is_empty());
        let lead = self
            .rec
            .get(k)
            .map_or(0, |f| f.chars().take_while(|c| c.is_whitespace()).count());
        start + lead
    }

    /// An error at field `k`.
    pub fn err(&self, k: usize, msg: impl Into<String>) -> TraceError {
        TraceError::new(self.file, Some(self.line), Some(self.col(k)), msg)
    }

    /// Field `k`, trimmed; an error names the missing field.
    pub fn get(&self, k: usize, what: &str) -> Result<&str, TraceError> {
        let f = self
            .rec
            .get(k)
            .map(str::trim)
            .ok_or_else(|| self.err(k, format!("missing the {what} field")))?;
        if f.len() > MAX_FIELD_BYTES {
            return Err(self.err(
                k,
                format!(
                    "the {what} field of {} bytes exceeds the limit of {} bytes",
                    f.len(),
                    MAX_FIELD_BYTES
                ),
            ));
        }
        Ok(f)
    }

    /// Field `k` as a finite number in `[0, max]`.
    pub fn num(&self, k: usize, what: &str, max: f64) -> Result<f64, TraceError> {
        let s = self.get(k, what)?;
        let v: f64 = s
            .parse()
            .map_err(|_| self.err(k, format!("{what} '{}' is not a number", clip(s))))?;
        check_range(v, max).map_err(|m| self.err(k, format!("{what} '{}' {m}", clip(s))))
    }

    /// Field `k` as a number in `[0, max]`, or `None` when empty.
    pub fn opt_num(&self, k: usize, what: &str, max: f64) -> Result<Option<f64>, TraceError> {
        match self.rec.get(k).map(str::trim) {
            None | Some("") => Ok(None),
            Some(_) => self.num(k, what, max).map(Some),
        }
    }
}

/// Checks that `v` is finite and in `[0, max]`; the error completes "<what> '<text>' ...".
pub(crate) fn check_range(v: f64, max: f64) -> Result<f64, String> {
    if !v.is_finite() {
        Err("is not a finite number".into())
    } else if v < 0.0 {
        Err("is negative".into())
    } else if v > max {
        Err(format!("exceeds the limit {max}"))
    } else {
        Ok(v)
    }
}

/// Calls `f` on every non-blank record of the CSV `text` (no header handling: the first line is a record
/// too), with `delimiter`. Returns the number of records seen. CSV syntax errors name the line.
pub(crate) fn for_each_record(
    file: &str,
    text: &str,
    delimiter: u8,
    mut f: impl FnMut(&Row) -> Result<(), TraceError>,
) -> Result<usize, TraceError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(text.as_bytes());
    let mut rec = csv::StringRecord::new();
    let mut n = 0usize;
    loop {
        let more = rdr.read_record(&mut rec).map_err(|e| {
            let line = e.position().map(|p| p.line() as usize);
            TraceError::new(file, line, None, format!("malformed CSV: {e}"))
        })?;
        if !more {
            return Ok(n);
        }
        if rec.len() == 1 && rec[0].trim().is_empty() {
            continue;
        }
        let line = rec.position().map(|p| p.line() as usize).unwrap_or(0);
        n += 1;
        f(&Row {
            file,
            line,
            rec: &rec,
        })?;
    }
}

/// An error at 1-based `line` and `col` of `file`.
pub(crate) fn err(file: &str, line: usize, col: usize, msg: impl Into<String>) -> TraceError {
    TraceError::new(file, Some(line), Some(col), msg)
}

/// 1-based column (in characters) of byte offset `off` in `line`.
pub(crate) fn col_of(line: &str, off: usize) -> usize {
    line[..off.min(line.len())].chars().count() + 1
}

/// Lines with their 1-based numbers, skipping blank lines (a trailing CR is removed).
pub(crate) fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
        .filter(|(_, l)| !l.trim().is_empty())
}
