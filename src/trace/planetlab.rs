//! PlanetLab/CoMon day folders (../shared/data/planetlab-cloudsim/SOURCE.md): one file per VM, named by the
//! VM id, one CPU % value (0–100, integers in the real data) per line, one line per 5-minute interval.
//! A `.zip` of such a folder is read too (the browser's upload path).

use super::format::{TraceFormat, TraceReader};
use super::usage::{Unit, UsageTrace};
use crate::input::{
    inflate_bounded, maybe_gunzip, utf8, InputFile, TraceError, MAX_FILES, MAX_VALUES,
};

/// Reader of PlanetLab day folders (seed 002 instances from real traces; ALGORITHMS.md §4.1).
///
/// Items are ordered by file name in byte order (ALGORITHMS.md §4.3 "trace order"); hidden files and
/// `__MACOSX/` entries are skipped; every file must have the same number of lines.
pub struct PlanetLabReader;

impl TraceReader for PlanetLabReader {
    fn format(&self) -> TraceFormat {
        TraceFormat::PlanetLab
    }

    fn read(&self, name: &str, files: &[InputFile]) -> Result<UsageTrace, TraceError> {
        let mut unzipped;
        let files = if files.len() == 1 && files[0].name.to_ascii_lowercase().ends_with(".zip") {
            unzipped = unzip(&files[0])?;
            unzipped.sort_by(|a, b| base(&a.name).as_bytes().cmp(base(&b.name).as_bytes()));
            &unzipped[..]
        } else {
            unzipped = files.iter().filter(|f| keep(&f.name)).cloned().collect();
            unzipped.sort_by(|a, b| base(&a.name).as_bytes().cmp(base(&b.name).as_bytes()));
            &unzipped[..]
        };
        if files.is_empty() {
            return Err(TraceError::new(
                name,
                None,
                None,
                "no VM files found (expected one file per VM with one CPU % per line)",
            ));
        }
        let mut items = Vec::with_capacity(files.len());
        let mut series: Vec<Vec<f64>> = Vec::with_capacity(files.len());
        let mut total = 0usize;
        for f in files {
            let s = parse_vm_file(f)?;
            if let Some(first) = series.first() {
                if s.len() != first.len() {
                    return Err(TraceError::new(
                        &f.name,
                        Some(s.len() + 1),
                        None,
                        format!("has {} samples but '{}' has {}; every VM file of a day needs the same number of lines", s.len(), files[0].name, first.len()),
                    ));
                }
            }
            total += s.len();
            if total > MAX_VALUES {
                return Err(TraceError::new(
                    name,
                    None,
                    None,
                    format!("more than {MAX_VALUES} usage values; split the trace"),
                ));
            }
            items.push(base(&f.name).to_string());
            series.push(s);
        }
        let mut seen = std::collections::HashSet::new();
        for it in &items {
            if !seen.insert(it.as_str()) {
                return Err(TraceError::new(
                    name,
                    None,
                    None,
                    format!("two files are both named '{it}'"),
                ));
            }
        }
        UsageTrace::from_series_in(name, items, series, 300.0, Unit::Percent)
    }
}

