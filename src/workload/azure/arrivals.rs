//! Readers of the Azure 2017 VM arrivals used to fit the admission model (seed 000 App. B,
//! ALGORITHMS.md §2.1): every reader takes text or bytes (no file IO, so it builds for wasm32) and returns
//! typed records or a [`TraceError`] naming file, 1-based line and column — never a panic.
//!
//! * The Azure-2017 **arrivals** format of Bergsma et al. (SOSP 2021; `huaweicloud/trace_generation_rnn`,
//!   ../shared/data/azure-v1-vm-arrivals-bergsma-sosp21/SOURCE.md): flavour sequence files
//!   ([`read_flavour_sequence`]), matching lifetime files ([`read_lifetime_sequence`]), `flav_map.txt`
//!   ([`read_flav_map`]) and `v1.interval_map.txt` ([`read_interval_map`]); [`join_arrivals`] aligns a
//!   flavour file with its lifetime file into an [`ArrivalTrace`] of tenant batches.
//! * packlab's compact derived **bundle** of those arrivals ([`write_arrivals_bundle`],
//!   [`read_arrivals_bundle`]; `static/traces/azure2017-arrivals.txt.gz`).
//!
//! Times are seconds from the trace start, as in the sources (multiples of 300 s).

use crate::input::parse::{col_of, err, lines};
use crate::input::TraceError;
use serde::Serialize;
use std::collections::BTreeMap;

/// Bin width of the arrival sequences and of vmtable timestamps, in seconds (5 minutes).
pub const BIN_S: u64 = 300;

/// One VM flavour of `flav_map.txt`: a letter with its vCPU cores and memory (GB).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Flavour {
    /// Flavour letter as used in the sequence files (`a`…`p`).
    pub letter: char,
    /// vCPU cores of one VM of this flavour.
    pub cores: u32,
    /// Memory of one VM, GB.
    pub memory_gb: f64,
}

/// The flavour table (`maps/flav_map.txt`, lines `<cores>,<memory_GB> <letter>`).
#[derive(Clone, Debug, PartialEq, Serialize, Default)]
pub struct FlavourMap {
    /// Flavours in file order.
    pub flavours: Vec<Flavour>,
}

impl FlavourMap {
    /// The flavour of `letter`, if listed.
    pub fn get(&self, letter: char) -> Option<&Flavour> {
        self.flavours.iter().find(|f| f.letter == letter)
    }
}

/// Lifetime bins of `maps/v1.interval_map.txt` (lines `<lifetime_s> <bin>`).
#[derive(Clone, Debug, PartialEq, Serialize, Default)]
pub struct IntervalMap {
    /// `(lifetime_s, bin)` pairs in increasing lifetime order, as listed.
    pub entries: Vec<(u64, u16)>,
    /// Per bin `k` (index): the smallest and largest listed lifetime (s) mapped to it.
    pub bins: Vec<(u64, u64)>,
}

impl IntervalMap {
    /// The bin of a lifetime in seconds: the bin of the largest listed lifetime ≤ `lifetime_s` (lifetimes
    /// beyond the last entry map to the last bin, as SOURCE.md presumes).
    pub fn bin_of(&self, lifetime_s: u64) -> u16 {
        match self.entries.binary_search_by(|e| e.0.cmp(&lifetime_s)) {
            Ok(i) => self.entries[i].1,
            Err(0) => self.entries.first().map(|e| e.1).unwrap_or(0),
            Err(i) => self.entries[i - 1].1,
        }
    }
    /// Number of bins.
    pub fn len(&self) -> usize {
        self.bins.len()
    }
    /// True if no bins are defined.
    pub fn is_empty(&self) -> bool {
        self.bins.is_empty()
    }
}

/// One line of a sequence file: the 5-minute bin's time (s) and its batches (a batch = one tenant's VMs in
/// this bin, closed by `|`), each a list of tokens of type `T`.
#[derive(Clone, Debug, PartialEq)]
pub struct SeqLine<T> {
    /// Trace-relative time of the bin, seconds (multiple of 300).
    pub t_s: u64,
    /// 1-based line number in its file.
    pub line: usize,
    /// Batches of tokens, in file order.
    pub batches: Vec<Vec<T>>,
}

