//! The lifetime model's charts (seed 003, ALGORITHMS.md §5.8, §5.9), on the shared frame ([`crate::chart`]):
//! `lifetime.empty`, the fraction of empty hosts over time, one line per policy, the warm-up shaded
//! (App. F: it is simulated but not measured); `lifetime.timeline`, every host hour by hour; and
//! `lifetime.accuracy`, the accuracy frontier of E3.2 (Δ empty hosts against the accuracy A of the App. G.1
//! noise model, one line per policy, the oracle's Δ dashed).

use super::params::Policy;
use crate::chart::*;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::{Deserialize, Serialize};

crate::chart::chart_table! {
    /// `lifetime.empty`: data = the report's `results` (or any `[{ policy, empty_series, empty_hosts? }]`),
    /// opts = [`EmptyChartOptions`] (`{ warmup_h, step_h, title, scale }`, null = defaults).
    "lifetime.empty" => draw_empty_hosts(Vec<EmptyCurve>, EmptyChartOptions, "empty-host curves");
    /// `lifetime.timeline`: data = the answer of the run operation `timeline` ([`TimelineChart`]), opts = the
    /// same options.
    "lifetime.timeline" => draw_timeline(TimelineChart, EmptyChartOptions, "host timeline");
    /// `lifetime.accuracy`: data = `[{ policy, accuracy: [A…], delta_pp: [Δ…], oracle_pp? }]`
    /// ([`AccuracyCurve`]: E3.2, the accuracy frontier), opts = `{ title, scale }`.
    "lifetime.accuracy" => draw_accuracy(Vec<AccuracyCurve>, AccuracyChartOptions, "accuracy frontier");
}

/// One policy's line: field names match the engine's [`super::sampling::PolicyResult`], so the page hands over the
/// report's `results` as they are (other fields are ignored).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct EmptyCurve {
    /// The policy's name (`best-fit`, `la-binary`, `nilas`, `lava`; any other string is drawn grey under its
    /// own name).
    pub policy: String,
    /// Fraction of hosts without VMs (in [0, 1]), averaged per step from time 0 (warm-up included).
    pub empty_series: Vec<f64>,
    /// The time average over the measured window (fraction), shown in the legend when given.
    #[serde(default)]
    pub empty_hosts: Option<f64>,
}

/// Longest step and warm-up the chart accepts, hours (longer ones fall back to the defaults).
const MAX_HOURS: f64 = 1e6;

/// Options of the `lifetime.empty` chart.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct EmptyChartOptions {
    /// Warm-up, hours: shaded from time 0 (nothing shaded when absent, 0 or over 10⁶).
    #[serde(default)]
    pub warmup_h: Option<f64>,
    /// Length of one series step, hours (1 when absent or not in (0, 10⁶]: [`super::sampling::PolicyResult::empty_series`]
    /// is hourly).
    #[serde(default)]
    pub step_h: Option<f64>,
    /// Caption above the plot.
    #[serde(default)]
    pub title: Option<String>,
    /// Device pixel ratio (1 when absent).
    #[serde(default)]
    pub scale: Option<f64>,
}

/// The colour of a policy's line (and of its swatch in the page's table): the shared series colour of its
/// place in [`Policy::ALL`], so a policy keeps its colour whichever others are shown; a user's `script:NAME`
/// in the script colour (issue 31); grey for unknown names.
pub fn policy_color(name: &str) -> RGBColor {
    if name.starts_with("script:") {
        return crate::chart::SCRIPT;
    }
    Policy::ALL
        .iter()
        .position(|p| p.name() == name)
        .map(|i| ARM_COLORS[i % ARM_COLORS.len()])
        .unwrap_or(OTHER)
}

/// The name a policy has in the paper (`best fit`, `LA-Binary`, `NILAS`, `LAVA`); unknown names as given.
pub fn policy_title(name: &str) -> String {
    Policy::parse(name).map_or_else(|_| name.to_string(), |p| p.title().to_string())
}

