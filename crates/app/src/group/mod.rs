//! The group page (`group.html`, served as `group/`; docs/model.md §10 and §11): a consumer
//! group or a share group on one time axis. Its own wasm, so the consumer page stays as
//! light as it is. The state, reducer, URL, drawing, words and presets are the pure parts
//! of `offset_window_view::group`, tested on the host; here are the components.
//!
//! [`GroupApp`] owns the state and memoises what is costly on what it depends on: the run
//! on the scenario, the sweep of the first event on the scenario without that event's
//! instant (so dragging it does not sweep again), the comparisons on the scenario. It lays
//! the page out for its mode in the shell's frame (`crate::shell`): the page, projector
//! mode (one 16:9 screen with the tour, the lanes, the first event's control and the
//! totals, the rest below) and the embed. Each box of the page (the sweep, the share strip,
//! the presets, the events, the settings, the comparison, the tools) is a part with props
//! (`shell::Part`) that takes only what it shows, so a change re-renders only the boxes that
//! depend on it: the crash of a share group leaves the events and the settings alone, a
//! moved event the settings.

pub mod canvas;

use crate::shell::{self, hash, part, rendered, Frame, Mode, Part, RunRef, Screen, Shared};
use canvas::{LanesCanvas, StripCanvas, SweepCanvas};
use offset_window_sim::events::{GroupEvent, GroupEventKind, ShutdownMode};
use offset_window_sim::share_report::ShareSummary;
use offset_window_sim::sweep::{first_event, GroupProfile};
use offset_window_view::group::background::sweep_key;
use offset_window_view::group::lanes::{self, Zoom};
use offset_window_view::group::presets::{self, PRESETS};
use offset_window_view::group::state::{GroupAction, GroupState, CRASH_FIELD, EVENTS_FIELD, STRIP_ROWS};
use offset_window_view::group::tables;
use offset_window_view::group::timeline::{lock_words, record_lines, strip_words};
use offset_window_view::group::url;
use offset_window_view::group::words::{self, duration_text};
use offset_window_view::kit::text::seconds_text;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

type Dispatch = UseReducerDispatcher<GroupState>;

/// The tour on screen: which tour (the share group's, or the one taken from a consumer
/// group) and the step shown.
type TourAt = Option<(bool, usize)>;

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// A promise of the sweep's numbers (`GroupProfile::to_flat`) for the link `scenario`:
    /// `offsetWindowGroupSweep(scenario)`, defined in `group.html` (web/group-worker.js), which
    /// runs the worker module in a Web Worker and rejects a sweep a newer call stopped with
    /// [`SUPERSEDED`]. Errors: a page without that function.
    #[wasm_bindgen(js_namespace = window, js_name = offsetWindowGroupSweep, catch)]
    fn sweep_promise(scenario: &str) -> Result<js_sys::Promise, wasm_bindgen::JsValue>;
}

/// Why web/group-worker.js ends a sweep before it is done: a newer one was asked for.
const SUPERSEDED: &str = "superseded";

/// The sweep of the first event for the sweep key's link `scenario`, from the worker module;
/// `None` when it has none. Errors: why it could not run, in words ([`SUPERSEDED`] when a newer
/// sweep stopped it).
async fn first_event_sweep(scenario: &str) -> Result<Option<GroupProfile>, String> {
    let said = |e: wasm_bindgen::JsValue| {
        e.dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .or_else(|| e.as_string())
            .unwrap_or_default()
    };
    let promise = sweep_promise(scenario).map_err(said)?;
    let flat = wasm_bindgen_futures::JsFuture::from(promise).await.map_err(said)?;
    Ok(GroupProfile::from_flat(&flat.unchecked_into::<js_sys::BigUint64Array>().to_vec()))
}

/// Where the sweep of the first event stands on the page.
#[derive(Clone, PartialEq)]
enum Sweep {
    /// No sweep: a share group, or no events.
    None,
    /// Asked of the worker module, not answered yet.
    Pending,
    /// The sweep of the scenario shown.
    Done(Shared<GroupProfile>),
    /// The worker module could not run it: why.
    Failed(String),
}

/// What the form boxes show: the state without what they do not show (the share crash and
/// its field, the strip's place, the preset, the tour, the zoom, the mode, the notices), so that a
/// change of those leaves them alone. `events: false` leaves out the events too (the
/// settings box).
fn form_state(state: &GroupState, events: bool) -> Rc<GroupState> {
    let keep = |(key, _): &(String, String)| key != CRASH_FIELD && (events || !key.starts_with(EVENTS_FIELD));
    let mut scenario = state.scenario.clone();
    if !events {
        scenario.group_events.clear();
    }
    Rc::new(GroupState {
        scenario,
        run: state.run.clone(),
        crash_at_us: 1,
        partition: 0,
        strip_from: 0,
        preset: None,
        projector: false,
        tour: None,
        zoom: Zoom::All,
        drafts: state.drafts.iter().filter(|d| keep(d)).cloned().collect(),
        errors: state.errors.iter().filter(|e| keep(e)).cloned().collect(),
        notices: Vec::new(),
        preview: state.preview.filter(|_| events),
    })
}

/// How long a drag previewed rests before it is simulated, ms.
const SETTLE_MS: i32 = 200;

