//! The group page's state in the URL fragment, so that a link reproduces what the reader
//! sees: `#group_events=%5B…%5D&partition.assignment.strategy=cooperative-sticky`. Only what
//! differs from the page's defaults (reference G1) is written: scenario keys with their JSON
//! names and values (percent-encoded as `encodeURIComponent` does, see [`crate::kit::link`]), then
//! the share crash in µs (`crash_at_us`), the share strip's partition and first offset
//! (`partition`, `from`), a big group's zoom (`zoom=from-16`, `zoom=member-3`), `projector=1`,
//! and the tour's step (`tour=2`, the share group's tour
//! `tour=share-2`, counted from 1). Reading goes through the reducer, so a bad
//! value in a link shows the same message as a bad value typed into its field, as a notice
//! naming it; nothing in a link can make the page panic.

use super::state::{default_scenario, GroupAction, GroupState};
use super::zoom::{is_overview, Zoom, OVERVIEW_PARTITIONS, ZOOM_PARTITIONS};
use crate::kit::link::{encode, pairs};
use offset_window_sim::keys::KeyKind;
use offset_window_sim::scenario::{key_spec, DEFAULT_CRASH_AT_US, KEYS};
use offset_window_sim::Scenario;
use serde_json::Value;
use std::rc::Rc;

/// The key of the share group's crash instant, µs.
pub const CRASH_KEY: &str = "crash_at_us";
/// The key of the share strip's partition (`orders-N`: N).
pub const PARTITION_KEY: &str = "partition";
/// The key of the share strip's first offset.
pub const FROM_KEY: &str = "from";
/// The key of a big group's zoom: `all` (the default, not written), `from-N` (the lanes of
/// [`ZOOM_PARTITIONS`] partitions from `orders-N`), `member-N` (the partitions `consumer-N` owned).
pub const ZOOM_KEY: &str = "zoom";
/// The key of projector mode (`projector=1`).
pub const PROJECTOR_KEY: &str = "projector";
/// The key of the tour's step, from 1: `tour=2`, or `tour=share-2` for the share group's tour.
pub use crate::kit::link::TOUR_KEY;

fn text(value: Option<Value>) -> String {
    match value {
        Some(Value::String(s)) => s,
        Some(other) => offset_window_sim::keys::json_text(&other),
        None => String::new(),
    }
}

/// The scenario's part of a fragment: its keys that differ from the page's defaults (the
/// costly part: the page memoises it on the scenario).
pub fn scenario_fragment(scenario: &Scenario) -> String {
    let defaults = default_scenario();
    KEYS.iter()
        .filter(|k| scenario.get(k.name) != defaults.get(k.name))
        .map(|k| format!("{}={}", k.name, encode(&text(scenario.get(k.name)))))
        .collect::<Vec<_>>()
        .join("&")
}

/// A whole fragment from the scenario's part ([`scenario_fragment`]) and the rest of
/// `state` (its scenario is not read).
pub fn join(scenario_part: &str, state: &GroupState) -> String {
    let mut parts: Vec<String> = Vec::new();
    if !scenario_part.is_empty() {
        parts.push(scenario_part.to_string());
    }
    if state.crash_at_us != DEFAULT_CRASH_AT_US {
        parts.push(format!("{CRASH_KEY}={}", state.crash_at_us));
    }
    if state.partition != 0 {
        parts.push(format!("{PARTITION_KEY}={}", state.partition));
    }
    if state.strip_from != 0 {
        parts.push(format!("{FROM_KEY}={}", state.strip_from));
    }
    if state.zoom != Zoom::All {
        parts.push(format!("{ZOOM_KEY}={}", state.zoom.value()));
    }
    if state.projector {
        parts.push(format!("{PROJECTOR_KEY}=1"));
    }
    if let Some((share, n)) = state.tour {
        parts.push(format!("{TOUR_KEY}={}{}", if share { "share-" } else { "" }, n + 1));
    }
    parts.join("&")
}

/// The fragment of a whole page state.
pub fn state_fragment(state: &GroupState) -> String {
    join(&scenario_fragment(&state.scenario), state)
}

