//! The group page's three canvases, each drawn by an effect from what its props give it,
//! with the drawing functions of `offset_window_view::group::lanes` (generic over the
//! plotters backend, tested on the host): the lanes (dragged with mouse, pen or touch to
//! move a group event, or a share group's crash), the sweep of the first event (a click, a
//! tap, a drag or the arrow keys put the first event at that instant), and the share
//! strip. Backing stores are sized by `devicePixelRatio`; projector mode draws text, lines
//! and margins larger by the consumer page's factor (1.5 at 1280 × 720, 2.25 at
//! 1920 × 1080), and the lanes fill the height the projector screen gives them.

use crate::shell::{self, use_size, RunRef, Shared};
use offset_window_sim::events::GroupEvent;
use offset_window_sim::sweep::GroupProfile;
use offset_window_view::group::lanes::{self, Lanes, Marks, Zoom};
use offset_window_view::group::state::{GroupAction, GroupState};
use offset_window_view::group::timeline::{member_spans, owners, RecordLine};
use offset_window_view::kit::draw::Frame;
use offset_window_view::kit::text::seconds_text;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{Element, HtmlCanvasElement};
use yew::prelude::*;

/// The sweep chart's CSS height outside projector mode.
const SWEEP_CSS_H: f64 = 150.0;

/// A drag snaps to whole milliseconds (a reader places events at round instants).
pub fn snap_ms(us: u64) -> u64 {
    (us + 500) / 1_000 * 1_000
}

/// The CSS width a canvas is drawn at before it is laid out (no style sheet, as in tests).
const FALLBACK_CSS_W: f64 = 900.0;

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
    /// Projector mode (type scaled to the screen).
    pub projector: bool,
    /// The box sets the lanes' height (the projector screen, the embed), not the lanes.
    pub fill: bool,
    /// Dark colours.
    pub dark: bool,
    /// Which partitions a big group's lanes show.
    pub zoom: Zoom,
    /// The run drawn is the one before a drag still previewed (dimmed; the marks are not).
    pub behind: bool,
}

/// What a pointer is dragging on the lanes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Drag {
    Event(usize),
    Crash,
}

