//! The transactions page's components (docs/model.md §13; its pure parts:
//! `offset_window_view::transactions`): [`TxnApp`] owns the state (a scenario with the run
//! the reducer simulated), the chart, the instant's slider and exact seconds field, the
//! readouts per reader, the presets, the fields and the log in words.

mod chart;

use crate::shell::{self, hash, part, ChartPage, Mode, Part, Shared};
use chart::LogChart;
use offset_window_sim::transactions::{DataState, RecordKind, TxnOutcome, TxnRun, TxnScenario};
use offset_window_view::kit::crash::crash_key_step_us;
use offset_window_view::kit::text::{seconds_field, seconds_text};
use offset_window_view::transactions::chart::{css, reader_color, x_end_us};
use offset_window_view::transactions::presets::PRESETS;
use offset_window_view::transactions::readouts::{self, or_none, At};
use offset_window_view::transactions::state::{
    fields, Action, EditField, FieldKind, State, AT_KEY, LINK_KEY,
};
use offset_window_view::transactions::url;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

const LEDE: &str = concat!(
    r#"<p class="lede">Transactional and plain producers write to <code>orders-3</code>. Each commit or abort "#,
    r#"writes a marker that takes an offset; a <code>read_committed</code> reader stops at the last stable offset "#,
    r#"(the first offset of the oldest open transaction) and skips aborted records. Move the instant to read "#,
    r#"what each reader had been handed and committed, and the LAG <code>kafka-consumer-groups.sh</code> shows.</p>"#
);

/// The transactions page.
#[function_component]
pub fn TxnApp() -> Html {
    let state = use_reducer(|| url::state_from(&hash()));
    let dispatch = state.dispatcher();
    let mode = shell::use_mode(state.projector);
    let dark = shell::use_dark();
    let fragment = url::fragment(&state);
    shell::use_url(fragment.clone(), (), {
        let dispatch = dispatch.clone();
        move || dispatch.dispatch(Action::Restore(Box::new(url::state_from(&hash()))))
    });
    shell::use_preset_select(Some(state.preset));
    let run = Shared(state.run.clone());
    let horizon_us = state.scenario.horizon_us;
    let at_us = state.instant_us();
    let at = readouts::at(&run, at_us);
    let projector = mode == Mode::Projector;
    let notices = shell::notices(&state.error(LINK_KEY).map(|e| vec![e.clone()]).unwrap_or_default());
    let chart = html! {
        <figure class="chart txn-chart" id="txn-chart">
            <figcaption><h2 class="chart-title">{ "The log of orders-3 over time" }</h2></figcaption>
            <LogChart run={run.clone()} {horizon_us} {at_us} {dark} {projector} dispatch={dispatch.clone()} />
            { cut_note(&run, horizon_us) }
        </figure>
    };
    let legend = legend();
    let control = instant_control(&state, &dispatch);
    let side = html! { <>{ head_readouts(&at) }{ part(ReadersBox { at: Shared(std::rc::Rc::new(at.clone())), dark, compact: projector }) }</> };
    let panel = html! {
        <aside class="panel">
            { presets_box(state.preset, &dispatch) }
            { part(FieldsBox { state: Shared(std::rc::Rc::new((*state).clone())), dispatch: dispatch.clone() }) }
        </aside>
    };
    let words = html! {
        <section class="txn-words" aria-labelledby="txn-words-title">
            <h2 id="txn-words-title">{ "The transactions and the log in words" }</h2>
            { part(LogWords { run: run.clone(), scenario: Shared(std::rc::Rc::new(state.scenario.clone())) }) }
        </section>
    };
    let stage = html! { <>{ chart.clone() }{ legend.clone() }{ control.clone() }{ side.clone() }</> };
    ChartPage {
        name: "txn",
        mode,
        dark,
        fragment,
        notices,
        chart,
        control,
        side,
        panel,
        words: words.clone(),
        stage: ("The log over time and the readers", stage),
        below_screen: ("The legend and the log in words", html! { <>{ legend }{ words }</> }),
        screen: (
            "Projector screen: the log, the instant and the readers",
            "Transactions in the log",
            PRESETS[state.preset].story,
        ),
        header: html! {
            <>
                <p class="views"><a href="../">{ "← the consumer view" }</a>{ " · " }<a href="../producer/">{ "the producer view" }</a>{ " · " }<a href="../group/">{ "the consumer group view" }</a>{ " · " }<a href="../pipeline/">{ "exactly-once pipelines" }</a></p>
                <h1>{ "Offset window: transactions in the log" }</h1>
                { Html::from_html_unchecked(AttrValue::Static(LEDE)) }
            </>
        },
        note: "Simulated time; every number comes from the offset-window transactions model running in this page (docs/model.md §13).",
        on_projector: dispatch.to_callback().reform(Action::Projector),
        on_reset: dispatch.to_callback().reform(|_| Action::Reset),
    }
    .view()
}