/// The group page.
#[function_component]
pub fn GroupApp() -> Html {
    rendered("GroupApp");
    let state = use_reducer(|| url::state_from(&hash()));
    let dispatch = state.dispatcher();
    let mode = shell::use_mode(state.projector);
    let dark = shell::use_dark();
    let scenario_part = use_memo(state.scenario.clone(), url::scenario_fragment);
    let fragment = url::join(&scenario_part, &state);
    shell::use_url(fragment.clone(), (), {
        let dispatch = dispatch.clone();
        move || dispatch.dispatch(GroupAction::Restore(Box::new(url::state_from(&hash()))))
    });
    shell::use_preset_select(state.preset);
    let s = &state.scenario;
    let share = state.share();
    // The run the reducer simulated when it took the scenario: the page draws that one (the
    // state only holds scenarios that run).
    let run: RunRef = Shared(state.run.clone());
    // The run shown serves its own side of the consumer-vs-share table (one more simulation:
    // the other kind of group, left out for a group drawn as an overview).
    let versus = use_memo(s.clone(), {
        let run = run.clone();
        move |s| tables::versus_on_page(s, &run.0)
    });
    // The sweep of the first event comes from the worker module (web/group-worker.js), in the
    // background: the link it was swept for and what came back. The lanes and totals never
    // wait for it; a change of anything but the first event's instant asks again, which stops
    // a sweep in progress.
    let sweep_link = use_memo(s.clone(), |s| sweep_key(s).map(|key| url::scenario_fragment(&key)));
    type Swept = (String, Result<Option<Rc<GroupProfile>>, String>);
    let swept = use_state(|| -> Swept { (String::new(), Ok(None)) });
    use_effect_with(sweep_link.clone(), {
        let swept = swept.setter();
        move |link: &Rc<Option<String>>| {
            if let Some(link) = (**link).clone() {
                wasm_bindgen_futures::spawn_local(async move {
                    match first_event_sweep(&link).await {
                        Err(e) if e == SUPERSEDED => {}
                        outcome => swept.set((link, outcome.map(|p| p.map(Rc::new)))),
                    }
                });
            }
        }
    });
    let sweep = match (&*sweep_link, &*swept) {
        (None, _) => Sweep::None,
        (Some(link), (done, outcome)) if link == done => match outcome {
            Ok(Some(profile)) => Sweep::Done(Shared(profile.clone())),
            Ok(None) => Sweep::None,
            Err(e) => Sweep::Failed(e.clone()),
        },
        _ => Sweep::Pending,
    };
    let profile = match &sweep {
        Sweep::Done(profile) => Some(profile.clone()),
        _ => None,
    };
    // A big group's drag is previewed (the events and the sweep's figures move at once) and
    // simulated once it rests for SETTLE_MS, or ends.
    use_effect_with(state.preview, {
        let dispatch = dispatch.clone();
        move |preview: &Option<(usize, u64)>| {
            let cancel = preview
                .map(|_| shell::later(SETTLE_MS, Box::new(move || dispatch.dispatch(GroupAction::Settle))));
            move || {
                if let Some(cancel) = cancel {
                    cancel();
                }
            }
        }
    });
    let events_shown = state.events_shown();
    // The comparisons under each protocol (a consumer group, by the worker module) or
    // acknowledgement mode (a share group): simulated once per scenario, and only while their
    // table is open (twelve runs: dragging an event with the table closed re-runs three); the
    // share rows are read at any crash instant.
    let compare_open = use_state_eq(|| false);
    let share_rows = use_memo((s.clone(), *compare_open), |(s, open)| {
        if s.share_group() && *open {
            tables::share_runs(s)
        } else {
            Vec::new()
        }
    });
    let projector = mode == Mode::Projector;
    let notices = shell::notices(&state.notices);
    let r = &run.0;
    let crash = share.then_some(state.crash_at_us);
    // A big group's lanes: the overview, or a zoom into some of its partitions (in the link).
    let zoom = state.zoom;
    let overview = lanes::is_overview(r.partitions.len(), share) && zoom == Zoom::All;
    let legend =
        legend(share, overview, r.scenario.member_count(), dark, overview && mode == Mode::Projector);
    let lanes = html! {
        <figure class="chart" id="group-lanes">
            <figcaption><h2 class="chart-title">{ if share { "The share group over time" } else { "The group over time: partitions, then members" } }</h2></figcaption>
            { zoom_control(r, share, zoom, &dispatch) }
            <LanesCanvas run={run.clone()} events={events_shown.clone()} crash_at_us={crash}
                dispatch={dispatch.clone()} {projector} fill={mode != Mode::Page} {dark} {zoom}
                behind={state.preview.is_some()} />
            // On the projector screen the legend goes below it, with the rest.
            if !projector { { legend.clone() } }
        </figure>
    };
    let readouts = if share { share_readouts(&state, r) } else { group_readouts(r, &sweep, state.preview) };
    let crash_control = share.then(|| crash_control(&state, &dispatch));
    if mode == Mode::Embed {
        let body = html! { <>{ readouts }{ crash_control }{ lanes }{ shell::full_link(&fragment) }</> };
        return shell::embed(classes!("page", "group", "embed", dark.then_some("dark")), notices, body);
    }
    let projector_button =
        shell::projector_button(projector, dispatch.to_callback().reform(GroupAction::SetProjector));
    // The tour's step is part of the state, so a link opens the tour where it was.
    let set_tour = dispatch.to_callback().reform(GroupAction::SetTour);
    let tour_box = html! { <GroupTour on={state.tour} {share} set={set_tour} dispatch={dispatch.clone()} {projector} /> };
    let title = if share { "Offset window: a share group" } else { "Offset window: a consumer group" };
    // A share group's strip: on the projector screen under the lanes (its tour speaks of it).
    let strip = share.then(|| {
        part(StripBox {
            run: run.clone(),
            partition: state.partition,
            strip_from: state.strip_from,
            crash_at_us: state.crash_at_us,
            projector,
            dark,
            dispatch: dispatch.clone(),
        })
    });
    let below_lanes = html! {
        <>
            if share {
                if !projector { { strip.clone() } }
            } else {
                { part(SweepBox { sweep, run: run.clone(), events: events_shown.clone(), projector, dark, dispatch: dispatch.clone() }) }
            }
            { story(&state, r) }
        </>
    };
    let panel = html! {
        <div class="panel">
            { part(PresetsBox {
                preset: state.preset,
                run: run.clone(),
                crash_at_us: if state.preset.is_some() { state.crash_at_us } else { 0 },
                dispatch: dispatch.clone(),
            }) }
            { part(EventsBox { fields: form_state(&state, true), dispatch: dispatch.clone() }) }
            { part(SettingsBox { fields: form_state(&state, false), dispatch: dispatch.clone() }) }
        </div>
    };
    let more = html! {
        <div class="more">
            { shell::import_section() }
            { part(CompareBox {
                run: run.clone(),
                crash_at_us: state.crash_at_us,
                versus: Shared(versus),
                scenario: Shared(scenario_part.clone()),
                share_rows: Shared(share_rows),
                open: *compare_open,
                set_open: compare_open.setter(),
            }) }
            { part(ToolsBox { run: run.clone(), crash_at_us: state.crash_at_us, profile: profile.clone(), fragment: fragment.clone() }) }
        </div>
    };
    let footer = shell::footer(
        dispatch.to_callback().reform(|_| GroupAction::Reset),
        html! { <span>{ "Simulated time; every number comes from the offset-window simulator running in this page (docs/model.md §10, §11)." }</span> },
    );
    let classes = classes!("page", "group", projector.then_some("projector"), dark.then_some("dark"));
    if projector {
        // One screen for a room, as on the consumer page: the tour, the lanes, the first
        // event's control (a share group: its crash's) and the totals in big type.
        let control = if share { crash_control } else { Some(event_control(&state, &dispatch)) };
        let main = html! {
            <>
                { Screen {
                    label: "Projector screen: the lanes, the event and the totals",
                    title,
                    tour: tour_box,
                    button: projector_button,
                    chart_class: share.then_some("with-strip"),
                    chart: html! { <>{ lanes }{ strip }</> },
                    control: html! { <>{ control }</> },
                    // An overview's rows mean nothing without their key: its legend on the
                    // screen, under the totals (issue 28); other lanes keep it below.
                    side: if overview { html! { <>{ readouts }{ legend.clone() }</> } } else { readouts },
                }.view() }
                <div class="layout">
                    <section class="stage" aria-label="The legend, the damage by instant and the story">
                        if !overview { { legend } }
                        { below_lanes }
                    </section>
                    { panel }
                    { more }
                </div>
            </>
        };
        return Frame { classes, header: html! {}, notices, lead: html! {}, main, footer }.view();
    }
    let header = shell::header(
        html! {
            <>
                <p class="views"><a href="../">{ "← the consumer view (one partition)" }</a>{ " · " }<a href="../producer/">{ "the producer view" }</a>{ " · " }<a href="../transactions/">{ "transactions in the log" }</a></p>
                <h1>{ title }</h1>
                { Html::from_html_unchecked(AttrValue::Static(words::lede(share))) }
            </>
        },
        projector_button,
    );
    let main = html! {
        <>
            <div class="layout">
                <section class="stage" aria-label="The group over time">
                    { readouts }
                    { crash_control }
                    { lanes }
                    { below_lanes }
                </section>
                { panel }
                // Under the stage, beside the taller panel (web/group.css).
                { more }
            </div>
        </>
    };
    Frame { classes, header, notices, lead: tour_box, main, footer }.view()
}