/// One VM of a tenant batch: flavour, cores and its (binned, possibly right-censored) lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ArrivalVm {
    /// Flavour letter.
    pub flavour: char,
    /// vCPU cores (from the flavour map).
    pub cores: u32,
    /// Lifetime bin (index into [`IntervalMap::bins`]). For a censored VM the bin of its age at the cut.
    pub lifetime_bin: u16,
    /// True if the VM was still alive at the cut (`C<k>`), false if it died before (`U<k>`).
    pub censored: bool,
}

/// One tenant batch = one deployment of the admission model (seed 000 App. B; ALGORITHMS.md §2.1).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArrivalBatch {
    /// Arrival time, seconds from the trace start (the 5-minute bin's timestamp).
    pub t_s: u64,
    /// Its VMs in file order (≥ 1).
    pub vms: Vec<ArrivalVm>,
}

impl ArrivalBatch {
    /// Total cores of the batch (the deployment's initial size n0, cores).
    pub fn cores(&self) -> u32 {
        self.vms.iter().map(|v| v.cores).sum()
    }
}

/// One split of the arrivals (e.g. `dev`, `test`): tenant batches with binned lifetimes censored at `cut_s`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArrivalTrace {
    /// Split name (e.g. `dev`).
    pub name: String,
    /// First bin's time, s.
    pub start_s: u64,
    /// End of the observation window, s (last bin's time + 300).
    pub end_s: u64,
    /// Censoring time of the lifetimes, s (from the lifetime file name `*.c<cut>.txt`).
    pub cut_s: u64,
    /// Number of 5-minute lines (bins) in the split, including bins without arrivals.
    pub lines: usize,
    /// Tenant batches in time order.
    pub batches: Vec<ArrivalBatch>,
}

impl ArrivalTrace {
    /// Number of VMs.
    pub fn vm_count(&self) -> usize {
        self.batches.iter().map(|b| b.vms.len()).sum()
    }
    /// Number of VMs whose lifetime is censored at the cut.
    pub fn censored_count(&self) -> usize {
        self.batches
            .iter()
            .flat_map(|b| &b.vms)
            .filter(|v| v.censored)
            .count()
    }
    /// Total cores of all VMs.
    pub fn core_count(&self) -> u64 {
        self.batches.iter().map(|b| b.cores() as u64).sum()
    }
    /// Length of the observation window in hours (`(end_s − start_s)/3600`).
    pub fn window_hours(&self) -> f64 {
        (self.end_s - self.start_s) as f64 / 3600.0
    }
}

/// A complete arrivals data set: the maps plus one or more splits (the input of
/// [`crate::admission::fit::fit_azure_arrivals`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AzureArrivals {
    /// Where the data came from (folder or bundle name).
    pub source: String,
    /// Flavour table.
    pub flavours: FlavourMap,
    /// Lifetime bins.
    pub intervals: IntervalMap,
    /// Splits in time order.
    pub splits: Vec<ArrivalTrace>,
}

/// Reads `flav_map.txt`: lines `<cores>,<memory_GB> <letter>`. Errors: malformed line, non-positive cores,
/// negative memory, a letter listed twice, an empty file.
pub fn read_flav_map(file: &str, text: &str) -> Result<FlavourMap, TraceError> {
    let mut m = FlavourMap::default();
    for (ln, l) in lines(text) {
        let (spec, letter) = l
            .trim_end()
            .rsplit_once(' ')
            .ok_or_else(|| err(file, ln, 1, "expected '<cores>,<memory_GB> <letter>'"))?;
        let lcol = spec.len() + 2;
        let mut ch = letter.chars();
        let c = match (ch.next(), ch.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => c,
            _ => {
                return Err(err(
                    file,
                    ln,
                    lcol,
                    format!("flavour '{letter}' is not one letter"),
                ))
            }
        };
        let (cs, ms) = spec
            .split_once(',')
            .ok_or_else(|| err(file, ln, 1, "expected '<cores>,<memory_GB>'"))?;
        let cores: u32 = cs.trim().parse().ok().filter(|v| *v > 0).ok_or_else(|| {
            err(
                file,
                ln,
                1,
                format!("cores '{cs}' is not a positive integer"),
            )
        })?;
        let mem: f64 = ms
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                err(
                    file,
                    ln,
                    cs.len() + 2,
                    format!("memory '{ms}' is not a non-negative number"),
                )
            })?;
        if m.get(c).is_some() {
            return Err(err(
                file,
                ln,
                lcol,
                format!("flavour '{c}' is listed twice"),
            ));
        }
        m.flavours.push(Flavour {
            letter: c,
            cores,
            memory_gb: mem,
        });
    }
    if m.flavours.is_empty() {
        return Err(TraceError::new(file, None, None, "no flavours"));
    }
    Ok(m)
}