fn base(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn keep(path: &str) -> bool {
    let b = base(path);
    !(b.is_empty()
        || b.starts_with('.')
        || path.starts_with("__MACOSX/")
        || path.contains("/__MACOSX/"))
}

/// Parses one VM file: CPU % per line (converted to VM units by [`UsageTrace::from_series_in`]). Errors name
/// the line and column of a bad value.
fn parse_vm_file(f: &InputFile) -> Result<Vec<f64>, TraceError> {
    let bytes = maybe_gunzip(&f.name, &f.bytes)?;
    let text = utf8(&f.name, &bytes)?;
    let mut out = Vec::with_capacity(288);
    let lines: Vec<&str> = text.lines().collect();
    // A trailing blank line at the very end is tolerated; blank lines elsewhere are an error.
    let last_nonblank = lines.iter().rposition(|l| !l.trim().is_empty());
    let Some(last) = last_nonblank else {
        return Err(TraceError::new(
            &f.name,
            None,
            None,
            "empty file (expected one CPU % value per line)",
        ));
    };
    for (k, line) in lines[..=last].iter().enumerate() {
        let trimmed = line.trim();
        let col = line.len() - line.trim_start().len() + 1;
        if trimmed.is_empty() {
            return Err(TraceError::new(
                &f.name,
                Some(k + 1),
                Some(1),
                "blank line (expected a CPU % value)",
            ));
        }
        let v: f64 = trimmed.parse().map_err(|_| {
            TraceError::new(
                &f.name,
                Some(k + 1),
                Some(col),
                format!("'{}' is not a number (expected CPU % 0–100)", clip(trimmed)),
            )
        })?;
        if !v.is_finite() || !(0.0..=100.0).contains(&v) {
            return Err(TraceError::new(
                &f.name,
                Some(k + 1),
                Some(col),
                format!("CPU % {trimmed} is outside 0–100"),
            ));
        }
        out.push(v);
    }
    Ok(out)
}

pub(super) fn clip(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Extracts the regular files of a zip archive (size-bounded); directories, hidden files and `__MACOSX`
/// entries are skipped.
fn unzip(zip_file: &InputFile) -> Result<Vec<InputFile>, TraceError> {
    let err = |m: String| TraceError::new(&zip_file.name, None, None, m);
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&zip_file.bytes[..]))
        .map_err(|e| err(format!("not a valid zip archive: {e}")))?;
    if archive.len() > MAX_FILES {
        return Err(err(format!(
            "{} zip entries exceed the limit of {MAX_FILES} files per upload",
            archive.len()
        )));
    }
    let mut out = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| err(format!("zip entry {i} cannot be read: {e}")))?;
        if entry.is_dir() {
            continue;
        }
        let path = entry
            .name()
            .map_err(|e| err(format!("zip entry {i} has a bad name: {e}")))?
            .to_string();
        if !keep(&path) {
            continue;
        }
        let bytes = inflate_bounded(
            &zip_file.name,
            &mut entry,
            &format!("zip entry '{}' cannot be decompressed", clip(&path)),
        )?;
        out.push(InputFile {
            name: format!("{}/{}", zip_file.name, path),
            bytes,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, text: &str) -> InputFile {
        InputFile {
            name: name.into(),
            bytes: text.as_bytes().to_vec(),
        }
    }

    #[test]
    fn reads_in_byte_order_and_scales_percent() {
        let t = PlanetLabReader
            .read(
                "day",
                &[
                    f("day/b", "10\n20\n"),
                    f("day/a", "0\n100\n"),
                    f("day/.DS_Store", "junk"),
                ],
            )
            .unwrap();
        assert_eq!(t.items, vec!["a", "b"]);
        assert_eq!(t.samples, 2);
        assert_eq!(t.usage, vec![0.0, 1.0, 0.1, 0.2]);
        assert_eq!(t.interval_s, 300.0);
        // integer CPU % lie on the grid 0.01 VM units
        assert_eq!(t.grid.map(|g| g.decimals()), Some(2));
    }

    #[test]
    fn bad_value_names_line_and_column() {
        let e = PlanetLabReader
            .read("day", &[f("day/a", "1\n  x2\n3\n")])
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "day/a:2:3: 'x2' is not a number (expected CPU % 0–100)"
        );
        let e = PlanetLabReader
            .read("day", &[f("day/a", "1\n101\n")])
            .unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(1)));
        let e = PlanetLabReader
            .read("day", &[f("day/a", "1\nNaN\n")])
            .unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = PlanetLabReader
            .read("day", &[f("day/a", "1\n\n2\n")])
            .unwrap_err();
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn empty_and_ragged_files_are_errors() {
        let e = PlanetLabReader
            .read("day", &[f("day/a", "\n\n")])
            .unwrap_err();
        assert!(e.to_string().starts_with("day/a: empty file"), "{e}");
        let e = PlanetLabReader
            .read("day", &[f("day/a", "1\n2\n"), f("day/b", "1\n")])
            .unwrap_err();
        assert!(
            e.to_string().contains("has 1 samples but 'day/a' has 2"),
            "{e}"
        );
        let e = PlanetLabReader.read("day", &[]).unwrap_err();
        assert!(e.message.contains("no VM files"));
    }

    /// The same day picked as files (any order), as a folder (names with its path) or as a zip has one
    /// content hash (issue 28), the tagged bytes the doc of `content_sha256` lists; another value changes it.
    #[test]
    fn content_identity_of_three_picks() {
        use sha2::{Digest, Sha256};
        use std::io::Write;
        let f = |n: &str, b: &str| InputFile {
            name: n.into(),
            bytes: b.as_bytes().to_vec(),
        };
        let read = |files: &[InputFile]| crate::trace::read_trace("x", files, None).unwrap();
        let files = read(&[f("vm2", "50\n60\n"), f("vm1", "5\n6\n")]);
        let folder = read(&[f("day/vm1", "5\n6\n"), f("day/vm2", "50\n60\n")]);
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut w = zip::ZipWriter::new(&mut buf);
            let opts = zip::write::SimpleFileOptions::default();
            w.start_file("day/vm2", opts).unwrap();
            w.write_all(b"50\n60\n").unwrap();
            w.start_file("day/vm1", opts).unwrap();
            w.write_all(b"5\n6\n").unwrap();
            w.finish().unwrap();
        }
        let zipped = read(&[InputFile {
            name: "day.zip".into(),
            bytes: buf.into_inner(),
        }]);
        let mut want = Sha256::new();
        want.update(b"packlab-usage-trace-v1\n");
        want.update(2u64.to_le_bytes());
        want.update(2u64.to_le_bytes());
        want.update(300f64.to_bits().to_le_bytes());
        for v in [0.05f64, 0.06, 0.5, 0.6] {
            want.update(v.to_bits().to_le_bytes());
        }
        let want = crate::input::hex(&want.finalize());
        assert_eq!(files.content_sha256(), want);
        assert_eq!(folder.content_sha256(), want);
        assert_eq!(zipped.content_sha256(), want);
        // the files' hashes differ (names are part of them): what links made before this recorded
        assert_ne!(
            crate::input::upload_sha256(&[f("vm1", "5\n6\n"), f("vm2", "50\n60\n")]),
            crate::input::upload_sha256(&[f("day/vm1", "5\n6\n"), f("day/vm2", "50\n60\n")])
        );
        let other = read(&[f("vm1", "5\n6\n"), f("vm2", "50\n61\n")]);
        assert_ne!(other.content_sha256(), want);
    }

    #[test]
    fn zip_of_a_day_folder() {
        use std::io::Write;
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut w = zip::ZipWriter::new(&mut buf);
            let opts = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            w.add_directory("day/", opts).unwrap();
            w.start_file("day/vm2", opts).unwrap();
            w.write_all(b"50\n60\n").unwrap();
            w.start_file("day/vm1", opts).unwrap();
            w.write_all(b"5\n6\n").unwrap();
            w.start_file("__MACOSX/day/._vm1", opts).unwrap();
            w.write_all(b"\x00\x01").unwrap();
            w.finish().unwrap();
        }
        let t = PlanetLabReader
            .read(
                "day.zip",
                &[InputFile {
                    name: "day.zip".into(),
                    bytes: buf.into_inner(),
                }],
            )
            .unwrap();
        assert_eq!(t.items, vec!["vm1", "vm2"]);
        assert_eq!(t.usage, vec![0.05, 0.06, 0.5, 0.6]);
        let e = PlanetLabReader
            .read(
                "x.zip",
                &[InputFile {
                    name: "x.zip".into(),
                    bytes: b"PK not really".to_vec(),
                }],
            )
            .unwrap_err();
        assert!(e.message.starts_with("not a valid zip archive"), "{e}");
    }
}
