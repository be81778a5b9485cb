//! The pipeline page's components (docs/model.md §14; its pure parts:
//! `offset_window_view::pipeline`): [`PipelineApp`] owns the state (a scenario with the run
//! the reducer simulated), the three logs' chart, the crash slider and its exact seconds
//! field, what downstream saw per isolation level and outside Kafka, the presets, the fields
//! and the logs in words.

mod chart;

use crate::shell::{self, hash, part, ChartPage, Mode, Part, Shared};
use chart::PipeChart;
use offset_window_sim::pipeline::{OutputState, PipelineRun, PipelineScenario};
use offset_window_sim::transactions::RecordKind;
use offset_window_view::kit::crash::crash_key_step_us;
use offset_window_view::kit::text::{seconds_field, seconds_text};
use offset_window_view::pipeline::chart::{count_color, css, reason_color};
use offset_window_view::pipeline::presets::{self, PRESETS};
use offset_window_view::pipeline::readouts::{self, event_text, Downstream};
use offset_window_view::pipeline::state::{
    fields, first_event, Action, EditField, FieldKind, State, CRASH_KEY, LINK_KEY, PRESET_KEY,
};
use offset_window_view::pipeline::url;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

const LEDE: &str = concat!(
    r#"<p class="lede">An input topic → a consume-transform-produce loop or a Kafka Streams application → an "#,
    r#"output topic → readers downstream. Under <code>exactly_once_v2</code> the outputs and the input's offsets "#,
    r#"commit in one transaction; a crash leaves it open until a restart or the coordinator's timeout aborts it. "#,
    r#"Move the crash and count, per isolation level and for a write outside Kafka, the input records seen "#,
    r#"once, twice or never.</p>"#
);

/// Fetches the presets' files (`presets.json`) and then does `then`.
fn with_presets(then: impl FnOnce() + 'static) {
    yew::platform::spawn_local(async move {
        if let Some(text) = crate::shell::presets_text().await {
            presets::install(&text);
        }
        then();
    });
}

/// The pipeline page.
#[function_component]
pub fn PipelineApp() -> Html {
    let state = use_reducer(|| url::state_from(&hash()));
    let dispatch = state.dispatcher();
    let mode = shell::use_mode(state.projector);
    let dark = shell::use_dark();
    let fragment = url::fragment(&state);
    shell::use_url(fragment.clone(), (), {
        let dispatch = dispatch.clone();
        move || dispatch.dispatch(Action::Restore(Box::new(url::state_from(&hash()))))
    });
    // A link naming a preset the page has not fetched: fetch it, then read the link again.
    use_effect_with(state.pending_preset, {
        let dispatch = dispatch.clone();
        move |pending| {
            if let Some(i) = *pending {
                with_presets(move || {
                    let next = url::state_from(&hash());
                    if next.pending_preset.is_some() {
                        dispatch.dispatch(Action::Preset(i));
                    } else {
                        dispatch.dispatch(Action::Restore(Box::new(next)));
                    }
                });
            }
        }
    });
    shell::use_preset_select(Some(state.preset));
    let run = Shared(state.run.clone());
    let scenario = Shared(Rc::new(state.scenario.clone()));
    let projector = mode == Mode::Projector;
    let mut notices: Vec<String> = Vec::new();
    notices.extend(state.error(LINK_KEY).cloned());
    notices.extend(state.error(PRESET_KEY).cloned());
    let notices = shell::notices(&notices);
    let chart_key = key(&state.run, &state.scenario, dark);
    let chart = html! {
        <figure class="chart pipe-chart" id="pipe-chart">
            <figcaption><h2 class="chart-title">{ "Input, output and downstream over time" }</h2></figcaption>
            <PipeChart run={run.clone()} scenario={scenario.clone()} {dark} {projector} dispatch={dispatch.clone()} />
            if !projector { { chart_key.clone() } }
        </figure>
    };
    let legend = legend();
    let control = crash_control(&state, &dispatch);
    let side = part(DownstreamBox { run: run.clone(), compact: projector });
    // The projector screen's chart keeps its height: the key goes beside it, under downstream.
    let side = if projector {
        html! { <>{ side }{ chart_key }</> }
    } else {
        side
    };
    let logs = part(LogsBox { run: run.clone(), scenario: scenario.clone() });
    let panel = html! {
        <aside class="panel">
            { presets_box(state.preset, &dispatch) }
            { part(FieldsBox { state: Shared(Rc::new((*state).clone())), dispatch: dispatch.clone() }) }
        </aside>
    };
    let words = html! {
        <section class="pipe-words" aria-labelledby="pipe-words-title">
            <h2 id="pipe-words-title">{ "The pipeline in words" }</h2>
            { part(Words { run: run.clone() }) }
        </section>
    };
    let stage =
        html! { <>{ chart.clone() }{ control.clone() }{ side.clone() }{ legend.clone() }{ logs.clone() }</> };
    ChartPage {
        name: "pipe",
        mode,
        dark,
        fragment,
        notices,
        chart,
        control,
        side,
        panel,
        words: words.clone(),
        stage: ("The three logs over time, the crash and what downstream saw", stage),
        below_screen: ("The legend, the logs and the pipeline in words", html! { <>{ legend }{ logs }{ words }</> }),
        screen: (
            "Projector screen: the three logs, the crash and what downstream saw",
            "Exactly-once pipelines",
            PRESETS[state.preset].story,
        ),
        header: html! {
            <>
                <p class="views"><a href="../">{ "← the consumer view" }</a>{ " · " }<a href="../producer/">{ "the producer view" }</a>{ " · " }<a href="../transactions/">{ "transactions in the log" }</a>{ " · " }<a href="../group/">{ "the consumer group view" }</a></p>
                <h1>{ "Offset window: exactly-once pipelines" }</h1>
                { Html::from_html_unchecked(AttrValue::Static(LEDE)) }
            </>
        },
        note: "Simulated time; every number comes from the offset-window pipeline model running in this page (docs/model.md §14).",
        on_projector: dispatch.to_callback().reform(Action::Projector),
        on_reset: dispatch.to_callback().reform(|_| Action::Reset),
    }
    .view()
}

