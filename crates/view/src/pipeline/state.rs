//! The pipeline page's state: one [`State`] holding an always-valid [`PipelineScenario`] with
//! its run (a reducer that accepts a change keeps what it computed), the preset it started
//! from, and the text and refusals of its fields; [`Action`]s and a pure reducer
//! ([`State::apply`]). Every refusal is the core's own `validate` message, naming the key
//! and its allowed range.

use super::presets::{self, PRESETS};
use crate::kit::fields::{numeric_range, typed_value};
use crate::kit::text::{parse_seconds, seconds_field};
use offset_window_sim::keys::json_text;
use offset_window_sim::pipeline::{
    simulate_pipeline, EventKind, Guarantee, PipelineRun, PipelineScenario, Service, ServiceKind,
    EVENT_FIELDS, SERVICE_FIELDS,
};
use offset_window_sim::ScenarioError;
use serde_json::Value;
use std::rc::Rc;

/// The key under which a refused link's message is kept.
pub const LINK_KEY: &str = "link";
/// The key under which a refused crash instant (the slider's seconds field) is kept.
pub const CRASH_KEY: &str = "crash";
/// The key under which a preset that could not be loaded is named.
pub const PRESET_KEY: &str = "preset";

/// What the page says when a preset's file is not at hand (`presets.json` did not arrive).
pub const PRESETS_MISSING: &str =
    "The presets could not be loaded (presets.json did not arrive): check the connection and choose one again.";

/// How a field is edited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// Milliseconds typed as text.
    Millis,
    /// Milliseconds, or empty for none.
    OptionalMillis,
    /// One of these names (a select).
    Choice(&'static [&'static str]),
    /// On or off (a checkbox).
    Toggle,
}

/// One editable field of the scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditField {
    /// Its path in the scenario, as the core names it in a refusal
    /// (`service.commit.interval.ms`, `events[0].restart_after_ms`).
    pub key: String,
    /// Kafka's property name (or the scenario's), shown as code.
    pub label: &'static str,
    /// Text, select or checkbox.
    pub kind: FieldKind,
    /// What it does and its allowed values.
    pub hint: String,
}

fn help(list: &[offset_window_sim::transactions::FieldHelp], name: &str) -> String {
    let f = list.iter().find(|f| f.spec.name == name).expect("a field of the core's table");
    match numeric_range(&f.spec) {
        Some(range) => format!("{}; {range}", f.help),
        None => f.help.to_string(),
    }
}

/// The index of the first event — a crash, a hang or a join (the earliest; the first given
/// among equals): the event the crash slider moves.
pub fn first_event(scenario: &PipelineScenario) -> Option<usize> {
    (0..scenario.events.len()).min_by_key(|&i| (scenario.events[i].at_us, i))
}

/// The editable fields of `scenario`: only what the model reads for it. The kind and the
/// guarantee, `commit.interval.ms`, `transaction.timeout.ms` (exactly_once_v2), the first
/// crash's restart delay, the side effect.
pub fn fields(scenario: &PipelineScenario) -> Vec<EditField> {
    let service = |name: &'static str, kind| EditField {
        key: format!("service.{name}"),
        label: name,
        kind,
        hint: help(SERVICE_FIELDS, name),
    };
    let mut out = vec![
        service("kind", FieldKind::Choice(ServiceKind::NAMES)),
        service("processing.guarantee", FieldKind::Choice(Guarantee::NAMES)),
        service("commit.interval.ms", FieldKind::Millis),
    ];
    if scenario.service.eos() {
        out.push(service("transaction.timeout.ms", FieldKind::Millis));
    }
    if let Some(i) = first_event(scenario).filter(|&i| scenario.events[i].kind == EventKind::Crash) {
        out.push(EditField {
            key: format!("events[{i}].restart_after_ms"),
            label: "restart_after_ms",
            kind: FieldKind::OptionalMillis,
            hint: help(EVENT_FIELDS, "restart_after_ms"),
        });
    }
    out.push(EditField {
        key: "service.side_effect".into(),
        label: "side_effect",
        kind: FieldKind::Toggle,
        hint: help(SERVICE_FIELDS, "side_effect"),
    });
    out
}

