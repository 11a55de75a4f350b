//! The reservation model's charts (seed 004 §4, ALGORITHMS.md §6.4–6.5), on the shared frame
//! ([`crate::chart`]):
//! - `era.frontier`: late-job % against accepted revenue, one curve per policy over κ_use (E4.3, Fig. 3);
//! - `era.efficiency`: value efficiency per policy as bars (E4.1), at the largest κ_use of each policy;
//! - `era.request`: one request's decision — the committed load against the planned capacity over its window
//!   (the plan), the block price of each slot and the price of each start, the chosen start marked.

use super::exec::CellResult;
use super::sched::RequestView;
use crate::chart::*;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

crate::chart::chart_table! {
    /// `era.frontier`: data = the report's `cells`, opts = [`FrontierOptions`].
    "era.frontier" => draw_frontier(Vec<CellResult>, FrontierOptions, "era cells");
    /// `era.efficiency`: data = the report's `cells`, opts = the same.
    "era.efficiency" => draw_efficiency(Vec<CellResult>, FrontierOptions, "era cells");
    /// `era.request`: data = the answer of the run operation `request` ([`RequestView`]), opts = the same.
    "era.request" => draw_request(RequestView, FrontierOptions, "request view");
}

/// Options of these charts: a caption and the device pixel ratio.
pub type FrontierOptions = CaptionOptions;

/// Policies in order of first appearance.
fn policies(cells: &[CellResult]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in cells {
        if !out.contains(&c.policy) {
            out.push(c.policy.clone());
        }
    }
    out
}

/// The colour of the i-th policy.
pub fn policy_color(i: usize) -> RGBColor {
    ARM_COLORS[i % ARM_COLORS.len()]
}

/// The colour of policy `name`, the i-th shown: [`policy_color`], a user's `script:NAME` in the script
/// colour (issue 31).
fn color_of(i: usize, name: &str) -> RGBColor {
    if name.starts_with("script:") {
        crate::chart::SCRIPT
    } else {
        policy_color(i)
    }
}

/// One policy's frontier points `(revenue, late %, κ values)`: cells at the same point — revenue within 0.1%
/// and late % within 0.01 pp of the point's first cell, e.g. on-demand, which barely depends on κ_use — merged
/// into one point listing every κ, in κ order.
pub fn frontier_points(cells: &[CellResult], policy: &str) -> Vec<(f64, f64, Vec<f64>)> {
    let mut pts: Vec<(f64, f64, f64)> = cells
        .iter()
        .filter(|c| c.policy == policy && c.revenue.is_finite() && c.late_pct.is_finite())
        .map(|c| (c.revenue, c.late_pct, c.kappa))
        .collect();
    pts.sort_by(|a, b| a.2.total_cmp(&b.2));
    let mut out: Vec<(f64, f64, Vec<f64>)> = Vec::new();
    for (r, l, k) in pts {
        match out
            .iter_mut()
            .find(|q| (q.0 - r).abs() <= 1e-3 * q.0.abs().max(r.abs()) && (q.1 - l).abs() <= 0.01)
        {
            Some(q) => q.2.push(k),
            None => out.push((r, l, vec![k])),
        }
    }
    out
}

