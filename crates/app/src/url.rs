//! The page's state in the URL fragment, so that a link reproduces what the reader sees:
//! `#strategy=commit_sync_batch&crash_at_us=5000001`. Only keys that differ from the
//! defaults are written; scenario keys keep their JSON names and values (milliseconds as
//! exact decimals), the crash instant is in µs. Reading goes through the reducer, so a bad
//! value in a link shows the same message as a bad value typed into its field.

use crate::state::{Action, State};
use offset_window_sim::scenario::{key_spec, KEYS};
use offset_window_sim::{Scenario, Strategy};
use serde_json::Value;
use std::rc::Rc;
use yew::Reducible;

/// The key of the crash instant, µs.
pub const CRASH_KEY: &str = "crash_at_us";

fn text(value: Option<Value>) -> String {
    match value {
        Some(Value::String(s)) => s,
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// The fragment (without `#`) for a scenario and crash instant; empty for the defaults.
pub fn fragment(scenario: &Scenario, crash_at_us: u64) -> String {
    let defaults = Scenario::default();
    let mut parts: Vec<String> = KEYS
        .iter()
        .filter(|k| k.name != "crash_at_ms" && scenario.get(k.name) != defaults.get(k.name))
        .map(|k| format!("{}={}", k.name, text(scenario.get(k.name))))
        .collect();
    if crash_at_us != defaults.crash_at_us {
        parts.push(format!("{CRASH_KEY}={crash_at_us}"));
    }
    parts.join("&")
}

/// The state a fragment describes: the defaults, then each pair applied as the action a
/// reader would take (the crash last, once the horizon is known). Unknown keys are ignored.
pub fn state_from(fragment: &str) -> State {
    let mut state = Rc::new(State::default());
    let mut crash = None;
    for pair in fragment.trim_start_matches('#').split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let action = match key {
            CRASH_KEY => {
                crash = Some(value.to_string());
                continue;
            }
            "strategy" => match Strategy::from_name(value) {
                Some(s) => Action::SetStrategy(s),
                None => continue,
            },
            "worker_pool" => Action::SetWorkerPool(value == "true"),
            _ => match key_spec(key) {
                Some(spec) => Action::SetField { key: spec.name, text: value.to_string() },
                None => continue,
            },
        };
        state = state.reduce(action);
    }
    if let Some(us) = crash {
        state = match us.parse::<u64>() {
            Ok(us) => state.reduce(Action::SetCrash(us)),
            Err(_) => state.reduce(Action::SetCrashText(us)),
        };
    }
    Rc::unwrap_or_clone(state)
}
