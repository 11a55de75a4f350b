//! packlab's compact wide format (`.tsv`, or gzip-compressed `.tsv.gz`): the form of the bundled traces.
//!
//! ```text
//! #packlab-wide v1 unit=percent interval_s=300
//! <item id><TAB><v0>,<v1>,...,<vR-1>
//! ```
//! The header is required. `unit` is `percent` (CPU % of one VM, divided by 100 on reading) or `vm`
//! (VM units); `interval_s` is the sampling interval in seconds. Lines starting with `#` after the header are
//! comments. Item ids may contain spaces but not tabs.

use super::planetlab::clip;
use super::{
    maybe_gunzip, utf8, InputFile, TraceError, TraceFormat, TraceReader, Unit, UsageTrace,
    MAX_VALUES,
};

/// Reader of the wide format.
pub struct WideReader;

const MAGIC: &str = "#packlab-wide v1";

impl TraceReader for WideReader {
    fn format(&self) -> TraceFormat {
        TraceFormat::Wide
    }

    fn read(&self, name: &str, files: &[InputFile]) -> Result<UsageTrace, TraceError> {
        let [file] = files else {
            return Err(TraceError::new(
                name,
                None,
                None,
                format!("a wide trace is one file, got {}", files.len()),
            ));
        };
        let fname = file.name.as_str();
        let bytes = maybe_gunzip(fname, &file.bytes)?;
        let text = utf8(fname, &bytes)?;
        let mut lines = text.lines().enumerate();
        let Some((_, header)) = lines.next() else {
            return Err(TraceError::new(
                fname,
                None,
                None,
                "empty file (expected the header `#packlab-wide v1 ...`)",
            ));
        };
        if !header.starts_with(MAGIC) {
            return Err(TraceError::new(
                fname,
                Some(1),
                Some(1),
                format!("missing the header `{MAGIC} unit=percent|vm interval_s=N`"),
            ));
        }
        // values stay in their unit here; UsageTrace::from_series_in converts them (as for every reader)
        let mut unit = None;
        let mut interval_s = 0.0;
        let mut col = MAGIC.len() + 1;
        for kv in header[MAGIC.len()..].split(' ') {
            col += kv.len() + 1;
            if kv.is_empty() {
                continue;
            }
            let at = col - kv.len() - 1;
            match kv.split_once('=') {
                Some(("unit", "percent")) => unit = Some(Unit::Percent),
                Some(("unit", "vm")) => unit = Some(Unit::Vm),
                Some(("unit", u)) => {
                    return Err(TraceError::new(
                        fname,
                        Some(1),
                        Some(at),
                        format!("unknown unit '{}' (percent or vm)", clip(u)),
                    ))
                }
                Some(("interval_s", v)) => {
                    interval_s = v
                        .parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite() && *x >= 0.0)
                        .ok_or_else(|| {
                            TraceError::new(
                                fname,
                                Some(1),
                                Some(at),
                                format!("interval_s '{}' is not a non-negative number", clip(v)),
                            )
                        })?
                }
                _ => {} // other keys (e.g. source=...) are informational
            }
        }
        let Some(unit) = unit else {
            return Err(TraceError::new(
                fname,
                Some(1),
                Some(1),
                "the header must give unit=percent or unit=vm",
            ));
        };
        let mut items = Vec::new();
        let mut series: Vec<Vec<f64>> = Vec::new();
        let mut total = 0usize;
        for (k, line) in lines {
            let ln = k + 1;
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((item, values)) = line.split_once('\t') else {
                return Err(TraceError::new(
                    fname,
                    Some(ln),
                    Some(1),
                    "expected `<item><TAB><v0>,<v1>,...`",
                ));
            };
            if item.is_empty() {
                return Err(TraceError::new(fname, Some(ln), Some(1), "empty item id"));
            }
            let mut col = item.chars().count() + 2;
            let mut s = Vec::new();
            for tok in values.split(',') {
                let t = tok.trim();
                let v: f64 = t.parse().map_err(|_| {
                    TraceError::new(
                        fname,
                        Some(ln),
                        Some(col),
                        format!("'{}' is not a number", clip(t)),
                    )
                })?;
                if !v.is_finite() || v < 0.0 || (unit == Unit::Percent && v > 100.0) {
                    return Err(TraceError::new(
                        fname,
                        Some(ln),
                        Some(col),
                        format!("usage '{}' is out of range", clip(t)),
                    ));
                }
                s.push(v);
                col += tok.chars().count() + 1;
            }
            total += s.len();
            if total > MAX_VALUES {
                return Err(TraceError::new(
                    fname,
                    Some(ln),
                    None,
                    format!("more than {MAX_VALUES} usage values; split the trace"),
                ));
            }
            if let Some(first) = series.first() {
                if s.len() != first.len() {
                    return Err(TraceError::new(
                        fname,
                        Some(ln),
                        None,
                        format!(
                            "item '{}' has {} samples, the first item has {}",
                            clip(item),
                            s.len(),
                            first.len()
                        ),
                    ));
                }
            }
            items.push(item.to_string());
            series.push(s);
        }
        if items.is_empty() {
            return Err(TraceError::new(
                fname,
                None,
                None,
                "no items after the header",
            ));
        }
        UsageTrace::from_series_in(name, items, series, interval_s, unit)
    }
}

