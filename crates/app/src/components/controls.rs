//! The controls: the crash instant, and one field per scenario key, each labelled with the
//! Kafka property name (or our own words where Kafka has none) and its unit, every choice
//! shown by its label. Ranges come from the core's key table; refused input keeps the text
//! and shows a message naming the field and its range.

use super::rendered;
use crate::shell::Part;
use crate::state::{Action, Settings, State};
use offset_window_sim::keys::json_text;
use offset_window_sim::scenario::{format_millis, CommitValue, IsolationLevel};
use offset_window_sim::{Client, Strategy};
use offset_window_view::consumer::fields::{self, FIELDS};
pub use offset_window_view::kit::crash::{crash_key_step_us, crash_key_target, snap_drag_us};
use offset_window_view::kit::fields::Field;
use offset_window_view::kit::text::seconds_text;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// The crash control (a [`Part`]: its fields are its props).
#[derive(PartialEq)]
pub struct CrashControl {
    /// The crash instant, µs.
    pub crash_at_us: u64,
    /// The horizon, µs: the slider's right end.
    pub horizon_us: u64,
    /// What the seconds field shows.
    pub text: String,
    /// Why the typed text was refused, if it was.
    pub error: Option<String>,
    /// Where actions go.
    pub dispatch: UseReducerDispatcher<State>,
}

/// The crash instant: a slider over the horizon (mouse, touch, keyboard) and an exact
/// seconds field.
impl Part for CrashControl {
    fn view(&self) -> Html {
        let p = self;
        rendered("CrashControl");
        let horizon = p.horizon_us;
        let on_slide = p.dispatch.to_callback().reform(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            Action::SetCrash(snap_drag_us(input.value_as_number(), horizon))
        });
        let onkeydown = {
            let dispatch = p.dispatch.clone();
            let at = p.crash_at_us;
            Callback::from(move |e: KeyboardEvent| {
                let step = crash_key_step_us(horizon);
                if let Some(target) = crash_key_target(&e.key(), at, step, horizon) {
                    e.prevent_default();
                    dispatch.dispatch(Action::SetCrash(target));
                }
            })
        };
        let on_text = p.dispatch.to_callback().reform(|e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            Action::SetCrashText(input.value())
        });
        let shown = seconds_text(p.crash_at_us);
        // A step either way, for a finger that cannot land on an instant (71 ms a pixel on a
        // phone): the keyboard's step, on its grid. Out of the Tab order: the slider's arrow keys
        // do the same.
        let step = crash_key_step_us(horizon);
        let nudge = |key: &'static str, id: &'static str, text: &'static str, said: &'static str| {
            let target = crash_key_target(key, p.crash_at_us, step, horizon).unwrap_or(p.crash_at_us);
            html! {
                <button type="button" class="nudge" {id} tabindex="-1"
                    aria-label={format!("crash {} ms {said}", format_millis(step))}
                    onclick={p.dispatch.to_callback().reform(move |_| Action::SetCrash(target))}>{ text }</button>
            }
        };
        html! {
            <div class="crash-control field">
                <label for="crash-slider">{ "crash at " }<span class="unit">{ "(s)" }</span></label>
                <div class="crash-row">
                    { nudge("ArrowLeft", "crash-earlier", "−", "earlier") }
                    <input type="range" id="crash-slider" min="0" max={horizon.to_string()} step="any"
                        value={p.crash_at_us.to_string()} aria-valuetext={format!("{shown} seconds")}
                        oninput={on_slide} {onkeydown} />
                    { nudge("ArrowRight", "crash-later", "+", "later") }
                    <input type="text" id="crash-at" class="num" inputmode="decimal" autocomplete="off"
                        aria-label="crash at, in seconds" value={p.text.clone()} oninput={on_text}
                        aria-invalid={p.error.is_some().to_string()} aria-describedby="crash-error" />
                </div>
                <p class="hint">{ format!("− and + (or the arrow keys) move it by {} ms, Page Up/Down by ten times that.",
                    format_millis(step)) }</p>
                if let Some(e) = &p.error { <p class="field-error" id="crash-error" role="alert">{ e }</p> }
            </div>
        }
    }
}

/// Props of [`Controls`].
#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    /// The state without the crash instant (see `App`).
    pub fields: Rc<Settings>,
    /// Where actions go.
    pub dispatch: UseReducerDispatcher<State>,
}

