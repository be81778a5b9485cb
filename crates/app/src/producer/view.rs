//! The producer view's components: [`ProducerApp`] owns the state and the memoised run;
//! the time axis, the controls, the log, the leader's memory, the counters and the tour
//! each show what their props give them.

use crate::shell::{self, Shared};
use offset_window_sim::producer::{
    simulate_producer, Acks, FaultKind, PidMemory, ProduceRun, PRODUCER_KEYS, PRODUCER_KEY_HELP,
};
use offset_window_sim::ScenarioError;
use offset_window_view::kit::text::millis_text as ms;
use offset_window_view::producer::axis::{self, Lanes};
use offset_window_view::producer::state::{
    fault_for_click, kind_label, Action, Idempotence, State, FAULTS_KEY, FIELDS, LINK_KEY,
};
use offset_window_view::producer::tour;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{HtmlCanvasElement, HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// A finished run, equal only to itself (props compare by pointer).
pub type RunRef = Shared<ProduceRun>;

const HEADER: &str = concat!(
    r#"<p class="views"><a href="../">← the consumer view</a> · "#,
    r#"<a href="../transactions/">transactions in the log</a> · "#,
    r#"<a href="../pipeline/">exactly-once pipelines</a></p>"#,
    r#"<h1>Offset window: the producer side</h1><p class="lede">One producer writes 20 records in "#,
    r#"batches to <code>orders-3</code>. Put faults on the time axis with the mouse and watch when a "#,
    r#"retry writes records twice, and when the leader's memory of (producer id, epoch, sequence) "#,
    r#"drops the repeat. Idempotence covers one partition and one producer session: it does "#,
    r#"nothing for a consumer that processes a record twice after its own restart.</p>"#
);

/// Styles of this view only (the shared sheet styles the rest).
const STYLE: &str = r#"
.views{margin:0 0 .3rem}.kinds{display:flex;flex-wrap:wrap;gap:.3rem .9rem;border:0;padding:0;margin:0 0 .4rem}
.kinds label{display:flex;align-items:center;gap:.3rem;min-height:44px;cursor:pointer}
.by-keys{display:flex;flex-wrap:wrap;gap:.4rem .6rem;align-items:center;font-size:.9rem}.by-keys select{width:auto}
.p-axis canvas{display:block;width:100%;cursor:crosshair;touch-action:manipulation}
.faults{list-style:none;padding:0;margin:.3rem 0}.faults li{display:flex;gap:.5rem;align-items:center;margin:.15rem 0}
.faults li{flex-wrap:wrap}.faults span{flex:1 1 12rem;min-width:0}.faults button{padding:.1rem .6rem;min-height:44px}
.plog{list-style:none;padding:0;margin:0;font-size:.88rem}.plog li{padding:.25rem .4rem;border-left:4px solid var(--durable);margin:.2rem 0;background:#f5faf8}
.plog li.dup{border-left:6px double var(--lost);background:#fff4e5}.plog .tag{font-weight:700;color:var(--lost)}
.cells{display:flex;flex-wrap:wrap;gap:2px;margin-top:.15rem}.cells span{min-width:1.6rem;text-align:center;border:1px solid #c8ced6;font-variant-numeric:tabular-nums;font-size:.78rem}
.dup .cells span{border:2px dashed var(--lost)}
.mem table{border-collapse:collapse;font-size:.85rem;width:100%}.mem td,.mem th{border:1px solid var(--line);padding:.15rem .3rem;text-align:left}
.mem td.empty{color:var(--muted)}.ptour{background:#f7f2fc;border-radius:8px;padding:.6rem}.ptour .nav{display:flex;gap:.5rem;flex-wrap:wrap}
.pkey{display:flex;flex-wrap:wrap;gap:.2rem 1rem;list-style:none;padding:0;margin:.3rem 0;font-size:.82rem;color:var(--muted)}
.at-row{display:flex;gap:.6rem;align-items:center}.ptour{margin-bottom:.75rem}.ptour h2{margin-top:0}
#tour-start{margin:0 0 .75rem .25rem}
@media (max-width:959px){.faults-box,.log-box,.p-at,.ptour{background:var(--paper);border:1px solid var(--line);border-radius:8px;padding:.6rem;margin:0}
.producer .ptour{order:1}.producer .p-axis{order:2}.producer .faults-box{order:3}.producer .pcounters{order:4}
.producer .controls{order:5}.producer .p-at{order:6}.producer .log-box{order:7}.producer .mem{order:8}}
"#;

/// The producer view.
#[function_component]
pub fn ProducerApp() -> Html {
    let state = use_reducer(|| {
        let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
        offset_window_view::producer::state::state_from(&hash)
    });
    let dispatch = state.dispatcher();
    let projector = shell::use_mode(state.projector) == shell::Mode::Projector;
    // The URL fragment follows the scenario (and projector mode) at once, so that a link
    // reproduces the view.
    use_effect_with(offset_window_view::producer::state::link(&state), |link| shell::write_fragment(link));
    shell::use_preset_select(state.preset);
    let run: Rc<Result<RunRef, ScenarioError>> =
        use_memo(state.scenario.clone(), |s| simulate_producer(s).map(|r| Shared(Rc::new(r))));
    let tour_button = match state.tour {
        None => {
            html! { <button id="tour-start" onclick={dispatch.to_callback().reform(|_| Action::Tour(Some(0)))}>{ "Take the tour" }</button> }
        }
        Some(_) => html! {},
    };
    let button = shell::projector_button(projector, dispatch.to_callback().reform(Action::Projector));
    let presets = presets_box(&state, run.as_ref().as_ref().ok().map(|r| &*r.0), &dispatch);
    let body = match &*run {
        Ok(run) => {
            let r = &run.0;
            let instants = Lanes::new(r, 2, 1.0).instants;
            let timeline = html! { <Timeline run={run.clone()} at_us={state.at_us} kind={state.kind} dispatch={dispatch.clone()} {projector} /> };
            let at = at_control(&instants, state.at_us, &dispatch);
            let faults = faults_list(r, state.error(FAULTS_KEY), &dispatch);
            let (log, memory, settings) =
                (log_view(r, state.at_us), memory_view(r, state.at_us), controls(&state, &dispatch));
            let tour = state.tour.map(|step| tour_box(step, r, &dispatch, projector));
            if projector {
                // One screen with the tour (or the chosen scenario's story), the time axis,
                // the instant and the counters; the rest below it.
                let story = state
                    .preset
                    .map(|i| html! { <p class="tour off screen-story">{ (tour::STEPS[i].caption)(r) }</p> });
                html! {
                    <>
                    { shell::Screen {
                        label: "Projector screen: the batches over time, the instant and the counters",
                        title: "The producer side",
                        tour: tour.or(story).unwrap_or(tour_button),
                        button: button.clone(),
                        chart_class: None,
                        chart: timeline,
                        control: at,
                        side: counters(r),
                    }.view() }
                    <main class="layout">
                        <section class="charts" aria-label="The faults and the log">{ faults }{ log }</section>
                        <aside class="panel">{ presets }{ memory }{ settings }</aside>
                    </main>
                    </>
                }
            } else {
                html! {
                    <>
                    { tour_button }
                    <main class="layout">
                        <section class="charts" aria-label="The producer over time">{ for tour }{ timeline }{ faults }{ at }{ log }</section>
                        <aside class="panel">{ presets }{ counters(r) }{ memory }{ settings }</aside>
                    </main>
                    </>
                }
            }
        }
        Err(e) => html! {
            <main class="layout">
            <p class="error" role="alert">{ format!("This scenario cannot run: {e}") }</p>
            <aside class="panel">{ presets }{ controls(&state, &dispatch) }</aside>
            </main>
        },
    };
    html! {
        <div class={classes!("page", "producer", projector.then_some("projector"))}>
            <style>{ STYLE }</style>
            if !projector {
                { shell::header(Html::from_html_unchecked(AttrValue::Static(HEADER)), button) }
            }
            if let Some(e) = state.error(LINK_KEY) {
                <p class="field-error" role="alert" id="p-link-error">{ format!("Part of this link was refused: {e}") }</p>
            }
            { body }
            <footer class="foot">
                <button class="reset" onclick={dispatch.to_callback().reform(|_| Action::Reset)}>{ "Back to the defaults" }</button>
                <span>{ "Simulated time; every number comes from the offset-window producer model running in this page." }</span>
            </footer>
        </div>
    }
}

/// The tour's six scenarios as a list (issue 28's trial: the page had no presets), with the
/// chosen one's story read from its run.
fn presets_box(state: &State, run: Option<&ProduceRun>, dispatch: &UseReducerDispatcher<State>) -> Html {
    let onchange = dispatch.to_callback().reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        Action::Preset(select.value().parse().unwrap_or(usize::MAX))
    });
    html! {
        <section class="presets" aria-labelledby="presets-title">
            <h2 id="presets-title"><label for="preset">{ "Scenarios" }</label></h2>
            <select id="preset" {onchange}>
                <option value="" disabled=true selected={state.preset.is_none()}>{ "Choose a scenario…" }</option>
                { for tour::STEPS.iter().enumerate().map(|(i, s)| html! {
                    <option value={i.to_string()} selected={state.preset == Some(i)}>{ s.title }</option>
                }) }
            </select>
            if let (Some(i), Some(run)) = (state.preset, run) {
                <p id="preset-story">{ (tour::STEPS[i].caption)(run) }</p>
            }
        </section>
    }
}

fn tour_box(step: usize, run: &ProduceRun, dispatch: &UseReducerDispatcher<State>, screen: bool) -> Html {
    let Some(s) = tour::STEPS.get(step) else { return html! {} };
    let go = |to: Option<usize>| dispatch.to_callback().reform(move |_| Action::Tour(to));
    html! {
        <div class={classes!("ptour", screen.then_some("tour"))} role="region" aria-label="Tour" aria-live="polite">
            <h2>{ format!("Tour, step {} of {}: {}", step + 1, tour::STEPS.len(), s.title) }</h2>
            <p id="tour-caption">{ (s.caption)(run) }</p>
            <div class="nav">
                <button id="tour-back" disabled={step == 0} onclick={go(step.checked_sub(1))}>{ "Back" }</button>
                <button id="tour-next" disabled={step + 1 == tour::STEPS.len()} onclick={
                    let next = go(Some(step + 1));
                    let last = step + 2 == tour::STEPS.len();
                    Callback::from(move |e: MouseEvent| {
                        if last {
                            shell::focus_by_id("tour-back"); // Next is about to be disabled
                        }
                        next.emit(e);
                    })
                }>{ "Next" }</button>
                <button onclick={go(None)}>{ "Leave the tour" }</button>
            </div>
        </div>
    }
}

/// Props of [`Timeline`].
#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    /// The run drawn.
    pub run: RunRef,
    /// The instant marked, µs.
    pub at_us: Option<u64>,
    /// What a click places.
    pub kind: FaultKind,
    /// Where clicks go.
    pub dispatch: UseReducerDispatcher<State>,
    /// Projector mode: text, lines and marks drawn [`shell::projector_type`] times larger.
    pub projector: bool,
}

/// The time axis on a canvas: drawn by an effect, clicked to place faults.
#[function_component]
pub fn Timeline(p: &TimelineProps) -> Html {
    let canvas = use_node_ref();
    let lanes: Rc<RefCell<Option<Lanes>>> = use_mut_ref(|| None);
    // The canvas's CSS width, following the window.
    let width = use_state_eq(|| 0i32);
    {
        let (canvas, width) = (canvas.clone(), width.setter());
        use_effect_with((), move |_| {
            let measure = move || {
                if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                    width.set(c.client_width());
                }
            };
            measure();
            let listener = wasm_bindgen::closure::Closure::<dyn Fn()>::new(measure);
            let window = web_sys::window();
            if let Some(w) = &window {
                let _ = w.add_event_listener_with_callback(
                    "resize",
                    wasm_bindgen::JsCast::unchecked_ref(listener.as_ref()),
                );
            }
            move || {
                if let Some(w) = window {
                    let _ = w.remove_event_listener_with_callback(
                        "resize",
                        wasm_bindgen::JsCast::unchecked_ref(listener.as_ref()),
                    );
                }
            }
        });
    }
    {
        let (canvas, lanes) = (canvas.clone(), lanes.clone());
        use_effect_with((p.run.clone(), p.at_us, *width, p.projector), move |(run, at_us, _, projector)| {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else { return };
            let css_w = if c.client_width() > 0 { c.client_width() as f64 } else { 760.0 };
            let k = if *projector { shell::projector_type() } else { 1.0 };
            let css = (css_w, axis::css_height(run.0.batches.len()) * k);
            let (w, _, scale) = shell::fit(&c, css);
            let l = Lanes::new(&run.0, w, scale * k);
            let _ = c.set_attribute("data-type-scale", &offset_window_view::kit::text::fixed(k, 2));
            let _ = c.set_attribute("data-targets", &l.targets(&run.0, scale));
            if let Some(backend) = CanvasBackend::with_canvas_object(c.clone()) {
                if let Err(e) = axis::draw(&backend.into_drawing_area(), &run.0, &l, *at_us) {
                    web_sys::console::error_1(&format!("drawing the time axis failed: {e}").into());
                }
            }
            *lanes.borrow_mut() = Some(l);
        });
    }
    let onclick = {
        let (lanes, run, kind, dispatch) = (lanes.clone(), p.run.clone(), p.kind, p.dispatch.clone());
        Callback::from(move |e: MouseEvent| {
            let c: HtmlCanvasElement = e.target_unchecked_into();
            let rect = c.get_bounding_client_rect();
            let Some(l) = &*lanes.borrow() else { return };
            if rect.width() <= 0.0 {
                return;
            }
            let k = c.width() as f64 / rect.width();
            let (x, y) = ((e.client_x() as f64 - rect.left()) * k, (e.client_y() as f64 - rect.top()) * k);
            let (batch, attempt, t) = l.hit(&run.0, x, y);
            if let Some(fault) = fault_for_click(kind, batch, attempt, t) {
                dispatch.dispatch(Action::Toggle(fault));
            }
        })
    };
    let on_kind = p.dispatch.to_callback().reform(|e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        Action::Choose(FaultKind::from_name(&input.value()).unwrap_or(FaultKind::AckLost))
    });
    let k = if p.projector { shell::projector_type() } else { 1.0 };
    let height = format!("height:{}px", (axis::css_height(p.run.0.batches.len()) * k) as u32);
    html! {
        <figure class="chart p-axis" id="producer-axis">
            <figcaption><h2 class="chart-title">{ "Batches over time: each send, the leader's answer, the faults" }</h2></figcaption>
            <fieldset class="kinds">
                <legend class="hint">{ "A click on a batch's lane places (or, clicked again, removes):" }</legend>
                { for FaultKind::ALL.iter().map(|k| html! {
                    <label><input type="radio" name="fault-kind" value={k.name()} checked={*k == p.kind}
                        onchange={on_kind.clone()} />{ kind_label(*k) }</label>
                }) }
            </fieldset>
            <canvas ref={canvas} style={height} {onclick} role="img"
                aria-label="Each batch's sends over time; the list of faults and the log below say the same in words"></canvas>
            <p class="axis-x">{ "simulated time (ms): one column per moment something happens, gaps not to scale" }</p>
            { by_keys(p.kind, p.run.0.batches.len() as u32, &p.dispatch) }
            <ul class="pkey">
                <li>{ "| send → leader" }</li><li>{ "● appended" }</li><li>{ "○ duplicate dropped" }</li>
                <li>{ "◉ (orange) written a second time" }</li><li>{ "▲ out of order" }</li><li>{ "■ fenced" }</li>
                <li>{ "✕ lost" }</li><li>{ "┄ waiting for request.timeout.ms" }</li><li>{ "✓ acknowledged" }</li><li>{ "bottom lane: requests in flight (max.in.flight.requests.per.connection caps it)" }</li>
            </ul>
        </figure>
    }
}

