//! The page's one piece of state and the actions that change it: a pure reducer.
//!
//! The scenario held here is always valid (every change is checked by the core before it
//! is taken); a refused change keeps the last good scenario and records, for that field,
//! the text the reader typed and a message naming the field and its range. The crash
//! instant lives apart from the scenario, in µs (it is a query on the run), so moving it
//! never re-runs the simulation.

use crate::text::{parse_seconds, seconds_text};
use offset_window_sim::scenario::{format_millis, key_spec, KeyKind};
use offset_window_sim::{Client, Input, Scenario, ScenarioError, Strategy};
use serde_json::Value;
use std::rc::Rc;

pub use crate::text::{fixed, millis_text};

/// The page state: a valid scenario, the crash instant, how it is shown, and any refused
/// input.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The scenario being shown; always valid.
    pub scenario: Scenario,
    /// The crash instant, µs, in `1..=horizon_us`.
    pub crash_at_us: u64,
    /// Text last typed into a field, by scenario key ([`CRASH_FIELD`], [`BASE_FIELD`] for
    /// the page's own fields): the field shows it as typed, refused or not, until the value
    /// changes another way.
    pub drafts: Notes,
    /// Why each draft was refused, by the same key.
    pub errors: Notes,
    /// Values of an opened link that were not used, each naming its key (see `url`).
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
    /// The crash instant before the reader began typing into the crash field: a refused
    /// text puts the crash back there, so "13" (over a 12 s horizon) does not leave the
    /// crash at the "1" typed on the way.
    pub(crate) crash_before_typing: Option<u64>,
}

/// A prediction step of the tour (see [`crate::tour::prediction`]).
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

/// The key under which [`State::drafts`] and [`State::errors`] hold the crash field.
pub const CRASH_FIELD: &str = "crash";
/// The key under which they hold the display base offset field.
pub const BASE_FIELD: &str = "base_offset";
/// The largest display base offset (the core's largest offset).
pub const MAX_BASE_OFFSET: u64 = offset_window_sim::scenario::MAX_OFFSET;

impl Default for State {
    fn default() -> Self {
        State::from_input(Input {
            scenario: Scenario::default(),
            crash_at_us: offset_window_sim::scenario::DEFAULT_CRASH_AT_US,
        })
    }
}

impl State {
    /// A state showing `input`'s scenario with the crash at its instant (clamped into the
    /// horizon). The scenario should be valid; if it is not, the defaults are shown.
    pub fn from_input(input: Input) -> State {
        let scenario = if input.scenario.validate().is_ok() { input.scenario } else { Scenario::default() };
        let crash_at_us = input.crash_at_us.clamp(1, scenario.horizon_us);
        State {
            scenario,
            crash_at_us,
            drafts: Notes::default(),
            errors: Notes::default(),
            notices: Vec::new(),
            tour_step: None,
            tour_left: None,
            prediction: None,
            preset: None,
            projector: false,
            base_offset: 0,
            crash_before_typing: None,
        }
    }

    /// Whether a tour step is waiting for the reader's prediction (the page then hides the
    /// numbers that would give the answer away).
    pub fn predicting(&self) -> bool {
        self.prediction == Some(Prediction::Asking)
    }

    /// The text a field shows: what was typed there if anything, else the current value.
    pub fn field_text(&self, key: &'static str) -> String {
        if let Some(draft) = self.drafts.get(key) {
            return draft.clone();
        }
        if key == CRASH_FIELD {
            return seconds_text(self.crash_at_us);
        }
        if key == BASE_FIELD {
            return self.base_offset.to_string();
        }
        match self.scenario.get(key) {
            Some(Value::String(s)) => s,
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        }
    }

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
        self.drafts.remove(CRASH_FIELD);
        self.errors.remove(CRASH_FIELD);
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
    /// Tick or untick the worker pool.
    SetWorkerPool(bool),
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

#[cfg(feature = "yew")]
impl yew::Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        State::apply(self, action)
    }
}

