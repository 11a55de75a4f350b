//! Charts of the placement model (seed 002): the (m, q) frontier and the teaching view of one machine,
//! on the shared frame ([`crate::chart`]).
//!
//! - [`draw_frontier`]: x = normalized machines m, y = overflow frequency q on a log scale, one series per fit
//!   family, the Pareto front, the target ρ line. q = 0 cannot sit on a log axis: such points are drawn hollow
//!   on a dashed floor line one decade below the smallest positive value, labelled "q = 0".
//! - [`draw_machine`]: the teaching view, one machine's empirical total usage over E against the Gaussian
//!   the fit test assumed, with the capacity line and both overflow probabilities.

use super::instance::MachineView;
use crate::chart::*;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::{Deserialize, Serialize};

crate::chart::chart_table! {
    /// `placement.frontier`: data = the frontier's points (`[{ family, spec, m, q, pareto }]`), opts =
    /// `{ target_rho, highlight, title, scale }`, returns the layout `{ points: [[x, y]...], plot_area,
    /// zero_floor }` in backend pixels.
    "placement.frontier" => draw_frontier(Vec<ChartPoint>, FrontierChartOptions, "chart points");
    /// `placement.machine`: data = a [`MachineView`] (the run operation `machine`'s answer: `{ machine, totals,
    /// mean, sd, capacity, empirical_overflow, gaussian_overflow, items }`, usage in VM units), opts = `{ scale }`.
    "placement.machine" => draw_machine_view(MachineView, MachineViewOptions, "machine view");
}

/// One point of a frontier, as the chart needs it (field names match the engine's `FrontierPoint`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ChartPoint {
    /// Fit family: "gpa", "gpa-cal", "av", "perc", "cantelli", "max", "script" (any other string gets a grey series).
    pub family: String,
    /// Label of the point, e.g. "gpa:0.05".
    #[serde(default)]
    pub spec: String,
    /// Normalized machines.
    pub m: f64,
    /// Overflow frequency (0 allowed).
    pub q: f64,
    /// On the Pareto front (non-dominated in (m, q)).
    #[serde(default)]
    pub pareto: bool,
    /// A failed script's error (issue 31): such a point is not drawn.
    #[serde(default)]
    pub error: Option<String>,
}

/// Options of the frontier chart.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FrontierChartOptions {
    /// Target SLO ρ, drawn as a reference line when set.
    #[serde(default)]
    pub target_rho: Option<f64>,
    /// Spec of the point to ring (the packing shown in the teaching view).
    #[serde(default)]
    pub highlight: Option<String>,
    /// Caption above the plot.
    #[serde(default)]
    pub title: Option<String>,
    /// Device pixel ratio: sizes of text, markers and lines are multiplied by it (1 when absent).
    #[serde(default)]
    pub scale: Option<f64>,
}

/// Where each point landed (the shared [`Layout`]).
pub type FrontierLayout = Layout;

/// The teaching view of one machine.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MachineChart {
    /// Total usage of the machine at each evaluation sample (E).
    pub totals: Vec<f64>,
    /// Mean and s.d. of the Gaussian the fit test assumed (sums over the machine's items, from O).
    pub mean: f64,
    pub sd: f64,
    pub capacity: f64,
    /// Empirical overflow frequency over E and the Gaussian tail probability P(N(mean, sd²) > c).
    pub p_empirical: f64,
    pub p_gaussian: f64,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub scale: Option<f64>,
}

/// The series of the chart, in legend order, with their colours (colour-blind-safe Okabe–Ito palette).
pub const FAMILIES: [(&str, &str, RGBColor); 7] = [
    ("gpa", "GPA ρ", RGBColor(0, 114, 178)),
    (
        "gpa-cal",
        "calibrated GPA, target ρ",
        RGBColor(110, 50, 160),
    ),
    ("av", "av f", RGBColor(230, 159, 0)),
    ("perc", "perc p", RGBColor(0, 158, 115)),
    ("cantelli", "Cantelli b", RGBColor(204, 121, 167)),
    ("max", "max", RGBColor(86, 180, 233)),
    ("script", "your script", SCRIPT),
];
/// Colour of a family's series.
pub fn family_color(family: &str) -> RGBColor {
    FAMILIES
        .iter()
        .find(|f| f.0 == family)
        .map(|f| f.2)
        .unwrap_or(OTHER)
}

