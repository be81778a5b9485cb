//! A chart on two stacked canvases: the base (lines, shading, axes) is redrawn only when
//! the run, the canvas size or the look (projector type, dark colours) changes; the overlay
//! (the crash marker) whenever the crash moves. Both backing stores are sized by
//! `devicePixelRatio`; a `ResizeObserver` follows the canvas box (a window resize, a layout
//! change such as projector mode). Pointer events on the overlay drag the crash (mouse, pen
//! and touch alike).

use super::controls::snap_drag_us;
use super::{rendered, RunRef};
use crate::charts;
use crate::shell;
use crate::state::{Action, State};
use offset_window_view::kit::draw::{self, Frame};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, Element, HtmlCanvasElement};
use yew::prelude::*;

/// Which of the two charts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartKind {
    /// The three lines of `orders-3` over time, with the shading and commit marks.
    Main,
    /// lost(T) and duplicated(T) on the same time axis.
    Profile,
}

impl ChartKind {
    fn id(self) -> &'static str {
        match self {
            ChartKind::Main => "main-chart",
            ChartKind::Profile => "profile-chart",
        }
    }

    /// The canvas's CSS size; before it is laid out (no style sheet, as in tests) 760 wide,
    /// 340 high for the main chart and 170 for the profile.
    fn css_size(self, canvas: &HtmlCanvasElement) -> (f64, f64) {
        match (canvas.client_width(), canvas.client_height()) {
            (w, h) if w > 0 && h > 0 => (w as f64, h as f64),
            _ => (760.0, if self == ChartKind::Main { 340.0 } else { 170.0 }),
        }
    }

    /// The chart's frame on a canvas of `size` device px.
    pub fn frame(self, size: (u32, u32), scale: f64, run: &offset_window_sim::Run) -> Frame {
        match self {
            ChartKind::Main => charts::main_frame(size, scale, run),
            ChartKind::Profile => charts::profile_frame(size, scale, run),
        }
    }
}

/// Props of [`Chart`].
#[derive(Properties, PartialEq)]
pub struct ChartProps {
    /// Which chart.
    pub kind: ChartKind,
    /// The run to draw.
    pub run: RunRef,
    /// The crash instant, µs.
    pub crash_at_us: u64,
    /// Where a drag on the chart sends the crash.
    pub dispatch: UseReducerDispatcher<State>,
    /// Projector mode: text, lines and marks drawn larger ([`shell::projector_type`]).
    #[prop_or_default]
    pub projector: bool,
    /// The dark palette (`prefers-color-scheme: dark`).
    #[prop_or_default]
    pub dark: bool,
}

