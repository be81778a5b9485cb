//! Properties over random scenarios: the one-pass crash profile against the brute-force
//! re-run, determinism, and the invariants of model.md §2 and §5 at every instant.
#![cfg(not(target_arch = "wasm32"))]

use offset_window_sim::scenario::ScriptStep;
use offset_window_sim::scenario::{
    AckCheck, ByOffset, CommitValue, IsolationLevel, Jitter, OffsetReset, OnError, Ordering, PoolCommit,
};
use offset_window_sim::{
    crash_state_brute_force, simulate, Client, Input, MarkKind, Scenario, Strategy as CommitStrategy,
};
use proptest::prelude::*;

/// Small random scenarios (a few hundred events) over every strategy and the pool:
/// model.md §§1–7 only.
fn base_scenarios() -> impl Strategy<Value = Scenario> {
    (
        (1u32..=12, 1u64..=300_000, 0u64..=40_000, 1u64..=3_000_000),
        (0usize..6, 1u32..=15, any::<bool>(), 1u32..=4, 1u32..=4),
        (100_000u64..=6_000_000, 0u64..=200, 1u64..=700_000),
    )
        .prop_map(
            |(
                (mpr, processing, latency, interval),
                (strategy, every, pool, threads, in_flight),
                (horizon, log_end, fetch_wait),
            )| {
                let strategy = CommitStrategy::ALL[strategy];
                Scenario {
                    max_poll_records: mpr,
                    record_processing_us: processing,
                    commit_latency_us: latency,
                    auto_commit_interval_us: interval.max(1_000),
                    strategy,
                    commit_every_records: every,
                    worker_pool: pool && strategy != CommitStrategy::Transactional,
                    pool_threads: threads,
                    pool_max_in_flight_batches: in_flight,
                    horizon_us: horizon,
                    log_end_offset: log_end,
                    fetch_max_wait_us: fetch_wait.max(1_000),
                    ..Scenario::default()
                }
            },
        )
}

/// The same with model.md §8 switched on at random: clients and offset stores, off-by-one
/// commits, close (with or without draining the pool), eviction, failed commits and stale
/// async retries, downtime with offset expiry and a growing log, read_uncommitted, jitter;
/// and §12: durations by offset, failing records under every `on_error`, `pool_commit`,
/// the pool's orderings, Spring's acknowledgement rules.
fn scenarios() -> impl Strategy<Value = Scenario> {
    (section_8_scenarios(), record_outcomes())
        .prop_map(|(s, outcomes)| outcomes.apply(s))
        .prop_filter("within the event bound", |s| s.validate().is_ok())
}

/// model.md §12's knobs, drawn at random.
#[derive(Clone, Debug)]
struct RecordOutcomes {
    failures: Vec<u64>,
    failure_permille: u64,
    on_error: OnError,
    pool_commit: PoolCommit,
    ordering: Ordering,
    keys: u32,
    by_offset: std::collections::BTreeMap<u64, u64>,
    ack_on_error: bool,
    after_poll: bool,
    error_retries: u32,
    max_deliveries: u32,
    dead_letter: bool,
    every_us: u64,
}

fn record_outcomes() -> impl Strategy<Value = RecordOutcomes> {
    (
        (
            proptest::collection::vec(0u64..=40, 0..3),
            prop_oneof![3 => Just(0u64), 1 => 1u64..=300],
            0usize..4,
        ),
        (0usize..3, 0usize..4, 1u32..=5, proptest::collection::btree_map(0u64..=40, 1u64..=3_000_000, 0..3)),
        (any::<bool>(), any::<bool>(), 0u32..=3, 1u32..=4, any::<bool>(), 1u64..=2_000_000),
    )
        .prop_map(
            |(
                (failures, failure_permille, on_error),
                (pool_commit, ordering, keys, by_offset),
                (ack_on_error, after_poll, error_retries, max_deliveries, dead_letter, every_us),
            )| RecordOutcomes {
                failures,
                failure_permille,
                on_error: OnError::ALL[on_error],
                pool_commit: PoolCommit::ALL[pool_commit],
                ordering: Ordering::ALL[ordering],
                keys,
                by_offset,
                ack_on_error,
                after_poll,
                error_retries,
                max_deliveries,
                dead_letter,
                every_us,
            },
        )
}