/// Draws the empty-host fraction over time: x = time in days from the start of the pool's window, y = empty
/// hosts in percent of the pool (0 up to the largest value, rounded up to 10%), one line per curve in the
/// policy's colour ([`policy_color`]), the warm-up shaded and labelled. Points sit at the middle of their
/// step; non-finite values are skipped. Errors: a backend failure.
pub fn draw_empty_hosts<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    curves: &[EmptyCurve],
    opts: &EmptyChartOptions,
) -> Result<(), ChartError> {
    let dp = blank(area, opts.scale)?;
    // lengths beyond 10⁶ h (the engine's own bound on the warm-up) fall back to the defaults
    let step_h = opts
        .step_h
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= MAX_HOURS)
        .unwrap_or(1.0);
    let steps = curves
        .iter()
        .map(|c| c.empty_series.len())
        .max()
        .unwrap_or(0);
    let warm_h = opts
        .warmup_h
        .filter(|w| w.is_finite() && *w > 0.0 && *w <= MAX_HOURS)
        .unwrap_or(0.0);
    let x_hi = ((steps as f64 * step_h).max(warm_h) / 24.0).max(1.0 / 24.0);
    if !x_hi.is_finite() {
        return Err(ChartError("empty hosts: the time axis is too long".into()));
    }
    let y_max = bounds(curves.iter().flat_map(|c| c.empty_series.iter().copied()))
        .map(|b| b.1)
        .unwrap_or(0.0);
    let y_hi = ((y_max.clamp(0.0, 1.0) * 10.0).ceil() / 10.0).max(0.1);

    let mut builder = framed(area, dp, opts.title.as_deref());
    let mut chart = builder
        .build_cartesian_2d(crate::chart::span(0.0, x_hi), crate::chart::span(0.0, y_hi))
        .map_err(err)?;
    let x_fmt = |v: &f64| fmt_num(*v);
    let y_fmt = |v: &f64| format!("{:.0}%", v * 100.0);
    chart
        .configure_mesh()
        .x_desc("time (days since the window's start)")
        .y_desc("empty hosts  (% of the pool; more is better)")
        .draw_labelled(dp, (10, 6), &x_fmt, &y_fmt)?;

    if warm_h > 0.0 {
        let w = (warm_h / 24.0).min(x_hi);
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(0.0, 0.0), (w, y_hi)],
                INK.mix(0.07).filled(),
            )))
            .map_err(err)?;
        // the long label needs ~170 px of band and goes at its top; a phone-wide chart gets the short one at the
        // band's foot, clear of the legend (upper right), which reaches over the band on a narrow chart
        let band_px =
            chart.plotting_area().dim_in_pixel().0 as f64 * w / x_hi.max(f64::MIN_POSITIVE);
        let (label, at, dy, vpos) = if band_px >= dp.px(180.0) as f64 {
            (
                format!("warm-up {} h (not measured)", fmt_num(warm_h)),
                y_hi,
                dp.pxi(6.0),
                VPos::Top,
            )
        } else {
            ("warm-up".to_string(), 0.0, -dp.pxi(6.0), VPos::Bottom)
        };
        chart
            .draw_series(std::iter::once(
                EmptyElement::at((w, at))
                    + Text::new(
                        label,
                        (-dp.pxi(6.0), dy),
                        (FONT, dp.px(11.0))
                            .into_font()
                            .color(&INK.mix(0.7))
                            .pos(Pos::new(HPos::Right, vpos)),
                    ),
            ))
            .map_err(err)?;
    }

    for c in curves {
        let color = policy_color(&c.policy);
        let pts: Vec<(f64, f64)> = c
            .empty_series
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_finite())
            .map(|(i, v)| ((i as f64 + 0.5) * step_h / 24.0, *v))
            .collect();
        let label = match c.empty_hosts.filter(|v| v.is_finite()) {
            Some(m) => format!("{}: {:.1}% measured", policy_title(&c.policy), 100.0 * m),
            None => policy_title(&c.policy),
        };
        chart
            .draw_series(LineSeries::new(pts, color.stroke_width(dp.px(2.0))))
            .map_err(err)?
            .label(label)
            .legend(move |(x, y)| {
                PathElement::new(
                    vec![(x, y), (x + dp.pxi(18.0), y)],
                    color.stroke_width(dp.px(2.0)),
                )
            });
    }
    if !curves.is_empty() {
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight, dp)?;
    }
    area.present().map_err(err)?;
    Ok(())
}