/// A form element's id: `prefix`, then `key` with its dots and underscores as dashes (one
/// function for every field rather than a `str::replace` per pattern type).
fn element_id(prefix: &str, key: &str) -> String {
    let mut id = prefix.to_string();
    id.extend(key.chars().map(|c| if c == '.' || c == '_' { '-' } else { c }));
    id
}

/// One readout: `id`, colour class, title, the value shown and the number in `data-value`.
fn ro(id: &'static str, class: &'static str, title: &str, shown: String, value: u64) -> Html {
    html! {
        <div class={classes!("ro", class)} {id} data-value={value.to_string()}>
            <dt>{ title }</dt><dd>{ shown }</dd>
        </div>
    }
}

/// The group's readouts, and the worst over every instant of the first event once its sweep
/// has come (while it is on its way, a line of the same height says so: nothing moves).
/// While a drag is previewed (`preview`: the event and its instant), the run's figures are
/// those before the drag: dimmed, but for the totals lost and processed twice when the
/// dragged event is the first and its sweep has come, which show the sweep's figures.
fn group_readouts(run: &offset_window_sim::Run, sweep: &Sweep, preview: Option<(usize, u64)>) -> Html {
    let Some(g) = &run.group else { return html! {} };
    let first = first_event(&run.scenario);
    let estimate = match (preview, sweep) {
        (Some((index, at_us)), Sweep::Done(p)) if Some(index) == first => p.0.at(at_us),
        _ => None,
    };
    let readouts = words::group_readouts(g).into_iter().map(|mut r| {
        let estimated = match (estimate, r.id) {
            (Some(p), "g-lost") => Some(p.lost),
            (Some(p), "g-duplicated") => Some(p.duplicated),
            _ => None,
        };
        if let Some(n) = estimated {
            (r.shown, r.value) = (format!("≈ {n}"), n);
        }
        let stale = preview.is_some() && estimated.is_none();
        html! {
            <div class={classes!("ro", r.class, stale.then_some("stale"))} id={format!("ro-{}", r.id)} data-value={r.value.to_string()}>
                <dt>{ r.title }</dt><dd>{ r.shown }</dd>
            </div>
        }
    });
    html! {
        <section class="readouts" id="g-readouts" aria-labelledby="g-ro-title" aria-live="polite" aria-busy={preview.is_some().to_string()}>
            <h2 id="g-ro-title">{ words::group_readouts_title(run.scenario.horizon_us) }</h2>
            <dl class="ro-grid">{ for readouts }</dl>
            { match (preview, sweep) {
                (Some((_, at_us)), _) => html! { <p id="g-worst" class="hint" aria-busy="true">{ words::preview_sentence(at_us, estimate.is_some()) }</p> },
                (None, Sweep::Done(p)) => html! { <p id="g-worst" class="hint">{ words::worst_sentence(p) }</p> },
                (None, Sweep::Pending) => html! { <p id="g-worst" class="hint" aria-busy="true">{ "Worst over every instant of the first event: sweeping…" }</p> },
                (None, Sweep::None | Sweep::Failed(_)) => html! {},
            } }
        </section>
    }
}

fn share_readouts(state: &GroupState, run: &offset_window_sim::Run) -> Html {
    let summary = ShareSummary::new(run, state.crash_at_us);
    let per_member = summary
        .processed_by_member
        .iter()
        .enumerate()
        .map(|(m, n)| format!("{} {n}", words::member_name(m as u16 + 1)))
        .collect::<Vec<_>>()
        .join(", ");
    // Two kinds of number side by side: what a crash of the whole group at the slider's
    // instant would cost, and what the whole run (with only its own events) did. Each
    // kind has its own heading saying which it is, as the comparison's headers below do.
    let at = seconds_text(state.crash_at_us);
    let horizon = duration_text(run.scenario.horizon_us);
    html! {
        <section class="readouts share-readouts" aria-labelledby="s-ro-title" aria-live="polite">
            <h2 id="s-ro-title">{ format!("If the whole share group crashed at {at} s") }</h2>
            <dl class="ro-grid ro-crash" aria-labelledby="s-ro-title">
                { ro("ro-s-lost", "lost", "lost", summary.at_crash.lost.to_string(), summary.at_crash.lost) }
                { ro("ro-s-duplicated", "duplicated", "delivered again", summary.at_crash.duplicated.to_string(), summary.at_crash.duplicated) }
            </dl>
            <h3 id="s-run-title">{ format!("In the whole run ({horizon}), with no crash of the whole group") }</h3>
            <dl class="ro-grid ro-run" aria-labelledby="s-run-title">
                { ro("ro-s-processed", "", "processed", summary.processed.to_string(), summary.processed) }
                { ro("ro-s-redelivered", "", "sent again", summary.redeliveries.to_string(), summary.redeliveries) }
                { ro("ro-s-archived", "", "archived", summary.archived.to_string(), summary.archived) }
            </dl>
            <p class="hint" id="s-per-member">{ format!("Processed per member: {per_member}. A crash of the whole group at its worst instant: {} lost, {} delivered again.", summary.worst_lost, summary.worst_duplicated) }</p>
        </section>
    }
}

fn crash_control(state: &GroupState, dispatch: &Dispatch) -> Html {
    let horizon = state.scenario.horizon_us;
    let on_slide = dispatch.to_callback().reform(|e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        GroupAction::SetCrash((input.value_as_number().max(0.0) * 1_000.0).round() as u64)
    });
    let on_text = dispatch.to_callback().reform(|e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        GroupAction::SetCrashText(input.value())
    });
    html! {
        <div class="crash-control field">
            <label for="crash-slider">{ "Crash of the whole group at " }<span id="crash-shown">{ format!("{} s", seconds_text(state.crash_at_us)) }</span></label>
            <div class="crash-row">
                <input type="range" id="crash-slider" min="0" max={(horizon / 1_000).to_string()} step="10"
                    value={(state.crash_at_us / 1_000).to_string()} oninput={on_slide} />
                <input type="text" id="crash-at" class="num" inputmode="decimal" autocomplete="off"
                    aria-label="crash of the whole group at, in seconds" value={state.field_text(CRASH_FIELD)}
                    aria-invalid={state.error(CRASH_FIELD).is_some().to_string()} oninput={on_text} />
            </div>
            <p class="hint">{ "Drag the red line on the lanes, slide, or type the instant in seconds (arrow keys: 10 ms steps)." }</p>
            if let Some(e) = state.error(CRASH_FIELD) { <p class="field-error" role="alert">{ e }</p> }
        </div>
    }
}