/// A client's name in words (`java_classic` → "Java client, classic protocol").
fn client_words(name: &str) -> &str {
    offset_window_sim::Client::from_name(name).map_or(name, |c| c.label())
}

/// A reader's commit style in words (`last_record_plus_one` → "the last record handed + 1");
/// any other choice (Kafka's `isolation.level` values) as it is.
fn commit_words(name: &str) -> &str {
    offset_window_sim::transactions::CommitStyle::from_name(name).map_or(name, |c| c.label())
}

/// Says where the time axis ends when it stops before the horizon.
fn cut_note(run: &TxnRun, horizon_us: u64) -> Html {
    let end = x_end_us(run, horizon_us);
    html! {
        if end < horizon_us {
            <p class="hint" id="cut-note">{ format!(
                "The chart shows 0 to {} s: nothing changes after {} s up to the horizon, {} s.",
                seconds_field(end),
                seconds_field(offset_window_view::transactions::chart::last_change_us(run)),
                seconds_field(horizon_us)
            ) }</p>
        }
    }
}

fn legend() -> Html {
    let swatch = |class: &'static str, text: &'static str| {
        html! { <li><span class={classes!("glyph", class)} aria-hidden="true"></span>{ text }</li> }
    };
    html! {
        <div class="txn-legend" id="txn-legend">
            <ul class="glyphs">
                { swatch("g-committed", "committed record") }
                { swatch("g-aborted", "aborted record (struck through)") }
                { swatch("g-open", "open: no marker yet") }
                { swatch("g-plain", "plain (not transactional)") }
                { swatch("g-commit", "commit marker") }
                { swatch("g-abort", "abort marker") }
                { swatch("g-lso", "last stable offset") }
                { swatch("g-hw", "high watermark") }
            </ul>
            <p class="hint">{ "Records stand as they are at the instant read: a transaction's records are open until its marker is written, and what is written after the instant is faint. Each reader's committed offset is a line in its colour (its swatch is in the table of readers); a band along it: stalled at the last stable offset. A line at offset n runs just under record n: the records below it come before n. Lines that share a value are drawn 2 px apart. Click or tap the chart to read that instant." }</p>
        </div>
    }
}

