//! The group page's three canvases, each drawn by an effect from what its props give it,
//! with the drawing functions of `offset_window_view::group::lanes` (generic over the
//! plotters backend, tested on the host): the lanes (dragged with mouse, pen or touch to
//! move a group event, or a share group's crash), the sweep of the first event, and the
//! share strip. Backing stores are sized by `devicePixelRatio`; projector mode draws larger.

use crate::components::RunRef;
use offset_window_sim::events::GroupEvent;
use offset_window_sim::sweep::GroupProfile;
use offset_window_view::backend::Backend;
use offset_window_view::group::lanes::{self, Lanes, Marks};
use offset_window_view::group::state::{GroupAction, GroupState};
use offset_window_view::group::timeline::{member_spans, owners, RecordLine};
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlCanvasElement};
use yew::prelude::*;

/// How much larger projector mode draws text and lines.
pub const PROJECTOR_TYPE: f64 = 1.6;

/// A drag snaps to whole milliseconds (a reader places events at round instants).
pub fn snap_ms(us: u64) -> u64 {
    (us + 500) / 1_000 * 1_000
}

/// Sizes `canvas`'s backing store to its CSS width × `devicePixelRatio` and `css_h` CSS px
/// high; returns the size in device px and the device px per CSS px.
fn fit(canvas: &HtmlCanvasElement, css_h: f64) -> (u32, u32, f64) {
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
    let cw = if canvas.client_width() > 0 { canvas.client_width() as f64 } else { 900.0 };
    let (w, h) = ((cw * dpr).round() as u32, (css_h * dpr).round() as u32);
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    (w, h, w as f64 / cw)
}

fn report(what: &str, e: impl std::fmt::Debug) {
    web_sys::console::error_1(&format!("{what}: {e:?}").into());
}

/// The canvas's CSS width, following resizes (a `ResizeObserver` on its parent).
#[hook]
fn use_width(canvas: NodeRef) -> i32 {
    let width = use_state_eq(|| 0i32);
    {
        let setter = width.setter();
        use_effect_with((), move |_| {
            let measure = {
                let canvas = canvas.clone();
                move || {
                    if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                        setter.set(c.client_width());
                    }
                }
            };
            measure();
            let listener = Closure::<dyn Fn()>::new(measure);
            let observer = web_sys::ResizeObserver::new(listener.as_ref().unchecked_ref()).ok();
            let watched = canvas.cast::<HtmlCanvasElement>().and_then(|c| c.parent_element());
            if let (Some(o), Some(b)) = (&observer, watched) {
                o.observe(&b);
            }
            move || {
                if let Some(o) = observer {
                    o.disconnect();
                }
                drop(listener);
            }
        });
    }
    *width
}

/// Props of [`LanesCanvas`].
#[derive(Properties, PartialEq)]
pub struct LanesProps {
    /// The run drawn.
    pub run: RunRef,
    /// The scenario's events, as it holds them.
    pub events: Vec<GroupEvent>,
    /// A share group's crash of the whole group, µs (`None` for a consumer group).
    pub crash_at_us: Option<u64>,
    /// Where drags go.
    pub dispatch: UseReducerDispatcher<GroupState>,
    /// Projector mode.
    pub projector: bool,
    /// Dark colours.
    pub dark: bool,
}

/// What a pointer is dragging on the lanes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Drag {
    Event(usize),
    Crash,
}

