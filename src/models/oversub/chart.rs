//! The oversubscription model's charts (seed 001 §6, ALGORITHMS.md §3.5), on the shared frame
//! ([`crate::chart`]):
//! - `oversub.frontier`: S-Cores (y) against PM-Hot-R (x), one point per policy (Grid-x joined as a curve over
//!   x), the safety levels 1 − V as vertical reference lines;
//! - `oversub.training`: per C2MARL arm, the mean reward and the hot-hour share (cost) of each training
//!   episode, and the dual variable λ on a right-hand axis;
//! - `oversub.rates`: the rates a policy gave by subscriber and hour of day as a heat map, with the
//!   subscriber's mean usage peak marked (the paper's case study of staggered peaks).

use super::cluster::RateMap;
use super::experiment::{PolicyRow, TrainingCurve, SAFETY_LEVELS};
use crate::chart::*;
use plotters::coord::Shift;
use plotters::prelude::*;

crate::chart::chart_table! {
    /// `oversub.frontier`: data = the report's `rows`, opts = [`ChartOptions`].
    "oversub.frontier" => draw_frontier(Vec<PolicyRow>, ChartOptions, "oversub rows");
    /// `oversub.training`: data = the report's `training` (or the partial logs), opts = the same.
    "oversub.training" => draw_training(Vec<TrainingCurve>, ChartOptions, "oversub training");
    /// `oversub.rates`: data = one row's `rates` ([`RateMap`]), opts = the same.
    "oversub.rates" => draw_rates(RateMap, ChartOptions, "oversub rate map");
}

/// Options of these charts: a caption and the device pixel ratio.
pub type ChartOptions = CaptionOptions;

/// Draws the frontier (see the module documentation). Errors: a backend failure.
pub fn draw_frontier<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[PolicyRow],
    opts: &ChartOptions,
) -> Result<(), ChartError> {
    let dp = blank(area, opts.scale)?;
    let mut builder = framed(area, dp, opts.title.as_deref());
    let mut chart = builder
        .build_cartesian_2d(-0.02f64..1.02f64, 0.0f64..100.0f64)
        .map_err(err)?;
    let x_fmt = |v: &f64| format!("{}%", fmt_num(100.0 * *v));
    let y_fmt = |v: &f64| format!("{}%", fmt_num(*v));
    let wide = area.dim_in_pixel().0 >= dp.px(600.0);
    chart
        .configure_mesh()
        .x_desc("PM-Hot-R  (less is better)")
        .y_desc("S-Cores  (% of cores saved; more is better)")
        // 11 ticks need ~600 px; a phone-wide chart gets 6 (0%, 20%, … 100%)
        .draw_labelled(dp, (if wide { 11 } else { 6 }, 6), &x_fmt, &y_fmt)?;
    // the safety lines are ~0.1 apart: on a phone-wide chart only the last one is labelled
    for (k, v) in SAFETY_LEVELS.iter().copied().enumerate() {
        let x = 1.0 - v;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, 0.0), (x, 100.0)],
                TARGET.mix(0.6).stroke_width(dp.px(1.0)),
            )))
            .map_err(err)?;
        if !wide && k + 1 != SAFETY_LEVELS.len() {
            continue;
        }
        chart
            .draw_series(std::iter::once(Text::new(
                format!("α {v}"),
                (x, 97.0),
                (FONT, dp.px(10.0)).into_font().color(&TARGET),
            )))
            .map_err(err)?;
    }
    // a failed script's row (its `error`) has no figures to draw
    let ok = |r: &&PolicyRow| r.error.is_none() && r.pm_hot_r.is_finite() && r.s_cores.is_finite();
    // Grid-x as one curve over x.
    let mut grid: Vec<(f64, f64)> = rows
        .iter()
        .filter(ok)
        .filter(|r| r.policy.starts_with("grid:"))
        .map(|r| (r.pm_hot_r, 100.0 * r.s_cores))
        .collect();
    grid.sort_by(|a, b| a.1.total_cmp(&b.1));
    if grid.len() > 1 {
        chart
            .draw_series(LineSeries::new(grid, OTHER.stroke_width(dp.px(1.5))))
            .map_err(err)?;
    }
    let mut seen: Vec<String> = Vec::new();
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let mut labels = PointLabels::new(dp, (xr.start, xr.end, yr.start, yr.end));
    for r in rows.iter().filter(ok) {
        let key = if r.policy.starts_with("grid:") {
            "grid".to_string()
        } else {
            r.policy.clone()
        };
        let i = match seen.iter().position(|s| *s == key) {
            Some(i) => i,
            None => {
                seen.push(key.clone());
                seen.len() - 1
            }
        };
        let color = if r.policy.starts_with("script:") {
            SCRIPT
        } else {
            ARM_COLORS[i % ARM_COLORS.len()]
        };
        let label = match r.train_seed {
            Some(s) if s > 0 => format!("{} #{}", r.policy, s + 1),
            _ => r.policy.clone(),
        };
        let (x, y) = (r.pm_hot_r, 100.0 * r.s_cores);
        let spot = labels.place(chart.backend_coord(&(x, y)), &label);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(r.pm_hot_r_lo, y), (r.pm_hot_r_hi, y)],
                color.mix(0.5).stroke_width(dp.px(1.0)),
            )))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(
                EmptyElement::at((x, y)) + Circle::new((0, 0), dp.pxi(4.0), color.filled()),
            ))
            .map_err(err)?;
        if let Some((dx, dy)) = spot {
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((x, y))
                        + Text::new(label, (dx, dy), (FONT, dp.px(10.5)).into_font().color(&INK)),
                ))
                .map_err(err)?;
        }
    }
    area.present().map_err(err)?;
    Ok(())
}

