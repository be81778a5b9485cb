//! The page's one piece of state and the actions that change it: a pure reducer.
//!
//! The scenario held here is always valid (every change is checked by the core before it
//! is taken); a refused change keeps the last good scenario and records, for that field,
//! the text the reader typed and a message naming the field and its range. The crash
//! instant lives apart from the scenario, in µs (it is a query on the run), so moving it
//! never re-runs the simulation.

use crate::consumer::records::{
    durations_text, offsets_text, parse_durations, parse_offsets, toggled, FAILURES_KEY, SLOW_KEY,
};
use crate::kit::text::{parse_seconds, seconds_text};
use offset_window_sim::scenario::{key_spec, KeyKind, Ordering, PoolCommit, MAX_OFFSET};
use offset_window_sim::{Client, Input, Scenario, ScenarioError, Strategy};
use serde_json::Value;
use std::rc::Rc;

pub use crate::kit::text::{fixed, millis_text};

/// The page state: its settings (shared, so that a render hands them on without a copy)
/// and the crash query on their run. It reads as its settings (`Deref`); a change of a
/// setting copies them once (`DerefMut`, `Rc::make_mut`).
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// Everything but the crash: what the scenario controls show.
    pub settings: Rc<Settings>,
    /// The crash instant, µs, in `1..=horizon_us`.
    pub crash_at_us: u64,
    /// Text last typed into the crash field, shown as typed until the crash moves another
    /// way.
    pub crash_draft: Option<String>,
    /// Why that text was refused.
    pub crash_error: Option<String>,
    /// The crash instant before the reader began typing into the crash field: a refused
    /// text puts the crash back there, so "13" (over a 12 s horizon) does not leave the
    /// crash at the "1" typed on the way.
    pub(crate) crash_before_typing: Option<u64>,
}

/// The page's settings: a valid scenario, how it is shown, and any refused input.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The scenario being shown; always valid.
    pub scenario: Scenario,
    /// Text last typed into a field, by scenario key ([`BASE_FIELD`] for the page's own
    /// field): the field shows it as typed, refused or not, until the value changes
    /// another way.
    pub drafts: Notes,
    /// Why each draft was refused, by the same key.
    pub errors: Notes,
    /// Values of an opened link that were not used, each naming its key (see `url`), or
    /// why a preset could not be shown.
    pub notices: Vec<String>,
    /// The guided tour's step shown (0-based), if the tour is on.
    pub tour_step: Option<usize>,
    /// The step the tour was on when changing a setting ended it (the panel offers to go
    /// back to it).
    pub tour_left: Option<usize>,
    /// On a tour step that asks the reader to predict a number first: whether it is still
    /// asking, or what the reader guessed once the answer is shown.
    pub prediction: Option<Prediction>,
    /// The preset last loaded (index into `presets::PRESETS`), while it is on screen.
    pub preset: Option<usize>,
    /// Projector mode: large type, the chart and the readouts on one screen.
    pub projector: bool,
    /// Added to every offset the page shows (a real partition's offsets are seldom near 0).
    pub base_offset: u64,
}

impl std::ops::Deref for State {
    type Target = Settings;

    fn deref(&self) -> &Settings {
        &self.settings
    }
}

impl std::ops::DerefMut for State {
    fn deref_mut(&mut self) -> &mut Settings {
        Rc::make_mut(&mut self.settings)
    }
}

/// A prediction step of the tour (see [`crate::consumer::tour::prediction`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prediction {
    /// The reader has not answered: the numbers that give it away are hidden.
    Asking,
    /// The answer is shown; the reader's guess, if they gave a number.
    Revealed(Option<u64>),
}

/// Text kept per field: a handful of entries at most, so a short list rather than a map
/// (smaller code in the page).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Notes(Vec<(&'static str, String)>);

impl Notes {
    /// The text kept for `key`.
    pub fn get(&self, key: &str) -> Option<&String> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// Whether there is text for `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Keeps `text` for `key`, replacing what was there.
    pub fn insert(&mut self, key: &'static str, text: String) {
        self.remove(key);
        self.0.push((key, text));
    }

    /// Every (key, text), in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &String)> {
        self.0.iter().map(|(k, v)| (*k, v))
    }

    /// Forgets `key`.
    pub fn remove(&mut self, key: &str) {
        self.0.retain(|(k, _)| *k != key);
    }
}