/// The lanes: a partition lane per partition with its three lines and owner, a lane per
/// member, the events' handles. A press on or near an event's handle or line drags it; on
/// a share group, a press anywhere drags the crash.
#[function_component]
pub fn LanesCanvas(p: &LanesProps) -> Html {
    let canvas = use_node_ref();
    let width = use_width(canvas.clone());
    let layout: Rc<RefCell<Option<Lanes>>> = use_mut_ref(|| None);
    let frames = use_mut_ref(|| 0u32);
    let members = p.run.0.scenario.member_count() as usize;
    let partitions = p.run.0.partitions.len();
    let type_scale = if p.projector { PROJECTOR_TYPE } else { 1.0 };
    let css_h = lanes::css_height(partitions, members) * type_scale.sqrt();
    {
        let (canvas, layout, frames) = (canvas.clone(), layout.clone(), frames.clone());
        let deps = (p.run.clone(), p.events.clone(), p.crash_at_us, width, p.dark, p.projector);
        use_effect_with(deps, move |(run, events, crash_at_us, _, dark, _)| {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else { return };
            let (w, h, scale) = fit(&c, css_h);
            let r = &run.0;
            let mut l = Lanes::new((w, h), scale * type_scale, r.scenario.horizon_us, partitions, members);
            l.dark = *dark;
            let _ = c.set_attribute("data-targets", &scaled_targets(&l, events, type_scale));
            let owners = owners(r);
            let spans = member_spans(r);
            let marks = Marks { events, selected: None, crash_at_us: *crash_at_us };
            if let Some(backend) = CanvasBackend::with_canvas_object(c.clone()) {
                let root = Backend::Canvas(backend).into_drawing_area();
                if let Err(e) = lanes::draw_lanes(&root, r, &owners, &spans, &l, marks) {
                    report("drawing the lanes failed", e);
                }
            }
            *layout.borrow_mut() = Some(l);
            let mut n = frames.borrow_mut();
            *n += 1;
            let _ = c.set_attribute("data-frame", &n.to_string());
        });
    }
    // What is being dragged, how far (device px) the pointer landed from it and where: a
    // press on a handle grabs it where it is, so a click (or a move of less than a pixel)
    // never moves it.
    let dragging: Rc<RefCell<Option<(Drag, f64, f64)>>> = use_mut_ref(|| None);
    let on_pointer = {
        let (layout, dispatch, events) = (layout.clone(), p.dispatch.clone(), p.events.clone());
        let share = p.crash_at_us.is_some();
        Callback::from(move |e: PointerEvent| {
            let el: Element = e.target_unchecked_into();
            let Ok(c) = el.clone().dyn_into::<HtmlCanvasElement>() else { return };
            let rect = c.get_bounding_client_rect();
            let Some(l) = &*layout.borrow() else { return };
            if rect.width() <= 0.0 {
                return;
            }
            let x = (e.client_x() as f64 - rect.left()) * c.width() as f64 / rect.width();
            let mut drag = dragging.borrow_mut();
            match e.type_().as_str() {
                "pointerdown" => {
                    *drag = match l.event_at(&events, x) {
                        Some(i) => Some((Drag::Event(i), x - l.x(events[i].at_us), x)),
                        // A share group: a press anywhere else puts the crash there.
                        None if share => Some((Drag::Crash, 0.0, f64::NAN)),
                        None => None,
                    };
                    if drag.is_none() {
                        return;
                    }
                    let _ = el.set_pointer_capture(e.pointer_id());
                    e.prevent_default();
                    if matches!(*drag, Some((Drag::Event(_), ..))) {
                        return;
                    }
                }
                "pointermove" => {}
                _ => {
                    *drag = None;
                    return;
                }
            }
            let Some((what, grab, pressed_at)) = *drag else { return };
            if (x - pressed_at).abs() < 1.0 {
                return;
            }
            let at_us = snap_ms(l.time_at(x - grab));
            match what {
                Drag::Event(index) => dispatch.dispatch(GroupAction::MoveEvent { index, at_us }),
                Drag::Crash => dispatch.dispatch(GroupAction::SetCrash(at_us.max(1))),
            }
        })
    };
    let label = if p.crash_at_us.is_some() {
        "The share group over simulated time: each partition's start offset and window, each member's activity, the crash; the text below says the same in words"
    } else {
        "The group over simulated time: each partition's position, durable frontier and committed offset with its owner's colour, each member's activity, the group events; the text below says the same in words"
    };
    html! {
        <canvas id="lanes" class="lanes" ref={canvas} style={format!("height:{}px", css_h.round())}
            role="img" aria-label={label}
            onpointerdown={on_pointer.clone()} onpointermove={on_pointer.clone()}
            onpointerup={on_pointer.clone()} onpointercancel={on_pointer}></canvas>
    }
}