/// Writes `trace` in the wide format with `unit=percent` (values × 100, shortest round-trip form; integer CPU %
/// stay integers) and the given extra header fields (e.g. `source=...`, no spaces). Used to build the bundle.
pub fn write_wide(trace: &UsageTrace, extra: &str) -> String {
    let mut out = format!("{MAGIC} unit=percent interval_s={}", trace.interval_s);
    if !extra.is_empty() {
        out.push(' ');
        out.push_str(extra);
    }
    out.push('\n');
    for (i, item) in trace.items.iter().enumerate() {
        out.push_str(item);
        out.push('\t');
        for (t, v) in trace.series(i).iter().enumerate() {
            if t > 0 {
                out.push(',');
            }
            let pct = (v * 100.0 * 1e9).round() / 1e9;
            out.push_str(&format!("{pct}"));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<UsageTrace, TraceError> {
        WideReader.read(
            "w.tsv",
            &[InputFile {
                name: "w.tsv".into(),
                bytes: text.as_bytes().to_vec(),
            }],
        )
    }

    #[test]
    fn round_trip_through_gzip() {
        let t = read("#packlab-wide v1 unit=percent interval_s=300\nvm a\t1,2,3\nvm_b\t99,0,50\n")
            .unwrap();
        assert_eq!(t.items, vec!["vm a", "vm_b"]);
        assert_eq!(t.usage, vec![0.01, 0.02, 0.03, 0.99, 0.0, 0.5]);
        assert_eq!(t.grid.map(|g| g.decimals()), Some(2));
        let text = write_wide(&t, "source=test");
        assert!(
            text.starts_with(
                "#packlab-wide v1 unit=percent interval_s=300 source=test\nvm a\t1,2,3\n"
            ),
            "{text}"
        );
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(text.as_bytes()).unwrap();
        let back = WideReader
            .read(
                "w",
                &[InputFile {
                    name: "w.tsv.gz".into(),
                    bytes: gz.finish().unwrap(),
                }],
            )
            .unwrap();
        assert_eq!(back.usage, t.usage);
        let t = read("#packlab-wide v1 unit=vm\na\t0.5,1.5\n").unwrap();
        assert_eq!(t.usage, vec![0.5, 1.5]);
        assert_eq!(t.grid.map(|g| g.decimals()), Some(1));
        // 12.25 % is 0.1225 VM units: 4 decimals
        let t = read("#packlab-wide v1 unit=percent\na\t12.25,7\n").unwrap();
        assert_eq!(t.grid.map(|g| g.decimals()), Some(4));
    }

    #[test]
    fn errors() {
        assert_eq!(read("").unwrap_err().line, None);
        assert_eq!(read("hello\n").unwrap_err().line, Some(1));
        assert!(read("#packlab-wide v1 interval_s=3\n")
            .unwrap_err()
            .message
            .contains("unit"));
        let e = read("#packlab-wide v1 unit=percent\nab\t1,x,3\n").unwrap_err();
        assert_eq!(e.to_string(), "w.tsv:2:6: 'x' is not a number");
        let e = read("#packlab-wide v1 unit=percent\na\t1,2\nb\t1\n").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert_eq!(
            read("#packlab-wide v1 unit=percent\na 1,2\n")
                .unwrap_err()
                .line,
            Some(2)
        );
        assert!(read("#packlab-wide v1 unit=percent\n")
            .unwrap_err()
            .message
            .contains("no items"));
        let e = WideReader
            .read(
                "w",
                &[InputFile {
                    name: "w.tsv.gz".into(),
                    bytes: b"\x1f\x8bgarbage".to_vec(),
                }],
            )
            .unwrap_err();
        assert!(e.message.contains("gzip"), "{e}");
    }
}
