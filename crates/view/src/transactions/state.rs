//! The transactions page's state: one [`State`] holding an always-valid [`TxnScenario`]
//! with its run (the reducer that accepts a change keeps what it computed), the preset it
//! started from, the instant the readouts are read at, and the text and refusals of its
//! fields; [`Action`]s and a pure reducer ([`State::apply`]).

use super::presets::{self, PRESETS};
use crate::kit::fields::{numeric_range, typed_value};
use crate::kit::text::{parse_seconds, seconds_field};
use offset_window_sim::keys::json_text;
use offset_window_sim::transactions::{
    simulate_transactions, TxnRun, TxnScenario, PRODUCER_FIELDS, READER_FIELDS, TXN_KEYS,
};
use offset_window_sim::ScenarioError;
use serde_json::Value;
use std::rc::Rc;

/// The coordinator's scan interval, the one top-level key the page edits.
pub const CLEANUP_KEY: &str = "transaction.abort.timed.out.transaction.cleanup.interval.ms";

/// The key under which a refused link's message is kept.
pub const LINK_KEY: &str = "link";

/// The key under which a refused instant (the seconds field) is kept.
pub const AT_KEY: &str = "at";

/// How a field is edited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// Milliseconds typed as text.
    Millis,
    /// One of these names (a select).
    Choice(&'static [&'static str]),
}

/// One editable field of the scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditField {
    /// Its path in the scenario, as the core names it in a refusal
    /// (`producers[0].transaction.timeout.ms`, `readers[1].commit`).
    pub key: String,
    /// Kafka's property name, shown as code.
    pub label: &'static str,
    /// Whose field it is ("the coordinator", `tx-a`, the reader's name).
    pub owner: String,
    /// Text or select.
    pub kind: FieldKind,
    /// What it does and its allowed values.
    pub hint: String,
}

const ISOLATIONS: &[&str] = &["read_committed", "read_uncommitted"];
const COMMITS: &[&str] = &["position", "last_record_plus_one", "auto_commit"];

/// The editable fields of `scenario`: the coordinator's scan interval, each transactional
/// producer's `transaction.timeout.ms`, each reader's `isolation.level` and commit style.
pub fn fields(scenario: &TxnScenario) -> Vec<EditField> {
    let help = |list: &[offset_window_sim::transactions::FieldHelp], name: &str| {
        let f = list.iter().find(|f| f.spec.name == name).expect("a field of the core's table");
        match numeric_range(&f.spec) {
            Some(range) => format!("{}; {range}", f.help),
            None => f.help.to_string(),
        }
    };
    let cleanup = TXN_KEYS.iter().find(|k| k.name == CLEANUP_KEY).expect("the core's key");
    let mut out = vec![EditField {
        key: CLEANUP_KEY.into(),
        label: CLEANUP_KEY,
        owner: "the transaction coordinator".into(),
        kind: FieldKind::Millis,
        hint: format!(
            "how often the coordinator scans for timed-out transactions; {}",
            numeric_range(cleanup).unwrap_or_default()
        ),
    }];
    for (i, p) in scenario.producers.iter().enumerate() {
        if let Some(id) = &p.transactional_id {
            out.push(EditField {
                key: format!("producers[{i}].transaction.timeout.ms"),
                label: "transaction.timeout.ms",
                owner: format!("producer {id}"),
                kind: FieldKind::Millis,
                hint: help(PRODUCER_FIELDS, "transaction.timeout.ms"),
            });
        }
    }
    for (i, r) in scenario.readers.iter().enumerate() {
        for (name, choices) in [("isolation.level", ISOLATIONS), ("commit", COMMITS)] {
            out.push(EditField {
                key: format!("readers[{i}].{name}"),
                label: if name == "commit" { "commit" } else { "isolation.level" },
                owner: format!("reader {} ({})", r.name, r.client.name()),
                kind: FieldKind::Choice(choices),
                hint: help(READER_FIELDS, name),
            });
        }
    }
    out
}

/// Splits `producers[0].transaction.timeout.ms` into ("producers", 0, "transaction.timeout.ms");
/// a top-level key has no list.
fn split_key(key: &str) -> (Option<(&str, usize)>, &str) {
    if let Some((head, field)) = key.split_once("].") {
        if let Some((list, index)) = head.split_once('[') {
            if let Ok(i) = index.parse() {
                return (Some((list, i)), field);
            }
        }
    }
    (None, key)
}

/// `scenario` with `key` set to `value` in its JSON form, read back by the core.
pub fn with_key(scenario: &TxnScenario, key: &str, value: Value) -> Result<TxnScenario, ScenarioError> {
    let mut json = scenario.to_json_value();
    let (list, field) = split_key(key);
    let slot = match list {
        Some((list, i)) => json.get_mut(list).and_then(|l| l.get_mut(i)),
        None => Some(&mut json),
    };
    let Some(Value::Object(map)) = slot else {
        return Err(ScenarioError::at(key, "is not a field of this scenario"));
    };
    map.insert(field.to_string(), value);
    TxnScenario::from_value(&json)
}