/// Every scenario control, labelled in the page's words (`offset_window_view::consumer::fields`): how
/// the application commits first (what the article's steps change), the less-used ones in
/// an "advanced" group.
#[function_component]
pub fn Controls(p: &ControlsProps) -> Html {
    rendered("Controls");
    let s = &p.fields.scenario;
    let field = |f: &'static Field| {
        // The exact decimal text of the value (a slider reads it as a number).
        let value = s.get(f.key).map(|v| json_text(&v)).unwrap_or_default();
        html! {
            <NumberField field={f} {value} text={p.fields.field_text(f.key)}
                error={p.fields.errors.get(f.key).cloned()} unread={s.unread(f.key)}
                dispatch={p.dispatch.clone()} />
        }
    };
    let current = |key: &str| s.get(key).and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    {
        let shown: Vec<(String, String)> = CHOICES.iter().map(|&k| (choice_id(k), current(k))).collect();
        use_effect(move || shown.iter().for_each(|(id, value)| show_choice(id, value)));
    }
    let choice = |key: &'static str, options: Vec<(&'static str, &'static str)>| {
        choice_field(key, options, &current(key), p.fields.errors.get(key), &p.dispatch)
    };
    use offset_window_sim::scenario::{AckCheck, Ordering, PoolCommit};
    let named = |key: &'static str, all: &[(&'static str, &'static str)]| {
        choice(key, all.iter().map(|&(name, label)| (name, fields::option_label(key, name, label))).collect())
    };
    let spring = matches!(s.strategy, Strategy::CommitSyncCount | Strategy::CommitSyncTime);
    let record_field = |key: &str| fields::RECORD_FIELDS.iter().find(|f| f.key == key).map(field);
    let (main, advanced): (Vec<&'static Field>, Vec<&'static Field>) =
        FIELDS.iter().partition(|f| !f.advanced);
    html! {
        <section class="controls" aria-labelledby="controls-title">
            <h2 id="controls-title">{ "The consumer" }</h2>
            <CommitChoice strategy={s.strategy} worker_pool={s.worker_pool} client={s.client}
                error={p.fields.errors.get("worker_pool").or(p.fields.errors.get("strategy"))
                    .or(p.fields.errors.get("client")).cloned()}
                dispatch={p.dispatch.clone()} />
            if s.strategy == Strategy::CommitSyncCount { { for record_field("commit_every_records") } }
            if s.strategy == Strategy::CommitSyncTime { { for record_field("commit_every_ms") } }
            if spring {
                { named("spring_ack_check", &AckCheck::ALL.iter().map(|v| (v.name(), v.label())).collect::<Vec<_>>()) }
            }
            if s.worker_pool {
                { named("pool_commit", &PoolCommit::ALL.iter().map(|v| (v.name(), v.label())).collect::<Vec<_>>()) }
                { named("ordering", &Ordering::ALL.iter().map(|v| (v.name(), v.label())).collect::<Vec<_>>()) }
                if s.ordering == Ordering::Key { { for record_field("keys") } }
            }
            { for main.into_iter().map(field) }
            <details class="advanced">
                <summary>{ "Advanced: commit latency, pool, close, eviction, horizon" }</summary>
                { for advanced.into_iter().map(field) }
                { choice("commit_value", CommitValue::ALL.iter().map(|v| (v.name(), fields::option_label("commit_value", v.name(), v.label()))).collect()) }
                if s.strategy == Strategy::Transactional {
                    { choice("isolation.level", IsolationLevel::ALL.iter().map(|v| (v.name(), fields::option_label("isolation.level", v.name(), v.label()))).collect()) }
                }
            </details>
        </section>
    }
}

/// Props of [`NumberField`].
#[derive(Properties, PartialEq)]
pub struct NumberFieldProps {
    /// The field: key, label, unit, hint, slider range.
    pub field: &'static Field,
    /// The current value, in the unit, as decimal text, for the slider.
    pub value: String,
    /// What the text field shows.
    pub text: String,
    /// Why the typed text was refused, if it was.
    pub error: Option<String>,
    /// Why the chosen client and strategy do not read this key, if they do not
    /// (`Scenario::unread`).
    #[prop_or_default]
    pub unread: Option<&'static str>,
    /// Where actions go.
    pub dispatch: UseReducerDispatcher<State>,
}