/// The first event's instant on the projector screen: its slider and its ms field (the
/// same actions as its row under "Group events"), with the event in words.
fn event_control(state: &GroupState, dispatch: &Dispatch) -> Html {
    let s = &state.scenario;
    let Some(i) = first_event(s) else {
        return html! { <p class="hint" id="screen-no-event">{ "No group events: add one under “Group events” below." }</p> };
    };
    let Some(e) = state.event_shown(i) else { return html! {} };
    let on_slide = dispatch.to_callback().reform(move |ev: InputEvent| {
        let input: HtmlInputElement = ev.target_unchecked_into();
        GroupAction::DragEvent {
            index: i,
            at_us: (input.value_as_number().max(0.0) * 1_000.0).round() as u64,
        }
    });
    let on_text = dispatch.to_callback().reform(move |ev: InputEvent| {
        let input: HtmlInputElement = ev.target_unchecked_into();
        GroupAction::SetEventText { index: i, field: "at_ms", text: input.value() }
    });
    let error = state.event_error(i, "at_ms");
    html! {
        <div class="crash-control field" id="screen-event">
            <label for="screen-event-slider">{ format!("Event {}: ", i + 1) }<span class="crash-shown">{ words::event_words(&e) }</span></label>
            <div class="crash-row">
                <input type="range" id="screen-event-slider" min="0" max={(s.horizon_us / 1_000).to_string()} step="100"
                    value={(e.at_us / 1_000).to_string()} oninput={on_slide} onchange={settle(dispatch)} />
                <input type="text" id="screen-event-at-ms" class="num" inputmode="decimal" autocomplete="off"
                    aria-label={format!("event {} at, in seconds", i + 1)} value={state.event_text(i, "at_ms")}
                    aria-invalid={error.is_some().to_string()} oninput={on_text} />
            </div>
            if let Some(err) = error { <p class="field-error" role="alert">{ err }</p> }
        </div>
    }
}

/// A drag previewed simulated at the end of a slider's drag (its `change`).
fn settle(dispatch: &Dispatch) -> Callback<Event> {
    dispatch.to_callback().reform(|_: Event| GroupAction::Settle)
}

/// The lanes' legend: its lines, the members' colours and the events' line; on the projector
/// screen beside an overview (`on_screen`), its lines only, so it fits under the totals.
fn legend(share: bool, overview: bool, members: u32, dark: bool, on_screen: bool) -> Html {
    html! {
        <ul class="gkey" id="legend">
            { for words::legend_lines(share, overview, members as usize > lanes::OVERVIEW_MEMBERS).iter().map(|l| html! { <li>{ *l }</li> }) }
            if !on_screen {
                { for (0..members.min(8)).map(|m| html! {
                    <li><span class="sw" style={format!("background:{}", lanes::member_css(m as u16, dark))}></span>{ words::member_name(m as u16 + 1) }</li>
                }) }
                if members > 8 { <li>{ words::LEGEND_COLOURS_REPEAT }</li> }
                <li>{ words::LEGEND_EVENTS }</li>
            }
        </ul>
    }
}

/// A big consumer group's choice of what its lanes show: the overview, a range of partitions
/// or one member's partitions ([`lanes::zoom_choices`]); nothing for a group that has a lane
/// for every partition anyway.
fn zoom_control(run: &offset_window_sim::Run, share: bool, zoom: Zoom, dispatch: &Dispatch) -> Html {
    if !lanes::is_overview(run.partitions.len(), share) {
        return html! {};
    }
    let onchange = dispatch.to_callback().reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        GroupAction::SetZoom(Zoom::from_value(&select.value()))
    });
    let chosen = zoom.value();
    html! {
        <p class="lanes-zoom">
            <label for="lanes-zoom">{ "Lanes of " }</label>
            <select id="lanes-zoom" {onchange}>
                { for lanes::zoom_choices(run.partitions.len(), run.scenario.member_count() as usize).into_iter().map(|(z, words)| {
                    let selected = z.value() == chosen;
                    html! { <option {selected} value={z.value()}>{ words }</option> }
                }) }
            </select>
        </p>
    }
}

/// The damage as a function of the first event's instant: its title, hint and chart.
/// Its fields are its props: it renders again only when they change.
#[derive(PartialEq)]
struct SweepBox {
    /// The sweep of the first event, or where it stands.
    sweep: Sweep,
    /// The run shown (its scenario's first event and horizon).
    run: RunRef,
    /// The events as the page shows them (a drag previewed moves one).
    events: Vec<GroupEvent>,
    /// Projector mode.
    projector: bool,
    /// Dark colours.
    dark: bool,
    /// Where the chart sends the first event.
    dispatch: Dispatch,
}

impl Part for SweepBox {
    fn view(&self) -> Html {
        let p = self;
        rendered("SweepBox");
        let s = &p.run.0.scenario;
        let Some(first) = first_event(s) else { return html! {} };
        let Some(&event) = p.events.get(first) else { return html! {} };
        let chart = match &p.sweep {
            Sweep::None => return html! {},
            Sweep::Pending => html! {
                <p class="hint sweep-waiting" id="sweep-waiting">{ "Sweeping the first event's instants in the background…" }</p>
            },
            Sweep::Failed(why) => html! {
                <p class="import-error" role="alert">{ format!("The sweep could not run: {why}.") }</p>
            },
            Sweep::Done(profile) => html! {
                <SweepCanvas profile={profile.clone()} horizon_us={s.horizon_us} index={first} at_us={event.at_us}
                    dispatch={p.dispatch.clone()} projector={p.projector} dark={p.dark} />
            },
        };
        html! {
            <figure class="chart" id="group-sweep" aria-busy={(p.sweep == Sweep::Pending).to_string()}>
                <figcaption>
                    <h2 class="chart-title">{ words::sweep_title(&event) }</h2>
                    <p class="hint" id="sweep-hint">{ words::SWEEP_HINT }</p>
                </figcaption>
                { chart }
            </figure>
        }
    }
}