/// The same placement without a mouse: the selected kind on a batch (its first send) or at
/// an instant typed in ms.
fn by_keys(kind: FaultKind, batches: u32, dispatch: &UseReducerDispatcher<State>) -> Html {
    let (batch, at) = (NodeRef::default(), NodeRef::default());
    let onclick = {
        let (batch, at, dispatch) = (batch.clone(), at.clone(), dispatch.clone());
        Callback::from(move |_: MouseEvent| {
            let b = batch.cast::<HtmlSelectElement>().and_then(|s| s.value().parse::<u32>().ok());
            let text = at.cast::<HtmlInputElement>().map(|i| i.value()).unwrap_or_default();
            match offset_window_sim::scenario::parse_millis(text.trim()) {
                Ok(at_us) => {
                    if let Some(fault) = fault_for_click(kind, b, Some(1), at_us) {
                        dispatch.dispatch(Action::Toggle(fault));
                    }
                }
                Err(why) => {
                    dispatch.dispatch(Action::RefusePlacement(format!("at (ms): {why}; nothing placed")))
                }
            }
        })
    };
    html! {
        <div class="by-keys">
            <span>{ "Or without a mouse:" }</span>
            <label>{ "batch " }<select id="p-fault-batch" ref={batch}>
                { for (1..=batches).map(|b| html! { <option value={b.to_string()} selected={b == 1}>{ b }</option> }) }
            </select></label>
            <label>{ "at " }<input id="p-fault-at" class="num" type="text" inputmode="decimal" value="0" ref={at} />{ " ms" }</label>
            <button id="p-fault-add" {onclick}>{ format!("place or remove: {}", kind_label(kind)) }</button>
        </div>
    }
}

