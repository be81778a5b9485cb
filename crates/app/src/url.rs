//! The page's state in the URL fragment, so that a link reproduces what the reader sees:
//! `#strategy=commit_sync_batch&crash_at_us=5000001`. Only keys that differ from the
//! defaults are written; scenario keys keep their JSON names and values (milliseconds as
//! exact decimals, lists and null as JSON, percent-encoded), the crash instant is in µs,
//! the tour's step is `step` (1-based). Reading goes through the reducer, so a bad value in
//! a link shows the same message as a bad value typed into its field, and a notice naming
//! it.

use crate::state::{Action, State};
use offset_window_sim::scenario::{key_spec, KeyKind, KEYS};
use offset_window_sim::{Scenario, Strategy};
use serde_json::Value;
use std::rc::Rc;
use yew::Reducible;

/// The key of the crash instant, µs.
pub const CRASH_KEY: &str = "crash_at_us";
/// The key of the tour's step, 1-based.
pub const STEP_KEY: &str = "step";

fn text(value: Option<Value>) -> String {
    match value {
        Some(Value::String(s)) => s,
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

fn encode(s: &str) -> String {
    String::from(js_sys::encode_uri_component(s))
}

fn decode(s: &str) -> String {
    js_sys::decode_uri_component(s).map(String::from).unwrap_or_else(|_| s.to_string())
}

/// The fragment (without `#`) for a scenario and crash instant; empty for the defaults.
pub fn fragment(scenario: &Scenario, crash_at_us: u64) -> String {
    join(scenario_fragment(scenario), crash_at_us, None)
}

/// The scenario's part of a fragment: its keys that differ from the defaults (the crash
/// instant aside). The costly part (every key read as JSON): the page memoises it on the
/// scenario, so that moving the crash does not recompute it.
pub fn scenario_fragment(scenario: &Scenario) -> String {
    let defaults = Scenario::default();
    KEYS.iter()
        .filter(|k| scenario.get(k.name) != defaults.get(k.name))
        .map(|k| format!("{}={}", k.name, encode(&text(scenario.get(k.name)))))
        .collect::<Vec<_>>()
        .join("&")
}

/// A whole fragment from the scenario's part ([`scenario_fragment`]), the crash instant (µs)
/// and the tour's step (0-based; written 1-based).
pub fn join(scenario_part: String, crash_at_us: u64, tour_step: Option<usize>) -> String {
    let mut parts = scenario_part;
    let mut push = |part: String| {
        if !parts.is_empty() {
            parts.push('&');
        }
        parts.push_str(&part);
    };
    if crash_at_us != offset_window_sim::scenario::DEFAULT_CRASH_AT_US {
        push(format!("{CRASH_KEY}={crash_at_us}"));
    }
    if let Some(n) = tour_step {
        push(format!("{STEP_KEY}={}", n + 1));
    }
    parts
}

/// The fragment of a whole page state: [`fragment`] plus the tour's step.
pub fn state_fragment(state: &State) -> String {
    join(scenario_fragment(&state.scenario), state.crash_at_us, state.tour_step)
}

/// The state a fragment describes: the defaults (or the tour step named), then each pair
/// applied as the action a reader would take (`client` first, since it decides which
/// strategies are allowed; the crash last, once the horizon is known). A value the page
/// refuses or does not know leaves a notice naming it.
pub fn state_from(fragment: &str) -> State {
    let mut pairs: Vec<(String, String)> = fragment
        .trim_start_matches('#')
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect();
    pairs.sort_by_key(|(k, _)| k != "client");
    let mut state = Rc::new(State::default());
    let mut notices = Vec::new();
    let mut crash = None;
    let mut step = None;
    for (key, value) in &pairs {
        let action = match key.as_str() {
            CRASH_KEY => {
                crash = Some(value.clone());
                continue;
            }
            STEP_KEY => {
                match value.parse::<usize>() {
                    Ok(n) if (1..=crate::tour::STEPS).contains(&n) => step = Some(n - 1),
                    _ => notices.push(format!(
                        "The link's step={value} was not used: the tour has steps 1 to {}.",
                        crate::tour::STEPS
                    )),
                }
                continue;
            }
            "strategy" => match Strategy::from_name(value) {
                Some(s) => Action::SetStrategy(s),
                None => {
                    notices.push(format!("The link's strategy={value} was not used: no such strategy."));
                    continue;
                }
            },
            "worker_pool" => match value.as_str() {
                "true" | "false" => Action::SetWorkerPool(value == "true"),
                _ => {
                    notices
                        .push(format!("The link's worker_pool={value} was not used: it is true or false."));
                    continue;
                }
            },
            _ => match key_spec(key) {
                Some(spec) => match spec.kind {
                    KeyKind::Choice(_) => Action::SetChoice { key: spec.name, value: value.clone() },
                    KeyKind::Structured(_)
                    | KeyKind::CountList { .. }
                    | KeyKind::Flag
                    | KeyKind::OptionalFlag => match serde_json::from_str::<Value>(value) {
                        Ok(v) => Action::SetValue { key: spec.name, value: v },
                        Err(_) => Action::SetValue { key: spec.name, value: Value::String(value.clone()) },
                    },
                    _ => Action::SetField { key: spec.name, text: value.clone() },
                },
                None => {
                    notices.push(format!(
                        "The link's {key}={value} was not used: the page has no such setting."
                    ));
                    continue;
                }
            },
        };
        state = state.reduce(action);
    }
    if let Some(n) = step {
        // A step alone sets every control; beside other keys it must agree with them.
        let own = crate::tour::state(n);
        if pairs.iter().all(|(k, _)| k == STEP_KEY) {
            state = Rc::new(own);
        } else if state.scenario == own.scenario {
            Rc::make_mut(&mut state).tour_step = Some(n);
        } else {
            // The caption would describe settings the page does not show.
            notices.push(format!(
                "The link's step={} was not used: its other settings are not that tour step's.",
                n + 1
            ));
        }
    }
    if let Some(us) = crash {
        state = match us.parse::<u64>() {
            Ok(us) => {
                let horizon = state.scenario.horizon_us;
                if !(1..=horizon).contains(&us) {
                    notices.push(format!(
                        "The link's {CRASH_KEY}={us} is outside 1 to {horizon} µs: the crash is put at {} µs.",
                        us.clamp(1, horizon)
                    ));
                }
                state.reduce(Action::SetCrash(us))
            }
            Err(_) => state.reduce(Action::SetCrashText(us)),
        };
    }
    let mut state = Rc::unwrap_or_clone(state);
    for (key, message) in state.errors.iter() {
        let shown = pairs.iter().find(|(k, _)| k == key || (key == "crash" && k == CRASH_KEY));
        let value = shown.map(|(_, v)| v.as_str()).unwrap_or("");
        notices.push(format!(
            "The link's {}={value} was not used, the page shows the last good value instead: {message}",
            if key == "crash" { CRASH_KEY } else { key }
        ));
    }
    state.notices = notices;
    state
}