/// A choice in words: the kind of service ("Kafka Streams application"); Kafka's own values
/// (`exactly_once_v2`, `read_committed`) as they are.
fn choice_words(name: &str) -> &str {
    offset_window_sim::pipeline::ServiceKind::from_name(name).map_or(name, |k| k.label())
}

/// The key to the chart: a glyph and a few words for each mark the run draws (only those), so
/// it fits under the chart on a phone and beside it on the projector screen.
fn key(run: &PipelineRun, scenario: &PipelineScenario, dark: bool) -> Html {
    use offset_window_sim::pipeline::{EventKind, StallReason as R};
    let swatch = |class: &'static str, text: &'static str| {
        html! { <li><span class={classes!("glyph", class)} aria-hidden="true"></span>{ text }</li> }
    };
    let colored = |style: String, text: &'static str| {
        html! { <li><span class="glyph" aria-hidden="true" style={style}></span>{ text }</li> }
    };
    let stalled = |r: R| run.input_stalls.iter().flat_map(|p| &p.stalls).any(|s| s.reason == r);
    let out = |f: &dyn Fn(&offset_window_sim::pipeline::OutputEntry) -> bool| run.output_log.iter().any(f);
    let mut counts = [false; 4];
    let by_inputs =
        run.readers.iter().flat_map(|r| &r.by_input).chain(run.side_effects.iter().flat_map(|s| &s.by_input));
    for c in by_inputs.flat_map(|b| &b.counts) {
        counts[(*c as usize).min(3)] = true;
    }
    let waits = run.readers.iter().any(|r| !r.stalled.is_empty());
    let event = first_event(scenario).map(|i| scenario.events[i].kind);
    let shade = |r: R| {
        let c = css(reason_color(r, dark));
        format!("background:{c}33; border-left: 3px solid {c}")
    };
    html! {
        <ul class="glyphs pipe-key" id="pipe-key" aria-label="Key to the chart">
            { swatch("g-input", "input record") }
            { swatch("g-lso", "committed offset; output: last stable offset") }
            if stalled(R::OwnerDown) { { colored(shade(R::OwnerDown), "shaded: partition stalled, owner down") } }
            if stalled(R::Rebalance) { { colored(shade(R::Rebalance), "shaded: stalled in a rebalance") } }
            if stalled(R::UnstableOffsetCommit) { { colored(shade(R::UnstableOffsetCommit), "shaded: UNSTABLE_OFFSET_COMMIT") } }
            if !run.rebalances.is_empty() { { colored(format!("background:{}; height: 5px", css(reason_color(R::Rebalance, dark))), "top bar: rebalance (→ 1: instance 1 is the new owner)") } }
            if out(&|e| e.state == Some(OutputState::Committed)) { { swatch("g-committed", "committed record") } }
            if out(&|e| e.state == Some(OutputState::Aborted)) { { swatch("g-aborted", "red, struck: aborted record") } }
            if out(&|e| e.kind == RecordKind::Data && e.state == Some(OutputState::Open)) { { swatch("g-open", "open record (no marker)") } }
            if out(&|e| e.kind == RecordKind::CommitMarker) { { swatch("g-commit", "commit marker") } }
            if out(&|e| e.kind == RecordKind::AbortMarker) {
                { swatch("g-abort", if run.timed_out_aborts.is_empty() { "red ✕: abort marker" } else { "red ✕: abort marker (ringed: timeout)" }) }
            }
            { for [(1, "seen once"), (2, "twice"), (3, "3+ times"), (0, "never")].into_iter()
                .filter(|(c, _)| counts[*c as usize])
                .map(|(c, t)| colored(format!("background:{}", css(count_color(c, dark))), t)) }
            if waits { { swatch("g-wait", "grey bar: waiting at the LSO") } }
            { match event {
                Some(EventKind::Crash) => swatch("g-crash", "the crash (thin: restart)"),
                Some(EventKind::Hang) => swatch("g-crash", "the hang (thin: wakes)"),
                Some(EventKind::Join) => swatch("g-join", "the join"),
                Some(EventKind::Deploy) => swatch("g-join", "the deploy's first close"),
                None => html! {},
            } }
        </ul>
    }
}