/// Where the frontier's point labels go: each label takes the first of a few places around its point (right,
/// left or centred; above, below, then further up and down) whose box, estimated from the label's length at the
/// 10.5 px font, stays inside the plot and clear of the labels placed before it. When none is free (policies
/// crowded on a narrow chart) the point goes unlabelled; the results table names it. Boxes in backend pixels.
struct PointLabels {
    dp: Px,
    plot: (i32, i32, i32, i32),
    placed: Vec<(i32, i32, i32, i32)>,
}

impl PointLabels {
    fn new(dp: Px, plot: (i32, i32, i32, i32)) -> Self {
        PointLabels {
            dp,
            plot,
            placed: Vec::new(),
        }
    }

    /// The label's offset from its point `(px, py)` (the text's top left corner), recorded as taken; None when
    /// no place is free.
    fn place(&mut self, (px, py): (i32, i32), label: &str) -> Option<(i32, i32)> {
        let dp = self.dp;
        // a conservative width: 6.5 px a character at 10.5 px (DejaVu Sans averages about 6)
        let w = dp.pxi(6.5 * label.chars().count() as f64 + 2.0);
        let h = dp.pxi(13.0);
        let xs = [dp.pxi(6.0), -w - dp.pxi(6.0), -w / 2];
        let mut spots = Vec::new();
        for dy in [-13.0, 4.0, -26.0, 17.0, -39.0, 30.0, -52.0, 43.0] {
            for dx in xs {
                spots.push((dx, dp.pxi(dy)));
            }
        }
        let (x0, x1, y0, y1) = self.plot;
        let placed = &self.placed;
        let spot = spots.into_iter().find(|&(dx, dy)| {
            let (a0, a1, b0, b1) = (px + dx, px + dx + w, py + dy, py + dy + h);
            a0 >= x0
                && a1 <= x1
                && b0 >= y0
                && b1 <= y1
                && placed
                    .iter()
                    .all(|&(c0, c1, e0, e1)| a1 <= c0 || c1 <= a0 || b1 <= e0 || e1 <= b0)
        })?;
        self.placed
            .push((px + spot.0, px + spot.0 + w, py + spot.1, py + spot.1 + h));
        Some(spot)
    }
}