/// The crash field's key for [`State::field_text`] (its draft and error are
/// [`State::crash_draft`] and [`State::crash_error`]).
pub const CRASH_FIELD: &str = "crash";
/// The key under which they hold the display base offset field.
pub const BASE_FIELD: &str = "base_offset";
/// The largest display base offset (the core's largest offset).
pub const MAX_BASE_OFFSET: u64 = offset_window_sim::scenario::MAX_OFFSET;
/// What the page says when a preset's file is not at hand (the fetch of `presets.json` on
/// the first preset chosen failed).
pub const PRESETS_UNREACHABLE: &str =
    "The presets could not be loaded (presets.json did not arrive): check the connection and choose one again.";

impl Default for State {
    fn default() -> Self {
        State::from_input(Input {
            scenario: Scenario::default(),
            crash_at_us: offset_window_sim::scenario::DEFAULT_CRASH_AT_US,
        })
    }
}

impl State {
    /// The page state of the tour's step `n` (0-based; past the end, the last): its
    /// settings, and on a prediction step the question asked.
    pub fn tour_step(n: usize) -> State {
        let n = n.min(crate::consumer::tour::STEPS - 1);
        let mut state = State::from_input(crate::consumer::tour::scenario(n));
        state.tour_step = Some(n);
        state.prediction = crate::consumer::tour::prediction(n).map(|_| Prediction::Asking);
        state
    }

    /// A state showing `input`'s scenario with the crash at its instant (clamped into the
    /// horizon). The scenario should be valid; if it is not, the defaults are shown.
    pub fn from_input(input: Input) -> State {
        let scenario = if input.scenario.validate().is_ok() { input.scenario } else { Scenario::default() };
        let crash_at_us = input.crash_at_us.clamp(1, scenario.horizon_us);
        State {
            settings: Rc::new(Settings {
                scenario,
                drafts: Notes::default(),
                errors: Notes::default(),
                notices: Vec::new(),
                tour_step: None,
                tour_left: None,
                prediction: None,
                preset: None,
                projector: false,
                base_offset: 0,
            }),
            crash_at_us,
            crash_draft: None,
            crash_error: None,
            crash_before_typing: None,
        }
    }

    /// The text a field shows: what was typed there if anything, else the current value
    /// (the crash field's too).
    pub fn field_text(&self, key: &'static str) -> String {
        if key == CRASH_FIELD {
            return self.crash_draft.clone().unwrap_or_else(|| seconds_text(self.crash_at_us));
        }
        self.settings.field_text(key)
    }
}

impl Settings {
    /// Whether a tour step is waiting for the reader's prediction (the page then hides the
    /// numbers that would give the answer away).
    pub fn predicting(&self) -> bool {
        self.prediction == Some(Prediction::Asking)
    }

    /// The text a field other than the crash shows: what was typed there if anything, else
    /// the current value.
    pub fn field_text(&self, key: &'static str) -> String {
        if let Some(draft) = self.drafts.get(key) {
            return draft.clone();
        }
        if key == BASE_FIELD {
            return self.base_offset.to_string();
        }
        if key == FAILURES_KEY {
            return offsets_text(&self.scenario.record_failures);
        }
        if key == SLOW_KEY {
            return durations_text(&self.scenario.record_processing_by_offset_us);
        }
        match self.scenario.get(key) {
            Some(Value::String(s)) => s,
            Some(Value::Null) | None => String::new(),
            Some(other) => offset_window_sim::keys::json_text(&other),
        }
    }
}

impl State {
    fn refuse(&self, key: &'static str, text: String, message: String) -> State {
        let mut next = self.clone();
        next.drafts.insert(key, text);
        next.errors.insert(key, message);
        next
    }

    /// Takes `scenario`; the field keeps showing `text` as typed (rewriting it to the
    /// canonical form while someone types would fight their cursor: "1.50" → "1.5").
    fn accept(&self, key: &'static str, text: String, scenario: Scenario) -> State {
        let mut next = self.clone();
        next.drafts.insert(key, text);
        next.errors.remove(key);
        let crash_at_us = next.crash_at_us.clamp(1, scenario.horizon_us);
        if crash_at_us != next.crash_at_us {
            next.set_crash(crash_at_us);
        }
        if scenario != next.scenario {
            // The tour's caption describes its step's settings: changing one leaves the tour.
            if let Some(n) = next.tour_step.take() {
                next.tour_left = Some(n);
                next.prediction = None;
            }
        }
        next.scenario = scenario;
        next
    }