/// The `lifetime.empty` chart as an SVG document of `width` × `height` pixels.
pub fn empty_hosts_svg(
    curves: &[EmptyCurve],
    opts: &EmptyChartOptions,
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    render_svg(width, height, |area| draw_empty_hosts(area, curves, opts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_hosts_chart_renders_every_policy_and_the_warm_up() {
        let curve = |p: &str, v: f64| EmptyCurve {
            policy: p.into(),
            empty_series: (0..72).map(|i| if i < 3 { 1.0 } else { v }).collect(),
            empty_hosts: Some(v),
        };
        let curves = vec![
            curve("best-fit", 0.3),
            curve("lava", 0.35),
            curve("custom", f64::NAN),
        ];
        let svg = empty_hosts_svg(
            &curves,
            &EmptyChartOptions {
                warmup_h: Some(48.0),
                title: Some("pool".into()),
                ..Default::default()
            },
            800,
            500,
        )
        .unwrap();
        for s in [
            "best fit: 30.0% measured",
            "LAVA: 35.0% measured",
            "custom",
            "warm-up 48 h",
            "100%",
        ] {
            assert!(svg.contains(s), "{s}");
        }
        // the policies' colours: best fit and LAVA as in the shared palette, unknown names grey
        assert_eq!(policy_color("best-fit"), ARM_COLORS[0]);
        assert_eq!(policy_color("lava"), ARM_COLORS[3]);
        assert_eq!(policy_color("x"), OTHER);
        assert!(svg.contains("#CC79A7") && svg.contains("#0072B2"));
        // nothing to draw, or bad options: still a chart, never a panic
        assert!(empty_hosts_svg(&[], &EmptyChartOptions::default(), 400, 300).is_ok());
        let odd = EmptyChartOptions {
            warmup_h: Some(f64::INFINITY),
            step_h: Some(-1.0),
            scale: Some(0.0),
            ..Default::default()
        };
        assert!(empty_hosts_svg(&curves, &odd, 400, 300).is_ok());
        let huge = EmptyChartOptions {
            warmup_h: Some(1e300),
            step_h: Some(1e300),
            ..Default::default()
        };
        assert!(empty_hosts_svg(&curves, &huge, 400, 300).is_ok());
    }
}

/// One policy's accuracy frontier (data of `lifetime.accuracy`, E3.2; ALGORITHMS.md §5.9): its Δ empty hosts
/// against best fit on the same arrivals ([`super::sampling::PolicyResult::empty_hosts_pp_vs_best_fit`], percentage
/// points) at each accuracy `A` of the noisy predictor (§5.2, App. G.1), and with the oracle.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AccuracyCurve {
    /// The policy's name (`la-binary`, `nilas`, `lava`; `best-fit` is the zero line; any other name grey).
    pub policy: String,
    /// The accuracy `A` of each point, in [0, 1] (drawn in the order given).
    pub accuracy: Vec<f64>,
    /// Δ empty hosts vs best fit at each `A`, pp (as many as `accuracy`; non-finite points are skipped).
    pub delta_pp: Vec<f64>,
    /// The policy's Δ with the oracle predictor, pp: a dashed line across the chart, when given.
    #[serde(default)]
    pub oracle_pp: Option<f64>,
}

/// Options of the `lifetime.accuracy` chart.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AccuracyChartOptions {
    /// Caption above the plot.
    #[serde(default)]
    pub title: Option<String>,
    /// Device pixel ratio (1 when absent).
    #[serde(default)]
    pub scale: Option<f64>,
}

/// `+1.23` / `-0.40` / `0`: a difference in percentage points as the tables write it.
fn signed_pp(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else {
        format!("{v:+.2}")
    }
}