/// Draw a frontier chart into `area` (filled white first). Returns the pixel position of every point.
pub fn draw_frontier<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    points: &[ChartPoint],
    opts: &FrontierChartOptions,
) -> Result<FrontierLayout, ChartError> {
    let dp = blank(area, opts.scale)?;
    // a failed script's point has no (m, q): not drawn, and its layout position is off the canvas
    let points: Vec<ChartPoint> = points
        .iter()
        .map(|p| match p.error {
            Some(_) => ChartPoint {
                m: f64::NAN,
                q: f64::NAN,
                pareto: false,
                ..p.clone()
            },
            None => p.clone(),
        })
        .collect();
    let points = &points[..];

    // x range: the points' m, padded; y range: decades around the positive q and the target
    let (x_lo, x_hi) = padded_range(
        bounds(points.iter().map(|p| p.m)).unwrap_or((1.0, 1.5)),
        1e-9,
        0.05,
    );
    let rho = opts.target_rho.filter(|r| r.is_finite() && *r > 0.0);
    let qs: Vec<f64> = points.iter().map(|p| p.q).collect();
    let axis = LogAxis::new(&qs, rho, (1e-3, 1e-1));
    let y_of = |q: f64| axis.y(q);
    let x_fmt = |v: &f64| format!("{v:.2}");
    let mut chart = axis.frame(
        area,
        LogFrame {
            title: opts.title.as_deref(),
            x_range: (x_lo, x_hi),
            x_desc: "machines m  (fewer is better)",
            x_fmt: &x_fmt,
            y_desc: "overflow frequency  q  (log scale)",
            floor_label: "q = 0 (no overflow observed)",
            reference: rho.map(|r| (r, format!("target ρ = {}", fmt_num(r)))),
        },
        dp,
    )?;

    // Pareto front underneath the series: a thick translucent band through the non-dominated points
    let mut front: Vec<&ChartPoint> = points
        .iter()
        .filter(|p| p.pareto && p.m.is_finite())
        .collect();
    front.sort_by(|a, b| a.m.total_cmp(&b.m).then(b.q.total_cmp(&a.q)));
    if !front.is_empty() {
        let band = INK.mix(0.16).stroke_width(dp.px(7.0));
        chart
            .draw_series(LineSeries::new(
                front.iter().map(|p| (p.m, y_of(p.q))),
                band,
            ))
            .map_err(err)?
            .label("Pareto front")
            .legend(move |(x, y)| {
                Circle::new(
                    (x + dp.pxi(9.0), y),
                    dp.px(6.0),
                    INK.stroke_width(dp.px(2.0)),
                )
            });
    }

    // one series per family, in the fixed legend order, then any unknown family
    let mut families: Vec<(String, String, RGBColor)> = FAMILIES
        .iter()
        .map(|(k, l, c)| (k.to_string(), l.to_string(), *c))
        .collect();
    for p in points {
        if !families.iter().any(|f| f.0 == p.family) {
            families.push((p.family.clone(), p.family.clone(), OTHER));
        }
    }
    for (key, label, color) in &families {
        let mut pts: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| &p.family == key && p.m.is_finite() && p.q.is_finite())
            .map(|p| (p.m, p.q))
            .collect();
        if pts.is_empty() {
            continue;
        }
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        axis.draw_dots(&mut chart, &pts, *color, 0.75, 4.0, label, dp)?;
    }

    // rings on the Pareto points and on the highlighted point
    chart
        .draw_series(
            front
                .iter()
                .map(|p| Circle::new((p.m, y_of(p.q)), dp.px(7.0), INK.stroke_width(dp.px(1.5)))),
        )
        .map_err(err)?;
    if let Some(h) = &opts.highlight {
        if let Some(p) = points.iter().find(|p| &p.spec == h && p.m.is_finite()) {
            let at = (p.m, y_of(p.q));
            chart
                .draw_series([Circle::new(
                    at,
                    dp.px(10.0),
                    TARGET.stroke_width(dp.px(2.5)),
                )])
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    format!(" {}", p.spec),
                    at,
                    (FONT, dp.px(11.0))
                        .into_font()
                        .color(&INK)
                        .pos(Pos::new(HPos::Left, VPos::Top)),
                )))
                .map_err(err)?;
        }
    }

    draw_legend(&mut chart, SeriesLabelPosition::UpperRight, dp)?;

    let layout = FrontierLayout {
        points: points
            .iter()
            .map(|p| match p.m.is_finite() && p.q.is_finite() {
                true => chart.backend_coord(&(p.m, y_of(p.q))),
                false => (-100_000, -100_000),
            })
            .collect(),
        plot_area: {
            let (xr, yr) = chart.plotting_area().get_pixel_range();
            ((xr.start, yr.start), (xr.end, yr.end))
        },
        zero_floor: axis.zero_floor,
    };
    area.present().map_err(err)?;
    Ok(layout)
}