    /// Puts the crash at `us` from anywhere but the crash field: the field shows it again.
    fn set_crash(&mut self, us: u64) {
        self.crash_at_us = us;
        self.crash_draft = None;
        self.crash_error = None;
        self.crash_before_typing = None;
    }

    /// Applies `change` to a copy of the scenario; keeps it if the core accepts it, else
    /// keeps the typed `text` and a message for the field `key`.
    fn try_change(
        &self,
        key: &'static str,
        text: String,
        change: impl FnOnce(&mut Scenario) -> Result<(), ScenarioError>,
    ) -> State {
        let mut candidate = self.scenario.clone();
        let checked = change(&mut candidate).and_then(|()| candidate.validate());
        match checked {
            Ok(()) => self.accept(key, text, candidate),
            Err(e) => self.refuse(key, text, field_message(&e)),
        }
    }
}

/// What the reader can do to the page.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Text typed into the field of a numeric scenario key (a name from `scenario::KEYS`).
    SetField {
        /// The scenario key.
        key: &'static str,
        /// The text, as typed (milliseconds for `*_ms` keys).
        text: String,
    },
    /// Choose a commit strategy. Choosing `transactional` also turns the worker pool off,
    /// since the model has no pool for transactions.
    SetStrategy(Strategy),
    /// Tick or untick the worker pool. Unticking it also puts what the pool's commits carry
    /// and its ordering back to their defaults: they apply only to a pool (docs/model.md §12).
    SetWorkerPool(bool),
    /// Make record `offset` throw on every attempt, or stop it throwing
    /// (`record_failures`, docs/model.md §12): a click or a tap on the record in the chart.
    ToggleRecordFailure(u64),
    /// Text typed into one of the records' fields (docs/model.md §12): `record_failures`
    /// (offsets and ranges, `12, 30–32`) or `record_processing_ms_by_offset` (`3: 6000`).
    SetRecordsText {
        /// [`FAILURES_KEY`] or [`SLOW_KEY`].
        key: &'static str,
        /// The text, as typed.
        text: String,
    },
    /// Put the crash at an instant, µs (clamped into `1..=horizon`).
    SetCrash(u64),
    /// Text typed into the "crash at (s)" field.
    SetCrashText(String),
    /// Choose the value of a named-choice key (`client`, `commit_value`, `isolation.level`).
    SetChoice {
        /// The scenario key.
        key: &'static str,
        /// The value's JSON name.
        value: String,
    },
    /// Set any key from a JSON value (lists, null, …), as a link gives it.
    SetValue {
        /// The scenario key.
        key: &'static str,
        /// The value.
        value: Value,
    },
    /// Text typed into the display base offset field.
    SetBaseText(String),
    /// Projector mode on or off.
    SetProjector(bool),
    /// Show a whole scenario, crash at its own instant (a preset; `index` into
    /// `presets::PRESETS`).
    LoadPreset(usize),
    /// Go to a step of the guided tour (0-based), or leave it with `None`, keeping the
    /// settings on screen.
    Tour(Option<usize>),
    /// Show the answer of a prediction step; the text is what the reader guessed.
    Reveal(String),
    /// Replace the whole state (back/forward in the browser's history).
    Restore(Box<State>),
    /// Back to the defaults.
    Reset,
}

crate::kit::reducible!(State, Action);