fn faults_list(run: &ProduceRun, error: Option<&String>, dispatch: &UseReducerDispatcher<State>) -> Html {
    html! {
        <div class="faults-box">
            <h2>{ "Faults placed" }</h2>
            if run.faults.is_empty() { <p class="hint">{ "None yet: pick a kind and click on the time axis." }</p> }
            <ul class="faults" id="faults">
                { for run.faults.iter().enumerate().map(|(i, f)| {
                    let kind = f.fault["kind"].as_str().and_then(FaultKind::from_name).map_or("fault", kind_label);
                    html! {
                        <li data-kind={f.fault["kind"].as_str().unwrap_or_default().to_string()}>
                            <span><strong>{ kind }</strong>{ format!(": {}", f.effect) }</span>
                            <button aria-label={format!("remove the {kind} fault")} id={format!("p-remove-{i}")}
                                onclick={
                                    let remove = dispatch.to_callback().reform(move |_| Action::Remove(i));
                                    let last = i + 1 == run.faults.len();
                                    Callback::from(move |e: MouseEvent| {
                                        // The list keeps its buttons by position: only removing the
                                        // last one takes the focused button away.
                                        if last {
                                            shell::focus_by_id(&if i > 0 { format!("p-remove-{}", i - 1) } else { "p-fault-add".into() });
                                        }
                                        remove.emit(e);
                                    })
                                }>{ "remove" }</button>
                        </li>
                    }
                }) }
            </ul>
            if let Some(e) = error { <p class="field-error" role="alert">{ e }</p> }
        </div>
    }
}

