//! The input layer: what every reader of an uploaded or bundled file shares, below the usage-series readers
//! ([`crate::trace`]) and the VM/job/host record readers ([`crate::workload`]): the input file
//! ([`InputFile`]), the limits on untrusted input and their checks ([`check_upload`], the decompression budget
//! [`InflateBudget`]), gzip detection and bounded decompression ([`maybe_gunzip`]), text split into lines
//! ([`TextLines`], [`utf8`]) and the CSV fields with 1-based positions ([`parse`]). Errors are
//! [`TraceError`]s naming file, line and column (never a panic).

pub mod parse;
#[cfg(test)]
pub(crate) mod testutil;

pub use crate::substrate::error::TraceError;

/// Largest accepted time, s (about 317 years): times must lie in `[0, MAX_TIME_S]`.
pub const MAX_TIME_S: f64 = 1e10;
/// Largest upload accepted, in bytes (after decompression): 256 MiB.
pub const MAX_UPLOAD_BYTES: usize = 256 << 20;
/// Largest trace accepted, in usage values (items × samples): 40 million (40, 80 or 320 MB as 1-byte,
/// 2-byte codes or plain f64, [`Samples`]).
pub const MAX_VALUES: usize = 40_000_000;
/// Most files in one upload (a folder, or the regular files of a zip archive): 100,000.
pub const MAX_FILES: usize = 100_000;
/// Most bytes all the gzip members and zip entries of one upload decompress to together: 256 MiB (the limit
/// of each file as well; checked while decompressing, so a compression bomb stops at the limit).
pub const MAX_INFLATED_BYTES: usize = MAX_UPLOAD_BYTES;
/// Longest line of a text input, bytes: 4 MiB (a wide trace of a year of 5-minute samples is about 1 MiB).
pub const MAX_LINE_BYTES: usize = 4 << 20;
pub use parse::MAX_FIELD_BYTES;

/// One input file: its name (a path relative to the upload, e.g. `20110303/vm1`) and its bytes.
#[derive(Clone, Debug)]
pub struct InputFile {
    /// File name or relative path.
    pub name: String,
    /// Raw contents (possibly gzip or zip compressed, depending on the format).
    pub bytes: Vec<u8>,
}

/// The first line of a file (gzip decoded), from its first 4 KiB, for format detection.
pub(crate) fn first_line(f: &InputFile) -> String {
    use std::io::Read;
    let mut buf = Vec::new();
    if f.bytes.starts_with(&[0x1f, 0x8b]) {
        let _ = flate2::read::GzDecoder::new(&f.bytes[..])
            .take(4096)
            .read_to_end(&mut buf);
    } else {
        buf.extend_from_slice(&f.bytes[..f.bytes.len().min(4096)]);
    }
    let s = String::from_utf8_lossy(&buf);
    s.lines().next().unwrap_or("").to_string()
}

/// Rejects an empty upload or one larger than [`MAX_UPLOAD_BYTES`].
pub(crate) fn check_upload(name: &str, files: &[InputFile]) -> Result<(), TraceError> {
    if files.is_empty() {
        return Err(TraceError::new(name, None, None, "no files given"));
    }
    if files.len() > MAX_FILES {
        return Err(TraceError::new(
            name,
            None,
            None,
            format!(
                "{} files exceed the limit of {MAX_FILES} files per upload",
                files.len()
            ),
        ));
    }
    let total: usize = files.iter().map(|f| f.bytes.len()).sum();
    if total > MAX_UPLOAD_BYTES {
        return Err(TraceError::new(
            name,
            None,
            None,
            format!("upload of {total} bytes exceeds the limit of {MAX_UPLOAD_BYTES} bytes"),
        ));
    }
    Ok(())
}

/// The name of an upload: the single file's name, or the first path component shared by several files.
pub fn upload_name(files: &[InputFile]) -> String {
    match files {
        [] => "upload".into(),
        [one] => one.name.rsplit('/').next().unwrap_or(&one.name).to_string(),
        many => {
            let first = many[0].name.split('/').next().unwrap_or("");
            if many
                .iter()
                .all(|f| f.name.contains('/') && f.name.split('/').next() == Some(first))
            {
                first.to_string()
            } else {
                "upload".into()
            }
        }
    }
}

thread_local! {
    /// Bytes the upload being read may still decompress to ([`MAX_INFLATED_BYTES`]); `usize::MAX` outside
    /// [`read_trace`] / [`crate::workload::read_workload`] (then only each file's bound holds).
    static INFLATE_LEFT: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
}