/// The label of a frontier point: `κ 0.8`, or for merged points `κ 0.6–1 (one point)` (three or more) or
/// `κ 0.6, 0.8`.
fn kappa_label(ks: &[f64]) -> String {
    match ks {
        [k] => format!("κ {}", fmt_num(*k)),
        _ if ks.len() > 2 => format!(
            "κ {}–{} (one point)",
            fmt_num(ks[0]),
            fmt_num(*ks.last().expect("non-empty"))
        ),
        _ => format!(
            "κ {}",
            ks.iter()
                .map(|k| fmt_num(*k))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Draws late-job % (y) against accepted revenue (x, in $M from $1M on), one curve per policy through its
/// κ_use points; identical points (on-demand's) are drawn once with every κ in one label, and a κ label that
/// would overlap one already drawn moves to another side of its point or is left out. Non-finite values are
/// skipped. Errors: a backend failure.
pub fn draw_frontier<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    cells: &[CellResult],
    opts: &FrontierOptions,
) -> Result<(), ChartError> {
    let dp = blank(area, opts.scale)?;
    let ok = |c: &&CellResult| c.revenue.is_finite() && c.late_pct.is_finite();
    let (x_lo, x_hi) = bounds(cells.iter().filter(ok).map(|c| c.revenue)).unwrap_or((0.0, 1.0));
    let unit = if x_hi.abs() >= 1e6 { 1e6 } else { 1.0 };
    let (x_lo, x_hi) = (x_lo / unit, x_hi / unit);
    let y_hi = bounds(cells.iter().filter(ok).map(|c| c.late_pct))
        .map(|b| b.1)
        .unwrap_or(0.0);
    let pad = ((x_hi - x_lo) * 0.08).max(x_hi.abs() * 0.02).max(1e-9);
    let (x0, x1) = ((x_lo - pad).max(0.0), x_hi + pad);
    let y1 = (y_hi * 1.15).max(1.0);
    let mut builder = framed(area, dp, opts.title.as_deref());
    let mut chart = builder.build_cartesian_2d(x0..x1, 0.0..y1).map_err(err)?;
    let x_fmt = |v: &f64| fmt_num(*v);
    let y_fmt = |v: &f64| format!("{}%", fmt_num(*v));
    chart
        .configure_mesh()
        .x_desc(if unit > 1.0 {
            "accepted revenue ($M; more is better)"
        } else {
            "accepted revenue ($; more is better)"
        })
        .y_desc("late jobs (% of accepted)")
        .draw_labelled(dp, (8, 6), &x_fmt, &y_fmt)?;
    // label boxes already drawn, pixels: (x0, y0, x1, y1)
    let mut placed: Vec<(i32, i32, i32, i32)> = Vec::new();
    let lh = dp.pxi(12.0);
    for (i, p) in policies(cells).iter().enumerate() {
        let color = color_of(i, p);
        let pts = frontier_points(cells, p);
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|q| (q.0 / unit, q.1)),
                color.stroke_width(dp.px(2.0)),
            ))
            .map_err(err)?
            .label(p.clone())
            .legend(move |(x, y)| {
                PathElement::new(
                    vec![(x, y), (x + dp.pxi(18.0), y)],
                    color.stroke_width(dp.px(2.0)),
                )
            });
        for q in &pts {
            let text = kappa_label(&q.2);
            let (px, py) = chart.backend_coord(&(q.0 / unit, q.1));
            let w = dp.pxi(5.6 * text.chars().count() as f64);
            let offsets = [
                (dp.pxi(5.0), -dp.pxi(14.0)),
                (dp.pxi(5.0), dp.pxi(3.0)),
                (-dp.pxi(5.0) - w, -dp.pxi(14.0)),
                (-dp.pxi(5.0) - w, dp.pxi(3.0)),
            ];
            let free = offsets.iter().copied().find(|&(dx, dy)| {
                let b = (px + dx, py + dy, px + dx + w, py + dy + lh);
                !placed
                    .iter()
                    .any(|o| b.0 < o.2 && o.0 < b.2 && b.1 < o.3 && o.1 < b.3)
            });
            let el = EmptyElement::at((q.0 / unit, q.1))
                + Circle::new((0, 0), dp.pxi(3.5), color.filled());
            if let Some((dx, dy)) = free {
                placed.push((px + dx, py + dy, px + dx + w, py + dy + lh));
                chart
                    .draw_series(std::iter::once(
                        el + Text::new(
                            text,
                            (dx, dy),
                            (FONT, dp.px(10.0)).into_font().color(&INK.mix(0.7)),
                        ),
                    ))
                    .map_err(err)?;
            } else {
                chart.draw_series(std::iter::once(el)).map_err(err)?;
            }
        }
    }
    if !cells.is_empty() {
        draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, dp)?;
    }
    area.present().map_err(err)?;
    Ok(())
}

