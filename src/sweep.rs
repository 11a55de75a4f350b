//! Sweeps: one scenario and axes of parameter values (and seeds); every combination of values is one **cell**,
//! a scenario of its own run to the end through the experiment contract. The CLI runs a sweep whole or in
//! shards on a batch cluster (`packlab sweep FILE --shard I/N --out DIR`, one process per shard) and merges
//! the shards (`packlab merge DIR`) into one results file that is byte for byte the unsharded run's.
//!
//! A sweep file is JSON:
//! ```json
//! { "scenario": { "model": "placement", "placement": { "rule": "bf" } },
//!   "axes": [ { "field": "placement.capacity", "values": [0.5, 1, 2] },
//!             { "field": "seed", "values": [1, 2, 3] } ] }
//! ```
//! `scenario` is a full or partial scenario object (missing fields take their defaults, as in `packlab run`)
//! or a share link string. Each axis names a dotted field of the scenario JSON and the values it takes; cells
//! are numbered in row-major order of the axes (the first axis varies slowest). A shard `I/N` (0 ≤ I < N)
//! takes the cells `I, I + N, I + 2N, …`, so that shards get a similar mix of cheap and dear cells.
//!
//! Results ([`SweepResults`]) carry one [`CellResult`] per cell: its axis values, the share link of its
//! scenario (open it in the playground) and the report exactly as `packlab run` prints it; [`to_csv`] gives
//! the same results in long ("tidy") form, one row per number or string of each report.

use crate::scenario::Scenario;
use crate::substrate::error::FieldError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Largest sweep file accepted (bytes).
pub const MAX_SWEEP_BYTES: usize = 1024 * 1024;
/// Most cells a sweep may have (the product of its axes' lengths).
pub const MAX_SWEEP_CELLS: usize = 100_000;

/// A sweep: a base scenario and its axes (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    /// The base scenario: a (partial) scenario JSON object or a share link string.
    pub scenario: Value,
    /// The axes, slowest-varying first; none gives one cell (the base scenario).
    #[serde(default)]
    pub axes: Vec<Axis>,
}

/// One axis of a sweep: a dotted field of the scenario JSON (e.g. `placement.capacity`, `seed`) and its
/// values (JSON values, e.g. numbers or strings).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Axis {
    /// Dotted path of the field set by this axis.
    pub field: String,
    /// Its values, at least one.
    pub values: Vec<Value>,
}

/// One cell of a sweep: its index (row-major over the axes), its axis values and its scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Index in `0..Sweep::len()`.
    pub index: usize,
    /// The value of each axis, in axis order.
    pub values: Vec<Value>,
    /// The cell's validated scenario.
    pub scenario: Scenario,
}

/// The result of one cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellResult {
    /// Cell index.
    pub cell: usize,
    /// The value of each axis, in axis order ([`SweepResults::fields`]).
    pub values: Vec<Value>,
    /// The share link of the cell's scenario.
    pub link: String,
    /// The run's report, as `packlab run` prints it.
    pub report: Value,
}

/// The results of a sweep, or of one shard of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepResults {
    /// [`Sweep::id`] of the sweep run.
    pub sweep: String,
    /// Engine version that ran it ([`crate::ENGINE_VERSION`]).
    pub engine: String,
    /// The shard these results hold: `[I, N]` (`[0, 1]` for a whole or merged sweep).
    pub shard: [usize; 2],
    /// Number of cells of the whole sweep.
    pub cells_total: usize,
    /// The axes' fields, in order.
    pub fields: Vec<String>,
    /// The cells' results, by cell index.
    pub cells: Vec<CellResult>,
}

/// A shard `I/N` of a sweep: 0 ≤ `index` < `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which shard (0-based, as `JOB_COMPLETION_INDEX` of a Kubernetes Indexed Job).
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