fn instant_control(state: &State, dispatch: &UseReducerDispatcher<State>) -> Html {
    let horizon = state.scenario.horizon_us;
    let at = state.instant_us();
    let step_ms = (crash_key_step_us(horizon) / 1_000).max(1);
    let oninput = dispatch.to_callback().reform(move |e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let ms = input.value().parse::<u64>().unwrap_or(0);
        Action::At(Some(ms.saturating_mul(1_000).min(horizon)))
    });
    let on_text = dispatch.to_callback().reform(|e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        Action::AtText(input.value())
    });
    let text =
        state.drafts.iter().find(|(k, _)| k == AT_KEY).map_or_else(|| seconds_field(at), |(_, t)| t.clone());
    let error = state.error(AT_KEY);
    html! {
        <div class="crash-control txn-at" id="txn-at">
            <label for="at">{ "The instant read: " }<strong id="at-shown">{ format!("{} s", seconds_text(at)) }</strong>
                if state.at_us.is_none() { { " (the horizon)" } }</label>
            <div class="crash-row">
                <input type="range" id="at" min="0" max={(horizon / 1_000).to_string()} step={step_ms.to_string()}
                    value={(at / 1_000).to_string()} {oninput}
                    aria-valuetext={format!("{} seconds", seconds_text(at))} />
                <label class="sr-only" for="at-seconds">{ "the instant, exact seconds" }</label>
                <input type="text" id="at-seconds" class="num" inputmode="decimal" autocomplete="off" value={text}
                    oninput={on_text} aria-invalid={error.is_some().to_string()} aria-describedby="at-unit" />
                <span id="at-unit">{ "s" }</span>
                <button type="button" id="at-end" onclick={dispatch.to_callback().reform(|_| Action::At(None))}>{ "horizon" }</button>
            </div>
            if let Some(e) = error { <p class="field-error" role="alert">{ e }</p> }
        </div>
    }
}

fn head_readouts(at: &At) -> Html {
    html! {
        <section class="readouts txn-head" aria-labelledby="txn-head-title" aria-live="polite">
            <h2 id="txn-head-title">{ format!("At {} s", seconds_text(at.at_us)) }</h2>
            <dl class="ro-grid">
                { shell::readout("ro-lso", "committed", "last stable offset", at.lso) }
                { shell::readout("ro-hw", "", "high watermark", at.hw) }
                { shell::readout("ro-records", "", "offsets written", at.records as u64) }
            </dl>
            <p class="hint">{ "The high watermark is the log end offset; offsets written counts records and markers." }</p>
        </section>
    }
}

/// The readers' table at the instant.
#[derive(PartialEq)]
struct ReadersBox {
    at: Shared<At>,
    dark: bool,
    compact: bool,
}