/// The events' handle positions in CSS px (the layout's own are in CSS px of the type scale).
fn scaled_targets(l: &Lanes, events: &[GroupEvent], type_scale: f64) -> String {
    if type_scale == 1.0 {
        return l.targets(events);
    }
    // `targets` divides by the layout's scale (device px per CSS px × type scale).
    let plain = Lanes { scale: l.scale / type_scale, ..l.clone() };
    plain.targets(events)
}

/// Props of [`SweepCanvas`].
#[derive(Properties, PartialEq)]
pub struct SweepProps {
    /// The sweep of the first event.
    pub profile: Rc<GroupProfile>,
    /// The horizon, µs.
    pub horizon_us: u64,
    /// The first event's instant now, µs.
    pub at_us: u64,
    /// Dark colours.
    pub dark: bool,
}

/// The group's total lost and processed twice as a function of the first event's instant.
#[function_component]
pub fn SweepCanvas(p: &SweepProps) -> Html {
    let canvas = use_node_ref();
    let width = use_width(canvas.clone());
    const CSS_H: f64 = 150.0;
    {
        let canvas = canvas.clone();
        use_effect_with(
            (p.profile.clone(), p.at_us, width, p.dark, p.horizon_us),
            move |(profile, at, _, dark, horizon)| {
                let Some(c) = canvas.cast::<HtmlCanvasElement>() else { return };
                let (w, h, scale) = fit(&c, CSS_H);
                let f = offset_window_view::charts::Frame {
                    dark: *dark,
                    ..lanes::sweep_frame((w, h), scale, *horizon, profile)
                };
                if let Some(backend) = CanvasBackend::with_canvas_object(c) {
                    let root = Backend::Canvas(backend).into_drawing_area();
                    if let Err(e) = lanes::draw_sweep(&root, profile, &f, *at) {
                        report("drawing the sweep failed", e);
                    }
                }
            },
        );
    }
    html! {
        <canvas id="sweep" ref={canvas} style={format!("height:{CSS_H}px")} role="img"
            aria-label="Records lost and processed twice by the whole group, for each instant of the first event; the sentence above gives the worst"></canvas>
    }
}

/// Props of [`StripCanvas`].
#[derive(Properties, PartialEq)]
pub struct StripProps {
    /// The rows shown.
    pub lines: Rc<Vec<RecordLine>>,
    /// The horizon, µs.
    pub horizon_us: u64,
    /// The crash of the whole group, µs.
    pub crash_at_us: u64,
    /// `group.share.record.lock.duration.ms`, µs.
    pub lock_us: u64,
    /// Dark colours.
    pub dark: bool,
}

/// The share strip: a row per record, coloured by its state over time, locks outlined.
#[function_component]
pub fn StripCanvas(p: &StripProps) -> Html {
    let canvas = use_node_ref();
    let width = use_width(canvas.clone());
    let css_h = lanes::strip_css_height(p.lines.len());
    {
        let canvas = canvas.clone();
        let deps = (p.lines.clone(), p.crash_at_us, width, p.dark, p.horizon_us, p.lock_us);
        use_effect_with(deps, move |(lines, crash, _, dark, horizon, lock)| {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else { return };
            let (w, h, scale) = fit(&c, css_h);
            let f = offset_window_view::charts::Frame {
                dark: *dark,
                ..lanes::strip_frame((w, h), scale, *horizon, lines.len())
            };
            if let Some(backend) = CanvasBackend::with_canvas_object(c) {
                let root = Backend::Canvas(backend).into_drawing_area();
                if let Err(e) = lanes::draw_strip(&root, lines, &f, *crash, *lock) {
                    report("drawing the strip failed", e);
                }
            }
        });
    }
    html! {
        <canvas id="strip" ref={canvas} style={format!("height:{}px", css_h.round())} role="img"
            aria-label="Each record's state over time: acquired (its member's colour, its lock outlined), available again (grey), acknowledged (thin line), rejected or archived (hatched); the text below lists them"></canvas>
    }
}
