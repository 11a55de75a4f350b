//! packlab's compact wide format (`.tsv`, or gzip-compressed `.tsv.gz`): the form of the bundled traces.
//!
//! ```text
//! #packlab-wide v1 unit=percent interval_s=300
//! <item id><TAB><v0>,<v1>,...,<vR-1>
//! ```
//! The header is required. `unit` is `percent` (CPU % of one VM, divided by 100 on reading) or `vm`
//! (VM units); `interval_s` is the sampling interval in seconds. Lines starting with `#` after the header are
//! comments. Item ids may contain spaces but not tabs.

use super::builder::UsageBuilder;
use super::format::{one_file, TraceFormat, TraceReader};
use super::planetlab::clip;
use super::usage::{Unit, UsageTrace};
use crate::input::{InputFile, TextLines, TraceError, MAX_VALUES};

/// Reader of the wide format.
pub struct WideReader;

const MAGIC: &str = "#packlab-wide v1";

impl TraceReader for WideReader {
    fn format(&self) -> TraceFormat {
        TraceFormat::Wide
    }

    fn read(&self, name: &str, files: &[InputFile]) -> Result<UsageTrace, TraceError> {
        let file = one_file(name, files, "a wide trace")?;
        let fname = file.name.as_str();
        // one line at a time: the text (or its decompression) is never held whole
        let mut lines = TextLines::new(fname, &file.bytes);
        let header = match lines.next()? {
            Some((_, header)) => header.to_string(),
            None => {
                return Err(lines.fail(TraceError::new(
                    fname,
                    None,
                    None,
                    "empty file (expected the header `#packlab-wide v1 ...`)",
                )))
            }
        };
        let (unit, interval_s) = header_fields(fname, &header).map_err(|e| lines.fail(e))?;
        // values stay in their unit here; the builder converts them (as for every reader)
        let mut b = UsageBuilder::new(unit);
        let (mut samples, mut row) = (None, Vec::new());
        while let Some((ln, line)) = lines.next()? {
            if let Err(e) = data_line(fname, ln, line, unit, &mut b, &mut row, &mut samples) {
                return Err(lines.fail(e));
            }
        }
        if b.items() == 0 {
            return Err(TraceError::new(
                fname,
                None,
                None,
                "no items after the header",
            ));
        }
        b.finish(name, interval_s)
    }
}

/// The unit and the sampling interval of the header line `header` (line 1).
fn header_fields(fname: &str, header: &str) -> Result<(Unit, f64), TraceError> {
    if !header.starts_with(MAGIC) {
        return Err(TraceError::new(
            fname,
            Some(1),
            Some(1),
            format!("missing the header `{MAGIC} unit=percent|vm interval_s=N`"),
        ));
    }
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
    Ok((unit, interval_s))
}

/// Reads data line `ln` (`<item><TAB><v0>,<v1>,...`; blank and `#` lines are skipped) into `b`; `samples`
/// is the length of the first item's series, set by the first item; `row` is scratch space for the values.
fn data_line(
    fname: &str,
    ln: usize,
    line: &str,
    unit: Unit,
    b: &mut UsageBuilder,
    row: &mut Vec<f64>,
    samples: &mut Option<usize>,
) -> Result<(), TraceError> {
    if line.trim().is_empty() || line.starts_with('#') {
        return Ok(());
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
    // one pass over the bytes: plain decimal tokens are read as they are scanned, the rest by `str::parse`
    row.clear();
    let bytes = values.as_bytes();
    let mut col = item.chars().count() + 2;
    let mut start = 0;
    loop {
        let (mut m, mut digits, mut point, mut plain) = (0u64, 0u32, None, true);
        let mut k = start;
        while k < bytes.len() && bytes[k] != b',' {
            match bytes[k] {
                c @ b'0'..=b'9' => {
                    m = m.wrapping_mul(10).wrapping_add((c - b'0') as u64);
                    digits += 1;
                }
                b'.' if point.is_none() => point = Some(k),
                _ => plain = false,
            }
            k += 1;
        }
        let tok = &values[start..k];
        let (v, chars) = if plain && (1..=15).contains(&digits) {
            // m < 10^15 and 10^d are exact in f64: one division rounds the decimal as `str::parse` does
            (m as f64 / POW10[point.map_or(0, |p| k - p - 1)], tok.len())
        } else {
            let t = tok.trim();
            let v: f64 = t.parse().map_err(|_| {
                TraceError::new(
                    fname,
                    Some(ln),
                    Some(col),
                    format!("'{}' is not a number", clip(t)),
                )
            })?;
            if !v.is_finite() || v < 0.0 {
                return Err(TraceError::new(
                    fname,
                    Some(ln),
                    Some(col),
                    format!("usage '{}' is out of range", clip(t)),
                ));
            }
            (v, tok.chars().count())
        };
        if unit == Unit::Percent && v > 100.0 {
            return Err(TraceError::new(
                fname,
                Some(ln),
                Some(col),
                format!("usage '{}' is out of range", clip(tok.trim())),
            ));
        }
        row.push(v);
        col += chars + 1;
        if k == bytes.len() {
            break;
        }
        start = k + 1;
    }
    b.push_row(row);
    let n = row.len();
    if b.values() > MAX_VALUES {
        return Err(TraceError::new(
            fname,
            Some(ln),
            None,
            format!("more than {MAX_VALUES} usage values; split the trace"),
        ));
    }
    match *samples {
        Some(first) if n != first => {
            return Err(TraceError::new(
                fname,
                Some(ln),
                None,
                format!(
                    "item '{}' has {n} samples, the first item has {first}",
                    clip(item)
                ),
            ))
        }
        Some(_) => {}
        None => *samples = Some(n),
    }
    b.end_item(item.to_string());
    Ok(())
}

/// 10^k for k ≤ 15, exact in f64 (the plain decimal tokens of [`data_line`]).
const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

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