/// The training chart's axes end this factor above the highest value: the top quarter is kept for the legend.
const HEADROOM: f64 = 1.35;

/// Draws the training curves (see the module documentation): per C2MARL arm (one colour each), the mean
/// reward per hour (solid) and the share of hours in which some PM was hot (the cost, dotted), both smoothed
/// over 10 episodes on the left axis (fractions), and the dual variable λ after each episode (dashed) on the
/// right axis ([`right_axis`]). Errors: a backend failure.
pub fn draw_training<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    curves: &[TrainingCurve],
    opts: &ChartOptions,
) -> Result<(), ChartError> {
    let dp = blank(area, opts.scale)?;
    let n = curves.iter().map(|c| c.log.len()).max().unwrap_or(0).max(1) as f64;
    let y_hi = bounds(
        curves
            .iter()
            .flat_map(|c| c.log.iter().flat_map(|l| [l.mean_reward, l.mean_cost])),
    )
    .map_or(1.0, |b| b.1)
    .clamp(0.01, 1.0)
        * HEADROOM;
    let l_hi = bounds(curves.iter().flat_map(|c| c.log.iter().map(|l| l.lambda)))
        .map_or(1.0, |b| b.1)
        .max(1e-9)
        * HEADROOM;
    let mut builder = framed_dual(area, dp, opts.title.as_deref());
    let mut chart = builder
        .build_cartesian_2d(span(0.0, n), span(0.0, y_hi))
        .map_err(err)?
        .set_secondary_coord(span(0.0, n), span(0.0, l_hi));
    let x_fmt = |v: &f64| fmt_num(*v);
    // (shares: no tick above 100% in the legend's headroom)
    let y_fmt = |v: &f64| {
        if *v > 1.0 + 1e-9 {
            String::new()
        } else {
            format!("{}%", fmt_num(100.0 * *v))
        }
    };
    chart
        .configure_mesh()
        .x_desc("training episode")
        .y_desc("reward, hot-hour share")
        .draw_labelled(dp, (8, 6), &x_fmt, &y_fmt)?;
    right_axis(
        &mut chart,
        dp,
        "λ (dual variable)",
        6,
        &|v| fmt_num(*v),
        (12.0, 13.0),
    )?;
    // a 10-episode moving average of `f` over the log
    let smooth = |c: &TrainingCurve, f: fn(&crate::models::oversub::c2marl::EpisodeLog) -> f64| {
        (0..c.log.len())
            .map(|k| {
                let w = &c.log[k.saturating_sub(9)..=k];
                (
                    (k + 1) as f64,
                    w.iter().map(f).sum::<f64>() / w.len() as f64,
                )
            })
            .collect::<Vec<(f64, f64)>>()
    };
    for (i, c) in curves.iter().enumerate() {
        let color = ARM_COLORS[i % ARM_COLORS.len()];
        let arm = format!("{} seed {}: ", c.policy, c.train_seed + 1);
        chart
            .draw_series(LineSeries::new(
                smooth(c, |l| l.mean_reward),
                color.stroke_width(dp.px(2.0)),
            ))
            .map_err(err)?
            .label(format!("{arm}reward"))
            .legend(move |(x, y)| {
                PathElement::new(
                    vec![(x, y), (x + dp.pxi(18.0), y)],
                    color.stroke_width(dp.px(2.0)),
                )
            });
        chart
            .draw_series(DashedLineSeries::new(
                smooth(c, |l| l.mean_cost),
                dp.pxi(2.0),
                dp.pxi(3.0),
                color.stroke_width(dp.px(2.0)),
            ))
            .map_err(err)?
            .label(format!("{arm}hot-hour share (cost)"))
            .legend(move |(x, y)| {
                plotters::element::DashedPathElement::new(
                    vec![(x, y), (x + dp.pxi(18.0), y)],
                    dp.pxi(2.0),
                    dp.pxi(3.0),
                    color.stroke_width(dp.px(2.0)),
                )
            });
        let lam: Vec<(f64, f64)> = c
            .log
            .iter()
            .enumerate()
            .map(|(k, l)| ((k + 1) as f64, l.lambda))
            .collect();
        chart
            .draw_secondary_series(DashedLineSeries::new(
                lam,
                dp.pxi(7.0),
                dp.pxi(4.0),
                color.mix(0.7).stroke_width(dp.px(1.5)),
            ))
            .map_err(err)?
            .label(format!("{arm}λ (right axis)"))
            .legend(move |(x, y)| {
                plotters::element::DashedPathElement::new(
                    vec![(x, y), (x + dp.pxi(18.0), y)],
                    dp.pxi(7.0),
                    dp.pxi(4.0),
                    color.mix(0.7).stroke_width(dp.px(1.5)),
                )
            });
    }
    if !curves.is_empty() {
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight, dp)?;
    }
    area.present().map_err(err)?;
    Ok(())
}