impl State {
    /// The reducer: the state after `action`. Returns `self` itself (the same `Rc`) when
    /// nothing changes, so the page skips a render.
    pub fn apply(self: Rc<Self>, action: Action) -> Rc<Self> {
        let next = match action {
            Action::SetField { key, text } => {
                let value = crate::kit::fields::typed_value(&text);
                self.try_change(key, text, |s| s.set_key(key, &value))
            }
            Action::SetStrategy(strategy) => self.try_change("strategy", strategy.name().to_string(), |s| {
                s.strategy = strategy;
                if strategy == Strategy::Transactional {
                    s.worker_pool = false;
                }
                Ok(())
            }),
            Action::SetWorkerPool(on) => self.try_change("worker_pool", on.to_string(), |s| {
                s.worker_pool = on;
                if !on {
                    (s.pool_commit, s.ordering) = (PoolCommit::HandedOut, Ordering::Batch);
                } else if s.client == Client::Sarama && s.pool_commit == PoolCommit::HandedOut {
                    // sarama's workers mark what they finished (model.md §8.14): the highest
                    // mark wins, what was handed out is nothing sarama commits.
                    s.pool_commit = PoolCommit::HighestCompleted;
                }
                Ok(())
            }),
            Action::ToggleRecordFailure(offset) => {
                let list = toggled(&self.scenario.record_failures, offset);
                let mut next = self.try_change(FAILURES_KEY, offsets_text(&list), |s| {
                    s.record_failures = list;
                    Ok(())
                });
                next.drafts.remove(FAILURES_KEY); // the field shows the list as it is now
                next
            }
            Action::SetRecordsText { key, text } => {
                let read = if key == SLOW_KEY {
                    parse_durations(&text)
                } else {
                    parse_offsets(&text).map(Value::from)
                };
                match read {
                    Ok(value) => self.try_change(key, text, |s| s.set_key(key, &value)),
                    Err(words) => {
                        let message = format!(
                            "{}: must be {words} (got \"{text}\")",
                            crate::consumer::fields::label(key)
                        );
                        self.refuse(key, text, message)
                    }
                }
            }
            Action::SetCrash(us) => {
                let us = us.clamp(1, self.scenario.horizon_us);
                if us == self.crash_at_us && self.crash_draft.is_none() {
                    return self; // same instant: no render
                }
                let mut next = (*self).clone();
                next.set_crash(us);
                next
            }
            Action::SetCrashText(text) => {
                let mut next = (*self).clone();
                let before = *next.crash_before_typing.get_or_insert(self.crash_at_us);
                match parse_seconds(&text) {
                    Ok(us) if (1..=self.scenario.horizon_us).contains(&us) => {
                        next.crash_at_us = us;
                        next.crash_error = None;
                    }
                    _ => {
                        next.crash_at_us = before;
                        let message = format!(
                            "crash at (s): must be a number of seconds in (0, {}] with at most 6 decimals (got \"{}\"); the crash stays at {} s",
                            seconds_text(self.scenario.horizon_us),
                            text,
                            seconds_text(before)
                        );
                        next.crash_error = Some(message);
                    }
                }
                next.crash_draft = Some(text); // shown as typed, see `accept`
                next
            }
            Action::SetChoice { key, value } => {
                self.try_change(key, value.clone(), |s| s.set_key(key, &Value::String(value)))
            }
            Action::SetValue { key, value } => {
                self.try_change(key, offset_window_sim::keys::json_text(&value), |s| s.set_key(key, &value))
            }
            Action::SetBaseText(text) => match text.trim().parse::<u64>() {
                Ok(v) if v <= MAX_BASE_OFFSET => {
                    let mut next = (*self).clone();
                    next.base_offset = v;
                    next.drafts.insert(BASE_FIELD, text);
                    next.errors.remove(BASE_FIELD);
                    next
                }
                _ => {
                    let message = format!(
                        "display base offset: must be a whole number from 0 to {MAX_BASE_OFFSET} (got \"{text}\"); still showing {}",
                        self.base_offset
                    );
                    self.refuse(BASE_FIELD, text, message)
                }
            },
            Action::SetProjector(on) => {
                let mut next = (*self).clone();
                next.projector = on;
                next
            }
            Action::LoadPreset(index) => match crate::consumer::presets::scenario(index) {
                Some(input) => {
                    let mut next = State::from_input(input);
                    next.preset = Some(index);
                    next.projector = self.projector;
                    next.base_offset = self.base_offset;
                    next
                }
                // The page fetches the presets' files on the first one chosen: that failed.
                None => {
                    let mut next = (*self).clone();
                    next.notices = vec![PRESETS_UNREACHABLE.to_string()];
                    next
                }
            },
            Action::Tour(step) => match step {
                Some(n) => {
                    let mut next = State::tour_step(n);
                    next.projector = self.projector;
                    next.base_offset = self.base_offset;
                    next
                }
                None => {
                    let mut next = (*self).clone();
                    next.tour_step = None;
                    next.tour_left = None;
                    next.prediction = None;
                    next
                }
            },
            Action::Reveal(guess) => match self.prediction {
                Some(Prediction::Asking) => {
                    let guess = guess.trim().parse::<u64>().ok();
                    let mut next = (*self).clone();
                    next.prediction = Some(Prediction::Revealed(guess));
                    next
                }
                _ => (*self).clone(),
            },
            Action::Restore(state) => *state,
            Action::Reset => {
                let mut next = State::default();
                Rc::make_mut(&mut next.settings).projector = self.projector;
                next
            }
        };
        crate::kit::same_or_new(self, next)
    }
}

