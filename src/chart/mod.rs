//! The shared chart frame, drawn with plotters onto any [`DrawingBackend`]: an HTML canvas in the browser
//! (`plotters-canvas`, main thread only: plotters measures text through `window.document`) and an SVG string
//! natively and for the browser's "Export SVG".
//!
//! This module holds what every chart shares: the palette and fonts, device-pixel sizing ([`Px`]), the
//! log-scaled axis with its floor line for zeros ([`LogAxis`]), legends, number formatting, SVG rendering
//! ([`render_svg`]) and the trace panel's histogram ([`draw_histogram`], chart `trace.histogram`). Each
//! model's charts live in its folder (`src/models/<model>/chart.rs`) and are reached by name through the
//! registry ([`crate::models::draw_chart`]). Inputs are small serde structs, independent of the engine's
//! result types, so JavaScript can hand over the JSON it already has and the CLI can render the same
//! pictures. Every function returns `Result`.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::{Deserialize, Serialize};

/// A histogram: counts of equal-width bins over [lo, hi].
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct HistogramChart {
    pub lo: f64,
    pub hi: f64,
    pub counts: Vec<u64>,
    #[serde(default)]
    pub x_label: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub scale: Option<f64>,
}

/// Options of a chart that takes only a caption and a device pixel ratio (the era and oversub charts).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CaptionOptions {
    /// Caption above the plot.
    #[serde(default)]
    pub title: Option<String>,
    /// Device pixel ratio (1 when absent).
    #[serde(default)]
    pub scale: Option<f64>,
}

/// Errors of chart drawing (a backend failure or unusable input).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChartError(pub String);

impl std::fmt::Display for ChartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "chart: {}", self.0)
    }
}

impl std::error::Error for ChartError {}

/// Colours of the series of multi-series charts (e.g. the admission arms), by index (Okabe–Ito, then greys).
pub const ARM_COLORS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(120, 94, 240),
    RGBColor(100, 100, 100),
];

/// CSS colour (`#rrggbb`) of arm `i`, so the page's table can match the chart.
pub fn arm_color_hex(i: usize) -> String {
    let c = ARM_COLORS[i % ARM_COLORS.len()];
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// The mesh look every chart shares: label and axis-description fonts (`label_px`, `desc_px` before device
/// scaling), grid lines and axis colour.
pub(crate) trait MeshLook {
    /// Applies the look; returns the mesh for further settings.
    fn look(&mut self, dp: Px, label_px: f64, desc_px: f64) -> &mut Self;
}

impl<
        X: plotters::coord::ranged1d::Ranged,
        Y: plotters::coord::ranged1d::Ranged,
        DB: DrawingBackend,
    > MeshLook for plotters::chart::MeshStyle<'_, '_, X, Y, DB>
{
    fn look(&mut self, dp: Px, label_px: f64, desc_px: f64) -> &mut Self {
        self.label_style((FONT, dp.px(label_px)).into_font().color(&INK))
            .axis_desc_style((FONT, dp.px(desc_px)).into_font().color(&INK))
            .bold_line_style(GRID.stroke_width(dp.px(1.0)))
            .light_line_style(GRID_LIGHT.stroke_width(dp.px(1.0)))
            .axis_style(INK.mix(0.6).stroke_width(dp.px(1.0)))
    }
}

/// The end of every cartesian chart's mesh set-up: `labels` = (labels on x, labels on y), the two tick
/// formatters, the shared look ([`MeshLook`], 12 px labels and 13 px axis descriptions unless given), then the
/// draw.
pub(crate) trait MeshDraw<
    'b,
    X: plotters::coord::ranged1d::Ranged,
    Y: plotters::coord::ranged1d::Ranged,
>
{
    /// Sets the labels, formatters and look, and draws the mesh. Errors: a backend failure.
    fn draw_labelled(
        &mut self,
        dp: Px,
        labels: (usize, usize),
        x_fmt: &'b dyn Fn(&X::ValueType) -> String,
        y_fmt: &'b dyn Fn(&Y::ValueType) -> String,
    ) -> Result<(), ChartError> {
        self.draw_labelled_px(dp, labels, x_fmt, y_fmt, (12.0, 13.0))
    }

    /// [`MeshDraw::draw_labelled`] with other font sizes: `(label_px, desc_px)` CSS pixels for the tick labels
    /// and the axis descriptions (a smaller panel's).
    fn draw_labelled_px(
        &mut self,
        dp: Px,
        labels: (usize, usize),
        x_fmt: &'b dyn Fn(&X::ValueType) -> String,
        y_fmt: &'b dyn Fn(&Y::ValueType) -> String,
        font_px: (f64, f64),
    ) -> Result<(), ChartError>;
}

impl<'b, X, Y, DB> MeshDraw<'b, X, Y> for plotters::chart::MeshStyle<'_, 'b, X, Y, DB>
where
    X: plotters::coord::ranged1d::Ranged
        + plotters::coord::ranged1d::ValueFormatter<
            <X as plotters::coord::ranged1d::Ranged>::ValueType,
        >,
    Y: plotters::coord::ranged1d::Ranged
        + plotters::coord::ranged1d::ValueFormatter<
            <Y as plotters::coord::ranged1d::Ranged>::ValueType,
        >,
    DB: DrawingBackend,
{
    fn draw_labelled_px(
        &mut self,
        dp: Px,
        (x_labels, y_labels): (usize, usize),
        x_fmt: &'b dyn Fn(&X::ValueType) -> String,
        y_fmt: &'b dyn Fn(&Y::ValueType) -> String,
        (label_px, desc_px): (f64, f64),
    ) -> Result<(), ChartError> {
        self.x_labels(x_labels)
            .y_labels(y_labels)
            .x_label_formatter(x_fmt)
            .y_label_formatter(y_fmt)
            .look(dp, label_px, desc_px)
            .draw()
            .map_err(err)
    }
}

pub(crate) fn err<E: std::fmt::Debug>(e: E) -> ChartError {
    ChartError(format!("{e:?}"))
}

pub(crate) const OTHER: RGBColor = RGBColor(120, 120, 120);
/// A user's script (issue 31), in every model's chart and table.
pub(crate) const SCRIPT: RGBColor = RGBColor(213, 94, 0);
pub(crate) const INK: RGBColor = RGBColor(33, 37, 41);
pub(crate) const GRID: RGBColor = RGBColor(225, 228, 232);
pub(crate) const GRID_LIGHT: RGBColor = RGBColor(242, 244, 246);
pub(crate) const TARGET: RGBColor = RGBColor(213, 94, 0);
pub(crate) const FONT: &str = "sans-serif";

/// "10⁻³" for exact powers of ten, "2·10⁻³"-style otherwise, "0.5"/"1" for plain values near 1.
pub fn fmt_log_tick(v: f64) -> String {
    if !(v > 0.0) || !v.is_finite() {
        return String::new();
    }
    let e = v.log10().round();
    if (v.log10() - e).abs() < 1e-9 {
        return match e as i32 {
            0 => "1".into(),
            1 => "10".into(),
            -1 => "0.1".into(),
            k => format!("10{}", superscript(k)),
        };
    }
    String::new()
}

pub(crate) fn superscript(k: i32) -> String {
    k.to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            _ => '⁹',
        })
        .collect()
}