/// Reads `v1.interval_map.txt`: lines `<lifetime_s> <bin>` with strictly increasing lifetimes and
/// non-decreasing bins that start at 0 and skip none. Errors name the offending line.
pub fn read_interval_map(file: &str, text: &str) -> Result<IntervalMap, TraceError> {
    let mut m = IntervalMap::default();
    for (ln, l) in lines(text) {
        let mut it = l.split_whitespace();
        let (a, b) = match (it.next(), it.next(), it.next()) {
            (Some(a), Some(b), None) => (a, b),
            _ => return Err(err(file, ln, 1, "expected '<lifetime_s> <bin>'")),
        };
        let t: u64 = a.parse().map_err(|_| {
            err(
                file,
                ln,
                1,
                format!("lifetime '{a}' is not a non-negative integer (s)"),
            )
        })?;
        let bcol = l.find(b).map(|o| col_of(l, o)).unwrap_or(1);
        let k: u16 = b.parse().map_err(|_| {
            err(
                file,
                ln,
                bcol,
                format!("bin '{b}' is not a non-negative integer"),
            )
        })?;
        if let Some(&(pt, pk)) = m.entries.last() {
            if t <= pt {
                return Err(err(
                    file,
                    ln,
                    1,
                    format!("lifetime {t} s does not increase (previous {pt} s)"),
                ));
            }
            if k < pk || k > pk + 1 {
                return Err(err(
                    file,
                    ln,
                    bcol,
                    format!("bin {k} after bin {pk}: bins must be consecutive"),
                ));
            }
        } else if k != 0 {
            return Err(err(
                file,
                ln,
                bcol,
                format!("the first bin must be 0 (got {k})"),
            ));
        }
        m.entries.push((t, k));
        if k as usize == m.bins.len() {
            m.bins.push((t, t));
        } else {
            m.bins[k as usize].1 = t;
        }
    }
    if m.entries.is_empty() {
        return Err(TraceError::new(file, None, None, "no lifetime bins"));
    }
    Ok(m)
}

/// Generic sequence-line parser: `<t> <tok>,<tok>,...,|` with `|` closing batches.
fn read_sequence<T>(
    file: &str,
    text: &str,
    mut tok: impl FnMut(&str, usize, usize) -> Result<T, TraceError>,
) -> Result<Vec<SeqLine<T>>, TraceError> {
    let mut out: Vec<SeqLine<T>> = Vec::new();
    for (ln, l) in lines(text) {
        let (ts, rest) = match l.split_once(' ') {
            Some(x) => x,
            None => (l, ""),
        };
        let t: u64 = ts.parse().map_err(|_| {
            err(
                file,
                ln,
                1,
                format!("time '{ts}' is not a non-negative integer (s)"),
            )
        })?;
        if !t.is_multiple_of(BIN_S) {
            return Err(err(
                file,
                ln,
                1,
                format!("time {t} s is not a multiple of {BIN_S} s"),
            ));
        }
        if let Some(p) = out.last() {
            if t <= p.t_s {
                return Err(err(
                    file,
                    ln,
                    1,
                    format!("time {t} s does not increase (previous line {} s)", p.t_s),
                ));
            }
        }
        let mut batches = Vec::new();
        let mut cur = Vec::new();
        let base = ts.len() + 1;
        let mut off = 0usize;
        let rest_t = rest.trim_end();
        if !rest_t.is_empty() {
            for piece in rest_t.split(',') {
                let col = col_of(l, base + off);
                off += piece.len() + 1;
                if piece == "|" {
                    if cur.is_empty() {
                        return Err(err(file, ln, col, "empty batch ('|' with no VM before it)"));
                    }
                    batches.push(std::mem::take(&mut cur));
                } else if piece.is_empty() {
                    // a trailing comma after the last '|' is tolerated
                    if off < rest_t.len() {
                        return Err(err(file, ln, col, "empty token"));
                    }
                } else {
                    cur.push(tok(piece, ln, col)?);
                }
            }
        }
        if !cur.is_empty() {
            return Err(err(
                file,
                ln,
                col_of(l, l.len()),
                "the last batch is not closed by '|'",
            ));
        }
        out.push(SeqLine {
            t_s: t,
            line: ln,
            batches,
        });
    }
    if out.is_empty() {
        return Err(TraceError::new(file, None, None, "no lines"));
    }
    Ok(out)
}

