//! model.md §11: share groups (KIP-932) — the reference scenarios S1–S3, exact numbers, and
//! properties over random share groups: the crash counts against a recount from the marks,
//! the broker's caps, determinism.
#![cfg(all(feature = "group", not(target_arch = "wasm32")))]

use offset_window_sim::events::{GroupEvent, GroupEventKind, ShutdownMode};
use offset_window_sim::scenario::{Consumption, OnError, ShareAcknowledgementMode, ShareAcquireMode};
use offset_window_sim::share_report::ShareSummary;
use offset_window_sim::{simulate, MarkKind, Run, Scenario, Strategy as CommitStrategy};
use proptest::prelude::*;
use std::collections::BTreeMap;

const MS: u64 = 1_000;

fn run(json: &str) -> Run {
    simulate(&Scenario::from_json(json).unwrap()).unwrap()
}

/// S1: one member, implicit: the window is one batch. Records 0–4 are done at 1 s; their
/// ACCEPT, sent with the 1 s poll, lands at 1.005 s; a crash at 8.2 s repeats nothing (40–44
/// are acquired, 40 not yet done).
#[test]
fn s1_implicit_acknowledgement_leaves_one_batch_to_repeat() {
    let run = run(r#"{"consumption":"share_group"}"#);
    let share = ShareSummary::new(&run, 8_200 * MS);
    assert_eq!((share.worst_duplicated, share.worst_duplicated_at_ms), (5, Some(1_000.001)));
    assert_eq!(share.at_crash.duplicated, 0);
    assert_eq!(share.at_crash.lost, 0);
    assert_eq!(share.worst_lost, 0);
}

/// S2: explicit, record 0 always fails and is RELEASEd: delivered at 0, 2, 4, 6 and 7.2 s
/// (each RELEASE lands with the next poll + 5 ms, after that poll acquired the next batch; from
/// its 4th delivery on, Kafka's throttling delivers it alone: 6 s and 7.2 s), archived at the
/// 5th: lost 1 from 7.405 s.
#[test]
fn s2_a_released_record_is_archived_at_the_delivery_limit() {
    let run = run(
        r#"{"consumption":"share_group","share.acknowledgement.mode":"explicit","record_failures":[0],"on_error":"release"}"#,
    );
    let deliveries: Vec<(u64, u32)> = run
        .marks
        .iter()
        .filter_map(|m| match m.kind {
            MarkKind::ShareAcquired { offset: 0, delivery } => Some((m.at_us / MS, delivery)),
            _ => None,
        })
        .collect();
    assert_eq!(deliveries, [(0, 1), (2_000, 2), (4_000, 3), (6_000, 4), (7_200, 5)]);
    let acquired_at = |t: u64| {
        run.marks.iter().filter(|m| m.at_us == t && matches!(m.kind, MarkKind::ShareAcquired { .. })).count()
    };
    assert_eq!((acquired_at(4_000 * MS), acquired_at(6_000 * MS), acquired_at(7_200 * MS)), (5, 1, 1));
    assert!(run
        .marks
        .iter()
        .any(|m| m.at_us == 7_405 * MS && m.kind == MarkKind::ShareArchived { offset: 0 }));
    let share = ShareSummary::new(&run, 12_000 * MS);
    assert_eq!((share.worst_lost, share.worst_lost_at_ms), (1, Some(7_405.001)));
    assert_eq!(share.archived, 1);
}

/// Kafka's delivery throttling (Kafka 4.3.1 `SharePartition.acquire`,
/// `shouldThrottleRecordsDelivery`, `acquireSubsetBatchRecords`; model.md §11.2). Records 0
/// and 1 always fail and are RELEASEd; the first poll made 0–4 one in-flight batch. Once a
/// record of it has max(2, ⌈limit / 2⌉) deliveries, a poll takes nothing outside it, and at
/// most max(1, 5 >> (d − threshold + 1)) of its records: both at their first throttled
/// delivery (5 >> 1 = 2), then each alone; a record's last delivery is always alone (so with
/// limit 3 both go alone at once). Seen alone on Apache Kafka 4.3.1 with one failing record
/// (conformance share-release-archived).
#[test]
fn a_record_delivered_half_the_limit_times_is_delivered_alone() {
    for limit in [3u32, 5, 10] {
        let run = run(&format!(
            r#"{{"consumption":"share_group","share.acknowledgement.mode":"explicit","record_failures":[0,1],"on_error":"release","group.share.delivery.count.limit":{limit},"horizon_ms":60000}}"#
        ));
        let throttle = limit.div_ceil(2).max(2);
        let acquired: Vec<(u64, u64, u32)> = run
            .marks
            .iter()
            .filter_map(|m| match m.kind {
                MarkKind::ShareAcquired { offset, delivery } => Some((m.at_us, offset, delivery)),
                _ => None,
            })
            .collect();
        let mut late = 0;
        for &(at, offset, delivery) in &acquired {
            if delivery > throttle {
                late += 1;
                let same_poll: Vec<_> = acquired.iter().filter(|a| a.0 == at).collect();
                let together = if delivery == throttle + 1 && delivery < limit { 2 } else { 1 };
                assert_eq!(
                    same_poll.len(),
                    together,
                    "limit {limit}: offset {offset}, delivery {delivery} at {at}"
                );
                assert!(
                    same_poll.iter().all(|a| a.1 <= 1 && a.2 == delivery),
                    "limit {limit}: {same_poll:?}"
                );
            }
        }
        assert_eq!(late, 2 * (limit - throttle), "limit {limit}");
        let archived = run.marks.iter().filter(|m| matches!(m.kind, MarkKind::ShareArchived { .. })).count();
        assert_eq!(archived, 2, "limit {limit}");
    }
}

/// S3: one partition, three members polling at one instant in member order, 200 ms a
/// record: 15 records a second against one member's 5 — 180 processed by 12 s, 60 each.
#[test]
fn s3_more_members_than_partitions_all_get_work() {
    let three = ShareSummary::new(&run(r#"{"consumption":"share_group","members":3}"#), 12_000 * MS);
    assert_eq!(three.processed, 180);
    assert_eq!(three.processed_by_member, [60, 60, 60]);
    let one = ShareSummary::new(&run(r#"{"consumption":"share_group"}"#), 12_000 * MS);
    assert_eq!(one.processed, 60);
}

/// A crash releases the member's records at once; a hang keeps them until their locks
/// expire (30 s), and the hung member's late runs repeat work another member accepted.
#[test]
fn a_crash_releases_at_once_a_hang_waits_for_the_locks() {
    let crash = run(
        r#"{"consumption":"share_group","members":2,"horizon_ms":60000,"group_events":[{"at_ms":3100,"member":1,"kind":"crash"}]}"#,
    );
    let released_at: Vec<u64> = crash
        .marks
        .iter()
        .filter(|m| matches!(m.kind, MarkKind::ShareReleased { .. }))
        .map(|m| m.at_us)
        .collect();
    assert!(!released_at.is_empty() && released_at.iter().all(|&t| t == 3_100 * MS), "{released_at:?}");
    let hang = run(
        r#"{"consumption":"share_group","members":2,"horizon_ms":60000,"group_events":[{"at_ms":3100,"member":1,"kind":"hang","duration_ms":40000}]}"#,
    );
    let expired: Vec<u64> = hang
        .marks
        .iter()
        .filter(|m| matches!(m.kind, MarkKind::ShareLockExpired { .. }))
        .map(|m| m.at_us)
        .collect();
    // consumer-1's 3 s poll acquired 5 records, locked until 33 s.
    assert_eq!(expired, vec![33_000 * MS; 5]);
}

/// Implicit `close()` releases the last batch without acknowledging it: a graceful close
/// repeats what the closing member had processed.
#[test]
fn an_implicit_close_releases_the_last_batch() {
    let run = run(
        r#"{"consumption":"share_group","members":2,"group_events":[{"at_ms":3100,"member":1,"kind":"shutdown","shutdown_mode":"wakeup"}]}"#,
    );
    let share = ShareSummary::new(&run, 12_000 * MS);
    assert_eq!(share.released, 5, "the batch consumer-1 finished at 4 s");
    assert_eq!(share.redeliveries, 5);
}

/// S4 (model.md §11.3, KIP-1222): two members, explicit, offset 0 takes 40 s against the 30 s
/// lock. Without renewals its lock expires at 30 s, consumer-2 takes it (delivery 2) and both
/// process it: consumer-1's ACCEPT at 40 s is refused (and consumer-2's lock runs out at 60 s
/// in its turn). With `share_renew_every_ms` 15 000 the
/// RENEWs land at 15.005 and 30.005 s, each starting the lock over, and offset 0 is delivered
/// once; each renewal's poll also acquires one of consumer-1's next records.
#[test]
fn s4_renewals_keep_a_long_record_locked() {
    let scenario = |renew: &str| {
        format!(
            r#"{{"consumption":"share_group","members":2,"share.acknowledgement.mode":"explicit",
            "max.poll.records":1,"record_processing_ms_by_offset":{{"0":40000}},"horizon_ms":60000,
            "share_renew_every_ms":{renew}}}"#
        )
    };
    let marks_of_0 = |run: &Run| -> Vec<(u16, u64, String)> {
        let zero = |kind: &MarkKind| match kind {
            MarkKind::ShareAcquired { offset, .. }
            | MarkKind::ShareRenewed { offset }
            | MarkKind::ShareLockExpired { offset }
            | MarkKind::ShareAccepted { offset }
            | MarkKind::RecordDurable { offset } => *offset == 0,
            _ => false,
        };
        let name = |kind: &MarkKind| format!("{kind:?}").split([' ', '{']).next().unwrap_or("").to_string();
        let before_60_s = run.marks.iter().filter(|m| m.at_us < 60_000 * MS);
        before_60_s.filter(|m| zero(&m.kind)).map(|m| (m.member, m.at_us / MS, name(&m.kind))).collect()
    };
    let owned = |list: &[(u16, u64, &str)]| -> Vec<(u16, u64, String)> {
        list.iter().map(|&(m, t, k)| (m, t, k.to_string())).collect()
    };
    let plain = run(&scenario("null"));
    let expected = owned(&[
        (0, 0, "ShareAcquired"),
        (0, 30_000, "ShareLockExpired"),
        (1, 30_000, "ShareAcquired"),
        (0, 40_000, "RecordDurable"),
    ]);
    assert_eq!(marks_of_0(&plain), expected);
    let share = ShareSummary::new(&plain, 60_000 * MS);
    assert_eq!((share.redeliveries, share.renewed, share.locks_expired), (2, 0, 2));
    let renewed = run(&scenario("15000"));
    let expected = owned(&[
        (0, 0, "ShareAcquired"),
        (0, 15_005, "ShareRenewed"),
        (0, 30_005, "ShareRenewed"),
        (0, 40_000, "RecordDurable"),
        (0, 40_005, "ShareAccepted"),
    ]);
    assert_eq!(marks_of_0(&renewed), expected);
    let share = ShareSummary::new(&renewed, 60_000 * MS);
    assert_eq!((share.redeliveries, share.renewed, share.locks_expired), (0, 2, 0));
    // Each renewal's poll leaves a ShareFetch waiting, which takes the next record at once —
    // offset 1 at 15 s, offset 2 at 30 s, whatever the buffer holds (kafka-clients 4.3.1 fetches
    // while `fetchMoreRecords`, not only with an empty buffer).
    let acquired_by_1 = |at_ms: u64| {
        renewed
            .marks
            .iter()
            .filter(|m| m.member == 0 && m.at_us == at_ms * MS)
            .any(|m| matches!(m.kind, MarkKind::ShareAcquired { .. }))
    };
    assert_eq!((acquired_by_1(15_000), acquired_by_1(30_000)), (true, true));
}

/// Random share groups: 1–4 members and partitions, both acknowledgement modes, both acquire
/// modes over producer batches of 1–8 records, failures released or rejected, renewed locks, crashes, hangs and shutdowns, tight locks and delivery
/// limits.
fn share_scenarios() -> impl Strategy<Value = Scenario> {
    (
        (1u32..=4, 1u32..=3, 1u32..=8, 20_000u64..=400_000, any::<bool>(), 0usize..4),
        (proptest::collection::vec(0u64..=30, 0..3), 0u64..=200, 0usize..4, 2u32..=4),
        proptest::collection::vec(
            (0u64..=20_000, 1u16..=4, 0usize..3, any::<bool>(), proptest::option::of(0u64..=5_000)),
            0..4,
        ),
        (0u64..=30, any::<u64>(), proptest::option::of(1_000u64..=20_000), 1u32..=8, any::<bool>()),
    )
        .prop_map(
            |(
                (members, partitions, mpr, processing_us, explicit, strategy),
                (failures, failure_permille, on_error, limit),
                events,
                (rate_per_s, seed, renew_ms, per_batch, batch_optimized),
            )| {
                let explicit_mode = explicit;
                let on_error =
                    [OnError::LogAndContinue, OnError::Retry, OnError::Release, OnError::Reject][on_error];
                let on_error = if !explicit_mode && matches!(on_error, OnError::Release | OnError::Reject) {
                    OnError::LogAndContinue
                } else {
                    on_error
                };
                let group_events = events
                    .into_iter()
                    .map(|(at_ms, member, kind, abrupt, restart_ms)| {
                        let kind =
                            [GroupEventKind::Crash, GroupEventKind::Hang, GroupEventKind::Shutdown][kind];
                        let mut e = GroupEvent::new(at_ms * MS, member.min(members as u16), kind);
                        e.shutdown_mode = if abrupt { ShutdownMode::Abrupt } else { ShutdownMode::Wakeup };
                        e.restart_after_us = restart_ms.map(|ms| ms * MS);
                        e.duration_us = 20_000 * MS;
                        e
                    })
                    .collect();
                Scenario {
                    consumption: Consumption::ShareGroup,
                    members,
                    partitions,
                    max_poll_records: mpr,
                    record_processing_us: processing_us,
                    share_acknowledgement_mode: if explicit_mode {
                        ShareAcknowledgementMode::Explicit
                    } else {
                        ShareAcknowledgementMode::Implicit
                    },
                    strategy: [
                        CommitStrategy::AutoCommit,
                        CommitStrategy::CommitSyncBatch,
                        CommitStrategy::CommitAsyncBatch,
                        CommitStrategy::CommitSyncRecord,
                    ][strategy],
                    record_failures: failures,
                    record_failure_per_mille: failure_permille,
                    on_error,
                    share_delivery_count_limit: limit,
                    share_record_lock_duration_us: 15_000 * MS,
                    share_renew_every_us: renew_ms.filter(|_| explicit_mode).map(|ms| ms * MS),
                    share_partition_max_record_locks: 100,
                    share_acquire_mode: if batch_optimized {
                        ShareAcquireMode::BatchOptimized
                    } else {
                        ShareAcquireMode::RecordLimit
                    },
                    records_per_producer_batch: per_batch,
                    // A ShareFetch's bytes (model.md §11.2), from the seed's high bits: Kafka's
                    // default, one batch a read, or a few 1 KiB records.
                    fetch_max_bytes: [52_428_800, 1, 3_000, 7_000][(seed >> 62) as usize],
                    log_end_offset: 60,
                    produce_rate_milli_per_s: rate_per_s * 1_000_000,
                    group_events,
                    horizon_us: 40_000 * MS,
                    seed,
                    ..Scenario::default()
                }
            },
        )
        .prop_filter("valid", |s| s.validate().is_ok())
}

/// §11's counts recounted from the marks: a record that has run and not ended is a
/// duplicate; one that has ended and not run is lost.
fn recount(run: &Run, crash_at_us: u64) -> (u64, u64) {
    let mut records: BTreeMap<(u16, u64), (bool, bool)> = BTreeMap::new();
    for m in run.marks.iter().take_while(|m| m.at_us < crash_at_us) {
        let key = |offset| (m.partition, offset);
        match m.kind {
            MarkKind::RecordDurable { offset } => records.entry(key(offset)).or_default().0 = true,
            MarkKind::ShareAccepted { offset }
            | MarkKind::ShareRejected { offset }
            | MarkKind::ShareArchived { offset } => {
                records.entry(key(offset)).or_default().1 = true;
            }
            _ => {}
        }
    }
    let duplicated = records.values().filter(|&&(ran, ended)| ran && !ended).count() as u64;
    let lost = records.values().filter(|&&(ran, ended)| ended && !ran).count() as u64;
    (lost, duplicated)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn share_counts_equal_a_recount_from_the_marks(scenario in share_scenarios()) {
        // An event aimed at a member that is down is refused (model.md §10.3).
        let Ok(run) = simulate(&scenario) else { return Ok(()) };
        let mut instants: Vec<u64> = run.marks.iter().flat_map(|m| [m.at_us, m.at_us + 1]).collect();
        instants.sort_unstable();
        instants.dedup();
        for t in instants.into_iter().filter(|&t| t > 0 && t <= scenario.horizon_us).step_by(3) {
            let state = run.share_state_at(t);
            prop_assert_eq!((state.lost, state.duplicated), recount(&run, t), "crash at {} µs", t);
        }
    }

    #[test]
    fn the_broker_caps_hold(scenario in share_scenarios()) {
        let Ok(run) = simulate(&scenario) else { return Ok(()) };
        let mut held: BTreeMap<(u16, u64), u16> = BTreeMap::new();
        for m in &run.marks {
            match m.kind {
                MarkKind::ShareAcquired { offset, delivery } => {
                    prop_assert!(delivery <= scenario.share_delivery_count_limit, "{:?}", m);
                    // Never acquired by two members at once.
                    prop_assert!(held.insert((m.partition, offset), m.member).is_none(), "{:?}", m);
                }
                MarkKind::ShareAccepted { offset } | MarkKind::ShareRejected { offset } | MarkKind::ShareReleased { offset } | MarkKind::ShareLockExpired { offset } => {
                    held.remove(&(m.partition, offset));
                }
                MarkKind::ShareArchived { offset } => {
                    held.remove(&(m.partition, offset));
                }
                _ => {}
            }
        }
        // The window may pass the cap by the rest of a producer batch (model.md §11.2).
        let over = u64::from(scenario.records_per_producer_batch) - 1;
        let cap = u64::from(scenario.share_partition_max_record_locks) + over;
        let t = scenario.horizon_us;
        prop_assert!(run.share_state_at(t).in_flight <= u64::from(scenario.partitions) * cap);
    }

    /// model.md §11.2: one member's first poll over a backlog of `backlog` records in producer
    /// batches of `per_batch`: `record_limit` takes min(max.poll.records, backlog) records;
    /// `batch_optimized` goes on to the end of the producer batch it reached, so it never takes
    /// fewer, and ends on a batch boundary (or the log end).
    #[test]
    fn batch_optimized_takes_whole_producer_batches(
        per_batch in 1u32..=20,
        mpr in 1u32..=20,
        backlog in 1u64..=60,
        rate in 0u64..=50,
    ) {
        let polls = |mode: ShareAcquireMode| {
            let scenario = Scenario {
                consumption: Consumption::ShareGroup,
                share_acquire_mode: mode,
                records_per_producer_batch: per_batch,
                max_poll_records: mpr,
                log_end_offset: backlog,
                produce_rate_milli_per_s: rate * 1_000_000,
                horizon_us: 5_000 * MS,
                ..Scenario::default()
            };
            simulate(&scenario)
                .unwrap()
                .marks
                .iter()
                .filter_map(|m| match m.kind {
                    MarkKind::Poll { from, records } if records > 0 => Some((m.at_us, from, u64::from(records))),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        let (limited, whole) = (polls(ShareAcquireMode::RecordLimit), polls(ShareAcquireMode::BatchOptimized));
        let first = mpr.min(backlog as u32) as u64;
        prop_assert_eq!(limited[0], (0, 0, first));
        let n = u64::from(per_batch);
        let batch_end = ((first - 1) / n + 1) * n;
        prop_assert_eq!(whole[0], (0, 0, batch_end.min(backlog)));
        for &(at_us, from, records) in &whole {
            // Every poll ends at a producer batch's end: the backlog's are multiples of
            // `per_batch` (its last one ends at the backlog's end), the produced ones follow it.
            let end = from + records;
            let boundary = if end <= backlog { end % n == 0 || end == backlog } else { (end - backlog) % n == 0 };
            prop_assert!(boundary, "poll at {} µs took {}..{}", at_us, from, end);
        }
    }

    #[test]
    fn share_runs_are_deterministic(scenario in share_scenarios()) {
        prop_assert_eq!(simulate(&scenario), simulate(&scenario));
    }
}

/// model.md §11.3: a `ShareFetch` a renewal left waiting takes a record the moment it is
/// offered again — here by another member's RELEASE, not a lock running out. consumer-1
/// renews offset 0 (40 s) at 5 s with nothing else to acquire; consumer-2's offset 1 throws
/// after 6 s and its RELEASE lands at 6.005 s: consumer-1's waiting fetch takes it at once
/// (delivery 2), before consumer-2's next poll.
#[test]
fn a_waiting_fetch_takes_a_released_record_at_once() {
    let run = run(r#"{"consumption":"share_group","members":2,"share.acknowledgement.mode":"explicit",
        "max.poll.records":1,"record_processing_ms_by_offset":{"0":40000,"1":6000},
        "record_failures":[1],"on_error":"release","log_end_offset":2,"share_renew_every_ms":5000,
        "horizon_ms":12000}"#);
    let acquired: Vec<(u16, u64, u64, u32)> = run
        .marks
        .iter()
        .filter_map(|m| match m.kind {
            MarkKind::ShareAcquired { offset, delivery } => Some((m.member, m.at_us / MS, offset, delivery)),
            _ => None,
        })
        .collect();
    assert_eq!(acquired, [(0, 0, 0, 1), (1, 0, 1, 1), (0, 6_005, 1, 2)]);
}

/// model.md §11.2, throttling inside an in-flight batch (Kafka 4.3.1
/// `SharePartition.acquireSubsetBatchRecords`): one producer batch of 8 records that all throw
/// and are released, delivery count limit 5 (threshold 3). Deliveries 1–3 take the batch whole;
/// the fourth takes 8 >> 1 = 4 records (0–3), and the next poll, while 0–3 are still held (their
/// RELEASEs land 5 ms after it), the other 4 (4–7); a record's fifth delivery is its last and
/// goes alone (0, 1, …, 7 one by one). `record_limit` does the same: throttling works on the
/// broker's in-flight batch, here 0–7 in both modes.
#[test]
fn throttling_halves_an_in_flight_batch() {
    let polls = |mode: &str| {
        let run = run(&format!(
            r#"{{"consumption":"share_group","share.acknowledgement.mode":"explicit","record_failures":[0,1,2,3,4,5,6,7],
            "on_error":"release","records_per_producer_batch":8,"max.poll.records":8,"log_end_offset":8,
            "share.acquire.mode":"{mode}","horizon_ms":60000}}"#
        ));
        run.marks
            .iter()
            .filter_map(|m| match m.kind {
                MarkKind::Poll { from, records } if records > 0 => Some((from, records)),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        polls("batch_optimized"),
        [
            (0, 8),
            (0, 8),
            (0, 8),
            (0, 4),
            (4, 4),
            (0, 1),
            (1, 1),
            (2, 1),
            (3, 1),
            (4, 1),
            (5, 1),
            (6, 1),
            (7, 1)
        ]
    );
    // The in-flight batch is the same 0–7 under `record_limit` (its first fetch took 8).
    assert_eq!(polls("record_limit"), polls("batch_optimized"));
}

/// S5: S1 with producer batches of 3 and `batch_optimized`: the poll reaching offset 4 takes
/// its batch 3–5, so 6 records a poll, 1.2 s of work; a crash at 8.1 s finds 36–41 (the 7.2 s
/// poll), 36–39 done. `record_limit`: 5 a poll, nothing repeats at 8.1 s, and the window runs
/// to the end of the batch reached (45).
#[test]
fn s5_batch_optimized_takes_whole_producer_batches() {
    let at = |mode: &str| {
        let run = run(&format!(
            r#"{{"consumption":"share_group","records_per_producer_batch":3,"share.acquire.mode":"{mode}"}}"#
        ));
        let share = ShareSummary::new(&run, 8_100 * MS);
        (
            share.worst_duplicated,
            share.worst_duplicated_at_ms,
            share.at_crash.duplicated,
            share.at_crash.in_flight,
        )
    };
    assert_eq!(at("batch_optimized"), (6, Some(1_200.001), 4, 6));
    assert_eq!(at("record_limit"), (5, Some(1_000.001), 0, 5));
}

/// model.md §11.2, the byte limit of a `ShareFetch` (kafka-clients 4.3.1 sends `fetch.max.bytes`
/// as the request's MaxBytes; `max.partition.fetch.bytes` is not sent; Apache Kafka 4.3.1 reads
/// each partition up to an equal share of it, in whole producer batches, at least one):
/// (from, records) of every poll.
#[test]
fn a_share_fetch_reads_whole_batches_within_fetch_max_bytes() {
    let polls = |extra: &str| {
        let run = run(&format!(
            r#"{{"consumption":"share_group","record_processing_ms":50,"log_end_offset":40,"horizon_ms":30000{extra}}}"#
        ));
        run.marks
            .iter()
            .filter_map(|m| match m.kind {
                MarkKind::Poll { from, records } if records > 0 => Some((from, records)),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    // One 70-byte record a batch: four fit in 300 bytes, a poll of 4 where max.poll.records is 5.
    let bytes = r#","fetch.max.bytes":300,"record_size_bytes":70"#;
    let four: Vec<(u64, u32)> = (0..10).map(|k| (4 * k, 4)).collect();
    assert_eq!(polls(bytes), four);
    // Two partitions share the 300 bytes: 150 each, two records a fetch.
    let two = polls(&format!(r#"{bytes},"partitions":2"#));
    assert!(two.iter().all(|&(_, n)| n == 2) && two.len() == 40, "{two:?}");
    // Batches of 8 records (560 bytes) are read whole, one a fetch: record_limit acquires 5,
    // and the next fetch, from 5, reads the same batch and acquires its other 3 — nothing new.
    let batches = polls(&format!(r#"{bytes},"records_per_producer_batch":8"#));
    assert_eq!(&batches[..4], [(0, 5), (5, 3), (8, 5), (13, 3)]);
    // Kafka's 50 MiB default never binds here: polls of 5, and of 5 then 5 with batches of 8.
    let default: Vec<(u64, u32)> = (0..8).map(|k| (5 * k, 5)).collect();
    assert_eq!(polls(""), default);
    assert_eq!(&polls(r#","records_per_producer_batch":8"#)[..2], [(0, 5), (5, 5)]);
}