/// Draws value efficiency (percent of all requested value completed on time) per policy as bars, at each
/// policy's largest κ_use; a bar's label gives the value. Errors: a backend failure.
pub fn draw_efficiency<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    cells: &[CellResult],
    opts: &FrontierOptions,
) -> Result<(), ChartError> {
    let dp = blank(area, opts.scale)?;
    let ps = policies(cells);
    let vals: Vec<f64> = ps
        .iter()
        .map(|p| {
            cells
                .iter()
                .filter(|c| &c.policy == p)
                .max_by(|a, b| a.kappa.total_cmp(&b.kappa))
                .map_or(f64::NAN, |c| 100.0 * c.value_efficiency)
        })
        .collect();
    let y_max = vals
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let y1 = ((y_max * 1.2 / 10.0).ceil() * 10.0).clamp(10.0, 100.0);
    let n = ps.len().max(1) as f64;
    let mut builder = framed(area, dp, opts.title.as_deref());
    let mut chart = builder.build_cartesian_2d(0.0..n, 0.0..y1).map_err(err)?;
    // the names under the bars: in full where each two neighbours fit beside each other (~6.5 px a character
    // at 12 px), else abbreviated in two staggered rows (a phone-wide chart: six names in ~250 px)
    let bar_px = chart.plotting_area().dim_in_pixel().0 as f64 / n;
    let chars: Vec<f64> = ps.iter().map(|p| p.chars().count() as f64).collect();
    let narrow = chars
        .first()
        .is_some_and(|c| c * dp.px(6.5) as f64 > bar_px)
        || chars
            .windows(2)
            .any(|w| (w[0] + w[1]) / 2.0 * (dp.px(6.5) as f64) > bar_px - dp.px(4.0) as f64);
    let names = if narrow { Vec::new() } else { ps.clone() };
    let x_fmt = move |v: &f64| {
        let i = (*v - 0.5).round();
        if (v - 0.5 - i).abs() < 1e-6 && i >= 0.0 {
            names.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let y_fmt = |v: &f64| format!("{}%", fmt_num(*v));
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc(if narrow {
            "policy (BE: BASIC_ECON, pen: penalty)"
        } else {
            "policy"
        })
        .y_desc("value efficiency (%)")
        .draw_labelled(dp, (2 * ps.len() + 1, 6), &x_fmt, &y_fmt)?;
    for (i, v) in vals.iter().enumerate() {
        if !v.is_finite() {
            continue;
        }
        let x = i as f64;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x + 0.2, 0.0), (x + 0.8, *v)],
                color_of(i, &ps[i]).filled(),
            )))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(
                EmptyElement::at((x + 0.5, *v))
                    + Text::new(
                        format!("{v:.1}%"),
                        (-dp.pxi(14.0), -dp.pxi(16.0)),
                        (FONT, dp.px(12.0)).into_font().color(&INK),
                    ),
            ))
            .map_err(err)?;
    }
    if narrow {
        for (i, p) in ps.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
            let dy = dp.pxi(6.0 + 14.0 * (i % 2) as f64);
            area.draw(&Text::new(
                short_policy(p),
                (px, py + dy),
                (FONT, dp.px(12.0))
                    .into_font()
                    .color(&INK)
                    .pos(Pos::new(HPos::Center, VPos::Top)),
            ))
            .map_err(err)?;
        }
    }
    area.present().map_err(err)?;
    Ok(())
}

/// A legend's filled box, 14 × 10 pixels, for a series of bars drawn in `style`.
fn box_swatch(style: ShapeStyle) -> impl Fn((i32, i32)) -> Rectangle<(i32, i32)> {
    move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], style)
}

/// A policy's name in a few characters, for a narrow chart: `basic-econ:linear:penalty` → `BE lin+pen`
/// (on-demand and greedy stay).
fn short_policy(p: &str) -> String {
    let mut parts = p.split(':');
    match parts.next() {
        Some("basic-econ") => {
            let mut out = "BE".to_string();
            for q in parts {
                out.push_str(match q {
                    "linear" => " lin",
                    "lp" => " LP",
                    "spread" => " spr",
                    "penalty" => "+pen",
                    other => other,
                });
            }
            out
        }
        _ => p.to_string(),
    }
}