/// The JSON form of `service`'s defaults for its kind and guarantee.
fn defaults_json(kind: ServiceKind, guarantee: Guarantee) -> Value {
    let s = PipelineScenario {
        service: Service::defaults(kind, guarantee),
        ..presets::scenario(0).expect("the first preset is carried")
    };
    s.to_json_value()["service"].clone()
}

/// `scenario` with `key` set to `value` in its JSON form, read back by the core. Changing the
/// kind or the guarantee lets every service field left at the old defaults take the new ones,
/// and drops the fields the new one has not (`transaction.timeout.ms` under at_least_once).
pub fn with_key(
    scenario: &PipelineScenario,
    key: &str,
    value: Value,
) -> Result<PipelineScenario, ScenarioError> {
    let mut json = scenario.to_json_value();
    if let Some(field) = key.strip_prefix("service.") {
        let service = &mut json["service"];
        if matches!(field, "kind" | "processing.guarantee") {
            let old = defaults_json(scenario.service.kind, scenario.service.guarantee);
            if let (Value::Object(map), Value::Object(old)) = (&mut *service, &old) {
                map.retain(|k, v| k == "kind" || k == "processing.guarantee" || old.get(k) != Some(v));
                match value.as_str() {
                    Some("at_least_once") => {
                        map.remove("transaction.timeout.ms");
                        map.remove("offsets_to_end_txn_ms");
                    }
                    Some("kafka_streams") => {
                        map.remove("restart_keeps_transactional.id");
                    }
                    Some("consume_transform_produce") => {
                        map.remove("state_store");
                    }
                    _ => {}
                }
            }
        }
        service[field] = value;
    } else if let Some((head, field)) = key.split_once("].") {
        let (list, index) = head.split_once('[').unwrap_or((head, ""));
        let slot = index.parse::<usize>().ok().and_then(|i| json.get_mut(list)?.get_mut(i));
        match slot {
            Some(Value::Object(map)) => {
                map.insert(field.to_string(), value);
            }
            _ => return Err(ScenarioError::at(key, "is not a field of this scenario")),
        }
    } else {
        json[key] = value;
    }
    let s = PipelineScenario::from_value(&json)?;
    s.validate()?;
    Ok(s)
}

/// The page's state.
#[derive(Clone, Debug)]
pub struct State {
    /// The preset the scenario started from (an index into [`PRESETS`]).
    pub preset: usize,
    /// The scenario shown; always valid.
    pub scenario: PipelineScenario,
    /// Its run.
    pub run: Rc<PipelineRun>,
    /// Projector mode.
    pub projector: bool,
    /// A preset a link named whose file the page must fetch first (then it reads the link
    /// again).
    pub pending_preset: Option<usize>,
    /// Text typed into a field, by key, kept as typed.
    pub drafts: Vec<(String, String)>,
    /// Why a field's value (or the link, [`LINK_KEY`], the crash, [`CRASH_KEY`], a preset,
    /// [`PRESET_KEY`]) was refused, by key.
    pub errors: Vec<(String, String)>,
}

impl PartialEq for State {
    fn eq(&self, o: &Self) -> bool {
        self.preset == o.preset
            && self.scenario == o.scenario
            && self.projector == o.projector
            && self.pending_preset == o.pending_preset
            && self.drafts == o.drafts
            && self.errors == o.errors
    }
}

impl Default for State {
    fn default() -> Self {
        State::of_preset(0).expect("the first preset is carried and runs")
    }
}

pub(crate) fn put(list: &mut Vec<(String, String)>, key: &str, text: Option<String>) {
    list.retain(|(k, _)| k != key);
    if let Some(text) = text {
        list.push((key.to_string(), text));
    }
}

impl State {
    /// Preset `index` (`None`: past the list, or its file is not at hand yet).
    pub fn of_preset(index: usize) -> Option<State> {
        let scenario = presets::scenario(index)?;
        let run = simulate_pipeline(&scenario).ok()?;
        Some(State {
            preset: index,
            scenario,
            run: Rc::new(run),
            projector: false,
            pending_preset: None,
            drafts: Vec::new(),
            errors: Vec::new(),
        })
    }

