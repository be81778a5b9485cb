//! The page's state in the URL fragment, so that a link reproduces what the reader sees:
//! `#strategy=commit_sync_batch&crash_at_us=5000001`. Only keys that differ from the
//! defaults are written; scenario keys keep their JSON names and values (milliseconds as
//! exact decimals, lists and null as JSON, percent-encoded as `encodeURIComponent` does),
//! the crash instant is in µs, the tour's step is `tour` (1-based, as on the group page;
//! older links' `step` is read too), then how the page is
//! shown: `base_offset` (the display base offset) and `projector=1`. Reading goes through
//! the reducer, so a bad value in a link shows the same message as a bad value typed into
//! its field, and a notice naming it; nothing in a link can make the page panic.

use crate::consumer::records::{FAILURES_KEY, SLOW_KEY};
use crate::consumer::state::{Action, State};
use crate::kit::link::{encode, pairs};
use offset_window_sim::scenario::{key_spec, KeyKind, KEYS};
use offset_window_sim::{Scenario, Strategy};
use serde_json::Value;
use std::rc::Rc;

/// The key of the crash instant, µs.
pub const CRASH_KEY: &str = "crash_at_us";
/// The tour's step as older links wrote it (`step=2`), still read; the page writes
/// [`TOUR_KEY`] (`tour=2`), the key of every page.
pub const STEP_KEY: &str = "step";
pub use crate::kit::link::TOUR_KEY;
/// The key of projector mode (`projector=1`).
pub const PROJECTOR_KEY: &str = "projector";
/// The key of the display base offset.
pub const BASE_KEY: &str = crate::consumer::state::BASE_FIELD;

fn text(value: Option<Value>) -> String {
    match value {
        Some(Value::String(s)) => s,
        Some(other) => offset_window_sim::keys::json_text(&other),
        None => String::new(),
    }
}