/// One chart: base and overlay canvases, redrawn by effects, dragged by pointer.
#[function_component]
pub fn Chart(p: &ChartProps) -> Html {
    rendered(match p.kind {
        ChartKind::Main => "Chart:main",
        ChartKind::Profile => "Chart:profile",
    });
    let kind = p.kind;
    let base = use_node_ref();
    let overlay = use_node_ref();
    let frame: Rc<RefCell<Option<Frame>>> = use_mut_ref(|| None);
    let overlay_count = use_mut_ref(|| 0u32);
    // Where the crash marker was last drawn (frame, x): moving it clears only that strip.
    let last_marker: Rc<RefCell<Option<(Frame, f64)>>> = use_mut_ref(|| None);
    // The CSS size, pixel ratio and projector type scale: a change redraws.
    let size = shell::use_size(base.clone(), p.projector);
    {
        let (base, overlay, frame) = (base.clone(), overlay.clone(), frame.clone());
        use_effect_with((p.run.clone(), size, p.dark), move |(run, size, dark)| {
            let (Some(canvas), Some(top)) =
                (base.cast::<HtmlCanvasElement>(), overlay.cast::<HtmlCanvasElement>())
            else {
                return;
            };
            let css = kind.css_size(&canvas);
            let (w, h, scale) = shell::fit(&canvas, css);
            shell::fit(&top, css);
            let type_scale = size.type_scale();
            let f = Frame { dark: *dark, ..kind.frame((w, h), scale * type_scale, &run.0) };
            // The type scale, for the tests: projector mode draws everything larger.
            let _ = canvas.set_attribute("data-type-scale", &crate::state::fixed(type_scale, 2));
            *frame.borrow_mut() = Some(f);
            shell::draw_on(canvas, "drawing the chart failed", |root| match kind {
                ChartKind::Main => charts::draw_main(root, &run.0, &f),
                ChartKind::Profile => charts::draw_profile(root, &run.0, &f),
            });
        });
    }
    {
        let (overlay, frame, count, last) =
            (overlay.clone(), frame.clone(), overlay_count.clone(), last_marker);
        // After the base effect (declared first), so a new frame is in place.
        use_effect_with((p.run.clone(), p.crash_at_us, size, p.dark), move |(run, crash_at_us, ..)| {
            let (Some(top), Some(f)) = (overlay.cast::<HtmlCanvasElement>(), *frame.borrow()) else {
                return;
            };
            if let Some(ctx) = top
                .get_context("2d")
                .ok()
                .flatten()
                .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
            {
                let (w, h) = (top.width() as f64, top.height() as f64);
                match *last.borrow() {
                    // Same frame: only the strip of the old marker (line, grip, dots) is dirty.
                    Some((old, x)) if old == f => {
                        let pad = draw::CRASH_MARKER_HALF_WIDTH * f.scale;
                        ctx.clear_rect(x - pad, 0.0, 2.0 * pad, h);
                    }
                    _ => ctx.clear_rect(0.0, 0.0, w, h),
                }
            }
            *last.borrow_mut() = Some((f, f.x(*crash_at_us).round()));
            let at = run.0.state_at(*crash_at_us);
            let values = match kind {
                ChartKind::Main => charts::main_values(&at, f.pal()),
                ChartKind::Profile => charts::profile_values(&at, f.pal()),
            };
            shell::draw_on(top.clone(), "drawing the crash marker failed", |root| {
                draw::draw_crash(root, &f, *crash_at_us, &values)
            });
            // A counter the budget check and the tests watch to know the marker was redrawn.
            let mut n = count.borrow_mut();
            *n += 1;
            let _ = top.set_attribute("data-frame", &n.to_string());
        });
    }

    // A finger that lands on the chart may be scrolling the page: touch moves the crash only
    // on a drag that is more sideways than up or down, or on a tap, never on landing. Where
    // the finger landed, and whether it is dragging the crash:
    let touch_start: Rc<RefCell<Option<(i32, i32, bool)>>> = use_mut_ref(|| None);
    // A mouse press on a record of the main chart (docs/model.md §12): released where it
    // landed, it toggles the record's failure; moved further, it drags the crash after all.
    let record_press: Rc<RefCell<Option<(u64, i32, i32)>>> = use_mut_ref(|| None);
    let on_pointer = {
        let (frame, dispatch, horizon) = (frame.clone(), p.dispatch.clone(), p.run.0.scenario.horizon_us);
        let run = p.run.0.clone();
        // The canvas under the event and the event's point on it, device px.
        let locate = |e: &PointerEvent| shell::device_point(e).map(|(_, x, y, k)| (x, y, k));
        // The record under the event, within `css_radius` CSS px (main chart only).
        let record_under = {
            let (frame, run) = (frame.clone(), run.clone());
            move |e: &PointerEvent, css_radius: f64| {
                let f = (*frame.borrow())?;
                let (x, y, dpr) = locate(e).filter(|_| kind == ChartKind::Main)?;
                offset_window_view::consumer::records::record_at(&run, &f, x, y, css_radius * dpr)
            }
        };
        move |e: PointerEvent| {
            let el: Element = e.target_unchecked_into();
            const SLOP_PX: i32 = 10;
            if e.pointer_type() == "touch" {
                let (x, y) = (e.client_x(), e.client_y());
                let mut start = touch_start.borrow_mut();
                let moved = start.map(|(x0, y0, dragging)| (x - x0, y - y0, dragging));
                match (e.type_().as_str(), moved) {
                    ("pointerdown", _) => {
                        *start = Some((x, y, false));
                        return;
                    }
                    ("pointermove", Some((dx, dy, dragging))) => {
                        let sideways = dx.abs() > SLOP_PX && dx.abs() > dy.abs();
                        if !dragging && !sideways {
                            return;
                        }
                        if !dragging {
                            let _ = el.set_pointer_capture(e.pointer_id());
                            *start = start.map(|(x0, y0, _)| (x0, y0, true));
                        }
                    }
                    ("pointerup", Some((dx, dy, dragging))) => {
                        *start = None;
                        if !dragging && (dx.abs() > SLOP_PX || dy.abs() > SLOP_PX) {
                            return; // a scroll, not a tap
                        }
                        // A tap on a record toggles its failure; elsewhere it moves the crash.
                        if let Some(offset) = record_under(&e, 14.0).filter(|_| !dragging) {
                            dispatch.dispatch(Action::ToggleRecordFailure(offset));
                            return;
                        }
                    }
                    _ => {
                        *start = None; // pointercancel: the browser took the gesture
                        return;
                    }
                }
            } else {
                let mut press = record_press.borrow_mut();
                match e.type_().as_str() {
                    "pointerdown" => {
                        e.prevent_default();
                        if let Some(offset) = record_under(&e, 8.0) {
                            *press = Some((offset, e.client_x(), e.client_y()));
                            return;
                        }
                        let _ = el.set_pointer_capture(e.pointer_id());
                    }
                    "pointermove" => match *press {
                        Some((_, x0, y0))
                            if (e.client_x() - x0).abs() > SLOP_PX / 2
                                || (e.client_y() - y0).abs() > SLOP_PX / 2 =>
                        {
                            *press = None;
                            let _ = el.set_pointer_capture(e.pointer_id());
                        }
                        Some(_) => return,
                        None if !el.has_pointer_capture(e.pointer_id()) => return,
                        None => {}
                    },
                    "pointerup" => {
                        if let Some((offset, ..)) = press.take() {
                            dispatch.dispatch(Action::ToggleRecordFailure(offset));
                        }
                        return;
                    }
                    _ => {
                        *press = None;
                        return;
                    }
                }
            }
            let (Some(f), Some((x, _, _))) = (*frame.borrow(), locate(&e)) else { return };
            dispatch.dispatch(Action::SetCrash(snap_drag_us(f.time_at(x) as f64, horizon)));
        }
    };
    let on_pointer = Callback::from(on_pointer);
    let (title, label) = match kind {
        ChartKind::Main => (
            html! { <>{ "Partition " }<code>{ "orders-3" }</code>{ ": three offsets over time" }</> },
            "Offsets of orders-3 over simulated time: position (dashed), durable frontier and committed \
             offset, with shading where a crash would lose or duplicate records",
        ),
        ChartKind::Profile => (
            html! { <>{ "If the crash came at that instant: records lost and processed twice" }</> },
            "Records a crash would lose and process twice, for every crash instant",
        ),
    };
    // The axis titles are drawn on the canvas (they go into the exports too).
    html! {
        <figure class={classes!("chart", kind.id())} id={kind.id()}>
            <figcaption><h2 class="chart-title">{ title }</h2></figcaption>
            <div class="canvas-box">
                <canvas class="base" ref={base} role="img" aria-label={label}></canvas>
                <canvas class="overlay" ref={overlay} aria-hidden="true"
                    onpointerdown={on_pointer.clone()} onpointermove={on_pointer.clone()}
                    onpointerup={on_pointer.clone()} onpointercancel={on_pointer.clone()}></canvas>
            </div>
        </figure>
    }
}
