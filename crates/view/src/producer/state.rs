//! The producer page's state: one [`State`] holding an always-valid [`ProducerScenario`],
//! [`Action`]s and a pure reducer ([`State::apply`]), and the link codec.

use crate::kit::fields::typed_value;
use crate::kit::link::{decode, encode};
use offset_window_sim::keys::json_text;
use offset_window_sim::producer::{Acks, Fault, FaultKind, ProducerScenario};
use offset_window_sim::scenario::US_PER_MS;
use serde_json::Value;
use std::rc::Rc;

/// How `enable.idempotence` is set: the client treats a value left at its default
/// differently from the same value set explicitly (a weaker `acks` then turns it off
/// instead of being refused).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Idempotence {
    /// Left at its default (true).
    Default,
    /// `enable.idempotence=true`, set explicitly.
    On,
    /// `enable.idempotence=false`.
    Off,
}

impl Idempotence {
    /// Every choice, as the select lists them.
    pub const ALL: [Idempotence; 3] = [Idempotence::Default, Idempotence::On, Idempotence::Off];

    /// The select's value.
    pub fn name(self) -> &'static str {
        match self {
            Idempotence::Default => "default",
            Idempotence::On => "true",
            Idempotence::Off => "false",
        }
    }

    /// The select's words.
    pub fn label(self) -> &'static str {
        match self {
            Idempotence::Default => "left at its default (true)",
            Idempotence::On => "true (set explicitly)",
            Idempotence::Off => "false",
        }
    }

    /// How `scenario` sets it.
    pub fn of(scenario: &ProducerScenario) -> Idempotence {
        match scenario.enable_idempotence {
            None => Idempotence::Default,
            Some(true) => Idempotence::On,
            Some(false) => Idempotence::Off,
        }
    }

    fn apply(self, s: &mut ProducerScenario) {
        s.enable_idempotence = match self {
            Idempotence::Default => None,
            Idempotence::On => Some(true),
            Idempotence::Off => Some(false),
        };
    }
}

/// The numeric fields of the view: scenario key, unit.
pub const FIELDS: [(&str, &str); 4] = [
    ("max.in.flight.requests.per.connection", "requests"),
    ("batch.size", "records"),
    ("linger.ms", "ms"),
    ("request.timeout.ms", "ms"),
];

/// The key under which a refused fault placement's message is kept.
pub const FAULTS_KEY: &str = "faults";

/// The key under which a refused link's message is kept.
pub const LINK_KEY: &str = "link";