/// The page's state.
#[derive(Clone, Debug)]
pub struct State {
    /// The preset the scenario started from (an index into [`PRESETS`]).
    pub preset: usize,
    /// The scenario shown; always valid.
    pub scenario: TxnScenario,
    /// Its run.
    pub run: Rc<TxnRun>,
    /// The instant the readouts are read at, µs (`None`: the horizon).
    pub at_us: Option<u64>,
    /// Projector mode.
    pub projector: bool,
    /// Text typed into a field, by key, kept as typed.
    pub drafts: Vec<(String, String)>,
    /// Why a field's value (or the link, [`LINK_KEY`], or the instant, [`AT_KEY`]) was
    /// refused, by key.
    pub errors: Vec<(String, String)>,
}

impl PartialEq for State {
    fn eq(&self, o: &Self) -> bool {
        self.preset == o.preset
            && self.scenario == o.scenario
            && self.at_us == o.at_us
            && self.projector == o.projector
            && self.drafts == o.drafts
            && self.errors == o.errors
    }
}

impl Default for State {
    fn default() -> Self {
        State::of_preset(0)
    }
}

fn put(list: &mut Vec<(String, String)>, key: &str, text: Option<String>) {
    list.retain(|(k, _)| k != key);
    if let Some(text) = text {
        list.push((key.to_string(), text));
    }
}