/// Reads a flavour sequence file (`v1.dev.txt`): one line per 5-minute bin, `<t> <letter>,...,|`.
/// Errors: bad or non-increasing time, a token that is not one letter, an unclosed or empty batch.
pub fn read_flavour_sequence(file: &str, text: &str) -> Result<Vec<SeqLine<char>>, TraceError> {
    read_sequence(file, text, |p, ln, col| {
        let mut ch = p.chars();
        match (ch.next(), ch.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => Ok(c),
            _ => Err(err(
                file,
                ln,
                col,
                format!("token '{p}' is not a flavour letter or '|'"),
            )),
        }
    })
}

/// Reads a lifetime sequence file (`v1.dev.c2100000.txt`): tokens `U<k>` (died, lifetime in bin k) or `C<k>`
/// (alive at the cut; bin of its age). Returns `(censored, bin)` per VM. Errors as for
/// [`read_flavour_sequence`], plus malformed `U`/`C` tokens.
pub fn read_lifetime_sequence(
    file: &str,
    text: &str,
) -> Result<Vec<SeqLine<(bool, u16)>>, TraceError> {
    read_sequence(file, text, |p, ln, col| {
        let (c, k) = p.split_at(1);
        let cens = match c {
            "U" => false,
            "C" => true,
            _ => {
                return Err(err(
                    file,
                    ln,
                    col,
                    format!("token '{p}' is not U<bin>, C<bin> or '|'"),
                ))
            }
        };
        let k: u16 = k.parse().map_err(|_| {
            err(
                file,
                ln,
                col + 1,
                format!("bin '{k}' in token '{p}' is not a non-negative integer"),
            )
        })?;
        Ok((cens, k))
    })
}

/// The censoring time encoded in a lifetime file name `*.c<cut>.txt` (s), if present.
pub fn cut_from_name(name: &str) -> Option<u64> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = base.strip_suffix(".txt").unwrap_or(base);
    let (_, c) = stem.rsplit_once(".c")?;
    c.parse().ok()
}