impl Shard {
    /// The whole sweep (`0/1`).
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Parses `I/N` (0 ≤ I < N, N ≤ [`MAX_SWEEP_CELLS`]). Errors say what is wrong.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad = || format!("'{s}' is not a shard I/N with 0 ≤ I < N (e.g. 0/4)");
        let (i, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count || count > MAX_SWEEP_CELLS {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The cells of this shard among `len`: `index, index + count, …`.
    pub fn cells(&self, len: usize) -> impl Iterator<Item = usize> {
        (self.index..len).step_by(self.count)
    }
}

impl Sweep {
    /// Parses a sweep file's JSON and checks its shape: at least one value per axis, no field twice, at most
    /// [`MAX_SWEEP_CELLS`] cells, the base scenario an object or a link. Errors name the field (`axes[1].values`).
    pub fn parse(text: &str) -> Result<Sweep, FieldError> {
        let fe = |field: &str, message: String| FieldError {
            field: field.to_string(),
            message,
        };
        if text.len() > MAX_SWEEP_BYTES {
            return Err(fe(
                "sweep",
                format!("the sweep file is larger than {MAX_SWEEP_BYTES} bytes"),
            ));
        }
        let sweep: Sweep = serde_json::from_str(text).map_err(|e| {
            fe(
                "sweep",
                format!(
                    "not a sweep file (line {}, column {}): {e}",
                    e.line(),
                    e.column()
                ),
            )
        })?;
        if !(sweep.scenario.is_object() || sweep.scenario.is_string()) {
            return Err(fe(
                "scenario",
                "must be a scenario object or a share link string".into(),
            ));
        }
        let mut cells: usize = 1;
        for (k, a) in sweep.axes.iter().enumerate() {
            let path = path_of(&a.field).map_err(|m| fe(&format!("axes[{k}].field"), m))?;
            if sweep.axes[..k].iter().any(|b| b.field == a.field) {
                return Err(fe(
                    &format!("axes[{k}].field"),
                    format!("'{}' is already an axis", a.field),
                ));
            }
            if path[0] == "v" || path[0] == "engine" {
                return Err(fe(
                    &format!("axes[{k}].field"),
                    format!("'{}' cannot be swept", a.field),
                ));
            }
            if a.values.is_empty() {
                return Err(fe(
                    &format!("axes[{k}].values"),
                    "needs at least one value".into(),
                ));
            }
            cells = cells
                .checked_mul(a.values.len())
                .filter(|&c| c <= MAX_SWEEP_CELLS)
                .ok_or_else(|| {
                    fe(
                        "axes",
                        format!("the sweep has more than {MAX_SWEEP_CELLS} cells"),
                    )
                })?;
        }
        Ok(sweep)
    }

    /// Reads the policy scripts the base scenario names by file (issue 31): an entry of the `scripts` of
    /// `placement`, `oversub`, `admission`, `lifetime` or `era` with `"source_file": PATH` instead of `"source"` gets the text
    /// `read(PATH)` as its source (the CLI reads PATH relative to the sweep file), so every cell runs the
    /// script as a row `script:NAME` and its link carries the source; the sweep's [`Sweep::id`] then covers
    /// the text. Errors name the entry (`scenario.admission.scripts[0].source_file`) and `read`'s message.
    pub fn read_script_files(
        &mut self,
        read: impl Fn(&str) -> Result<String, String>,
    ) -> Result<(), FieldError> {
        for model in ["placement", "oversub", "admission", "lifetime", "era"] {
            let Some(Value::Array(list)) = self
                .scenario
                .get_mut(model)
                .and_then(|m| m.get_mut("scripts"))
            else {
                continue;
            };
            for (k, entry) in list.iter_mut().enumerate() {
                let Some(obj) = entry.as_object_mut() else {
                    continue;
                };
                let Some(path) = obj.remove("source_file") else {
                    continue;
                };
                let field = format!("scenario.{model}.scripts[{k}].source_file");
                let fe = |message: String| FieldError {
                    field: field.clone(),
                    message,
                };
                let path = path
                    .as_str()
                    .ok_or_else(|| fe("a file path (a string) is needed".into()))?;
                if obj.contains_key("source") {
                    return Err(fe("give either source or source_file, not both".into()));
                }
                obj.insert("source".into(), Value::String(read(path).map_err(fe)?));
            }
        }
        Ok(())
    }

    /// Number of cells: the product of the axes' lengths (1 without axes).
    pub fn len(&self) -> usize {
        self.axes.iter().map(|a| a.values.len()).product()
    }

    /// Whether the sweep has no cell (never, once parsed).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The fields of the axes, in order.
    pub fn fields(&self) -> Vec<String> {
        self.axes.iter().map(|a| a.field.clone()).collect()
    }

    /// Identifies the sweep: the hex SHA-256 of its canonical JSON (keys sorted, no spaces), so shards of the
    /// same sweep agree and shards of different sweeps are refused by [`merge`].
    pub fn id(&self) -> String {
        use sha2::{Digest, Sha256};
        let text = serde_json::to_string(self).unwrap_or_default();
        Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The base scenario as a full JSON object: a link is decoded, an object merged onto the defaults.
    fn base(&self) -> Result<Value, FieldError> {
        let sc = match &self.scenario {
            Value::String(link) => Scenario::from_link(link),
            v => Scenario::from_json(&v.to_string()),
        }
        .map_err(|e| FieldError {
            field: "scenario".into(),
            message: e.to_string(),
        })?;
        serde_json::to_value(&sc).map_err(|e| FieldError {
            field: "scenario".into(),
            message: e.to_string(),
        })
    }

    /// Cell `index` (< [`Sweep::len`]): the base scenario with each axis' value set, validated. Errors name
    /// the axis value (`axes[k].values[j]`) and the scenario's complaint.
    pub fn cell(&self, index: usize) -> Result<Cell, FieldError> {
        self.cell_on(&self.base()?, index)
    }

    /// [`Sweep::cell`] on the base scenario's JSON `base` (decoded once for many cells).
    fn cell_on(&self, base: &Value, index: usize) -> Result<Cell, FieldError> {
        let mut json = base.clone();
        let picks = self.picks(index);
        let mut values = Vec::with_capacity(self.axes.len());
        for (k, (a, &j)) in self.axes.iter().zip(&picks).enumerate() {
            let v = a.values[j].clone();
            let at = format!("axes[{k}].values[{j}]");
            let path = path_of(&a.field).map_err(|m| FieldError {
                field: format!("axes[{k}].field"),
                message: m,
            })?;
            set_path(&mut json, &path, v.clone()).map_err(|m| FieldError {
                field: at.clone(),
                message: m,
            })?;
            values.push(v);
        }
        let label = || {
            self.axes
                .iter()
                .zip(&picks)
                .enumerate()
                .map(|(k, (a, j))| {
                    format!("axes[{k}].values[{j}] ({} = {})", a.field, a.values[*j])
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let scenario = Scenario::from_json(&json.to_string()).map_err(|e| FieldError {
            field: format!("cell {index}"),
            message: format!("{}: {e}", label()),
        })?;
        if let Err(errs) = scenario.validate() {
            return Err(FieldError {
                field: format!("cell {index}"),
                message: format!("{}: {}", label(), errs[0]),
            });
        }
        Ok(Cell {
            index,
            values,
            scenario,
        })
    }

    /// Every cell, checked before anything runs (so that a shard never fails half way on a bad value).
    pub fn cells(&self) -> Result<Vec<Cell>, FieldError> {
        let base = self.base()?;
        (0..self.len()).map(|i| self.cell_on(&base, i)).collect()
    }

    /// The value index of each axis for cell `index` (row-major, the last axis fastest).
    fn picks(&self, mut index: usize) -> Vec<usize> {
        let mut out = vec![0; self.axes.len()];
        for (k, a) in self.axes.iter().enumerate().rev() {
            out[k] = index % a.values.len();
            index /= a.values.len();
        }
        out
    }

    /// Empty results of shard `shard` of this sweep, to be filled with [`CellResult`]s.
    pub fn results(&self, shard: Shard) -> SweepResults {
        SweepResults {
            sweep: self.id(),
            engine: crate::ENGINE_VERSION.to_string(),
            shard: [shard.index, shard.count],
            cells_total: self.len(),
            fields: self.fields(),
            cells: Vec::new(),
        }
    }
}

impl SweepResults {
    /// The results file's text (`results.json`, `shard-I-of-N.json`): compact JSON and a newline, numbers in
    /// their shortest exact form, so equal results give equal bytes.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default() + "\n"
    }
}

/// The results of the whole sweep from the reports of its cells (each the JSON text `packlab run` prints, in
/// cell order), as the playground assembles them: identical to `packlab sweep`'s. Errors: a report count
/// other than the cells', a report that is not JSON, a cell that does not validate.
pub fn whole_results(sweep: &Sweep, reports: &[String]) -> Result<SweepResults, FieldError> {
    if reports.len() != sweep.len() {
        return Err(FieldError {
            field: "reports".into(),
            message: format!("{} reports for {} cells", reports.len(), sweep.len()),
        });
    }
    let mut r = sweep.results(Shard::WHOLE);
    for (i, text) in reports.iter().enumerate() {
        let cell = sweep.cell(i)?;
        let report = serde_json::from_str(text).map_err(|e| FieldError {
            field: format!("reports[{i}]"),
            message: format!("not JSON: {e}"),
        })?;
        r.cells.push(CellResult::new(&cell, report));
    }
    Ok(r)
}

impl CellResult {
    /// The result of `cell` with its run's `report`.
    pub fn new(cell: &Cell, report: Value) -> CellResult {
        CellResult {
            cell: cell.index,
            values: cell.values.clone(),
            link: cell.scenario.to_link(),
            report,
        }
    }
}

/// A dotted field path split into its keys. Errors: an empty key.
fn path_of(field: &str) -> Result<Vec<&str>, String> {
    let keys: Vec<&str> = field.split('.').collect();
    if keys.iter().any(|k| k.trim().is_empty()) {
        return Err(format!(
            "'{field}' is not a dotted field path (e.g. placement.capacity)"
        ));
    }
    Ok(keys)
}

/// Sets `path` in the JSON object `json` to `v`, creating missing objects on the way. Errors: a key on the
/// way that holds something other than an object.
fn set_path(json: &mut Value, path: &[&str], v: Value) -> Result<(), String> {
    let mut at = json;
    for (d, key) in path.iter().enumerate() {
        let Value::Object(map) = at else {
            return Err(format!("'{}' is not an object", path[..d].join(".")));
        };
        if d + 1 == path.len() {
            map.insert(key.to_string(), v);
            return Ok(());
        }
        at = map
            .entry(key.to_string())
            .or_insert_with(|| Value::Object(Default::default()));
    }
    Ok(())
}

/// Merges the results of the shards of one sweep into the results of the whole sweep (shard `[0, 1]`, cells
/// by index), identical to the unsharded run's. Errors: no shards, shards of different sweeps or engines or
/// shard counts, a shard missing or given twice, a cell missing or given twice.
pub fn merge(shards: Vec<SweepResults>) -> Result<SweepResults, String> {
    let first = shards.first().ok_or("no shard results to merge")?;
    let first_shard = first.shard[0];
    let (sweep, engine, count) = (first.sweep.clone(), first.engine.clone(), first.shard[1]);
    let (total, fields) = (first.cells_total, first.fields.clone());
    let mut seen = vec![false; count];
    let mut cells: Vec<Option<CellResult>> = vec![None; total];
    for s in shards {
        if s.sweep != sweep || s.fields != fields || s.cells_total != total {
            return Err(format!(
                "shard {}/{} is of another sweep ({}) than shard {}/{count} ({sweep})",
                s.shard[0], s.shard[1], s.sweep, first_shard
            ));
        }
        if s.engine != engine {
            return Err(format!(
                "shard {}/{} was run by engine {}, another by {engine}: run every shard with one engine",
                s.shard[0], s.shard[1], s.engine
            ));
        }
        if s.shard[1] != count || s.shard[0] >= count {
            return Err(format!(
                "shard {}/{} does not belong to a sweep in {count} shards",
                s.shard[0], s.shard[1]
            ));
        }
        if std::mem::replace(&mut seen[s.shard[0]], true) {
            return Err(format!("shard {}/{count} is given twice", s.shard[0]));
        }
        for c in s.cells {
            let i = c.cell;
            let slot = cells
                .get_mut(i)
                .ok_or_else(|| format!("cell {i} is not a cell of the sweep (it has {total})"))?;
            if slot.replace(c).is_some() {
                return Err(format!("cell {i} is given twice"));
            }
        }
    }
    if let Some(k) = seen.iter().position(|s| !s) {
        return Err(format!("shard {k}/{count} is missing"));
    }
    let cells = cells
        .into_iter()
        .enumerate()
        .map(|(i, c)| c.ok_or_else(|| format!("cell {i} is missing from its shard")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SweepResults {
        sweep,
        engine,
        shard: [0, 1],
        cells_total: total,
        fields,
        cells,
    })
}

/// The results in long form as CSV: a header `cell,<axis fields…>,path,value`, then one row per number,
/// string or boolean of each cell's report, `path` its dotted location (array items by index, e.g.
/// `arms.0.threshold`), in the report's order. Numbers are written as JSON writes them (shortest exact
/// form); fields are quoted where CSV needs it.
pub fn to_csv(r: &SweepResults) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut head = vec!["cell".to_string()];
    head.extend(r.fields.iter().cloned());
    head.extend(["path".to_string(), "value".to_string()]);
    let _ = w.write_record(&head);
    let mut leaves = Vec::new();
    for c in &r.cells {
        leaves.clear();
        flatten(&c.report, &mut String::new(), &mut leaves);
        let lead: Vec<String> = std::iter::once(c.cell.to_string())
            .chain(c.values.iter().map(scalar))
            .collect();
        for (path, v) in &leaves {
            let mut row = lead.clone();
            row.push(path.clone());
            row.push(v.clone());
            let _ = w.write_record(&row);
        }
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// A JSON value as a CSV field: strings bare, anything else as JSON.
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// The scalar leaves of `v` with their dotted paths (nulls included as empty fields).
fn flatten(v: &Value, path: &mut String, out: &mut Vec<(String, String)>) {
    let mut child = |key: &str, v: &Value, path: &mut String| {
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
        flatten(v, path, out);
        path.truncate(len);
    };
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                child(k, x, path);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                child(&i.to_string(), x, path);
            }
        }
        Value::Null => out.push((path.clone(), String::new())),
        v => out.push((path.clone(), scalar(v))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(text: &str) -> Sweep {
        Sweep::parse(text).unwrap()
    }

    #[test]
    fn cells_are_row_major_and_set_the_fields() {
        let s = sweep(
            r#"{"scenario":{"model":"placement","placement":{"rule":"ff"}},
                "axes":[{"field":"placement.capacity","values":[0.5,2]},{"field":"seed","values":[7,8,9]}]}"#,
        );
        assert_eq!(s.len(), 6);
        let cells = s.cells().unwrap();
        // cell 4 = (capacity index 1, seed index 1): 4 = 1·3 + 1
        assert_eq!(
            cells[4].values,
            vec![serde_json::json!(2), serde_json::json!(8)]
        );
        assert_eq!(cells[4].scenario.seed, 8);
        assert_eq!(cells[4].scenario.placement.capacity, 2.0);
        // the base's own field stays, the others take their defaults
        assert_eq!(
            serde_json::to_value(cells[0].scenario.placement.rule).unwrap(),
            "ff"
        );
        assert_eq!(cells[0].scenario.placement.capacity, 0.5);
        assert_eq!(cells[2].scenario.seed, 9);
    }

    #[test]
    fn shards_partition_the_cells() {
        let sh = Shard::parse("1/3").unwrap();
        assert_eq!(sh.cells(8).collect::<Vec<_>>(), vec![1, 4, 7]);
        let mut all: Vec<usize> = (0..3)
            .flat_map(|i| Shard { index: i, count: 3 }.cells(8))
            .collect();
        all.sort();
        assert_eq!(all, (0..8).collect::<Vec<_>>());
        for bad in ["3/3", "1", "a/2", "0/0", "-1/2"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bad_sweeps_name_the_field() {
        let e =
            Sweep::parse(r#"{"scenario":{},"axes":[{"field":"seed","values":[]}]}"#).unwrap_err();
        assert_eq!(e.field, "axes[0].values");
        let e = Sweep::parse(
            r#"{"scenario":{},"axes":[{"field":"seed","values":[1]},{"field":"seed","values":[2]}]}"#,
        )
        .unwrap_err();
        assert_eq!(e.field, "axes[1].field");
        let e =
            Sweep::parse(r#"{"scenario":{},"axes":[{"field":"a..b","values":[1]}]}"#).unwrap_err();
        assert_eq!(e.field, "axes[0].field");
        let e = Sweep::parse(r#"{"scenario":3}"#).unwrap_err();
        assert_eq!(e.field, "scenario");
        let e = Sweep::parse(r#"{"scenario":{},"axis":[]}"#).unwrap_err();
        assert_eq!(e.field, "sweep");
        assert!(e.message.contains("axis"), "{}", e.message);
        // 1000 × 1000 cells > MAX_SWEEP_CELLS
        let vals: Vec<u32> = (0..1000).collect();
        let text = serde_json::json!({"scenario":{},"axes":[{"field":"seed","values":vals},{"field":"placement.capacity","values":vals}]});
        assert_eq!(Sweep::parse(&text.to_string()).unwrap_err().field, "axes");
        // a value out of range: the cell names the axis value and the scenario field
        let s = sweep(r#"{"scenario":{},"axes":[{"field":"placement.capacity","values":[1,-3]}]}"#);
        assert!(s.cell(0).is_ok());
        let e = s.cells().unwrap_err();
        assert_eq!(e.field, "cell 1");
        assert!(
            e.message.contains("axes[0].values[1]") && e.message.contains("placement.capacity"),
            "{}",
            e.message
        );
        // an unknown field
        let s = sweep(r#"{"scenario":{},"axes":[{"field":"placement.capacty","values":[1]}]}"#);
        assert!(s.cell(0).unwrap_err().message.contains("capacty"));
        // through a non-object
        let s = sweep(r#"{"scenario":{},"axes":[{"field":"seed.x","values":[1]}]}"#);
        assert_eq!(s.cell(0).unwrap_err().field, "axes[0].values[0]");
    }

    fn result(cell: usize, x: f64) -> CellResult {
        CellResult {
            cell,
            values: vec![serde_json::json!(cell)],
            link: String::new(),
            report: serde_json::json!({"a": x, "rows": [{"p": "bf", "q": null}]}),
        }
    }

    fn shard(i: usize, n: usize, total: usize) -> SweepResults {
        SweepResults {
            sweep: "s".into(),
            engine: "e".into(),
            shard: [i, n],
            cells_total: total,
            fields: vec!["seed".into()],
            cells: Shard { index: i, count: n }
                .cells(total)
                .map(|c| result(c, c as f64 * 0.1))
                .collect(),
        }
    }

    #[test]
    fn merge_puts_cells_in_order_and_refuses_gaps() {
        let whole = merge(vec![shard(0, 1, 5)]).unwrap();
        let merged = merge(vec![shard(2, 3, 5), shard(0, 3, 5), shard(1, 3, 5)]).unwrap();
        assert_eq!(merged, whole);
        assert_eq!(
            merged.cells[3].report["a"],
            serde_json::json!(0.30000000000000004)
        );
        assert!(merge(vec![shard(0, 3, 5), shard(2, 3, 5)])
            .unwrap_err()
            .contains("shard 1/3 is missing"));
        assert!(merge(vec![shard(0, 2, 5), shard(0, 2, 5), shard(1, 2, 5)])
            .unwrap_err()
            .contains("twice"));
        let mut other = shard(1, 2, 5);
        other.sweep = "t".into();
        assert!(merge(vec![shard(0, 2, 5), other])
            .unwrap_err()
            .contains("another sweep"));
        let mut gap = shard(1, 2, 5);
        gap.cells.pop();
        assert!(merge(vec![shard(0, 2, 5), gap])
            .unwrap_err()
            .contains("cell 3 is missing"));
        assert!(merge(vec![]).is_err());
    }

    #[test]
    fn csv_is_long_form() {
        let r = merge(vec![shard(0, 1, 2)]).unwrap();
        assert_eq!(
            to_csv(&r),
            "cell,seed,path,value\n0,0,a,0.0\n0,0,rows.0.p,bf\n0,0,rows.0.q,\n\
             1,1,a,0.1\n1,1,rows.0.p,bf\n1,1,rows.0.q,\n"
        );
    }
}