/// What the key does not say: how the downstream ticks are placed, the cut time axis, the click.
fn legend() -> Html {
    html! {
        <div class="pipe-legend" id="pipe-legend">
            <p class="hint">{ "Downstream, each output a reader was handed is a tick at the instant it was written to the output topic, coloured by how many times that reader was handed its input record's output in all; the side effect's ticks are its writes outside Kafka, each at the end of a processing. Stretches where nothing happens are cut short and shaded; the labels on either side are real times. Click or tap the chart to move the crash (or the hang, or the join) there." }</p>
        </div>
    }
}

fn crash_control(state: &State, dispatch: &UseReducerDispatcher<State>) -> Html {
    let horizon = state.scenario.horizon_us;
    let Some(i) = first_event(&state.scenario) else {
        return html! { <div class="crash-control pipe-crash" id="pipe-crash"><p>{ "This scenario has no crash or hang." }</p></div> };
    };
    let at = state.scenario.events[i].at_us;
    let step_ms = (crash_key_step_us(horizon) / 1_000).max(1);
    let oninput = dispatch.to_callback().reform(move |e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let ms = input.value().parse::<u64>().unwrap_or(0);
        Action::Crash(ms.saturating_mul(1_000).min(horizon))
    });
    let on_text = dispatch.to_callback().reform(|e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        Action::CrashText(input.value())
    });
    let text = state.draft(CRASH_KEY).cloned().unwrap_or_else(|| seconds_field(at));
    let error = state.error(CRASH_KEY);
    let kind = state.scenario.events[i].kind;
    let word = readouts::event_word(kind);
    html! {
        <div class="crash-control pipe-crash" id="pipe-crash">
            <label for="crash">{ format!("The {word}: ") }<strong id="crash-shown">{ format!("{} s", seconds_text(at)) }</strong></label>
            <div class="crash-row">
                <input type="range" id="crash" min="0" max={(horizon / 1_000).to_string()} step={step_ms.to_string()}
                    value={(at / 1_000).to_string()} {oninput}
                    aria-valuetext={format!("{} seconds", seconds_text(at))} />
                <label class="sr-only" for="crash-seconds">{ format!("the {word}, exact seconds") }</label>
                <input type="text" id="crash-seconds" class="num" inputmode="decimal" autocomplete="off" value={text}
                    oninput={on_text} aria-invalid={error.is_some().to_string()} aria-describedby="crash-unit crash-what" />
                <span id="crash-unit">{ "s" }</span>
            </div>
            <p class="hint" id="crash-what">{ event_text(&state.scenario, i) }{ format!("; 0 to {} s (the horizon).", seconds_field(horizon)) }</p>
            if let Some(e) = error { <p class="field-error" role="alert" id="crash-error">{ e }</p> }
        </div>
    }
}