/// A numeric scenario key: a slider over a comfortable range and a text field that takes
/// anything in the key's full range (`scenario::KEYS`).
#[function_component]
pub fn NumberField(p: &NumberFieldProps) -> Html {
    let f = p.field;
    rendered(match f.key {
        "max.poll.records" => "control:max.poll.records",
        "record_processing_ms" => "control:record_processing_ms",
        _ => "control:other",
    });
    let key = f.key;
    let id = format!("f-{}", key.replace('.', "-"));
    let on_input = p.dispatch.to_callback().reform(move |e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        Action::SetField { key, text: input.value() }
    });
    let error_id = format!("{id}-error");
    let range = crate::state::page_range(key).unwrap_or_default();
    html! {
        <div class="field">
            <label for={id.clone()}>
                if f.kafka { <code>{ f.label }</code> } else { { f.label } }
                { " " }<span class="unit">{ format!("({})", f.unit) }</span>
            </label>
            <div class="field-row">
                if let Some((min, max, step)) = f.slider {
                    <input type="range" id={format!("{id}-slider")} min={min.to_string()} max={max.to_string()} step={step.to_string()}
                        value={p.value.clone()} oninput={on_input.clone()}
                        aria-label={format!("{} {}", f.label, f.unit)}
                        aria-valuetext={format!("{} {}", p.value, f.unit)} />
                }
                <input type="text" id={id} class="num" inputmode="decimal" autocomplete="off"
                    value={p.text.clone()} oninput={on_input}
                    aria-invalid={p.error.is_some().to_string()} aria-describedby={error_id.clone()} />
            </div>
            <p class="hint">{ format!("{}; {range}", f.hint) }</p>
            if let Some(why) = p.unread { <p class="hint field-unread">{ format!("Not read here: {why}.") }</p> }
            if let Some(e) = &p.error { <p class="field-error" id={error_id} role="alert">{ e }</p> }
        </div>
    }
}

/// Props of [`CommitChoice`].
#[derive(Properties, PartialEq)]
pub struct CommitProps {
    /// The current strategy.
    pub strategy: Strategy,
    /// Whether the worker pool is on.
    pub worker_pool: bool,
    /// Whose behaviour the model follows.
    pub client: Client,
    /// Why the last strategy or pool change was refused, if it was.
    pub error: Option<String>,
    /// Where actions go.
    pub dispatch: UseReducerDispatcher<State>,
}

/// How the application commits: the strategy (every one the core has, in the client's API
/// words) and the worker pool, disabled with the reason when the strategy is transactional.
/// One component, since the pool box depends on the strategy.
#[function_component]
pub fn CommitChoice(p: &CommitProps) -> Html {
    rendered("control:commit");
    let (strategy, client, pool) = (p.strategy, p.client, p.worker_pool);
    use_effect(move || {
        show_choice("strategy", strategy.name());
        show_choice("client", client.name());
    });
    // Each control shows the page's value again before the change is asked for: an accepted
    // change renders the new one, a refused one leaves the old one (see `show_choice`).
    let on_strategy = p.dispatch.to_callback().reform(move |e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        let chosen = select.value();
        select.set_value(strategy.name());
        Action::SetStrategy(Strategy::from_name(&chosen).unwrap_or(strategy))
    });
    let on_pool = p.dispatch.to_callback().reform(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let wanted = input.checked();
        input.set_checked(pool);
        Action::SetWorkerPool(wanted)
    });
    let on_client = p.dispatch.to_callback().reform(move |e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        let chosen = select.value();
        select.set_value(client.name());
        Action::SetChoice { key: "client", value: chosen }
    });
    let disabled = p.strategy == Strategy::Transactional;
    // As a long choice of `choice_field`: past 36 characters an option says its head, before
    // the parenthesis, and the chosen one is said whole below (a phone cut "enable.auto.commit
    // (auto-commit in poll)" mid-word).
    let head = |label: &str| match label.split_once(" (") {
        Some((head, _)) if label.len() > 36 && head.contains(['.', ' ']) => head.to_string(),
        _ => label.to_string(),
    };
    let long = Some(p.strategy.label()).filter(|l| head(l) != *l);
    html! {
        <>
        <div class="field">
            <label for="client">{ "client" }</label>
            <select id="client" onchange={on_client} aria-describedby="client-note">
                { for Client::ALL.iter().map(|c| html! {
                    <option value={c.name()} selected={*c == p.client}>{ c.label() }</option>
                }) }
            </select>
            <p class="hint" id="client-note">{ p.client.note() }</p>
        </div>
        <div class="field">
            <label for="strategy">{ "commit strategy" }</label>
            <select id="strategy" onchange={on_strategy} aria-describedby={long.is_some().then_some("strategy-whole")}>
                { for Strategy::ALL.iter().map(|s| {
                    // Only librdkafka has an offset store: with another client the choice says
                    // so and cannot be picked (the state refuses it too).
                    let no_store = *s == Strategy::StoreOffsetsAfterProcessing
                        && !matches!(p.client, Client::Librdkafka | Client::LibrdkafkaConsumerProtocol);
                    let label = head(s.label());
                    let label = if no_store { format!("{label} (librdkafka only)") } else { label };
                    html! { <option value={s.name()} selected={*s == p.strategy} disabled={no_store}>{ label }</option> }
                }) }
            </select>
            <p class="choice-whole" id="strategy-whole" hidden={long.is_none()}>{ long.unwrap_or_default() }</p>
        </div>
        <div class={classes!("field", "check", disabled.then_some("disabled"))}>
            <label for="worker-pool">
                <input type="checkbox" id="worker-pool" checked={p.worker_pool} {disabled} onchange={on_pool}
                    aria-describedby="worker-pool-why" />
                <span>{ "worker pool: hand each batch to a pool and poll again at once" }</span>
            </label>
            if disabled {
                <p class="hint" id="worker-pool-why">
                    { "Not available with transactions: a transaction commits the loop's own batch, \
                       so this model has no pool for it." }
                </p>
            }
            if let Some(e) = &p.error { <p class="field-error" role="alert">{ e }</p> }
        </div>
        </>
    }
}

