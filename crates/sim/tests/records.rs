//! model.md §12: what happens to one record — failures and error handlers, durations by
//! offset, pools finishing out of order and the offset their commits carry. Each framework
//! behaviour names the source it follows; the hand-derived reference values live in the
//! `scenarios/s12-*` files (checked by the CLI's scenario-file test).
#![cfg(not(target_arch = "wasm32"))]

use offset_window_sim::scenario::{Ordering, PoolCommit};
use offset_window_sim::{simulate, MarkKind, Run, Scenario, Strategy as CommitStrategy};
use proptest::prelude::*;

const MS: u64 = 1_000;

fn run(json: &str) -> Run {
    simulate(&Scenario::from_json(json).unwrap()).unwrap()
}

/// (µs, offset) of every mark of a kind picked by `pick`.
fn marks(run: &Run, pick: impl Fn(MarkKind) -> Option<u64>) -> Vec<(u64, u64)> {
    run.marks.iter().filter_map(|m| pick(m.kind).map(|o| (m.at_us, o))).collect()
}

fn commits_sent(run: &Run) -> Vec<(u64, u64)> {
    marks(run, |k| match k {
        MarkKind::CommitSent { offset, .. } => Some(offset),
        _ => None,
    })
}

/// Spring Kafka `SeekUtils.DEFAULT_BACK_OFF` = `FixedBackOff(0, 9)`: `DefaultErrorHandler`
/// delivers a failing record 10 times (counted by `FailedRecordTracker`), seeking back to it
/// after each (`SeekUtils.seekOrRecover` → `doSeeks`), then recovers (skips) it.
#[test]
fn spring_default_error_handler_delivers_a_failing_record_ten_times() {
    let run = run(r#"{"record_failures":[12],"on_error":"seek_to_failed","strategy":"commit_sync_batch"}"#);
    let failures = marks(&run, |k| match k {
        MarkKind::RecordFailed { offset } => Some(offset),
        _ => None,
    });
    assert_eq!(failures.len(), 10);
    assert!(failures.iter().all(|&(_, o)| o == 12));
    let polls_from_12 =
        run.marks.iter().filter(|m| matches!(m.kind, MarkKind::Poll { from: 12, .. })).count();
    assert_eq!(polls_from_12, 9, "each failed delivery but the last is followed by a poll from 12");
    // Before seeking, `invokeErrorHandler` → `processCommits` commits what is before it once.
    assert_eq!(commits_sent(&run).iter().filter(|&&(_, o)| o == 12).count(), 1);
    // After recovery the record is acknowledged (`commitOffsetsIfNeededAfterHandlingError`,
    // `isAckAfterHandle()` true by default): 13 is committed at once.
    let skipped_at = marks(&run, |k| match k {
        MarkKind::RecordSkipped { offset } => Some(offset),
        _ => None,
    })[0]
        .0;
    assert!(commits_sent(&run).contains(&(skipped_at, 13)));
    assert!(!run
        .marks
        .iter()
        .any(|m| matches!(m.kind, MarkKind::RecordDurable { offset: 13 }) && m.at_us < skipped_at));
}

/// Without `ackAfterHandle` the recovered record is not committed on its own.
#[test]
fn without_ack_on_error_the_recovered_record_waits_for_the_next_commit() {
    let run = run(
        r#"{"record_failures":[12],"on_error":"seek_to_failed","strategy":"commit_sync_batch","ack_on_error":false}"#,
    );
    assert!(!commits_sent(&run).iter().any(|&(_, o)| o == 13));
    assert_eq!(run.summary_at(12_000 * MS).records.unwrap().skipped, 1);
}

/// Spring Kafka 3.1 (GH-2731, `KafkaMessageListenerContainer.ListenerConsumer.invokeOnMessage`
/// → `doProcessCommits`) checks `ackCount` after each record; before, `processCommits` ran
/// once the whole poll's records were handled.
#[test]
fn spring_count_is_checked_after_each_record_since_3_1() {
    let json = |check: &str| {
        format!(
            r#"{{"strategy":"commit_sync_count","commit_every_records":3,"max.poll.records":10,"spring_ack_check":"{check}","horizon_ms":4100}}"#
        )
    };
    let sent: Vec<u64> = commits_sent(&run(&json("after_record"))).into_iter().map(|(_, o)| o).collect();
    assert_eq!(sent[..6], [3, 6, 9, 12, 15, 18]);
    let sent: Vec<u64> = commits_sent(&run(&json("after_poll"))).into_iter().map(|(_, o)| o).collect();
    assert_eq!(sent, [10, 20], "only at the batch ends (the count reached 10 ≥ 3 each time)");
}

/// Spring Kafka 3.1+ `pollAndInvoke`: COUNT commits what is pending when a poll returns no
/// records.
#[test]
fn spring_count_commits_what_is_pending_at_an_empty_poll() {
    let run = run(
        r#"{"strategy":"commit_sync_count","commit_every_records":3,"log_end_offset":7,"horizon_ms":3000}"#,
    );
    let sent: Vec<u64> = commits_sent(&run).into_iter().map(|(_, o)| o).collect();
    assert_eq!(sent, [3, 6, 7], "7 = the last record, pending below the count, at the empty poll");
}

/// Spring `AckMode.TIME` (`timedAcks`): a commit once more than `ackTime` has passed.
#[test]
fn spring_time_commits_once_more_than_ack_time_has_passed() {
    let run = run(r#"{"strategy":"commit_sync_time","commit_every_ms":1000,"horizon_ms":3500}"#);
    // Records end every 200 ms (+5 ms per landed commit): the first more than 1000 ms in is
    // record 5 at 1200 ms; then record 10 at 2205 ms (1005 ms later), record 15 at 3210 ms.
    assert_eq!(commits_sent(&run), [(1_200 * MS, 6), (2_205 * MS, 11), (3_210 * MS, 16)]);
}

/// `retry`: the loop tries the record again `error_retries` times, `error_retry_backoff_ms`
/// apart, holding the loop; then it is skipped.
/// Spring Kafka 4.1.2 `FallbackBatchErrorHandler` (a batch listener that throws anything but
/// `BatchListenerFailedException`): `ErrorHandlingUtils.retryBatch` pauses the consumer, polls
/// it through the back-off (`ListenerUtils.conditionalSleepWithPoll`) and calls the listener
/// with the same batch, up to the back-off's attempts; then the recoverer takes the batch and
/// the container commits it. The records before the failed one run again each time.
#[test]
fn a_batch_listener_runs_the_whole_batch_again_then_skips_the_rest() {
    let batch = run(
        r#"{"record_failures":[12],"on_error":"retry_batch","strategy":"commit_sync_batch","error_retry_backoff_ms":500,"max_deliveries":3}"#,
    );
    let durable = marks(&batch, |k| match k {
        MarkKind::RecordDurable { offset } => Some(offset),
        _ => None,
    });
    // The batch 10..14 from 2.01 s: 10 and 11 run at 2.21 and 2.41 s, 12 throws at 2.61 s;
    // half a second later the listener has the batch again, three deliveries in all.
    let of = |o: u64| durable.iter().filter(|&&(_, x)| x == o).map(|&(at, _)| at / MS).collect::<Vec<_>>();
    assert_eq!(of(10), [2_210, 3_310, 4_410]);
    assert_eq!(of(11), [2_410, 3_510, 4_610]);
    assert!(of(12).is_empty() && of(13).is_empty() && of(14).is_empty());
    let failed = marks(&batch, |k| match k {
        MarkKind::RecordFailed { offset } => Some(offset),
        _ => None,
    });
    assert_eq!(failed, [(2_610 * MS, 12), (3_710 * MS, 12), (4_810 * MS, 12)]);
    let skipped = marks(&batch, |k| match k {
        MarkKind::RecordSkipped { offset } => Some(offset),
        _ => None,
    });
    assert_eq!(skipped, [(4_810 * MS, 12), (4_810 * MS, 13), (4_810 * MS, 14)]);
    // Then the batch is committed and the loop goes on.
    assert!(commits_sent(&batch).contains(&(4_810 * MS, 15)));
    assert_eq!(batch.state_at(4_900 * MS).lost, 3);
    assert_eq!(batch.state_at(4_900 * MS).duplicated, 4, "10 and 11 ran twice more");
    // The back-off polls the paused consumer: a back-off past max.poll.interval.ms evicts no one.
    let long = run(
        r#"{"record_failures":[12],"on_error":"retry_batch","strategy":"commit_sync_batch","error_retry_backoff_ms":6000,"max.poll.interval.ms":5000,"max_deliveries":3,"horizon_ms":30000}"#,
    );
    assert!(!long.marks.iter().any(|m| m.kind == MarkKind::Evicted));
    assert_eq!(marks(&long, |k| matches!(k, MarkKind::RecordFailed { .. }).then_some(0)).len(), 3);
}

#[test]
fn retry_batch_is_a_spring_batch_listener_of_a_java_classic_consumer() {
    let mut refused = vec![
        (r#"{"on_error":"retry_batch","strategy":"commit_sync_record"}"#, "strategy"),
        (r#"{"on_error":"retry_batch","strategy":"commit_sync_batch","client":"librdkafka"}"#, "client"),
        (r#"{"on_error":"retry_batch","strategy":"commit_sync_batch","worker_pool":true}"#, "worker_pool"),
    ];
    // Without the `group` feature two partitions are refused before (a group at all). In a
    // group it is modelled for the classic protocol, the revocation committing nothing
    // (model.md §12.3; `crates/sim/tests/group.rs`).
    if cfg!(feature = "group") {
        refused.push((
            r#"{"on_error":"retry_batch","strategy":"commit_sync_batch","partitions":2,"client":"java_consumer_protocol"}"#,
            "client",
        ));
        refused.push((
            r#"{"on_error":"retry_batch","strategy":"commit_sync_batch","partitions":2,"on_revoke":"commit_sync"}"#,
            "on_revoke",
        ));
        assert!(Scenario::from_json(
            r#"{"on_error":"retry_batch","strategy":"commit_sync_batch","partitions":2}"#
        )
        .is_ok());
    }
    for (json, key) in refused {
        let err = Scenario::from_json(json).unwrap_err();
        assert_eq!(err.key.as_deref(), Some(key), "{json}: {err}");
        assert!(err.message.starts_with("with on_error \"retry_batch\": "), "{err}");
    }
}

#[test]
fn retry_holds_the_loop_then_skips() {
    let run =
        run(r#"{"record_failures":[0],"on_error":"retry","error_retries":2,"error_retry_backoff_ms":500}"#);
    let failures = marks(&run, |k| match k {
        MarkKind::RecordFailed { offset } => Some(offset),
        _ => None,
    });
    assert_eq!(failures, [(200 * MS, 0), (900 * MS, 0), (1_600 * MS, 0)]);
    let durable_1 = marks(&run, |k| match k {
        MarkKind::RecordDurable { offset: 1 } => Some(1),
        _ => None,
    });
    assert_eq!(durable_1, [(1_800 * MS, 1)]);
}

/// A failed attempt is not a run: a record whose first attempt throws and whose retry
/// succeeds runs once.
#[test]
fn a_failed_attempt_is_not_a_run() {
    let run = run(
        r#"{"record_failure_probability":0.5,"on_error":"retry","error_retries":100,"error_retry_backoff_ms":0,"seed":3}"#,
    );
    let records = run.summary_at(12_000 * MS).records.unwrap();
    assert!(records.failed_attempts > 5 && records.skipped == 0, "{records:?}");
    let mut durable: Vec<u64> = marks(&run, |k| match k {
        MarkKind::RecordDurable { offset } => Some(offset),
        _ => None,
    })
    .into_iter()
    .map(|(_, o)| o)
    .collect();
    let n = durable.len();
    durable.dedup();
    assert_eq!(durable.len(), n, "each record ran once");
    assert_eq!(run.worst().lost, 0);
}

/// Durations by offset override `record_processing_ms`.
#[test]
fn durations_by_offset_override_the_default() {
    let run = run(r#"{"record_processing_ms_by_offset":{"1":1000}}"#);
    let durable: Vec<(u64, u64)> = marks(&run, |k| match k {
        MarkKind::RecordDurable { offset } if offset < 3 => Some(offset),
        _ => None,
    });
    assert_eq!(durable, [(200 * MS, 0), (1_200 * MS, 1), (1_400 * MS, 2)]);
}

/// The Confluent Parallel Consumer's `ProcessingOrder.KEY` (`ShardManager`: one shard per
/// key, a record of a shard taken only when none of it is in flight): records of one key
/// never overlap and end in offset order.
#[test]
fn key_ordering_runs_a_key_one_record_at_a_time_in_order() {
    let run = run(
        r#"{"worker_pool":true,"pool_threads":8,"ordering":"key","keys":3,"max.poll.records":50,"record_processing_ms":100,"record_processing_jitter":"uniform","record_processing_jitter_pct":90,"horizon_ms":5000}"#,
    );
    let durable = marks(&run, |k| match k {
        MarkKind::RecordDurable { offset } => Some(offset),
        _ => None,
    });
    assert!(durable.len() > 100);
    for key in 0..3 {
        let of_key: Vec<u64> = durable.iter().filter(|&&(_, o)| o % 3 == key).map(|&(_, o)| o).collect();
        assert!(of_key.windows(2).all(|w| w[1] == w[0] + 3), "key {key} in order: {of_key:?}");
    }
    // Three keys: at most three records end at once, so three threads do all the work.
    let unordered = run_with("unordered");
    assert!(unordered > durable.len() * 2, "unordered uses all 8 threads: {unordered} vs {}", durable.len());
}

fn run_with(ordering: &str) -> usize {
    let run = run(&format!(
        r#"{{"worker_pool":true,"pool_threads":8,"ordering":"{ordering}","keys":3,"max.poll.records":50,"record_processing_ms":100,"record_processing_jitter":"uniform","record_processing_jitter_pct":90,"horizon_ms":5000}}"#
    ));
    run.marks.iter().filter(|m| matches!(m.kind, MarkKind::RecordDurable { .. })).count()
}

/// Random pool scenarios with no failures: durations by offset and jitter make threads
/// finish out of order under every ordering and strategy.
fn pool_scenarios(pool_commit: PoolCommit) -> impl proptest::strategy::Strategy<Value = Scenario> {
    (
        (1u32..=8, 1u32..=4, 1u32..=20, 0usize..4, 1u32..=6),
        (
            0usize..8,
            proptest::collection::btree_map(0u64..=60, 1_000u64..=3_000_000, 0..4),
            0u64..=90,
            any::<u64>(),
        ),
        (proptest::option::of(500_000u64..=6_000_000), any::<bool>(), proptest::option::of(0u64..=2_000_000)),
    )
        .prop_map(
            move |(
                (threads, in_flight, mpr, ordering, keys),
                (strategy, by_offset, jitter_pct, seed),
                (close_at_us, drain, downtime_us),
            )| {
                let strategy = [
                    CommitStrategy::AutoCommit,
                    CommitStrategy::CommitSyncBatch,
                    CommitStrategy::CommitSyncRecord,
                    CommitStrategy::CommitSyncEveryN,
                    CommitStrategy::CommitAsyncBatch,
                    CommitStrategy::AutoCommitBackground,
                    CommitStrategy::CommitSyncCount,
                    CommitStrategy::CommitSyncTime,
                ][strategy];
                Scenario {
                    worker_pool: true,
                    pool_commit,
                    pool_threads: threads,
                    pool_max_in_flight_batches: in_flight,
                    max_poll_records: mpr,
                    ordering: Ordering::ALL[ordering],
                    keys,
                    strategy,
                    commit_every_records: 7,
                    commit_every_us: 700_000,
                    auto_commit_interval_us: 1_000_000,
                    record_processing_by_offset_us: offset_window_sim::scenario::ByOffset(by_offset),
                    record_processing_jitter: offset_window_sim::scenario::Jitter::Uniform,
                    record_processing_jitter_pct: jitter_pct,
                    seed,
                    close_at_us,
                    drain_pool_on_close: drain,
                    downtime_us: downtime_us.filter(|_| close_at_us.is_some()),
                    horizon_us: 8_000_000,
                    ..Scenario::default()
                }
            },
        )
}

/// Probe instants: every mark's instant and 1 µs after.
fn probes(run: &Run) -> Vec<u64> {
    let mut at: Vec<u64> = run
        .marks
        .iter()
        .flat_map(|m| [m.at_us, m.at_us + 1])
        .filter(|&t| t <= run.scenario.horizon_us)
        .collect();
    at.sort_unstable();
    at.dedup();
    at
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// `contiguous_completed` commits only below the lowest unfinished record, so no
    /// failure-free schedule ever loses one (the Confluent Parallel Consumer's guarantee,
    /// `PartitionState.getOffsetHighestSequentialSucceeded`).
    #[test]
    fn contiguous_completed_never_loses(scenario in pool_scenarios(PoolCommit::ContiguousCompleted)) {
        let run = simulate(&scenario).unwrap();
        prop_assert_eq!(run.worst().lost, 0);
    }

    /// `highest_completed` commits the highest completed offset + 1 — and so loses exactly
    /// the records below the committed offset that have not finished.
    #[test]
    fn highest_completed_loses_exactly_the_unfinished_records_below_it(
        scenario in pool_scenarios(PoolCommit::HighestCompleted)
    ) {
        let scenario = Scenario { close_at_us: None, downtime_us: None, ..scenario };
        let run = simulate(&scenario).unwrap();
        // Each commit carries 1 + the highest offset completed when it was sent.
        let mut highest_end = 0;
        for m in &run.marks {
            match m.kind {
                MarkKind::RecordDurable { offset } => highest_end = highest_end.max(offset + 1),
                MarkKind::CommitSent { offset, .. } => prop_assert_eq!(offset, highest_end, "at {} µs", m.at_us),
                _ => {}
            }
        }
        for t in probes(&run) {
            let state = run.state_at(t);
            let Some(committed) = state.committed else { continue };
            let finished: std::collections::BTreeSet<u64> = run
                .marks
                .iter()
                .filter(|m| m.at_us < t)
                .filter_map(|m| match m.kind { MarkKind::RecordDurable { offset } => Some(offset), _ => None })
                .collect();
            let unfinished_below = (0..committed).filter(|o| !finished.contains(o)).count() as u64;
            prop_assert_eq!(state.lost, unfinished_below, "crash at {} µs", t);
        }
    }

    /// `handed_out` is the pool of model.md §4 as it was: a commit carries the position (or
    /// for the per-record strategies the handed-off offset), never what finished.
    #[test]
    fn handed_out_commits_what_was_handed_out(scenario in pool_scenarios(PoolCommit::HandedOut)) {
        let scenario = Scenario { ordering: Ordering::Batch, ..scenario };
        let run = simulate(&scenario).unwrap();
        let mut position = 0;
        for m in &run.marks {
            match m.kind {
                MarkKind::Poll { from, records } => position = position.max(from + u64::from(records)),
                MarkKind::CommitSent { offset, .. } => prop_assert!(offset <= position),
                _ => {}
            }
        }
        let auto = matches!(scenario.strategy, CommitStrategy::AutoCommit | CommitStrategy::CommitSyncBatch | CommitStrategy::CommitAsyncBatch);
        if auto && scenario.close_at_us.is_none() {
            // These commit exactly the position at the time.
            let mut position = 0;
            for m in &run.marks {
                match m.kind {
                    MarkKind::Poll { from, records } => position = from + u64::from(records),
                    MarkKind::CommitSent { offset, .. } => prop_assert_eq!(offset, position),
                    _ => {}
                }
            }
        }
    }
}