/// Draws the accuracy frontier (E3.2): x = the accuracy `A` of the noisy predictor, y = Δ empty hosts vs
/// best fit in percentage points (best fit's own line is 0, drawn solid in its colour), one line with dots
/// per curve in the policy's colour ([`policy_color`]) and, when a curve carries it, the policy's Δ with the
/// oracle as a dashed line in the same colour (the oracle is not `A = 1`: at `A = 1` every prediction is still
/// off by N(0, 0.001²) decades and repredicted under the log-normal of §5.2). Errors: a backend failure.
pub fn draw_accuracy<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    curves: &[AccuracyCurve],
    opts: &AccuracyChartOptions,
) -> Result<(), ChartError> {
    let dp = blank(area, opts.scale)?;
    let xs = curves.iter().flat_map(|c| c.accuracy.iter().copied());
    let (x_lo, x_hi) = padded_range(bounds(xs).unwrap_or((0.5, 1.0)), 0.1, 0.05);
    let ys = curves
        .iter()
        .flat_map(|c| c.delta_pp.iter().copied().chain(c.oracle_pp))
        .chain(std::iter::once(0.0));
    let (lo, hi) = bounds(ys).unwrap_or((0.0, 0.0));
    let (y_lo, y_hi) = padded_range((lo, hi), 1.0, 0.5);
    let mut builder = framed(area, dp, opts.title.as_deref());
    let mut chart = builder
        .build_cartesian_2d(span(x_lo, x_hi), span(y_lo, y_hi))
        .map_err(err)?;
    let x_fmt = |v: &f64| fmt_num(*v);
    let y_fmt = |v: &f64| fmt_num(*v);
    chart
        .configure_mesh()
        .x_desc("prediction accuracy A (App. G.1 noise model)")
        .y_desc("Δ empty hosts vs best fit  (pp; more is better)")
        .draw_labelled(dp, (8, 8), &x_fmt, &y_fmt)?;
    let (xa, xb) = (span(x_lo, x_hi).start, span(x_lo, x_hi).end);
    let base = policy_color("best-fit");
    chart
        .draw_series(LineSeries::new(
            vec![(xa, 0.0), (xb, 0.0)],
            base.stroke_width(dp.px(1.5)),
        ))
        .map_err(err)?
        .label("best fit (the baseline: 0)")
        .legend(move |(x, y)| {
            PathElement::new(
                vec![(x, y), (x + dp.pxi(18.0), y)],
                base.stroke_width(dp.px(1.5)),
            )
        });
    for c in curves.iter().filter(|c| c.policy != "best-fit") {
        let color = policy_color(&c.policy);
        let pts: Vec<(f64, f64)> = c
            .accuracy
            .iter()
            .zip(&c.delta_pp)
            .filter(|(a, d)| a.is_finite() && d.is_finite())
            .map(|(a, d)| (*a, *d))
            .collect();
        chart
            .draw_series(LineSeries::new(
                pts.iter().copied(),
                color.stroke_width(dp.px(2.0)),
            ))
            .map_err(err)?
            .label(policy_title(&c.policy))
            .legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(
                        vec![(0, 0), (dp.pxi(18.0), 0)],
                        color.stroke_width(dp.px(2.0)),
                    )
                    + Circle::new((dp.pxi(9.0), 0), dp.px(3.5), color.filled())
            });
        let r = dp.px(3.5);
        chart
            .draw_series(pts.iter().map(|p| Circle::new(*p, r, color.filled())))
            .map_err(err)?;
        if let Some(o) = c.oracle_pp.filter(|v| v.is_finite()) {
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(xa, o), (xb, o)],
                    dp.px(7.0),
                    dp.px(4.0),
                    color.mix(0.8).stroke_width(dp.px(1.5)),
                ))
                .map_err(err)?
                .label(format!(
                    "{} with the oracle: {} pp",
                    policy_title(&c.policy),
                    signed_pp(o)
                ))
                .legend(move |(x, y)| {
                    // two dashes
                    let style = color.mix(0.8).stroke_width(dp.px(1.5));
                    EmptyElement::at((x, y))
                        + PathElement::new(vec![(0, 0), (dp.pxi(7.0), 0)], style)
                        + PathElement::new(vec![(dp.pxi(11.0), 0), (dp.pxi(18.0), 0)], style)
                });
        }
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, dp)?;
    area.present().map_err(err)?;
    Ok(())
}

/// The `lifetime.accuracy` chart as an SVG document of `width` × `height` pixels.
pub fn accuracy_svg(
    curves: &[AccuracyCurve],
    opts: &AccuracyChartOptions,
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    render_svg(width, height, |area| draw_accuracy(area, curves, opts))
}

#[cfg(test)]
mod accuracy_tests {
    use super::*;

    fn curve(p: &str, d: &[f64], oracle: Option<f64>) -> AccuracyCurve {
        AccuracyCurve {
            policy: p.into(),
            accuracy: vec![0.5, 0.6, 0.7, 0.8, 0.9, 1.0][..d.len()].to_vec(),
            delta_pp: d.to_vec(),
            oracle_pp: oracle,
        }
    }