/// The fragment (without `#`) for a scenario and crash instant; empty for the defaults.
pub fn fragment(scenario: &Scenario, crash_at_us: u64) -> String {
    join(&scenario_fragment(scenario), &State { crash_at_us, ..State::default() })
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

/// A whole fragment from the scenario's part ([`scenario_fragment`], memoised by the page)
/// and the rest of `state`: the crash instant (µs), the tour's step (0-based; written
/// 1-based), the display base offset and projector mode. Its scenario is not read.
pub fn join(scenario_part: &str, state: &State) -> String {
    let mut parts = scenario_part.to_string();
    let mut push = |part: String| {
        if !parts.is_empty() {
            parts.push('&');
        }
        parts.push_str(&part);
    };
    if state.crash_at_us != offset_window_sim::scenario::DEFAULT_CRASH_AT_US {
        push(format!("{CRASH_KEY}={}", state.crash_at_us));
    }
    if let Some(n) = state.tour_step {
        push(format!("{TOUR_KEY}={}", n + 1));
    }
    if state.base_offset != 0 {
        push(format!("{BASE_KEY}={}", state.base_offset));
    }
    if state.projector {
        push(format!("{PROJECTOR_KEY}=1"));
    }
    parts
}

/// The fragment of a whole page state.
pub fn state_fragment(state: &State) -> String {
    join(&scenario_fragment(&state.scenario), state)
}

/// The state a fragment describes: the defaults (or the tour step named), then each pair
/// applied as the action a reader would take (`client` first, since it decides which
/// strategies are allowed, then the scenario keys in the core's order; the crash last, once
/// the horizon is known). A value the page
/// refuses or does not know leaves a notice naming it.
pub fn state_from(fragment: &str) -> State {
    let pairs = pairs(fragment);
    // The client first (it decides which strategies are allowed), then the scenario keys in
    // the core's order, as `scenario_fragment` writes them: a key that depends on another
    // (`pool_commit` on `worker_pool`, `close_at_ms` on `horizon_ms`) comes after it, in a
    // link written by hand too.
    let rank = |k: &str| (k != "client", KEYS.iter().position(|s| s.name == k).unwrap_or(KEYS.len()));
    // A stable ordering by rank, each pair placed after those of its rank or lower: a link
    // has a few pairs, and a general sort would add its own copy of std's sort to the page.
    let mut ordered: Vec<(String, String)> = Vec::with_capacity(pairs.len());
    for pair in pairs {
        let r = rank(&pair.0);
        let at = ordered.partition_point(|q| rank(&q.0) <= r);
        ordered.insert(at, pair);
    }
    let pairs = ordered;
    let mut state = Rc::new(State::default());
    let mut notices = Vec::new();
    let mut crash = None;
    let mut step = None;
    let mut screen = Vec::new();
    for (key, value) in &pairs {
        let action = match key.as_str() {
            CRASH_KEY => {
                crash = Some(value.clone());
                continue;
            }
            PROJECTOR_KEY => {
                match value.as_str() {
                    "1" | "0" => screen.push(Action::SetProjector(value == "1")),
                    _ => notices
                        .push(format!("The link's {PROJECTOR_KEY}={value} was not used: it is 1 or 0.")),
                }
                continue;
            }
            BASE_KEY => {
                screen.push(Action::SetBaseText(value.clone()));
                continue;
            }
            STEP_KEY | TOUR_KEY => {
                match value.parse::<usize>() {
                    Ok(n) if (1..=crate::consumer::tour::STEPS).contains(&n) => step = Some(n - 1),
                    _ => notices.push(format!(
                        "The link's {key}={value} was not used: the tour has steps 1 to {}.",
                        crate::consumer::tour::STEPS
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
                        // A hand-written `record_failures=12,30` or `…by_offset=3:6000`: the
                        // field's own words.
                        _ if [FAILURES_KEY, SLOW_KEY].contains(&spec.name)
                            && !value.starts_with(['[', '{']) =>
                        {
                            Action::SetRecordsText { key: spec.name, text: value.clone() }
                        }
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
        state = state.apply(action);
    }
    if let Some(n) = step {
        // A step alone sets every control; beside other keys it must agree with them.
        let own = State::tour_step(n);
        if pairs.iter().all(|(k, _)| [STEP_KEY, TOUR_KEY, PROJECTOR_KEY, BASE_KEY].contains(&k.as_str())) {
            state = Rc::new(own);
        } else if state.scenario == own.scenario {
            let s = Rc::make_mut(&mut state);
            s.tour_step = Some(n);
            s.prediction = own.prediction.clone();
        } else {
            // The caption would describe settings the page does not show.
            notices.push(format!(
                "The link's {TOUR_KEY}={} was not used: its other settings are not that tour step's.",
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
                state.apply(Action::SetCrash(us))
            }
            Err(_) => state.apply(Action::SetCrashText(us)),
        };
    }
    for action in screen {
        state = state.apply(action);
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
    notices.extend(crate::consumer::records::beyond_log(&state.scenario));
    state.notices = notices.into_iter().map(crate::kit::link::echo_cut_short).collect();
    state
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kit::link::decode;
    use offset_window_sim::{Client, Input, Strategy};

    /// Issue 28 D2: a link's key or value is echoed in a notice cut short, never whole.
    #[test]
    fn a_long_key_or_value_is_echoed_cut_short() {
        let long = "x".repeat(2_000_000);
        for fragment in [
            format!("{long}=1"),
            format!("max.poll.records={long}"),
            format!("strategy={long}"),
            format!("step={long}"),
            format!("projector={long}"),
            format!("colour=1{long}%20was%20not%20used"),
        ] {
            let state = state_from(&fragment);
            assert_eq!(state.notices.len(), 1, "{:?}", &state.notices);
            let notice = &state.notices[0];
            assert!(notice.len() < 1_000, "{} bytes: {}", notice.len(), &notice[..200]);
            assert!(notice.contains("characters)"), "{notice}");
        }
        let short = state_from("max.poll.records=0").notices.clone();
        assert!(short[0].starts_with("The link's max.poll.records=0 was not used"), "{short:?}");
    }

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
    fn only_what_differs_from_the_defaults_is_written() {
        assert_eq!(fragment(&Scenario::default(), 8_200_000), "");
        assert_eq!(
            fragment(&Scenario { max_poll_records: 25, ..Scenario::default() }, 5_000_001),
            "max.poll.records=25&crash_at_us=5000001"
        );
        let mut s = State::default();
        let settings = Rc::make_mut(&mut s.settings);
        settings.projector = true;
        settings.base_offset = 1000;
        assert_eq!(state_fragment(&s), "base_offset=1000&projector=1");
        let back = state_from("#base_offset=1000&projector=1");
        assert!(back.projector && back.base_offset == 1000 && back.notices.is_empty());
    }

    #[test]
    fn encoding_is_encode_uri_component() {
        assert_eq!(encode("[1,7]"), "%5B1%2C7%5D");
        assert_eq!(encode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
        assert_eq!(encode("-_.!~*'()"), "-_.!~*'()");
        assert_eq!(decode("%5B1%2C7%5D"), "[1,7]");
        assert_eq!(decode("%zz"), "%zz");
        assert_eq!(decode("%ff"), "%ff", "not UTF-8: kept as typed");
    }

    #[test]
    fn url_round_trip_for_random_states() {
        let mut g = Gen(0x2545_f491_4f6c_dd1d);
        for _ in 0..300 {
            let mut s = Scenario::default();
            s.max_poll_records = 1 + g.next(60) as u32;
            s.auto_commit_interval_us = (1 + g.next(12_000)) * 1_000 + g.next(2);
            s.record_processing_us = 1 + g.next(500_000);
            s.commit_latency_us = g.next(100_000);
            s.client = Client::ALL[g.next(Client::ALL.len() as u64) as usize];
            s.strategy = Strategy::ALL[g.next(Strategy::ALL.len() as u64) as usize];
            s.worker_pool = g.next(2) == 1 && s.strategy != Strategy::Transactional;
            s.close_at_us = (g.next(3) == 0).then(|| 1 + g.next(11_000_000));
            s.commit_failures = if g.next(4) == 0 { vec![1 + g.next(5), 7] } else { vec![] };
            if s.validate().is_err() {
                continue;
            }
            // A tour step shows its own settings (changing one leaves the tour), at any crash.
            let mut state = if g.next(3) == 0 {
                let mut step = State::tour_step(g.next(crate::consumer::tour::STEPS as u64) as usize);
                step.crash_at_us = 1 + g.next(step.scenario.horizon_us);
                step
            } else {
                let crash_at_us = 1 + g.next(s.horizon_us);
                State::from_input(Input { scenario: s, crash_at_us })
            };
            state.projector = g.next(2) == 1;
            state.base_offset = g.next(3) * 1_000_000;
            let back = state_from(&state_fragment(&state));
            assert_eq!(back.notices, Vec::<String>::new(), "{}", state_fragment(&state));
            assert_eq!(
                (&back.scenario, back.crash_at_us, back.tour_step, back.projector, back.base_offset),
                (&state.scenario, state.crash_at_us, state.tour_step, state.projector, state.base_offset)
            );
        }
    }

    #[test]
    fn a_bad_link_names_each_bad_value_and_keeps_a_working_state() {
        let s = state_from(
            "#max.poll.records=abc&record_processing_ms=-5&nonsense=1&worker_pool=maybe&crash_at_us=99999999999&projector=2&base_offset=x",
        );
        let all = s.notices.join(" ");
        for key in [
            "max.poll.records=abc",
            "record_processing_ms=-5",
            "nonsense",
            "worker_pool=maybe",
            "crash_at_us",
            "projector=2",
            "base_offset=x",
        ] {
            assert!(all.contains(key), "{key} in {all}");
        }
        assert_eq!(s.scenario, Scenario::default());
        assert_eq!(s.crash_at_us, 12_000_000, "clamped into the horizon");
    }

    #[test]
    fn the_records_keys_round_trip() {
        use offset_window_sim::scenario::{AckCheck, ByOffset, OnError, Ordering, PoolCommit};
        let mut g = Gen(0x9e37_79b9_7f4a_7c15);
        let mut kept = 0;
        // The library strategies (model.md §8.14) are refused under the default Java client.
        for _ in 0..480 {
            let mut s = Scenario {
                strategy: Strategy::ALL[g.next(Strategy::ALL.len() as u64) as usize],
                ..Scenario::default()
            };
            s.record_failures = (0..g.next(4)).map(|_| g.next(80)).collect();
            s.record_failures.sort_unstable();
            s.record_failures.dedup();
            s.record_failure_per_mille = if g.next(3) == 0 { g.next(1_001) } else { 0 };
            s.record_processing_by_offset_us =
                ByOffset((0..g.next(3)).map(|_| (g.next(60), 1 + g.next(6_000_000))).collect());
            s.on_error = OnError::ALL[g.next(4) as usize]; // not release/reject (share groups)
            s.error_retries = g.next(5) as u32;
            s.error_retry_backoff_us = g.next(3_000_001);
            s.max_deliveries = 1 + g.next(20) as u32;
            s.dead_letter = g.next(2) == 1;
            s.ack_on_error = g.next(2) == 1;
            s.spring_ack_check = AckCheck::ALL[g.next(2) as usize];
            s.commit_every_us = 1_000 + g.next(5_000_000);
            s.commit_every_records = 1 + g.next(20) as u32;
            s.worker_pool = g.next(2) == 1;
            if s.worker_pool {
                s.pool_threads = 1 + g.next(8) as u32;
                s.pool_commit = PoolCommit::ALL[g.next(3) as usize];
                s.ordering = Ordering::ALL[g.next(4) as usize];
                s.keys = 1 + g.next(20) as u32;
            }
            if s.validate().is_err() {
                continue;
            }
            kept += 1;
            let state = State::from_input(Input { scenario: s, crash_at_us: 1 + g.next(12_000_000) });
            let link = state_fragment(&state);
            let back = state_from(&link);
            assert_eq!(back.notices, Vec::<String>::new(), "{link}");
            assert_eq!((&back.scenario, back.crash_at_us), (&state.scenario, state.crash_at_us), "{link}");
        }
        assert!(kept > 150, "only {kept} valid scenarios");
        // One written out: a failing record, a slow one, Spring's handler, a pool.
        let s = Scenario {
            record_failures: vec![12],
            record_processing_by_offset_us: ByOffset([(3, 6_000_000)].into()),
            on_error: OnError::Retry,
            worker_pool: true,
            pool_commit: PoolCommit::HighestCompleted,
            ..Scenario::default()
        };
        assert_eq!(
            fragment(&s, 5_500_000),
            "worker_pool=true&record_processing_ms_by_offset=%7B%223%22%3A6000%7D&record_failures=%5B12%5D\
             &on_error=retry&pool_commit=highest_completed&crash_at_us=5500000"
        );
        // By hand, in any order and in the fields' own words: the same page.
        let by_hand = state_from(
            "#pool_commit=highest_completed&on_error=retry&record_failures=12&record_processing_ms_by_offset=3:6000\
             &worker_pool=true&crash_at_us=5500000",
        );
        assert_eq!(by_hand.notices, Vec::<String>::new());
        assert_eq!(by_hand.scenario, s);
    }

    #[test]
    fn a_failing_offset_beyond_the_log_in_a_link_says_so() {
        let s = state_from("#record_failures=12,250000");
        assert_eq!(s.scenario.record_failures, vec![12, 250_000], "kept: the core accepts any offset");
        assert_eq!(s.notices.len(), 1, "{:?}", s.notices);
        assert!(
            s.notices[0].starts_with(
                "records that throw: 250000 is beyond the log (the log holds offsets 0 to 99999"
            ),
            "{}",
            s.notices[0]
        );
    }

    #[test]
    fn bad_records_values_in_a_link_name_the_field_and_its_range() {
        let s = state_from(
            "#record_failures=%5B-1%5D&on_error=explode&record_processing_ms_by_offset=%7B%223%22%3A0%7D\
             &record_failure_probability=2&dead_letter=maybe&spring_ack_check=later&keys=0&ordering=key",
        );
        assert_eq!(s.scenario, Scenario::default(), "{:#?}", s.notices);
        let all = s.notices.join("\n");
        for expected in [
            "record_failures=[-1] was not used",
            "records that throw: must be offsets from 0 to 1000000000000",
            "on_error=explode was not used",
            "what happens to a record that throws: must be one of “log it and go on: the record is skipped”",
            "slow records, offset 3: must be a processing time from 0.001 to 600000 ms",
            "chance that any attempt throws: must be a number from 0 to 1, at most 3 decimals (got 2)",
            "dead-letter topic: must be on or off",
            "when Spring checks the count or the time: must be one of “after each record (Spring Kafka 3.1 and later)”",
            "keys: must be a whole number from 1 to 1000000 (got 0)",
            "how the pool hands out records: applies to a worker pool; tick “worker pool” first",
        ] {
            assert!(all.contains(expected), "{expected}\nin\n{all}");
        }
        assert_eq!(s.notices.len(), 8);
        for n in &s.notices {
            let after = n.split_once("instead: ").map_or("", |(_, m)| m);
            assert!(!after.contains("log_and_continue") && !after.contains("worker_pool"), "{n}");
        }
    }

    #[test]
    fn a_step_link_sets_the_tour_and_its_question() {
        let s = state_from("#step=4&projector=1");
        assert_eq!(s.tour_step, Some(3));
        assert!(s.projector);
        assert_eq!(s.predicting(), crate::consumer::tour::prediction(3).is_some());
        let s = state_from("#max.poll.records=9&worker_pool=true&crash_at_us=5010000&step=5");
        assert_eq!(s.tour_step, None);
        assert!(s.notices.iter().any(|n| n.contains("tour=5")));
        // One tour key on every page: the page writes `tour=`, and reads it back.
        let s = state_from("#tour=4");
        assert_eq!(s.tour_step, Some(3));
        let link = state_fragment(&s);
        assert!(link.ends_with("&tour=4") && !link.contains("step="), "{link}");
        assert_eq!(state_from(&link).tour_step, Some(3));
    }

    #[test]
    fn no_input_makes_it_panic() {
        let mut g = Gen(7);
        let alphabet: Vec<char> =
            "#&=%._-0123456789abcdefxyz[]{},\"\u{e9}\u{1F600} stepcrash_at_usmax.pollrecordsprojector"
                .chars()
                .collect();
        for _ in 0..3_000 {
            let len = g.next(40) as usize;
            let text: String = (0..len).map(|_| alphabet[g.next(alphabet.len() as u64) as usize]).collect();
            let s = state_from(&text);
            assert!((1..=s.scenario.horizon_us).contains(&s.crash_at_us), "{text}");
        }
        for key in offset_window_sim::scenario::KEYS {
            for value in ["", "-1", "1e999", "null", "[", "\"x\"", "18446744073709551616", "0.0001"] {
                let _ = state_from(&format!("{}={}", key.name, encode(value)));
            }
        }
    }
}
