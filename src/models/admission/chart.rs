//! Charts of the admission model (seed 000, ALGORITHMS.md §2.10, §2.12): the utilization-versus-failure-rate
//! frontier of every arm and one run's time series, on the shared frame ([`crate::chart`]).

use crate::chart::*;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

crate::chart::chart_table! {
    /// `admission.frontier`: data = `[{ label, points: [[utilization, failure_rate]...], tuned }]`, opts =
    /// `{ sla, title, scale }`.
    "admission.frontier" => draw_admission_frontier(Vec<AdmissionCurve>, AdmissionChartOptions, "admission curves");
    /// `admission.series`: data = `{ t, active, failures, accepted, rejected, capacity, title?, scale? }`, no
    /// options.
    "admission.series" => draw_admission_series(AdmissionSeriesChart, serde::de::IgnoredAny, "time series");
}

/// One policy arm's curve on the admission frontier: the (utilization, failure rate) of every threshold
/// its search evaluated, and the tuned point.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AdmissionCurve {
    /// Arm label, e.g. "SECOND+MARGINAL m=5".
    pub label: String,
    /// (mean utilization in [0, 1], scale-out failure rate ≥ 0) per evaluated threshold.
    pub points: Vec<(f64, f64)>,
    /// The tuned point, when the arm is finished.
    #[serde(default)]
    pub tuned: Option<(f64, f64)>,
}

/// Options of the admission frontier chart.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AdmissionChartOptions {
    /// SLA ε on the failure rate, drawn as a reference line.
    #[serde(default)]
    pub sla: Option<f64>,
    /// Caption above the plot.
    #[serde(default)]
    pub title: Option<String>,
    /// Device pixel ratio (1 when absent).
    #[serde(default)]
    pub scale: Option<f64>,
}

/// Draw the admission frontier: x = mean utilization, y = scale-out failure rate (log scale; 0 on a dashed
/// floor line one decade below the smallest positive value), one curve per arm as its threshold sweeps
/// (sorted by utilization), tuned points as large ringed diamonds, the SLA as a dashed reference line.
pub fn draw_admission_frontier<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    curves: &[AdmissionCurve],
    opts: &AdmissionChartOptions,
) -> Result<(), ChartError> {
    let dp = blank(area, opts.scale)?;
    let all = || {
        curves
            .iter()
            .flat_map(|c| c.points.iter().chain(c.tuned.iter()))
            .copied()
    };
    let (x_lo, x_hi) = padded_range(bounds(all().map(|p| p.0)).unwrap_or((0.0, 1.0)), 0.02, 0.02);
    let (x_lo, x_hi) = (x_lo.max(0.0), x_hi.min(1.05));
    let sla = opts.sla.filter(|r| r.is_finite() && *r > 0.0);
    let rates: Vec<f64> = all().map(|p| p.1).collect();
    let axis = LogAxis::new(&rates, sla, (1e-4, 1e-2));
    let y_of = |q: f64| axis.y(q);
    let x_fmt = |v: &f64| format!("{:.0}%", v * 100.0);
    let mut chart = axis.frame(
        area,
        LogFrame {
            title: opts.title.as_deref(),
            x_range: (x_lo, x_hi),
            x_desc: "utilization ∫N dt / (C·T)  (more is better)",
            x_fmt: &x_fmt,
            y_desc: "scale-out failure rate  (log scale)",
            floor_label: "0 (no failed scale-out)",
            reference: sla.map(|r| (r, format!("SLA ε = {}", fmt_num(r)))),
        },
        dp,
    )?;
    for (i, c) in curves.iter().enumerate() {
        // a user's script (its arm `script:NAME`, after the preset's) in the script colour
        let color = if c.label.starts_with("script:") {
            crate::chart::SCRIPT
        } else {
            ARM_COLORS[i % ARM_COLORS.len()]
        };
        let mut pts: Vec<(f64, f64)> = c
            .points
            .iter()
            .copied()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        axis.draw_dots(&mut chart, &pts, color, 0.7, 3.5, &c.label, dp)?;
        if let Some(t) = c.tuned.filter(|t| t.0.is_finite() && t.1.is_finite()) {
            let d = dp.pxi(8.0);
            let at = (t.0, y_of(t.1));
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at(at)
                        + Polygon::new(vec![(0, -d), (d, 0), (0, d), (-d, 0)], color.filled())
                        + PathElement::new(
                            vec![(0, -d), (d, 0), (0, d), (-d, 0), (0, -d)],
                            INK.stroke_width(dp.px(1.5)),
                        ),
                ))
                .map_err(err)?;
        }
    }
    if curves.iter().any(|c| c.tuned.is_some()) {
        let d = dp.pxi(6.0);
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), u32>>())
            .map_err(err)?
            .label("tuned to the SLA")
            .legend(move |(x, y)| {
                Polygon::new(
                    vec![
                        (x + dp.pxi(9.0), y - d),
                        (x + dp.pxi(9.0) + d, y),
                        (x + dp.pxi(9.0), y + d),
                        (x + dp.pxi(9.0) - d, y),
                    ],
                    INK.mix(0.8).filled(),
                )
            });
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, dp)?;
    area.present().map_err(err)?;
    Ok(())
}

