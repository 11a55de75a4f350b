//! The lifetime model's chart (seed 003, ALGORITHMS.md §5.8), on the shared frame ([`crate::chart`]):
//! `lifetime.empty`, the fraction of empty hosts over time, one line per policy, the warm-up shaded
//! (App. F: it is simulated but not measured).

use super::Policy;
use crate::chart::*;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::{Deserialize, Serialize};

/// One policy's line: field names match the engine's [`super::PolicyResult`], so the page hands over the
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
    /// Length of one series step, hours (1 when absent or not in (0, 10⁶]: [`super::PolicyResult::empty_series`]
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
/// place in [`Policy::ALL`], so a policy keeps its colour whichever others are shown; grey for unknown names.
pub fn policy_color(name: &str) -> RGBColor {
    Policy::ALL
        .iter()
        .position(|p| p.name() == name)
        .map(|i| ARM_COLORS[i % ARM_COLORS.len()])
        .unwrap_or(OTHER)
}

/// The name a policy has in the paper (`best fit`, `LA-Binary`, `NILAS`, `LAVA`); unknown names as given.
pub fn policy_title(name: &str) -> String {
    match Policy::parse(name) {
        Ok(Policy::BestFit) => "best fit".into(),
        Ok(Policy::LaBinary) => "LA-Binary".into(),
        Ok(Policy::Nilas) => "NILAS".into(),
        Ok(Policy::Lava) => "LAVA".into(),
        Err(_) => name.to_string(),
    }
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
        .x_labels(10)
        .y_labels(6)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .look(dp, 12.0, 13.0)
        .draw()
        .map_err(err)?;

    if warm_h > 0.0 {
        let w = (warm_h / 24.0).min(x_hi);
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(0.0, 0.0), (w, y_hi)],
                INK.mix(0.07).filled(),
            )))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(
                EmptyElement::at((w, y_hi))
                    + Text::new(
                        format!("warm-up {} h (not measured)", fmt_num(warm_h)),
                        (-dp.pxi(6.0), dp.pxi(6.0)),
                        (FONT, dp.px(11.0))
                            .into_font()
                            .color(&INK.mix(0.7))
                            .pos(Pos::new(HPos::Right, VPos::Top)),
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