/// The named-choice keys of [`Controls`], each a `<select>` with id [`choice_id`].
const CHOICES: [&str; 5] = ["commit_value", "isolation.level", "spring_ack_check", "pool_commit", "ordering"];

/// A named-choice key as a labelled `<select>` of `options` (name, words), `current`
/// chosen, with the refusal `error` under it. The select shows the page's value again
/// before the change is asked for (see [`show_choice`]).
pub(super) fn choice_field(
    key: &'static str,
    options: Vec<(&'static str, &'static str)>,
    current: &str,
    error: Option<&String>,
    dispatch: &UseReducerDispatcher<State>,
) -> Html {
    let id = choice_id(key);
    let onchange = {
        let current = current.to_string();
        dispatch.to_callback().reform(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            let chosen = select.value();
            select.set_value(&current);
            Action::SetChoice { key, value: chosen }
        })
    };
    // A select cuts a long choice mid-word (a user's trial: "passes unfinished record"): past
    // 36 characters its options say their head, before the parenthesis or colon (when that
    // is words, not a bare name like read_committed), and the field says the chosen one whole
    // below, which the select names as its description.
    let head = |label: &'static str| match label.split_once(" (").or_else(|| label.split_once(": ")) {
        Some((head, _)) if label.len() > 36 && head.contains(' ') => head,
        _ => label,
    };
    let long =
        options.iter().find(|(name, _)| *name == current).map(|(_, label)| *label).filter(|l| head(l) != *l);
    let whole = format!("{id}-whole");
    html! {
        <div class="field">
            <label for={id.clone()}>{ fields::label(key) }</label>
            <select {id} {onchange} aria-describedby={long.is_some().then(|| whole.clone())}>
                { for options.into_iter().map(|(name, label)| html! {
                    <option value={name} selected={name == current}>{ head(label) }</option>
                }) }
            </select>
            if let Some(label) = long {
                <p class="choice-whole" id={whole}>{ label }</p>
            }
            if let Some(e) = error { <p class="field-error" role="alert">{ e }</p> }
        </div>
    }
}

/// The id of a choice key's `<select>`: `f-` and the key, dots as dashes.
pub(super) fn choice_id(key: &str) -> String {
    format!("f-{}", key.replace('.', "-"))
}

/// Makes the `<select>` with `id` show `value`. Yew marks the chosen `<option selected>`,
/// but a browser stops following that attribute once the reader has used the select; so
/// after each render the page's value is put back, and a refused choice never stays shown.
pub(super) fn show_choice(id: &str, value: &str) {
    if let Some(select) = crate::shell::element_by_id::<HtmlSelectElement>(id).filter(|s| s.value() != value)
    {
        select.set_value(value);
    }
}