/// The lanes: a partition lane per partition with its three lines and owner, a lane per
/// member, the events' handles. A press on or near an event's handle or line drags it; on
/// a share group, a press anywhere drags the crash. Their CSS height is what the lanes ask
/// for, except on the projector screen and in the embed (`fill`), where they fill the box
/// the style sheet gives them.
#[function_component]
pub fn LanesCanvas(p: &LanesProps) -> Html {
    let canvas = use_node_ref();
    let size = use_size(canvas.clone(), p.projector);
    let layout: Rc<RefCell<Option<Lanes>>> = use_mut_ref(|| None);
    let frames = use_mut_ref(|| 0u32);
    let members = p.run.0.scenario.member_count() as usize;
    // The partitions drawn (a zoom into a big group), with their owners, and what each member
    // does: computed once per run and zoom.
    let drawn = use_memo((p.run.clone(), p.zoom), |(run, zoom)| {
        let owners = owners(&run.0);
        let shown = lanes::zoomed(&owners, *zoom).unwrap_or_else(|| (0..owners.len()).collect());
        let spans = member_spans(&run.0, &owners);
        (owners, shown, spans)
    });
    let css_h = lanes::css_height(drawn.1.len(), members);
    // The lanes' layout on `c` (sized to it first): both canvases share it.
    let lay_out = {
        let (run, drawn) = (p.run.clone(), drawn.clone());
        move |c: &HtmlCanvasElement, size: shell::Size, fill: bool, dark: bool| {
            let css_h = if fill && size.height > 0 { size.height as f64 } else { css_h };
            layout_on(c, size, css_h, run.0.scenario.horizon_us, drawn.1.clone(), members, dark)
        }
    };
    // The run's drawing: again only when the run, the size, the colours or the zoom change.
    {
        let (canvas, frames, lay_out) = (canvas.clone(), frames.clone(), lay_out.clone());
        let deps = (p.run.clone(), size, p.dark, p.fill, Shared(drawn.clone()));
        use_effect_with(deps, move |(run, size, dark, fill, drawn)| {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else { return };
            let l = lay_out(&c, *size, *fill, *dark);
            let (owners, shown, spans) = &*drawn.0;
            let _ = c.set_attribute("data-lanes", &shown.len().to_string());
            shell::draw_on(c.clone(), "drawing the lanes failed", |root| {
                lanes::draw_run(root, &run.0, owners, spans, &l)
            });
            let mut n = frames.borrow_mut();
            *n += 1;
            let _ = c.set_attribute("data-frame", &n.to_string());
            let type_scale = size.type_scale();
            let _ = c.set_attribute("data-type-scale", &offset_window_view::kit::text::fixed(type_scale, 2));
        });
    }
    // The marks, on the canvas above: again whenever an event moves (a drag previewed moves
    // them alone, before the run catches up).
    let marks_canvas = use_node_ref();
    let mark_frames = use_mut_ref(|| 0u32);
    {
        let (canvas, marks_canvas, layout) = (canvas.clone(), marks_canvas.clone(), layout.clone());
        let deps =
            (p.run.clone(), p.events.clone(), p.crash_at_us, size, p.dark, p.fill, Shared(drawn.clone()));
        use_effect_with(deps, move |(run, events, crash_at_us, size, dark, fill, _)| {
            let (Some(c), Some(over)) =
                (canvas.cast::<HtmlCanvasElement>(), marks_canvas.cast::<HtmlCanvasElement>())
            else {
                return;
            };
            let l = lay_out(&c, *size, *fill, *dark);
            let _ = c.set_attribute("data-targets", &scaled_targets(&l, events, size.type_scale()));
            // Sized as the lanes and cleared (setting the width clears a canvas).
            let (w, h) = (c.width(), c.height());
            over.set_height(h);
            over.set_width(w);
            let marks = Marks { events, selected: None, crash_at_us: *crash_at_us };
            shell::draw_on(over.clone(), "drawing the lanes' events failed", |root| {
                lanes::draw_marks(root, &run.0, &l, marks)
            });
            *layout.borrow_mut() = Some(l);
            let mut n = mark_frames.borrow_mut();
            *n += 1;
            let _ = over.set_attribute("data-frame", &n.to_string());
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
            let (Some(l), Some((el, x, ..))) = (&*layout.borrow(), shell::device_point(&e)) else { return };
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
                    // A drag previewed is simulated now that it ends.
                    if matches!(drag.take(), Some((Drag::Event(_), ..))) {
                        dispatch.dispatch(GroupAction::Settle);
                    }
                    return;
                }
            }
            let Some((what, grab, pressed_at)) = *drag else { return };
            if (x - pressed_at).abs() < 1.0 {
                return;
            }
            let at_us = snap_ms(l.time_at(x - grab));
            match what {
                Drag::Event(index) => dispatch.dispatch(GroupAction::DragEvent { index, at_us }),
                Drag::Crash => dispatch.dispatch(GroupAction::SetCrash(at_us.max(1))),
            }
        })
    };
    let label = if p.crash_at_us.is_some() {
        "The share group over simulated time: each partition's start offset and window, each member's activity, the crash; the text below says the same in words"
    } else {
        "The group over simulated time: each partition's position, durable frontier and committed offset with its owner's colour, each member's activity, the group events; the text below says the same in words"
    };
    // On the projector screen and in the embed the box sets the height (style sheet);
    // elsewhere the lanes do.
    let style = (!p.fill).then(|| format!("height:{}px", css_h.round() as i64));
    html! {
        <div class={classes!("lanes-box", p.behind.then_some("behind"))}>
            <canvas id="lanes" class="lanes" ref={canvas} {style}
                role="img" aria-label={label}
                onpointerdown={on_pointer.clone()} onpointermove={on_pointer.clone()}
                onpointerup={on_pointer.clone()} onpointercancel={on_pointer}></canvas>
            <canvas id="lanes-marks" class="lanes-marks" ref={marks_canvas} aria-hidden="true"></canvas>
        </div>
    }
}

/// The lanes' layout for `shown` partitions and `members` members on `canvas`, sized first to
/// its CSS width and `css_h` (one function for both canvases of the lanes: a closure would be
/// built into each).
#[inline(never)]
fn layout_on(
    canvas: &HtmlCanvasElement,
    size: shell::Size,
    css_h: f64,
    horizon_us: u64,
    shown: Vec<usize>,
    members: usize,
    dark: bool,
) -> Lanes {
    let (w, h, scale) = shell::fit(canvas, (shell::css_width(canvas, size, FALLBACK_CSS_W), css_h));
    let mut l = Lanes::showing((w, h), scale * size.type_scale(), horizon_us, shown, members);
    l.dark = dark;
    l
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
    pub profile: Shared<GroupProfile>,
    /// The horizon, µs.
    pub horizon_us: u64,
    /// The first event's index in the scenario's events.
    pub index: usize,
    /// The first event's instant now, µs.
    pub at_us: u64,
    /// Where a click, a tap, a drag or a key sends the first event.
    pub dispatch: UseReducerDispatcher<GroupState>,
    /// Projector mode.
    pub projector: bool,
    /// Dark colours.
    pub dark: bool,
}

