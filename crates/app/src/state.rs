//! The page's one piece of state and the actions that change it: a pure reducer.
//!
//! The scenario held here is always valid (every change is checked by the core before it
//! is taken); a refused change keeps the last good scenario and records, for that field,
//! the text the reader typed and the core's message. The crash instant lives apart from
//! the scenario, in µs (it is a query on the run), so moving it never re-runs the simulation.

use offset_window_sim::scenario::{format_millis, parse_millis, US_PER_MS};
use offset_window_sim::{Input, Scenario, ScenarioError, Strategy};
use serde_json::Value;
use std::rc::Rc;
use yew::Reducible;

/// The page state: a valid scenario, the crash instant, and any refused input.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The scenario being shown; always valid.
    pub scenario: Scenario,
    /// The crash instant, µs, in `1..=horizon_us`.
    pub crash_at_us: u64,
    /// Text last typed into a field, by scenario key (`"crash"` for the crash field): the
    /// field shows it as typed, refused or not, until the value changes another way.
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
    /// The preset last loaded (index into `presets::PRESETS`), while it is on screen.
    pub preset: Option<usize>,
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
            preset: None,
        }
    }

    /// The scenario and the crash instant: what the core would be asked about this exact
    /// page (used for exports and tests).
    pub fn input(&self) -> Input {
        Input { scenario: self.scenario.clone(), crash_at_us: self.crash_at_us }
    }

    /// The text a field shows: what was typed there if anything, else the current value.
    pub fn field_text(&self, key: &'static str) -> String {
        if let Some(draft) = self.drafts.get(key) {
            return draft.clone();
        }
        if key == CRASH_FIELD {
            return seconds_text(self.crash_at_us);
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
            next.crash_at_us = crash_at_us;
            next.drafts.remove(CRASH_FIELD);
            next.errors.remove(CRASH_FIELD);
        }
        if scenario != next.scenario {
            // The tour's caption describes its step's settings: changing one leaves the tour.
            if let Some(n) = next.tour_step.take() {
                next.tour_left = Some(n);
            }
        }
        next.scenario = scenario;
        next
    }

    /// Applies `change` to a copy of the scenario; keeps it if the core accepts it, else
    /// keeps the typed `text` and the core's message for the field `key`.
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
            Err(e) => self.refuse(key, text, e.to_string()),
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
    /// Show a whole scenario, crash at its own instant (a preset; `index` into
    /// `presets::PRESETS`).
    LoadPreset(usize),
    /// Go to a step of the guided tour (0-based), or leave it with `None`.
    Tour(Option<usize>),
    /// Replace the whole state (back/forward in the browser's history).
    Restore(Box<State>),
    /// Back to the defaults.
    Reset,
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
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
                next.crash_at_us = us;
                next.drafts.remove(CRASH_FIELD);
                next.errors.remove(CRASH_FIELD);
                next
            }
            Action::SetCrashText(text) => match parse_seconds(&text) {
                Ok(us) if (1..=self.scenario.horizon_us).contains(&us) => {
                    let mut next = (*self).clone();
                    next.crash_at_us = us;
                    next.drafts.insert(CRASH_FIELD, text); // shown as typed, see `accept`
                    next.errors.remove(CRASH_FIELD);
                    next
                }
                _ => {
                    let message = format!(
                        "crash at (s): must be a number of seconds in (0, {}] with at most 6 decimals (got \"{}\")",
                        seconds_text(self.scenario.horizon_us),
                        text
                    );
                    self.refuse(CRASH_FIELD, text, message)
                }
            },
            Action::SetChoice { key, value } => {
                self.try_change(key, value.clone(), |s| s.set_key(key, &Value::String(value)))
            }
            Action::SetValue { key, value } => {
                self.try_change(key, value.to_string(), |s| s.set_key(key, &value))
            }
            Action::LoadPreset(index) => match crate::presets::scenario(index) {
                Some(input) => State { preset: Some(index), ..State::from_input(input) },
                None => (*self).clone(),
            },
            Action::Tour(step) => match step {
                Some(n) => crate::tour::state(n),
                None => State { tour_step: None, ..(*self).clone() },
            },
            Action::Restore(state) => *state,
            Action::Reset => State::default(),
        };
        if next == *self {
            self
        } else {
            Rc::new(next)
        }
    }
}

/// The typed text as a JSON value: a number when it reads as one (its decimal text kept
/// exactly), else a string, so that the core's message says what was typed.
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

/// Parses seconds with at most six decimals into µs, exactly (no float): `"5.000001"` is
/// 5 000 001 µs.
pub fn parse_seconds(text: &str) -> Result<u64, String> {
    let text = text.trim();
    if text.contains(['e', 'E']) {
        return Err(format!("`{text}` is not a plain number of seconds"));
    }
    // seconds = milliseconds × 10³: let the core's exact decimal reader do the work.
    parse_millis(&format!("{text}e3"))
}

/// µs as seconds, at least three decimals and as many more (up to six) as needed to be
/// exact: `8_200_000` → `"8.200"`, `5_000_001` → `"5.000001"`.
pub fn seconds_text(us: u64) -> String {
    let (s, frac) = (us / (1_000 * US_PER_MS), us % (1_000 * US_PER_MS));
    let digits = format!("{frac:06}");
    let trimmed = digits.trim_end_matches('0');
    let shown = if trimmed.len() <= 3 { &digits[..3] } else { trimmed };
    format!("{s}.{shown}")
}

/// µs as milliseconds text, exact (`5000.001`); re-exported for the views.
pub fn millis_text(us: u64) -> String {
    format_millis(us)
}

/// `x` (≥ 0) with `decimals` decimals, rounded half away from zero: `fixed(0.1666, 2)` is
/// `"0.17"`. Integer arithmetic only, so the page carries no float-formatting code.
pub fn fixed(x: f64, decimals: u32) -> String {
    let scale = 10u64.pow(decimals);
    let n = (x.max(0.0) * scale as f64).round() as u64;
    if decimals == 0 {
        return n.to_string();
    }
    let frac = (n % scale).to_string();
    let pad = "0".repeat(decimals as usize - frac.len());
    format!("{}.{pad}{frac}", n / scale)
}
