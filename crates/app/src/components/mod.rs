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

pub use chart::{Chart, ChartKind};
pub use panels::embed_snippet;

use crate::shell::{self, hash, part, rendered, Frame, Mode, RunRef, Screen, Shared};
use crate::state::{Action, CRASH_FIELD};
use offset_window_sim::ScenarioError;
use offset_window_view::consumer::words as text;
use offset_window_view::kit::run::simulate;
use std::rc::Rc;
use yew::prelude::*;

/// Static parts of the page, handed to the browser as strings (no per-element code).
const FOOTER_NOTE: &str = concat!(
    "<span>Simulated time; every number comes from the offset-window simulator running in this page. ",
    "Checked on Apache Kafka 4.3.1 against kafka-clients 4.3.1, 4.2.0 and 3.9.2, librdkafka 2.16.0, ",
    "sarama, franz-go, kafka-go and KafkaJS.</span>"
);

/// The whole page.
#[function_component]
pub fn App() -> Html {
    rendered("App");
    let state = use_reducer(|| crate::url::state_from(&hash()));
    let dispatch = state.dispatcher();
    let mode = shell::use_mode(state.projector);
    let dark = shell::use_dark();
    // The link to this state; its scenario part only changes with the scenario.
    let scenario_part = use_memo(state.scenario.clone(), crate::url::scenario_fragment);
    let fragment = crate::url::join(&scenario_part, &state);
    shell::use_url(fragment.clone(), state.tour_step, {
        let dispatch = dispatch.clone();
        move || dispatch.dispatch(Action::Restore(Box::new(crate::url::state_from(&hash()))))
    });
    // The crash instant is not part of `state.scenario`, so moving it never re-runs the
    // simulation.
    let run: Rc<Result<RunRef, ScenarioError>> =
        use_memo(state.scenario.clone(), |s| simulate(s).map(|r| Shared(Rc::new(r))));
    let crash_at_us = state.crash_at_us;
    let base = state.base_offset;
    let projector = mode == Mode::Projector;
    // What the scenario controls show: the settings, shared (the crash lives beside them),
    // so that moving the crash leaves them alone and a render copies nothing.
    let fields = state.settings.clone();
    // What the export buttons read when pressed, kept after the render (not during it).
    let latest = use_mut_ref(|| (0u64, String::new()));
    {
        let latest = latest.clone();
        use_effect_with((crash_at_us, fragment.clone()), move |now| *latest.borrow_mut() = now.clone());
    }
    let latest = panels::Latest(latest);

    let notices = shell::notices(&state.notices);
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
    let crash_control = part(controls::CrashControl {
        crash_at_us,
        horizon_us: state.scenario.horizon_us,
        text: state.field_text(CRASH_FIELD),
        error: state.crash_error.clone(),
        dispatch: dispatch.clone(),
    });
    let readouts = part(readouts::AtCrash {
        at,
        base,
        heading: text::crash_heading(&run.0, crash_at_us),
        lifecycle: text::lifecycle_at(&run.0, crash_at_us),
        in_flight: text::in_flight(&run.0, crash_at_us),
    });
    let text_alternative = part(panels::TextAlternative { run: run.clone(), crash_at_us, base });

    if mode == Mode::Embed {
        let body = html! {
            <main class="layout">
                <section class="stage" aria-label="Chart and crash">
                    { chart(ChartKind::Main) }
                    <div class="strip">{ crash_control }{ readouts }</div>
                    <readouts::WorstLine run={run.clone()} />
                    { readouts::legend_compact() }
                    { text_alternative }
                    { shell::full_link(&fragment) }
                </section>
            </main>
        };
        return shell::embed(classes!("page", "embed", dark.then_some("dark")), notices, body);
    }

    let tour = html! {
        <tour::Tour step={state.tour_step} left_at={state.tour_left} prediction={state.prediction.clone()}
            crash_moved={state.tour_step.is_some_and(|n| crate::tour::scenario(n).crash_at_us != crash_at_us)}
            dispatch={dispatch.clone()} />
    };
    let projector_button =
        shell::projector_button(projector, dispatch.to_callback().reform(Action::SetProjector));
    let panel = html! {
        <div class="panel">
            if !projector { { tour.clone() } }
            // The scenarios first: what a new reader looks for (a user's trial missed them at
            // the foot of the column).
            { part(panels::Presets {
                preset: state.preset,
                run: run.clone(),
                crash_at_us: if state.preset.is_some() { crash_at_us } else { 0 },
                dispatch: dispatch.clone(),
            }) }
            <controls::Controls fields={fields.clone()} dispatch={dispatch.clone()} />
            <records::Records fields={fields.clone()} run={run.clone()} {base} dispatch={dispatch.clone()} />
            <readouts::RunSummary run={run.clone()} dispatch={dispatch.clone()} />
            { panels::producer_note(at.duplicated) }
            <panels::Export run={run.clone()} latest={latest.clone()} />
        </div>
    };
    let more = html! {
        <div class="more">
            { readouts::legend() }
            { shell::import_section() }
            { text_alternative.clone() }
            { part(panels::Operator {
                run: run.clone(),
                crash_at_us,
                base,
                text: state.field_text(crate::state::BASE_FIELD),
                error: state.errors.get(crate::state::BASE_FIELD).cloned(),
                dispatch: dispatch.clone(),
            }) }
            <panels::Compare scenario={state.scenario.clone()} {crash_at_us} />
        </div>
    };
    let classes = classes!(
        "page",
        "consumer",
        projector.then_some("projector"),
        state.predicting().then_some("predicting"),
        dark.then_some("dark")
    );
    let footer = shell::footer(
        dispatch.to_callback().reform(|_| Action::Reset),
        Html::from_html_unchecked(AttrValue::Static(FOOTER_NOTE)),
    );
    let (header, main) = if projector {
        let main = html! {
            <>
                // One screen for a room: the tour's caption, the chart, the slider and big readouts.
                { Screen {
                    label: "Projector screen: chart, crash and readouts",
                    title: "Offset window",
                    tour,
                    button: projector_button,
                    chart_class: None,
                    chart: chart(ChartKind::Main),
                    control: crash_control,
                    side: html! { <>{ readouts }<readouts::WorstLine run={run.clone()} /></> },
                }.view() }
                <div class="layout">
                    <section class="stage" aria-label="Crash profile">
                        { chart(ChartKind::Profile) }
                        { readouts::legend_compact() }
                        { readouts::legend_records(&run.0) }
                    </section>
                    { panel }
                </div>
                { more }
            </>
        };
        (html! {}, main)
    } else {
        let header = shell::header(
            html! { <><h1>{ "Offset window" }</h1>{ Html::from_html_unchecked(AttrValue::Static(text::LEDE)) }</> },
            projector_button,
        );
        let main = html! {
            <>
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
            </>
        };
        (header, main)
    };
    Frame { classes, header, notices, lead: html! {}, main, footer }.view()
}