/// The decompression budget of one upload ([`MAX_INFLATED_BYTES`]), from its creation to its drop: the entry
/// points hold one while reading, so many small bombs cannot add up.
pub(crate) struct InflateBudget {
    before: usize,
}

impl InflateBudget {
    pub(crate) fn start() -> InflateBudget {
        InflateBudget {
            before: INFLATE_LEFT.with(|c| c.replace(MAX_INFLATED_BYTES)),
        }
    }
}

impl Drop for InflateBudget {
    fn drop(&mut self) {
        INFLATE_LEFT.with(|c| c.set(self.before));
    }
}

/// The most bytes the next decompressed file may take: the bound of one file ([`MAX_UPLOAD_BYTES`]) or what
/// is left of the upload's budget ([`MAX_INFLATED_BYTES`]), whichever is smaller.
fn inflate_cap() -> usize {
    INFLATE_LEFT.with(|c| c.get()).min(MAX_UPLOAD_BYTES)
}

/// The error of a file that decompresses to more than `cap` bytes ([`inflate_cap`]).
fn inflate_overflow(file: &str, cap: usize) -> TraceError {
    let m = if cap < MAX_UPLOAD_BYTES {
        format!(
            "the upload decompresses to more than {MAX_INFLATED_BYTES} bytes in all (a compression \
             bomb?); the limit is {} MiB",
            MAX_INFLATED_BYTES >> 20
        )
    } else {
        format!(
            "decompresses to more than {MAX_UPLOAD_BYTES} bytes (the limit is {} MiB per file)",
            MAX_UPLOAD_BYTES >> 20
        )
    };
    TraceError::new(file, None, None, m)
}

/// Takes `n` decompressed bytes off the upload's budget.
fn inflate_spend(n: usize) {
    INFLATE_LEFT.with(|c| c.set(c.get().saturating_sub(n)));
}

/// Decompresses `reader` (a gzip stream or a zip entry) into memory, stopping as soon as it passes the bound
/// of one file ([`MAX_UPLOAD_BYTES`]) or what is left of the upload's budget ([`MAX_INFLATED_BYTES`]).
pub(crate) fn inflate_bounded(
    file: &str,
    reader: impl std::io::Read,
    what: &str,
) -> Result<Vec<u8>, TraceError> {
    use std::io::Read;
    let cap = inflate_cap();
    let mut out = Vec::new();
    reader
        .take(cap as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| TraceError::new(file, None, None, format!("{what}: {e}")))?;
    if out.len() > cap {
        return Err(inflate_overflow(file, cap));
    }
    inflate_spend(out.len());
    Ok(out)
}

/// The lines of a text file read as a stream: the bytes as given, or their gzip decompression (detected as
/// by [`maybe_gunzip`], bounded as by [`inflate_bounded`]) read a line at a time, so a reader holds one line
/// of decompressed text instead of all of it. Lines are split as by `str::lines` (on `\n`, and a `\r`
/// before it is dropped) and numbered from 1.
///
/// The errors are those of reading the whole text first ([`maybe_gunzip`], then [`utf8`]) and parsing it
/// after, whatever line they are found on: a gzip error or a compression bomb, else the first invalid UTF-8
/// (file:line:column), else the first line longer than [`MAX_LINE_BYTES`], else the reader's own first error
/// ([`TextLines::fail`]), which is why the rest of the input is still scanned after an error.
pub(crate) struct TextLines<'a> {
    file: &'a str,
    src: TextSource<'a>,
    buf: Vec<u8>,
    line: usize,
}

enum TextSource<'a> {
    Plain {
        bytes: &'a [u8],
        pos: usize,
    },
    Gzip {
        reader: Box<std::io::BufReader<std::io::Take<flate2::read::MultiGzDecoder<&'a [u8]>>>>,
        cap: usize,
    },
}

/// Errors found while scanning, kept in the order of precedence of reading the whole text first.
#[derive(Default)]
struct Pending {
    utf8: Option<TraceError>,
    long: Option<TraceError>,
    other: Option<TraceError>,
}