/// How far (CSS px) a finger may move before its touch is a drag or a scroll, not a tap.
const SLOP_PX: i32 = 10;

/// The sweep's value at `at_us` as the chart shows it (a point holds until the next).
fn sweep_words(profile: &GroupProfile, at_us: u64) -> String {
    let at = format!("the first event at {} s", seconds_text(at_us));
    match profile.points.iter().rev().find(|pt| pt.at_us <= at_us) {
        Some(pt) => format!("{at}: {} lost, {} processed twice", pt.lost, pt.duplicated),
        None => at,
    }
}

/// The group's total lost and processed twice as a function of the first event's instant.
/// A click or a tap puts the first event at the instant under it, a drag (mouse, pen, or a
/// finger moving sideways) carries it along, as dragging its handle on the lanes does; a
/// finger moving up or down scrolls the page. It is a slider for the keyboard too: arrow
/// keys move the first event by 0.1 s, Page Up / Page Down by 1 s, Home and End to the ends.
#[function_component]
pub fn SweepCanvas(p: &SweepProps) -> Html {
    let canvas = use_node_ref();
    let size = use_size(canvas.clone(), p.projector);
    let frame: Rc<RefCell<Option<Frame>>> = use_mut_ref(|| None);
    let frames = use_mut_ref(|| 0u32);
    let css_h = (SWEEP_CSS_H * size.type_scale().sqrt()).round();
    {
        let (canvas, frame, frames) = (canvas.clone(), frame.clone(), frames.clone());
        use_effect_with(
            (p.profile.clone(), p.at_us, size, p.dark, p.horizon_us),
            move |(profile, at, size, dark, horizon)| {
                let Some(c) = canvas.cast::<HtmlCanvasElement>() else { return };
                let type_scale = size.type_scale();
                let (w, h, scale) = shell::fit(&c, (shell::css_width(&c, *size, FALLBACK_CSS_W), css_h));
                let f = Frame {
                    dark: *dark,
                    ..lanes::sweep_frame((w, h), scale * type_scale, *horizon, profile)
                };
                *frame.borrow_mut() = Some(f);
                shell::draw_on(c.clone(), "drawing the sweep failed", |root| {
                    lanes::draw_sweep(root, profile, &f, *at)
                });
                // For the tests: where t = 0 and the horizon are, CSS px from the left edge.
                let css = |x: f64| (x / scale).round() as i64;
                let _ = c.set_attribute("data-axis", &format!("{},{}", css(f.left), css(f.right)));
                let _ =
                    c.set_attribute("data-type-scale", &offset_window_view::kit::text::fixed(type_scale, 2));
                let mut n = frames.borrow_mut();
                *n += 1;
                let _ = c.set_attribute("data-frame", &n.to_string());
            },
        );
    }
    // Where a finger landed (client px) and whether it is dragging the event; a mouse or pen
    // press always drags.
    let press: Rc<RefCell<Option<(i32, i32, bool)>>> = use_mut_ref(|| None);
    let move_to = {
        let (frame, dispatch, index) = (frame.clone(), p.dispatch.clone(), p.index);
        move |e: &PointerEvent| {
            let (Some(f), Some((_, x, ..))) = (*frame.borrow(), shell::device_point(e)) else { return };
            dispatch.dispatch(GroupAction::DragEvent { index, at_us: snap_ms(f.time_at(x)) });
        }
    };
    let settle = {
        let dispatch = p.dispatch.clone();
        move || dispatch.dispatch(GroupAction::Settle)
    };
    let on_pointer = Callback::from(move |e: PointerEvent| {
        let el: Element = e.target_unchecked_into();
        let (x, y) = (e.client_x(), e.client_y());
        let touch = e.pointer_type() == "touch";
        let mut pressed = press.borrow_mut();
        match (e.type_().as_str(), *pressed) {
            ("pointerdown", _) if touch => *pressed = Some((x, y, false)),
            ("pointerdown", _) => {
                if e.button() != 0 {
                    return;
                }
                e.prevent_default();
                let _ = el.set_pointer_capture(e.pointer_id());
                *pressed = Some((x, y, true));
                move_to(&e);
            }
            ("pointermove", Some((x0, y0, dragging))) => {
                let (dx, dy) = (x - x0, y - y0);
                if !dragging {
                    // A finger: a drag only once it goes more sideways than up or down.
                    if dx.abs() <= SLOP_PX || dx.abs() <= dy.abs() {
                        return;
                    }
                    let _ = el.set_pointer_capture(e.pointer_id());
                    *pressed = Some((x0, y0, true));
                }
                move_to(&e);
            }
            ("pointerup", Some((x0, y0, dragging))) => {
                *pressed = None;
                // A finger lifted where it landed: a tap. One that went further scrolled.
                if !dragging && (x - x0).abs() <= SLOP_PX && (y - y0).abs() <= SLOP_PX {
                    move_to(&e);
                }
                settle();
            }
            _ => {
                *pressed = None;
                settle();
            }
        }
    });
    let on_key = {
        let (dispatch, index, at, horizon) = (p.dispatch.clone(), p.index, p.at_us, p.horizon_us);
        Callback::from(move |e: KeyboardEvent| {
            let to = match e.key().as_str() {
                "ArrowRight" | "ArrowUp" => at.saturating_add(100_000),
                "ArrowLeft" | "ArrowDown" => at.saturating_sub(100_000),
                "PageUp" => at.saturating_add(1_000_000),
                "PageDown" => at.saturating_sub(1_000_000),
                "Home" => 0,
                "End" => horizon,
                _ => return,
            };
            e.prevent_default();
            dispatch.dispatch(GroupAction::MoveEvent { index, at_us: snap_ms(to.min(horizon)) });
        })
    };
    html! {
        <canvas id="sweep" ref={canvas} style={format!("height:{}px", css_h as i64)} tabindex="0" role="slider"
            aria-label="The first event's instant, on the chart of the records the whole group loses and processes twice for each instant of it: click or tap to put the event there, or use the arrow keys; the sentence above gives the worst"
            aria-valuemin="0" aria-valuemax={seconds_text(p.horizon_us)} aria-valuenow={seconds_text(p.at_us)}
            aria-valuetext={sweep_words(&p.profile, p.at_us)}
            onpointerdown={on_pointer.clone()} onpointermove={on_pointer.clone()}
            onpointerup={on_pointer.clone()} onpointercancel={on_pointer} onkeydown={on_key}></canvas>
    }
}