/// Short number for labels: at most 3 significant digits without trailing zeros, scientific below 1e-3.
pub fn fmt_num(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if !v.is_finite() {
        format!("{v}")
    } else if v.abs() < 1e-3 || v.abs() >= 1e5 {
        let s = format!("{v:.2e}");
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let mant = if mant.contains('.') {
            mant.trim_end_matches('0').trim_end_matches('.')
        } else {
            mant
        };
        format!("{mant}e{exp}")
    } else {
        let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
        let s = format!("{v:.digits$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    }
}

pub(crate) fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// A linear axis range plotters can draw: `lo..hi` itself when it is finite, increasing, within ±1e100 and
/// at least 1e-9 of its magnitude wide (every range a real report gives); otherwise the nearest such range.
/// Plotters' tick search never ends on an infinite, NaN or vanishing span (a hang found by the property tests
/// of chart data: tests/integration/untrusted_scenarios.rs).
pub(crate) fn span(lo: f64, hi: f64) -> std::ops::Range<f64> {
    const BIG: f64 = 1e100;
    let lo = if lo.is_finite() {
        lo.clamp(-BIG, BIG)
    } else {
        0.0
    };
    let hi = if hi.is_finite() {
        hi.clamp(-BIG, BIG)
    } else {
        lo + 1.0
    };
    let (lo, hi) = if hi < lo { (hi, lo) } else { (lo, hi) };
    let min = 1e-9 * lo.abs().max(hi.abs()).max(1e-200);
    if hi - lo >= min {
        lo..hi
    } else {
        let pad = (lo.abs().max(hi.abs()) * 1e-6).max(1e-6);
        lo - pad..hi + pad
    }
}

/// Lengths in device pixels: CSS pixel lengths times the device pixel ratio of a chart's options (1 when
/// absent, zero, negative or not finite), so text, markers and lines keep their size on high-DPI screens.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Px(pub(crate) f64);

impl Px {
    pub(crate) fn new(scale: Option<f64>) -> Px {
        Px(scale.filter(|s| s.is_finite() && *s > 0.0).unwrap_or(1.0))
    }

    /// A size (line width, radius, font size, dash): at least 1 pixel.
    pub(crate) fn px(self, v: f64) -> u32 {
        (v * self.0).round().max(1.0) as u32
    }

    /// An offset or a margin (may be 0 or negative).
    pub(crate) fn pxi(self, v: f64) -> i32 {
        (v * self.0).round() as i32
    }
}

/// Starts a chart: fills `area` white and gives the pixel scale of `scale` (the options' device pixel ratio).
/// Errors: a backend failure.
pub(crate) fn blank<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    scale: Option<f64>,
) -> Result<Px, ChartError> {
    area.fill(&WHITE).map_err(err)?;
    Ok(Px::new(scale))
}

/// A chart builder on `area` with the frame every model's cartesian chart uses: 14 px margin, 46 px for the
/// x labels, 62 px for the y labels, and the caption `title` (15 px) when there is one.
pub(crate) fn framed<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    dp: Px,
    title: Option<&str>,
) -> ChartBuilder<'a, 'static, DB> {
    let mut builder = ChartBuilder::on(area);
    builder
        .margin(dp.pxi(14.0))
        .x_label_area_size(dp.pxi(46.0))
        .y_label_area_size(dp.pxi(62.0));
    if let Some(t) = title {
        builder.caption(t, (FONT, dp.px(15.0)).into_font().color(&INK));
    }
    builder
}