    #[test]
    fn accuracy_chart_draws_every_policy_its_oracle_and_the_baseline() {
        let curves = vec![
            curve("best-fit", &[0.0; 6], Some(0.0)),
            curve("nilas", &[0.77, 1.0, 1.35, 1.8, 2.07, 2.06], Some(2.68)),
            curve("lava", &[0.08, 0.5, 1.28, 1.5, 1.74, 3.18], Some(-0.4)),
        ];
        let svg = accuracy_svg(&curves, &AccuracyChartOptions::default(), 800, 500).unwrap();
        for s in [
            "best fit (the baseline: 0)",
            "NILAS with the oracle: +2.68 pp",
            "LAVA with the oracle: -0.40 pp",
            "prediction accuracy A",
        ] {
            assert!(svg.contains(s), "{s}");
        }
        // best fit is the zero line, not a curve of its own: no "best fit with the oracle"
        assert!(!svg.contains("best fit with the oracle"));
        // NILAS and LAVA in their shared colours (ARM_COLORS[2], [3])
        assert!(svg.contains("#009E73") && svg.contains("#CC79A7") && svg.contains("#0072B2"));
        // one dot per finite point: 12 points of NILAS and LAVA, drawn as circles, + 2 legend dots
        assert_eq!(svg.matches("<circle").count(), 12 + 2);
        // no data, NaNs, a single point, huge values or bad options: still a chart, never a panic
        assert!(accuracy_svg(&[], &AccuracyChartOptions::default(), 400, 300).is_ok());
        let odd = vec![
            curve("lava", &[f64::NAN, f64::INFINITY], Some(f64::NAN)),
            curve("x", &[1e300], None),
        ];
        let o = AccuracyChartOptions {
            scale: Some(-1.0),
            title: Some("t".into()),
        };
        assert!(accuracy_svg(&odd, &o, 400, 300).is_ok());
    }
}

/// Data of the `lifetime.timeline` chart: the answer of the run operation `timeline`
/// ([`super::experiment::TimelineView`]).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TimelineChart {
    /// The policy's name.
    pub policy: String,
    /// Warm-up, hours (shaded).
    #[serde(default)]
    pub warmup_h: f64,
    /// Hosts per row.
    pub hosts: usize,
    /// The hour of each row.
    pub hours: Vec<u32>,
    /// Row-major codes ([`super::sampling::Timeline`]).
    pub codes: Vec<u8>,
}

/// Most cells (hosts × hours) the timeline chart draws.
pub const MAX_TIMELINE_CELLS: usize = 20_000_000;

/// Colours of lifetime classes 1, 2, 3 and ≥ 4 (< 1 h, 1–10 h, 10–100 h, ≥ 100 h): blues for a host that
/// takes VMs (LAVA: OPEN), oranges for a LAVA host that is RECYCLING.
const OPEN_COLORS: [RGBColor; 4] = [
    RGBColor(198, 219, 239),
    RGBColor(107, 174, 214),
    RGBColor(33, 113, 181),
    RGBColor(8, 48, 107),
];
const RECYCLING_COLORS: [RGBColor; 4] = [
    RGBColor(253, 208, 162),
    RGBColor(253, 141, 60),
    RGBColor(217, 72, 1),
    RGBColor(127, 39, 4),
];
const MIGRATING_COLOR: RGBColor = RGBColor(117, 107, 177);

/// The colour of a timeline code (`None` for an empty host, drawn white).
fn timeline_color(code: u8) -> Option<RGBColor> {
    use super::sampling::{TL_EMPTY, TL_MIGRATING, TL_RECYCLING};
    let class = |c: u8| (c.clamp(1, 4) - 1) as usize;
    match code {
        TL_EMPTY => None,
        TL_MIGRATING => Some(MIGRATING_COLOR),
        c if c > TL_RECYCLING => Some(RECYCLING_COLORS[class(c - TL_RECYCLING)]),
        c => Some(OPEN_COLORS[class(c)]),
    }
}