fn at_control(instants: &[u64], at_us: Option<u64>, dispatch: &UseReducerDispatcher<State>) -> Html {
    let last = instants.len().saturating_sub(1);
    let index = at_us.map_or(last, |t| instants.partition_point(|&i| i < t).min(last));
    let list: Rc<[u64]> = instants.into();
    let oninput = dispatch.to_callback().reform(move |e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let i = input.value().parse::<usize>().unwrap_or(usize::MAX);
        Action::ShowAt(if i >= list.len().saturating_sub(1) { None } else { list.get(i).copied() })
    });
    let shown = at_us.map_or("the end".to_string(), |t| format!("{} ms", ms(t)));
    html! {
        <div class="field p-at">
            <label for="p-at">{ "Log and leader memory as they were at " }<span id="p-at-shown">{ shown }</span></label>
            <div class="at-row">
                <input type="range" id="p-at" min="0" max={last.to_string()} step="1" value={index.to_string()} {oninput} />
            </div>
        </div>
    }
}

fn log_view(run: &ProduceRun, at_us: Option<u64>) -> Html {
    let entries: Vec<_> = run.log.iter().filter(|e| at_us.is_none_or(|t| e.appended_at_us <= t)).collect();
    let records: usize = entries.iter().map(|e| e.records.len()).sum();
    html! {
        <div class="log-box">
            <h2>{ "The partition log of " }<code>{ "orders-3" }</code>{ format!(": {records} records") }</h2>
            <ol class="plog" id="plog">
                { for entries.iter().map(|e| {
                    let last = e.offset + e.records.len() as u64 - 1;
                    let id = match (e.pid, e.epoch, e.sequence) {
                        (Some(p), Some(ep), Some(s)) => format!("PID {p}, epoch {ep}, sequence {s}"),
                        _ => "no producer id (not idempotent)".to_string(),
                    };
                    html! {
                        <li class={classes!(e.duplicate_of.is_some().then_some("dup"))} data-offset={e.offset.to_string()}>
                            <strong>{ format!("offsets {}–{last}", e.offset) }</strong>
                            { format!(" · batch {} · {id} · at {} ms", e.batch, ms(e.appended_at_us)) }
                            if let Some(first) = e.duplicate_of {
                                <span class="tag">{ format!(" · DUPLICATE: these records were already written at offset {first}") }</span>
                            }
                            <div class="cells" aria-hidden="true">{ for e.records.iter().map(|r| html! { <span>{ r }</span> }) }</div>
                        </li>
                    }
                }) }
            </ol>
        </div>
    }
}