/// A chart builder like [`framed`] with room (62 px) for a right-hand y axis: a chart whose series have two
/// scales builds its second coordinate system (`set_secondary_coord`) on it and draws that axis with
/// [`right_axis`], instead of rescaling the second series onto the first axis.
pub(crate) fn framed_dual<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    dp: Px,
    title: Option<&str>,
) -> ChartBuilder<'a, 'static, DB> {
    let mut builder = framed(area, dp, title);
    builder.right_y_label_area_size(dp.pxi(62.0));
    builder
}

/// A dual-axis chart of [`framed_dual`] with linear coordinates on both sides.
pub(crate) type DualChart<'a, DB> = plotters::chart::DualCoordChartContext<
    'a,
    DB,
    Cartesian2d<RangedCoordf64, RangedCoordf64>,
    Cartesian2d<RangedCoordf64, RangedCoordf64>,
>;

/// Draws the right-hand y axis of a [`DualChart`]: `labels` ticks formatted by `fmt`, the description `desc`
/// (drawn along the axis), in the look of the left axis ([`MeshLook`]: `label_px`, `desc_px`). Errors: a
/// backend failure.
pub(crate) fn right_axis<DB: DrawingBackend>(
    chart: &mut DualChart<'_, DB>,
    dp: Px,
    desc: &str,
    labels: usize,
    fmt: &dyn Fn(&f64) -> String,
    (label_px, desc_px): (f64, f64),
) -> Result<(), ChartError> {
    chart
        .configure_secondary_axes()
        .y_desc(desc)
        .y_labels(labels)
        .y_label_formatter(fmt)
        .label_style((FONT, dp.px(label_px)).into_font().color(&INK))
        .axis_desc_style((FONT, dp.px(desc_px)).into_font().color(&INK))
        .axis_style(INK.mix(0.6).stroke_width(dp.px(1.0)))
        .draw()
        .map_err(err)
}

/// The chart type of both frontier charts: linear x, log-scale y.
type LogChart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, LogCoord<f64>>>;

/// Most decades a log axis spans ([`LogAxis::new`]).
pub(crate) const MAX_DECADES: f64 = 40.0;

/// The log-scale y axis shared by the placement and the admission frontier charts: whole decades around the
/// positive values and an optional reference line (target ρ, SLA ε). A value of exactly 0 cannot sit on a
/// log axis: when there is one, zeros are drawn on a dashed floor line one decade below the smallest
/// positive value, whose tick reads "0".
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LogAxis {
    /// Lowest and highest decade exponents.
    pub(crate) lo_exp: f64,
    pub(crate) hi_exp: f64,
    /// The y standing for 0 (None when no value is 0).
    pub(crate) zero_floor: Option<f64>,
    /// The axis range.
    pub(crate) lo: f64,
    pub(crate) hi: f64,
}

impl LogAxis {
    /// The axis for `values` (non-finite ones ignored, zeros on the floor) and `reference`; `fallback` is
    /// the (min, max) used when there is no positive value at all.
    /// The axis spans at most [`MAX_DECADES`] decades within 1e-290..1e300 (a wider span, e.g. from data
    /// with 1e-300 or f64::MAX in it, would make plotters loop over hundreds of decades or an infinite range);
    /// values beyond it are drawn at its edge.
    pub(crate) fn new(values: &[f64], reference: Option<f64>, fallback: (f64, f64)) -> LogAxis {
        let positive = values.iter().copied().chain(reference);
        let (q_min, q_max) =
            bounds(positive.filter(|q| q.is_finite() && *q > 0.0)).unwrap_or(fallback);
        let any_zero = values.iter().any(|q| *q == 0.0);
        let hi_exp = (q_max.log10() + 0.15).ceil().clamp(-250.0, 300.0);
        let lo_exp = q_min
            .log10()
            .floor()
            .clamp(hi_exp - MAX_DECADES, hi_exp - 1.0);
        let hi_exp = hi_exp.max(lo_exp + 1.0);
        let zero_floor = any_zero.then(|| 10f64.powf(lo_exp - 1.0));
        let lo = match zero_floor {
            Some(f) => f / 10f64.powf(0.35),
            None => 10f64.powf(lo_exp),
        };
        LogAxis {
            lo_exp,
            hi_exp,
            zero_floor,
            lo,
            hi: 10f64.powf(hi_exp),
        }
    }

    /// Where a value is drawn: itself when positive, else on the floor (or the axis bottom).
    pub(crate) fn y(&self, q: f64) -> f64 {
        if q > 0.0 {
            q
        } else {
            self.zero_floor.unwrap_or(self.lo)
        }
    }