/// Draws the host timeline: x = time in days, y = hosts (host 0 at the bottom), each host's row coloured hour
/// by hour by its lifetime class (blues: it takes VMs; LAVA: OPEN), oranges for a LAVA host that is
/// RECYCLING (it only takes VMs of shorter classes), purple while its VMs migrate away, white when empty; the
/// warm-up shaded; the legend's swatches are outlined (the white "empty" one included). A student sees LAVA fill the gaps of long-lived hosts with shorter VMs and hosts empty out
/// together. Errors: codes that do not match `hosts × hours`, more than [`MAX_TIMELINE_CELLS`], a backend
/// failure.
pub fn draw_timeline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &TimelineChart,
    opts: &EmptyChartOptions,
) -> Result<(), ChartError> {
    let dp = blank(area, opts.scale)?;
    let rows = t.hours.len();
    let cells = t
        .hosts
        .checked_mul(rows)
        .filter(|&n| n <= MAX_TIMELINE_CELLS);
    if cells != Some(t.codes.len()) {
        return Err(ChartError(format!(
            "timeline: {} codes for {} hosts × {} hours (at most {MAX_TIMELINE_CELLS} cells)",
            t.codes.len(),
            t.hosts,
            rows
        )));
    }
    // each row lasts until the next row's hour (one hour for the last)
    let end_of = |r: usize| -> f64 {
        match t.hours.get(r + 1) {
            Some(&h) if h > t.hours[r] => h as f64,
            _ => t.hours[r] as f64 + 1.0,
        }
    };
    let x_hi = if rows == 0 {
        1.0
    } else {
        end_of(rows - 1) / 24.0
    };
    let y_hi = t.hosts.max(1) as f64;
    let title = opts
        .title
        .clone()
        .unwrap_or_else(|| format!("hosts of {} over time", policy_title(&t.policy)));
    let mut builder = framed(area, dp, Some(&title));
    let mut chart = builder
        .build_cartesian_2d(span(0.0, x_hi), span(0.0, y_hi))
        .map_err(err)?;
    let x_fmt = |v: &f64| fmt_num(*v);
    let y_fmt = |v: &f64| fmt_num(*v);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("time (days since the window's start)")
        .y_desc("host")
        .draw_labelled(dp, (10, 6), &x_fmt, &y_fmt)?;
    // one rectangle per run of equal codes along a host's row
    let mut rects = Vec::new();
    for host in 0..t.hosts {
        let mut r = 0;
        while r < rows {
            let code = t.codes[r * t.hosts + host];
            let mut e = r + 1;
            while e < rows && t.codes[e * t.hosts + host] == code {
                e += 1;
            }
            if let Some(c) = timeline_color(code) {
                let (x0, x1) = (t.hours[r] as f64 / 24.0, end_of(e - 1) / 24.0);
                let y0 = host as f64;
                rects.push(Rectangle::new([(x0, y0), (x1, y0 + 1.0)], c.filled()));
            }
            r = e;
        }
    }
    chart.draw_series(rects).map_err(err)?;
    let warm_h = t.warmup_h;
    if warm_h.is_finite() && warm_h > 0.0 {
        let w = (warm_h / 24.0).min(x_hi);
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(0.0, 0.0), (w, y_hi)],
                WHITE.mix(0.45).filled(),
            )))
            .map_err(err)?;
    }
    let lava = t.policy == "lava";
    let mut legend: Vec<(String, RGBColor)> = ["< 1 h", "1–10 h", "10–100 h", "≥ 100 h"]
        .iter()
        .zip(OPEN_COLORS)
        .map(|(l, c)| {
            let what = if lava { "OPEN, class" } else { "longest VM" };
            (format!("{what} {l}"), c)
        })
        .collect();
    if lava {
        legend.push((
            "RECYCLING (same classes, light to dark)".into(),
            RECYCLING_COLORS[2],
        ));
    }
    if t.codes.contains(&super::sampling::TL_MIGRATING) {
        legend.push(("VMs migrating away".into(), MIGRATING_COLOR));
    }
    legend.push(("empty".into(), WHITE));
    for (label, c) in legend {
        chart
            .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())
            .map_err(err)?
            .label(label)
            .legend(move |(x, y)| {
                // every swatch is outlined, so the white "empty" one shows on the legend's white ground
                let corners = [(0, -dp.pxi(5.0)), (dp.pxi(14.0), dp.pxi(5.0))];
                EmptyElement::at((x, y))
                    + Rectangle::new(corners, ShapeStyle::from(c).filled())
                    + Rectangle::new(corners, INK.mix(0.55).stroke_width(dp.px(1.0)))
            });
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight, dp)?;
    area.present().map_err(err)?;
    Ok(())
}
