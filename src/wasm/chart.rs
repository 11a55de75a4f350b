//! Every chart by name ([`crate::models::draw_chart`]): on a canvas (main thread only) or as SVG. Chart data
//! and options are read straight from the JS values.

use super::convert::{error_obj, to_js, JsResult};
use crate::chart::ChartError;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use serde_wasm_bindgen::Deserializer;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

fn chart_error(e: ChartError) -> JsValue {
    error_obj("chart", &e.0, None)
}

/// Draws chart `name` (a model's `charts`, or `trace.histogram`) from `data` and `opts` (null or undefined
/// = defaults) into `canvas`; returns where its points landed (`{ points: [[x, y]...], plot_area,
/// zero_floor }` in canvas pixels, for charts with points to hit-test) or `null`.
#[wasm_bindgen]
pub fn draw_chart(
    canvas: HtmlCanvasElement,
    name: &str,
    data: JsValue,
    opts: JsValue,
) -> JsResult<JsValue> {
    let area = CanvasBackend::with_canvas_object(canvas)
        .map(|b| b.into_drawing_area())
        .ok_or_else(|| error_obj("chart", "the canvas has no 2D context", None))?;
    let layout = crate::models::draw_chart(
        name,
        &area,
        Deserializer::from(data),
        Deserializer::from(opts),
    )
    .map_err(chart_error)?;
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
    crate::chart::render_svg(width.clamp(100, 8000), height.clamp(100, 8000), |area| {
        crate::models::draw_chart(
            name,
            area,
            Deserializer::from(data),
            Deserializer::from(opts),
        )
        .map(|_| ())
    })
    .map_err(chart_error)
}

/// CSS colour of series `i` of a multi-arm chart (matches the charts), for tables beside them.
#[wasm_bindgen]
pub fn arm_color(i: usize) -> String {
    crate::chart::arm_color_hex(i)
}