/// Aligns a flavour sequence with its lifetime sequence token by token into an [`ArrivalTrace`].
/// `cut_s` is the lifetimes' censoring time (s). Errors (in the lifetime file, at the first mismatch):
/// different times or line counts, different batch structure, an unknown flavour letter, a bin outside the
/// interval map, a censored VM whose bin is not the bin of its age `cut − t`, an uncensored lifetime bin
/// beyond that age, a cut before the last arrival.
#[allow(clippy::too_many_arguments)]
pub fn join_arrivals(
    name: &str,
    flav_file: &str,
    flav: &[SeqLine<char>],
    life_file: &str,
    life: &[SeqLine<(bool, u16)>],
    cut_s: u64,
    flavours: &FlavourMap,
    intervals: &IntervalMap,
) -> Result<ArrivalTrace, TraceError> {
    if flav.len() != life.len() {
        return Err(TraceError::new(
            life_file,
            None,
            None,
            format!("{} lines but {flav_file} has {}", life.len(), flav.len()),
        ));
    }
    let mut batches = Vec::new();
    for (fl, ll) in flav.iter().zip(life) {
        if fl.t_s != ll.t_s {
            return Err(err(
                life_file,
                ll.line,
                1,
                format!(
                    "time {} s but {flav_file} line {} has {} s",
                    ll.t_s, fl.line, fl.t_s
                ),
            ));
        }
        if cut_s < fl.t_s {
            return Err(err(
                life_file,
                ll.line,
                1,
                format!("arrival at {} s after the cut {cut_s} s", fl.t_s),
            ));
        }
        if fl.batches.len() != ll.batches.len() {
            return Err(err(
                life_file,
                ll.line,
                1,
                format!(
                    "{} batches but {flav_file} line {} has {}",
                    ll.batches.len(),
                    fl.line,
                    fl.batches.len()
                ),
            ));
        }
        let age_bin = intervals.bin_of(cut_s - fl.t_s);
        for (bi, (fb, lb)) in fl.batches.iter().zip(&ll.batches).enumerate() {
            if fb.len() != lb.len() {
                return Err(err(
                    life_file,
                    ll.line,
                    1,
                    format!(
                        "batch {} has {} VMs but {} in {flav_file} line {}",
                        bi + 1,
                        lb.len(),
                        fb.len(),
                        fl.line
                    ),
                ));
            }
            let mut vms = Vec::with_capacity(fb.len());
            for (&c, &(cens, k)) in fb.iter().zip(lb) {
                let f = flavours.get(c).ok_or_else(|| {
                    err(
                        flav_file,
                        fl.line,
                        1,
                        format!("flavour '{c}' is not in the flavour map"),
                    )
                })?;
                if k as usize >= intervals.len() {
                    return Err(err(
                        life_file,
                        ll.line,
                        1,
                        format!(
                            "lifetime bin {k} is not in the interval map (0–{})",
                            intervals.len() - 1
                        ),
                    ));
                }
                if cens && k != age_bin {
                    return Err(err(life_file, ll.line, 1, format!("censored bin C{k} differs from the bin {age_bin} of the age {} s at the cut", cut_s - fl.t_s)));
                }
                if !cens && k > age_bin {
                    return Err(err(life_file, ll.line, 1, format!("lifetime bin U{k} exceeds the bin {age_bin} of the age {} s at the cut", cut_s - fl.t_s)));
                }
                vms.push(ArrivalVm {
                    flavour: c,
                    cores: f.cores,
                    lifetime_bin: k,
                    censored: cens,
                });
            }
            batches.push(ArrivalBatch { t_s: fl.t_s, vms });
        }
    }
    Ok(ArrivalTrace {
        name: name.to_string(),
        start_s: flav[0].t_s,
        end_s: flav[flav.len() - 1].t_s + BIN_S,
        cut_s,
        lines: flav.len(),
        batches,
    })
}

// ---------------------------------------------------------------------------------------------------------
// Bundle

/// First line of the derived arrivals bundle.
pub const BUNDLE_MAGIC: &str = "#packlab-azure-arrivals v1";
/// Most VMs an arrivals bundle may expand to (its `*<n>` repeat counts are expanded): 3 million (the Azure
/// 2017 arrivals hold 669,435).
pub const MAX_BUNDLE_VMS: usize = 3_000_000;
/// Most VMs per byte of a bundle (decompressed), beyond the first 100,000: the real one holds 0.54 (669,435 VMs
/// in 1.24 MB); without it a few KiB of repeat counts (`g2*2864000`) took seconds to expand (a fuzz finding).
pub const MAX_BUNDLE_VMS_PER_BYTE: usize = 2;
/// Most 5-minute lifetime steps the `#bins` line of a bundle may span (they are expanded into a lookup
/// table): 1,000,000 = 9.5 years (the real bins end at 1,728,000 s = 5,761 steps).
pub const MAX_BUNDLE_BIN_STEPS: u64 = 1_000_000;
/// Largest split time of a bundle, s (about 317 years), so its time arithmetic cannot overflow.
pub const MAX_BUNDLE_TIME_S: u64 = 10_000_000_000;
const MAX_BIN_ENTRIES: u64 = MAX_BUNDLE_BIN_STEPS;