fn memory_view(run: &ProduceRun, at_us: Option<u64>) -> Html {
    let memory: &[PidMemory] = match at_us {
        None => &run.broker_memory,
        Some(t) => run.broker_memory_changes.iter().rev().find(|c| c.at_us <= t).map_or(&[], |c| &c.memory),
    };
    html! {
        <section class="mem" aria-labelledby="mem-title">
            <h2 id="mem-title">{ "The leader's memory: last five batches per producer id" }</h2>
            if memory.is_empty() { <p class="hint">{ "Nothing remembered (no idempotent batch appended yet)." }</p> }
            { for memory.iter().map(|m| html! {
                <table data-pid={m.pid.to_string()}>
                    <caption>{ format!("PID {}, epoch {}", m.pid, m.epoch) }</caption>
                    <tr><th>{ "sequences" }</th><th>{ "first offset" }</th></tr>
                    { for (0..5).map(|i| match m.batches.get(i) {
                        Some(b) => html! { <tr><td>{ format!("{}–{}", b.first_sequence, b.last_sequence) }</td><td>{ b.offset }</td></tr> },
                        None => html! { <tr><td class="empty">{ "(empty)" }</td><td class="empty">{ "—" }</td></tr> },
                    }) }
                </table>
            }) }
        </section>
    }
}