/// Draws one request's decision: upper half, the committed load against the planned capacity over the
/// request's window (units); lower half, the block price `b_τ` of each slot and the price of each start
/// (dollars), the chosen start marked. Errors: a backend failure.
pub fn draw_request<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    v: &RequestView,
    opts: &FrontierOptions,
) -> Result<(), ChartError> {
    let dp = blank(area, opts.scale)?;
    let (top, bottom) = area.split_vertically(area.dim_in_pixel().1 / 2);
    let n = v.load.len().max(1) as f64;
    let x0 = v.from as f64;
    let cap_max = v.capacity.max(v.cap).max(1.0);
    let y1 = v
        .load
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .fold(cap_max, f64::max)
        * 1.1;
    let mut c1 = ChartBuilder::on(&top)
        .margin(dp.pxi(10.0))
        .x_label_area_size(dp.pxi(44.0))
        .y_label_area_size(dp.pxi(62.0))
        .caption(
            opts.title
                .clone()
                .unwrap_or_else(|| "the plan over the request's window".into()),
            (FONT, dp.px(14.0)).into_font().color(&INK),
        )
        .build_cartesian_2d(x0..x0 + n, 0.0..y1)
        .map_err(err)?;
    let fmt = |v: &f64| fmt_num(*v);
    c1.configure_mesh()
        .x_desc("slot (minute)")
        .y_desc("units")
        .draw_labelled_px(dp, (8, 5), &fmt, &fmt, (11.0, 12.0))?;
    c1.draw_series(
        v.load
            .iter()
            .enumerate()
            .filter(|(_, l)| l.is_finite())
            .map(|(i, l)| {
                Rectangle::new(
                    [(x0 + i as f64, 0.0), (x0 + i as f64 + 1.0, *l)],
                    ARM_COLORS[0].mix(0.5).filled(),
                )
            }),
    )
    .map_err(err)?
    .label("committed load L(τ)")
    .legend(box_swatch(ARM_COLORS[0].mix(0.5).filled()));
    let cap = v.cap;
    c1.draw_series(LineSeries::new(
        vec![(x0, cap), (x0 + n, cap)],
        INK.stroke_width(dp.px(1.5)),
    ))
    .map_err(err)?
    .label(format!("planned capacity κ·C = {}", fmt_num(cap)))
    .legend(move |(x, y)| {
        PathElement::new(
            vec![(x, y), (x + dp.pxi(18.0), y)],
            INK.stroke_width(dp.px(1.5)),
        )
    });
    if let (Some(r), Some(q)) = (&v.request, v.decision.and_then(|d| d.quote)) {
        let top_of = |t: i64| v.load.get((t - v.from) as usize).copied().unwrap_or(0.0);
        let color = if v.decision.is_some_and(|d| d.accept) {
            ARM_COLORS[2]
        } else {
            ARM_COLORS[5]
        };
        c1.draw_series((q.start..q.start + r.t).map(|t| {
            let b = top_of(t);
            Rectangle::new(
                [(t as f64, b), (t as f64 + 1.0, b + r.w)],
                color.mix(0.8).filled(),
            )
        }))
        .map_err(err)?
        .label(if v.decision.is_some_and(|d| d.accept) {
            "the request, accepted"
        } else {
            "the request at its cheapest start (rejected)"
        })
        .legend(box_swatch(color.mix(0.8).filled()));
    }
    draw_legend(&mut c1, SeriesLabelPosition::UpperRight, dp)?;

    let prices: Vec<f64> = v
        .detail
        .block
        .iter()
        .chain(v.detail.starts.iter())
        .flatten()
        .copied()
        .filter(|p| p.is_finite())
        .collect();
    let p_hi = prices.iter().copied().fold(0.0, f64::max).max(1e-9) * 1.1;
    let mut c2 = ChartBuilder::on(&bottom)
        .margin(dp.pxi(10.0))
        .x_label_area_size(dp.pxi(44.0))
        .y_label_area_size(dp.pxi(62.0))
        .build_cartesian_2d(x0..x0 + n, 0.0..p_hi)
        .map_err(err)?;
    c2.configure_mesh()
        .x_desc("slot (minute)")
        .y_desc("price ($)")
        .draw_labelled_px(dp, (8, 5), &fmt, &fmt, (11.0, 12.0))?;
    c2.draw_series(v.detail.block.iter().enumerate().filter_map(|(i, b)| {
        b.filter(|b| b.is_finite()).map(|b| {
            Rectangle::new(
                [(x0 + i as f64, 0.0), (x0 + i as f64 + 1.0, b)],
                ARM_COLORS[1].mix(0.45).filled(),
            )
        })
    }))
    .map_err(err)?
    .label("block price b_τ of W units in slot τ")
    .legend(box_swatch(ARM_COLORS[1].mix(0.45).filled()));
    let starts: Vec<(f64, f64)> = v
        .detail
        .starts
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            p.filter(|p| p.is_finite())
                .map(|p| (x0 + i as f64 + 0.5, p))
        })
        .collect();
    c2.draw_series(
        starts
            .iter()
            .map(|&(x, p)| Circle::new((x, p), dp.pxi(2.0), ARM_COLORS[3].filled())),
    )
    .map_err(err)?
    .label("price(x) of starting at slot x")
    .legend(move |(x, y)| Circle::new((x + 7, y), dp.pxi(3.0), ARM_COLORS[3].filled()));
    if let Some(q) = v.decision.and_then(|d| d.quote) {
        let x = q.start as f64 + 0.5;
        // the chosen start's quote is a legend entry, not a label beside the point: on a narrow chart a label
        // there met the legend's captions
        c2.draw_series(std::iter::once(Circle::new(
            (x, q.price.min(p_hi)),
            dp.pxi(5.0),
            INK.stroke_width(dp.px(2.0)),
        )))
        .map_err(err)?
        .label(format!("x* = {}: ${}", q.start, fmt_num(q.price)))
        .legend(move |(x, y)| Circle::new((x + 7, y), dp.pxi(5.0), INK.stroke_width(dp.px(2.0))));
    }
    draw_legend(&mut c2, SeriesLabelPosition::UpperRight, dp)?;
    area.present().map_err(err)?;
    Ok(())
}