/// The time series of one admission run (fields as the engine's `SeriesPoint`, columns of equal length).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AdmissionSeriesChart {
    /// Sample times (hours).
    pub t: Vec<f64>,
    /// Active cores N.
    pub active: Vec<f64>,
    /// Cumulative failed scale-outs.
    pub failures: Vec<f64>,
    /// Cumulative accepted arrivals.
    pub accepted: Vec<f64>,
    /// Cumulative rejected arrivals.
    pub rejected: Vec<f64>,
    /// Capacity C (cores).
    pub capacity: f64,
    /// Caption.
    #[serde(default)]
    pub title: Option<String>,
    /// Device pixel ratio (1 when absent).
    #[serde(default)]
    pub scale: Option<f64>,
}

/// Draw one run: active cores with the capacity line on top; below, cumulative accepted and rejected
/// arrivals (left) and cumulative failed scale-outs (right); time in days.
pub fn draw_admission_series<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    c: &AdmissionSeriesChart,
    _no_options: &serde::de::IgnoredAny,
) -> Result<(), ChartError> {
    let dp = Px::new(c.scale);
    let n = c.t.len();
    if [
        c.active.len(),
        c.failures.len(),
        c.accepted.len(),
        c.rejected.len(),
    ]
    .iter()
    .any(|l| *l != n)
    {
        return Err(ChartError(
            "time series: columns of different lengths".into(),
        ));
    }
    area.fill(&WHITE).map_err(err)?;
    let area = match &c.title {
        Some(t) => area
            .titled(t, (FONT, dp.px(14.0)).into_font().color(&INK))
            .map_err(err)?,
        None => area.clone(),
    };
    let (top, bottom) = area.split_vertically(area.dim_in_pixel().1 * 58 / 100);
    let (b_left, b_right) = bottom.split_horizontally(bottom.dim_in_pixel().0 / 2);
    let days: Vec<f64> = c.t.iter().map(|h| h / 24.0).collect();
    let t_hi = days.iter().copied().fold(0.0, f64::max).max(1e-6);
    macro_rules! style {
        ($chart:expr, $x:expr, $y:expr) => {{
            let fmt = |v: &f64| fmt_num(*v);
            $chart
                .configure_mesh()
                .x_desc($x)
                .y_desc($y)
                .x_labels(8)
                .y_labels(6)
                .x_label_formatter(&fmt)
                .y_label_formatter(&fmt)
                .look(dp, 11.0, 12.0)
                .draw()
                .map_err(err)
        }};
    }
    macro_rules! legend {
        ($chart:expr, $pos:expr) => {
            $chart
                .configure_series_labels()
                .position($pos)
                .margin(dp.pxi(6.0))
                .legend_area_size(dp.pxi(20.0))
                .label_font((FONT, dp.px(11.0)).into_font().color(&INK))
                .background_style(WHITE.mix(0.9))
                .border_style(GRID.stroke_width(dp.px(1.0)))
                .draw()
                .map_err(err)
        };
    }
    let line = |color: RGBColor| {
        move |(x, y): (i32, i32)| {
            PathElement::new(
                vec![(x, y), (x + (18.0 * dp.0) as i32, y)],
                color.stroke_width((2.0 * dp.0) as u32),
            )
        }
    };
    // one panel over 0..t_hi days and 0..y_hi, with its mesh
    macro_rules! panel {
        ($area:expr, $y_hi:expr, $y_desc:expr) => {{
            let mut ch = ChartBuilder::on($area)
                .margin(dp.pxi(10.0))
                .x_label_area_size(dp.pxi(44.0))
                .y_label_area_size(dp.pxi(62.0))
                .build_cartesian_2d(
                    crate::chart::span(0.0, t_hi),
                    crate::chart::span(0.0, $y_hi),
                )
                .map_err(err)?;
            style!(ch, "time (days)", $y_desc)?;
            ch
        }};
    }
    // a cumulative count against days, labelled in the legend
    macro_rules! curve {
        ($chart:expr, $ys:expr, $color:expr, $label:expr) => {
            $chart
                .draw_series(LineSeries::new(
                    days.iter().zip($ys).map(|(x, y)| (*x, *y)),
                    $color.stroke_width(dp.px(2.0)),
                ))
                .map_err(err)?
                .label($label)
                .legend(line($color));
        };
    }
    let blue = ARM_COLORS[0];
    let green = ARM_COLORS[2];
    let grey = RGBColor(150, 150, 150);

    // active cores and capacity
    let y_hi = c.active.iter().copied().fold(c.capacity, f64::max) * 1.08;
    let mut ch = panel!(&top, y_hi.max(1.0), "active cores N");
    ch.draw_series(
        AreaSeries::new(
            days.iter().zip(&c.active).map(|(x, y)| (*x, *y)),
            0.0,
            blue.mix(0.12),
        )
        .border_style(blue.stroke_width(dp.px(1.5))),
    )
    .map_err(err)?
    .label("active cores")
    .legend(line(blue));
    ch.draw_series(DashedLineSeries::new(
        vec![(0.0, c.capacity), (t_hi, c.capacity)],
        dp.px(7.0),
        dp.px(4.0),
        TARGET.stroke_width(dp.px(1.5)),
    ))
    .map_err(err)?
    .label(format!("capacity C = {}", fmt_num(c.capacity)))
    .legend(line(TARGET));
    legend!(ch, SeriesLabelPosition::LowerRight)?;

    // cumulative arrivals
    let a_hi = c
        .accepted
        .iter()
        .chain(&c.rejected)
        .copied()
        .fold(1.0, f64::max)
        * 1.08;
    let mut ch = panel!(&b_left, a_hi, "arrivals (cumulative)");
    curve!(ch, &c.accepted, green, "accepted");
    curve!(ch, &c.rejected, grey, "rejected");
    legend!(ch, SeriesLabelPosition::UpperLeft)?;

    // cumulative failures
    let f_hi = c.failures.iter().copied().fold(1.0, f64::max) * 1.08;
    let mut ch = panel!(&b_right, f_hi, "failures (cumulative)");
    curve!(ch, &c.failures, TARGET, "failed scale-outs");
    // its one curve is named by the axis too: a panel too narrow for the legend (a phone-wide chart) goes without
    if ch.plotting_area().dim_in_pixel().0 as f64 >= dp.px(150.0) as f64 {
        legend!(ch, SeriesLabelPosition::UpperLeft)?;
    }
    area.present().map_err(err)?;
    Ok(())
}

