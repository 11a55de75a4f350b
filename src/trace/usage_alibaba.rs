//! Alibaba cluster-trace-v2018 `machine_usage.csv` as a [`UsageTrace`]: one item per machine, its CPU
//! utilisation / 100 (fraction of the machine), resampled onto a common grid because the monitor samples
//! each machine at its own irregular instants.
//!
//! Source: ../shared/data/alibaba-v2018-machines/SOURCE.md (first 100,002 rows: 16 machines, 8 days).
//! Host-level utilisation for hot-machine frequencies (seed 001, ALGORITHMS.md §3.1 "hot" PMs).

use super::usage::TimedUsage;
use super::usage::UsageTrace;
use crate::input::parse::{clip, for_each_record};
use crate::input::{check_upload, MAX_TIME_S};
use crate::input::{maybe_gunzip, utf8, InputFile, TraceError, MAX_VALUES};
use std::collections::HashMap;

/// How [`read_alibaba_machine_usage`] resamples and which machines it keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct MachineUsageOptions {
    /// Grid step, s (default 300, the interval of the other traces): bin k covers `[k·Δ, (k+1)·Δ)`.
    pub interval_s: f64,
    /// Machines observed over less than this fraction of the longest machine's observed span are left out
    /// (default 0.5; in the excerpt this drops m_1932, observed from 386,640 s, and m_1947, up to 188,370 s,
    /// whose spans do not even overlap). 0 keeps every machine.
    pub min_span_fraction: f64,
}

impl Default for MachineUsageOptions {
    fn default() -> Self {
        MachineUsageOptions {
            interval_s: 300.0,
            min_span_fraction: 0.5,
        }
    }
}

/// Reads Alibaba 2018 `machine_usage.csv` rows `machine_id,time_stamp,cpu_util_percent,…` (no header; one
/// is skipped if present; several files are unioned) into one item per machine (order of first appearance),
/// usage = `cpu_util_percent / 100`.
///
/// Gaps: sampling is irregular (SOURCE.md: median spacing 60 s, up to 19,600 s; no instant is shared by all
/// machines), so each machine is resampled onto the grid of `interval_s`: a bin's value is the mean of the
/// machine's samples in it, and an **empty bin repeats the machine's previous value** (last observation carried
/// forward; the count of filled bins is in the notes). The grid spans the bins every kept machine has reached
/// and not yet left (from the latest first bin to the earliest last bin): nothing is extrapolated. Sample
/// instants are the bins' starts. The values `-1` and `101`, Alibaba's markers of abnormal readings, are
/// skipped as missing (counted in the notes).
///
/// Errors (file:line:column): fewer than 3 fields, a time or CPU value that is not a finite number, a negative
/// time or one beyond [`MAX_TIME_S`], CPU outside `[0, 100]` (other than the markers), an empty machine id,
/// more than [`MAX_VALUES`] rows or grid values, bad options, no common span.
pub fn read_alibaba_machine_usage(
    name: &str,
    files: &[InputFile],
    opts: &MachineUsageOptions,
) -> Result<UsageTrace, TraceError> {
    read_alibaba_machine_usage_timed(name, files, opts).map(|t| t.trace)
}