/// An era chart as an SVG document of `width` × `height` pixels (`name` without the `era.` prefix:
/// `frontier` or `efficiency`).
pub fn cells_svg(
    name: &str,
    cells: &[CellResult],
    opts: &FrontierOptions,
    width: u32,
    height: u32,
) -> Result<String, ChartError> {
    render_svg(width, height, |area| match name {
        "efficiency" => draw_efficiency(area, cells, opts),
        _ => draw_frontier(area, cells, opts),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(p: &str, k: f64, rev: f64, late: f64, eff: f64) -> CellResult {
        CellResult {
            policy: p.into(),
            kappa: k,
            revenue: rev,
            late_pct: late,
            value_efficiency: eff,
            ..Default::default()
        }
    }

    /// On-demand's five identical points are one point labelled with every κ; revenue above $1M is in $M; two
    /// labels at the same spot are not both drawn at the same offset.
    #[test]
    fn frontier_merges_identical_points_and_shows_millions() {
        // the stored E4.3 run's on-demand: κ 0.6 earns $20,352,522, the others $20,363,725 (0.06% more)
        let mut cells: Vec<CellResult> = [0.6, 0.7, 0.8, 0.9, 1.0]
            .iter()
            .map(|&k| {
                cell(
                    "on-demand",
                    k,
                    if k == 0.6 { 20_352_522.0 } else { 20_363_725.0 },
                    0.72,
                    0.5,
                )
            })
            .collect();
        cells.push(cell("greedy", 0.6, 20.2e6, 0.11, 0.5));
        cells.push(cell("greedy", 1.0, 27.6e6, 6.16, 0.5));
        let pts = frontier_points(&cells, "on-demand");
        assert_eq!(pts.len(), 1);
        assert_eq!(pts[0].2, [0.6, 0.7, 0.8, 0.9, 1.0]);
        assert_eq!(kappa_label(&pts[0].2), "κ 0.6–1 (one point)");
        assert_eq!(kappa_label(&[0.6, 0.8]), "κ 0.6, 0.8");
        let svg = cells_svg("frontier", &cells, &FrontierOptions::default(), 700, 450).unwrap();
        assert!(svg.contains("$M"));
        assert_eq!(svg.matches("κ 0.6–1 (one point)").count(), 1);
        assert!(!svg.contains(">κ 0.7<"));
        // a second policy exactly on top of on-demand: its label is drawn at another offset, not on top
        cells.push(cell("copy", 0.5, 20_352_522.0, 0.72, 0.5));
        let svg = cells_svg("frontier", &cells, &FrontierOptions::default(), 700, 450).unwrap();
        let at = |label: &str| -> (String, String) {
            let i = svg.find(label).unwrap_or_else(|| panic!("no {label}"));
            let tag = &svg[svg[..i].rfind("<text").unwrap()..i];
            let attr = |k: &str| {
                let j = tag.find(&format!(" {k}=\"")).unwrap() + k.len() + 3;
                tag[j..j + tag[j..].find('"').unwrap()].to_string()
            };
            (attr("x"), attr("y"))
        };
        assert_ne!(at("κ 0.6–1 (one point)"), at("κ 0.5"));
    }

    #[test]
    fn charts_render_every_policy_and_survive_odd_data() {
        let cells = vec![
            cell("greedy", 0.6, 100.0, 1.0, 0.1),
            cell("greedy", 1.0, 150.0, 5.0, 0.12),
            cell("basic-econ:lp", 1.0, 200.0, 2.0, 0.4),
            cell("x", 1.0, f64::NAN, f64::INFINITY, f64::NAN),
        ];
        let svg = cells_svg("frontier", &cells, &FrontierOptions::default(), 700, 450).unwrap();
        for s in ["greedy", "basic-econ:lp", "κ 0.6", "late jobs"] {
            assert!(svg.contains(s), "{s}");
        }
        let svg = cells_svg("efficiency", &cells, &FrontierOptions::default(), 700, 450).unwrap();
        for s in ["12.0%", "40.0%", "basic-econ:lp"] {
            assert!(svg.contains(s), "{s}");
        }
        assert!(cells_svg("frontier", &[], &FrontierOptions::default(), 300, 200).is_ok());
        assert!(cells_svg("efficiency", &[], &FrontierOptions::default(), 300, 200).is_ok());
        let v = RequestView::default();
        assert!(render_svg(400, 400, |a| draw_request(
            a,
            &v,
            &FrontierOptions::default()
        ))
        .is_ok());
    }
}
