//! The transactions page's link (the URL fragment): the preset it started from
//! (`preset=killed-producer`; none for the first), the scenario's top-level keys that differ
//! from that preset's (`key=value`: strings as they are, other values as JSON, as the other
//! pages write theirs), the instant (`at=10.5`, seconds) and `projector=1`. A link reopens
//! the page; a bad pair is named and left out, the rest applies.

use super::presets::{self, PRESETS};
use super::state::{State, LINK_KEY};
use crate::kit::link::{encode, pairs, preset_index, refused_notice};
use crate::kit::text::{parse_seconds, seconds_field};
use offset_window_sim::keys::json_text;
use offset_window_sim::transactions::TxnScenario;
use serde_json::Value;

/// The fragment (without `#`, percent-encoded) for `state`; empty at the defaults.
pub fn fragment(state: &State) -> String {
    let mut pairs = Vec::new();
    if state.preset != 0 {
        pairs.push(format!("preset={}", PRESETS[state.preset].slug));
    }
    let base = presets::scenario(state.preset).map(|s| s.to_json_value()).unwrap_or(Value::Null);
    if let Value::Object(map) = state.scenario.to_json_value() {
        for (k, v) in map {
            if base.get(&k) != Some(&v) {
                let text = match v {
                    Value::String(s) => s,
                    other => json_text(&other),
                };
                pairs.push(format!("{}={}", encode(&k), encode(&text)));
            }
        }
    }
    if let Some(at) = state.at_us {
        pairs.push(format!("at={}", seconds_field(at)));
    }
    if state.projector {
        pairs.push("projector=1".into());
    }
    pairs.join("&")
}

/// The state a fragment (with or without `#`, percent-encoded) describes. A pair the core
/// refuses is left out and named under [`LINK_KEY`]; the rest applies.
pub fn state_from(fragment: &str) -> State {
    let pairs = pairs(fragment.trim());
    let mut refused = Vec::new();
    let slugs: Vec<&str> = PRESETS.iter().map(|p| p.slug).collect();
    let preset = preset_index(&pairs, &slugs, &mut refused);
    let mut state = State::of_preset(preset);
    let mut json = state.scenario.to_json_value();
    for (key, value) in &pairs {
        match key.as_str() {
            "preset" => {}
            "projector" => state.projector = value == "1",
            "at" => match parse_seconds(value) {
                Ok(us) if us < state.scenario.horizon_us => state.at_us = Some(us),
                Ok(_) => {}
                Err(e) => refused.push(format!("The link's at={value} was not used: {e}")),
            },
            _ => {
                let parsed = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.clone()));
                let mut next = json.clone();
                next[key.as_str()] = parsed;
                match TxnScenario::from_value(&next) {
                    Ok(_) => json = next,
                    Err(e) => refused.push(format!("The link's {key}={value} was not used: {e}")),
                }
            }
        }
    }
    match TxnScenario::from_value(&json).and_then(|s| state.with_scenario(s)) {
        Ok(next) => state = next,
        Err(e) => refused.push(format!("The link's scenario was not used as a whole: {e}")),
    }
    if state.at_us.is_some_and(|t| t >= state.scenario.horizon_us) {
        state.at_us = None;
    }
    if let Some(text) = refused_notice(refused) {
        state.errors.push((LINK_KEY.into(), text));
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transactions::state::{Action, CLEANUP_KEY};
    use std::rc::Rc;

    #[test]
    fn a_link_reopens_the_page() {
        assert_eq!(fragment(&State::default()), "");
        assert_eq!(state_from(""), State::default());
        let s = Rc::new(State::of_preset(1))
            .apply(Action::Set { key: CLEANUP_KEY.into(), text: "2000".into() })
            .apply(Action::Set { key: "readers[1].commit".into(), text: "last_record_plus_one".into() })
            .apply(Action::At(Some(10_500_000)))
            .apply(Action::Projector(true));
        let link = fragment(&s);
        assert!(link.starts_with("preset=killed-producer&"), "{link}");
        assert!(link.contains("at=10.5") && link.contains("projector=1"), "{link}");
        let back = state_from(&format!("#{link}"));
        assert_eq!(back.scenario, s.scenario);
        assert_eq!((back.preset, back.at_us, back.projector), (1, Some(10_500_000), true));
        assert!(back.errors.is_empty(), "{:?}", back.errors);
        for (i, p) in PRESETS.iter().enumerate() {
            let s = State::of_preset(i);
            assert_eq!(state_from(&fragment(&s)), s, "{}", p.slug);
        }
    }

    #[test]
    fn a_bad_link_names_the_key_and_keeps_a_working_page() {
        let s = state_from("preset=aborted&horizon_ms=-5&at=x");
        assert_eq!(s.preset, 2);
        assert_eq!(s.scenario, presets::scenario(2).unwrap());
        let e = s.error(LINK_KEY).unwrap();
        assert!(e.contains("horizon_ms") && e.contains("at=x"), "{e}");
        let s = state_from("preset=nope&transaction.version=7");
        let e = s.error(LINK_KEY).unwrap();
        assert!(e.contains("preset=nope") && e.contains("transaction.version"), "{e}");
        assert_eq!(s.scenario, presets::scenario(0).unwrap());
    }
}
