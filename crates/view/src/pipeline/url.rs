//! The pipeline page's link (the URL fragment): the preset it started from
//! (`preset=zombie`; none for the first), the scenario's top-level keys that differ from that
//! preset's (`key=value`: strings as they are, other values as JSON, as the other pages write
//! theirs), the first event's instant (a crash, a hang or a join) when only it moved (`crash=6.25`,
//! seconds) and
//! `projector=1`. A link naming a preset whose file the page has not fetched yet asks for it
//! ([`State::pending_preset`]; the page fetches it and reads the link again). A bad pair is
//! named and left out, the rest applies; a crash past the horizon is clamped to it, and the
//! page says so.

use super::presets::{self, PRESETS};
use super::state::{first_event, State, LINK_KEY};
use crate::kit::link::{encode, pairs, preset_index, refused_notice};
use crate::kit::text::{parse_seconds, seconds_field};
use offset_window_sim::keys::json_text;
use offset_window_sim::pipeline::PipelineScenario;
use serde_json::Value;

/// The link key of the first event's instant (crash, hang or join), seconds.
pub const CRASH_LINK: &str = "crash";

fn base(preset: usize) -> Value {
    presets::scenario(preset)
        .or_else(|| presets::scenario(0))
        .map(|s| s.to_json_value())
        .unwrap_or(Value::Null)
}