/// A share group's records, one row each: the partition and first offset chosen, the
/// strip, its key, and the records' state and locks at the crash in words.
/// Its fields are its props: it renders again only when they change.
#[derive(PartialEq)]
struct StripBox {
    /// The run shown.
    run: RunRef,
    /// The partition shown (index: `orders-N`).
    partition: u32,
    /// The first offset shown.
    strip_from: u64,
    /// The crash of the whole group, µs.
    crash_at_us: u64,
    /// Projector mode.
    projector: bool,
    /// Dark colours.
    dark: bool,
    /// Where the partition and first offset chosen go.
    dispatch: Dispatch,
}

impl Part for StripBox {
    fn view(&self) -> Html {
        let p = self;
        rendered("StripBox");
        let run = &p.run.0;
        let lines = Rc::new(record_lines(run, p.partition, p.strip_from, STRIP_ROWS));
        let lock_us = run.scenario.share_record_lock_duration_us;
        let locks = lock_words(&lines, p.crash_at_us, lock_us);
        let on_partition = p.dispatch.to_callback().reform(|e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            GroupAction::SetPartition(select.value().parse().unwrap_or(0))
        });
        let on_from = p.dispatch.to_callback().reform(|e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            GroupAction::SetStripFrom(input.value().trim().parse().unwrap_or(0))
        });
        html! {
            <figure class="chart" id="share-strip">
                <figcaption><h2 class="chart-title">{ format!("The records of {}, one row each", words::partition_name(p.partition)) }</h2></figcaption>
                <div class="tools">
                    <label>{ "partition " }<select id="strip-partition" onchange={on_partition}>
                        { for (0..run.scenario.partitions).map(|i| html! { <option value={i.to_string()} selected={i == p.partition}>{ words::partition_name(i) }</option> }) }
                    </select></label>
                    <label>{ "first offset " }<input id="strip-from" class="num" type="number" min="0" value={p.strip_from.to_string()} onchange={on_from} /></label>
                </div>
                <StripCanvas lines={Shared(lines.clone())} horizon_us={run.scenario.horizon_us} crash_at_us={p.crash_at_us} {lock_us} projector={p.projector} dark={p.dark} />
                <ul class="gkey">
                    <li>{ "member's colour: acquired by it (outline: a lock held at the crash instant, until it runs out)" }</li><li>{ "grey: available again" }</li>
                    <li>{ "thin line: acknowledged" }</li><li>{ "hatched: rejected or archived" }</li><li>{ "tick: a run completed" }</li>
                </ul>
                <p id="strip-words">{ format!("At {} s: {}.", seconds_text(p.crash_at_us), strip_words(&lines, p.crash_at_us)) }</p>
                if locks.is_empty() {
                    <p id="lock-words" class="hint">{ "No record of these is locked to a member then." }</p>
                } else {
                    <ul id="lock-words" class="sentences">{ for locks.iter().map(|w| html! { <li>{ w }</li> }) }</ul>
                }
            </figure>
        }
    }
}

/// The run in sentences: each event, each handover, each partition's totals.
fn story(state: &GroupState, run: &offset_window_sim::Run) -> Html {
    let s = &state.scenario;
    html! {
        <section class="story" aria-labelledby="story-title">
            <h2 id="story-title">{ "What happened, in words" }</h2>
            <ul class="sentences" id="event-sentences">
                { for s.group_events.iter().map(|e| html! { <li>{ words::event_words(e) }</li> }) }
                if s.group_events.is_empty() { <li>{ "No group events: add one from the list." }</li> }
            </ul>
            if let Some(g) = &run.group {
                // A big group's thousands of handovers: the first ones, then a count.
                <ul class="sentences" id="handovers">
                    { for words::capped_sentences(&g.handovers, "handovers", |h| words::handover_sentence(h, s.horizon_us)).into_iter().map(|w| html! { <li>{ w }</li> }) }
                </ul>
                <ul class="sentences" id="partition-sentences">
                    { for words::capped_sentences(&g.partitions, "partitions", words::partition_sentence).into_iter().map(|w| html! { <li>{ w }</li> }) }
                </ul>
            }
        </section>
    }
}

/// The presets: every `g*`, `group-*`, `s11-*` and `share-*` file by title, and the one
/// loaded with its story and its expectations checked.
/// Its fields are its props: it renders again only when they change.
#[derive(PartialEq)]
struct PresetsBox {
    /// The preset loaded, if it is still what is shown.
    preset: Option<usize>,
    /// The run shown (the preset's expectations are checked against it).
    run: RunRef,
    /// The crash the expectations read, µs (0 when no preset is shown).
    crash_at_us: u64,
    /// Where a choice goes.
    dispatch: Dispatch,
}

impl Part for PresetsBox {
    fn view(&self) -> Html {
        let p = self;
        rendered("PresetsBox");
        let dispatch = p.dispatch.clone();
        let on_change = Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            let Ok(i) = select.value().parse::<usize>() else { return dispatch.dispatch(GroupAction::Reset) };
            if presets::available(i) {
                return dispatch.dispatch(GroupAction::LoadPreset(i));
            }
            // The first preset chosen that the page does not carry fetches every file
            // (presets.json); if that fails the state says so.
            let dispatch = dispatch.clone();
            yew::platform::spawn_local(async move {
                if let Some(text) = crate::shell::presets_text().await {
                    presets::install(&text);
                }
                dispatch.dispatch(GroupAction::LoadPreset(i));
            });
        });
        let option = |i: usize, preset: &presets::Preset| {
            html! { <option value={i.to_string()} selected={p.preset == Some(i)}>{ preset.title }</option> }
        };
        let checks = p.preset.map(|i| presets::checks(i, &p.run.0, p.crash_at_us)).unwrap_or_default();
        html! {
            <section class="presets" aria-labelledby="presets-title">
                <h2 id="presets-title">{ "Presets" }</h2>
                <select id="preset" aria-labelledby="presets-title" onchange={on_change}>
                    <option value="" selected={p.preset.is_none()}>{ "choose a case…" }</option>
                    <optgroup label="consumer group">
                        { for PRESETS.iter().enumerate().filter(|(_, preset)| !preset.share).map(|(i, preset)| option(i, preset)) }
                    </optgroup>
                    <optgroup label="share group">
                        { for PRESETS.iter().enumerate().filter(|(_, preset)| preset.share).map(|(i, preset)| option(i, preset)) }
                    </optgroup>
                </select>
                if let Some(i) = p.preset {
                    // Whole: a select cuts a long title on a phone.
                    <p class="preset-title"><strong>{ PRESETS[i].title }</strong></p>
                    <p id="preset-story">{ presets::story(i) }</p>
                    <ul class="checks" id="preset-checks">
                        { for checks.iter().map(|c| html! { <li class={if c.ok { "ok" } else { "bad" }}>{ &c.sentence }</li> }) }
                    </ul>
                }
            </section>
        }
    }
}

/// The group events: each with its kind, member, shutdown mode, instant (slider and
/// field) and the fields of its kind; buttons to add one of each kind.
/// Its fields are its props: it renders again only when they change.
#[derive(PartialEq)]
struct EventsBox {
    /// What the box shows: the state without what it does not show ([`form_state`]).
    fields: Rc<GroupState>,
    /// Where changes go.
    dispatch: Dispatch,
}

