//! "When a record throws" (docs/model.md §12): a strip of the first records, each a toggle
//! button (click, tap or keyboard) that makes the record throw on every attempt; the
//! failing offsets as text; what the application does about a record that throws (Spring's
//! error handlers, a retry loop, stopping the partition), each setting shown only when it
//! applies; and the slow records. The words are `offset_window_view::consumer::fields`'s.

use super::controls::{choice_field, choice_id, show_choice, NumberField};
use super::{rendered, RunRef};
use crate::state::{Action, Settings, State};
use offset_window_sim::keys::json_text;
use offset_window_sim::scenario::OnError;
use offset_window_sim::Strategy;
use offset_window_view::consumer::fields::{self, RECORD_FIELDS};
use offset_window_view::consumer::records::{beyond_log, outcomes, FAILURES_KEY, SLOW_KEY};
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// How many records the strip shows at most (the first ones the run hands out).
pub const STRIP_RECORDS: u64 = 40;

/// Props of [`Records`].
#[derive(Properties, PartialEq)]
pub struct RecordsProps {
    /// The state without the crash instant (see `App`).
    pub fields: Rc<Settings>,
    /// The run: which records exist within the horizon and what became of them.
    pub run: RunRef,
    /// Added to every offset shown.
    pub base: u64,
    /// Where actions go.
    pub dispatch: UseReducerDispatcher<State>,
}

/// The records' controls (see the module's doc).
#[function_component]
pub fn Records(p: &RecordsProps) -> Html {
    rendered("Records");
    let s = &p.fields.scenario;
    let run = &p.run.0;
    let on_error = s.on_error.name();
    use_effect(move || show_choice(&choice_id("on_error"), on_error));
    let shown = run.state_at(s.horizon_us).position.unwrap_or(0).min(STRIP_RECORDS);
    // The strip is one Tab stop: its first record is in the Tab order, the others not; the
    // arrow keys, Home and End move the focus and the Tab stop between them (a roving
    // tabindex, index.html's script: no wasm for it), Space or Enter toggles.
    let done = outcomes(run);
    let in_ranges = |rs: &[std::ops::Range<u64>], o: u64| rs.iter().any(|r| r.contains(&o));
    let strip = (0..shown).map(|o| {
        let failing = s.record_failures.contains(&o);
        let class = classes!(
            "rec",
            failing.then_some("failing"),
            in_ranges(&done.skipped, o).then_some("skipped"),
            in_ranges(&done.dead_lettered, o).then_some("dead")
        );
        let label = format!(
            "record {}: {}",
            o.saturating_add(p.base),
            if failing { "throws; press to make it succeed" } else { "succeeds; press to make it throw" }
        );
        html! {
            <button type="button" {class} aria-pressed={failing.to_string()} aria-label={label}
                data-offset={o.to_string()} tabindex={if o == 0 { "0" } else { "-1" }}
                onclick={p.dispatch.to_callback().reform(move |_| Action::ToggleRecordFailure(o))}>
                { o.saturating_add(p.base) }
            </button>
        }
    });
    let text_field = |key: &'static str, id: &'static str, hint: &'static str| {
        let error = p.fields.errors.get(key).cloned();
        let oninput = p.dispatch.to_callback().reform(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            Action::SetRecordsText { key, text: input.value() }
        });
        let error_id = format!("{id}-error");
        html! {
            <div class="field">
                <label for={id}>{ fields::label(key) }</label>
                <input type="text" {id} class="text" autocomplete="off" value={p.fields.field_text(key)} {oninput}
                    aria-invalid={error.is_some().to_string()} aria-describedby={error_id.clone()} />
                <p class="hint">{ hint }</p>
                if let Some(e) = error { <p class="field-error" id={error_id} role="alert">{ e }</p> }
            </div>
        }
    };
    let number = |key: &str| {
        RECORD_FIELDS.iter().find(|f| f.key == key).map(|f| {
            let value = s.get(f.key).map(|v| json_text(&v)).unwrap_or_default();
            html! {
                <NumberField field={f} {value} text={p.fields.field_text(f.key)}
                    error={p.fields.errors.get(f.key).cloned()} dispatch={p.dispatch.clone()} />
            }
        })
    };
    let flag = |key: &'static str, on: bool, words: &'static str| {
        let onchange = p.dispatch.to_callback().reform(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let wanted = input.checked();
            input.set_checked(on); // the page's value until the reducer answers
            Action::SetValue { key, value: serde_json::Value::Bool(wanted) }
        });
        let id = choice_id(key);
        html! {
            <div class="field check">
                <label for={id.clone()}>
                    <input type="checkbox" {id} checked={on} {onchange} />
                    <span>{ words }</span>
                </label>
                if let Some(e) = p.fields.errors.get(key) { <p class="field-error" role="alert">{ e }</p> }
            </div>
        }
    };
    // The error handlers a consumer of a partition can have (release and reject are share
    // groups', docs/model.md §11).
    let handlers: Vec<(&'static str, &'static str)> =
        [OnError::LogAndContinue, OnError::Retry, OnError::SeekToFailed, OnError::RetryBatch, OnError::Stop]
            .iter()
            .map(|v| (v.name(), fields::option_label("on_error", v.name(), v.label())))
            .collect();
    let possible = s.record_failures_possible();
    html! {
        <section class="records" aria-labelledby="records-title">
            <h2 id="records-title">{ "When a record throws" }</h2>
            <p class="hint" id="records-how">{ "Click a record on the chart (where the green line steps over it) or a \
                number below to make it throw on every attempt; click it again to make it succeed. A shaded number was given \
                up: red when skipped, green when sent to the dead-letter topic." }</p>
            if shown > 0 {
                <div class="record-strip" role="group" aria-describedby="records-how"
                    aria-label="The first records: pressed ones throw (arrow keys move between them)">
                    { for strip }
                </div>
            }
            { text_field(FAILURES_KEY, "f-record-failures", "offsets such as 12, 30–32; any offset the run reaches") }
            if let Some(words) = beyond_log(s) { <p class="field-error" id="records-beyond" role="status">{ words }</p> }
            if possible {
                { choice_field("on_error", handlers, s.on_error.name(), p.fields.errors.get("on_error"), &p.dispatch) }
                if s.on_error == OnError::Retry {
                    { for number("error_retries") }
                    { for number("error_retry_backoff_ms") }
                }
                if s.on_error == OnError::RetryBatch {
                    { for number("error_retry_backoff_ms") }
                }
                if matches!(s.on_error, OnError::SeekToFailed | OnError::RetryBatch) {
                    { for number("max_deliveries") }
                    { flag("dead_letter", s.dead_letter,
                        "send it to a dead-letter topic when giving up (DeadLetterPublishingRecoverer)") }
                }
                if s.strategy != Strategy::Transactional {
                    { flag("ack_on_error", s.ack_on_error,
                        "commit past a record given up on, like a processed one (Spring's ackOnError)") }
                }
            }
            <details class="advanced">
                <summary>{ "Advanced: random failures, slow records" }</summary>
                { for number("record_failure_probability") }
                { text_field(SLOW_KEY, "f-record-slow", "offset: milliseconds, such as 3: 6000; the others take the processing time above") }
            </details>
        </section>
    }
}