impl RecordOutcomes {
    /// `s` with these knobs, where its loop allows them.
    fn apply(self, s: Scenario) -> Scenario {
        let loop_only = matches!(self.on_error, OnError::SeekToFailed | OnError::Stop);
        let on_error = if loop_only && (s.worker_pool || s.strategy == CommitStrategy::Transactional) {
            OnError::Retry
        } else {
            self.on_error
        };
        Scenario {
            record_failures: self.failures,
            record_failure_per_mille: self.failure_permille,
            on_error,
            error_retries: self.error_retries,
            error_retry_backoff_us: s.record_processing_us,
            max_deliveries: self.max_deliveries,
            dead_letter: self.dead_letter,
            ack_on_error: self.ack_on_error,
            spring_ack_check: if self.after_poll { AckCheck::AfterPoll } else { AckCheck::AfterRecord },
            commit_every_us: self.every_us,
            pool_commit: if s.worker_pool { self.pool_commit } else { PoolCommit::HandedOut },
            ordering: if s.worker_pool { self.ordering } else { Ordering::Batch },
            keys: self.keys,
            record_processing_by_offset_us: ByOffset(self.by_offset),
            ..s
        }
    }
}

fn section_8_scenarios() -> impl Strategy<Value = Scenario> {
    (
        base_scenarios(),
        (0usize..Client::ALL.len(), 0usize..CommitStrategy::ALL.len(), any::<bool>(), any::<bool>()),
        (proptest::option::of(0u64..=1_000), any::<bool>(), proptest::option::of(50_000u64..=3_000_000)),
        (proptest::collection::vec(1u64..=12, 0..3), 0u64..=300, any::<bool>()),
        (proptest::option::of(0u64..=4_000_000), any::<bool>(), 0u64..=5_000, any::<bool>()),
        (0usize..3, 0u64..=100, any::<u64>()),
    )
        .prop_map(
            |(
                base,
                (client, strategy, record_offset, uncommitted),
                (close_permille, drain, poll_interval),
                (failures, failure_permille, retry_async),
                (downtime, earliest, rate_milli, retention_short),
                (jitter, jitter_pct, seed),
            )| {
                let client = Client::ALL[client];
                let mut strategy = CommitStrategy::ALL[strategy];
                if client != Client::Librdkafka && strategy == CommitStrategy::StoreOffsetsAfterProcessing {
                    strategy = CommitStrategy::AutoCommitBackground;
                }
                let close_at_us = close_permille.map(|p| (base.horizon_us * p / 1_000).max(1));
                // Long enough for a one-minute offset retention to pass, with ≤ 2000 records.
                let horizon_us = match (retention_short, close_at_us) {
                    (true, Some(close)) => base.horizon_us.max(close + 61_000_000),
                    _ => base.horizon_us,
                };
                let record_processing_us = base.record_processing_us.max(horizon_us / 2_000);
                Scenario {
                    client,
                    strategy,
                    worker_pool: base.worker_pool && strategy != CommitStrategy::Transactional,
                    commit_value: if record_offset {
                        CommitValue::RecordOffset
                    } else {
                        CommitValue::NextOffset
                    },
                    isolation_level: if uncommitted {
                        IsolationLevel::ReadUncommitted
                    } else {
                        IsolationLevel::ReadCommitted
                    },
                    close_at_us,
                    drain_pool_on_close: drain,
                    max_poll_interval_us: poll_interval.unwrap_or(300_000_000),
                    commit_failures: failures,
                    commit_failure_per_mille: failure_permille,
                    retry_async_in_callback: retry_async,
                    default_api_timeout_us: 1_000_000,
                    downtime_us: downtime.filter(|_| close_at_us.is_some()),
                    offsets_retention_minutes: 1,
                    auto_offset_reset: if earliest { OffsetReset::Earliest } else { OffsetReset::Latest },
                    produce_rate_milli_per_s: rate_milli * 1_000,
                    horizon_us,
                    record_processing_us,
                    record_processing_jitter: Jitter::ALL[jitter],
                    record_processing_jitter_pct: jitter_pct,
                    seed,
                    ..base
                }
            },
        )
        .prop_filter("within the event bound", |s| s.validate().is_ok())
}