impl Part for EventsBox {
    fn view(&self) -> Html {
        let p = self;
        rendered("EventsBox");
        let (state, dispatch) = (&*p.fields, &p.dispatch);
        let s = &state.scenario;
        let horizon_ms = s.horizon_us / 1_000;
        let members = s.member_count() as u16;
        let text_field = |i: usize, field: &'static str| {
            let id = element_id(&format!("event-{i}-"), field);
            let oninput = dispatch.to_callback().reform(move |e: InputEvent| {
                let input: HtmlInputElement = e.target_unchecked_into();
                GroupAction::SetEventText { index: i, field, text: input.value() }
            });
            html! {
                <div class="field">
                    <label for={id.clone()}>{ words::event_field_label(field) }</label>
                    <input type="text" {id} class="num" inputmode="decimal" autocomplete="off"
                        value={state.event_text(i, field)} {oninput}
                        aria-invalid={state.event_error(i, field).is_some().to_string()} />
                    if let Some(e) = state.event_error(i, field) { <p class="field-error" role="alert">{ e }</p> }
                </div>
            }
        };
        let event = |i: usize| {
            let Some(e) = state.event_shown(i) else { return html! {} };
            let on_kind = dispatch.to_callback().reform(move |ev: Event| {
                let select: HtmlSelectElement = ev.target_unchecked_into();
                GroupAction::SetEventKind {
                    index: i,
                    kind: GroupEventKind::from_name(&select.value()).unwrap_or(GroupEventKind::Crash),
                }
            });
            let on_member = dispatch.to_callback().reform(move |ev: Event| {
                let select: HtmlSelectElement = ev.target_unchecked_into();
                GroupAction::SetEventMember { index: i, member: select.value().parse().unwrap_or(1) }
            });
            let on_mode = dispatch.to_callback().reform(move |ev: Event| {
                let select: HtmlSelectElement = ev.target_unchecked_into();
                GroupAction::SetEventMode {
                    index: i,
                    mode: ShutdownMode::from_name(&select.value()).unwrap_or(ShutdownMode::Wakeup),
                }
            });
            let on_slide = dispatch.to_callback().reform(move |ev: InputEvent| {
                let input: HtmlInputElement = ev.target_unchecked_into();
                GroupAction::DragEvent {
                    index: i,
                    at_us: (input.value_as_number().max(0.0) * 1_000.0).round() as u64,
                }
            });
            let remove = dispatch.to_callback().reform(move |_| GroupAction::RemoveEvent(i));
            let slider_id = format!("event-{i}-slider");
            let has_mode = matches!(e.kind, GroupEventKind::Shutdown | GroupEventKind::Deploy);
            html! {
                <fieldset id={format!("event-{i}")}>
                    <legend>{ format!("Event {}: {}", i + 1, words::event_words(&e)) }</legend>
                    <div class="ev-row">
                        <div class="field"><label for={format!("event-{i}-kind")}>{ words::event_field_label("kind") }</label>
                            <select id={format!("event-{i}-kind")} onchange={on_kind}>
                                { for GroupEventKind::ALL.iter().map(|k| html! { <option value={k.name()} selected={*k == e.kind}>{ k.label() }</option> }) }
                            </select></div>
                        if e.kind != GroupEventKind::Deploy {
                            <div class="field"><label for={format!("event-{i}-member")}>{ words::event_field_label("member") }</label>
                                <select id={format!("event-{i}-member")} onchange={on_member}>
                                    { for (1..=members.max(e.member)).map(|m| html! { <option value={m.to_string()} selected={m == e.member}>{ words::member_name(m) }</option> }) }
                                </select>
                                if let Some(err) = state.event_error(i, "member") { <p class="field-error" role="alert">{ err }</p> }
                            </div>
                        }
                        if has_mode {
                            <div class="field"><label for={format!("event-{i}-mode")}>{ words::event_field_label("shutdown_mode") }</label>
                                <select id={format!("event-{i}-mode")} onchange={on_mode}>
                                    { for ShutdownMode::ALL.iter().map(|m| html! { <option value={m.name()} selected={*m == e.shutdown_mode}>{ m.label() }</option> }) }
                                </select></div>
                        }
                    </div>
                    <div class="ev-row">
                        <div class="field ev-at">
                            <label for={slider_id.clone()}>{ format!("instant: {} s (arrow keys: 0.1 s steps)", seconds_text(e.at_us)) }</label>
                            <input type="range" id={slider_id} min="0" max={horizon_ms.to_string()} step="100"
                                value={(e.at_us / 1_000).to_string()} oninput={on_slide} onchange={settle(dispatch)} />
                        </div>
                        { text_field(i, "at_ms") }
                        if matches!(e.kind, GroupEventKind::Crash | GroupEventKind::Shutdown | GroupEventKind::Deploy) { { text_field(i, "restart_after_ms") } }
                        if e.kind == GroupEventKind::Hang { { text_field(i, "duration_ms") } }
                        if e.kind == GroupEventKind::Deploy { { text_field(i, "deploy_step_ms") } }
                        <button id={format!("event-{i}-remove")} onclick={remove} aria-label={format!("remove event {}", i + 1)}>{ "remove" }</button>
                    </div>
                    if let Some(err) = state.event_error(i, "kind") { <p class="field-error" role="alert">{ err }</p> }
                </fieldset>
            }
        };
        html! {
            <section class="events-box" aria-labelledby="events-title">
                <h2 id="events-title">{ "Group events" }</h2>
                { for (0..s.group_events.len()).map(event) }
                <div class="add-events">
                    { for GroupEventKind::ALL.iter().map(|&k| html! {
                        <button id={format!("add-{}", k.name())} onclick={dispatch.to_callback().reform(move |_| GroupAction::AddEvent(k))}>{ format!("add: {}", k.label()) }</button>
                    }) }
                </div>
                if let Some(e) = state.error(EVENTS_FIELD) { <p class="field-error" role="alert" id="events-error">{ e }</p> }
            </section>
        }
    }
}

/// The group's settings: consumer or share group, the choices and the numbers that apply
/// to it (the advanced ones folded away).
/// Its fields are its props: it renders again only when they change.
#[derive(PartialEq)]
struct SettingsBox {
    /// What the box shows: the state without the events and what it does not show
    /// ([`form_state`]).
    fields: Rc<GroupState>,
    /// Where changes go.
    dispatch: Dispatch,
}