/// Draws the rate heat map (see the module documentation): rows = subscribers, columns = hours of day, the
/// cell's shade = the mean rate (white 0 … dark 1, grey when the subscriber never had requests then), the
/// subscriber's mean-usage peak hour outlined. Errors: a backend failure.
pub fn draw_rates<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    m: &RateMap,
    opts: &ChartOptions,
) -> Result<(), ChartError> {
    let dp = blank(area, opts.scale)?;
    let n = m.rates.len().max(1);
    let title = opts
        .title
        .clone()
        .unwrap_or_else(|| format!("rates of {} by hour of day", m.policy));
    let mut builder = framed(area, dp, Some(&title));
    builder.y_label_area_size(dp.pxi(80.0)); // subscriber names
    let mut chart = builder
        .build_cartesian_2d(0.0f64..24.0f64, 0.0f64..n as f64)
        .map_err(err)?;
    let subs = m.subscribers.clone();
    let y_fmt = move |v: &f64| {
        let i = v.floor() as usize;
        if (*v - i as f64 - 0.5).abs() < 0.01 {
            subs.get(i).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let x_fmt = |v: &f64| format!("{}", *v as i64);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("hour of day  (outlined: usage peak)")
        .x_labels(13)
        .y_labels(2 * n + 1)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .look(dp, 11.0, 13.0)
        .draw()
        .map_err(err)?;
    let base = ARM_COLORS[0];
    // a cell's value is printed only where it fits (a "0.4" needs ~20 px: not on a phone-wide chart)
    let values_fit = chart.plotting_area().dim_in_pixel().0 as f64 / 24.0 >= dp.px(20.0) as f64;
    for (i, row) in m.rates.iter().enumerate() {
        for (h, v) in row.iter().enumerate() {
            let style = match v {
                Some(x) if x.is_finite() => {
                    let a = x.clamp(0.0, 1.0);
                    let mix = |c: u8| (255.0 - (255.0 - c as f64) * a).round() as u8;
                    RGBColor(mix(base.0), mix(base.1), mix(base.2)).filled()
                }
                _ => GRID.filled(),
            };
            let (x0, y0) = (h as f64, i as f64);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x0, y0), (x0 + 1.0, y0 + 1.0)],
                    style,
                )))
                .map_err(err)?;
            if let Some(x) = v {
                if x.is_finite() && values_fit {
                    chart
                        .draw_series(std::iter::once(Text::new(
                            format!("{:.1}", x),
                            (x0 + 0.15, y0 + 0.75),
                            (FONT, dp.px(9.0)).into_font().color(if *x > 0.55 {
                                &WHITE
                            } else {
                                &INK
                            }),
                        )))
                        .map_err(err)?;
                }
            }
        }
        if let Some(mu) = m.mu.get(i) {
            if let Some((peak, _)) = mu.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)) {
                let (x0, y0) = (peak as f64, i as f64);
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(x0, y0), (x0 + 1.0, y0 + 1.0)],
                        TARGET.stroke_width(dp.px(2.0)),
                    )))
                    .map_err(err)?;
            }
        }
    }
    area.present().map_err(err)?;
    Ok(())
}