/// [`read_alibaba_machine_usage`] with the grid instants (s) and the notes (dropped machines, filled bins,
/// skipped abnormal values).
pub fn read_alibaba_machine_usage_timed(
    name: &str,
    files: &[InputFile],
    opts: &MachineUsageOptions,
) -> Result<TimedUsage, TraceError> {
    check_upload(name, files)?;
    let dt = opts.interval_s;
    if !((1.0..=1e7).contains(&dt) && (0.0..=1.0).contains(&opts.min_span_fraction)) {
        return Err(TraceError::new(
            name,
            None,
            None,
            format!(
                "options: interval_s must lie in [1, 1e7] s and min_span_fraction in [0, 1] (got {dt}, {})",
                opts.min_span_fraction
            ),
        ));
    }
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut items: Vec<String> = Vec::new();
    let mut samples: Vec<Vec<(f64, f64)>> = Vec::new();
    let (mut n, mut abnormal) = (0usize, 0usize);
    for f in files {
        let bytes = maybe_gunzip(&f.name, &f.bytes)?;
        let text = utf8(&f.name, &bytes)?;
        let mut first = true;
        for_each_record(&f.name, text, b',', |r| {
            if r.len() < 3 {
                return Err(r.err(
                    r.len(),
                    format!(
                        "{} fields; a row starts machine_id,time_stamp,cpu_util_percent",
                        r.len()
                    ),
                ));
            }
            if std::mem::take(&mut first) && r.get(1, "time_stamp")?.parse::<f64>().is_err() {
                return Ok(()); // header
            }
            n += 1;
            if n > MAX_VALUES {
                return Err(r.err(0, format!("more than {MAX_VALUES} rows")));
            }
            let id = r.get(0, "machine_id")?;
            if id.is_empty() {
                return Err(r.err(0, "empty machine_id"));
            }
            let t = r.num(1, "time_stamp", MAX_TIME_S)?;
            let s = r.get(2, "cpu_util_percent")?;
            let v: f64 = s
                .parse()
                .map_err(|_| r.err(2, format!("cpu_util_percent '{}' is not a number", clip(s))))?;
            if v == -1.0 || v == 101.0 {
                abnormal += 1;
                return Ok(());
            }
            let v = r.num(2, "cpu_util_percent", 100.0)?;
            let i = *index.entry(id.to_string()).or_insert_with(|| {
                items.push(id.to_string());
                samples.push(Vec::new());
                items.len() - 1
            });
            samples[i].push((t, v / 100.0));
            Ok(())
        })?;
    }
    let mut notes = Vec::new();
    if abnormal > 0 {
        notes.push(format!("{abnormal} abnormal readings (-1 or 101) skipped"));
    }
    // machines with samples, their spans
    for s in &mut samples {
        crate::substrate::stats::sort_pairs(s);
    }
    let span = |s: &[(f64, f64)]| match (s.first(), s.last()) {
        (Some(a), Some(b)) => b.0 - a.0,
        _ => -1.0,
    };
    let longest = samples.iter().map(|s| span(s)).fold(-1.0, f64::max);
    if longest < 0.0 {
        return Err(TraceError::new(name, None, None, "no machine usage rows"));
    }
    let keep: Vec<usize> = (0..items.len())
        .filter(|&i| {
            !samples[i].is_empty() && span(&samples[i]) >= opts.min_span_fraction * longest
        })
        .collect();
    let dropped: Vec<&str> = (0..items.len())
        .filter(|i| !keep.contains(i))
        .map(|i| items[i].as_str())
        .collect();
    if !dropped.is_empty() {
        notes.push(format!(
            "machines observed over less than {} of the longest span left out: {}",
            opts.min_span_fraction,
            dropped.join(", ")
        ));
    }
    let bin = |t: f64| (t / dt).floor() as i64;
    let (mut k0, mut k1) = (i64::MIN, i64::MAX);
    let (mut late, mut early) = (0, 0);
    for &i in &keep {
        let (a, b) = (
            bin(samples[i][0].0),
            bin(samples[i][samples[i].len() - 1].0),
        );
        if a > k0 {
            (k0, late) = (a, i);
        }
        if b < k1 {
            (k1, early) = (b, i);
        }
    }
    if k0 > k1 {
        return Err(TraceError::new(
            name,
            None,
            None,
            format!(
                "no common time span: machine '{}' starts at {} s after machine '{}' ends at {} s; raise min_span_fraction or read fewer machines",
                items[late], samples[late][0].0, items[early], samples[early][samples[early].len() - 1].0
            ),
        ));
    }
    let nbins = (k1 - k0 + 1) as usize;
    if nbins.saturating_mul(keep.len()) > MAX_VALUES {
        return Err(TraceError::new(
            name,
            None,
            None,
            format!(
                "{} machines × {nbins} bins exceed {MAX_VALUES} values; use a longer interval_s",
                keep.len()
            ),
        ));
    }
    let mut filled = 0usize;
    let mut series = Vec::with_capacity(keep.len());
    for &i in &keep {
        // per-bin means in time order
        let mut means: Vec<(i64, f64)> = Vec::new();
        let mut acc = (0i64, 0.0, 0usize);
        for &(t, v) in &samples[i] {
            let k = bin(t);
            if acc.2 > 0 && k != acc.0 {
                means.push((acc.0, acc.1 / acc.2 as f64));
                acc = (k, 0.0, 0);
            }
            acc = (k, acc.1 + v, acc.2 + 1);
        }
        means.push((acc.0, acc.1 / acc.2 as f64));
        let mut out = Vec::with_capacity(nbins);
        let (mut j, mut last) = (0usize, means[0].1);
        for k in k0..=k1 {
            while j < means.len() && means[j].0 < k {
                last = means[j].1;
                j += 1;
            }
            if j < means.len() && means[j].0 == k {
                last = means[j].1;
                j += 1;
            } else {
                filled += 1;
            }
            out.push(last);
        }
        series.push(out);
    }
    notes.push(format!(
        "{} machines × {nbins} bins of {dt} s; {filled} empty bins took the machine's previous value",
        keep.len()
    ));
    let kept: Vec<String> = keep.iter().map(|&i| items[i].clone()).collect();
    // bin means of VM units (not values as written): their grid, if any, is found on the means themselves
    let trace = UsageTrace::from_series(name, kept, series, dt)?;
    Ok(TimedUsage {
        trace,
        times_s: (k0..=k1).map(|k| k as f64 * dt).collect(),
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::testutil::{load, no_panic};

    fn one(text: &str) -> Vec<InputFile> {
        vec![InputFile {
            name: "u.csv".into(),
            bytes: text.as_bytes().to_vec(),
        }]
    }

    /// Grid, fills and means computed independently:
    /// python3 -c "import csv,collections as C;by=C.defaultdict(list)
    /// [by[r[0]].append((int(r[1]),int(r[2]))) for r in csv.reader(open('machine_usage.csv'))]
    /// L=max(v[-1][0]-v[0][0] for v in by.values());keep=[m for m in by if by[m][-1][0]-by[m][0][0]>=L/2]
    /// k0=max(by[m][0][0]//300 for m in keep);k1=min(by[m][-1][0]//300 for m in keep);S={};F=0
    /// for m in keep:
    ///  b=C.defaultdict(list);[b[t//300].append(v) for t,v in by[m]];last=None;s=[]
    ///  for k in range(min(b),k1+1):
    ///   if k in b: last=sum(b[k])/len(b[k])/100
    ///   elif k>=k0: F+=1
    ///   if k>=k0: s.append(last)
    ///  S[m]=s
    /// print(len(keep),k0,k1,k1-k0+1,F,sum(S['m_1933'])/len(S['m_1933']),sum(map(sum,S.values()))/len(keep)/(k1-k0+1))"
    #[test]
    fn machine_usage_excerpt() {
        let f = load("alibaba-v2018-machines/machine_usage.csv");
        let t = read_alibaba_machine_usage_timed(
            "ali",
            std::slice::from_ref(&f),
            &MachineUsageOptions::default(),
        )
        .unwrap();
        let tr = &t.trace;
        assert_eq!(tr.items.len(), ALI_KEPT);
        assert!(!tr.items.iter().any(|m| m == "m_1932" || m == "m_1947"));
        assert_eq!(tr.items[0], "m_1933");
        assert_eq!((tr.samples, tr.interval_s), (ALI_BINS, 300.0));
        assert_eq!(t.times_s[0], ALI_K0 as f64 * 300.0);
        assert!(
            t.notes
                .iter()
                .any(|n| n.contains(&format!("{ALI_FILLED} empty bins"))),
            "{:?}",
            t.notes
        );
        let m = tr.series(0).iter().sum::<f64>() / tr.samples as f64;
        assert!((m - ALI_MEAN_1933).abs() < 1e-12, "{m}");
        // bin means of integer % lie on no decimal grid (exact q on the doubles)
        assert_eq!(tr.grid, None);
        assert!(
            (tr.summary().mean - ALI_MEAN_ALL).abs() < 1e-12,
            "{}",
            tr.summary().mean
        );
        // keeping every machine: m_1932 (from 386,640 s) and m_1947 (to 188,370 s) never overlap
        let all = MachineUsageOptions {
            min_span_fraction: 0.0,
            ..Default::default()
        };
        let e = read_alibaba_machine_usage("ali", &[f], &all).unwrap_err();
        assert!(
            e.message
                .contains("'m_1932' starts at 386640 s after machine 'm_1947' ends at 188370 s"),
            "{e}"
        );
    }
    // → 14 27 2303 2277 3853 0.05696235125582955 0.34318371837363015
    //   (awk -F, '$1=="m_1933"{s+=$3;n++} END{print s/n}' gives the raw mean 5.71041 %: an idle machine)
    const ALI_KEPT: usize = 14;
    const ALI_K0: i64 = 27;
    const ALI_BINS: usize = 2277;
    const ALI_FILLED: usize = 3853;
    const ALI_MEAN_1933: f64 = 0.05696235125582955;
    const ALI_MEAN_ALL: f64 = 0.34318371837363015;

    #[test]
    fn machine_usage_resampling_by_hand() {
        // a: 0 s 10 %, 100 s 30 % (bin 0 mean 20 %), nothing in bin 1, 650 s 50 % (bin 2)
        // b: 50 s 40 %, 400 s 101 (abnormal, skipped), 700 s 60 %, 1000 s 70 % (bin 3: outside a's span)
        let t = read_alibaba_machine_usage_timed(
            "u",
            &one("a,0,10\na,100,30\nb,50,40\nb,400,101\na,650,50\nb,700,60\nb,1000,70\n"),
            &MachineUsageOptions::default(),
        )
        .unwrap();
        assert_eq!(t.trace.items, ["a", "b"]);
        assert_eq!(t.times_s, [0.0, 300.0, 600.0]);
        assert_eq!(t.trace.usage, [0.2, 0.2, 0.5, 0.4, 0.4, 0.6]);
        assert!(
            t.notes.iter().any(|n| n.contains("1 abnormal")),
            "{:?}",
            t.notes
        );
        assert!(
            t.notes.iter().any(|n| n.contains("2 empty bins")),
            "{:?}",
            t.notes
        );
    }

    #[test]
    fn machine_usage_errors() {
        let o = MachineUsageOptions::default();
        let e = read_alibaba_machine_usage("u", &one("m_1,0,41\nm_1,10,x\n"), &o).unwrap_err();
        assert_eq!(
            e.to_string(),
            "u.csv:2:8: cpu_util_percent 'x' is not a number"
        );
        let e = read_alibaba_machine_usage("u", &one("m_1,0,41\nm_1,10,102\n"), &o).unwrap_err();
        assert_eq!(
            e.to_string(),
            "u.csv:2:8: cpu_util_percent '102' exceeds the limit 100"
        );
        let e = read_alibaba_machine_usage("u", &one("m_1,NaN,41\n"), &o).unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(5)));
        let e = read_alibaba_machine_usage("u", &one("m_1,5\n"), &o).unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(6)), "{e}");
        let e = read_alibaba_machine_usage("u", &one(""), &o).unwrap_err();
        assert!(e.message.contains("no machine usage rows"), "{e}");
        let bad = MachineUsageOptions {
            interval_s: 0.0,
            ..Default::default()
        };
        assert!(read_alibaba_machine_usage("u", &one("m,0,1\n"), &bad).is_err());
    }

    #[test]
    fn no_panic_on_garbled_machine_usage() {
        let f = load("alibaba-v2018-machines/machine_usage.csv");
        no_panic(&[f], |fs| {
            read_alibaba_machine_usage("g", fs, &MachineUsageOptions::default())
        });
    }
}