impl Part for SettingsBox {
    fn view(&self) -> Html {
        let p = self;
        rendered("SettingsBox");
        let (state, dispatch) = (&*p.fields, &p.dispatch);
        let s = &state.scenario;
        let share = state.share();
        let on_kind = dispatch.to_callback().reform(|e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            GroupAction::SetShare(input.value() == "share")
        });
        let number = |f: &'static offset_window_view::kit::fields::Field| {
            let key = f.key;
            let id = element_id("f-", key);
            let oninput = dispatch.to_callback().reform(move |e: InputEvent| {
                let input: HtmlInputElement = e.target_unchecked_into();
                GroupAction::SetField { key, text: input.value() }
            });
            let unit = if f.unit.is_empty() { String::new() } else { format!(" ({})", f.unit) };
            html! {
                <div class="field">
                    <label for={id.clone()}>{ if f.kafka { html! { <code>{ f.label }</code> } } else { html! { f.label } } }<span class="unit">{ unit }</span></label>
                    <input type="text" {id} class="num" inputmode="decimal" autocomplete="off" value={state.field_text(key)} {oninput}
                        aria-invalid={state.error(key).is_some().to_string()} />
                    <p class="hint">{ words::hint(f) }</p>
                    if let Some(why) = s.unread(key) { <p class="hint field-unread">{ format!("Not read here: {why}.") }</p> }
                    if let Some(e) = state.error(key) { <p class="field-error" role="alert">{ e }</p> }
                </div>
            }
        };
        let choice = |key: &'static str, label: &'static str| {
            let id = element_id("c-", key);
            let current = s.get(key).and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            let onchange = dispatch.to_callback().reform(move |e: Event| {
                let select: HtmlSelectElement = e.target_unchecked_into();
                GroupAction::SetValue { key, value: select.value().into() }
            });
            html! {
                <div class="field">
                    <label for={id.clone()}>{ label }</label>
                    <select {id} {onchange}>
                        { for tables::choice_options(key, share).into_iter().map(|(name, words)| html! {
                            <option value={name} selected={name == current}>{ words }</option>
                        }) }
                    </select>
                    if let Some(e) = state.error(key) { <p class="field-error" role="alert">{ e }</p> }
                </div>
            }
        };
        let flag = |key: &'static str, on: bool| {
            let id = element_id("c-", key);
            let onchange = dispatch.to_callback().reform(move |e: Event| {
                let input: HtmlInputElement = e.target_unchecked_into();
                GroupAction::SetValue { key, value: input.checked().into() }
            });
            html! {
                <div class="field check">
                    <label><input type="checkbox" {id} checked={on} {onchange} />{ words::label(key) }</label>
                    if let Some(e) = state.error(key) { <p class="field-error" role="alert">{ e }</p> }
                </div>
            }
        };
        let fields: Vec<_> =
            words::FIELDS.iter().filter(|(_, shown)| shown.on(share)).map(|(f, _)| f).collect();
        html! {
            <section class="controls" aria-labelledby="settings-title">
                <h2 id="settings-title">{ "The group" }</h2>
                <fieldset class="kind-toggle">
                    <legend>{ "Kind of group" }</legend>
                    <label><input type="radio" name="group-kind" id="kind-consumer" value="consumer" checked={!share} onchange={on_kind.clone()} />{ "consumer group (KafkaConsumer)" }</label>
                    <label><input type="radio" name="group-kind" id="kind-share" value="share" checked={share} onchange={on_kind} />{ "share group (KafkaShareConsumer, KIP-932)" }</label>
                </fieldset>
                if let Some(e) = state.error("consumption") { <p class="field-error" role="alert">{ e }</p> }
                { for words::CHOICES.iter().filter(|(_, _, shown)| shown.on(share)).map(|&(key, label, _)| choice(key, label)) }
                if !share {
                    { flag("group.instance.id", s.static_membership) }
                    { flag("worker_pool", s.worker_pool) }
                    if s.worker_pool { { flag("commit_revoked_partitions", s.commit_revoked_partitions) } }
                }
                if share {
                    <p class="hint">{ "Kafka's own default for share.auto.offset.reset is latest (a new share group skips the backlog); the model starts at earliest unless set." }</p>
                }
                { for fields.iter().filter(|f| !f.advanced).map(|f| number(f)) }
                <details class="advanced">
                    <summary>{ "More settings" }</summary>
                    { for fields.iter().filter(|f| f.advanced).map(|f| number(f)) }
                </details>
            </section>
        }
    }
}

/// The same workload and events as a consumer group and as a share group, and the table of
/// every protocol and assignor (or acknowledgement mode), simulated when it is opened (a
/// consumer group's by the worker module, web/group-worker.js).
/// Its fields are its props: it renders again only when they change.
#[derive(PartialEq)]
struct CompareBox {
    /// The run shown (its scenario).
    run: RunRef,
    /// The share crash, µs (a share group's table reads the modes at that instant; a
    /// consumer group's stays put).
    crash_at_us: u64,
    /// The consumer group and the share group side by side.
    versus: Shared<(Vec<tables::VersusRow>, bool)>,
    /// The scenario's link (the page's scenario keys): a consumer group's table of every
    /// protocol and assignor is the worker module's for it.
    scenario: Shared<String>,
    /// A share group's runs under each acknowledgement mode (empty while closed).
    share_rows: Shared<Vec<tables::ShareRow>>,
    /// Whether the table of every protocol (or mode) is open.
    open: bool,
    /// Where its opening and closing go.
    set_open: UseStateSetter<bool>,
}

impl Part for CompareBox {
    fn view(&self) -> Html {
        let p = self;
        rendered("CompareBox");
        let ontoggle = {
            let set = p.set_open.clone();
            Callback::from(move |e: Event| {
                let details: web_sys::Element = e.target_unchecked_into();
                set.set(details.has_attribute("open"));
            })
        };
        let s = &p.run.0.scenario;
        let share = s.share_group();
        let (versus_rows, versus_left_out) = &*p.versus.0;
        // A consumer group's table: an empty box that names the scenario while the table is
        // open; web/group-worker.js fills it from the worker module (crates/group-worker),
        // fetched on first use, so the page's wasm carries neither the variants nor the table.
        let table = if share {
            html! {
                <div class="table-scroll" tabindex="0" role="region" aria-label="the comparison table (scrolls sideways)">
                    { Html::from_html_unchecked(AttrValue::from(tables::share_table_html(&p.share_rows, s, p.crash_at_us))) }
                </div>
            }
        } else {
            html! {
                <div id="group-compare" key="group-compare" class="table-scroll" tabindex="0" role="region" aria-label="the comparison table (scrolls sideways)"
                    data-scenario={p.open.then(|| AttrValue::from(p.scenario.to_string()))} />
            }
        };
        html! {
            <section class="compare" aria-labelledby="compare-title">
                <h2 id="compare-title">{ "Consumer group vs share group: the same workload, the same events" }</h2>
                <div class="table-scroll" tabindex="0" role="region" aria-label="consumer group vs share group (scrolls sideways)">{ Html::from_html_unchecked(AttrValue::from(tables::versus_html(versus_rows, share))) }</div>
                if *versus_left_out {
                    <p class="hint" id="versus-left-out">{ "The other kind of group is not simulated on this page for a group drawn as an overview (seconds at every change): offset-window run with the other consumption gives it." }</p>
                }
                <p class="hint">{ "Lost: a consumer group's records skipped at a handover; a share group's records that ended without a run (archived or rejected). Processed twice: completed runs of a record that had run before. Throughput: completed runs per simulated second." }</p>
                <details id="compare-details" open={p.open} {ontoggle}>
                    <summary>{ if share { "Each acknowledgement mode and commit strategy" } else { "Each protocol and assignor, dynamic and static" } }</summary>
                    { table }
                </details>
            </section>
        }
    }
}

