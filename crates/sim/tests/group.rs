//! model.md §10: the consumer group — the reference scenarios G1–G4, exact numbers.
#![cfg(feature = "group")]

mod common;

use offset_window_sim::report::GroupReport;
use offset_window_sim::MarkKind;
use offset_window_sim::{simulate, Run, Scenario};

const MS: u64 = 1_000;

fn run(json: &str) -> Run {
    simulate(&Scenario::from_json(json).unwrap_or_else(|e| panic!("{e}"))).unwrap_or_else(|e| panic!("{e}"))
}

fn group(run: &Run) -> &GroupReport {
    run.group.as_ref().expect("a group run")
}

/// Two partitions, two members, range: consumer-1 owns orders-0, consumer-2 orders-1.
const BASE: &str = r#""partitions": 2, "members": 2, "horizon_ms": 60000"#;

#[test]
fn g1_a_crash_waits_out_the_session_and_replays_the_window() {
    let run =
        run(&format!(r#"{{{BASE}, "group_events": [{{"at_ms": 8200, "member": 2, "kind": "crash"}}]}}"#));
    let g = group(&run);
    for h in &g.handovers {
        println!("{h:?}");
    }
    println!("{:?}", g.partitions);
    let p1 = g.partitions[1];
    // consumer-1 takes both at 52.015 s and drains orders-0's fetched chunk first (1024
    // records at 5 a second): orders-1 waits past the horizon (model.md §10.1).
    assert_eq!((p1.lost, p1.duplicated, p1.stalled_us), (0, 15, 51_800 * MS));
    assert_eq!((g.partitions[0].lost, g.partitions[0].duplicated), (0, 0));
    assert_eq!(g.rebalances, 1);
}

/// model.md §10.1: a member hands out one partition's fetched chunk
/// (`max.partition.fetch.bytes` / `record_size_bytes` records) before its next partition. G1
/// with a chunk of five records: consumer-1 polls orders-0 at 52.015 s and orders-1 at
/// 53.015 s; with the default 1 MiB of 1 KiB records it never reaches orders-1. Confirmed on
/// Apache Kafka 4.3.1 (`tests/conformance`, group-cooperative-join: orders-1 is never handed
/// out before consumer-1 gives it up).
#[test]
fn g1_with_small_fetched_chunks_reaches_the_second_partition_one_poll_later() {
    let crash = r#""group_events": [{"at_ms": 8200, "member": 2, "kind": "crash"}]"#;
    let run = run(&format!(r#"{{{BASE}, "max.partition.fetch.bytes": 5120, {crash}}}"#));
    let p1 = group(&run).partitions[1];
    assert_eq!((p1.lost, p1.duplicated, p1.stalled_us), (0, 15, 44_815 * MS));
    let polls = |run: &Run, partition| {
        run.marks
            .iter()
            .filter(|m| m.member == 0 && m.partition == partition && m.at_us >= 52_000 * MS)
            .filter(|m| matches!(m.kind, MarkKind::Poll { .. }))
            .map(|m| m.at_us / MS)
            .take(3)
            .collect::<Vec<_>>()
    };
    assert_eq!(polls(&run, 0), [52_015, 54_015, 56_015], "orders-0 and orders-1 take turns");
    assert_eq!(polls(&run, 1), [53_015, 55_015, 57_015]);
    let default = self::run(&format!(r#"{{{BASE}, {crash}}}"#));
    assert!(polls(&default, 1).is_empty(), "a 1024-record chunk of orders-0 lasts past the horizon");
}

/// model.md §10.5: a cooperative member with records to return takes one step of its join
/// per `poll()` (Java `ClassicKafkaConsumer.poll` → `ensureActiveGroup(time.timer(0))`), and a
/// follower's SyncGroup waits for the leader's. consumer-1 holds both partitions (a poll
/// every 2 s); consumer-2 joins at 6.1 s; consumer-1 learns at its 7 s heartbeat and then:
/// 8 s commits, 10 s JoinGroup, 12 s SyncGroup (consumer-2's empty first assignment at
/// 12.005 s), 14 s revokes orders-1 and commits, 16 s JoinGroup, 18 s SyncGroup: orders-1
/// reaches consumer-2 at 18.005 s from 0 (never handed out, §10.1). Confirmed on Apache Kafka
/// 4.3.1 (`tests/conformance`, group-cooperative-join: the real handover at 18.15 s, orders-0
/// committed 35 with 10 records done past it at the kill).
#[test]
fn a_cooperative_member_with_records_takes_one_join_step_per_poll() {
    let run = run(r#"{"partitions": 2, "members": 1, "partition.assignment.strategy": "cooperative-sticky",
        "record_processing_ms": 400, "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000,
        "horizon_ms": 20000, "group_events": [{"at_ms": 6100, "member": 2, "kind": "join"}]}"#);
    let g = group(&run);
    assert_eq!(g.rebalances, 2);
    let h = g.handovers.iter().find(|h| h.partition == 1).unwrap();
    assert_eq!(
        (h.at_us, h.from, h.to, h.committed, h.duplicated),
        (18_005 * MS, Some(0), Some(1), Some(0), 0)
    );
    let joins: Vec<u64> = run
        .marks
        .iter()
        .filter(|m| m.member == 0 && m.kind == MarkKind::JoinSent)
        .map(|m| m.at_us / MS)
        .collect();
    assert_eq!(joins, [10_000, 16_000]);
    let waited = |m: usize| {
        g.members[m].rebalancing.iter().map(|i| (i.from_us / MS, i.to_us / MS)).collect::<Vec<_>>()
    };
    assert_eq!(waited(0), [], "consumer-1 processes throughout");
    assert_eq!(waited(1), [(6_100, 12_005), (16_005, 18_005)]);
}

#[test]
fn g2_a_wakeup_shutdown_commits_what_it_finished() {
    let wakeup =
        run(&format!(r#"{{{BASE}, "group_events": [{{"at_ms": 8200, "member": 2, "kind": "shutdown"}}]}}"#));
    let g = group(&wakeup);
    for h in &g.handovers {
        println!("{h:?}");
    }
    let p1 = g.partitions[1];
    // orders-1 reaches consumer-1 at 13.015 s, behind orders-0's chunk: it waits out the
    // horizon (5010 ms with a five-record chunk, model.md §10.1).
    assert_eq!((p1.lost, p1.duplicated, p1.stalled_us), (0, 0, 50_995 * MS));
    let abrupt = run(&format!(
        r#"{{{BASE}, "group_events": [{{"at_ms": 8200, "member": 2, "kind": "shutdown", "shutdown_mode": "abrupt"}}]}}"#
    ));
    let p1 = group(&abrupt).partitions[1];
    assert_eq!((p1.lost, p1.duplicated), (5, 0), "close() at 8.2 s commits 45 with 40 completed");
}

/// model.md §10.3: with `commitSync()` after each batch, the wakeup makes the 9 s
/// `commitSync(45)` throw — but it was sent first (Java `ConsumerNetworkClient.poll` sends
/// before `maybeTriggerWakeup`) and `close()` waits for it (`awaitPendingRequests`): orders-1
/// passes on at 45 with nothing repeated. Confirmed on Apache Kafka 4.3.1
/// (`tests/conformance`, group-eager-shutdown-sync).
#[test]
fn g2_a_woken_commit_sync_still_commits() {
    let run = run(&format!(
        r#"{{{BASE}, "strategy": "commit_sync_batch", "group_events": [{{"at_ms": 8200, "member": 2, "kind": "shutdown"}}]}}"#
    ));
    let g = group(&run);
    let to_consumer_1 = g.handovers.iter().find(|h| h.partition == 1 && h.to == Some(0)).unwrap();
    assert_eq!((to_consumer_1.committed, to_consumer_1.lost, to_consumer_1.duplicated), (Some(45), 0, 0));
    // The batch 40–44 ends at 9.04 s (eight 5 ms commits before it); its commit lands at 9.045 s.
    let landed: Vec<u64> = run
        .marks
        .iter()
        .filter(|m| (m.member, m.partition) == (1, 1) && m.kind == MarkKind::CommitLanded { offset: 45 })
        .map(|m| m.at_us)
        .collect();
    assert_eq!(landed, [9_045 * MS]);
}

#[test]
fn g3_a_static_member_back_within_its_session_gets_its_partition_with_no_rebalance() {
    let event = r#"{"at_ms": 8200, "member": 2, "kind": "shutdown", "restart_after_ms": 10000}"#;
    let dynamic = run(&format!(r#"{{{BASE}, "group_events": [{event}]}}"#));
    assert_eq!(group(&dynamic).rebalances, 2);
    let fixed = run(&format!(r#"{{{BASE}, "group.instance.id": true, "group_events": [{event}]}}"#));
    let g = group(&fixed);
    for h in &g.handovers {
        println!("{h:?}");
    }
    assert_eq!(g.rebalances, 0);
    let p1 = g.partitions[1];
    assert_eq!((p1.lost, p1.duplicated, p1.stalled_us), (0, 0, 10_010 * MS));
    assert_eq!(g.handovers[0].at_us, 19_015 * MS, "back at 19.005, its partition at 19.015");
}

#[test]
fn g4_a_pool_crash_loses_what_it_committed_ahead() {
    let run = run(&format!(
        r#"{{{BASE}, "worker_pool": true, "group_events": [{{"at_ms": 5010, "member": 2, "kind": "crash"}}]}}"#
    ));
    let g = group(&run);
    for h in &g.handovers {
        println!("{h:?}");
    }
    assert_eq!(
        (g.partitions[1].lost, g.handovers.iter().find(|h| h.partition == 1).unwrap().committed),
        (10, Some(35))
    );
    assert_eq!(g.partitions[0].lost, 0, "orders-0's pool finishes what it holds");
}

/// Random group scenarios: 1–4 members and partitions, every strategy and protocol, with up
/// to three events of any kind.
mod properties {
    use super::*;
    use offset_window_sim::crash_state_brute_force;
    use proptest::prelude::*;

    fn scenarios() -> impl proptest::strategy::Strategy<Value = Scenario> {
        crate::common::random_groups(crate::common::Bounds {
            partitions: 4,
            processing_us: 20_000..=200_000,
            events: 0..=3,
            event_at_ms: 30_000,
            event_member: 5,
            restart_ms: 15_000,
            hang_ms: 12_000,
            deploy_step_ms: 7_000,
            session_ms: 10_000,
            poll_interval_ms: 30_000,
            horizon_ms: 45_000,
            on_revoke: true,
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        /// Same scenario, same bytes; the report adds up; the per-partition crash profile
        /// still equals the brute force; the output grows with events.
        #[test]
        fn group_runs_are_deterministic_and_consistent(scenario in scenarios()) {
            // An event may reach a member that is down then: refused, and nothing to check.
            let Ok(run) = simulate(&scenario) else { return Ok(()) };
            prop_assert_eq!(&run, &simulate(&scenario).unwrap());
            let Some(g) = run.group.as_ref() else { return Ok(()) };
            let horizon = scenario.horizon_us;
            for p in &g.partitions {
                let handovers = g.handovers.iter().filter(|h| h.partition == p.partition);
                let (lost, dup) = handovers.fold((0, 0), |(l, d), h| (l + h.lost, d + h.duplicated));
                prop_assert_eq!((lost, dup), (p.lost, p.duplicated), "partition {} sums its handovers", p.partition);
                prop_assert!(p.stalled_us <= horizon);
            }
            for m in &g.members {
                for list in [&m.down, &m.hung, &m.rebalancing] {
                    prop_assert!(list.windows(2).all(|w| w[0].to_us <= w[1].from_us), "{:?}", list);
                    prop_assert!(list.iter().all(|i| i.from_us < i.to_us && i.to_us <= horizon), "{:?}", list);
                }
            }
            for crash_at_us in [horizon / 3, horizon / 2 + 1, horizon] {
                prop_assert_eq!(run.state_at(crash_at_us), crash_state_brute_force(&scenario, crash_at_us).unwrap());
            }
            let size = run.marks.len() + run.partitions.iter().map(|p| p.profile.len() + p.position.len()).sum::<usize>();
            prop_assert!(size as u64 <= 20 * scenario.estimated_events() + 100);
        }

        /// model.md §12.3 in a group: the same checks with Spring batch listeners that retry
        /// failing batches (`retry_batch`, java_classic, no pool) through random events.
        #[test]
        fn batch_retries_through_rebalances_are_deterministic_and_consistent(
            scenario in scenarios(),
            failures in proptest::collection::vec(0u64..=40, 1..3),
            (backoff_ms, deliveries, dead_letter, asynchronous) in (0u64..=1_500, 2u32..=5, any::<bool>(), any::<bool>()),
        ) {
            use offset_window_sim::scenario::{OnError, OnRevoke};
            let scenario = Scenario {
                client: offset_window_sim::Client::JavaClassic,
                worker_pool: false,
                on_revoke: OnRevoke::Nothing,
                commit_revoked_partitions: false,
                strategy: if asynchronous { offset_window_sim::Strategy::CommitAsyncBatch } else { offset_window_sim::Strategy::CommitSyncBatch },
                record_failures: failures,
                on_error: OnError::RetryBatch,
                error_retry_backoff_us: backoff_ms * MS,
                max_deliveries: deliveries,
                dead_letter,
                ..scenario
            };
            let Ok(run) = simulate(&scenario) else { return Ok(()) };
            prop_assert_eq!(&run, &simulate(&scenario).unwrap());
            let Some(g) = run.group.as_ref() else { return Ok(()) };
            for p in &g.partitions {
                let handovers = g.handovers.iter().filter(|h| h.partition == p.partition);
                let (lost, dup) = handovers.fold((0, 0), |(l, d), h| (l + h.lost, d + h.duplicated));
                prop_assert_eq!((lost, dup), (p.lost, p.duplicated), "partition {} sums its handovers", p.partition);
            }
            let horizon = scenario.horizon_us;
            for crash_at_us in [horizon / 3, horizon / 2 + 1, horizon] {
                prop_assert_eq!(run.state_at(crash_at_us), crash_state_brute_force(&scenario, crash_at_us).unwrap());
            }
        }

        /// Members that each hold one partition and meet no event run exactly as the one
        /// consumer of model.md §§1–9 on that partition.
        #[test]
        fn an_undisturbed_group_is_its_partitions_run_alone(scenario in scenarios()) {
            let alone = Scenario { members: 1, partitions: 1, group_events: Vec::new(), static_membership: false, ..scenario.clone() };
            let members = scenario.members.min(scenario.partitions);
            let group = Scenario { members, partitions: members, group_events: Vec::new(), ..scenario };
            prop_assume!(group.group_mode() && group.validate().is_ok() && alone.validate().is_ok());
            let (alone, group) = (simulate(&alone).unwrap(), simulate(&group).unwrap());
            for lines in &group.partitions {
                let one = alone.lines();
                prop_assert_eq!(&lines.position, &one.position);
                prop_assert_eq!(&lines.durable_frontier, &one.durable_frontier);
                prop_assert_eq!(&lines.committed, &one.committed);
                prop_assert_eq!(&lines.profile, &one.profile);
            }
        }
    }
}

/// model.md §10.5, `on_revoke: drain`: `onPartitionsRevoked` waits for the worker pool's work
/// in flight, at most `on_revoke_drain_ms`, then commits what is done; what the pool finishes
/// later the next owner repeats (PostHog/posthog#56097). consumer-3 joins two members whose
/// pools hold two 10-second hand-offs each; consumer-2 gives orders-3 up at 70 s with records
/// 70–79 in its pool. Nothing waited for: committed 40 (the pool's contiguous frontier at the
/// last auto-commit), 40 repeated; a commitSync at once: 70, 10 repeated; a 5 s budget: 75, 5;
/// one of 10 s or more drains it: 80, none (the round a batch later).
#[test]
fn a_drain_on_revoke_commits_what_its_budget_lets_the_pool_finish() {
    let scenario = |on_revoke: &str| {
        format!(
            r#"{{"partitions": 4, "members": 2, "worker_pool": true, "pool_threads": 2,
            "pool_max_in_flight_batches": 4, "pool_commit": "contiguous_completed",
            "record_processing_ms": 1000, "max.poll.records": 10, "max.partition.fetch.bytes": 10240,
            "partition.assignment.strategy": "cooperative-sticky", "horizon_ms": 150000, {on_revoke},
            "group_events": [{{"at_ms": 30000, "kind": "join", "member": 3}}]}}"#
        )
    };
    let handover = |on_revoke: &str| {
        let run = run(&scenario(on_revoke));
        let h = &group(&run).handovers[0];
        (h.partition, h.at_us / MS, h.committed, h.duplicated)
    };
    assert_eq!(handover(r#""on_revoke": "nothing""#), (3, 110_005, Some(40), 40));
    assert_eq!(handover(r#""on_revoke": "commit_sync""#), (3, 110_005, Some(70), 10));
    assert_eq!(handover(r#""on_revoke": "drain", "on_revoke_drain_ms": 5000"#), (3, 110_005, Some(75), 5));
    assert_eq!(handover(r#""on_revoke": "drain", "on_revoke_drain_ms": 10000"#), (3, 120_005, Some(80), 0));
    assert_eq!(handover(r#""on_revoke": "drain""#), (3, 120_005, Some(80), 0));
    for (json, message) in [
        (r#"{"members": 2, "on_revoke": "drain"}"#, "set worker_pool to true"),
        (
            r#"{"members": 2, "worker_pool": true, "client": "librdkafka", "on_revoke": "drain"}"#,
            "java_classic",
        ),
    ] {
        let error = Scenario::from_json(json).unwrap_err().to_string();
        assert!(error.contains("on_revoke") && error.contains(message), "{error}");
    }
}

/// model.md §10.5, `commit_revoked_partitions` (kafkajs#1046, alpakka-kafka#1121): consumer-1
/// hands both partitions' batches to its pool and commits the pool's frontiers after every
/// hand-off; consumer-2 joins and takes orders-1 while consumer-1's pool still runs records of
/// it. An application that keeps orders-1 in the offsets it commits sends its old frontier
/// with its next commits: the coordinator checks the generation (classic) or the member epoch
/// (the consumer protocol), not who owns the partition, so the committed offset of orders-1
/// goes back under its new owner.
#[test]
fn a_commit_of_a_revoked_partition_moves_its_offset_back_under_the_new_owner() {
    let scenario = |extra: &str| {
        format!(
            r#"{{"partitions": 2, "members": 1, "worker_pool": true, "pool_threads": 2,
            "pool_max_in_flight_batches": 4, "pool_commit": "contiguous_completed",
            "strategy": "commit_sync_batch", "record_processing_ms": 1000, "max.poll.records": 5,
            "max.partition.fetch.bytes": 5120, "partition.assignment.strategy": "cooperative-sticky",
            "horizon_ms": 90000, "session.timeout.ms": 10000, {extra}
            "group_events": [{{"at_ms": 10000, "kind": "join", "member": 2}},
                             {{"at_ms": 42000, "kind": "crash", "member": 2}}]}}"#
        )
    };
    let landed = |run: &Run| {
        run.marks
            .iter()
            .filter(|m| m.partition == 1)
            .filter_map(|m| match m.kind {
                MarkKind::CommitLanded { offset } => Some((m.at_us / MS, m.member, offset)),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    let handover = |run: &Run| {
        let h = &group(run).handovers[1];
        (h.partition, h.at_us / MS, h.committed, h.duplicated)
    };
    // consumer-2 takes orders-1 at 25.005 s from 10; consumer-1's pool finishes 10–24 there,
    // and its commits carry orders-1 = 25 every 5 s: at 40.005 s the committed offset goes back
    // from consumer-2's 30 to 25. consumer-2 crashes at 42 s; consumer-1 takes orders-1 back at
    // 60 s from 25 (its own commit at 45.005 s), not from consumer-2's 40.
    let kept = run(&scenario(r#""commit_revoked_partitions": true,"#));
    let landed_kept = landed(&kept);
    let back =
        landed_kept.iter().position(|&l| l == (40_005, 0, 25)).expect("consumer-1's commit at 40.005 s");
    assert_eq!(landed_kept[back - 1], (35_015, 1, 30));
    assert_eq!(handover(&kept), (1, 60_000, Some(25), 17));
    // Pruned (the default): consumer-1 commits nothing more for orders-1 once it gave it up.
    let pruned = run(&scenario(""));
    assert!(landed(&pruned)
        .iter()
        .all(|&(at_ms, member, _)| member == 1 || !(25_005..60_000).contains(&at_ms)));
    assert_eq!(handover(&pruned), (1, 60_000, Some(40), 2));
    // Kafka 4.3.1's consumer groups take a commit with the member's current epoch for any
    // partition (`ConsumerGroup.validateOffsetCommit`): the same commits land under KIP-848.
    let kip848 = run(&scenario(r#""commit_revoked_partitions": true, "client": "java_consumer_protocol","#));
    let first_by_consumer_2 =
        landed(&kip848).iter().position(|&(_, member, _)| member == 1).expect("consumer-2 commits");
    assert!(landed(&kip848)[first_by_consumer_2..].iter().any(|&(_, member, _)| member == 0));
    for (json, message) in [
        (r#"{"members": 2, "commit_revoked_partitions": true}"#, "set worker_pool to true"),
        (
            r#"{"members": 2, "worker_pool": true, "client": "librdkafka", "commit_revoked_partitions": true}"#,
            "Java clients",
        ),
        (r#"{"members": 2, "worker_pool": true, "commit_revoked_partitions": true}"#, "commit_sync_batch"),
        (
            r#"{"worker_pool": true, "strategy": "commit_sync_batch", "commit_revoked_partitions": true}"#,
            "consumer group",
        ),
    ] {
        let error = Scenario::from_json(json).unwrap_err().to_string();
        assert!(error.contains("commit_revoked_partitions") && error.contains(message), "{error}");
    }
}

/// The batch retry scenario of model.md §12.3 in a group: consumer-1 holds orders-0 and
/// orders-1 (chunks of five records, so its polls take them in turn), its Spring batch
/// listener throws at record 12 of every batch that holds it, and `FallbackBatchErrorHandler`
/// delivers the batch ten times, 0 ms apart. consumer-2 joins at `join_ms`.
fn spring_retry_with_join(join_ms: u64) -> Run {
    run(&format!(
        r#"{{"partitions": 2, "members": 1, "max.partition.fetch.bytes": 5120, "record_failures": [12],
            "on_error": "retry_batch", "error_retry_backoff_ms": 0, "strategy": "commit_sync_batch",
            "horizon_ms": 30000, "group_events": [{{"at_ms": {join_ms}, "kind": "join", "member": 2}}]}}"#
    ))
}

/// (ms, member) of every mark `kind` picks on `partition`.
fn marks_on(run: &Run, partition: u32, kind: impl Fn(&MarkKind) -> bool) -> Vec<(u64, u32)> {
    run.marks
        .iter()
        .filter(|m| m.partition as u32 == partition && kind(&m.kind))
        .map(|m| (m.at_us / MS, m.member as u32))
        .collect()
}

/// spring-kafka 4.1.2 (`ErrorHandlingUtils.retryBatch`, `FallbackBatchErrorHandler`) with
/// kafka-clients 4.3.1, eager range (model.md §12.3, spring-kafka GH-2340): a rebalance during
/// the retries. The paused `poll(Duration.ZERO)` between deliveries takes the group one step
/// each; the retry then goes on calling the listener with orders-1's records after orders-1
/// moved to consumer-2, which starts from the committed offset and runs them too; the batch's
/// commit after the recovery carries orders-1 and the coordinator takes it (a current
/// generation, ownership unchecked).
#[test]
fn a_batch_retry_goes_on_with_the_partition_a_rebalance_took() {
    let moved = spring_retry_with_join(11_000);
    let is = |k: MarkKind| move |m: &MarkKind| *m == k;
    // orders-1's batch 10–14 fails first at 10.715 s; each delivery takes 610 ms (600 ms of
    // records, Spring's 10 ms sleep). consumer-1 hears of the round at its 12 s heartbeat; its
    // paused poll at the 12.545 s failure revokes both partitions and sends JoinGroup; the one
    // 10 ms later, before the listener, sends SyncGroup; the one at the 13.155 s failure takes
    // the assignment, orders-0 alone (paused again).
    let member_0 = |marks: Vec<(u64, u32)>| marks.into_iter().filter(|&(_, m)| m == 0).collect::<Vec<_>>();
    assert_eq!(member_0(marks_on(&moved, 0, is(MarkKind::JoinSent))).last(), Some(&(12_545, 0)));
    assert_eq!(member_0(marks_on(&moved, 0, is(MarkKind::SyncSent))), [(12_555, 0)]);
    assert_eq!(member_0(marks_on(&moved, 0, is(MarkKind::AssignmentReceived))), [(13_155, 0)]);
    assert_eq!(marks_on(&moved, 1, is(MarkKind::Assigned)), [(12_560, 1)]);
    // Both members run orders-1's records 10 and 11 from 12.56 s: consumer-1 to its tenth
    // delivery (16.205 s), consumer-2 through ten of its own, from the committed 10.
    let runs_of_10 = marks_on(&moved, 1, is(MarkKind::RecordDurable { offset: 10 }));
    let by = |member| runs_of_10.iter().filter(|&&(_, m)| m == member).count();
    assert_eq!((by(0), by(1)), (10, 10));
    assert!(runs_of_10.contains(&(15_805, 0)) && runs_of_10.contains(&(15_810, 1)));
    // consumer-1's commit after the recovery carries orders-1 at the batch's end; it lands
    // while consumer-2 is still in its retries at 10, and consumer-2's own lands at 18.655 s.
    let landed = marks_on(&moved, 1, is(MarkKind::CommitLanded { offset: 15 }));
    assert_eq!(landed, [(16_210, 0), (18_655, 1)]);
    assert_eq!((group(&moved).partitions[1].duplicated, group(&moved).duplicated()), (20, 20));

    // Joining at 5 s, during orders-0's retries: the eager round gives orders-0 back to
    // consumer-1 from its committed offset, 10. The recovery commits 15 at 10.115 s, but the
    // position is 10: the next poll hands the batch out again, it fails ten times more, and
    // the second recovery commits 15 again at 16.21 s.
    let kept = spring_retry_with_join(5_000);
    assert_eq!(marks_on(&kept, 0, is(MarkKind::Assigned)), [(7_060, 0)]);
    assert_eq!(marks_on(&kept, 0, is(MarkKind::CommitLanded { offset: 15 })), [(10_115, 0), (16_210, 0)]);
    assert_eq!(
        marks_on(&kept, 0, |k| *k == MarkKind::Poll { from: 10, records: 5 }),
        [(4_020, 0), (10_115, 0)]
    );
    let failed = marks_on(&kept, 0, is(MarkKind::RecordFailed { offset: 12 }));
    assert_eq!((failed.len(), failed.last()), (20, Some(&(16_205, 0))));
    assert_eq!(group(&kept).partitions[0].duplicated, 20);
}