/// The fragment (without `#`, percent-encoded) for `state`; empty at the defaults.
pub fn fragment(state: &State) -> String {
    let mut pairs = Vec::new();
    if state.preset != 0 {
        pairs.push(format!("preset={}", PRESETS[state.preset].slug));
    }
    let base = base(state.preset);
    let mut json = state.scenario.to_json_value();
    // Only the first event's instant moved: `crash=` rather than the events' JSON.
    let mut crash = None;
    if let Some(i) = first_event(&state.scenario) {
        let mut moved = json["events"].clone();
        if let Some(at) = base["events"].get(i).and_then(|e| e.get("at_ms")).cloned() {
            moved[i]["at_ms"] = at;
            if base.get("events") == Some(&moved) && json["events"] != moved {
                crash = Some(state.scenario.events[i].at_us);
                json["events"] = moved;
            }
        }
    }
    if let Value::Object(map) = json {
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
    if let Some(at) = crash {
        pairs.push(format!("{CRASH_LINK}={}", seconds_field(at)));
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
    let Some(mut state) = State::of_preset(preset) else {
        // Its file is not here yet: the page fetches it, then reads the link again.
        return State { pending_preset: Some(preset), ..State::default() };
    };
    let mut json = state.scenario.to_json_value();
    let mut crash = None;
    for (key, value) in &pairs {
        match key.as_str() {
            "preset" => {}
            "projector" => state.projector = value == "1",
            CRASH_LINK => crash = Some(value.clone()),
            _ => {
                let parsed = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.clone()));
                let mut next = json.clone();
                next[key.as_str()] = parsed;
                match PipelineScenario::from_value(&next) {
                    Ok(_) => json = next,
                    Err(e) => refused.push(format!("The link's {key}={value} was not used: {e}")),
                }
            }
        }
    }
    match PipelineScenario::from_value(&json).and_then(|s| state.with_scenario(s)) {
        Ok(next) => state = next,
        Err(e) => refused.push(format!("The link's scenario was not used as a whole: {e}")),
    }
    if let Some(value) = crash {
        let horizon = state.scenario.horizon_us;
        match (parse_seconds(&value), first_event(&state.scenario)) {
            (Err(e), _) => refused.push(format!("The link's {CRASH_LINK}={value} was not used: {e}")),
            (Ok(_), None) => refused.push(format!(
                "The link's {CRASH_LINK}={value} was not used: this scenario has no crash, hang or join"
            )),
            (Ok(us), Some(i)) => {
                let at = if us > horizon {
                    refused.push(format!(
                        "The link's {CRASH_LINK}={value} is outside 0 to {} s (the horizon): the {} is at {} s.",
                        seconds_field(horizon),
                        state.event_word(),
                        seconds_field(horizon)
                    ));
                    horizon
                } else {
                    us
                };
                let mut s = state.scenario.clone();
                s.events[i].at_us = at;
                match s.validate().and_then(|()| state.with_scenario(s)) {
                    Ok(next) => state = next,
                    Err(e) => refused.push(format!("The link's {CRASH_LINK}={value} was not used: {e}")),
                }
            }
        }
    }
    if let Some(text) = refused_notice(refused) {
        state.errors.push((LINK_KEY.into(), text));
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::state::Action;
    use std::rc::Rc;

    #[test]
    fn a_link_reopens_the_page() {
        assert_eq!(fragment(&State::default()), "");
        assert_eq!(state_from(""), State::default());
        let s = Rc::new(State::default())
            .apply(Action::Set { key: "service.commit.interval.ms".into(), text: "500".into() })
            .apply(Action::Crash(6_250_000))
            .apply(Action::Projector(true));
        let link = fragment(&s);
        assert!(
            link.contains("crash=6.25") && link.contains("projector=1") && link.contains("service="),
            "{link}"
        );
        assert!(!link.contains("events="), "{link}");
        let back = state_from(&format!("#{link}"));
        assert_eq!(back.scenario, s.scenario);
        assert!(back.projector);
        assert!(back.errors.is_empty(), "{:?}", back.errors);
        for (i, p) in PRESETS.iter().enumerate() {
            let s = State::of_preset(i).unwrap();
            assert_eq!(state_from(&fragment(&s)), s, "{}", p.slug);
            assert_eq!(state_from(&format!("preset={}", p.slug)).scenario, s.scenario, "{}", p.slug);
        }
        // The zombie moved: its events' instant only.
        let z = Rc::new(State::of_preset(3).unwrap()).apply(Action::Crash(5_000_000));
        let back = state_from(&fragment(&z));
        assert_eq!((back.preset, back.crash_us()), (3, Some(5_000_000)));
    }

    #[test]
    fn a_moved_join_is_a_crash_pair_and_reopens() {
        let s = Rc::new(State::of_preset(6).unwrap()).apply(Action::Crash(1_500_000));
        let link = fragment(&s);
        assert_eq!(link, "preset=scale-out&crash=1.5");
        let back = state_from(&format!("#{link}"));
        assert_eq!(back, *s);
        assert_eq!((back.preset, back.crash_us(), back.event_word()), (6, Some(1_500_000), "join"));
        let e = state_from("preset=scale-out&crash=9").error(LINK_KEY).cloned().unwrap();
        assert!(e.contains("outside 0 to 5 s (the horizon): the join is at 5 s"), "{e}");
    }

    #[test]
    fn a_bad_link_names_the_key_and_keeps_a_working_page() {
        let s = state_from("preset=zombie&horizon_ms=-5&crash=x");
        assert_eq!(s.preset, 3);
        assert_eq!(s.scenario, presets::scenario(3).unwrap());
        let e = s.error(LINK_KEY).unwrap();
        assert!(e.contains("horizon_ms") && e.contains("crash=x"), "{e}");
        let s = state_from("preset=nope&service=7");
        let e = s.error(LINK_KEY).unwrap();
        assert!(e.contains("preset=nope") && e.contains("service"), "{e}");
        assert_eq!(s.scenario, presets::scenario(0).unwrap());
    }

    #[test]
    fn a_crash_past_the_horizon_is_clamped_and_said() {
        let s = state_from("crash=500");
        assert_eq!(s.crash_us(), Some(80_000_000));
        let e = s.error(LINK_KEY).unwrap();
        assert!(e.contains("crash=500 is outside 0 to 80 s"), "{e}");
        // A crash the core refuses (the restart at 5.5 s, then the crash again is fine; but
        // an instant that is not seconds is refused).
        let s = state_from("crash=1.0000001");
        assert!(s.error(LINK_KEY).is_some());
        assert_eq!(s.crash_us(), Some(4_500_000));
    }
}