/// Copy the link, download the result (the scenario and what the core computed, as JSON,
/// written when the button is pressed), and the code to embed the lanes in another page.
/// Its fields are its props: it renders again only when they change.
#[derive(PartialEq)]
struct ToolsBox {
    /// The run shown (its scenario and result go into the download).
    run: RunRef,
    /// The share crash, µs (a consumer group's stays put).
    crash_at_us: u64,
    /// The sweep of the first event, if there is one (its worst goes into the download).
    profile: Option<Shared<GroupProfile>>,
    /// The link's fragment (without `#`), for the embed code.
    fragment: String,
}

impl Part for ToolsBox {
    fn view(&self) -> Html {
        let p = self;
        rendered("ToolsBox");
        let download = {
            let (run, crash_at_us, profile) = (p.run.clone(), p.crash_at_us, p.profile.clone());
            Callback::from(move |_: MouseEvent| {
                let run = &run.0;
                let mut v = serde_json::Map::new();
                v.insert("scenario".into(), run.scenario.to_json_diff());
                if run.scenario.share_group() {
                    v.insert(
                        "crash_at_ms".into(),
                        offset_window_view::kit::fields::typed_value(
                            &offset_window_sim::scenario::format_millis(crash_at_us),
                        ),
                    );
                }
                v.insert("result".into(), presets::result_value(run, crash_at_us, profile.as_deref()));
                let result = offset_window_sim::keys::json_text(&serde_json::Value::Object(v));
                let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
                let Ok(a) = doc.create_element("a") else { return };
                let href = format!(
                    "data:application/json;charset=utf-8,{}",
                    String::from(js_sys::encode_uri_component(&result))
                );
                let _ = a.set_attribute("href", &href);
                let _ = a.set_attribute("download", "offset-window-group.json");
                if let Ok(a) = a.dyn_into::<HtmlElement>() {
                    a.click();
                }
            })
        };
        let copy = Callback::from(|_: MouseEvent| {
            if let Some(w) = web_sys::window() {
                let href = w.location().href().unwrap_or_default();
                let _ = w.navigator().clipboard().write_text(&href);
            }
        });
        let here = web_sys::window().map(|w| w.location());
        let origin = here.as_ref().and_then(|l| l.origin().ok()).unwrap_or_default();
        let path = here.as_ref().and_then(|l| l.pathname().ok()).unwrap_or_default();
        let embed = format!(
            "<iframe src=\"{origin}{path}?embed=1{}\" width=\"100%\" height=\"520\" style=\"border:0\" title=\"Offset window: a consumer group\" loading=\"lazy\"></iframe>",
            if p.fragment.is_empty() { String::new() } else { format!("#{}", p.fragment) }
        );
        html! {
            <section class="export" aria-labelledby="tools-title">
                <h2 id="tools-title">{ "Share and export" }</h2>
                <div class="tools">
                    <button id="copy-link" onclick={copy}>{ "Copy the link" }</button>
                    <button id="export-json" onclick={download}>{ "Download the result (JSON)" }</button>
                </div>
                <label for="embed-code">{ "Embed the lanes and readouts in another page:" }</label>
                <textarea id="embed-code" class="embed-code" readonly=true rows="3" value={embed} />
            </section>
        }
    }
}

/// Props of [`GroupTour`].
#[derive(Properties, PartialEq)]
struct TourProps {
    /// The tour on screen, if it is on.
    on: TourAt,
    /// Whether the page shows a share group: the tour taken from there is the share tour.
    share: bool,
    /// Where the tour's changes go.
    set: Callback<TourAt>,
    /// Where a step's preset goes.
    dispatch: Dispatch,
    /// Projector mode: the step says only what the screen shows.
    projector: bool,
}

/// The guided tour: each step loads its preset and says what to look at; Back, Next
/// (Finish on the last step) and Leave, which like Finish and Escape closes the tour and
/// keeps what is on screen. Taken from a share group it is the share group's own tour
/// ([`presets::SHARE_TOUR`]), about its lanes and record strip. A button that vanishes or
/// becomes disabled under the keyboard's focus hands it to the tour's next useful button.
#[function_component]
fn GroupTour(p: &TourProps) -> Html {
    let pressed = shell::use_tour_focus(p.on.is_some(), {
        let set = p.set.clone();
        move || set.emit(None)
    });
    let go = |to: TourAt| {
        let (pressed, set, dispatch) = (pressed.clone(), p.set.clone(), p.dispatch.clone());
        Callback::from(move |_: MouseEvent| {
            *pressed.borrow_mut() = true;
            if let Some(i) = to.and_then(|(share, n)| presets::tour_preset(share, n)) {
                dispatch.dispatch(GroupAction::LoadPreset(i));
            }
            set.emit(to);
        })
    };
    let Some((share_tour, n)) = p.on else {
        let steps = presets::tour(p.share).len();
        let label = if p.share {
            format!("Take the share group's tour ({steps} steps)")
        } else {
            format!("Take the tour ({steps} steps)")
        };
        return html! { <button id="tour-start" onclick={go(Some((p.share, 0)))}>{ label }</button> };
    };
    let steps = presets::tour(share_tour);
    let Some(step) = steps.get(n) else { return html! {} };
    let title = PRESETS.get(step.preset).map_or("", |p| p.title);
    let last = n + 1 == steps.len();
    html! {
        <section class="gtour tour" id="tour" aria-labelledby="tour-title" data-step={(n + 1).to_string()}>
            <h2 id="tour-title">{ format!("Tour, step {} of {}: {title}", n + 1, steps.len()) }</h2>
            <p id="tour-caption" aria-live="polite" data-names={step.names.join(" ")}>{ step.text(p.projector) }</p>
            <div class="nav">
                <button id="tour-back" disabled={n == 0} onclick={go(n.checked_sub(1).map(|m| (share_tour, m)))}>{ "Back" }</button>
                if last {
                    <button id="tour-finish" onclick={go(None)}>{ "Finish the tour" }</button>
                } else {
                    <button id="tour-next" onclick={go(Some((share_tour, n + 1)))}>{ "Next" }</button>
                    <button id="tour-leave" onclick={go(None)} title="Escape">{ "Leave the tour, keep these settings" }</button>
                }
            </div>
        </section>
    }
}