/// Downstream: each reader's counts, then the side effect's.
#[derive(PartialEq)]
struct DownstreamBox {
    run: Shared<PipelineRun>,
    compact: bool,
}

impl Part for DownstreamBox {
    fn view(&self) -> Html {
        let rows = readouts::downstream(&self.run);
        let cell = |label: &'static str, n: u64, count: u32| {
            let class = if n > 0 && count != 1 { Some("bad") } else { None };
            html! { <td data-label={label} class={classes!("n", class)}>{ n }</td> }
        };
        html! {
            <section class="pipe-down" aria-labelledby="pipe-down-title">
                <h2 id="pipe-down-title">{ "Downstream: input records seen" }</h2>
                <table class="readers" id="downstream">
                    <thead><tr>
                        if self.compact {
                            <th scope="col">{ "seen by" }</th>
                        } else {
                            <th scope="col">{ "reader" }</th>
                            <th scope="col">{ "isolation.level" }</th>
                        }
                        <th scope="col">{ "once" }</th>
                        if self.compact {
                            <th scope="col">{ "2+" }</th>
                        } else {
                            <th scope="col">{ "twice" }</th><th scope="col">{ "more" }</th>
                        }
                        <th scope="col">{ "never" }</th>
                        if !self.compact { <th scope="col">{ "waited at the LSO" }</th> }
                    </tr></thead>
                    <tbody>
                        { for rows.iter().enumerate().map(|(i, r): (usize, &Downstream)| html! {
                            <tr id={format!("down-{i}")} data-name={r.name.clone()} data-isolation={r.isolation}
                                data-once={r.seen.once.to_string()} data-twice={r.seen.twice.to_string()}
                                data-more={r.seen.more.to_string()} data-never={r.seen.never.to_string()}>
                                if self.compact {
                                    <th scope="row">{ if r.isolation == "outside Kafka" { "side effect" } else { r.isolation } }</th>
                                } else {
                                    <th scope="row">{ &r.name }</th>
                                    <td data-label="isolation.level">{ r.isolation }</td>
                                }
                                { cell("once", r.seen.once, 1) }
                                if self.compact {
                                    { cell("2+", r.seen.twice + r.seen.more, 2) }
                                } else {
                                    { cell("twice", r.seen.twice, 2) }
                                    { cell("more", r.seen.more, 3) }
                                }
                                { cell("never", r.seen.never, 0) }
                                if !self.compact { <td data-label="waited">{ if r.stalls.is_empty() { "—".to_string() } else { r.stalls.clone() } }</td> }
                            </tr>
                        }) }
                    </tbody>
                </table>
                <p class="hint">{ "Counts over the input records: how many had their output handed to the reader once, twice, three times or more, or never by the horizon; the side effect counts writes outside Kafka, which no transaction rolls back." }</p>
            </section>
        }
    }
}

/// The input's and the output's figures.
#[derive(PartialEq)]
struct LogsBox {
    run: Shared<PipelineRun>,
    scenario: Shared<PipelineScenario>,
}