impl<'a> TextLines<'a> {
    /// The lines of `bytes`, the contents of `file` (gzip decompressed when they start with 1f 8b).
    pub(crate) fn new(file: &'a str, bytes: &'a [u8]) -> TextLines<'a> {
        let src = if bytes.len() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b {
            use std::io::Read;
            let cap = inflate_cap();
            TextSource::Gzip {
                reader: Box::new(std::io::BufReader::with_capacity(
                    1 << 16,
                    flate2::read::MultiGzDecoder::new(bytes).take(cap as u64 + 1),
                )),
                cap,
            }
        } else {
            TextSource::Plain { bytes, pos: 0 }
        };
        TextLines {
            file,
            src,
            buf: Vec::new(),
            line: 0,
        }
    }

    /// The next raw line (its range in [`TextLines::bytes`], without its `\n`) and whether a `\n` ended it;
    /// `None` at the end. Errors: the gzip stream's, or the bound of decompressed bytes (checked at the end).
    fn raw(&mut self) -> Result<Option<(std::ops::Range<usize>, bool)>, TraceError> {
        match &mut self.src {
            TextSource::Plain { bytes, pos } => {
                let start = *pos;
                if start == bytes.len() {
                    return Ok(None);
                }
                self.line += 1;
                Ok(Some(match memchr::memchr(b'\n', &bytes[start..]) {
                    Some(i) => {
                        *pos = start + i + 1;
                        (start..start + i, true)
                    }
                    None => {
                        *pos = bytes.len();
                        (start..bytes.len(), false)
                    }
                }))
            }
            TextSource::Gzip { reader, cap } => {
                use std::io::BufRead;
                self.buf.clear();
                let n = reader.read_until(b'\n', &mut self.buf).map_err(|e| {
                    TraceError::new(
                        self.file,
                        None,
                        None,
                        format!("not a valid gzip stream: {e}"),
                    )
                })?;
                if n == 0 {
                    let read = *cap as u64 + 1 - reader.get_ref().limit();
                    if read > *cap as u64 {
                        return Err(inflate_overflow(self.file, *cap));
                    }
                    inflate_spend(read as usize);
                    return Ok(None);
                }
                self.line += 1;
                let nl = self.buf.last() == Some(&b'\n');
                Ok(Some((0..self.buf.len() - nl as usize, nl)))
            }
        }
    }

    /// The bytes a range of [`TextLines::raw`] refers to.
    fn bytes(&self, r: std::ops::Range<usize>) -> &[u8] {
        match &self.src {
            TextSource::Plain { bytes, .. } => &bytes[r],
            TextSource::Gzip { .. } => &self.buf[r],
        }
    }

    /// The next line and its number, or `None` at the end of the file (see [`TextLines`] for the errors).
    pub(crate) fn next(&mut self) -> Result<Option<(usize, &str)>, TraceError> {
        let Some((r, nl)) = self.raw()? else {
            return Ok(None);
        };
        let (file, line) = (self.file, self.line);
        let invalid = std::str::from_utf8(self.bytes(r.clone()))
            .err()
            .map(|e| e.valid_up_to());
        if let Some(ok) = invalid {
            let e = not_utf8(file, line, ok + 1);
            return Err(self.drain(Pending {
                utf8: Some(e),
                ..Pending::default()
            }));
        }
        if r.len() > MAX_LINE_BYTES {
            let e = long_line(file, line, r.len());
            return Err(self.drain(Pending {
                long: Some(e),
                ..Pending::default()
            }));
        }
        // valid (checked above); validating again keeps this free of unsafe code and costs little
        let text = std::str::from_utf8(self.bytes(r)).unwrap_or_default();
        let text = match (nl, text.strip_suffix('\r')) {
            (true, Some(t)) => t,
            _ => text,
        };
        Ok(Some((line, text)))
    }

    /// Ends reading with the reader's error `e` about a line already read: scans the rest of the input for
    /// the errors that come first (see [`TextLines`]) and returns the one to report.
    pub(crate) fn fail(&mut self, e: TraceError) -> TraceError {
        self.drain(Pending {
            other: Some(e),
            ..Pending::default()
        })
    }

    fn drain(&mut self, mut found: Pending) -> TraceError {
        let file = self.file;
        loop {
            let line = self.line + 1;
            match self.raw() {
                Err(e) => return e,
                Ok(None) => break,
                Ok(Some((r, _))) => {
                    if found.utf8.is_some() {
                        continue;
                    }
                    let raw = self.bytes(r);
                    match std::str::from_utf8(raw) {
                        Err(e) => found.utf8 = Some(not_utf8(file, line, e.valid_up_to() + 1)),
                        Ok(_) if raw.len() > MAX_LINE_BYTES && found.long.is_none() => {
                            found.long = Some(long_line(file, line, raw.len()))
                        }
                        Ok(_) => {}
                    }
                }
            }
        }
        // (always called with an error)
        let unknown = || TraceError::new(file, None, None, "unreadable text");
        found
            .utf8
            .or(found.long)
            .or(found.other)
            .unwrap_or_else(unknown)
    }
}

