//! Generic long CSV: header `item,time,usage` (any column order, extra columns ignored), one row per
//! (item, time) with usage in VM units (1.0 = one VM's full CPU). Every item must have samples at the same
//! set of times; items keep the order of their first appearance, samples are sorted by time.

use super::format::{one_file, TraceFormat, TraceReader};
use super::planetlab::clip;
use super::usage::UsageTrace;
use crate::input::{maybe_gunzip, utf8, InputFile, TraceError, MAX_VALUES};
use std::collections::HashMap;

/// Reader of the generic long CSV format `item,time,usage`.
pub struct LongCsvReader;

impl TraceReader for LongCsvReader {
    fn format(&self) -> TraceFormat {
        TraceFormat::LongCsv
    }

    fn read(&self, name: &str, files: &[InputFile]) -> Result<UsageTrace, TraceError> {
        let file = one_file(name, files, "a long CSV trace")?;
        let fname = file.name.as_str();
        let bytes = maybe_gunzip(fname, &file.bytes)?;
        let text = utf8(fname, &bytes)?;
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .from_reader(text.as_bytes());
        let headers = rdr
            .headers()
            .map_err(|e| {
                TraceError::new(
                    fname,
                    Some(1),
                    Some(1),
                    format!("cannot read the header: {e}"),
                )
            })?
            .clone();
        if headers.is_empty() || (headers.len() == 1 && headers[0].trim().is_empty()) {
            return Err(TraceError::new(
                fname,
                None,
                None,
                "empty file (expected a header line `item,time,usage`)",
            ));
        }
        let find = |col: &str| {
            headers
                .iter()
                .position(|h| h.trim().eq_ignore_ascii_case(col))
        };
        let (Some(ci), Some(ct), Some(cu)) = (find("item"), find("time"), find("usage")) else {
            return Err(TraceError::new(
                fname,
                Some(1),
                Some(1),
                format!(
                    "header must name the columns item, time and usage (found: {})",
                    clip(&headers.iter().collect::<Vec<_>>().join(","))
                ),
            ));
        };
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut items: Vec<String> = Vec::new();
        // per item: (time, usage, line)
        let mut rows: Vec<Vec<(f64, f64, usize)>> = Vec::new();
        let mut record = csv::StringRecord::new();
        let mut n = 0usize;
        loop {
            let more = rdr.read_record(&mut record).map_err(|e| {
                let line = e.position().map(|p| p.line() as usize);
                TraceError::new(fname, line, None, format!("malformed CSV: {e}"))
            })?;
            if !more {
                break;
            }
            let line = record.position().map(|p| p.line() as usize).unwrap_or(0);
            let column_of = |k: usize| {
                1 + (0..k)
                    .map(|j| record.get(j).map(|s| s.chars().count() + 1).unwrap_or(1))
                    .sum::<usize>()
            };
            if record.len() == 1 && record[0].trim().is_empty() {
                continue; // blank line
            }
            let field = |k: usize, what: &str| -> Result<&str, TraceError> {
                record.get(k).ok_or_else(|| {
                    TraceError::new(
                        fname,
                        Some(line),
                        Some(column_of(record.len())),
                        format!("missing the {what} field"),
                    )
                })
            };
            let item = field(ci, "item")?.trim();
            if item.is_empty() {
                return Err(TraceError::new(
                    fname,
                    Some(line),
                    Some(column_of(ci)),
                    "empty item id",
                ));
            }
            let num = |k: usize, what: &str| -> Result<f64, TraceError> {
                let s = field(k, what)?.trim();
                let v: f64 = s.parse().map_err(|_| {
                    TraceError::new(
                        fname,
                        Some(line),
                        Some(column_of(k)),
                        format!("{what} '{}' is not a number", clip(s)),
                    )
                })?;
                if !v.is_finite() {
                    return Err(TraceError::new(
                        fname,
                        Some(line),
                        Some(column_of(k)),
                        format!("{what} '{s}' is not a finite number"),
                    ));
                }
                Ok(v)
            };
            let t = num(ct, "time")?;
            let u = num(cu, "usage")?;
            if u < 0.0 {
                return Err(TraceError::new(
                    fname,
                    Some(line),
                    Some(column_of(cu)),
                    format!("usage {u} is negative"),
                ));
            }
            if u > 1000.0 {
                return Err(TraceError::new(
                    fname,
                    Some(line),
                    Some(column_of(cu)),
                    format!("usage {u} is implausibly large: usage is in VM units (1.0 = one VM's CPU), not percent"),
                ));
            }
            let k = *index.entry(item.to_string()).or_insert_with(|| {
                items.push(item.to_string());
                rows.push(Vec::new());
                items.len() - 1
            });
            rows[k].push((t, u, line));
            n += 1;
            if n > MAX_VALUES {
                return Err(TraceError::new(
                    fname,
                    Some(line),
                    None,
                    format!("more than {MAX_VALUES} usage values; split the trace"),
                ));
            }
        }
        if items.is_empty() {
            return Err(TraceError::new(
                fname,
                None,
                None,
                "no data rows after the header",
            ));
        }
        for (k, r) in rows.iter_mut().enumerate() {
            r.sort_by(|a, b| a.0.total_cmp(&b.0));
            if let Some(w) = r.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(TraceError::new(
                    fname,
                    Some(w[1].2.max(w[0].2)),
                    None,
                    format!("item '{}' has two rows at time {}", items[k], w[0].0),
                ));
            }
        }
        let times: Vec<f64> = rows[0].iter().map(|r| r.0).collect();
        for (k, r) in rows.iter().enumerate().skip(1) {
            let mine: Vec<f64> = r.iter().map(|x| x.0).collect();
            if mine != times {
                let missing = times.iter().find(|t| !mine.contains(t));
                let extra = r.iter().find(|x| !times.contains(&x.0));
                let msg = match (missing, extra) {
                    (_, Some(x)) => return Err(TraceError::new(fname, Some(x.2), None, format!("item '{}' has a sample at time {} that item '{}' lacks; all items need the same times", items[k], x.0, items[0]))),
                    (Some(t), None) => format!("item '{}' has no sample at time {t} (item '{}' has); all items need the same times", items[k], items[0]),
                    (None, None) => format!("item '{}' has different times than item '{}'", items[k], items[0]),
                };
                return Err(TraceError::new(fname, None, None, msg));
            }
        }
        let interval = if times.len() >= 2 {
            times[1] - times[0]
        } else {
            0.0
        };
        let series = rows
            .into_iter()
            .map(|r| r.into_iter().map(|x| x.1).collect())
            .collect();
        UsageTrace::from_series(name, items, series, interval)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<UsageTrace, TraceError> {
        LongCsvReader.read(
            "t.csv",
            &[InputFile {
                name: "t.csv".into(),
                bytes: text.as_bytes().to_vec(),
            }],
        )
    }