    /// How many y labels to ask plotters for (one per decade and some).
    pub(crate) fn label_count(&self) -> usize {
        ((self.hi_exp - self.lo_exp) as usize + 2).max(3)
    }

    /// The y tick label: "0" on the floor, nothing between the floor and the first decade, else
    /// [`fmt_log_tick`].
    pub(crate) fn tick_label(&self, v: f64) -> String {
        match self.zero_floor {
            Some(f) if (v / f - 1.0).abs() < 1e-9 => "0".to_string(),
            Some(f) if v < f * 9.99 => String::new(),
            _ => fmt_log_tick(v),
        }
    }

    /// Builds the chart with this y axis over `x_lo..x_hi`.
    pub(crate) fn build<'a, 'b, DB: DrawingBackend>(
        &self,
        builder: &mut ChartBuilder<'a, 'b, DB>,
        x_lo: f64,
        x_hi: f64,
    ) -> Result<LogChart<'a, DB>, ChartError> {
        builder
            .build_cartesian_2d(span(x_lo, x_hi), (self.lo..self.hi).log_scale())
            .map_err(err)
    }

    /// Draws the dashed floor line across `x_lo..x_hi` with `label` above its left end (nothing when no
    /// value is 0).
    pub(crate) fn draw_floor<DB: DrawingBackend>(
        &self,
        chart: &mut LogChart<'_, DB>,
        x_lo: f64,
        x_hi: f64,
        label: &str,
        dp: Px,
    ) -> Result<(), ChartError> {
        let Some(f) = self.zero_floor else {
            return Ok(());
        };
        chart
            .draw_series(DashedLineSeries::new(
                vec![(x_lo, f), (x_hi, f)],
                dp.px(4.0),
                dp.px(4.0),
                INK.mix(0.45).stroke_width(dp.px(1.0)),
            ))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(
                EmptyElement::at((x_lo, f))
                    + Text::new(
                        label.to_string(),
                        (dp.pxi(6.0), -dp.pxi(3.0)),
                        (FONT, dp.px(11.0))
                            .into_font()
                            .color(&INK.mix(0.7))
                            .pos(Pos::new(HPos::Left, VPos::Bottom)),
                    ),
            ))
            .map_err(err)?;
        Ok(())
    }
}

/// What the two frontier charts draw around their series ([`LogAxis::frame`]).
pub(crate) struct LogFrame<'f> {
    pub(crate) title: Option<&'f str>,
    pub(crate) x_range: (f64, f64),
    pub(crate) x_desc: &'f str,
    pub(crate) x_fmt: &'f dyn Fn(&f64) -> String,
    pub(crate) y_desc: &'f str,
    /// Label of the floor line of zeros.
    pub(crate) floor_label: &'f str,
    /// The dashed reference line (target ρ, SLA ε): its value and legend label.
    pub(crate) reference: Option<(f64, String)>,
}

impl LogAxis {
    /// Builds a frontier chart on `area` with this y axis: caption, mesh with the axis descriptions, the
    /// floor line of zeros and the reference line (in that drawing order). The series come after.
    pub(crate) fn frame<'a, DB: DrawingBackend>(
        &self,
        area: &'a DrawingArea<DB, Shift>,
        f: LogFrame<'_>,
        dp: Px,
    ) -> Result<LogChart<'a, DB>, ChartError> {
        let (x_lo, x_hi) = f.x_range;
        let mut builder = framed(area, dp, f.title.as_deref());
        let mut chart = self.build(&mut builder, x_lo, x_hi)?;
        let y_fmt = |v: &f64| self.tick_label(*v);
        chart
            .configure_mesh()
            .x_desc(f.x_desc)
            .y_desc(f.y_desc)
            .draw_labelled(dp, (8, self.label_count()), f.x_fmt, &y_fmt)?;
        self.draw_floor(&mut chart, x_lo, x_hi, f.floor_label, dp)?;
        if let Some((r, label)) = f.reference {
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(x_lo, r), (x_hi, r)],
                    dp.px(7.0),
                    dp.px(4.0),
                    TARGET.stroke_width(dp.px(1.5)),
                ))
                .map_err(err)?
                .label(label)
                .legend(move |(x, y)| {
                    PathElement::new(
                        vec![(x, y), (x + dp.pxi(18.0), y)],
                        TARGET.stroke_width(dp.px(1.5)),
                    )
                });
        }
        Ok(chart)
    }

    /// One series of a frontier chart, points `(x, y)` in the order given: a thin line through them (`line_mix`
    /// of `color`) when there are two or more, ringed dots of `radius` CSS pixels (hollow at y = 0, drawn on
    /// the floor), and a filled dot before `label` in the legend.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn draw_dots<DB: DrawingBackend>(
        &self,
        chart: &mut LogChart<'_, DB>,
        pts: &[(f64, f64)],
        color: RGBColor,
        line_mix: f64,
        radius: f64,
        label: &str,
        dp: Px,
    ) -> Result<(), ChartError> {
        if pts.len() > 1 {
            chart
                .draw_series(LineSeries::new(
                    pts.iter().map(|p| (p.0, self.y(p.1))),
                    color.mix(line_mix).stroke_width(dp.px(1.5)),
                ))
                .map_err(err)?;
        }
        let r = dp.px(radius);
        let sw = dp.px(1.5);
        chart
            .draw_series(pts.iter().map(move |p| {
                let style = if p.1 > 0.0 {
                    color.filled()
                } else {
                    WHITE.filled()
                };
                EmptyElement::at((p.0, self.y(p.1)))
                    + Circle::new((0, 0), r, style)
                    + Circle::new((0, 0), r, color.stroke_width(sw))
            }))
            .map_err(err)?
            .label(label)
            .legend(move |(x, y)| Circle::new((x + dp.pxi(9.0), y), r, color.filled()));
        Ok(())
    }
}

