//! Every chart by name ([`crate::models::draw_chart`]): on a canvas (main thread only) or as SVG.

use super::{error_obj, json_from_js, to_js, JsResult};
use crate::chart::ChartError;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

fn chart_error(e: ChartError) -> JsValue {
    error_obj("chart", &e.0, None)
}

/// Draws chart `name` (a model's `charts`, or `trace.histogram`) from `data` and `opts` into `canvas`;
/// returns the chart's layout (e.g. the frontier's point positions in canvas pixels) or `null`.
#[wasm_bindgen]
pub fn draw_chart(
    canvas: HtmlCanvasElement,
    name: &str,
    data: JsValue,
    opts: JsValue,
) -> JsResult<JsValue> {
    let data = json_from_js(data, "the chart data")?;
    let opts = json_from_js(opts, "the chart options")?;
    let area = CanvasBackend::with_canvas_object(canvas)
        .map(|b| b.into_drawing_area())
        .ok_or_else(|| error_obj("chart", "the canvas has no 2D context", None))?;
    let layout = crate::models::draw_chart(name, &area, &data, &opts).map_err(chart_error)?;
    to_js(&layout)
}

/// Chart `name` as an SVG document of `width` × `height` px (100..=8000 each).
#[wasm_bindgen]
pub fn chart_svg(
    name: &str,
    data: JsValue,
    opts: JsValue,
    width: u32,
    height: u32,
) -> JsResult<String> {
    let data = json_from_js(data, "the chart data")?;
    let opts = json_from_js(opts, "the chart options")?;
    crate::models::chart_svg(
        name,
        &data,
        &opts,
        width.clamp(100, 8000),
        height.clamp(100, 8000),
    )
    .map_err(chart_error)
}

/// CSS colour of series `i` of a multi-arm chart (matches the charts), for tables beside them.
#[wasm_bindgen]
pub fn arm_color(i: usize) -> String {
    crate::chart::arm_color_hex(i)
}