/// Standard normal density.
fn phi(z: f64) -> f64 {
    (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// Draw the teaching view of one machine: density histogram of the totals over E, the Gaussian N(mean, sd²),
/// the capacity line, the overflow region shaded, both overflow probabilities in the caption.
pub fn draw_machine<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    m: &MachineChart,
) -> Result<(), ChartError> {
    let dp = blank(area, m.scale)?;
    if !(m.capacity.is_finite() && m.mean.is_finite() && m.sd.is_finite()) {
        return Err(ChartError(
            "machine view: non-finite mean, sd or capacity".into(),
        ));
    }
    let (t_lo, t_hi) = bounds(m.totals.iter().copied()).unwrap_or((m.mean, m.mean));
    let g_lo = m.mean - 4.0 * m.sd;
    let g_hi = m.mean + 4.0 * m.sd;
    let mut lo = t_lo.min(g_lo).min(m.capacity).max(0.0);
    let mut hi = t_hi.max(g_hi).max(m.capacity * 1.04);
    if hi - lo < 1e-9 {
        lo -= 0.05;
        hi += 0.05;
    }
    let pad = (hi - lo) * 0.03;
    lo = (lo - pad).max(0.0);
    hi += pad;

    // density histogram, 40 bins over the data range
    let n_bins = 40usize;
    let (b_lo, b_hi) = if t_hi - t_lo < 1e-12 {
        (t_lo - 0.005, t_hi + 0.005)
    } else {
        (t_lo, t_hi)
    };
    let w = (b_hi - b_lo) / n_bins as f64;
    let mut counts = vec![0u64; n_bins];
    for &t in m.totals.iter().filter(|t| t.is_finite()) {
        let i = (((t - b_lo) / w) as usize).min(n_bins - 1);
        counts[i] += 1;
    }
    let n = m.totals.len().max(1) as f64;
    let dens: Vec<f64> = counts.iter().map(|&c| c as f64 / (n * w)).collect();
    let gauss_peak = if m.sd > 0.0 { phi(0.0) / m.sd } else { 0.0 };
    let y_hi = dens
        .iter()
        .copied()
        .fold(0.0, f64::max)
        .max(gauss_peak)
        .max(1e-9)
        * 1.45; // headroom for the legend

    let mut builder = ChartBuilder::on(area);
    builder
        .margin(dp.pxi(14.0))
        .x_label_area_size(dp.pxi(44.0))
        .y_label_area_size(dp.pxi(56.0));
    let caption = m
        .title
        .clone()
        .unwrap_or_else(|| "one machine: total usage over E".into());
    builder.caption(caption, (FONT, dp.px(14.0)).into_font().color(&INK));
    let mut chart = builder
        .build_cartesian_2d(crate::chart::span(lo, hi), crate::chart::span(0.0, y_hi))
        .map_err(err)?;
    let x_fmt = |v: &f64| fmt_num(*v);
    let y_fmt = |v: &f64| fmt_num(*v);
    chart
        .configure_mesh()
        .x_desc("total usage of the machine (VM units)")
        .y_desc("density")
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .look(dp, 12.0, 13.0)
        .draw()
        .map_err(err)?;

    let bar = RGBColor(0, 114, 178);
    let over = TARGET;
    chart
        .draw_series(
            dens.iter()
                .enumerate()
                .filter(|(_, d)| **d > 0.0)
                .map(|(i, d)| {
                    let x0 = b_lo + i as f64 * w;
                    let color = if x0 + w / 2.0 > m.capacity { over } else { bar };
                    Rectangle::new([(x0, 0.0), (x0 + w, *d)], color.mix(0.55).filled())
                }),
        )
        .map_err(err)?
        .label(format!(
            "empirical over E (P > c: {})",
            fmt_num(m.p_empirical)
        ))
        .legend(move |(x, y)| {
            Rectangle::new(
                [(x, y - dp.pxi(5.0)), (x + dp.pxi(16.0), y + dp.pxi(5.0))],
                bar.mix(0.55).filled(),
            )
        });

    if m.sd > 0.0 {
        let steps = 200;
        let curve: Vec<(f64, f64)> = (0..=steps)
            .map(|i| {
                let x = lo + (hi - lo) * i as f64 / steps as f64;
                (x, phi((x - m.mean) / m.sd) / m.sd)
            })
            .collect();
        // shade the Gaussian tail beyond c
        let tail: Vec<(f64, f64)> = curve
            .iter()
            .copied()
            .filter(|(x, _)| *x >= m.capacity)
            .collect();
        if tail.len() > 1 {
            chart
                .draw_series(AreaSeries::new(tail, 0.0, over.mix(0.18)))
                .map_err(err)?;
        }
        chart
            .draw_series(LineSeries::new(curve, INK.stroke_width(dp.px(2.0))))
            .map_err(err)?
            .label(format!(
                "Gaussian from O (P > c: {})",
                fmt_num(m.p_gaussian)
            ))
            .legend(move |(x, y)| {
                PathElement::new(
                    vec![(x, y), (x + dp.pxi(16.0), y)],
                    INK.stroke_width(dp.px(2.0)),
                )
            });
    }
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(m.capacity, 0.0), (m.capacity, y_hi)],
            over.stroke_width(dp.px(2.0)),
        )))
        .map_err(err)?
        .label(format!("capacity c = {}", fmt_num(m.capacity)))
        .legend(move |(x, y)| {
            PathElement::new(
                vec![
                    (x + dp.pxi(8.0), y - dp.pxi(6.0)),
                    (x + dp.pxi(8.0), y + dp.pxi(6.0)),
                ],
                over.stroke_width(dp.px(2.0)),
            )
        });

    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .margin(dp.pxi(8.0))
        .legend_area_size(dp.pxi(22.0))
        .label_font((FONT, dp.px(12.0)).into_font().color(&INK))
        .background_style(WHITE.mix(0.92))
        .border_style(GRID.stroke_width(dp.px(1.0)))
        .draw()
        .map_err(err)?;
    area.present().map_err(err)?;
    Ok(())
}