/// The allowed values of a scenario key in the page's words: a numeric key's as every page
/// says them ([`crate::kit::fields::numeric_range`]: "a whole number from 1 to 100000", "0 to
/// 60000 ms, at most 3 decimals", "empty for never", not "null"), choices by their labels.
pub fn page_range(key: &str) -> Option<String> {
    let spec = key_spec(key)?;
    if let Some(range) = crate::kit::fields::numeric_range(spec) {
        return Some(range);
    }
    Some(match spec.kind {
        KeyKind::Flag => "on or off (true or false in a link)".into(),
        KeyKind::Choice(names) => {
            let labels: Vec<String> =
                names.iter().map(|n| format!("“{}”", crate::consumer::fields::choice_label(key, n))).collect();
            format!("one of {}", labels.join(", "))
        }
        KeyKind::CountList { .. } if key == FAILURES_KEY => format!(
            "offsets from 0 to {MAX_OFFSET} and ranges such as 20–24, separated by commas, at most {} records",
            offset_window_sim::scenario::MAX_LIST
        ),
        KeyKind::Structured(_) if key == SLOW_KEY => format!(
            "pairs of an offset (0 to {MAX_OFFSET}) and its processing time (0.001 to 600000 ms, at most 3 \
             decimals), such as 3: 6000, separated by commas, at most {} records",
            offset_window_sim::scenario::MAX_LIST
        ),
        _ => return None,
    })
}