/// The legend box of every model's charts, at `position` (12 px labels on a translucent white box with a
/// grid-coloured border, scaled by `dp`). Errors: a backend failure.
pub(crate) fn draw_legend<'a, DB: DrawingBackend + 'a, X, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    position: SeriesLabelPosition,
    dp: Px,
) -> Result<(), ChartError>
where
    X: plotters::coord::ranged1d::Ranged,
    Y: plotters::coord::ranged1d::Ranged,
{
    chart
        .configure_series_labels()
        .position(position)
        .margin(dp.pxi(8.0))
        .legend_area_size(dp.pxi(24.0))
        .label_font((FONT, dp.px(12.0)).into_font().color(&INK))
        .background_style(WHITE.mix(0.92))
        .border_style(GRID.stroke_width(dp.px(1.0)))
        .draw()
        .map_err(err)
}

/// The x range of a frontier chart: `(lo, hi)` widened by `widen` on both sides when narrower than
/// `min_span`, then padded by 6% of its width on both sides.
pub(crate) fn padded_range((mut lo, mut hi): (f64, f64), min_span: f64, widen: f64) -> (f64, f64) {
    if hi - lo < min_span {
        lo -= widen;
        hi += widen;
    }
    let pad = (hi - lo) * 0.06;
    (lo - pad, hi + pad)
}

/// Draw a histogram (bars, counts on a log axis so the long tail stays visible) with its empirical CDF
/// (line, right axis, 0..1).
pub fn draw_histogram<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    h: &HistogramChart,
) -> Result<(), ChartError> {
    let dp = blank(area, h.scale)?;
    if h.counts.is_empty() || !(h.hi > h.lo) || !h.lo.is_finite() || !h.hi.is_finite() {
        return Err(ChartError("histogram: no bins".into()));
    }
    let total: u64 = h.counts.iter().sum();
    let w = (h.hi - h.lo) / h.counts.len() as f64;
    let max_c = h.counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let mut builder = ChartBuilder::on(area);
    builder
        .margin(dp.pxi(10.0))
        .x_label_area_size(dp.pxi(34.0))
        .y_label_area_size(dp.pxi(34.0))
        .right_y_label_area_size(dp.pxi(36.0));
    if let Some(t) = &h.title {
        builder.caption(t, (FONT, dp.px(13.0)).into_font().color(&INK));
    }
    let mut chart = builder
        .build_cartesian_2d(span(h.lo, h.hi), (0.8f64..max_c * 1.6).log_scale())
        .map_err(err)?
        .set_secondary_coord(span(h.lo, h.hi), 0.0f64..1.0);
    let x_fmt = |v: &f64| fmt_num(*v);
    let y_fmt = |v: &f64| fmt_log_tick(*v);
    chart
        .configure_mesh()
        .x_desc(
            h.x_label
                .clone()
                .unwrap_or_else(|| "usage (VM units)".into()),
        )
        .x_labels(6)
        .y_labels(8)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .look(dp, 11.0, 11.0)
        .draw()
        .map_err(err)?;
    let pct = |v: &f64| format!("{:.0}%", v * 100.0);
    chart
        .configure_secondary_axes()
        .y_labels(5)
        .y_label_formatter(&pct)
        .label_style((FONT, dp.px(11.0)).into_font().color(&INK))
        .axis_desc_style((FONT, dp.px(12.0)).into_font().color(&INK))
        .axis_style(INK.mix(0.6).stroke_width(dp.px(1.0)))
        .draw()
        .map_err(err)?;
    let bar = RGBColor(0, 114, 178);
    chart
        .draw_series(
            h.counts
                .iter()
                .enumerate()
                .filter(|(_, c)| **c > 0)
                .map(|(i, c)| {
                    let x0 = h.lo + i as f64 * w;
                    Rectangle::new([(x0, 0.8), (x0 + w, *c as f64)], bar.mix(0.5).filled())
                }),
        )
        .map_err(err)?;
    let mut acc = 0u64;
    let mut cdf = vec![(h.lo, 0.0)];
    for (i, c) in h.counts.iter().enumerate() {
        acc += c;
        cdf.push((h.lo + (i + 1) as f64 * w, acc as f64 / total.max(1) as f64));
    }
    chart
        .draw_secondary_series(LineSeries::new(cdf, TARGET.stroke_width(dp.px(2.0))))
        .map_err(err)?;
    area.present().map_err(err)?;
    Ok(())
}