/// The admission frontier as an SVG document of `width` x `height` pixels.
pub fn admission_frontier_svg(
    curves: &[AdmissionCurve],
    opts: &AdmissionChartOptions,
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    render_svg(width, height, |area| {
        draw_admission_frontier(area, curves, opts)
    })
}

/// One run's time series as an SVG document of `width` x `height` pixels.
pub fn admission_series_svg(
    c: &AdmissionSeriesChart,
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    render_svg(width, height, |area| {
        draw_admission_series(area, c, &serde::de::IgnoredAny)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admission_charts_render_to_svg() {
        let curves = vec![
            AdmissionCurve {
                label: "ZEROTH".into(),
                points: vec![(0.5, 0.0), (0.7, 2e-3), (0.8, 1e-2)],
                tuned: Some((0.5, 0.0)),
            },
            AdmissionCurve {
                label: "SECOND".into(),
                points: vec![(0.6, 0.0), (0.75, 5e-4)],
                tuned: Some((0.75, 5e-4)),
            },
        ];
        let svg = admission_frontier_svg(
            &curves,
            &AdmissionChartOptions {
                sla: Some(1e-3),
                ..Default::default()
            },
            800,
            500,
        )
        .unwrap();
        assert!(svg.contains("SLA") && svg.contains("SECOND") && svg.contains("tuned"));
        assert!(admission_frontier_svg(&[], &AdmissionChartOptions::default(), 400, 300).is_ok());
        let c = AdmissionSeriesChart {
            t: vec![0.0, 24.0, 48.0],
            active: vec![0.0, 50.0, 90.0],
            failures: vec![0.0, 0.0, 2.0],
            accepted: vec![0.0, 20.0, 40.0],
            rejected: vec![0.0, 1.0, 5.0],
            capacity: 100.0,
            ..Default::default()
        };
        let svg = admission_series_svg(&c, 800, 500).unwrap();
        assert!(svg.contains("capacity") && svg.contains("rejected"));
        let bad = AdmissionSeriesChart { t: vec![1.0], ..c };
        assert!(admission_series_svg(&bad, 800, 500).is_err());
    }
}