fn counters(run: &ProduceRun) -> Html {
    let c = run.counters;
    html! {
        <section class="pcounters" aria-labelledby="pc-title">
            <h2 id="pc-title">{ if run.idempotence { "Counters (idempotence on)" } else { "Counters (idempotence off)" } }</h2>
            <dl class="ro-grid">
                { shell::readout("pc-log", "committed", "records in the log", c.log_records) }
                { shell::readout("pc-twice", "duplicated", "records written twice", c.records_written_twice) }
                { shell::readout("pc-never", "lost", "records never written", c.records_never_written) }
                { shell::readout("pc-ooo", "", "out-of-order rejections", c.out_of_order_rejections) }
                { shell::readout("pc-fenced", "", "fenced requests", c.fenced_requests) }
                { shell::readout("pc-dropped", "durable", "duplicates dropped", c.duplicates_dropped) }
            </dl>
            <ul class="notes" id="p-notes">
                { for run.notes.iter().map(|n| html! { <li>{ n }</li> }) }
            </ul>
        </section>
    }
}

fn controls(state: &State, dispatch: &UseReducerDispatcher<State>) -> Html {
    let s = &state.scenario;
    let on_idem = dispatch.to_callback().reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        let v = select.value();
        Action::SetIdempotence(
            Idempotence::ALL.into_iter().find(|i| i.name() == v).unwrap_or(Idempotence::Default),
        )
    });
    let on_acks = dispatch.to_callback().reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        Action::SetAcks(match select.value().as_str() {
            "1" => Acks::Leader,
            "0" => Acks::None,
            _ => Acks::All,
        })
    });
    let error = |key: &str| state.error(key).map(|e| html! { <p class="field-error" role="alert">{ e }</p> });
    let idem = Idempotence::of(s);
    html! {
        <section class="controls" aria-labelledby="pcontrols-title">
            <h2 id="pcontrols-title">{ "The producer" }</h2>
            <div class="field">
                <label for="p-idempotence"><code>{ "enable.idempotence" }</code></label>
                <select id="p-idempotence" onchange={on_idem}>
                    { for Idempotence::ALL.iter().map(|i| html! {
                        <option value={i.name()} selected={*i == idem}>{ i.label() }</option>
                    }) }
                </select>
                { error("enable.idempotence") }
            </div>
            <div class="field">
                <label for="p-acks"><code>{ "acks" }</code></label>
                <select id="p-acks" onchange={on_acks}>
                    { for [Acks::All, Acks::Leader, Acks::None].iter().map(|a| html! {
                        <option value={a.name()} selected={*a == s.acks}>{ a.name() }</option>
                    }) }
                </select>
                { error("acks") }
            </div>
            { for FIELDS.iter().map(|&(key, unit)| {
                let id = format!("p-{}", key.replace('.', "-"));
                let on_input = dispatch.to_callback().reform(move |e: InputEvent| {
                    let input: HtmlInputElement = e.target_unchecked_into();
                    Action::SetField { key, text: input.value() }
                });
                let hint = PRODUCER_KEYS
                    .iter()
                    .position(|k| k.name == key)
                    .map(|i| format!("{}; {}", PRODUCER_KEY_HELP[i], PRODUCER_KEYS[i].range()))
                    .unwrap_or_default();
                html! {
                    <div class="field">
                        <label for={id.clone()}><code>{ key }</code>{ " " }<span class="unit">{ format!("({unit})") }</span></label>
                        <input type="text" id={id} class="num" inputmode="decimal" autocomplete="off"
                            value={state.field_text(key)} oninput={on_input}
                            aria-invalid={state.error(key).is_some().to_string()} />
                        <p class="hint">{ hint }</p>
                        { error(key) }
                    </div>
                }
            }) }
        </section>
    }
}