/// Render a frontier chart as an SVG document of `width` x `height` pixels.
pub fn frontier_svg(
    points: &[ChartPoint],
    opts: &FrontierChartOptions,
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    render_svg(width, height, |area| draw_frontier(area, points, opts))
}

/// Render the teaching view of one machine as an SVG document.
pub fn machine_svg(m: &MachineChart, width: u32, height: u32) -> Result<String, ChartError> {
    render_svg(width, height, |area| draw_machine(area, m))
}

/// Options of `placement.machine`: `{ scale }` (device pixels per CSS pixel, default 1).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct MachineViewOptions {
    #[serde(default)]
    pub scale: Option<f64>,
}

/// Draws the teaching view of one machine from a `MachineView` ([`draw_machine`] with its caption).
pub fn draw_machine_view<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    v: &MachineView,
    o: &MachineViewOptions,
) -> Result<(), ChartError> {
    let m = MachineChart {
        totals: v.totals.clone(),
        mean: v.mean,
        sd: v.sd,
        capacity: v.capacity,
        p_empirical: v.empirical_overflow,
        p_gaussian: v.gaussian_overflow,
        title: Some(format!(
            "machine {} ({} VMs): total usage over E",
            v.machine,
            v.items.len()
        )),
        scale: Some(o.scale.unwrap_or(1.0)),
    };
    draw_machine(area, &m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::test_util::*;

    #[test]
    fn frontier_svg_has_series_zero_floor_and_target() {
        let pts = vec![
            pt("gpa", "gpa:0.1", 1.05, 0.08, true),
            pt("gpa", "gpa:0.01", 1.2, 0.006, true),
            pt("av", "av:2", 1.5, 0.0, true),
            pt("max", "max", 2.4, 0.0, false),
        ];
        let opts = FrontierChartOptions {
            target_rho: Some(0.05),
            highlight: Some("gpa:0.01".into()),
            ..Default::default()
        };
        let svg = frontier_svg(&pts, &opts, 800, 500).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("q = 0"));
        assert!(svg.contains("target ρ = 0.05"));
        assert!(svg.contains("Pareto front"));
        assert!(svg.contains("GPA ρ") && svg.contains("av f") && svg.contains("max"));
    }

    #[test]
    fn layout_maps_points_inside_the_plot_and_orders_q() {
        let pts = vec![
            pt("gpa", "a", 1.0, 0.1, true),
            pt("gpa", "b", 1.3, 0.001, true),
            pt("av", "c", 1.6, 0.0, false),
        ];
        let mut out = String::new();
        let layout = {
            let area = SVGBackend::with_string(&mut out, (640, 400)).into_drawing_area();
            draw_frontier(&area, &pts, &FrontierChartOptions::default()).unwrap()
        };
        let ((x0, y0), (x1, y1)) = layout.plot_area;
        for &(x, y) in &layout.points {
            assert!(
                x >= x0 && x <= x1 && y >= y0 && y <= y1,
                "{x},{y} outside {:?}",
                layout.plot_area
            );
        }
        // higher q is higher on screen (smaller y); the zero sits lowest
        assert!(layout.points[0].1 < layout.points[1].1 && layout.points[1].1 < layout.points[2].1);
        assert_eq!(layout.zero_floor, Some(1e-4));
    }

    #[test]
    fn degenerate_inputs_do_not_panic() {
        assert!(frontier_svg(&[], &FrontierChartOptions::default(), 300, 200).is_ok());
        let all_zero = vec![pt("max", "max", 2.0, 0.0, true)];
        assert!(frontier_svg(
            &all_zero,
            &FrontierChartOptions {
                target_rho: Some(0.05),
                ..Default::default()
            },
            300,
            200
        )
        .is_ok());
        let nan = vec![pt("gpa", "x", f64::NAN, f64::NAN, false)];
        assert!(frontier_svg(&nan, &FrontierChartOptions::default(), 300, 200).is_ok());
        let m = MachineChart {
            totals: vec![0.5; 10],
            mean: 0.5,
            sd: 0.0,
            capacity: 1.0,
            ..Default::default()
        };
        assert!(machine_svg(&m, 400, 300).is_ok());
        let bad = MachineChart {
            mean: f64::NAN,
            ..Default::default()
        };
        assert!(machine_svg(&bad, 400, 300).is_err());
        assert!(histogram_svg(&HistogramChart::default(), 300, 200).is_err());
    }

    #[test]
    fn machine_and_histogram_svgs() {
        let totals: Vec<f64> = (0..500)
            .map(|i| 0.6 + 0.3 * ((i as f64) * 0.7).sin())
            .collect();
        let m = MachineChart {
            totals,
            mean: 0.6,
            sd: 0.2,
            capacity: 0.85,
            p_empirical: 0.2,
            p_gaussian: 0.106,
            ..Default::default()
        };
        let svg = machine_svg(&m, 700, 400).unwrap();
        assert!(svg.contains("capacity c = 0.85"));
        let h = HistogramChart {
            lo: 0.0,
            hi: 1.0,
            counts: vec![1000, 300, 50, 0, 3],
            ..Default::default()
        };
        assert!(histogram_svg(&h, 400, 220).unwrap().contains("100%"));
    }
}