/// A link's value of key `key` as JSON: a choice's text as it is (`broker_version=4.0` is
/// the choice "4.0", not the number 4), any other what it parses as, else the text itself
/// (so that the core's message quotes it).
fn link_value(key: &str, text: &str) -> Value {
    if matches!(key_spec(key).map(|k| k.kind), Some(KeyKind::Choice(_))) {
        return Value::String(text.to_string());
    }
    serde_json::from_str::<Value>(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// A link's tour step (`2`, or `share-2` for the share group's tour; from 1) as
/// `(share tour, step from 0)`, or the notice that names it.
fn tour_step(value: &str) -> Result<(bool, usize), String> {
    let (share, number) = match value.strip_prefix("share-") {
        Some(n) => (true, n),
        None => (false, value),
    };
    let steps = super::presets::tour(share).len();
    match number.parse::<usize>() {
        Ok(n) if (1..=steps).contains(&n) => Ok((share, n - 1)),
        _ => Err(format!(
            "The link's {TOUR_KEY}={value} was not used: the {} has steps 1 to {steps}.",
            if share { "share group's tour" } else { "tour" }
        )),
    }
}

/// A link's zoom for the lanes of `state`'s scenario, or the notice that names it and what it
/// may be.
fn zoom_of(value: &str, state: &GroupState) -> Result<Zoom, String> {
    let s = &state.scenario;
    let (partitions, members) = (s.partitions as usize, s.member_count() as usize);
    match Zoom::parse(value) {
        Some(zoom) if state.zoom_fits(zoom) => Ok(zoom),
        _ if !is_overview(partitions, s.share_group()) => Err(format!(
            "The link's {ZOOM_KEY}={value} was not used: only a consumer group of more than \
             {OVERVIEW_PARTITIONS} partitions is drawn as an overview to zoom into, and this one shows a lane \
             for each of its {partitions} partitions ({ZOOM_KEY} can only be all)."
        )),
        _ => Err(format!(
            "The link's {ZOOM_KEY}={value} was not used: it is all (every partition), from-N (the lanes \
             of {ZOOM_PARTITIONS} partitions from orders-N, N from 0 to {}) or member-N (the partitions \
             consumer-N owned, N from 1 to {members}).",
            partitions - 1
        )),
    }
}

/// The state a fragment describes: the defaults, then the link's scenario keys all at once
/// (one check, one simulation); if the core refuses them together, applied as the reader
/// would set them — over and over while one more of them is taken, since one key may need
/// another first (`members` before the events naming a new member, or after the events that
/// named a removed one) — then the crash, the strip, the zoom, the screen and the tour's
/// step (a link with a step and no scenario key shows that step's case). A value the page
/// refuses or does not know leaves a notice naming it.
pub fn state_from(fragment: &str) -> GroupState {
    let pairs = pairs(fragment);
    let mut state = Rc::new(GroupState::default());
    let mut notices = Vec::new();
    let mut pending: Vec<(&'static str, String)> = Vec::new();
    let mut rest: Vec<(String, String)> = Vec::new();
    for (key, value) in pairs {
        match key_spec(&key) {
            Some(spec) => pending.push((spec.name, value)),
            None if [CRASH_KEY, PARTITION_KEY, FROM_KEY, ZOOM_KEY, PROJECTOR_KEY, TOUR_KEY]
                .contains(&key.as_str()) =>
            {
                rest.push((key, value))
            }
            None => {
                notices.push(format!("The link's {key}={value} was not used: the page has no such setting."))
            }
        }
    }
    let scenario_keys = pending.len();
    // Every key at once, one check; only a link the core refuses as a whole is read key by
    // key (so that what was refused is named).
    let all: Vec<(&str, Value)> = pending.iter().map(|(k, v)| (*k, link_value(k, v))).collect();
    if let Some(next) = state.with_values(&all) {
        state = Rc::new(next);
        pending.clear();
    }
    // At most one pass per key: each pass that changes nothing ends it.
    for _ in 0..=pending.len() {
        let before = pending.len();
        pending.retain(|(key, value)| {
            let next = state.clone().apply(GroupAction::SetValue { key, value: link_value(key, value) });
            let taken = next.error(key).is_none();
            if taken {
                state = next;
            }
            !taken
        });
        if pending.len() == before {
            break;
        }
    }
    for (key, value) in &pending {
        let next = state.clone().apply(GroupAction::SetValue { key, value: link_value(key, value) });
        let message = next.error(key).cloned().unwrap_or_default();
        notices.push(format!(
            "The link's {key}={value} was not used, the page shows the last good value instead: {message}"
        ));
    }
    // A link with a tour step and no scenario key (written by hand: `#tour=2`) shows that
    // step's case; one the page wrote holds the case's keys.
    if scenario_keys == 0 {
        let step = rest.iter().find(|(k, _)| k == TOUR_KEY).and_then(|(_, v)| tour_step(v).ok());
        let preset = step.and_then(|(share, n)| super::presets::tour_preset(share, n));
        if let Some(i) = preset {
            state = state.apply(GroupAction::LoadPreset(i));
        }
    }
    for (key, value) in rest {
        let horizon = state.scenario.horizon_us;
        let partitions = state.scenario.partitions;
        let action = match key.as_str() {
            CRASH_KEY => match value.parse::<u64>() {
                Ok(us) => {
                    if !(1..=horizon).contains(&us) {
                        notices.push(format!(
                            "The link's {CRASH_KEY}={value} is outside 1 to {horizon} µs: the crash is put at {} µs.",
                            us.clamp(1, horizon)
                        ));
                    }
                    GroupAction::SetCrash(us)
                }
                Err(_) => {
                    notices.push(format!(
                        "The link's {CRASH_KEY}={value} was not used: it is the crash instant in whole µs, from 1 to {horizon}."
                    ));
                    continue;
                }
            },
            PARTITION_KEY => match value.parse::<u32>() {
                Ok(p) if p < partitions => GroupAction::SetPartition(p),
                _ => {
                    notices.push(format!(
                        "The link's {PARTITION_KEY}={value} was not used: the strip shows a partition from 0 to {}.",
                        partitions - 1
                    ));
                    continue;
                }
            },
            FROM_KEY => match value.parse::<u64>() {
                Ok(o) if o <= offset_window_sim::scenario::MAX_OFFSET => GroupAction::SetStripFrom(o),
                _ => {
                    notices.push(format!(
                        "The link's {FROM_KEY}={value} was not used: the strip's first offset is a whole number from 0 to {}.",
                        offset_window_sim::scenario::MAX_OFFSET
                    ));
                    continue;
                }
            },
            ZOOM_KEY => match zoom_of(&value, &state) {
                Ok(zoom) => GroupAction::SetZoom(zoom),
                Err(notice) => {
                    notices.push(notice);
                    continue;
                }
            },
            TOUR_KEY => match tour_step(&value) {
                Ok(step) => GroupAction::SetTour(Some(step)),
                Err(notice) => {
                    notices.push(notice);
                    continue;
                }
            },
            _ => match value.as_str() {
                "1" | "0" => GroupAction::SetProjector(value == "1"),
                _ => {
                    notices.push(format!("The link's {PROJECTOR_KEY}={value} was not used: it is 1 or 0."));
                    continue;
                }
            },
        };
        state = state.apply(action);
    }
    let mut state = Rc::unwrap_or_clone(state);
    // A tour step's link holds its case: the preset select names it again.
    if let Some((share, n)) = state.tour {
        let preset = super::presets::tour_preset(share, n);
        if preset.and_then(super::presets::input).is_some_and(|input| input.scenario == state.scenario) {
            state.preset = preset;
        }
    }
    state.notices = notices.into_iter().map(crate::kit::link::echo_cut_short).collect();
    state
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::zoom::Zoom;
    use crate::kit::link::decode;
    use offset_window_sim::events::{GroupEvent, GroupEventKind, ShutdownMode};

    /// Issue 28 D2: a link's key or value is echoed in a notice cut short, never whole.
    #[test]
    fn a_choice_that_reads_as_a_number_is_the_choice() {
        // broker_version=4.0 once read as the number 4.0 and was refused ("got 4.0").
        let s = Scenario {
            client: Client::JavaConsumerProtocol,
            broker_version: offset_window_sim::scenario::BrokerVersion::Kafka4_0,
            ..GroupState::default().scenario
        };
        let link = scenario_fragment(&s);
        assert!(link.contains("broker_version=4.0"), "{link}");
        let back = state_from(&link);
        assert_eq!(back.scenario, s);
        assert!(back.notices.is_empty(), "{:?}", back.notices);
    }

    #[test]
    fn a_long_key_or_value_is_echoed_cut_short() {
        let long = "x".repeat(2_000_000);
        for fragment in [format!("{long}=1"), format!("members={long}"), format!("projector={long}")] {
            let state = state_from(&fragment);
            assert_eq!(state.notices.len(), 1, "{:?}", &state.notices);
            let notice = &state.notices[0];
            assert!(notice.len() < 1_000, "{} bytes: {}", notice.len(), &notice[..200]);
            assert!(notice.contains("characters)"), "{notice}");
        }
    }
    use offset_window_sim::scenario::{Assignor, ShareAcknowledgementMode};
    use offset_window_sim::Client;

    /// A small deterministic generator (xorshift), so the tests need no RNG crate.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    #[test]
    fn the_defaults_are_an_empty_fragment() {
        assert_eq!(state_fragment(&GroupState::default()), "");
        assert_eq!(state_from(""), GroupState::default());
        let s = GroupState { projector: true, crash_at_us: 20_000_000, ..GroupState::default() };
        assert_eq!(state_fragment(&s), "crash_at_us=20000000&projector=1");
    }

    #[test]
    fn the_tour_step_is_in_the_link() {
        let s = GroupState { tour: Some((false, 2)), ..GroupState::default() };
        assert_eq!(state_fragment(&s), "tour=3");
        assert_eq!(state_from("tour=3").tour, Some((false, 2)));
        // Written by hand, with no scenario key: the step's case is shown.
        let step3 = crate::group::presets::TOUR[2].preset;
        assert_eq!(state_from("tour=3").preset, Some(step3));
        assert_eq!(state_from("tour=3").scenario, crate::group::presets::input(step3).unwrap().scenario);
        let s = GroupState { tour: Some((true, 0)), ..GroupState::default() };
        assert_eq!(state_fragment(&s), "tour=share-1");
        assert_eq!(state_from("tour=share-1").tour, Some((true, 0)));
        // A step's link with its case names the preset again.
        let i = crate::group::presets::TOUR[1].preset;
        let on_step = Rc::new(GroupState { tour: Some((false, 1)), ..GroupState::default() })
            .apply(GroupAction::LoadPreset(i));
        assert_eq!(state_from(&state_fragment(&on_step)).preset, Some(i));
        for bad in ["tour=0", "tour=99", "tour=share-99", "tour=two"] {
            let back = state_from(bad);
            assert_eq!(back.tour, None, "{bad}");
            assert_eq!(back.notices.len(), 1, "{bad}");
            assert!(back.notices[0].contains("was not used: the"), "{bad}: {:?}", back.notices);
        }
    }

    /// A big group's zoom (issue 28) is in the link and read back; a bad one is refused with a
    /// notice naming the field and what it may be, and the page shows the overview.
    #[test]
    fn the_zoom_is_in_the_link_and_a_bad_one_is_named() {
        let big = "members=4&partitions=64";
        for zoom in [Zoom::From(16), Zoom::From(63), Zoom::Member(0), Zoom::Member(3)] {
            let state = Rc::new(state_from(big)).apply(GroupAction::SetZoom(zoom));
            assert_eq!(state.zoom, zoom);
            let link = state_fragment(&state);
            assert!(link.ends_with(&format!("&zoom={}", zoom.value())), "{link}");
            let back = state_from(&link);
            assert_eq!(back.notices, Vec::<String>::new(), "{link}");
            assert_eq!(back, *state, "{link}");
        }
        assert_eq!(state_from("members=4&partitions=64&zoom=member-2").zoom, Zoom::Member(1));
        assert_eq!(state_from("members=4&partitions=64&zoom=all").zoom, Zoom::All);
        assert!(!state_fragment(&state_from(big)).contains("zoom"), "the overview is the default");
        for bad in ["x", "from-64", "member-5", "member-0", "from-01", "from--1", "ALL", "from-16.5"] {
            let back = state_from(&format!("{big}&zoom={bad}"));
            assert_eq!(back.zoom, Zoom::All, "{bad}");
            assert_eq!(back.scenario.partitions, 64, "{bad}: the rest of the link is used");
            assert_eq!(back.notices.len(), 1, "{bad}: {:?}", back.notices);
            let notice = &back.notices[0];
            assert!(
                notice.starts_with(&format!("The link's zoom={bad} was not used: it is all")),
                "{notice}"
            );
            assert!(notice.contains("from-N") && notice.contains("N from 0 to 63"), "{notice}");
            assert!(notice.contains("member-N") && notice.contains("N from 1 to 4"), "{notice}");
        }
        // A group with a lane per partition has no overview to zoom into.
        let small = state_from("zoom=from-0");
        assert_eq!(small.zoom, Zoom::All);
        assert!(small.notices[0].contains("zoom can only be all"), "{:?}", small.notices);
        // A scenario change that leaves the zoom nothing to show puts the overview back.
        let state = Rc::new(state_from(big)).apply(GroupAction::SetZoom(Zoom::From(48)));
        let fewer = state.apply(GroupAction::SetField { key: "partitions", text: "40".into() });
        assert_eq!((fewer.scenario.partitions, fewer.zoom), (40, Zoom::All));
        let state = Rc::new(state_from(big)).apply(GroupAction::SetZoom(Zoom::Member(9)));
        assert_eq!(state.zoom, Zoom::All, "a member the group does not have");
    }

    #[test]
    fn url_round_trip_for_random_states() {
        let mut g = Gen(0x9e37_79b9_7f4a_7c15);
        let mut checked = 0;
        for _ in 0..200 {
            let mut s = default_scenario();
            s.partitions = 1 + g.next(6) as u32;
            s.members = 1 + g.next(4) as u32;
            s.horizon_us = (20 + g.next(60)) * 1_000_000;
            s.static_membership = g.next(2) == 1;
            s.assignment_strategy = Assignor::ALL[g.next(3) as usize];
            s.client = [Client::JavaClassic, Client::JavaConsumerProtocol][g.next(2) as usize];
            s.group_events = (0..g.next(3))
                .map(|_| {
                    let kind = [GroupEventKind::Crash, GroupEventKind::Hang, GroupEventKind::Shutdown]
                        [g.next(3) as usize];
                    let mut e =
                        GroupEvent::new(g.next(s.horizon_us), 1 + g.next(s.members as u64) as u16, kind);
                    if kind == GroupEventKind::Shutdown {
                        e.shutdown_mode = [ShutdownMode::Wakeup, ShutdownMode::Abrupt][g.next(2) as usize];
                    }
                    if kind != GroupEventKind::Hang {
                        e.restart_after_us = (g.next(2) == 1).then(|| g.next(20_000) * 1_000 + 1);
                    } else {
                        e.duration_us = 1 + g.next(30_000_000);
                    }
                    e
                })
                .collect();
            if g.next(3) == 0 {
                s.consumption = offset_window_sim::scenario::Consumption::ShareGroup;
                s.client = Client::JavaClassic;
                s.share_acknowledgement_mode = ShareAcknowledgementMode::ALL[g.next(2) as usize];
            }
            if super::super::state::check(&s).is_err() {
                continue;
            }
            let mut state = GroupState::with_scenario(s, 1 + g.next(20_000_000));
            state.partition = g.next(state.scenario.partitions as u64) as u32;
            state.strip_from = g.next(3) * 20;
            state.projector = g.next(2) == 1;
            if g.next(2) == 1 {
                let share = g.next(2) == 1;
                state.tour = Some((share, g.next(super::super::presets::tour(share).len() as u64) as usize));
            }
            let back = state_from(&state_fragment(&state));
            assert_eq!(back.notices, Vec::<String>::new(), "{}", state_fragment(&state));
            assert_eq!(back, state, "{}", state_fragment(&state));
            checked += 1;
        }
        assert!(checked > 60, "only {checked} random states ran");
    }

    #[test]
    fn an_event_typed_in_seconds_is_linked_in_milliseconds() {
        let s = Rc::new(GroupState::default()).apply(GroupAction::SetEventText {
            index: 0,
            field: "at_ms",
            text: "20.5".into(),
        });
        assert_eq!(s.scenario.group_events[0].at_us, 20_500_000);
        let link = decode(&scenario_fragment(&s.scenario));
        assert!(link.contains("\"at_ms\":20500"), "{link}");
        assert_eq!(state_from(&scenario_fragment(&s.scenario)).scenario, s.scenario);
    }

    #[test]
    fn a_link_is_read_in_one_pass() {
        let link = "group_events=%5B%7B%22at_ms%22%3A5000%2C%22member%22%3A3%2C%22kind%22%3A%22crash%22%7D%5D&members=3&partitions=4";
        let defaults = GroupState::default();
        let before = crate::kit::run::simulations();
        let s = state_from(link);
        // The defaults (one run) and every key of the link at once (one more).
        assert_eq!(crate::kit::run::simulations() - before, 2 * u64::from(cfg!(debug_assertions)));
        assert_eq!((s.scenario.members, s.scenario.partitions), (3, 4));
        assert!(s.notices.is_empty() && defaults.notices.is_empty(), "{:?}", s.notices);
    }

    #[test]
    fn a_link_whose_keys_need_each_other_reads_in_any_order() {
        // The events name member 3 and members=3 comes after them in the link.
        let s = state_from("group_events=%5B%7B%22at_ms%22%3A5000%2C%22member%22%3A3%2C%22kind%22%3A%22crash%22%7D%5D&members=3");
        assert_eq!(s.notices, Vec::<String>::new());
        assert_eq!(s.scenario.members, 3);
        assert_eq!(s.scenario.group_events[0].member, 3);
        // And the other way: members=1 needs G1's event (member 2) gone first.
        let s = state_from("members=1&group_events=%5B%5D");
        assert_eq!((s.scenario.members, s.scenario.group_events.len(), s.notices.len()), (1, 0, 0));
    }

    #[test]
    fn a_bad_link_names_each_bad_value_and_keeps_a_working_state() {
        let s = state_from(
            "#partitions=abc&session.timeout.ms=-5&nonsense=1&group_events=%5B%7B%22at_ms%22%3A1%7D%5D&crash_at_us=99999999999&partition=9&projector=2&from=x",
        );
        let all = s.notices.join(" ");
        for key in [
            "partitions=abc",
            "session.timeout.ms=-5",
            "nonsense",
            "group_events=",
            "crash_at_us",
            "partition=9",
            "projector=2",
            "from=x",
        ] {
            assert!(all.contains(key), "{key} in {all}");
        }
        assert!(all.contains("partitions of orders: must be a whole number from 1 to 4096"), "{all}");
        assert!(all.contains("event 1, what happens: must be one of"), "{all}");
        assert_eq!(s.scenario, default_scenario());
        assert_eq!(s.crash_at_us, 60_000_000, "clamped into the horizon");
    }

    #[test]
    fn no_input_makes_it_panic() {
        let mut g = Gen(11);
        let alphabet: Vec<char> =
            "#&=%._-0123456789abcdefxyz[]{},:\"\u{e9} crash_at_uspartitionmembersgroup_eventskindat_ms"
                .chars()
                .collect();
        for _ in 0..2_000 {
            let len = g.next(50) as usize;
            let text: String = (0..len).map(|_| alphabet[g.next(alphabet.len() as u64) as usize]).collect();
            let s = state_from(&text);
            assert!((1..=s.scenario.horizon_us).contains(&s.crash_at_us), "{text}");
            assert!(super::super::state::check(&s.scenario).is_ok(), "{text}");
        }
    }
}
