//! The Yew components of the page. [`App`] owns the state and the memoised run and lays the
//! page out for its mode (page, projector, embed); every other component takes only what it
//! shows, as props compared cheaply (the run by pointer), so a change re-renders just the
//! components that depend on it.

mod chart;
mod controls;
mod panels;
mod readouts;
mod records;
mod tour;

#[cfg(feature = "group")]
pub(crate) use chart::projector_type;
pub use chart::{Chart, ChartKind};
pub use panels::embed_snippet;
#[cfg(feature = "group")]
pub(crate) use tour::refocus as refocus_tour;

use crate::hash;
use crate::state::{Action, State, CRASH_FIELD};
use offset_window_sim::{Run, ScenarioError};
use offset_window_view::consumer::words as text;
use offset_window_view::kit::run::simulate;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

/// A finished run shared by the components; equal only to itself (pointer equality), so
/// comparing props never walks the run's vectors.
#[derive(Clone, Debug)]
pub struct RunRef(pub Rc<Run>);

impl PartialEq for RunRef {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

thread_local! {
    static RENDERS: RefCell<Vec<(&'static str, u32)>> = const { RefCell::new(Vec::new()) };
}

/// Counts one render of the component `name` (see [`render_count`]); debug builds only (the
/// browser tests), release builds count nothing.
fn rendered(name: &'static str) {
    if !cfg!(debug_assertions) {
        return;
    }
    RENDERS.with(|r| {
        let mut r = r.borrow_mut();
        match r.iter_mut().find(|(n, _)| *n == name) {
            Some((_, count)) => *count += 1,
            None => r.push((name, 1)),
        }
    });
}

/// How many times the component `name` has rendered since the page loaded: lets the
/// browser tests check that moving one control leaves the others alone. Names are the
/// component's, or `control:<key>` for a control. Debug builds only: a release build
/// counts nothing (0).
pub fn render_count(name: &str) -> u32 {
    RENDERS.with(|r| r.borrow().iter().find(|(n, _)| *n == name).map_or(0, |(_, c)| *c))
}

/// Static parts of the page, handed to the browser as strings (no per-element code).
const FOOTER_NOTE: &str = concat!(
    "<span>Simulated time; every number comes from the offset-window simulator running in this page. ",
    "Checked against real clients on an Apache Kafka 4.3.1 broker (tests/conformance): kafka-clients ",
    "4.3.1 (classic and consumer protocol), 3.9.2 (consumer protocol before KAFKA-18641), ",
    "KafkaShareConsumer 4.3.1 and librdkafka 2.16.0 agree with it in 32 of 33 cases; the other ",
    "is a documented race of the real client.</span>"
);

/// Whether the reader's system asks for dark colours, following changes while the page is
/// open.
#[hook]
pub(crate) fn use_dark() -> bool {
    use_media("(prefers-color-scheme: dark)")
}

/// Whether the screen is a phone's (at most 600 CSS px wide, as in web/style.css), following
/// changes while the page is open: a phone is no projector, so a link with `projector=1`
/// shows it the usual layout (the link keeps the mode for the room's screen).
#[hook]
pub(crate) fn use_phone() -> bool {
    use_media("(max-width: 600px)")
}

/// Whether the CSS media query `query` matches, following changes while the page is open.
#[hook]
fn use_media(query: &'static str) -> bool {
    let list = move || web_sys::window().and_then(|w| w.match_media(query).ok().flatten());
    let matches = use_state_eq(move || list().is_some_and(|q| q.matches()));
    {
        let matches = matches.setter();
        use_effect_with((), move |_| {
            let list = list();
            let listener = Closure::<dyn Fn()>::new({
                let list = list.clone();
                move || matches.set(list.as_ref().is_some_and(|q| q.matches()))
            });
            if let Some(l) = &list {
                let _ = l.add_event_listener_with_callback("change", listener.as_ref().unchecked_ref());
            }
            move || {
                if let Some(l) = list {
                    let _ =
                        l.remove_event_listener_with_callback("change", listener.as_ref().unchecked_ref());
                }
            }
        });
    }
    *matches
}

/// Keeps the URL fragment in step with the state: a new tour step is a new history entry at
/// once; any other change replaces the entry, at most every 250 ms (no history flood while
/// dragging). Back and forward restore the state they land on.
#[hook]
fn use_url(fragment: String, step: Option<usize>, dispatch: UseReducerDispatcher<State>) {
    use_effect_with((), move |_| {
        let listener = Closure::<dyn Fn()>::new(move || {
            dispatch.dispatch(Action::Restore(Box::new(crate::url::state_from(&hash()))));
        });
        let window = web_sys::window();
        if let Some(w) = &window {
            let _ = w.add_event_listener_with_callback("popstate", listener.as_ref().unchecked_ref());
        }
        move || {
            if let Some(w) = window {
                let _ = w.remove_event_listener_with_callback("popstate", listener.as_ref().unchecked_ref());
            }
        }
    });
    let written_step = use_mut_ref(|| step);
    use_effect_with((fragment, step), move |(fragment, step)| {
        let fragment = fragment.clone();
        let window = web_sys::window().expect("a window");
        let new_step = *written_step.borrow() != *step;
        *written_step.borrow_mut() = *step;
        if new_step && hash().trim_start_matches('#') != fragment {
            if let Ok(history) = window.history() {
                let _ = history.push_state_with_url(&JsValue::NULL, "", Some(&format!("#{fragment}")));
            }
        }
        crate::replace_fragment_later(fragment)
    });
}

/// The whole page.
#[function_component]
pub fn App() -> Html {
    rendered("App");
    let state = use_reducer(|| crate::url::state_from(&hash()));
    let dispatch = state.dispatcher();
    let embed = *use_memo((), |_| crate::query_has("embed=1"));
    let dark = use_dark();
    let phone = use_phone();
    // The link to this state; its scenario part only changes with the scenario.
    let scenario_part = use_memo(state.scenario.clone(), crate::url::scenario_fragment);
    let fragment = crate::url::join(&scenario_part, &state);
    use_url(fragment.clone(), state.tour_step, dispatch.clone());
    // The crash instant is not part of `state.scenario`, so moving it never re-runs the
    // simulation.
    let run: Rc<Result<RunRef, ScenarioError>> =
        use_memo(state.scenario.clone(), |s| simulate(s).map(|r| RunRef(Rc::new(r))));
    let crash_at_us = state.crash_at_us;
    let base = state.base_offset;
    let projector = state.projector && !embed && !phone;
    // What the scenario controls show: the state without the crash instant and its field,
    // so that moving the crash leaves them alone.
    let fields = {
        let mut f = (*state).clone();
        f.crash_at_us = 1;
        f.drafts.remove(CRASH_FIELD);
        f.errors.remove(CRASH_FIELD);
        Rc::new(f)
    };
    let latest = use_mut_ref(|| (0u64, String::new()));
    *latest.borrow_mut() = (crash_at_us, fragment.clone());
    let latest = panels::Latest(latest);

    let notices = html! {
        if !state.notices.is_empty() {
            <div class="notices" role="status" id="notices">
                { for state.notices.iter().map(|n| html! { <p>{ n }</p> }) }
            </div>
        }
    };
    let run = match &*run {
        Ok(run) => run.clone(),
        // Cannot happen (the state only ever holds validated scenarios), but a message is
        // better than a blank page if it ever does.
        Err(e) => {
            return html! {
                <div class="page">
                    { notices }
                    <p class="error" role="alert">{ format!("This scenario cannot run: {e}") }</p>
                    <controls::Controls fields={fields} dispatch={dispatch.clone()} />
                </div>
            }
        }
    };
    let at = run.0.state_at(crash_at_us);
    let chart = |kind: ChartKind| {
        html! { <Chart {kind} run={run.clone()} {crash_at_us} dispatch={dispatch.clone()} {projector} {dark} /> }
    };
    let crash_control = html! {
        <controls::CrashControl {crash_at_us} horizon_us={state.scenario.horizon_us}
            text={state.field_text(CRASH_FIELD)} error={state.errors.get(CRASH_FIELD).cloned()}
            dispatch={dispatch.clone()} />
    };
    let readouts = html! {
        <readouts::AtCrash {at} {base}
            heading={text::crash_heading(&run.0, crash_at_us)}
            lifecycle={text::lifecycle_at(&run.0, crash_at_us)}
            in_flight={text::in_flight(&run.0, crash_at_us)} />
    };
    let text_alternative = html! { <panels::TextAlternative run={run.clone()} {crash_at_us} {base} /> };

    if embed {
        let full = format!("./{}", if fragment.is_empty() { String::new() } else { format!("#{fragment}") });
        return html! {
            <div class={classes!("page", "embed", dark.then_some("dark"))}>
                { notices }
                <main class="layout">
                    <section class="stage" aria-label="Chart and crash">
                        { chart(ChartKind::Main) }
                        <div class="strip">{ crash_control }{ readouts }</div>
                        <readouts::WorstLine run={run.clone()} />
                        { readouts::legend_compact() }
                        { text_alternative }
                        <p class="full-link"><a href={full} target="_blank" rel="noopener">{ "Open the full page ↗" }</a></p>
                    </section>
                </main>
            </div>
        };
    }

    let tour = html! {
        <tour::Tour step={state.tour_step} left_at={state.tour_left} prediction={state.prediction.clone()}
            crash_moved={state.tour_step.is_some_and(|n| crate::tour::scenario(n).crash_at_us != crash_at_us)}
            dispatch={dispatch.clone()} />
    };
    let toggle_projector = {
        let dispatch = dispatch.clone();
        Callback::from(move |_| {
            // Projector mode starts at the top, where its screen is.
            if let Some(w) = web_sys::window() {
                w.scroll_to_with_x_and_y(0.0, 0.0);
            }
            dispatch.dispatch(Action::SetProjector(!projector));
        })
    };
    let projector_button = html! {
        <button id="projector" class="projector-toggle" aria-pressed={projector.to_string()} onclick={toggle_projector}>
            { if projector { "Leave projector mode" } else { "Projector mode" } }
        </button>
    };
    let panel = html! {
        <div class="panel">
            if !projector { { tour.clone() } }
            <controls::Controls fields={fields.clone()} dispatch={dispatch.clone()} />
            <records::Records fields={fields.clone()} run={run.clone()} {base} dispatch={dispatch.clone()} />
            <readouts::RunSummary run={run.clone()} dispatch={dispatch.clone()} />
            { panels::producer_note(at.duplicated) }
            <panels::Presets preset={state.preset} run={run.clone()}
                crash_at_us={if state.preset.is_some() { crash_at_us } else { 0 }} dispatch={dispatch.clone()} />
            <panels::Export run={run.clone()} latest={latest.clone()} />
        </div>
    };
    let more = html! {
        <div class="more">
            { readouts::legend() }
            { text_alternative.clone() }
            <panels::Operator run={run.clone()} {crash_at_us} {base}
                text={state.field_text(crate::state::BASE_FIELD)}
                error={state.errors.get(crate::state::BASE_FIELD).cloned()} dispatch={dispatch.clone()} />
            <panels::Compare scenario={state.scenario.clone()} {crash_at_us} />
        </div>
    };
    let page_classes = classes!(
        "page",
        "consumer",
        projector.then_some("projector"),
        state.predicting().then_some("predicting"),
        dark.then_some("dark")
    );
    let footer = html! {
        <footer class="foot">
            <button class="reset" onclick={dispatch.to_callback().reform(|_| Action::Reset)}>{ "Back to the defaults" }</button>
            { Html::from_html_unchecked(AttrValue::Static(FOOTER_NOTE)) }
        </footer>
    };
    if projector {
        return html! {
            <div class={page_classes}>
                { notices }
                <main>
                // One screen for a room: the tour's caption, the chart, the slider and big readouts.
                <section class="screen" aria-label="Projector screen: chart, crash and readouts">
                    <div class="screen-top">
                        <h1 class="screen-title">{ "Offset window" }</h1>
                        { tour }
                        { projector_button }
                    </div>
                    <div class="screen-chart">{ chart(ChartKind::Main) }</div>
                    <div class="screen-crash">{ crash_control }</div>
                    <div class="screen-side">{ readouts }<readouts::WorstLine run={run.clone()} /></div>
                </section>
                <div class="layout">
                    <section class="stage" aria-label="Crash profile">
                        { chart(ChartKind::Profile) }
                        { readouts::legend_compact() }
                        { readouts::legend_records(&run.0) }
                    </section>
                    { panel }
                </div>
                { more }
                </main>
                { footer }
            </div>
        };
    }
    html! {
        <div class={page_classes}>
            <header class="top">
                <div><h1>{ "Offset window" }</h1>{ Html::from_html_unchecked(AttrValue::Static(text::LEDE)) }</div>
                { projector_button }
            </header>
            { notices }
            <main>
                // The stage sticks within this box (a sticky grid item is held by its grid,
                // not its row), so what follows it is outside.
                <div class="layout">
                    <section class="stage" aria-label="Chart and crash">
                        { chart(ChartKind::Main) }
                        <div class="strip" id="strip">{ crash_control }{ readouts }</div>
                        { chart(ChartKind::Profile) }
                        { readouts::legend_compact() }
                        { readouts::legend_records(&run.0) }
                    </section>
                    { panel }
                </div>
                { more }
            </main>
            { footer }
        </div>
    }
}