/// Writes the compact derived bundle (text; gzip it with [`crate::input::gzip`]) of an arrivals data set.
///
/// Format: header lines `#packlab-azure-arrivals v1 source=<source>`, `#flavours <letter>=<cores>,<GB> ...`,
/// `#bins <lo_s>-<hi_s> ...` (bin k = k-th pair), then per split a line
/// `#split <name> start=<s> end=<s> cut=<s> lines=<n>` followed by one line per non-empty 5-minute bin:
/// `<(t − start)/300> <batch>|<batch>|...` where a batch is `,`-separated VM groups `<letter><bin>` (died,
/// lifetime bin) or `<letter>` (alive at the cut: its age bin follows from `cut − t`), with `*<n>` for n equal
/// consecutive VMs. Lossless with respect to [`ArrivalTrace`] (the within-bin order of batches and VMs is kept).
pub fn write_arrivals_bundle(data: &AzureArrivals) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{BUNDLE_MAGIC} source={}",
        data.source.replace(char::is_whitespace, "_")
    );
    s.push_str("#flavours");
    for f in &data.flavours.flavours {
        let _ = write!(s, " {}={},{}", f.letter, f.cores, f.memory_gb);
    }
    s.push_str("\n#bins");
    for (lo, hi) in &data.intervals.bins {
        let _ = write!(s, " {lo}-{hi}");
    }
    s.push('\n');
    for sp in &data.splits {
        let _ = writeln!(
            s,
            "#split {} start={} end={} cut={} lines={}",
            sp.name, sp.start_s, sp.end_s, sp.cut_s, sp.lines
        );
        let mut i = 0;
        while i < sp.batches.len() {
            let t = sp.batches[i].t_s;
            let _ = write!(s, "{}", (t - sp.start_s) / BIN_S);
            let mut first = true;
            while i < sp.batches.len() && sp.batches[i].t_s == t {
                s.push(if first { ' ' } else { '|' });
                first = false;
                let vms = &sp.batches[i].vms;
                let mut j = 0;
                let mut firstv = true;
                while j < vms.len() {
                    let mut n = 1;
                    while j + n < vms.len() && vms[j + n] == vms[j] {
                        n += 1;
                    }
                    if !firstv {
                        s.push(',');
                    }
                    firstv = false;
                    s.push(vms[j].flavour);
                    if !vms[j].censored {
                        let _ = write!(s, "{}", vms[j].lifetime_bin);
                    }
                    if n > 1 {
                        let _ = write!(s, "*{n}");
                    }
                    j += n;
                }
                i += 1;
            }
            s.push('\n');
        }
    }
    s
}