impl Part for LogsBox {
    fn view(&self) -> Html {
        let run = &*self.run;
        let o = readouts::output(run);
        let committed: u64 = run.input_committed.iter().map(|c| c.last.unwrap_or(0)).sum();
        let records =
            self.scenario.input.partitions as u64 * self.scenario.input.records_per_partition as u64;
        html! {
            <section class="readouts pipe-logs" aria-labelledby="pipe-logs-title">
                <h2 id="pipe-logs-title">{ "The logs at the horizon" }</h2>
                <dl class="ro-grid">
                    { shell::readout("ro-input-committed", "committed", "input committed", committed) }
                    { shell::readout("ro-processed-twice", "duplicated", "inputs processed twice or more", run.processed.twice + run.processed.more) }
                    { shell::readout("ro-lso", "committed", "output last stable offset", o.lso) }
                    { shell::readout("ro-aborted", "lost", "output records aborted", o.aborted) }
                    { shell::readout("ro-abort-markers", "lost", "abort markers", o.abort_markers) }
                    { shell::readout("ro-timed-out", "lost", "of them the coordinator's timeout", run.timed_out_aborts.len() as u64) }
                </dl>
                <p class="hint">{ format!(
                    "The input has {records} records; its committed offsets add up to {committed}. The output log has {} offsets: {} committed, {} aborted and {} open records, {} commit and {} abort markers.",
                    o.end, o.committed, o.aborted, o.open, o.commit_markers, o.abort_markers
                ) }</p>
            </section>
        }
    }
}

fn presets_box(preset: usize, dispatch: &UseReducerDispatcher<State>) -> Html {
    let onchange = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            let i = select.value().parse().unwrap_or(0);
            if presets::available(i) {
                dispatch.dispatch(Action::Preset(i));
            } else {
                let dispatch = dispatch.clone();
                with_presets(move || dispatch.dispatch(Action::Preset(i)));
            }
        })
    };
    let p = &PRESETS[preset];
    html! {
        <section class="presets" aria-labelledby="presets-title">
            <h2 id="presets-title"><label for="preset">{ "Preset" }</label></h2>
            <select id="preset" {onchange}>
                { for PRESETS.iter().enumerate().map(|(i, p)| html! {
                    <option value={i.to_string()} selected={i == preset}>{ p.title }</option>
                }) }
            </select>
            <p id="preset-story">{ p.story }</p>
            if p.producer_story {
                <p class="hint" id="producer-link">{ "The producer half — its transactional.id, the epoch that fences the old producer — is the story here: " }<a href="../producer/">{ "the idempotent producer's page" }</a>{ " shows the epochs and sequences it rests on." }</p>
            }
            <p class="hint">{ "From " }<code>{ format!("scenarios/{}", p.file) }</code></p>
        </section>
    }
}

/// The editable fields.
#[derive(PartialEq)]
struct FieldsBox {
    state: Shared<State>,
    dispatch: UseReducerDispatcher<State>,
}