/// Props of [`StripCanvas`].
#[derive(Properties, PartialEq)]
pub struct StripProps {
    /// The rows shown.
    pub lines: Shared<Vec<RecordLine>>,
    /// The horizon, µs.
    pub horizon_us: u64,
    /// The crash of the whole group, µs.
    pub crash_at_us: u64,
    /// `group.share.record.lock.duration.ms`, µs.
    pub lock_us: u64,
    /// Projector mode.
    pub projector: bool,
    /// Dark colours.
    pub dark: bool,
}

/// The share strip: a row per record, coloured by its state over time, locks outlined.
#[function_component]
pub fn StripCanvas(p: &StripProps) -> Html {
    let canvas = use_node_ref();
    let size = use_size(canvas.clone(), p.projector);
    let css_h = lanes::strip_css_height(p.lines.len(), size.type_scale()).round();
    {
        let canvas = canvas.clone();
        let deps = (p.lines.clone(), p.crash_at_us, size, p.dark, p.horizon_us, p.lock_us);
        // On the projector screen the box sets the height (it shares the screen with the lanes).
        let fill = p.projector;
        use_effect_with(deps, move |(lines, crash, size, dark, horizon, lock)| {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else { return };
            let css_h = if fill && size.height > 0 { size.height as f64 } else { css_h };
            let (w, h, scale) = shell::fit(&c, (shell::css_width(&c, *size, FALLBACK_CSS_W), css_h));
            let f = Frame {
                dark: *dark,
                ..lanes::strip_frame((w, h), scale * size.type_scale(), *horizon, lines.len())
            };
            let _ = c.set_attribute(
                "data-type-scale",
                &offset_window_view::kit::text::fixed(size.type_scale(), 2),
            );
            shell::draw_on(c, "drawing the strip failed", |root| {
                lanes::draw_strip(root, lines, &f, *crash, *lock)
            });
        });
    }
    let style = (!p.projector).then(|| format!("height:{}px", css_h as i64));
    html! {
        <div class="strip-box">
            <canvas id="strip" ref={canvas} {style} role="img"
                aria-label="Each record's state over time: acquired (its member's colour, its lock outlined), available again (grey), acknowledged (thin line), rejected or archived (hatched); the text below lists them"></canvas>
        </div>
    }
}