/// Every instant where something changes, one microsecond either side, and halfway to the
/// next (where lost grows with the log, model.md §8.9), within (0, horizon].
fn probe_instants(run: &offset_window_sim::Run) -> Vec<u64> {
    let mut instants: Vec<u64> = run.marks.iter().map(|m| m.at_us).collect();
    instants.extend(run.lines().profile.iter().map(|s| s.at_us));
    instants.extend(run.lines().committed.iter().map(|s| s.at_us));
    instants.sort_unstable();
    instants.dedup();
    let horizon = run.scenario.horizon_us;
    let halfway = instants.windows(2).map(|w| w[0] + (w[1] - w[0]) / 2);
    let mut probes: Vec<u64> = instants
        .iter()
        .flat_map(|&t| [t.saturating_sub(1), t, t + 1])
        .chain(halfway)
        .filter(|&t| t > 0 && t <= horizon)
        .collect();
    probes.push(horizon);
    probes.sort_unstable();
    probes.dedup();
    // Keep the test quick: at most 200 probes, spread over the run.
    let stride = probes.len().div_ceil(200).max(1);
    probes.into_iter().step_by(stride).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn crash_profile_equals_brute_force(scenario in scenarios()) {
        let run = simulate(&scenario).unwrap();
        for crash_at_us in probe_instants(&run) {
            let fast = run.state_at(crash_at_us);
            let slow = crash_state_brute_force(&scenario, crash_at_us).unwrap();
            prop_assert_eq!(fast, slow, "crash at {} µs", crash_at_us);
            // The offset ranges agree with the counts wherever no offset ran twice.
            let offsets = run.offsets_at(crash_at_us);
            let count = |ranges: &[std::ops::Range<u64>]| ranges.iter().map(|r| r.end - r.start).sum::<u64>();
            prop_assert_eq!(count(&offsets.lost), fast.lost);
            prop_assert!(count(&offsets.duplicated) <= fast.duplicated);
        }
    }

    #[test]
    fn crash_profile_equals_brute_force_without_section_8(scenario in base_scenarios()) {
        let run = simulate(&scenario).unwrap();
        for crash_at_us in probe_instants(&run) {
            prop_assert_eq!(run.state_at(crash_at_us), crash_state_brute_force(&scenario, crash_at_us).unwrap());
        }
    }

    #[test]
    fn same_scenario_same_bytes(scenario in scenarios()) {
        let a = simulate(&scenario).unwrap();
        let b = simulate(&scenario.clone()).unwrap();
        prop_assert_eq!(&a, &b);
        let horizon = scenario.horizon_us;
        prop_assert_eq!(serde_json::to_string(&a.summary_at(horizon)).unwrap(), serde_json::to_string(&b.summary_at(horizon)).unwrap());
    }

    #[test]
    fn invariants_hold_at_every_instant(scenario in scenarios()) {
        let run = simulate(&scenario).unwrap();
        // Rejoining, aborting or restarting moves the position back: offsets then run twice.
        let reruns = run.marks.iter().any(|m| {
            matches!(m.kind, MarkKind::Rejoined { .. } | MarkKind::TransactionAborted { .. } | MarkKind::Restarted { .. })
        });
        // An error handler's seek moves it back too, even below a background commit; and after
        // a move back, records of the old batches finishing count for highest_completed (§12).
        let seeks = matches!(scenario.on_error, OnError::SeekToFailed | OnError::Stop)
            && run.marks.iter().any(|m| matches!(m.kind, MarkKind::RecordFailed { .. }))
            || reruns && scenario.pool_commit == PoolCommit::HighestCompleted;
        for crash_at_us in probe_instants(&run) {
            let s = run.state_at(crash_at_us);
            let (Some(committed), Some(position)) = (s.committed, s.position) else { continue };
            if seeks {
                continue;
            }
            prop_assert!(committed <= position, "committed above position at {}: {:?}", crash_at_us, s);
            prop_assert!(s.lost <= committed, "{:?}", s);
            if reruns {
                continue;
            }
            prop_assert!(s.durable <= position, "{:?}", s);
            // Every offset below the position is exactly one of: lost (below committed, not
            // durable), done and committed, duplicated (at/above committed, durable), pending.
            let done_and_committed = committed - s.lost;
            let pending = (position - committed).checked_sub(s.duplicated);
            prop_assert!(s.lost <= committed && pending.is_some(), "{:?}", s);
            prop_assert_eq!(s.lost + done_and_committed + s.duplicated + pending.unwrap(), position);
            // Exactly-once holds for read_committed readers of correct (offset + 1) commits.
            let read_committed = scenario.isolation_level == IsolationLevel::ReadCommitted;
            let correct_commits = scenario.commit_value == CommitValue::NextOffset;
            if scenario.strategy == CommitStrategy::Transactional && read_committed && correct_commits {
                // A record given up on is committed with its transaction, never run (§12).
                let skipped = run.marks.iter().filter(|m| m.at_us < crash_at_us && matches!(m.kind, MarkKind::RecordSkipped { .. })).count() as u64;
                prop_assert_eq!(s.duplicated, 0);
                prop_assert!(s.lost <= skipped, "{:?}", s);
            }
        }
        // The worst instants are the largest values the profile reaches, at their earliest.
        let worst = run.worst();
        let horizon = scenario.horizon_us;
        let ends = run.lines().profile.iter().map(|p| p.at_us).chain([horizon]).skip(1);
        let max_lost = ends.filter(|&t| t <= horizon).map(|t| run.state_at(t).lost).max().unwrap_or(0);
        prop_assert_eq!(worst.lost, max_lost);
        if let Some(at) = worst.lost_at_us {
            prop_assert_eq!(run.state_at(at).lost, worst.lost);
            prop_assert!(run.state_at(at - 1).lost < worst.lost, "earliest instant");
        }
        if let Some(at) = worst.duplicated_at_us {
            prop_assert_eq!(run.state_at(at).duplicated, worst.duplicated);
            prop_assert!(run.state_at(at - 1).duplicated < worst.duplicated, "earliest instant");
        }
    }
}