/// Reads the bundle written by [`write_arrivals_bundle`], gzip-compressed or not. Errors name `file`, line and
/// column.
pub fn read_arrivals_bundle(file: &str, bytes: &[u8]) -> Result<AzureArrivals, TraceError> {
    let bytes = crate::input::maybe_gunzip(file, bytes)?;
    let bytes = &bytes[..];
    let text = crate::input::utf8(file, bytes)?;
    let max_vms = MAX_BUNDLE_VMS.min((MAX_BUNDLE_VMS_PER_BYTE * text.len()).max(100_000));
    let mut it = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)));
    let (_, head) = it
        .next()
        .ok_or_else(|| TraceError::new(file, None, None, "empty file"))?;
    let source = head
        .strip_prefix(BUNDLE_MAGIC)
        .ok_or_else(|| {
            err(
                file,
                1,
                1,
                format!("not an arrivals bundle (expected '{BUNDLE_MAGIC}')"),
            )
        })?
        .trim()
        .strip_prefix("source=")
        .unwrap_or("")
        .to_string();
    let (mut bin_entries, mut vm_count) = (0u64, 0usize);
    let mut data = AzureArrivals {
        source,
        flavours: FlavourMap::default(),
        intervals: IntervalMap::default(),
        splits: Vec::new(),
    };
    for (ln, l) in it {
        if l.is_empty() {
            continue;
        }
        if let Some(r) = l.strip_prefix("#flavours") {
            for tok in r.split_whitespace() {
                let col = l.find(tok).map(|o| col_of(l, o)).unwrap_or(1);
                let bad = || {
                    err(
                        file,
                        ln,
                        col,
                        format!("flavour '{tok}' is not <letter>=<cores>,<GB>"),
                    )
                };
                let (c, spec) = tok.split_once('=').ok_or_else(bad)?;
                let (co, me) = spec.split_once(',').ok_or_else(bad)?;
                let letter = c
                    .chars()
                    .next()
                    .filter(|_| c.chars().count() == 1)
                    .ok_or_else(bad)?;
                let cores = co.parse().ok().filter(|v| *v > 0).ok_or_else(bad)?;
                let memory_gb = me.parse().map_err(|_| bad())?;
                data.flavours.flavours.push(Flavour {
                    letter,
                    cores,
                    memory_gb,
                });
            }
        } else if let Some(r) = l.strip_prefix("#bins") {
            for (k, tok) in r.split_whitespace().enumerate() {
                let col = l.find(tok).map(|o| col_of(l, o)).unwrap_or(1);
                let bad = || err(file, ln, col, format!("bin '{tok}' is not <lo_s>-<hi_s>"));
                let (a, b) = tok.split_once('-').ok_or_else(bad)?;
                let (a, b): (u64, u64) =
                    (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
                if b < a || data.intervals.bins.last().is_some_and(|p| p.1 >= a) {
                    return Err(bad());
                }
                // the bins are expanded into one entry per 5-minute lifetime: bound them before allocating
                bin_entries = bin_entries.saturating_add((b - a) / BIN_S + 1);
                if bin_entries > MAX_BIN_ENTRIES {
                    return Err(err(
                        file,
                        ln,
                        col,
                        format!(
                            "the lifetime bins span more than {MAX_BIN_ENTRIES} five-minute steps"
                        ),
                    ));
                }
                data.intervals.bins.push((a, b));
                let mut t = a;
                while t <= b {
                    data.intervals.entries.push((t, k as u16));
                    t += BIN_S;
                }
            }
        } else if let Some(r) = l.strip_prefix("#split ") {
            let mut parts = r.split_whitespace();
            let name = parts.next().unwrap_or("").to_string();
            let mut kv = BTreeMap::new();
            for p in parts {
                let (k, v) = p
                    .split_once('=')
                    .ok_or_else(|| err(file, ln, 1, format!("'{p}' is not key=value")))?;
                let v: u64 = v
                    .parse()
                    .map_err(|_| err(file, ln, 1, format!("{k}: '{v}' is not an integer")))?;
                kv.insert(k.to_string(), v);
            }
            let g = |k: &str| {
                kv.get(k)
                    .copied()
                    .ok_or_else(|| err(file, ln, 1, format!("#split needs {k}=")))
            };
            let (start_s, end_s, cut_s, nl) = (g("start")?, g("end")?, g("cut")?, g("lines")?);
            if [start_s, end_s, cut_s]
                .iter()
                .any(|v| *v > MAX_BUNDLE_TIME_S)
            {
                return Err(err(
                    file,
                    ln,
                    1,
                    format!("#split times must be at most {MAX_BUNDLE_TIME_S} s"),
                ));
            }
            if end_s <= start_s || cut_s + BIN_S < end_s {
                return Err(err(file, ln, 1, "#split needs start < end ≤ cut + 300"));
            }
            data.splits.push(ArrivalTrace {
                name,
                start_s,
                end_s,
                cut_s,
                lines: nl as usize,
                batches: Vec::new(),
            });
        } else if l.starts_with('#') {
            continue;
        } else {
            let sp = data
                .splits
                .last_mut()
                .ok_or_else(|| err(file, ln, 1, "data line before any #split line"))?;
            let (bs, rest) = l
                .split_once(' ')
                .ok_or_else(|| err(file, ln, 1, "expected '<bin> <batches>'"))?;
            let b: u64 = bs
                .parse()
                .map_err(|_| err(file, ln, 1, format!("bin '{bs}' is not an integer")))?;
            let t = b
                .checked_mul(BIN_S)
                .and_then(|x| x.checked_add(sp.start_s))
                .filter(|t| *t < sp.end_s && !sp.batches.last().is_some_and(|p| p.t_s >= *t))
                .ok_or_else(|| {
                    err(
                        file,
                        ln,
                        1,
                        format!("bin {b} is out of order or outside the split"),
                    )
                })?;
            if t > sp.cut_s {
                return Err(err(
                    file,
                    ln,
                    1,
                    format!("bin {b} lies after the split's cut {} s", sp.cut_s),
                ));
            }
            let age_bin = data.intervals.bin_of(sp.cut_s - t);
            let mut off = bs.len() + 1;
            for batch in rest.split('|') {
                let mut vms = Vec::new();
                for g in batch.split(',') {
                    let col = col_of(l, off);
                    off += g.len() + 1;
                    let bad = |m: &str| err(file, ln, col, format!("VM group '{g}': {m}"));
                    let (spec, n) = match g.split_once('*') {
                        Some((s, n)) => (
                            s,
                            n.parse::<usize>()
                                .ok()
                                .filter(|n| *n >= 1)
                                .ok_or_else(|| bad("bad repeat count"))?,
                        ),
                        None => (g, 1),
                    };
                    // repeat counts are expanded: bound the VMs before allocating
                    vm_count = vm_count.saturating_add(n);
                    if vm_count > max_vms {
                        return Err(bad(&format!(
                            "more than {max_vms} VMs in the bundle (at most {MAX_BUNDLE_VMS}, and \
                             {MAX_BUNDLE_VMS_PER_BYTE} per byte of the file: repeat counts expand)"
                        )));
                    }
                    let letter = spec.chars().next().ok_or_else(|| bad("empty"))?;
                    let f = data
                        .flavours
                        .get(letter)
                        .ok_or_else(|| bad("unknown flavour"))?;
                    let rest = &spec[letter.len_utf8()..];
                    let (censored, bin) = if rest.is_empty() {
                        (true, age_bin)
                    } else {
                        let k: u16 = rest.parse().map_err(|_| bad("bad lifetime bin"))?;
                        if k as usize >= data.intervals.bins.len() || k > age_bin {
                            return Err(bad("lifetime bin out of range"));
                        }
                        (false, k)
                    };
                    for _ in 0..n {
                        vms.push(ArrivalVm {
                            flavour: letter,
                            cores: f.cores,
                            lifetime_bin: bin,
                            censored,
                        });
                    }
                }
                sp.batches.push(ArrivalBatch { t_s: t, vms });
            }
        }
    }
    if data.splits.is_empty() || data.intervals.bins.is_empty() || data.flavours.flavours.is_empty()
    {
        return Err(TraceError::new(
            file,
            None,
            None,
            "the bundle needs #flavours, #bins and at least one #split",
        ));
    }
    Ok(data)
}