impl State {
    /// Preset `index` (the first preset for an index past the list).
    pub fn of_preset(index: usize) -> State {
        let (index, scenario) = match presets::scenario(index) {
            Some(s) => (index, s),
            None => (0, presets::scenario(0).expect("the first preset reads")),
        };
        let run = simulate_transactions(&scenario).expect("every preset runs");
        State {
            preset: index,
            scenario,
            run: Rc::new(run),
            at_us: None,
            projector: false,
            drafts: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// `scenario` with its run, keeping the rest of this state (`None`: the core refuses it).
    pub fn with_scenario(&self, scenario: TxnScenario) -> Result<State, ScenarioError> {
        let run = simulate_transactions(&scenario)?;
        Ok(State { scenario, run: Rc::new(run), ..self.clone() })
    }

    /// Why the last input for `key` was refused, if it was.
    pub fn error(&self, key: &str) -> Option<&String> {
        self.errors.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// What field `key` shows: the text typed there, else its value.
    pub fn field_text(&self, key: &str) -> String {
        if let Some((_, d)) = self.drafts.iter().find(|(k, _)| k == key) {
            return d.clone();
        }
        let json = self.scenario.to_json_value();
        let (list, field) = split_key(key);
        let value = match list {
            Some((list, i)) => json.get(list).and_then(|l| l.get(i)).and_then(|o| o.get(field)).cloned(),
            None => json.get(field).cloned(),
        };
        match value {
            Some(Value::String(s)) => s,
            Some(v) => json_text(&v),
            None => String::new(),
        }
    }

    /// The instant the readouts are read at, µs.
    pub fn instant_us(&self) -> u64 {
        self.at_us.unwrap_or(self.scenario.horizon_us).min(self.scenario.horizon_us)
    }

    fn set(&self, key: &str, text: String) -> State {
        let millis = key.ends_with(".ms");
        let value = if millis { typed_value(&text) } else { Value::String(text.clone()) };
        let mut next = self.clone();
        let draft = millis.then_some(text);
        match with_key(&self.scenario, key, value).and_then(|s| self.with_scenario(s)) {
            Ok(accepted) => {
                next = accepted;
                put(&mut next.errors, key, None);
                put(&mut next.errors, LINK_KEY, None);
                put(&mut next.drafts, key, draft);
                // A value refused for a conflict (a timeout above the broker's maximum, a
                // commit style a client has not) may be fine now.
                for (k, text) in self.drafts.clone() {
                    if k != key && next.error(&k).is_some() {
                        let v = typed_value(&text);
                        if let Ok(again) = with_key(&next.scenario, &k, v).and_then(|s| next.with_scenario(s))
                        {
                            next = again;
                            put(&mut next.errors, &k, None);
                        }
                    }
                }
            }
            Err(e) => {
                put(&mut next.drafts, key, draft);
                put(&mut next.errors, key, Some(e.to_string()));
            }
        }
        next
    }
}

/// What the reader can do.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Open a preset (its index in [`PRESETS`]).
    Preset(usize),
    /// A field's new text or choice (`key` as in [`EditField::key`]).
    Set {
        /// The field.
        key: String,
        /// What was typed or chosen.
        text: String,
    },
    /// Read the readouts at this instant, µs (`None`: the horizon).
    At(Option<u64>),
    /// The seconds field's text.
    AtText(String),
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
            Action::Preset(i) if i < PRESETS.len() => {
                State { projector: self.projector, ..State::of_preset(i) }
            }
            Action::Preset(_) => return self,
            Action::Set { key, text } => self.set(&key, text),
            Action::At(at) => {
                let mut next =
                    State { at_us: at.map(|t| t.min(self.scenario.horizon_us)), ..(*self).clone() };
                if next.at_us == Some(self.scenario.horizon_us) {
                    next.at_us = None;
                }
                put(&mut next.errors, AT_KEY, None);
                put(&mut next.drafts, AT_KEY, None);
                next
            }
            Action::AtText(text) => {
                let mut next = (*self).clone();
                let horizon = self.scenario.horizon_us;
                match parse_seconds(&text) {
                    Ok(us) if us <= horizon => {
                        next.at_us = (us < horizon).then_some(us);
                        put(&mut next.errors, AT_KEY, None);
                    }
                    Ok(_) => put(
                        &mut next.errors,
                        AT_KEY,
                        Some(format!("the instant must be 0 to {} s (the horizon)", seconds_field(horizon))),
                    ),
                    Err(e) => put(&mut next.errors, AT_KEY, Some(format!("the instant: {e}"))),
                }
                put(&mut next.drafts, AT_KEY, Some(text));
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
    fn a_refused_value_keeps_the_scenario_and_names_the_key_and_range() {
        let s = apply(State::of_preset(1), [set(CLEANUP_KEY, "0")]);
        assert_eq!(s.scenario, presets::scenario(1).unwrap());
        assert_eq!(s.field_text(CLEANUP_KEY), "0");
        let e = s.error(CLEANUP_KEY).unwrap();
        assert!(e.contains(CLEANUP_KEY) && e.contains("1 to"), "{e}");
        // A value the core takes: the scan every 2 s finds tx-a past its 10 s at 12 s.
        let s = apply(s, [set(CLEANUP_KEY, "2000")]);
        assert!(s.error(CLEANUP_KEY).is_none());
        assert_eq!(s.run.timed_out_aborts[0].aborted_at_us, 12_000_000);
        let key = "producers[0].transaction.timeout.ms";
        let s = apply(s, [set(key, "4000000")]);
        assert!(s.error(key).unwrap().contains("transaction.max.timeout.ms"), "{:?}", s.errors);
        let s = apply(s, [set(key, "3000")]);
        // 1 s + 3 s = 4 s, a scan strictly after it: 6 s.
        assert_eq!(s.run.timed_out_aborts[0].aborted_at_us, 6_000_000);
    }

    #[test]
    fn a_commit_style_a_client_has_not_is_refused_with_the_cores_reason() {
        // Reader 10 of the first preset is kafka-go: it has no position to commit.
        let s = apply(State::default(), [set("readers[10].commit", "position")]);
        let e = s.error("readers[10].commit").unwrap();
        assert!(e.contains("kafka_go"), "{e}");
        let s = apply(s, [set("readers[1].isolation.level", "read_uncommitted")]);
        assert_eq!(s.run.readers[1].isolation, "read_uncommitted");
        assert_eq!(s.field_text("readers[1].isolation.level"), "read_uncommitted");
    }

    #[test]
    fn the_instant_moves_the_readouts_and_refuses_what_is_past_the_horizon() {
        let s = apply(State::of_preset(1), [Action::AtText("10".into())]);
        assert_eq!(s.at_us, Some(10_000_000));
        let s = apply(s, [Action::AtText("31".into())]);
        assert_eq!(s.at_us, Some(10_000_000));
        assert!(s.error(AT_KEY).unwrap().contains("0 to 30 s"));
        let s = apply(s, [Action::At(Some(5_000_000))]);
        assert_eq!((s.at_us, s.error(AT_KEY)), (Some(5_000_000), None));
        assert_eq!(apply(s, [Action::Reset]), State::default());
    }

    #[test]
    fn every_preset_opens_and_an_unchanged_state_is_the_same_rc() {
        let s = Rc::new(State::default());
        for i in 0..PRESETS.len() {
            let next = s.clone().apply(Action::Preset(i));
            assert_eq!(next.preset, i);
            assert_eq!(next.run.readers.len(), next.scenario.readers.len());
        }
        assert!(Rc::ptr_eq(&s, &s.clone().apply(Action::Preset(0))));
        assert!(Rc::ptr_eq(&s, &s.clone().apply(Action::Preset(99))));
    }

    #[test]
    fn fields_name_the_keys_the_core_names() {
        let f = fields(&presets::scenario(3).unwrap());
        let keys: Vec<_> = f.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(
            keys[..3],
            [CLEANUP_KEY, "producers[0].transaction.timeout.ms", "producers[1].transaction.timeout.ms"]
        );
        assert!(f[0].hint.contains("1 to 2147483647 ms"), "{}", f[0].hint);
    }
}