#[test]
fn synchronous_loops_never_lose() {
    // model.md §3: without the pool, every strategy of §3 commits only work the loop finished
    // (the background timers of §8.2 are the exception that proves it).
    for &strategy in &CommitStrategy::ALL[..6] {
        let run = simulate(&Scenario { strategy, ..Scenario::default() }).unwrap();
        assert_eq!(run.worst().lost, 0, "{strategy:?}");
    }
}

/// Arbitrary JSON values of the shapes people type.
fn json_values() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::{json, Value};
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        (0u64..100_000).prop_map(Value::from),
        (0u64..10_000_000, 0u32..5).prop_map(|(n, d)| format!("{}e-{d}", n)
            .parse::<serde_json::Number>()
            .map(Value::Number)
            .unwrap()),
        any::<bool>().prop_map(Value::from),
        "[a-z_ ]{0,12}".prop_map(Value::from),
        proptest::sample::select(vec![
            json!(null),
            json!([]),
            json!([1, 2]),
            json!(["poll", "process 2", "commit_sync", "close"]),
            json!("librdkafka"),
            json!("store_offsets_after_processing"),
            json!("transactional"),
            json!("read_uncommitted"),
            json!("earliest"),
            json!("exponential"),
            json!({"a": 1}),
        ]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Bad input gets a message, never a panic; good input runs.
    #[test]
    fn any_json_object_is_refused_or_simulated(
        entries in proptest::collection::vec((proptest::sample::select(offset_window_sim::scenario::KEYS.to_vec()), json_values()), 0..8)
    ) {
        let mut map = serde_json::Map::new();
        map.insert("crash_at_ms".into(), 1_000.into());
        for (key, value) in entries {
            map.insert(key.name.to_string(), value);
        }
        match Input::from_value(&serde_json::Value::Object(map)) {
            Err(e) => prop_assert!(!e.message.is_empty()),
            Ok(input) if input.scenario.estimated_events() < 200_000 => {
                let run = simulate(&input.scenario);
                prop_assert!(run.is_ok(), "{:?}", run.err());
            }
            Ok(_) => {}
        }
    }
}