/// The message for a refused change, in the page's words: the field's label and its range
/// as [`page_range`] says them, the rules between keys with labels instead of identifiers.
pub fn field_message(e: &ScenarioError) -> String {
    let Some(key) = e.key.as_deref() else { return e.message.clone() };
    // One entry of the slow records: "slow records, offset 3".
    if let Some(offset) = key.strip_prefix(SLOW_KEY).and_then(|k| k.strip_prefix('.')) {
        let what = e.message.replace("must name an offset", "must be an offset");
        return format!("{}, offset {offset}: {what}", crate::consumer::fields::label(SLOW_KEY))
            .replace("a number of milliseconds from", "a processing time from")
            .replace(" (at most 3 decimals)", " ms, at most 3 decimals");
    }
    let label = crate::consumer::fields::label(key);
    let ranged = ["must be a", "must be null", "must be one of", "must be true or false"];
    if let (true, Some(range)) = (ranged.iter().any(|r| e.message.starts_with(r)), page_range(key)) {
        let got = e.message.rsplit_once("(got ").map_or("", |(_, g)| g.trim_end_matches(')'));
        return format!("{label}: must be {range} (got {got})");
    }
    let (seek, stop) = ("“seek back and deliver it again”", "“stop the partition”");
    let m = e.message.as_str();
    match key {
        // The page's core has no groups (built without its `group` feature).
        "members" | "partitions" | "group_events" | "consumption" if m.contains("runs one consumer") => {
            let must = m.split(" here:").next().unwrap_or(m);
            format!("{label}: {must}: this page shows one consumer; consumer groups and share groups are on the group page")
        }
        "on_error" if m.contains("share-group") => {
            format!("{label}: “release” and “reject” are for share groups, which this page does not show")
        }
        "on_error" if m.contains("transactions") => {
            format!("{label}: {seek} and {stop} are not modelled with transactions")
        }
        "on_error" if m.contains("worker_pool") => format!(
            "{label}: {seek} and {stop} need the loop to process its own records: not with a worker pool"
        ),
        "pool_commit" | "ordering" if m.contains("worker pool") => {
            format!("{label}: applies to a worker pool; tick “worker pool” first")
        }
        "record_failures" | "record_failure_probability" if m.contains("script") => {
            format!("{label}: failures apply to the steady loop, not to a scripted consumer")
        }
        "strategy" if e.message.contains("offset store") => format!(
            "“{}” needs the {} client: the Java client has no offset store",
            Strategy::StoreOffsetsAfterProcessing.label(),
            Client::Librdkafka.label()
        ),
        "worker_pool" if e.message.contains("transaction") => {
            "worker pool: not with transactions — a transaction spans the loop's own batch, so the model has no pool for it".into()
        }
        _ => format!("{label}: {}", e.message.replace("horizon_ms", "the horizon")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(state: State, actions: impl IntoIterator<Item = Action>) -> State {
        crate::kit::apply_all(state, actions, State::apply)
    }

    #[test]
    fn the_defaults_are_reference_r1_at_8_2_s() {
        let s = State::default();
        assert_eq!(s.crash_at_us, 8_200_000);
        assert_eq!(s.field_text(CRASH_FIELD), "8.200");
        assert_eq!(s.field_text("max.poll.records"), "5");
    }

    #[test]
    fn a_refused_value_keeps_the_last_good_scenario_and_names_the_field() {
        let s = apply(State::default(), [Action::SetField { key: "max.poll.records", text: "0".into() }]);
        assert_eq!(s.scenario, Scenario::default());
        assert_eq!(s.field_text("max.poll.records"), "0");
        let e = s.errors.get("max.poll.records").unwrap();
        assert!(e.contains("max.poll.records") && e.contains("1 to 100000"), "{e}");
        let s = apply(s, [Action::SetField { key: "max.poll.records", text: "25".into() }]);
        assert_eq!(s.scenario.max_poll_records, 25);
        assert!(s.errors.get("max.poll.records").is_none());
    }

    #[test]
    fn typing_13_into_the_crash_field_does_not_leave_the_crash_at_1_s() {
        let s =
            apply(State::default(), [Action::SetCrashText("1".into()), Action::SetCrashText("13".into())]);
        assert_eq!(s.crash_at_us, 8_200_000, "back where it was before typing");
        assert_eq!(s.field_text(CRASH_FIELD), "13");
        assert!(s.crash_error.as_ref().unwrap().contains("stays at 8.200 s"));
        // Typing on to a good value takes it; the slider afterwards starts afresh.
        let s = apply(s, [Action::SetCrashText("3".into())]);
        assert_eq!(s.crash_at_us, 3_000_000);
        let s = apply(s, [Action::SetCrash(4_000_000), Action::SetCrashText("99".into())]);
        assert_eq!(s.crash_at_us, 4_000_000);
    }

    #[test]
    fn the_same_instant_is_the_same_state() {
        let s = Rc::new(State::default());
        let same = s.clone().apply(Action::SetCrash(8_200_000));
        assert!(Rc::ptr_eq(&s, &same), "no render for nothing");
    }

    #[test]
    fn transactional_turns_the_pool_off_and_the_pool_is_refused_in_words() {
        let s = apply(
            State::default(),
            [Action::SetWorkerPool(true), Action::SetStrategy(Strategy::Transactional)],
        );
        assert!(!s.scenario.worker_pool);
        let s = apply(s, [Action::SetWorkerPool(true)]);
        let e = s.errors.get("worker_pool").unwrap();
        assert!(e.contains("transactions") && !e.contains('"'), "{e}");
    }

    #[test]
    fn store_offsets_with_a_java_client_is_refused_in_words() {
        let s = apply(State::default(), [Action::SetStrategy(Strategy::StoreOffsetsAfterProcessing)]);
        assert_eq!(s.scenario.strategy, Strategy::AutoCommit);
        let e = s.errors.get("strategy").unwrap();
        assert!(e.contains("librdkafka") && !e.contains("store_offsets_after_processing"), "{e}");
    }

    #[test]
    fn close_at_says_empty_for_never() {
        let s = apply(State::default(), [Action::SetField { key: "close_at_ms", text: "-4".into() }]);
        let e = s.errors.get("close_at_ms").unwrap();
        assert!(e.contains("empty for never") && !e.contains("null"), "{e}");
        assert!(e.starts_with("close() at: "), "named by its label: {e}");
        let s = apply(s, [Action::SetField { key: "close_at_ms", text: "6000".into() }]);
        assert_eq!(s.scenario.close_at_us, Some(6_000_000));
        let s = apply(s, [Action::SetField { key: "close_at_ms", text: "".into() }]);
        assert_eq!(s.scenario.close_at_us, None);
    }

    #[test]
    fn base_offset_takes_whole_numbers_only() {
        let s =
            apply(State::default(), [Action::SetBaseText("1000".into()), Action::SetBaseText("abc".into())]);
        assert_eq!(s.base_offset, 1000);
        let e = s.errors.get(BASE_FIELD).unwrap();
        assert!(
            e.contains("display base offset") && e.contains("\"abc\"") && e.contains("still showing 1000"),
            "{e}"
        );
    }

    #[test]
    fn changing_a_setting_leaves_the_tour_and_leaving_keeps_the_settings() {
        let s = apply(State::default(), [Action::Tour(Some(4))]);
        assert_eq!(s.tour_step, Some(4));
        let left = apply(s.clone(), [Action::SetField { key: "max.poll.records", text: "9".into() }]);
        assert_eq!((left.tour_step, left.tour_left), (None, Some(4)));
        let kept = apply(s.clone(), [Action::Tour(None)]);
        assert_eq!(kept.tour_step, None);
        assert_eq!(kept.tour_left, None);
        assert_eq!(
            (kept.scenario.clone(), kept.crash_at_us),
            (s.scenario.clone(), s.crash_at_us),
            "the step's settings stay"
        );
    }

    #[test]
    fn a_prediction_step_asks_then_reveals() {
        let n = (0..crate::consumer::tour::STEPS)
            .find(|&n| crate::consumer::tour::prediction(n).is_some())
            .unwrap();
        let s = apply(State::default(), [Action::Tour(Some(n))]);
        assert!(s.predicting());
        let s = apply(s, [Action::Reveal(" 7 ".into())]);
        assert_eq!(s.prediction, Some(Prediction::Revealed(Some(7))));
        assert!(!s.predicting());
        let s = apply(s, [Action::Tour(Some(0))]);
        assert_eq!(s.prediction, None);
    }

    #[test]
    fn a_click_on_record_12_makes_it_throw_and_a_second_click_heals_it() {
        use crate::consumer::records::{record_at, record_point};
        let run = offset_window_sim::simulate(&Scenario::default()).unwrap();
        let f = crate::consumer::charts::main_frame((840, 420), 1.0, &run);
        // Where record 12 ends on the chart (2.6 s, 200 ms a record), a few px off.
        let (x, y) = record_point(&f, 2_600_000, 12);
        let offset = record_at(&run, &f, x - 2.0, y + 1.5, 8.0).expect("a record under the click");
        assert_eq!(offset, 12);
        let s = apply(State::default(), [Action::ToggleRecordFailure(offset)]);
        assert_eq!(s.scenario.record_failures, vec![12]);
        assert_eq!(s.field_text(FAILURES_KEY), "12");
        // Logged and skipped at 2.6 s; the auto-commit of 25 lands at 5.005 s and passes it.
        let run = offset_window_sim::simulate(&s.scenario).unwrap();
        assert_eq!((run.state_at(5_005_000).lost, run.state_at(5_005_001).lost), (0, 1));
        assert_eq!(run.state_at(s.crash_at_us).lost, 1);
        assert_eq!(run.records.skipped, 1);
        // The same record, clicked again where it now ends (its failure): healed.
        let f = crate::consumer::charts::main_frame((840, 420), 1.0, &run);
        let (x, y) = record_point(&f, 2_600_000, 12);
        let again = record_at(&run, &f, x, y, 8.0).unwrap();
        let s = apply(s, [Action::ToggleRecordFailure(again)]);
        assert_eq!(s.scenario, Scenario::default());
    }

    #[test]
    fn the_records_fields_take_offsets_and_durations_in_words() {
        let s = apply(
            State::default(),
            [
                Action::SetRecordsText { key: FAILURES_KEY, text: "12, 30-31".into() },
                Action::SetRecordsText { key: SLOW_KEY, text: "3: 6000".into() },
            ],
        );
        assert_eq!(s.scenario.record_failures, vec![12, 30, 31]);
        assert_eq!(s.scenario.record_processing_by_offset_us.0.get(&3), Some(&6_000_000));
        assert_eq!(s.field_text(FAILURES_KEY), "12, 30-31", "as typed while it is being typed");
        let clicked = apply(s.clone(), [Action::ToggleRecordFailure(31)]);
        assert_eq!(clicked.field_text(FAILURES_KEY), "12, 30", "a click rewrites the field");
        let bad = apply(s.clone(), [Action::SetRecordsText { key: FAILURES_KEY, text: "12, x".into() }]);
        assert_eq!(bad.scenario, s.scenario, "refused: the last good list stays");
        let e = bad.errors.get(FAILURES_KEY).unwrap();
        assert!(e.starts_with("records that throw: must be offsets from 0 to 1000000000000"), "{e}");
        let bad = apply(s.clone(), [Action::SetRecordsText { key: SLOW_KEY, text: "3: 0".into() }]);
        let e = bad.errors.get(SLOW_KEY).unwrap();
        assert!(
            e.starts_with("slow records, offset 3: must be a processing time from 0.001 to 600000"),
            "{e}"
        );
        assert!(!e.contains("record_processing"), "{e}");
        let bad = apply(s, [Action::SetRecordsText { key: SLOW_KEY, text: "3".into() }]);
        assert!(bad.errors.get(SLOW_KEY).unwrap().contains("such as 3: 6000"));
    }

    #[test]
    fn the_pool_settings_go_with_the_pool_and_refusals_are_words() {
        let no_identifier = |e: &str| !e.contains('_') && !e.contains("worker_pool");
        let s = apply(State::default(), [Action::SetChoice { key: "ordering", value: "key".into() }]);
        let e = s.errors.get("ordering").unwrap();
        assert!(e.contains("tick “worker pool” first") && no_identifier(e), "{e}");
        let s = apply(
            s,
            [
                Action::SetWorkerPool(true),
                Action::SetChoice { key: "ordering", value: "key".into() },
                Action::SetChoice { key: "pool_commit", value: "contiguous_completed".into() },
            ],
        );
        assert_eq!(
            (s.scenario.ordering, s.scenario.pool_commit),
            (Ordering::Key, PoolCommit::ContiguousCompleted)
        );
        let seek = apply(s.clone(), [Action::SetChoice { key: "on_error", value: "seek_to_failed".into() }]);
        let e = seek.errors.get("on_error").unwrap();
        assert!(e.contains("not with a worker pool") && no_identifier(e), "{e}");
        let off = apply(s, [Action::SetWorkerPool(false)]);
        assert!(!off.scenario.worker_pool);
        assert_eq!(
            (off.scenario.ordering, off.scenario.pool_commit),
            (Ordering::Batch, PoolCommit::HandedOut)
        );
        let e = apply(State::default(), [Action::SetChoice { key: "on_error", value: "explode".into() }]);
        let e = e.errors.get("on_error").unwrap();
        assert!(
            e.contains("“log it and go on: the record is skipped”") && !e.contains("log_and_continue"),
            "{e}"
        );
        let t = apply(
            State::default(),
            [
                Action::SetChoice { key: "on_error", value: "stop".into() },
                Action::SetStrategy(Strategy::Transactional),
            ],
        );
        let e = t.errors.get("strategy").unwrap();
        assert!(e.contains("not modelled with transactions") && no_identifier(e), "{e}");
    }

    #[test]
    fn projector_and_base_survive_presets_tour_and_reset() {
        let s = apply(
            State::default(),
            [
                Action::SetProjector(true),
                Action::SetBaseText("7".into()),
                Action::LoadPreset(1),
                Action::Tour(Some(2)),
            ],
        );
        assert!(s.projector);
        assert_eq!(s.base_offset, 7);
        let s = apply(s, [Action::Reset]);
        assert!(s.projector, "Reset goes back to the defaults of the scenario, not of the screen");
        assert_eq!(s.base_offset, 0);
    }

    #[test]
    fn a_group_refused_by_the_core_sends_the_reader_to_the_group_page() {
        // What the page's core (built without groups) says for `#members=3`.
        let e = ScenarioError::at(
            "members",
            "must be 1 (got 3) here: this build of the simulator runs one consumer; consumer groups and \
             share groups (docs/model.md §10, §11) are on the group page and in the command-line runner",
        );
        assert_eq!(
            field_message(&e),
            "members: must be 1 (got 3): this page shows one consumer; consumer groups and share groups are \
             on the group page"
        );
    }
}