fn long_line(file: &str, line: usize, len: usize) -> TraceError {
    TraceError::new(
        file,
        Some(line),
        Some(1),
        format!(
            "line of {len} bytes exceeds the limit of {MAX_LINE_BYTES} bytes (is this a text file?)"
        ),
    )
}

fn not_utf8(file: &str, line: usize, column: usize) -> TraceError {
    TraceError::new(
        file,
        Some(line),
        Some(column),
        "not UTF-8 text (is this a binary file?)",
    )
}

/// Decompresses gzip bytes (detected by the magic number 1f 8b; multi-member streams too) with a size bound
/// ([`inflate_bounded`]); other bytes pass through. The one gunzip of every reader.
pub(crate) fn maybe_gunzip<'a>(
    file: &str,
    bytes: &'a [u8],
) -> Result<std::borrow::Cow<'a, [u8]>, TraceError> {
    if bytes.len() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b {
        let out = inflate_bounded(
            file,
            flate2::read::MultiGzDecoder::new(bytes),
            "not a valid gzip stream",
        )?;
        Ok(std::borrow::Cow::Owned(out))
    } else {
        Ok(std::borrow::Cow::Borrowed(bytes))
    }
}

/// Checks that no line of `text` is longer than [`MAX_LINE_BYTES`], naming the first that is.
pub(crate) fn check_lines(file: &str, text: &str) -> Result<(), TraceError> {
    if text.len() <= MAX_LINE_BYTES {
        return Ok(());
    }
    for (k, line) in text.split('\n').enumerate() {
        if line.len() > MAX_LINE_BYTES {
            return Err(long_line(file, k + 1, line.len()));
        }
    }
    Ok(())
}

/// Decodes UTF-8 text, naming the line and column of the first invalid byte, and checks the line lengths
/// ([`check_lines`]).
pub(crate) fn utf8<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str, TraceError> {
    let text = utf8_only(file, bytes)?;
    check_lines(file, text)?;
    Ok(text)
}

fn utf8_only<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str, TraceError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let ok = &bytes[..e.valid_up_to()];
        let line = ok.iter().filter(|b| **b == b'\n').count() + 1;
        let col = ok.len()
            - ok.iter()
                .rposition(|b| *b == b'\n')
                .map(|p| p + 1)
                .unwrap_or(0)
            + 1;
        not_utf8(file, line, col)
    })
}

/// Lower-case hex of a digest.
pub fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of an upload's files, lower-case hex: for one file, the hash of its bytes; for several files (a
/// folder), the hash of the lines `<sha256 of file> <name>\n` sorted by name in byte order. Links made before
/// uploads were named by content record it (a usage trace's link now records
/// [`crate::trace::UsageTrace::content_sha256`]); it still names a workload upload.
pub fn upload_sha256(files: &[InputFile]) -> String {
    use sha2::{Digest, Sha256};
    if let [one] = files {
        return hex(&Sha256::digest(&one.bytes));
    }
    let mut lines: Vec<(String, String)> = files
        .iter()
        .map(|f| (f.name.clone(), hex(&Sha256::digest(&f.bytes))))
        .collect();
    lines.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut h = Sha256::new();
    for (name, d) in lines {
        h.update(format!("{d} {name}\n").as_bytes());
    }
    hex(&h.finalize())
}

#[cfg(test)]
mod sha_tests {
    use super::*;

    #[test]
    fn sha256_known_vector() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1
        let f = InputFile {
            name: "a".into(),
            bytes: b"abc".to_vec(),
        };
        assert_eq!(
            upload_sha256(&[f]),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}

/// Gzip-compresses bytes deterministically (no file name, mtime 0).
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut e, bytes).expect("writing to a Vec cannot fail");
    e.finish().expect("writing to a Vec cannot fail")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_error_position() {
        let e = utf8("f", b"12\n3\xff4\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(2)));
    }

    #[test]
    fn upload_names() {
        let f = |n: &str| InputFile {
            name: n.into(),
            bytes: vec![],
        };
        assert_eq!(upload_name(&[f("a/b.csv")]), "b.csv");
        assert_eq!(upload_name(&[f("day/x"), f("day/y")]), "day");
        assert_eq!(upload_name(&[f("x"), f("y")]), "upload");
    }
}