/// Renders one chart into an SVG document of `width` × `height` pixels with the given drawing function.
pub fn render_svg<T>(
    width: u32,
    height: u32,
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<T, ChartError>,
) -> Result<String, ChartError> {
    let mut out = String::new();
    {
        let area = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        draw(&area)?;
    }
    Ok(out)
}

/// Render a histogram with its CDF as an SVG document.
pub fn histogram_svg(h: &HistogramChart, width: u32, height: u32) -> Result<String, ChartError> {
    render_svg(width, height, |area| draw_histogram(area, h))
}

/// Where a chart's points landed, in backend pixels (same order as its input points), so a page can
/// hit-test clicks and hovers; plus the plotting area and, on log axes, the y standing for 0.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Layout {
    /// (x, y) pixel of every input point.
    pub points: Vec<(i32, i32)>,
    /// The plotting area's corners.
    pub plot_area: ((i32, i32), (i32, i32)),
    /// The y value standing for 0 (None when no point is 0).
    pub zero_floor: Option<f64>,
}

/// Chart input (a JS value, or JSON) into its serde type; errors name what was expected.
pub fn from_de<'de, T: Deserialize<'de>, D: serde::Deserializer<'de>>(
    d: D,
    what: &str,
) -> Result<T, ChartError> {
    T::deserialize(d).map_err(|e| ChartError(format!("bad {what}: {e}")))
}

/// Chart options: null or undefined give the defaults.
pub fn opts_from_de<'de, T: Deserialize<'de> + Default, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<T, ChartError> {
    Ok(from_de::<Option<T>, D>(d, "chart options")?.unwrap_or_default())
}

/// What a chart's draw function gives back: nothing, or the [`Layout`] of its points.
pub trait Drawn {
    /// The layout, when the chart has points to hit-test.
    fn layout(self) -> Option<Layout>;
}

impl Drawn for () {
    fn layout(self) -> Option<Layout> {
        None
    }
}

impl Drawn for Layout {
    fn layout(self) -> Option<Layout> {
        Some(self)
    }
}

/// One chart of a model's table ([`chart_table!`]): decodes the chart's data (`what` names it in the
/// error) and its options (null or undefined give the defaults), then draws them with `draw`.
/// Errors: undecodable data or options, or the draw function's own.
pub fn decode_draw<'de, T, O, D, R>(
    data: D,
    opts: D,
    what: &str,
    draw: impl FnOnce(T, O) -> Result<R, ChartError>,
) -> Result<Option<Layout>, ChartError>
where
    T: Deserialize<'de>,
    O: Deserialize<'de> + Default,
    D: serde::Deserializer<'de>,
    R: Drawn,
{
    let data: T = from_de(data, what)?;
    let opts: O = opts_from_de(opts)?;
    draw(data, opts).map(Drawn::layout)
}