    #[test]
    fn reads_and_sorts_by_time() {
        let t = read("item,time,usage\nb,300,0.5\na,0,0.1\nb,0,0.4\na,300,0.2\n").unwrap();
        assert_eq!(t.items, vec!["b", "a"]);
        assert_eq!(t.usage, vec![0.4, 0.5, 0.1, 0.2]);
        assert_eq!(t.interval_s, 300.0);
        // other column order and extra columns
        let t = read("usage,host,item,time\n0.3,h,x,1\n").unwrap();
        assert_eq!(t.usage, vec![0.3]);
        assert_eq!(t.grid.map(|g| g.decimals()), Some(1));
        // a value written with 17 significant digits lies on no decimal grid
        let t = read("item,time,usage\na,0,0.30000000000000004\n").unwrap();
        assert_eq!(t.grid, None);
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = read("item,time,usage\na,0,0.1\na,300,abc\n").unwrap_err();
        assert_eq!(e.to_string(), "t.csv:3:7: usage 'abc' is not a number");
        let e = read("item,time,usage\na,0,NaN\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(5)));
        let e = read("item,time,usage\na,0,-1\n").unwrap_err();
        assert!(e.message.contains("negative"));
        let e = read("item,time,usage\na,0,55\na,1,5000\n").unwrap_err();
        assert!(e.message.contains("VM units"), "{e}");
        let e = read("name,t,u\na,0,1\n").unwrap_err();
        assert_eq!(e.line, Some(1));
        let e = read("").unwrap_err();
        assert!(e.message.contains("empty"), "{e}");
        let e = read("item,time,usage\n").unwrap_err();
        assert!(e.message.contains("no data rows"), "{e}");
        let e = read("item,time,usage\na,0,0.1\na,0,0.2\n").unwrap_err();
        assert_eq!(e.line, Some(3));
        let e = read("item,time,usage\na,0,0.1\na,5,0.2\nb,0,0.1\n").unwrap_err();
        assert!(e.message.contains("no sample at time 5"), "{e}");
        let e = read("item,time,usage\na,0,0.1\nb,0,0.1\nb,7,0.3\n").unwrap_err();
        assert_eq!(e.line, Some(4));
    }
}
