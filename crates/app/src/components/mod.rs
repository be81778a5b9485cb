//! The Yew components of the page. [`App`] owns the state and the memoised run; every
//! other component takes only what it shows, as props compared cheaply (the run by
//! pointer), so a change re-renders just the components that depend on it.

mod chart;
mod controls;
mod panels;
mod readouts;
mod tour;

pub use chart::{Chart, ChartKind};
pub use panels::{chart_svg, compare_runs, embed_snippet, result_json};

use crate::state::{Action, CRASH_FIELD};
use offset_window_sim::{simulate, Run, ScenarioError};
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

/// Counts one render of the component `name` (see [`render_count`]).
fn rendered(name: &'static str) {
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
/// component's, or `control:<key>` for a control.
pub fn render_count(name: &str) -> u32 {
    RENDERS.with(|r| r.borrow().iter().find(|(n, _)| *n == name).map_or(0, |(_, c)| *c))
}

/// Static parts of the page, handed to the browser as strings (no per-element code).
const HEADER: &str = concat!(
    r#"<header class="top"><h1>Offset window</h1><p class="lede">One Kafka consumer reads partition "#,
    r#"<code>orders-3</code>. Drag the crash through time and see which records a restart would lose "#,
    r#"and which it would process a second time.</p></header>"#
);
const FOOTER_NOTE: &str = concat!(
    "<span>Simulated time; every number comes from the offset-window simulator running in this page. ",
    "Checked against real clients (tests/conformance): it agrees with kafka-clients 4.3.0 and ",
    "librdkafka 2.16.0 on a tansu 0.6.0 broker in 12 of 12 scenarios (R1, R2, R6, R7, R8 while the ",
    "transaction is open, the book lab, background auto-commit, store_offsets, close, per-record and ",
    "off-by-one commits).</span>"
);

/// The whole page.
#[function_component]
pub fn App() -> Html {
    rendered("App");
    let state = use_reducer(|| {
        let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
        crate::url::state_from(&hash)
    });
    let dispatch = state.dispatcher();
    let embed = use_memo((), |_| crate::query_has("embed=1"));
    let projector = use_state_eq(|| false);
    // Back and forward between tour steps: the URL is the state.
    {
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            let listener = Closure::<dyn Fn()>::new(move || {
                let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
                dispatch.dispatch(Action::Restore(Box::new(crate::url::state_from(&hash))));
            });
            let window = web_sys::window();
            if let Some(w) = &window {
                let _ = w.add_event_listener_with_callback("popstate", listener.as_ref().unchecked_ref());
            }
            move || {
                if let Some(w) = window {
                    let _ =
                        w.remove_event_listener_with_callback("popstate", listener.as_ref().unchecked_ref());
                }
            }
        });
    }
    let written_step = use_mut_ref(|| state.tour_step);
    // The link to this state; its scenario part only changes with the scenario.
    let scenario_part = use_memo(state.scenario.clone(), crate::url::scenario_fragment);
    let fragment = crate::url::join((*scenario_part).clone(), state.crash_at_us, state.tour_step);
    // Keep the URL fragment in step: a new tour step is a new history entry at once; any
    // other change replaces the entry, at most every 250 ms (no history flood while dragging).
    use_effect_with((fragment.clone(), state.tour_step), move |(fragment, step)| {
        let fragment = fragment.clone();
        let window = web_sys::window().expect("a window");
        let new_step = *written_step.borrow() != *step;
        *written_step.borrow_mut() = *step;
        if new_step {
            let location = window.location();
            if location.hash().unwrap_or_default().trim_start_matches('#') != fragment {
                if let Ok(history) = window.history() {
                    let _ = history.push_state_with_url(&JsValue::NULL, "", Some(&format!("#{fragment}")));
                }
            }
        }
        let write = Closure::<dyn Fn()>::new(move || {
            let Some(w) = web_sys::window() else { return };
            let location = w.location();
            if location.hash().unwrap_or_default().trim_start_matches('#') == fragment {
                return;
            }
            let url = if fragment.is_empty() {
                location.pathname().unwrap_or_default() + &location.search().unwrap_or_default()
            } else {
                format!("#{fragment}")
            };
            if let Ok(history) = w.history() {
                let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
            }
        });
        let timer = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(write.as_ref().unchecked_ref(), 250)
            .ok();
        // The next change (or unmounting) cancels a write not yet made; `write` lives until then.
        move || {
            if let Some(id) = timer {
                window.clear_timeout_with_handle(id);
            }
            drop(write);
        }
    });
    // The crash instant is not part of `state.scenario` (pinned to the horizon), so moving
    // it never re-runs the simulation.
    let run: Rc<Result<RunRef, ScenarioError>> =
        use_memo(state.scenario.clone(), |s| simulate(s).map(|r| RunRef(Rc::new(r))));
    let crash_at_us = state.crash_at_us;
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
    // In projector mode the tour's caption sits above the charts, where the room looks.
    let crash_moved = state.tour_step.is_some_and(|n| crate::tour::scenario(n).crash_at_us != crash_at_us);
    let tour = html! {
        <tour::Tour step={state.tour_step} left_at={state.tour_left} {crash_moved} dispatch={dispatch.clone()} />
    };
    let body = match &*run {
        Ok(run) if *embed => {
            let at = run.0.state_at(crash_at_us);
            let full =
                format!("./{}", if fragment.is_empty() { String::new() } else { format!("#{fragment}") });
            html! {
                <section class="charts embedded" aria-label="Chart">
                    <Chart kind={ChartKind::Main} run={run.clone()} {crash_at_us} dispatch={dispatch.clone()} />
                    <controls::CrashControl
                        {crash_at_us}
                        horizon_us={state.scenario.horizon_us}
                        text={state.field_text(CRASH_FIELD)}
                        error={state.errors.get(CRASH_FIELD).cloned()}
                        dispatch={dispatch.clone()} />
                    <readouts::AtCrash {at} in_flight={readouts::in_flight(&run.0, crash_at_us)} />
                    <panels::TextAlternative run={run.clone()} {crash_at_us} />
                    <p class="full-link"><a href={full} target="_blank" rel="noopener">{ "Open the full page ↗" }</a></p>
                </section>
            }
        }
        Ok(run) => {
            let at = run.0.state_at(crash_at_us);
            html! {
                <>
                <section class="charts" aria-label="Charts">
                    <Chart kind={ChartKind::Main} run={run.clone()} {crash_at_us} dispatch={dispatch.clone()} large_type={*projector} />
                    <controls::CrashControl
                        {crash_at_us}
                        horizon_us={state.scenario.horizon_us}
                        text={state.field_text(CRASH_FIELD)}
                        error={state.errors.get(CRASH_FIELD).cloned()}
                        dispatch={dispatch.clone()} />
                    <Chart kind={ChartKind::Profile} run={run.clone()} {crash_at_us} dispatch={dispatch.clone()} large_type={*projector} />
                    { readouts::legend() }
                    <panels::TextAlternative run={run.clone()} {crash_at_us} />
                    <panels::Operator run={run.clone()} {crash_at_us} />
                    <panels::Compare scenario={state.scenario.clone()} {crash_at_us} />
                </section>
                <aside class="panel">
                    if !*projector { { tour.clone() } }
                    <readouts::AtCrash {at} in_flight={readouts::in_flight(&run.0, crash_at_us)} />
                    { panels::producer_note(at.duplicated) }
                    <readouts::RunSummary run={run.clone()} dispatch={dispatch.clone()} />
                    <panels::Presets preset={state.preset} run={run.clone()}
                        crash_at_us={if state.preset.is_some() { crash_at_us } else { 0 }} dispatch={dispatch.clone()} />
                    <controls::Controls fields={fields.clone()} dispatch={dispatch.clone()} />
                    <panels::Export run={run.clone()} latest={latest.clone()} />
                </aside>
                </>
            }
        }
        // Cannot happen (the state only ever holds validated scenarios), but a message is
        // better than a blank page if it ever does.
        Err(e) => html! {
            <>
            <p class="error" role="alert">{ format!("This scenario cannot run: {e}") }</p>
            <aside class="panel">
                <controls::Controls fields={fields.clone()} dispatch={dispatch.clone()} />
            </aside>
            </>
        },
    };

    let notices = html! {
        if !state.notices.is_empty() {
            <div class="notices" role="status" id="notices">
                { for state.notices.iter().map(|n| html! { <p>{ n }</p> }) }
            </div>
        }
    };
    if *embed {
        return html! { <div class="page embed">{ notices }<main class="layout">{ body }</main></div> };
    }
    let toggle_projector = {
        let projector = projector.clone();
        Callback::from(move |_| {
            if !*projector {
                // The button is at the foot of the page; projector mode starts at the top.
                if let Some(w) = web_sys::window() {
                    w.scroll_to_with_x_and_y(0.0, 0.0);
                }
            }
            projector.set(!*projector)
        })
    };
    html! {
        <div class={classes!("page", projector.then_some("projector"))}>
            { Html::from_html_unchecked(AttrValue::Static(HEADER)) }
            { notices }
            if *projector { <div class="tour-top">{ tour }</div> }
            <main class="layout">{ body }</main>
            <footer class="foot">
                <button class="reset" onclick={dispatch.to_callback().reform(|_| Action::Reset)}>{ "Back to the defaults" }</button>
                <button id="projector" aria-pressed={projector.to_string()} onclick={toggle_projector}>{ "Projector mode (large type)" }</button>
                { Html::from_html_unchecked(AttrValue::Static(FOOTER_NOTE)) }
            </footer>
        </div>
    }
}