impl State {
    /// The reducer: the state after `action`. Returns `self` itself (the same `Rc`) when
    /// nothing changes, so the page skips a render.
    pub fn apply(self: Rc<Self>, action: Action) -> Rc<Self> {
        let next = match action {
            Action::SetField { key, text } => {
                let value = json_number(&text);
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
                Ok(())
            }),
            Action::SetCrash(us) => {
                let us = us.clamp(1, self.scenario.horizon_us);
                if us == self.crash_at_us && !self.drafts.contains_key(CRASH_FIELD) {
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
                        next.errors.remove(CRASH_FIELD);
                    }
                    _ => {
                        next.crash_at_us = before;
                        let message = format!(
                            "crash at (s): must be a number of seconds in (0, {}] with at most 6 decimals (got \"{}\"); the crash stays at {} s",
                            seconds_text(self.scenario.horizon_us),
                            text,
                            seconds_text(before)
                        );
                        next.errors.insert(CRASH_FIELD, message);
                    }
                }
                next.drafts.insert(CRASH_FIELD, text); // shown as typed, see `accept`
                next
            }
            Action::SetChoice { key, value } => {
                self.try_change(key, value.clone(), |s| s.set_key(key, &Value::String(value)))
            }
            Action::SetValue { key, value } => {
                self.try_change(key, value.to_string(), |s| s.set_key(key, &value))
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
            Action::SetProjector(on) => State { projector: on, ..(*self).clone() },
            Action::LoadPreset(index) => match crate::presets::scenario(index) {
                Some(input) => State {
                    preset: Some(index),
                    projector: self.projector,
                    base_offset: self.base_offset,
                    ..State::from_input(input)
                },
                None => (*self).clone(),
            },
            Action::Tour(step) => match step {
                Some(n) => State {
                    projector: self.projector,
                    base_offset: self.base_offset,
                    ..crate::tour::state(n)
                },
                None => State { tour_step: None, tour_left: None, prediction: None, ..(*self).clone() },
            },
            Action::Reveal(guess) => match self.prediction {
                Some(Prediction::Asking) => {
                    let guess = guess.trim().parse::<u64>().ok();
                    State { prediction: Some(Prediction::Revealed(guess)), ..(*self).clone() }
                }
                _ => (*self).clone(),
            },
            Action::Restore(state) => *state,
            Action::Reset => State { projector: self.projector, ..State::default() },
        };
        if next == *self {
            self
        } else {
            Rc::new(next)
        }
    }
}

/// The typed text as a JSON value: a number when it reads as one (its decimal text kept
/// exactly), else a string, so that the message says what was typed.
fn json_number(text: &str) -> Value {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed == "null" {
        return Value::Null; // "never", for the optional keys (close_at_ms)
    }
    // "1." is "1" half typed, not an error.
    let number = trimmed.strip_suffix('.').unwrap_or(trimmed);
    match number.parse::<serde_json::Number>() {
        Ok(n) => Value::Number(n),
        Err(_) => Value::String(trimmed.to_string()),
    }
}

/// The allowed values of a scenario key in the page's words ("empty for never", not
/// "null"): "a whole number from 1 to 100000", "0 to 60000 ms, at most 3 decimals".
pub fn page_range(key: &str) -> Option<String> {
    let spec = key_spec(key)?;
    let ms = |min_us, max_us| {
        format!("{} to {} ms, at most 3 decimals", format_millis(min_us), format_millis(max_us))
    };
    Some(match spec.kind {
        KeyKind::Count { min, max } => format!("a whole number from {min} to {max}"),
        KeyKind::Millis { min_us, max_us } => ms(min_us, max_us),
        KeyKind::OptionalMillis { min_us, max_us } => format!("empty for never, or {}", ms(min_us, max_us)),
        _ => return None,
    })
}

/// The message for a refused change, in the page's words: the field's label and its range
/// as [`page_range`] says them, the rules between keys with labels instead of identifiers.
pub fn field_message(e: &ScenarioError) -> String {
    let Some(key) = e.key.as_deref() else { return e.message.clone() };
    let label = crate::fields::label(key);
    if let (true, Some(range)) =
        (e.message.starts_with("must be a") || e.message.starts_with("must be null"), page_range(key))
    {
        let got = e.message.rsplit_once("(got ").map_or("", |(_, g)| g.trim_end_matches(')'));
        return format!("{label}: must be {range} (got {got})");
    }
    match key {
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
        let mut s = Rc::new(state);
        for a in actions {
            s = s.apply(a);
        }
        Rc::unwrap_or_clone(s)
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
        assert!(s.errors.get(CRASH_FIELD).unwrap().contains("stays at 8.200 s"));
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
            (kept.scenario, kept.crash_at_us),
            (s.scenario, s.crash_at_us),
            "the step's settings stay"
        );
    }

    #[test]
    fn a_prediction_step_asks_then_reveals() {
        let n = (0..crate::tour::STEPS).find(|&n| crate::tour::prediction(n).is_some()).unwrap();
        let s = apply(State::default(), [Action::Tour(Some(n))]);
        assert!(s.predicting());
        let s = apply(s, [Action::Reveal(" 7 ".into())]);
        assert_eq!(s.prediction, Some(Prediction::Revealed(Some(7))));
        assert!(!s.predicting());
        let s = apply(s, [Action::Tour(Some(0))]);
        assert_eq!(s.prediction, None);
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
}