    /// `scenario` with its run, keeping the rest of this state (`Err`: the core refuses it).
    pub fn with_scenario(&self, scenario: PipelineScenario) -> Result<State, ScenarioError> {
        let run = simulate_pipeline(&scenario)?;
        Ok(State { scenario, run: Rc::new(run), ..self.clone() })
    }

    /// Why the last input for `key` was refused, if it was.
    pub fn error(&self, key: &str) -> Option<&String> {
        self.errors.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The text typed for `key`, if the field holds a draft.
    pub fn draft(&self, key: &str) -> Option<&String> {
        self.drafts.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// What field `key` shows: the text typed there, else its value (empty for `null`).
    pub fn field_text(&self, key: &str) -> String {
        if let Some(d) = self.draft(key) {
            return d.clone();
        }
        let json = self.scenario.to_json_value();
        let value = if let Some(field) = key.strip_prefix("service.") {
            json["service"].get(field).cloned()
        } else if let Some((head, field)) = key.split_once("].") {
            let (list, index) = head.split_once('[').unwrap_or((head, ""));
            index.parse::<usize>().ok().and_then(|i| json.get(list)?.get(i)?.get(field).cloned())
        } else {
            json.get(key).cloned()
        };
        match value {
            Some(Value::String(s)) => s,
            Some(Value::Null) | None => String::new(),
            Some(v) => json_text(&v),
        }
    }

    /// The first event's instant, µs (`None`: no event).
    pub fn crash_us(&self) -> Option<u64> {
        first_event(&self.scenario).map(|i| self.scenario.events[i].at_us)
    }

    /// The word for what the slider moves: "crash", "hang" or "join" ("crash" when there is no
    /// event).
    pub fn event_word(&self) -> &'static str {
        first_event(&self.scenario)
            .map_or("crash", |i| super::readouts::event_word(self.scenario.events[i].kind))
    }

    fn set(&self, key: &str, text: String) -> State {
        let value = match key {
            k if k.ends_with(".ms") || k.ends_with("_ms") => typed_value(&text),
            k if k.ends_with("side_effect") => Value::Bool(text == "true"),
            _ => Value::String(text.clone()),
        };
        let typed = key.ends_with(".ms") || key.ends_with("_ms");
        let mut next = self.clone();
        let draft = typed.then_some(text);
        match with_key(&self.scenario, key, value).and_then(|s| self.with_scenario(s)) {
            Ok(accepted) => {
                next = accepted;
                next.errors.retain(|(k, _)| k == LINK_KEY || k == PRESET_KEY);
                put(&mut next.errors, LINK_KEY, None);
                // A draft refused for a conflict (a commit interval above the timeout) may be
                // fine now; either way the fields show the scenario's values again.
                next.drafts.clear();
                put(&mut next.drafts, key, draft);
            }
            Err(e) => {
                put(&mut next.drafts, key, draft);
                put(&mut next.errors, key, Some(e.to_string()));
            }
        }
        next
    }

    /// The first event moved to `at_us` (clamped to the horizon), or the core's refusal under
    /// [`CRASH_KEY`].
    fn crash_at(&self, at_us: u64) -> State {
        let mut next = self.clone();
        put(&mut next.drafts, CRASH_KEY, None);
        let Some(i) = first_event(&self.scenario) else { return next };
        let mut s = self.scenario.clone();
        s.events[i].at_us = at_us.min(s.horizon_us);
        match s.validate().and_then(|()| self.with_scenario(s)) {
            Ok(mut accepted) => {
                put(&mut accepted.errors, CRASH_KEY, None);
                put(&mut accepted.drafts, CRASH_KEY, None);
                accepted
            }
            Err(e) => {
                put(&mut next.errors, CRASH_KEY, Some(e.to_string()));
                next
            }
        }
    }
}

/// What the reader can do.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Open a preset (its index in [`PRESETS`]).
    Preset(usize),
    /// A field's new text or choice (`key` as in [`EditField::key`]; a toggle: "true" or
    /// "false").
    Set {
        /// The field.
        key: String,
        /// What was typed or chosen.
        text: String,
    },
    /// Move the first event (a crash, a hang or a join) to this instant, µs.
    Crash(u64),
    /// The first event's exact seconds field.
    CrashText(String),
    /// Projector mode on or off.
    Projector(bool),
    /// The state a link describes (the browser's back and forward buttons).
    Restore(Box<State>),
    /// Back to the defaults.
    Reset,
}