fn element_id(key: &str) -> String {
    key.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

fn field_view(state: &State, f: &EditField, dispatch: &UseReducerDispatcher<State>) -> Html {
    let id = element_id(&f.key);
    let error = state.error(&f.key);
    let hint_id = format!("{id}-hint");
    let err_id = format!("{id}-error");
    let described = if error.is_some() { format!("{hint_id} {err_id}") } else { hint_id.clone() };
    let value = state.field_text(&f.key);
    let key = f.key.clone();
    let input = match f.kind {
        FieldKind::Millis | FieldKind::OptionalMillis => {
            let oninput = dispatch.to_callback().reform(move |e: InputEvent| {
                let input: HtmlInputElement = e.target_unchecked_into();
                Action::Set { key: key.clone(), text: input.value() }
            });
            let placeholder = (f.kind == FieldKind::OptionalMillis).then_some("never");
            html! {
                <input type="text" id={id.clone()} class="num" inputmode="decimal" autocomplete="off" {value} {oninput}
                    {placeholder} aria-invalid={error.is_some().to_string()} aria-describedby={described} />
            }
        }
        FieldKind::Choice(choices) => {
            let onchange = dispatch.to_callback().reform(move |e: Event| {
                let select: HtmlSelectElement = e.target_unchecked_into();
                Action::Set { key: key.clone(), text: select.value() }
            });
            html! {
                <select id={id.clone()} {onchange} aria-invalid={error.is_some().to_string()} aria-describedby={described}>
                    { for choices.iter().map(|c| html! { <option value={*c} selected={*c == value}>{ choice_words(c) }</option> }) }
                </select>
            }
        }
        FieldKind::Toggle => {
            let onchange = dispatch.to_callback().reform(move |e: Event| {
                let input: HtmlInputElement = e.target_unchecked_into();
                Action::Set { key: key.clone(), text: input.checked().to_string() }
            });
            html! {
                <input type="checkbox" id={id.clone()} checked={value == "true"} {onchange}
                    aria-invalid={error.is_some().to_string()} aria-describedby={described} />
            }
        }
    };
    let unit = match f.kind {
        FieldKind::Millis => " (ms)",
        FieldKind::OptionalMillis => " (ms; empty: never)",
        _ => "",
    };
    html! {
        <div class={classes!("field", (f.kind == FieldKind::Toggle).then_some("toggle"))}>
            <label for={id.clone()}><code>{ f.label }</code><span class="unit">{ unit }</span></label>
            { input }
            <p class="hint" id={hint_id}>{ &f.hint }</p>
            if let Some(e) = error { <p class="field-error" role="alert" id={err_id}>{ e }</p> }
        </div>
    }
}

impl Part for FieldsBox {
    fn view(&self) -> Html {
        let state = &*self.state;
        html! {
            <section class="controls" aria-labelledby="pipe-fields-title">
                <h2 id="pipe-fields-title">{ "The service" }</h2>
                { for fields(&state.scenario).iter().map(|f| field_view(state, f, &self.dispatch)) }
            </section>
        }
    }
}

/// The pipeline in words: the text alternative of the chart.
#[derive(PartialEq)]
struct Words {
    run: Shared<PipelineRun>,
}

impl Part for Words {
    fn view(&self) -> Html {
        let run = &*self.run;
        let stalls = readouts::input_stalls(run);
        let entry = |e: &offset_window_sim::pipeline::OutputEntry| {
            let what = match (e.kind, e.state) {
                (RecordKind::CommitMarker, _) => "commit marker".to_string(),
                (RecordKind::AbortMarker, _) => "abort marker".to_string(),
                (_, s) => format!(
                    "{} output of input {}-{}",
                    match s {
                        Some(OutputState::Committed) => "committed",
                        Some(OutputState::Aborted) => "aborted",
                        _ => "open",
                    },
                    e.input_partition.unwrap_or(0),
                    e.input_offset.unwrap_or(0)
                ),
            };
            format!(
                "offset {}: {what}, from instance {} at {} s",
                e.offset,
                e.instance,
                seconds_text(e.at_us)
            )
        };
        html! {
            <>
                <h3>{ "Input stalls" }</h3>
                <ul class="notes" id="input-stalls">
                    if stalls.is_empty() { <li>{ "none" }</li> }
                    { for stalls.iter().map(|s| html! { <li>{ s }</li> }) }
                </ul>
                <h3>{ "Rebalances" }</h3>
                <ul class="notes" id="rebalances">
                    if run.rebalances.is_empty() { <li>{ "none" }</li> }
                    { for run.rebalances.iter().map(|r| html! { <li>{ readouts::rebalance_text(r) }</li> }) }
                </ul>
                <h3>{ "Transactions the coordinator aborted for their timeout" }</h3>
                <ul class="notes" id="timed-out">
                    if run.timed_out_aborts.is_empty() { <li>{ "none" }</li> }
                    { for run.timed_out_aborts.iter().map(|a| html! { <li>{ format!(
                        "instance {}'s transaction begun at {} s, aborted at {} s (marker at offset {})",
                        a.instance, seconds_text(a.started_at_us), seconds_text(a.aborted_at_us), a.marker_offset
                    ) }</li> }) }
                </ul>
                if !run.notes.is_empty() {
                    <h3>{ "Notes" }</h3>
                    <ul class="notes" id="notes">{ for run.notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
                }
                <details>
                    <summary>{ format!("The output log, offset by offset ({} offsets)", run.output_log.len()) }</summary>
                    <ol class="pipe-log" start="0" id="pipe-log">
                        { for run.output_log.iter().take(500).map(|e| html! { <li>{ entry(e) }</li> }) }
                    </ol>
                </details>
            </>
        }
    }
}