/// A model's table of charts, each written once as `"<id>.<chart>" => draw_fn(Data, Options, "what");`
/// (`draw_fn(area, &Data, &Options) -> Result<() or Layout, ChartError>`, `what` names the data in a decoding
/// error). It defines, in the model's `chart.rs`, `CHARTS` (the names in table order, the model's
/// `ModelInfo::charts`) and `draw(name, area, data, opts)` (what the registry's `draw_chart` calls for the
/// names prefixed with the model's id: `None` when the name is not in the table), with each entry's doc lines as the doc of `draw`.
macro_rules! chart_table {
    ($($(#[doc = $doc:literal])* $name:literal => $draw:ident($data:ty, $opts:ty, $what:literal);)+) => {
        /// This model's charts by name, in the order of the table below (the model's `ModelInfo::charts`).
        pub const CHARTS: &[&str] = &[$($name),+];

        /// Draws this model's chart `name` from `data` and `opts` (any serde deserializers) into `area`:
        /// `None` when the chart is not this model's, else its layout (`Some` for charts with points to
        /// hit-test) or the decoding or drawing error.
        ///
        $($(#[doc = $doc])*)+
        pub fn draw<'de, DB: ::plotters::prelude::DrawingBackend, D: ::serde::Deserializer<'de>>(
            name: &str,
            area: &::plotters::prelude::DrawingArea<DB, ::plotters::coord::Shift>,
            data: D,
            opts: D,
        ) -> Option<Result<Option<$crate::chart::Layout>, $crate::chart::ChartError>> {
            Some(match name {
                $($name => $crate::chart::decode_draw(data, opts, $what, |d: $data, o: $opts| {
                    $draw(area, &d, &o)
                }),)+
                _ => return None,
            })
        }
    };
}
pub(crate) use chart_table;

/// The chart that belongs to no model, `trace.histogram`: data = a trace summary with its `histogram` of
/// `{ lo, hi, count }` bins; opts = `{ scale }`.
pub fn draw_shared<'de, DB: DrawingBackend, D: serde::Deserializer<'de>>(
    area: &DrawingArea<DB, Shift>,
    data: D,
    opts: D,
) -> Result<(), ChartError> {
    #[derive(Deserialize)]
    struct Bin {
        lo: f64,
        hi: f64,
        count: u64,
    }
    #[derive(Deserialize)]
    struct Summary {
        histogram: Vec<Bin>,
    }
    #[derive(Deserialize, Default)]
    struct Opts {
        #[serde(default)]
        scale: Option<f64>,
    }
    let s: Summary = from_de(data, "trace summary")?;
    let o: Opts = opts_from_de(opts)?;
    let (Some(first), Some(last)) = (s.histogram.first(), s.histogram.last()) else {
        return Err(ChartError("the summary has no histogram".into()));
    };
    let h = HistogramChart {
        lo: first.lo,
        hi: last.hi,
        counts: s.histogram.iter().map(|b| b.count).collect(),
        x_label: Some("usage per VM sample (VM units)".into()),
        title: None,
        scale: o.scale,
    };
    draw_histogram(area, &h)
}

/// SVG inspection helpers shared by the chart tests of the frame and of the models.
#[cfg(test)]
pub(crate) mod test_util {
    use crate::models::placement::chart::ChartPoint;

    pub(crate) fn pt(family: &str, spec: &str, m: f64, q: f64, pareto: bool) -> ChartPoint {
        ChartPoint {
            family: family.into(),
            spec: spec.into(),
            m,
            q,
            pareto,
            error: None,
        }
    }

    /// The attributes of every `<name …>` tag of an SVG, each with the text that follows the tag.
    pub(crate) fn tags<'a>(svg: &'a str, name: &str) -> Vec<(&'a str, &'a str)> {
        svg.split(&format!("<{name} "))
            .skip(1)
            .map(|t| {
                let end = t.find('>').unwrap();
                let text = &t[end + 1..];
                (
                    &t[..end],
                    text[..text.find('<').unwrap_or(text.len())].trim(),
                )
            })
            .collect()
    }

    /// A numeric attribute of a tag.
    pub(crate) fn attr(tag: &str, name: &str) -> Option<f64> {
        let tag = format!(" {tag}");
        let i = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[i..i + tag[i..].find('"')?].parse().ok()
    }

    /// The y tick labels of an SVG chart with their y pixel (the right-aligned texts: the y axis).
    pub(crate) fn y_ticks(svg: &str) -> Vec<(String, i32)> {
        tags(svg, "text")
            .into_iter()
            .filter(|(t, _)| t.contains(r#"text-anchor="end""#))
            .map(|(t, label)| (label.to_string(), attr(t, "y").unwrap() as i32))
            .collect()
    }

    /// The y of every segment end of the dashed floor line (the only polylines at opacity 0.45).
    pub(crate) fn floor_ys(svg: &str) -> Vec<i32> {
        tags(svg, "polyline")
            .into_iter()
            .filter(|(t, _)| t.contains(r#"opacity="0.45""#))
            .flat_map(|(t, _)| {
                let pts = &t[t.find("points=\"").unwrap() + 8..];
                let pts = &pts[..pts.find('"').unwrap()];
                pts.split_whitespace()
                    .map(|p| p.split(',').nth(1).unwrap().parse::<i32>().unwrap())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// (cx, cy) of the hollow (white-filled) markers: the points whose value is 0.
    pub(crate) fn hollow_points(svg: &str) -> Vec<(i32, i32)> {
        tags(svg, "circle")
            .into_iter()
            .filter(|(t, _)| t.contains(r##"fill="#FFFFFF""##))
            .map(|(t, _)| (attr(t, "cx").unwrap() as i32, attr(t, "cy").unwrap() as i32))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::*;
    use super::*;
    use crate::models::admission::chart::*;
    use crate::models::placement::chart::*;

    #[test]
    fn log_axis_decades_floor_and_labels() {
        let a = LogAxis::new(&[0.08, 0.006, 0.0, f64::NAN, 0.0], Some(0.05), (1e-3, 1e-1));
        assert_eq!((a.lo_exp, a.hi_exp), (-3.0, 0.0));
        assert_eq!(a.zero_floor, Some(1e-4));
        assert_eq!(a.hi, 1.0);
        assert!(a.lo < 1e-4 && a.lo > 1e-5);
        assert_eq!(a.label_count(), 5);
        assert_eq!((a.y(0.0), a.y(0.02)), (1e-4, 0.02));
        assert_eq!(a.tick_label(1e-4), "0");
        assert_eq!(a.tick_label(5e-4), "");
        assert_eq!(a.tick_label(1e-3), "10⁻³");
        assert_eq!(a.tick_label(0.1), "0.1");
        // no zero: no floor, zeros (if any were given) would sit at the bottom
        let b = LogAxis::new(&[2e-5, 0.3], None, (1e-3, 1e-1));
        assert_eq!((b.lo_exp, b.hi_exp, b.zero_floor), (-5.0, 0.0, None));
        assert_eq!((b.lo, b.y(-1.0)), (1e-5, 1e-5));
        assert_eq!(b.tick_label(1e-5), "10⁻⁵");
        // nothing positive: the fallback decades
        let c = LogAxis::new(&[], None, (1e-4, 1e-2));
        assert_eq!((c.lo_exp, c.hi_exp, c.zero_floor), (-4.0, -1.0, None));
        assert_eq!(c.label_count(), 5);
        // extreme data (a found hang: plotters looped on 600 decades or an infinite range) and a reference that
        // is not positive: at most MAX_DECADES decades of finite, positive range
        for (vals, r) in [
            (vec![f64::MAX, 5e-324, 0.0], Some(0.05)),
            (vec![1e-300], Some(-1.0)),
            (vec![0.5], Some(0.0)),
            (vec![1e300, 1e299], None),
        ] {
            let d = LogAxis::new(&vals, r, (1e-3, 1e-1));
            assert!(
                d.hi_exp - d.lo_exp <= MAX_DECADES && d.hi_exp > d.lo_exp,
                "{vals:?}"
            );
            assert!(
                d.lo > 0.0 && d.hi.is_finite() && d.zero_floor.is_none_or(|f| f > 0.0),
                "{vals:?}"
            );
        }
    }

    /// Both frontier charts draw their y axis with [`LogAxis`]: for the same values, the same tick labels
    /// at the same pixels, the dashed floor line with its label, and the zeros on it. (The SVGs of both charts
    /// were byte-identical before and after the axis was shared; pixel values depend on the platform's
    /// log10/powf, so only structure is asserted here.)
    #[test]
    fn frontier_charts_share_the_log_axis() {
        let qs = [0.08, 0.006, 0.0, 0.0];
        let pts: Vec<ChartPoint> = qs
            .iter()
            .enumerate()
            .map(|(i, &q)| pt("gpa", &format!("p{i}"), 1.0 + 0.2 * i as f64, q, false))
            .collect();
        let opts = FrontierChartOptions {
            target_rho: Some(0.05),
            ..Default::default()
        };
        let mut placement = String::new();
        let layout = {
            let area = SVGBackend::with_string(&mut placement, (800, 500)).into_drawing_area();
            draw_frontier(&area, &pts, &opts).unwrap()
        };
        let curves = vec![AdmissionCurve {
            label: "SECOND".into(),
            points: qs
                .iter()
                .enumerate()
                .map(|(i, &q)| (0.5 + 0.1 * i as f64, q))
                .collect(),
            tuned: None,
        }];
        let admission = admission_frontier_svg(
            &curves,
            &AdmissionChartOptions {
                sla: Some(0.05),
                ..Default::default()
            },
            800,
            500,
        )
        .unwrap();

        let ticks = y_ticks(&placement);
        let labels: Vec<&str> = ticks.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(labels, ["0", "10⁻³", "10⁻²", "0.1", "1"]);
        assert_eq!(
            y_ticks(&admission),
            ticks,
            "same axis, same ticks at the same pixels"
        );
        assert!(
            ticks.windows(2).all(|w| w[0].1 > w[1].1),
            "decades go up: {ticks:?}"
        );

        for (svg, label) in [
            (&placement, "q = 0 (no overflow observed)"),
            (&admission, "0 (no failed scale-out)"),
        ] {
            assert!(svg.contains(label));
            let ys = floor_ys(svg);
            assert!(ys.len() > 20, "a dashed line: {} segments", ys.len() / 2);
            assert!(
                ys.iter().all(|&y| y == ticks[0].1),
                "the floor is at the '0' tick"
            );
            let hollow = hollow_points(svg);
            assert_eq!(hollow.len(), 2, "two zeros");
            assert!(
                hollow.iter().all(|p| p.1 == ticks[0].1),
                "zeros on the floor"
            );
        }
        assert_eq!(layout.zero_floor, Some(1e-4));
        assert_eq!(
            (layout.points[2].1, layout.points[3].1),
            (ticks[0].1, ticks[0].1)
        );
        assert!(layout.points[0].1 < layout.points[1].1 && layout.points[1].1 < ticks[0].1);

        // without zeros: no floor, no "0" tick, no hollow markers
        let pos: Vec<ChartPoint> = pts.iter().take(2).cloned().collect();
        let svg = frontier_svg(&pos, &opts, 800, 500).unwrap();
        assert!(floor_ys(&svg).is_empty() && hollow_points(&svg).is_empty());
        assert!(!svg.contains("q = 0"));
        let labels: Vec<String> = y_ticks(&svg).into_iter().map(|t| t.0).collect();
        assert_eq!(labels, ["10⁻²", "0.1", "1"]);
    }

    #[test]
    fn tick_formatting() {
        assert_eq!(fmt_log_tick(1e-3), "10⁻³");
        assert_eq!(fmt_log_tick(0.1), "0.1");
        assert_eq!(fmt_log_tick(2e-3), "");
        assert_eq!(fmt_num(0.05), "0.05");
        assert_eq!(fmt_num(0.8), "0.8");
        assert_eq!(fmt_num(1.2345), "1.23");
        assert_eq!(fmt_num(2e-6), "2e-6");
        assert_eq!(fmt_num(2.5e-6), "2.5e-6");
    }
}