impl Part for ReadersBox {
    fn view(&self) -> Html {
        let at = &self.at;
        html! {
            <section class="txn-readers" aria-labelledby="txn-readers-title">
                <h2 id="txn-readers-title">{ "Each reader, by then" }</h2>
                <table class="readers" id="readers">
                    <thead><tr>
                        <th scope="col">{ "reader" }</th>
                        if !self.compact {
                            <th scope="col">{ "client, isolation.level, commit" }</th>
                            <th scope="col">{ "handed" }</th><th scope="col">{ "aborted handed" }</th>
                        }
                        <th scope="col">{ "committed" }</th><th scope="col">{ "LAG" }</th>
                        if !self.compact { <th scope="col">{ "stalled at the LSO" }</th> }
                    </tr></thead>
                    <tbody>
                        { for at.readers.iter().enumerate().map(|(i, r)| {
                            let handed = if r.control_handed > 0 {
                                format!("{} ({} a control record)", r.handed, r.control_handed)
                            } else {
                                r.handed.to_string()
                            };
                            html! {
                                <tr id={format!("reader-{i}")} class={classes!(r.stalled_now.then_some("stalled"))}
                                    data-name={r.name.clone()} data-handed={r.handed.to_string()}
                                    data-aborted={r.aborted_handed.map_or("-".into(), |n| n.to_string())}
                                    data-committed={or_none(r.committed)} data-lag={or_none(r.lag)} data-stall={r.stall.clone()}>
                                    <th scope="row"><span class="glyph g-reader" aria-hidden="true"
                                        style={format!("background:{}", css(reader_color(i, self.dark)))}></span>{ &r.name }</th>
                                    if !self.compact {
                                        <td data-label="client">{ format!("{}, {}, {}", client_words(r.client), r.isolation, commit_words(r.commit)) }</td>
                                        <td data-label="handed">{ handed }</td>
                                        <td data-label="aborted handed">{ r.aborted_handed.map_or("none: skipped".into(), |n| n.to_string()) }</td>
                                    }
                                    <td data-label="committed">{ or_none(r.committed) }</td>
                                    <td data-label="LAG" class="lag">{ or_none(r.lag) }</td>
                                    if !self.compact { <td data-label="stalled">{ &r.stall }</td> }
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
                if !at.shares.is_empty() {
                    <h3>{ "Share readers (KIP-932)" }</h3>
                    <ul class="shares" id="shares">
                        { for at.shares.iter().enumerate().map(|(i, s)| html! {
                            <li id={format!("share-{i}")} data-handed={s.handed.to_string()} data-aborted={s.aborted_handed.to_string()}>
                                <strong>{ &s.name }</strong>{ format!(" ({}): handed {}, of them aborted {}; stalled: {}", s.isolation, s.handed, s.aborted_handed, s.stall) }
                            </li>
                        }) }
                    </ul>
                }
                <p class="hint">{ "LAG is the high watermark then minus the committed offset, as kafka-consumer-groups.sh --describe shows it." }</p>
            </section>
        }
    }
}

fn presets_box(preset: usize, dispatch: &UseReducerDispatcher<State>) -> Html {
    let onchange = dispatch.to_callback().reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        Action::Preset(select.value().parse().unwrap_or(0))
    });
    html! {
        <section class="presets" aria-labelledby="presets-title">
            <h2 id="presets-title"><label for="preset">{ "Preset" }</label></h2>
            <select id="preset" {onchange}>
                { for PRESETS.iter().enumerate().map(|(i, p)| html! {
                    <option value={i.to_string()} selected={i == preset}>{ p.title }</option>
                }) }
            </select>
            <p id="preset-story">{ PRESETS[preset].story }</p>
            <p class="hint">{ "From " }<code>{ format!("scenarios/{}", PRESETS[preset].file) }</code></p>
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
    let input = match f.kind {
        FieldKind::Millis => {
            let key = f.key.clone();
            let oninput = dispatch.to_callback().reform(move |e: InputEvent| {
                let input: HtmlInputElement = e.target_unchecked_into();
                Action::Set { key: key.clone(), text: input.value() }
            });
            html! {
                <input type="text" id={id.clone()} class="num" inputmode="decimal" autocomplete="off" {value} {oninput}
                    aria-invalid={error.is_some().to_string()} aria-describedby={described} />
            }
        }
        FieldKind::Choice(choices) => {
            let key = f.key.clone();
            let onchange = dispatch.to_callback().reform(move |e: Event| {
                let select: HtmlSelectElement = e.target_unchecked_into();
                Action::Set { key: key.clone(), text: select.value() }
            });
            // The value shown is the scenario's; a refused choice stays selected with its reason.
            let shown = state.drafts.iter().find(|(k, _)| *k == f.key).map_or(value, |(_, d)| d.clone());
            html! {
                <select id={id.clone()} {onchange} aria-invalid={error.is_some().to_string()} aria-describedby={described}>
                    { for choices.iter().map(|c| html! { <option value={*c} selected={*c == shown}>{ commit_words(c) }</option> }) }
                </select>
            }
        }
    };
    let millis = f.kind == FieldKind::Millis;
    html! {
        <div class="field">
            <label for={id.clone()}><code>{ f.label }</code>
                if millis { { " " }<span class="unit">{ format!("(ms) of {}", f.owner) }</span> }</label>
            { input }
            // A reader's choices share one hint, above them; the id stays for aria-describedby.
            <p class={classes!("hint", (!millis).then_some("sr-only"))} id={hint_id}>{ &f.hint }</p>
            if let Some(e) = error { <p class="field-error" role="alert" id={err_id}>{ e }</p> }
        </div>
    }
}

impl Part for FieldsBox {
    fn view(&self) -> Html {
        let state = &*self.state;
        let list = fields(&state.scenario);
        let (coord, readers): (Vec<_>, Vec<_>) = list.iter().partition(|f| !f.key.starts_with("readers"));
        let hints: Vec<&str> = readers.iter().take(2).map(|f| f.hint.as_str()).collect();
        html! {
            <>
                <section class="controls" aria-labelledby="txn-timeouts-title">
                    <h2 id="txn-timeouts-title">{ "Timeouts" }</h2>
                    { for coord.iter().map(|f| field_view(state, f, &self.dispatch)) }
                </section>
                <section class="controls" aria-labelledby="txn-readers-fields-title">
                    <h2 id="txn-readers-fields-title">{ "Readers" }</h2>
                    <ul class="hint reader-hints">{ for hints.iter().map(|h| html! { <li>{ *h }</li> }) }</ul>
                    { for readers.chunks(2).map(|pair| html! {
                        <fieldset class="reader-fields">
                            <legend>{ pair[0].owner.trim_start_matches("reader ") }</legend>
                            { for pair.iter().map(|f| field_view(state, f, &self.dispatch)) }
                        </fieldset>
                    }) }
                </section>
            </>
        }
    }
}

/// The transactions and the log in words: the text alternative of the chart.
#[derive(PartialEq)]
struct LogWords {
    run: Shared<TxnRun>,
    scenario: Shared<TxnScenario>,
}

impl Part for LogWords {
    fn view(&self) -> Html {
        let run = &*self.run;
        let producer = |p: u32| {
            self.scenario
                .producers
                .get(p as usize)
                .and_then(|p| p.transactional_id.clone())
                .unwrap_or_else(|| "a plain producer".into())
        };
        let outcome = |o: TxnOutcome| match o {
            TxnOutcome::Committed => "committed",
            TxnOutcome::Aborted => "aborted by the client",
            TxnOutcome::TimedOut => "aborted by the coordinator (timed out)",
            TxnOutcome::Open => "still open at the horizon",
            TxnOutcome::Hanging => "hanging: no marker will ever come",
            TxnOutcome::NotWritten => "not written",
        };
        let rec = |r: &offset_window_sim::transactions::LogRecord| match (r.kind, r.state) {
            (RecordKind::CommitMarker, _) => "commit marker".to_string(),
            (RecordKind::AbortMarker, _) => "abort marker".to_string(),
            (_, Some(DataState::Committed)) => "committed".into(),
            (_, Some(DataState::Aborted)) => "aborted".into(),
            (_, Some(DataState::Open)) => "open".into(),
            _ => "plain".into(),
        };
        html! {
            <>
                <ul class="txns" id="txns">
                    { for run.transactions.iter().map(|t| html! {
                        <li>{ format!(
                            "{}, transaction {}: {}{}; started {} s{}",
                            producer(t.producer), t.transaction + 1, outcome(t.outcome),
                            t.ended_at_us.map_or(String::new(), |e| format!(" at {} s", seconds_text(e))),
                            seconds_text(t.started_at_us),
                            match (t.first_offset, t.marker_offset) {
                                (Some(a), Some(m)) => format!(", records from offset {a}, marker at {m}"),
                                (Some(a), None) => format!(", records from offset {a}, no marker"),
                                _ => String::new(),
                            }
                        ) }</li>
                    }) }
                </ul>
                if !run.notes.is_empty() {
                    <ul class="notes">{ for run.notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
                }
                <details>
                    <summary>{ format!("The log, offset by offset ({} offsets)", run.log.len()) }</summary>
                    <ol class="txn-log" start="0" id="txn-log">
                        { for run.log.iter().take(500).map(|r| html! {
                            <li data-kind={rec(r)}>{ format!("offset {}: {} from {} at {} s", r.offset, rec(r), producer(r.producer), seconds_text(r.at_us)) }</li>
                        }) }
                    </ol>
                </details>
            </>
        }
    }
}