/// The producer view's state: a valid scenario, the fault kind the mouse places, the
/// instant the log and memory are shown at, the tour step, and refused input.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The scenario shown; always valid.
    pub scenario: ProducerScenario,
    /// What a click on the time axis places.
    pub kind: FaultKind,
    /// Show the log and the leader's memory as they were at this instant, µs (`None`: at
    /// the end).
    pub at_us: Option<u64>,
    /// The tour step being shown, if any.
    pub tour: Option<usize>,
    /// Text typed into a field, by key, kept as typed until the value changes another way.
    pub drafts: Vec<(&'static str, String)>,
    /// Why a field's text (or a placement, under [`FAULTS_KEY`]) was refused, by key.
    pub errors: Vec<(&'static str, String)>,
    /// Projector mode (the link's `projector=1`).
    pub projector: bool,
    /// The scenario chosen from the list (a tour step's), while it is unchanged.
    pub preset: Option<usize>,
}

impl Default for State {
    fn default() -> Self {
        State {
            scenario: ProducerScenario::default(),
            kind: FaultKind::AckLost,
            at_us: None,
            tour: None,
            drafts: Vec::new(),
            errors: Vec::new(),
            projector: false,
            preset: None,
        }
    }
}

fn get<'a>(list: &'a [(&'static str, String)], key: &str) -> Option<&'a String> {
    list.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
}

fn put(list: &mut Vec<(&'static str, String)>, key: &'static str, text: Option<String>) {
    list.retain(|(k, _)| *k != key);
    if let Some(text) = text {
        list.push((key, text));
    }
}

impl State {
    /// Why the last input for `key` was refused, if it was.
    pub fn error(&self, key: &str) -> Option<&String> {
        get(&self.errors, key)
    }

    /// What the field `key` shows: the text typed there, else the value (ms for `*.ms`).
    pub fn field_text(&self, key: &str) -> String {
        if let Some(draft) = get(&self.drafts, key) {
            return draft.clone();
        }
        match self.scenario.to_json_value().get(key) {
            Some(Value::String(s)) => s.clone(),
            Some(v) => json_text(v),
            None => String::new(),
        }
    }

    /// Applies `change` to a copy of the scenario: kept if the core accepts it (then any
    /// field refused earlier is tried again, since the conflict may be gone), else the
    /// core's message is kept under `key`.
    fn try_change(
        &self,
        key: &'static str,
        draft: Option<String>,
        change: impl FnOnce(&mut ProducerScenario) -> Result<(), offset_window_sim::ScenarioError>,
    ) -> State {
        let mut next = self.clone();
        let mut candidate = self.scenario.clone();
        match change(&mut candidate).and_then(|()| candidate.validate()) {
            Ok(()) => {
                next.scenario = candidate;
                put(&mut next.errors, key, None);
                put(&mut next.errors, LINK_KEY, None);
                put(&mut next.drafts, key, draft);
                next.at_us = None;
                // A field refused for a conflict (acks=1 with idempotence set explicitly, …)
                // may be fine now.
                for (k, text) in self.drafts.clone() {
                    if k != key && get(&next.errors, k).is_some() {
                        let mut again = next.scenario.clone();
                        if again.set_key(k, &typed_value(&text)).and_then(|()| again.validate()).is_ok() {
                            next.scenario = again;
                            put(&mut next.errors, k, None);
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

    /// The state a click places: `fault`, or removes an equal one already there (a second
    /// click on the same spot takes it away).
    fn toggle(&self, fault: Fault) -> State {
        let mut next = self.try_change(FAULTS_KEY, None, |s| {
            match s.faults.iter().position(|f| *f == fault) {
                Some(i) => {
                    s.faults.remove(i);
                }
                None => s.faults.push(fault),
            }
            Ok(())
        });
        next.tour = None;
        next
    }
}

/// What the reader can do to the producer view.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Text typed into a numeric field (a name from [`FIELDS`]).
    SetField {
        /// The scenario key.
        key: &'static str,
        /// The text as typed (milliseconds for `*.ms`).
        text: String,
    },
    /// Choose how `enable.idempotence` is set.
    SetIdempotence(Idempotence),
    /// Choose `acks`.
    SetAcks(Acks),
    /// Choose what a click on the time axis places.
    Choose(FaultKind),
    /// Place a fault (or remove an equal one).
    Toggle(Fault),
    /// Remove the fault at this index.
    Remove(usize),
    /// A placement typed without the mouse could not be read: show `message` under the
    /// faults (nothing placed).
    RefusePlacement(String),
    /// Show the log and memory at an instant, µs (`None`: the end).
    ShowAt(Option<u64>),
    /// Go to a tour step (`None`: leave the tour).
    Tour(Option<usize>),
    /// Show a tour step's scenario from the list, outside the tour.
    Preset(usize),
    /// Projector mode on or off.
    Projector(bool),
    /// Back to the defaults.
    Reset,
}

crate::kit::reducible!(State, Action);

impl State {
    /// The state after `action` (the same `Rc` when nothing changes).
    pub fn apply(self: Rc<Self>, action: Action) -> Rc<Self> {
        let chosen = matches!(action, Action::Preset(_));
        let mut next = match action {
            Action::SetField { key, text } => {
                let value = typed_value(&text);
                self.try_change(key, Some(text), |s| s.set_key(key, &value))
            }
            Action::SetIdempotence(choice) => self.try_change("enable.idempotence", None, |s| {
                choice.apply(s);
                Ok(())
            }),
            Action::SetAcks(acks) => self.try_change("acks", None, |s| {
                s.acks = acks;
                Ok(())
            }),
            Action::Choose(kind) => State { kind, ..(*self).clone() },
            Action::Toggle(fault) => self.toggle(fault),
            Action::Remove(i) => {
                let mut next = self.try_change(FAULTS_KEY, None, |s| {
                    if i < s.faults.len() {
                        s.faults.remove(i);
                    }
                    Ok(())
                });
                next.tour = None;
                next
            }
            Action::RefusePlacement(message) => {
                let mut next = (*self).clone();
                put(&mut next.errors, FAULTS_KEY, Some(message));
                next
            }
            Action::ShowAt(at_us) => State { at_us, ..(*self).clone() },
            Action::Tour(None) => State { tour: None, ..(*self).clone() },
            Action::Tour(Some(step)) => match super::tour::STEPS.get(step) {
                Some(s) => State {
                    scenario: (s.scenario)(),
                    tour: Some(step),
                    kind: s.kind,
                    projector: self.projector,
                    ..State::default()
                },
                None => return self,
            },
            Action::Preset(i) => match super::tour::STEPS.get(i) {
                Some(s) => State {
                    scenario: (s.scenario)(),
                    kind: s.kind,
                    preset: Some(i),
                    projector: self.projector,
                    ..State::default()
                },
                None => return self,
            },
            Action::Projector(on) => State { projector: on, ..(*self).clone() },
            Action::Reset => State { projector: self.projector, ..State::default() },
        };
        if !chosen && next.scenario != self.scenario {
            next.preset = None;
        }
        crate::kit::same_or_new(self, next)
    }
}

/// The URL fragment (without `#`, percent-encoded) for a scenario: the keys that differ
/// from the defaults as `key=value` pairs, as the consumer and group pages write theirs
/// (`acks=1&faults=%5B…%5D`: strings as they are, other values as JSON); empty for the
/// defaults. A link with it reproduces the view.
pub fn fragment(scenario: &ProducerScenario) -> String {
    let defaults = ProducerScenario::default().to_json_value();
    let Value::Object(map) = scenario.to_json_value() else { return String::new() };
    map.into_iter()
        .filter(|(k, v)| defaults.get(k) != Some(v))
        .map(|(k, v)| {
            let text = match v {
                Value::String(s) => s,
                other => json_text(&other),
            };
            format!("{}={}", encode(&k), encode(&text))
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// The state a fragment (without `#`, still percent-encoded) describes. `key=value` pairs
/// apply one by one: a pair the core refuses is left out and named under [`LINK_KEY`], the
/// rest apply; a combination the core refuses as a whole gives the defaults and its message.
/// A fragment holding one JSON object (this page's links before, `#{"acks":"1"}`) is read
/// as the scenario whole.
pub fn state_from(fragment: &str) -> State {
    let text = fragment.trim_start_matches('#').trim();
    if text.is_empty() {
        return State::default();
    }
    let whole = decode(text);
    if whole.trim_start().starts_with('{') {
        return match ProducerScenario::from_json(&whole) {
            Ok(scenario) => State { scenario, ..State::default() },
            Err(e) => State { errors: vec![(LINK_KEY, e.to_string())], ..State::default() },
        };
    }
    let mut scenario = ProducerScenario::default();
    let mut refused = Vec::new();
    let mut projector = false;
    for pair in text.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let (key, value) = (decode(key), decode(value));
        if key == "projector" {
            projector = value == "1";
            continue;
        }
        let mut next = scenario.clone();
        let parsed = serde_json::from_str(&value).unwrap_or_else(|_| Value::String(value.clone()));
        let set = next.set_key(&key, &parsed).or_else(|e| {
            // Strings are written as they are: "1" may be acks' string.
            next.set_key(&key, &Value::String(value.clone())).map_err(|_| e)
        });
        match set {
            Ok(()) => scenario = next,
            Err(e) => refused.push(e.to_string()),
        }
    }
    if let Err(e) = scenario.validate() {
        return State { errors: vec![(LINK_KEY, e.to_string())], projector, ..State::default() };
    }
    let errors = if refused.is_empty() { Vec::new() } else { vec![(LINK_KEY, refused.join("; "))] };
    State { scenario, errors, projector, ..State::default() }
}

/// The link's fragment for `state`: its scenario's ([`fragment`]) and `projector=1` in
/// projector mode.
pub fn link(state: &State) -> String {
    let scenario = fragment(&state.scenario);
    match (state.projector, scenario.is_empty()) {
        (false, _) => scenario,
        (true, true) => "projector=1".to_string(),
        (true, false) => format!("{scenario}&projector=1"),
    }
}

/// A clicked instant rounded to whole milliseconds (a reader places faults at round
/// instants), kept exact below 1 ms.
pub fn round_ms(us: u64) -> u64 {
    if us >= US_PER_MS {
        (us + US_PER_MS / 2) / US_PER_MS * US_PER_MS
    } else {
        us
    }
}

/// The fault a click places: `kind` at instant `at_us` on the lane of `batch` (if the
/// click was on one) and the send `attempt` of that batch under the pointer. `None` when
/// the kind needs a batch and the click was on none.
pub fn fault_for_click(
    kind: FaultKind,
    batch: Option<u32>,
    attempt: Option<u32>,
    at_us: u64,
) -> Option<Fault> {
    let at = Some(round_ms(at_us));
    Some(match kind {
        FaultKind::RequestLost | FaultKind::AckLost => {
            Fault { kind, at_us: None, batch: Some(batch?), attempt: attempt.unwrap_or(1) }
        }
        FaultKind::LeaderFailover | FaultKind::ProducerRestart => {
            Fault { kind, at_us: at, batch: None, attempt: 1 }
        }
        FaultKind::Zombie | FaultKind::OldDuplicate => {
            Fault { kind, at_us: at, batch: Some(batch.unwrap_or(1)), attempt: 1 }
        }
    })
}

/// Words for a fault kind.
pub fn kind_label(kind: FaultKind) -> &'static str {
    match kind {
        FaultKind::RequestLost => "request lost",
        FaultKind::AckLost => "ack lost",
        FaultKind::LeaderFailover => "leader failover",
        FaultKind::ProducerRestart => "producer restart",
        FaultKind::Zombie => "zombie (older epoch)",
        FaultKind::OldDuplicate => "old duplicate",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_from_the_list_and_projector_mode_in_the_link() {
        // Issue 28's trial: the producer page had neither. A step's scenario from the list
        // (outside the tour); a change of the scenario leaves the list's choice; projector
        // mode survives the list, the tour and the reset, and the link keeps it.
        let s = apply(State::default(), [Action::Projector(true), Action::Preset(0)]);
        assert_eq!((s.preset, s.tour, s.projector), (Some(0), None, true));
        assert_eq!(s.scenario, (super::super::tour::STEPS[0].scenario)());
        assert_eq!(link(&s), format!("{}&projector=1", fragment(&s.scenario)));
        let back = state_from(&link(&s));
        assert_eq!((back.scenario == s.scenario, back.projector), (true, true));
        assert!(state_from("projector=1").projector);
        let changed = apply(s.clone(), [Action::Remove(0)]);
        assert_eq!((changed.preset, changed.projector), (None, true));
        let toured = apply(s.clone(), [Action::Tour(Some(1)), Action::Reset]);
        assert_eq!(
            (toured.tour, toured.projector, toured.scenario.clone()),
            (None, true, ProducerScenario::default())
        );
        assert_eq!(link(&apply(toured, [Action::Projector(false)])), "");
    }

    fn apply(state: State, actions: impl IntoIterator<Item = Action>) -> State {
        crate::kit::apply_all(state, actions, State::apply)
    }

    #[test]
    fn a_refused_field_keeps_the_scenario_and_names_the_key() {
        let set = |text: &str| Action::SetField { key: "batch.size", text: text.into() };
        let s = apply(State::default(), [set("0")]);
        assert_eq!(s.scenario, ProducerScenario::default());
        assert_eq!(s.field_text("batch.size"), "0");
        let e = s.error("batch.size").unwrap();
        assert!(e.contains("batch.size") && e.contains("1 to 10000"), "{e}");
        let s = apply(s, [set("4")]);
        assert_eq!(s.scenario.batch_size_records, 4);
        assert!(s.error("batch.size").is_none());
    }

    #[test]
    fn a_conflict_refused_before_is_taken_once_it_is_gone() {
        // Idempotence set explicitly refuses more than 5 requests in flight; turning it off
        // takes the 6 typed before.
        let s = apply(
            State::default(),
            [
                Action::SetIdempotence(Idempotence::On),
                Action::SetField { key: "max.in.flight.requests.per.connection", text: "6".into() },
            ],
        );
        assert!(s.error("max.in.flight.requests.per.connection").is_some());
        assert_eq!(s.scenario.max_in_flight_requests, 5);
        let s = apply(s, [Action::SetIdempotence(Idempotence::Off)]);
        assert_eq!(s.scenario.max_in_flight_requests, 6);
        assert!(s.error("max.in.flight.requests.per.connection").is_none());
    }

    #[test]
    fn a_second_click_on_a_fault_takes_it_away() {
        let fault = Fault { kind: FaultKind::AckLost, at_us: None, batch: Some(2), attempt: 1 };
        let s = apply(State::default(), [Action::Toggle(fault)]);
        assert_eq!(s.scenario.faults, [fault]);
        let s = apply(s, [Action::Toggle(fault)]);
        assert!(s.scenario.faults.is_empty());
        assert_eq!(apply(s, [Action::Reset]), State::default());
    }

    #[test]
    fn a_link_reproduces_the_scenario_and_names_what_it_refuses() {
        let fault = Fault { kind: FaultKind::AckLost, at_us: None, batch: Some(1), attempt: 1 };
        let s = apply(
            State::default(),
            [
                Action::SetAcks(Acks::Leader),
                Action::Toggle(fault),
                Action::SetField { key: "linger.ms", text: "7.5".into() },
            ],
        );
        let link = fragment(&s.scenario);
        assert!(link.contains("acks=1") && link.contains("faults="), "{link}");
        assert_eq!(state_from(&link).scenario, s.scenario);
        assert_eq!(fragment(&ProducerScenario::default()), "");
        // A refused pair is left out and named; the rest applies.
        let read = state_from("acks=1&batch.size=0");
        assert_eq!(read.scenario.acks, Acks::Leader);
        assert!(read.error(LINK_KEY).unwrap().contains("batch.size"), "{:?}", read.errors);
        // The older links: one JSON object.
        assert_eq!(state_from(&format!("#{}", encode(r#"{"acks":"1"}"#))).scenario.acks, Acks::Leader);
    }
}