/// Assembles an [`AzureArrivals`] data set from in-memory files `(name, text)` of the Bergsma et al. layout:
/// one `*flav_map.txt`, one `*interval_map.txt`, and per split a flavour file `<p>.txt` with its lifetime file
/// `<p>.c<cut>.txt` (other files, e.g. LICENSE or batch_size_map.txt, are ignored; a flavour file without a
/// lifetime file is skipped). The split name is the file stem without a leading `v1.` (e.g. `dev`). Splits
/// are ordered by start time. Errors: missing maps, no complete split, or any reader error.
pub fn read_arrivals_files(
    source: &str,
    files: &[(String, String)],
) -> Result<AzureArrivals, TraceError> {
    let base = |n: &str| n.rsplit(['/', '\\']).next().unwrap_or(n).to_string();
    let find = |suffix: &str| files.iter().find(|(n, _)| base(n).ends_with(suffix));
    let (fmn, fmt) = find("flav_map.txt")
        .ok_or_else(|| TraceError::new(source, None, None, "no flav_map.txt"))?;
    let (imn, imt) = find("interval_map.txt")
        .ok_or_else(|| TraceError::new(source, None, None, "no *interval_map.txt"))?;
    let flavours = read_flav_map(fmn, fmt)?;
    let intervals = read_interval_map(imn, imt)?;
    let mut splits = Vec::new();
    for (ln, lt) in files {
        let Some(cut) = cut_from_name(ln) else {
            continue;
        };
        let b = base(ln);
        let stem = b.strip_suffix(".txt").unwrap_or(&b);
        let prefix = stem.rsplit_once(".c").map(|x| x.0).unwrap_or(stem);
        let want = format!("{prefix}.txt");
        let Some((fnm, ft)) = files.iter().find(|(n, _)| base(n) == want) else {
            return Err(TraceError::new(
                ln,
                None,
                None,
                format!("no matching flavour file {want}"),
            ));
        };
        let flav = read_flavour_sequence(fnm, ft)?;
        let life = read_lifetime_sequence(ln, lt)?;
        let name = prefix.strip_prefix("v1.").unwrap_or(prefix);
        splits.push(join_arrivals(
            name, fnm, &flav, ln, &life, cut, &flavours, &intervals,
        )?);
    }
    if splits.is_empty() {
        return Err(TraceError::new(
            source,
            None,
            None,
            "no split with both a flavour file and a lifetime file *.c<cut>.txt",
        ));
    }
    splits.sort_by_key(|s| s.start_s);
    Ok(AzureArrivals {
        source: source.to_string(),
        flavours,
        intervals,
        splits,
    })
}