crate::kit::reducible!(State, Action);

impl State {
    /// The state after `action` (the same `Rc` when nothing changes).
    pub fn apply(self: Rc<Self>, action: Action) -> Rc<Self> {
        let next = match action {
            Action::Preset(i) if i < PRESETS.len() => match State::of_preset(i) {
                Some(s) => State { projector: self.projector, ..s },
                None => {
                    let mut next = (*self).clone();
                    put(&mut next.errors, PRESET_KEY, Some(PRESETS_MISSING.into()));
                    next
                }
            },
            Action::Preset(_) => return self,
            Action::Set { key, text } => self.set(&key, text),
            Action::Crash(at) => self.crash_at(at),
            Action::CrashText(text) => {
                let horizon = self.scenario.horizon_us;
                let mut next = match parse_seconds(&text) {
                    Ok(us) if us <= horizon => self.crash_at(us),
                    Ok(_) => {
                        let mut next = (*self).clone();
                        let e = format!(
                            "the {} must be 0 to {} s (the horizon)",
                            self.event_word(),
                            seconds_field(horizon)
                        );
                        put(&mut next.errors, CRASH_KEY, Some(e));
                        next
                    }
                    Err(e) => {
                        let mut next = (*self).clone();
                        put(
                            &mut next.errors,
                            CRASH_KEY,
                            Some(format!("the {} instant: {e}", self.event_word())),
                        );
                        next
                    }
                };
                put(&mut next.drafts, CRASH_KEY, Some(text));
                next
            }
            Action::Projector(on) => State { projector: on, ..(*self).clone() },
            Action::Restore(state) => *state,
            Action::Reset => State::default(),
        };
        crate::kit::same_or_new(self, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(state: State, actions: impl IntoIterator<Item = Action>) -> State {
        crate::kit::apply_all(state, actions, State::apply)
    }

    fn set(key: &str, text: &str) -> Action {
        Action::Set { key: key.into(), text: text.into() }
    }

    #[test]
    fn the_defaults_are_p1() {
        let s = State::default();
        assert_eq!(s.run.readers[0].seen.once, 100);
        assert_eq!(s.run.readers[1].seen.twice, 4);
        assert_eq!(s.crash_us(), Some(4_500_000));
        let keys: Vec<_> = fields(&s.scenario).into_iter().map(|f| f.key).collect();
        assert_eq!(
            keys,
            [
                "service.kind",
                "service.processing.guarantee",
                "service.commit.interval.ms",
                "service.transaction.timeout.ms",
                "events[0].restart_after_ms",
                "service.side_effect"
            ]
        );
        assert_eq!(s.field_text("service.commit.interval.ms"), "1000");
        assert_eq!(s.field_text("events[0].restart_after_ms"), "1000");
        assert_eq!(s.field_text("service.side_effect"), "true");
    }

    #[test]
    fn a_refused_value_keeps_the_run_and_names_the_key_and_range() {
        let s = apply(State::default(), [set("service.commit.interval.ms", "0")]);
        assert_eq!(s.scenario, presets::scenario(0).unwrap());
        let e = s.error("service.commit.interval.ms").unwrap();
        assert!(e.contains("service.commit.interval.ms") && e.contains("1 to 86400000"), "{e}");
        assert_eq!(s.field_text("service.commit.interval.ms"), "0");
        // Above the transaction timeout: the core's own reason.
        let s = apply(s, [set("service.commit.interval.ms", "70000")]);
        assert!(
            s.error("service.commit.interval.ms").unwrap().contains("transaction.timeout.ms"),
            "{:?}",
            s.errors
        );
        let s = apply(s, [set("service.transaction.timeout.ms", "900001")]);
        assert!(s.error("service.transaction.timeout.ms").unwrap().contains("900000"));
        let s = apply(s, [set("service.commit.interval.ms", "500")]);
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.scenario.service.commit_interval_us, 500_000);
    }

    #[test]
    fn at_least_once_drops_the_transaction_fields_and_sees_duplicates_everywhere() {
        let s = apply(State::default(), [set("service.processing.guarantee", "at_least_once")]);
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert!(!fields(&s.scenario).iter().any(|f| f.key.contains("transaction.timeout")));
        assert!(s.run.readers[0].seen.twice > 0, "read_committed sees duplicates without transactions");
        // Kafka Streams at its defaults takes its own (commit every 30 s under at_least_once)
        // except what the preset set (1000 ms).
        let s = apply(s, [set("service.kind", "kafka_streams")]);
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.scenario.service.max_poll_records, 1_000);
        assert_eq!(s.scenario.service.commit_interval_us, 1_000_000);
        let s = apply(s, [set("service.processing.guarantee", "exactly_once_v2")]);
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.scenario.service.transaction_timeout_us, 10_000_000);
    }

    #[test]
    fn no_restart_and_no_side_effect() {
        let s = apply(
            State::default(),
            [set("events[0].restart_after_ms", ""), set("service.side_effect", "false")],
        );
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.scenario.events[0].restart_after_us, None);
        assert!(s.run.side_effects.is_none());
        let s = apply(s, [set("events[0].restart_after_ms", "-1")]);
        assert!(s.error("events[0].restart_after_ms").unwrap().contains("events[0].restart_after_ms"));
    }

    #[test]
    fn the_crash_moves_and_refuses_what_is_past_the_horizon() {
        let s = apply(State::default(), [Action::Crash(2_500_000)]);
        assert_eq!(s.crash_us(), Some(2_500_000));
        let s = apply(s, [Action::CrashText("4.2".into())]);
        assert_eq!(s.crash_us(), Some(4_200_000));
        let s = apply(s, [Action::CrashText("81".into())]);
        assert_eq!(s.crash_us(), Some(4_200_000));
        assert!(s.error(CRASH_KEY).unwrap().contains("0 to 80 s"), "{:?}", s.errors);
        let s = apply(s, [Action::CrashText("x".into())]);
        assert!(s.error(CRASH_KEY).unwrap().contains("crash instant"));
        let s = apply(s, [Action::Crash(100_000_000)]);
        assert_eq!(s.crash_us(), Some(80_000_000), "clamped to the horizon");
        assert!(s.error(CRASH_KEY).is_none());
        assert_eq!(apply(s, [Action::Reset]), State::default());
    }

    #[test]
    fn p7_the_slider_moves_the_join_and_there_is_no_restart_field() {
        let s = State::of_preset(6).unwrap();
        assert_eq!((s.crash_us(), s.event_word()), (Some(1_050_000), "join"));
        assert!(!fields(&s.scenario).iter().any(|f| f.key.contains("restart")));
        assert_eq!(s.run.readers[0].seen.once, 40);
        assert_eq!(s.run.rebalances[0].assignment, [vec![0], vec![1]]);
        let s = apply(s, [Action::CrashText("1.5".into())]);
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.crash_us(), Some(1_500_000));
        assert_eq!(s.run.rebalances[0].started_at_us, 1_500_000);
        assert_eq!((s.run.readers[0].seen.once, s.run.readers[1].seen.once), (40, 40));
        let s = apply(s, [Action::CrashText("6".into())]);
        assert!(s.error(CRASH_KEY).unwrap().contains("the join must be 0 to 5 s"), "{:?}", s.errors);
        assert_eq!(s.crash_us(), Some(1_500_000));
    }

    #[test]
    fn every_preset_opens_and_an_unchanged_state_is_the_same_rc() {
        let s = Rc::new(State::default());
        for i in 0..PRESETS.len() {
            let next = s.clone().apply(Action::Preset(i));
            assert_eq!(next.preset, i);
            assert!(next.crash_us().is_some());
        }
        assert!(Rc::ptr_eq(&s, &s.clone().apply(Action::Preset(0))));
        assert!(Rc::ptr_eq(&s, &s.clone().apply(Action::Preset(99))));
    }
}