/// Long horizons (up to a day) and offsets up to 10^12: log ends and starts far out, skips
/// to the log end after offsets expire, new groups that commit or close before their first
/// poll, eviction and restarts. Records are coarse so the run stays within the event bound.
fn far_scenarios() -> impl Strategy<Value = Scenario> {
    (
        (0u64..=1_000_000_000_000, 0u64..=1_000_000_000_000, 1_000u64..=86_400_000),
        (0usize..CommitStrategy::ALL.len(), any::<bool>(), 1u32..=500, 0u64..=2_000_000),
        (proptest::option::of(1u64..=1_000), proptest::option::of(0u64..=1_000), any::<bool>(), 1u64..=30),
        (
            proptest::option::of(proptest::collection::vec(0usize..5, 0..6)),
            proptest::option::of(1u64..=100_000),
        ),
    )
        .prop_map(
            |(
                (log_end, log_start, horizon_ms),
                (strategy, pool, mpr, rate_milli),
                (close_permille, downtime_permille, earliest, retention_minutes),
                (script, poll_interval_ms),
            )| {
                let horizon_us = horizon_ms * 1_000;
                let strategy = match CommitStrategy::ALL[strategy] {
                    CommitStrategy::StoreOffsetsAfterProcessing => CommitStrategy::AutoCommitBackground,
                    other => other,
                };
                let script = script.map(|steps| {
                    steps
                        .into_iter()
                        .map(|i| {
                            [
                                ScriptStep::CommitSync,
                                ScriptStep::Close,
                                ScriptStep::Poll,
                                ScriptStep::Process(3),
                                ScriptStep::Sleep(horizon_us / 4),
                            ][i]
                        })
                        .collect::<Vec<_>>()
                });
                let close_at_us =
                    close_permille.map(|p| (horizon_us * p / 1_000).max(1)).filter(|_| script.is_none());
                Scenario {
                    log_end_offset: log_end.max(log_start),
                    log_start_offset: log_start.min(log_end),
                    horizon_us,
                    // About 2000 records over the horizon at most.
                    record_processing_us: (horizon_us / 2_000).max(1_000),
                    auto_commit_interval_us: (horizon_us / 10).max(1_000),
                    fetch_max_wait_us: (horizon_us / 100).clamp(1_000, 300_000_000),
                    strategy,
                    worker_pool: pool && script.is_none() && strategy != CommitStrategy::Transactional,
                    max_poll_records: mpr,
                    produce_rate_milli_per_s: rate_milli,
                    close_at_us,
                    downtime_us: downtime_permille
                        .filter(|_| close_at_us.is_some() || script.is_some())
                        .map(|p| horizon_us * p / 1_000),
                    offsets_retention_minutes: retention_minutes,
                    auto_offset_reset: if earliest { OffsetReset::Earliest } else { OffsetReset::Latest },
                    max_poll_interval_us: poll_interval_ms.map_or(300_000_000, |ms| ms * 1_000),
                    script,
                    ..Scenario::default()
                }
            },
        )
        .prop_filter("within the event bound", |s| s.validate().is_ok())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Far offsets and long horizons: the run stays small (its output grows with events, not
    /// offsets) and the one-pass profile still equals the brute force.
    #[test]
    fn far_offsets_and_long_horizons_stay_bounded_and_exact(scenario in far_scenarios()) {
        let run = simulate(&scenario).unwrap();
        let lines = run.lines();
        let size = run.marks.len() + lines.profile.len() + lines.position.len() + lines.committed.len() + lines.durable_frontier.len();
        prop_assert!(size as u64 <= 20 * scenario.estimated_events() + 100, "{} entries for ≤ {} events", size, scenario.estimated_events());
        for crash_at_us in probe_instants(&run) {
            prop_assert_eq!(run.state_at(crash_at_us), crash_state_brute_force(&scenario, crash_at_us).unwrap(), "crash at {} µs", crash_at_us);
        }
    }
}
