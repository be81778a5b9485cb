//! model.md §8 and §10: the rules the random cases against Apache Kafka 4.3.1 and a reading
//! of the client sources settled (issue "The group as the real clients run it"), each with a
//! case where the rule before and the rule now give different counts.
#![cfg(feature = "group")]

use offset_window_sim::report::GroupReport;
use offset_window_sim::{simulate, CommitFailure, Mark, MarkKind, Run, Scenario};

fn run(json: &str) -> Run {
    simulate(&Scenario::from_json(json).unwrap_or_else(|e| panic!("{e}"))).unwrap_or_else(|e| panic!("{e}"))
}

fn group(run: &Run) -> &GroupReport {
    run.group.as_ref().expect("a group run")
}

/// (member, ms) of every session expiry.
fn expired(run: &Run) -> Vec<(u32, u64)> {
    run.marks
        .iter()
        .filter(|m| m.kind == MarkKind::SessionExpired)
        .map(|m| (m.member as u32, m.at_us / 1000))
        .collect()
}

/// (ms, member from 1, partition, what) of the revocations, assignments and commits sent and
/// landed among the marks `keep` keeps: a reconciliation step by step.
fn reconciliation(run: &Run, keep: impl Fn(&Mark) -> bool) -> Vec<(u64, u32, u32, String)> {
    run.marks
        .iter()
        .filter(|m| keep(m))
        .filter_map(|m| {
            let what = match m.kind {
                MarkKind::Revoked => "revoked".to_string(),
                MarkKind::Assigned => "assigned".to_string(),
                MarkKind::CommitSent { offset, .. } => format!("commit {offset}"),
                MarkKind::CommitLanded { offset } => format!("landed {offset}"),
                _ => return None,
            };
            Some((m.at_us / 1000, m.member as u32 + 1, m.partition as u32, what))
        })
        .collect()
}

/// [`reconciliation`]'s rows written as literals.
fn reconciliation_of(rows: &[(u64, u32, u32, &str)]) -> Vec<(u64, u32, u32, String)> {
    rows.iter().map(|&(t, m, p, w)| (t, m, p, w.to_string())).collect()
}

/// (partition, committed, lost, duplicated) of every handover.
fn handovers(run: &Run) -> Vec<(u32, Option<u64>, u64, u64)> {
    group(run).handovers.iter().map(|h| (h.partition as u32, h.committed, h.lost, h.duplicated)).collect()
}

/// model.md §1, §8.2: a group that has never committed (`new_group`). consumer-1 holds
/// orders-0 and orders-1 of a topic produced to at 10 records a second per partition; its
/// first poll finds orders-0 empty and orders-1's fetched chunk keeps the turn (§10.1), so it
/// never consumes orders-0. It crashes at 8.2 s; consumer-2 takes orders-0 at 51 s. librdkafka
/// committed nothing for orders-0 (no offset was stored there:
/// `rd_kafka_topic_partition_list_set_offsets` leaves it out), so `auto.offset.reset=latest`
/// skips the 515 records produced by then. The Java client's first auto-commit covered
/// orders-0's position (`allConsumed`), and an existing group had committed the log start:
/// nothing lost.
#[test]
fn a_new_group_keeps_no_offset_where_librdkafka_never_consumed() {
    let scenario = |client: &str, new_group: bool| {
        format!(
            r#"{{"client": "{client}", "new_group": {new_group}, "log_end_offset": 0, "produce_rate_per_s": 10,
            "members": 2, "partitions": 3, "horizon_ms": 60000,
            "group_events": [{{"at_ms": 8200, "member": 1, "kind": "crash"}}]}}"#
        )
    };
    let new = run(&scenario("librdkafka", true));
    assert_eq!(handovers(&new)[0], (0, None, 515, 0));
    assert_eq!(group(&new).lost(), 515);
    for (client, new_group) in [("librdkafka", false), ("java_classic", true), ("java_classic", false)] {
        let other = run(&scenario(client, new_group));
        assert_eq!(handovers(&other)[0], (0, Some(0), 0, 0), "{client} new_group {new_group}");
        assert_eq!(group(&other).lost(), 0);
    }
}

/// model.md §8.2: librdkafka's `commit()` without offsets (a `commit_sync_batch` loop) also
/// carries only the offsets stored since the member took a partition: the same case as above
/// committing after every batch leaves orders-0 without an offset in a new group (the random
/// case seed 8102 on Apache Kafka 4.3.1: real none, the model 0 before). The Java client's
/// `commitSync()` commits every position.
#[test]
fn librdkafka_commit_without_offsets_leaves_out_what_it_never_consumed() {
    let scenario = |client: &str| {
        format!(
            r#"{{"client": "{client}", "new_group": true, "log_end_offset": 0, "produce_rate_per_s": 10,
            "strategy": "commit_sync_batch", "members": 2, "partitions": 3, "horizon_ms": 60000,
            "group_events": [{{"at_ms": 8200, "member": 1, "kind": "crash"}}]}}"#
        )
    };
    let rdk = run(&scenario("librdkafka"));
    assert_eq!(handovers(&rdk)[0], (0, None, 547, 0));
    let java = run(&scenario("java_classic"));
    assert_eq!(handovers(&java)[0], (0, Some(0), 0, 0));
}

/// model.md §8.3, §12: librdkafka's timer with `store_offsets_after_processing` and a pool
/// committing `highest_completed` sends the value that setting makes, judged changed on that
/// value (sarama-cluster#148's shape): two records, the second done first; the 1 s timer
/// commits 2 while record 0 still runs, and a crash at 1.5 s loses it — as
/// `auto_commit_background` already did. Before, the timer compared the durable frontier (0,
/// unchanged) and sent nothing.
#[test]
fn the_stored_offset_timer_sends_what_the_pool_commits() {
    for strategy in ["store_offsets_after_processing", "auto_commit_background"] {
        let run = run(&format!(
            r#"{{"client": "librdkafka", "strategy": "{strategy}", "worker_pool": true, "pool_threads": 2,
            "ordering": "unordered", "pool_commit": "highest_completed", "log_end_offset": 2,
            "record_processing_ms": 100, "record_processing_ms_by_offset": {{"0": 2000}},
            "auto.commit.interval.ms": 1000}}"#
        ));
        let at = run.summary_at(1_500_000).at_crash.expect("one consumer");
        assert_eq!((at.committed, at.lost, at.duplicated), (Some(2), 1, 0), "{strategy}");
    }
}

/// model.md §10.1: across an incremental assignment a member keeps handing out the chunk of the
/// partition it was on (Java `FetchBuffer.retainAll` keeps its `nextInLineFetch`). consumer-2
/// drains orders-1 (a 1024-record chunk, 205 s at five a second); consumer-1 crashes at 8.2 s
/// and orders-0 is added to consumer-2 at 22 s: it waits behind orders-1's chunk to the horizon
/// (stalled 21.8 s). Before, the turn restarted at the lowest partition and orders-0 was polled
/// at once (stalled 13.8 s).
#[test]
fn an_incremental_assignment_keeps_the_partition_in_turn() {
    let run = run(r#"{"partitions": 2, "members": 2, "partition.assignment.strategy": "cooperative-sticky",
        "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000, "horizon_ms": 30000,
        "group_events": [{"at_ms": 8200, "member": 1, "kind": "crash"}]}"#);
    assert_eq!(handovers(&run), [(0, Some(25), 0, 15)]);
    assert_eq!(group(&run).partitions[0].stalled_us, 21_800_000);
    // The rolling deploy of scenarios/group-deploy-cooperative.json: moving partitions were
    // processed past their holder's rejoin commit, which the new owners repeat.
    let deploy = self::run(
        &serde_json::from_str::<serde_json::Value>(include_str!(
            "../../../scenarios/group-deploy-cooperative.json"
        ))
        .unwrap()["scenario"]
            .to_string(),
    );
    assert_eq!((group(&deploy).lost(), group(&deploy).duplicated()), (0, 30));
}

/// model.md §10.5: a commit sent while the member's JoinGroup is out and its SyncGroup
/// response not yet read fails at once, sending nothing (`ConsumerCoordinator.
/// sendOffsetCommitRequest`: `generationIfStable()` is null → RebalanceInProgressException).
/// consumer-2 hangs from 2.5 s for 15 s; consumer-3 joins at 3 s; consumer-1 (cooperative,
/// `commitSync` after each batch) sends JoinGroup and keeps processing while the round waits
/// for the hung member; its commits fail, so at its crash (9.1 s) orders-0 is committed 10:
/// 12 repeated. Before, those commits landed (committed 20, 2 repeated).
#[test]
fn commits_fail_while_a_cooperative_member_awaits_its_assignment() {
    let run = run(r#"{"partitions": 2, "members": 2, "partition.assignment.strategy": "cooperative-sticky",
        "strategy": "commit_sync_batch", "record_processing_ms": 400, "session.timeout.ms": 10000,
        "heartbeat.interval.ms": 1000, "horizon_ms": 40000, "group_events": [
        {"at_ms": 2500.5, "member": 2, "kind": "hang", "duration_ms": 15000},
        {"at_ms": 3000.5, "member": 3, "kind": "join"}, {"at_ms": 9100.5, "member": 1, "kind": "crash"}]}"#);
    assert_eq!(handovers(&run), [(0, Some(10), 0, 12)]);
    let failed = run
        .marks
        .iter()
        .filter(|m| {
            matches!(m.kind, MarkKind::CommitFailed { reason: CommitFailure::RebalanceInProgress, .. })
        })
        .count();
    assert!(failed > 0);
}

/// model.md §10.5: a failed `commitSync()` passes through the network client once, so it reads a
/// waiting JoinGroup response and SyncGroup goes out at once (`commitOffsetsSync` →
/// `client.poll(future, timer)`). consumer-2 joins at 3 s; consumer-1 (cooperative, five 400 ms
/// records a poll, a commit after each) sends JoinGroup at its 4.05 s poll; its commit at 4.45 s
/// fails and sends SyncGroup, so its 6.07 s poll revokes orders-1 and the second round hands it
/// over at 6.475 s, committed 5. Before, SyncGroup waited for the 6.05 s poll and the round for
/// the 8.075 s one: handed over at 10.08 s, committed 10.
#[test]
fn a_failed_commit_sends_the_waiting_sync_group() {
    let run = run(r#"{"partitions": 2, "members": 1, "partition.assignment.strategy": "cooperative-sticky",
        "strategy": "commit_sync_record", "record_processing_ms": 400, "max.poll.records": 5,
        "max.partition.fetch.bytes": 5120, "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000,
        "horizon_ms": 20000, "group_events": [{"at_ms": 3000, "member": 2, "kind": "join"}]}"#);
    let synced: Vec<u64> = run
        .marks
        .iter()
        .filter(|m| m.member == 0 && m.kind == MarkKind::SyncSent)
        .map(|m| m.at_us / 1000)
        .collect();
    assert_eq!(synced[0], 4_450);
    let at: Vec<_> =
        group(&run).handovers.iter().map(|h| (h.partition, h.committed, h.at_us / 1000)).collect();
    assert_eq!(at, [(1, Some(5), 6_475)]);
}

/// model.md §10.1: a fetch returns whole batches, and after an eager round the turn passes in
/// the fetch session's order. Random seed 12035 (`java_classic`, round robin, one record a
/// poll, five-record batches): consumer-2 shuts down at 12.4 s and consumer-1 gets orders-0 (at
/// 14), orders-1 (23, new to it) and orders-2 (10) back. Its chunk of orders-0 is record 14
/// alone (the batch 10–14), then it turns to orders-2, which it held before: killed at
/// 14.655 s with orders-0 committed 15 and orders-2 11, as on Apache Kafka 4.3.1. Before:
/// a five-record chunk from 14, committed 16 and 10.
#[test]
fn a_chunk_ends_at_its_batch_and_the_turn_follows_the_fetch_session() {
    let run = run(r#"{"partitions": 3, "members": 2, "record_processing_ms": 550, "max.poll.records": 1,
        "strategy": "commit_sync_batch", "partition.assignment.strategy": "roundrobin",
        "session.timeout.ms": 2000, "heartbeat.interval.ms": 100, "max.partition.fetch.bytes": 5120,
        "client": "java_classic", "new_group": true, "auto.offset.reset": "earliest",
        "assigned_before_start_ms": 500, "horizon_ms": 14656, "group_events": [
        {"at_ms": 12425, "member": 2, "kind": "shutdown"}, {"at_ms": 14655, "member": 1, "kind": "crash"}]}"#);
    let last: Vec<_> = handovers(&run).into_iter().skip(3).map(|h| (h.0, h.1)).collect();
    assert_eq!(last, [(0, Some(15)), (1, Some(23)), (2, Some(11))]);
}

/// model.md §10.6: kafka-clients 4.3 starts a target that arrives while an earlier one waits for
/// `onPartitionsAssigned` a poll later, and a partition added inside a poll has no buffered
/// records in the next one. Random seed 13002 (six 900 ms records a poll): consumer-1 shuts
/// down at 9.5 s and comes back at 12.3 s; consumer-2 takes orders-0 in its 16.2 s poll and
/// returns orders-1's records there, then revokes orders-1 with both callbacks in its 21.6 s
/// poll, which has nothing buffered: consumer-1 gets orders-1 at 22.5 s, committed 24 (Apache
/// Kafka 4.3.1: 22.7 s, 24). Before: a poll later, 27.5 s, committed 18.
#[test]
fn a_target_after_an_assignment_waits_a_poll_and_finds_the_new_partition_unfetched() {
    let run = run(r#"{"partitions": 2, "members": 2, "record_processing_ms": 900, "max.poll.records": 6,
        "strategy": "commit_sync_batch", "session.timeout.ms": 10000, "group.consumer.heartbeat.interval.ms": 1000,
        "client": "java_consumer_protocol", "new_group": true, "auto.offset.reset": "earliest",
        "assigned_before_start_ms": 500, "horizon_ms": 30266, "group_events": [
        {"at_ms": 9545, "member": 1, "kind": "shutdown", "restart_after_ms": 2710.5},
        {"at_ms": 29860.5, "member": 1, "kind": "crash"}, {"at_ms": 30265, "member": 2, "kind": "crash"}]}"#);
    let moved: Vec<_> = group(&run)
        .handovers
        .iter()
        .filter(|h| h.to.is_some())
        .map(|h| (h.partition, h.committed, h.at_us / 100_000))
        .collect();
    assert_eq!(moved, [(0, Some(12), 162), (1, Some(24), 225)]);
}

/// model.md §10.4: librdkafka heartbeats when its main thread wakes — its 1 s timer from the
/// consumer's creation (here 300 ms before t = 0: 0.7 s, 1.7 s, …) and its poll-interval check
/// every 500 ms from the assignment (t = 0) — and only an interval after the previous one.
/// With `heartbeat.interval.ms` 100: at 0.5, 0.7, 1, 1.5, 1.7, 2 s; with 400 the 0.7 s wake
/// comes too soon after 0.5 s. The Java client heartbeats every interval.
#[test]
fn librdkafka_heartbeats_when_its_main_thread_wakes() {
    let heartbeats = |client: &str, interval_ms: u64| -> Vec<u64> {
        let run = run(&format!(
            r#"{{"client": "{client}", "members": 2, "partitions": 2, "horizon_ms": 2100,
            "heartbeat.interval.ms": {interval_ms}, "consumer_created_before_start_ms": 300}}"#
        ));
        run.marks
            .iter()
            .filter(|m| m.member == 0 && m.kind == MarkKind::Heartbeat)
            .map(|m| m.at_us / 1000)
            .collect()
    };
    assert_eq!(heartbeats("librdkafka", 100), [500, 700, 1000, 1500, 1700, 2000]);
    assert_eq!(heartbeats("librdkafka", 400), [500, 1000, 1500, 2000]);
    assert_eq!(heartbeats("java_classic", 400), [400, 800, 1200, 1600, 2000]);
}

/// model.md §10.4: a cooperative round's answer pauses a librdkafka member's partitions until
/// its callback; when the application was busy, its fetcher sees the kept partition resumed
/// only at its next 1 s wake-up. Random seed 12082 shrunk: consumer-1 revokes orders-0 in its
/// 6 s poll and gets orders-1's first records at 6.954 s (its fetcher's grid: the assignment,
/// 10.046 s before t = 0), not at once (on Apache Kafka 4.3.1: at 6.96 s; before: orders-1 from
/// 6 s on, committed 12, 1 lost). consumer-2 learns of the second round at its 1 s timer
/// (6.23 s, from its start at 5.23 s), less than a second after its last JoinGroup (5.235 s,
/// the retry after MEMBER_ID_REQUIRED): §10.5, librdkafka sends at most one a second, so it
/// rejoins at its main thread's next wake-up, 6.464 s, and takes orders-0 at 6.474 s (before
/// that rule: 6.24 s); the final kills at 10.47 s and 11.634 s repeat 7 of orders-0 and 3 of
/// orders-1. The whole case 12082, replayed on Apache Kafka 4.3.1 with its final kills placed
/// by this model, agrees (session 17).
#[test]
fn a_cooperative_round_leaves_librdkafka_s_fetcher_idle_until_it_wakes() {
    let run = run(r#"{"partitions": 2, "members": 1, "record_processing_ms": 500, "max.poll.records": 6,
        "auto.commit.interval.ms": 10000, "partition.assignment.strategy": "cooperative-sticky",
        "session.timeout.ms": 10000, "heartbeat.interval.ms": 100, "client": "librdkafka",
        "new_group": true, "auto.offset.reset": "earliest", "consumer_created_before_start_ms": 10136.98,
        "assigned_before_start_ms": 10046.254, "horizon_ms": 11634, "group_events": [
        {"at_ms": 5230, "member": 2, "kind": "join"}, {"at_ms": 11633.756, "member": 1, "kind": "crash"},
        {"at_ms": 10470, "member": 2, "kind": "crash"}]}"#);
    let first_records = |member: u16, partition: u16| {
        run.marks.iter().find_map(|m| match m.kind {
            MarkKind::Poll { records, .. }
                if records > 0 && m.member == member && m.partition == partition =>
            {
                Some(m.at_us)
            }
            _ => None,
        })
    };
    assert_eq!(first_records(0, 1), Some(6_953_746));
    assert_eq!(first_records(1, 0), Some(6_473_746));
    let at: Vec<_> =
        group(&run).handovers.iter().map(|h| (h.partition, h.committed, h.lost, h.duplicated)).collect();
    assert_eq!(at, [(0, Some(12), 0, 0), (0, Some(12), 0, 7), (1, Some(6), 0, 3)]);
}

/// model.md §10.5: no auto-commit inside `poll()` from the rejoin until `onJoinComplete`
/// (`ConsumerCoordinator.poll` returns after a failed `ensureActiveGroup` before
/// `maybeAutoCommitOffsetsAsync`). The issue's probe: orders-2 passes at committed 15 with 15
/// repeated (the group 20); before, auto-commits during the rejoin moved it to 30 with nothing
/// repeated (the group 5).
#[test]
fn no_auto_commit_during_a_cooperative_rejoin() {
    let run = run(r#"{"partitions": 3, "members": 2, "partition.assignment.strategy": "cooperative-sticky",
        "strategy": "auto_commit", "auto.commit.interval.ms": 700, "session.timeout.ms": 10000,
        "max.partition.fetch.bytes": 5120, "horizon_ms": 30000, "group_events": [
        {"at_ms": 2000.5, "member": 2, "kind": "crash", "restart_after_ms": 1000},
        {"at_ms": 3500.5, "member": 3, "kind": "join"}]}"#);
    assert_eq!(handovers(&run), [(1, Some(5), 0, 5), (2, Some(15), 0, 15)]);
    assert_eq!(group(&run).duplicated(), 20);
}

/// model.md §8.4: kafka-clients 3.9's background auto-commit timer is looked at only when the
/// consumer network thread wakes — an application `poll()`, a heartbeat (5 s), at least every
/// 5 s — and then counts its interval from there. Records of 444 ms, five per poll (a poll
/// every 2.22 s), `auto.commit.interval.ms` 3700: due at 3.7 s, it commits 10 at the 4.44 s poll,
/// due again at 8.14 s it commits 20 at the 8.88 s poll, and is next due at 12.58 s: a crash at
/// 11.5 s finds 20 committed (5 repeated). Before, the timer fired at every multiple of the
/// interval (committed 25 at 11.1 s, nothing repeated), as a random case on Apache Kafka 4.3.1
/// showed the real client does not.
#[test]
fn the_pre_fix_timer_commits_only_when_the_network_thread_wakes() {
    let run = run(r#"{"client": "java_consumer_protocol_pre_fix", "record_processing_ms": 444,
        "auto.commit.interval.ms": 3700, "horizon_ms": 60000}"#);
    let at = run.summary_at(11_500_000).at_crash.expect("one consumer");
    assert_eq!((at.committed, at.lost, at.duplicated), (Some(20), 0, 5));
    let landed: Vec<u64> = run
        .marks
        .iter()
        .filter(|m| matches!(m.kind, MarkKind::CommitLanded { .. }) && m.at_us < 20_000_000)
        .map(|m| m.at_us / 1000)
        .collect();
    assert_eq!(landed, [4_445, 8_885, 13_325, 17_765]);
}

/// model.md §10.5: a member awaiting its JoinGroup response (unless new to the group) or its
/// parked SyncGroup satisfies its heartbeats, a new member's JoinGroup waits up to 5 minutes, and
/// the coordinator restarts every session when the join completes and when the assignment is
/// handed out (`ClassicGroupMember.hasSatisfiedHeartbeat`, `completeClassicGroupJoin`,
/// `propagateAssignment`). consumer-3 joins at 3.4 s; the round then waits for consumer-2,
/// which crashed at 6.1 s and expires at 16 s. Before, consumer-3's session ran out at 13.4 s
/// and orders-2 went to consumer-1 (where it stalled behind orders-0's chunk); now consumer-3
/// takes it at 16.005 s.
#[test]
fn a_member_awaiting_its_join_stays_in_the_group() {
    for is_static in [false, true] {
        let run = run(&format!(
            r#"{{"partitions": 3, "members": 2, "group.instance.id": {is_static}, "session.timeout.ms": 10000,
            "horizon_ms": 60000, "group_events": [{{"at_ms": 6100, "member": 2, "kind": "crash"}},
            {{"at_ms": 3400, "member": 3, "kind": "join"}}]}}"#
        ));
        let to: Vec<_> = group(&run).handovers.iter().map(|h| (h.partition, h.to)).collect();
        assert_eq!(to, [(0, Some(0)), (1, Some(0)), (2, Some(2))], "static {is_static}");
    }
}

/// model.md §10.5: a new member's session is timed by the 5-minute join timeout only until its
/// first round completes; from there on its heartbeats keep it, and without them it expires.
/// A rolling deploy of two members (the random case seed 8105 on Apache Kafka 4.3.1): both
/// leave, consumer-1 comes back alone at 13.3 s, takes all five partitions and crashes at
/// 13.6 s; consumer-2's restart joins at 15.8 s. consumer-1's session expires at 17.5 s and
/// consumer-2 takes over (real: 17.6 s). Before, the crashed member's session was next checked
/// at the join timeout, 5 minutes on, and consumer-2 waited until the end.
#[test]
fn a_restarted_members_session_expires_after_its_first_round() {
    let run = run(r#"{"partitions": 5, "members": 2, "record_processing_ms": 500,
        "partition.assignment.strategy": "cooperative-sticky", "session.timeout.ms": 4000,
        "heartbeat.interval.ms": 100, "group.initial.rebalance.delay.ms": 0, "horizon_ms": 31000,
        "group_events": [
        {"at_ms": 7740, "member": 1, "kind": "shutdown", "restart_after_ms": 3270.5},
        {"at_ms": 12255.5, "member": 2, "kind": "shutdown", "restart_after_ms": 3270.5},
        {"at_ms": 13590.5, "member": 1, "kind": "crash"}]}"#);
    assert_eq!(expired(&run), [(0, 17_490)]);
    let to_consumer_2 = group(&run).handovers.iter().filter(|h| h.to == Some(1)).count();
    assert_eq!(to_consumer_2, 5);
}

/// model.md §10.5: librdkafka runs a cooperative member's rejoin on its background thread.
/// consumer-1 leaves at 9.4 s; consumer-2 (one record per poll, 550 ms each, a commit after
/// each) learns of the round at its 9.5 s heartbeat, joins and syncs at once, and takes
/// orders-0 and orders-2 at its 9.99 s poll, its commits landing throughout (random case seed
/// 8110 on Apache Kafka 4.3.1: committed 19 on orders-1 when the new owner was killed). Before,
/// the JoinGroup waited for a poll, the SyncGroup for the next, and the commit in between was
/// refused: the handover came at 11.1 s.
#[test]
fn librdkafka_commits_through_its_rejoin() {
    let run = run(r#"{"client": "librdkafka", "partitions": 4, "members": 2, "record_processing_ms": 550,
        "max.poll.records": 1, "strategy": "commit_sync_batch", "partition.assignment.strategy": "cooperative-sticky",
        "session.timeout.ms": 4000, "heartbeat.interval.ms": 1000, "group.initial.rebalance.delay.ms": 0,
        "new_group": true, "auto.offset.reset": "earliest", "assigned_before_start_ms": 500, "horizon_ms": 11396,
        "group_events": [{"at_ms": 9115, "member": 1, "kind": "shutdown"}]}"#);
    let failed = run.marks.iter().filter(|m| matches!(m.kind, MarkKind::CommitFailed { .. })).count();
    assert_eq!(failed, 0);
    let to_consumer_2: Vec<_> = group(&run)
        .handovers
        .iter()
        .filter(|h| h.to == Some(1))
        .map(|h| (h.partition, h.at_us / 1000))
        .collect();
    assert_eq!(to_consumer_2, [(0, 9_990), (2, 9_990)]);
}

/// model.md §10.5: a cooperative librdkafka member that must give a partition up commits, with
/// auto-commit, the stored offsets of what it removes only (`rd_kafka_assignment_serve_removals`)
/// and rejoins at once from its background thread. consumer-1 holds all three partitions;
/// consumer-2 joins at 3.2 s; at 4.2 s consumer-1 takes the round's answer in, commits orders-0
/// at 6 and sends its JoinGroup in the same poll. (The Java rule, `onJoinPrepare`, commits every
/// position and joins in a later poll.) librdkafka's sticky assignor takes orders-0 from it
/// (§10.2); with Java's, which takes orders-2, this was orders-2 committed at 2.
#[test]
fn librdkafka_commits_what_it_removes_and_rejoins_at_once() {
    let run = run(r#"{"client": "librdkafka", "partitions": 3, "members": 1,
        "partition.assignment.strategy": "cooperative-sticky", "auto.commit.interval.ms": 10000,
        "record_processing_ms": 300, "max.poll.records": 2, "max.partition.fetch.bytes": 5120,
        "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000, "horizon_ms": 20000,
        "group_events": [{"at_ms": 3200, "member": 2, "kind": "join"}]}"#);
    let at_4200: Vec<_> = run
        .marks
        .iter()
        .filter(|m| m.member == 0 && m.at_us == 4_200_000)
        .filter_map(|m| match m.kind {
            MarkKind::CommitSent { offset, .. } => Some(format!("commit {} at {offset}", m.partition)),
            MarkKind::JoinSent => Some("join".into()),
            _ => None,
        })
        .collect();
    assert_eq!(at_4200, ["commit 0 at 6", "join"]);
    assert_eq!(handovers(&run), [(0, Some(6), 0, 0)]);
}

/// model.md §10.6: under the consumer protocol an assigned partition is fetched from only
/// after `onPartitionsAssigned` has run in the application's next `poll()`
/// (`assignFromSubscribedAwaitingCallback`). consumer-2 crashes at 13 s; consumer-1, in
/// batches of six 600 ms records with a `commitSync` after each, hears of orders-1 at its
/// 16.5 s heartbeat and takes it at its 18.025 s poll (random case seed 8116 on Apache Kafka
/// 4.3.1: 18.06 s). Before, the heartbeat handed it over at 16.5 s.
#[test]
fn a_kip848_assignment_waits_for_the_next_poll() {
    let run = run(r#"{"client": "java_consumer_protocol", "partitions": 2, "members": 2,
        "record_processing_ms": 600, "max.poll.records": 6, "strategy": "commit_sync_batch",
        "session.timeout.ms": 4000, "group.consumer.heartbeat.interval.ms": 500, "horizon_ms": 30000,
        "group_events": [{"at_ms": 12985, "member": 2, "kind": "crash"}]}"#);
    let handovers: Vec<_> =
        group(&run).handovers.iter().map(|h| (h.partition, h.from, h.to, h.at_us / 1000)).collect();
    assert_eq!(handovers, [(1, Some(1), Some(0), 18_025)]);
}

/// Issue 25, rule 4 (model.md §8.2, §10.4): the time before t = 0 is part of the scenario.
/// librdkafka's auto-commit timer counts from the consumer's creation (`rd_kafka_cgrp_new`):
/// created 160 ms before its first records, it commits at 4.84 s and 9.84 s, not 5 s and 10 s.
/// Heartbeats and the Java auto-commit timer count from the assignment: received 500 ms before
/// t = 0, a classic member heartbeats at 2.5 s, 5.5 s, … and its first auto-commit is due at 4.5 s
/// (the 5 s poll commits it).
#[test]
fn the_time_before_t0_sets_the_timers_phases() {
    let instants = |run: &Run, kind: fn(&MarkKind) -> bool| -> Vec<u64> {
        run.marks.iter().filter(|m| kind(&m.kind) && m.at_us <= 11_000_000).map(|m| m.at_us / 1000).collect()
    };
    let landed = |k: &MarkKind| matches!(k, MarkKind::CommitLanded { .. });
    let rdk = run(r#"{"client": "librdkafka", "consumer_created_before_start_ms": 160}"#);
    assert_eq!(instants(&rdk, landed), [4_845, 9_845]);
    let rdk0 = run(r#"{"client": "librdkafka"}"#);
    assert_eq!(instants(&rdk0, landed), [5_005, 10_005]);
    let group =
        run(r#"{"members": 2, "partitions": 2, "assigned_before_start_ms": 500, "horizon_ms": 11000}"#);
    let beats: Vec<u64> = group
        .marks
        .iter()
        .filter(|m| m.member == 0 && matches!(m.kind, MarkKind::Heartbeat))
        .map(|m| m.at_us / 1000)
        .collect();
    assert_eq!(beats, [2_500, 5_500, 8_500]);
    let polled: Vec<u64> = group
        .marks
        .iter()
        .filter(|m| m.member == 0 && landed(&m.kind))
        .map(|m| m.at_us / 1000)
        .take(1)
        .collect();
    assert_eq!(polled, [5_005], "the 4.5 s deadline is met by the 5 s poll");
}

/// Rule 4 in counts (the real case group-auto-commit-from-assignment): assigned 2.5 s before
/// t = 0, consumer-2's first auto-commit is due at 2.5 s, so the 2.5 s poll commits 5 on
/// orders-1 and its crash at 3.75 s repeats 2; counted from t = 0 nothing was committed and 7
/// were repeated.
#[test]
fn an_assignment_before_t0_moves_the_first_auto_commit() {
    let scenario = |before_ms: u32| {
        format!(
            r#"{{"members": 2, "partitions": 2, "record_processing_ms": 500, "session.timeout.ms": 2000,
            "heartbeat.interval.ms": 100, "new_group": true, "auto.offset.reset": "earliest",
            "assigned_before_start_ms": {before_ms}, "horizon_ms": 7800,
            "group_events": [{{"at_ms": 3750, "member": 2, "kind": "crash"}}]}}"#
        )
    };
    let orders_1 = |run: &Run| handovers(run).into_iter().find(|h| h.0 == 1).expect("orders-1 handed over");
    assert_eq!(orders_1(&run(&scenario(2500))), (1, Some(5), 0, 2));
    assert_eq!(orders_1(&run(&scenario(0))), (1, None, 0, 7));
}

#[test]
#[ignore]
fn print_marks() {
    let json = std::fs::read_to_string(std::env::var("SCENARIO").unwrap()).unwrap();
    let run = run(&json);
    for m in &run.marks {
        if !matches!(m.kind, offset_window_sim::MarkKind::RecordProcessed { .. }) {
            println!("{:>10} m{} p{} {:?}", m.at_us / 1000, m.member + 1, m.partition, m.kind);
        }
    }
}

/// model.md §8.14: librdkafka before 1.9.0 kept a stored offset across a reassignment
/// (confluent-kafka-dotnet#1672). consumer-1 stores after processing from a worker pool; its
/// pool still finishes orders-1's records 25–29 after the eager round at 22.5 s revoked the
/// partition (committed 25 there) and stores 30 for it — accepted before PR #3774. consumer-2
/// takes orders-1 and commits up to 50; at 37.5 s orders-1 comes back to consumer-1, whose
/// assign() keeps the stale 30, above the 25 its own commit last landed
/// (`rktp_committed_offset`): its timer commits 30, the committed offset moves back from 50,
/// and consumer-2, taking orders-1 again at 42.5 s, processes 30–49 a second time
/// (`scenarios/group-rdk-stale-store-replays.json`).
#[test]
fn librdkafka_before_1_9_commits_a_stale_stored_offset_after_a_reassignment() {
    let run = run(&std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/group-rdk-stale-store-replays.json"
    ))
    .map(|text| {
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["scenario"].to_string()
    })
    .unwrap());
    let orders_1: Vec<_> = handovers(&run).into_iter().filter(|h| h.0 == 1).map(|h| h.1).collect();
    assert_eq!(orders_1, [Some(20), Some(25), Some(50), Some(30)]);
    let backwards: Vec<(u64, u16, u64)> = run
        .marks
        .iter()
        .filter_map(|m| match m.kind {
            MarkKind::CommitLanded { offset }
                if m.partition == 1 && (37_500_000..42_600_000).contains(&m.at_us) =>
            {
                Some((m.at_us / 1000, m.member + 1, offset))
            }
            _ => None,
        })
        .collect();
    assert_eq!(backwards.iter().map(|&(_, member, offset)| (member, offset)).collect::<Vec<_>>(), [(1, 30)]);
    // consumer-2 ran orders-1's 30–49 before 37.5 s, and runs them again after 42.5 s.
    let runs_by_consumer_2 = |from_us: u64, to_us: u64| {
        run.marks
            .iter()
            .filter_map(|m| match m.kind {
                MarkKind::RecordDurable { offset }
                    if m.partition == 1 && m.member == 1 && (from_us..to_us).contains(&m.at_us) =>
                {
                    Some(offset)
                }
                _ => None,
            })
            .filter(|o| (30..50).contains(o))
            .count()
    };
    assert_eq!((runs_by_consumer_2(0, 37_500_000), runs_by_consumer_2(42_500_000, u64::MAX)), (20, 20));
}

/// model.md §8.14: librdkafka 2.x (`librdkafka`) resets the stored offset on assign
/// (`rd_kafka_assignment_add`, PR #3774) and refuses a store for a partition it does not hold:
/// the same scenario commits nothing for orders-1 while consumer-1 holds it the second time,
/// and consumer-2 takes it back at 50.
#[test]
fn librdkafka_resets_the_stored_offset_on_assign() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/group-rdk-store-reset-on-assign.json"
    ))
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["scenario"]["client"], "librdkafka");
    let run = run(&v["scenario"].to_string());
    let orders_1: Vec<_> = handovers(&run).into_iter().filter(|h| h.0 == 1).map(|h| h.1).collect();
    assert_eq!(orders_1, [Some(20), Some(25), Some(50), Some(50)]);
    let by_consumer_1 = run
        .marks
        .iter()
        .filter(|m| m.partition == 1 && m.member == 0 && (37_500_000..42_600_000).contains(&m.at_us))
        .any(|m| matches!(m.kind, MarkKind::CommitLanded { .. }));
    assert!(!by_consumer_1, "librdkafka 2.x commits no stale offset");
    let again = run
        .marks
        .iter()
        .filter(|m| m.partition == 1 && m.member == 1 && m.at_us >= 42_500_000)
        .any(|m| matches!(m.kind, MarkKind::RecordDurable { offset } if offset < 50));
    assert!(!again, "nothing replayed");
}

/// model.md §10.5: a Java member's heartbeat thread is off from its JoinGroup until its poll
/// reads the response. consumer-1 holds five partitions (four records of 750 ms a poll,
/// `session.timeout.ms` 2000); consumer-2 joins at 12.4 s; consumer-1 joins at its 15.0 s
/// poll, which completes the round, and reads the answer only at its next poll, 3 s on: its
/// session runs out at 17.0 s and consumer-2 takes all five partitions at once, orders-0 at
/// committed 20 with 4 repeated (random case seed 2029 on Apache Kafka 4.3.1: 17.1 s). Its
/// SyncGroup is answered UNKNOWN_MEMBER_ID: the partitions are lost, not revoked. Before, its
/// heartbeats went on, and orders-3 and orders-4 moved to consumer-2 only at 24.0 s.
#[test]
fn a_join_response_that_waits_for_a_long_batch_lets_the_session_expire() {
    let run = run(r#"{"partitions": 5, "members": 1, "record_processing_ms": 750, "max.poll.records": 4,
        "strategy": "commit_sync_batch", "on_revoke": "commit_sync", "partition.assignment.strategy": "cooperative-sticky",
        "session.timeout.ms": 2000, "heartbeat.interval.ms": 500, "group.initial.rebalance.delay.ms": 0,
        "assigned_before_start_ms": 500, "horizon_ms": 20000,
        "group_events": [{"at_ms": 12355, "member": 2, "kind": "join"}]}"#);
    assert_eq!(expired(&run), [(0, 17_030)]);
    let moved: Vec<_> = group(&run)
        .handovers
        .iter()
        .filter(|h| h.to == Some(1))
        .map(|h| (h.partition, h.at_us / 1000))
        .collect();
    assert_eq!(moved, [(0, 17_040), (1, 17_040), (2, 17_040), (3, 17_040), (4, 17_040)]);
    assert_eq!(handovers(&run)[0], (0, Some(20), 0, 4));
}

/// model.md §10.1: an eager round takes every partition, but the Java fetch session keeps those
/// fetched before first. consumer-2 holds orders-1 (six records of 700 ms a poll, auto-commit);
/// consumer-1 shuts down at 15.85 s; at the round consumer-2 takes orders-0 and orders-1 back
/// and hands out orders-1 first, so its crash at 22.865 s repeats two records of orders-1 (random
/// case seed 2077 on Apache Kafka 4.3.1). Before, the next poll started at orders-0 and the two
/// repeated records were orders-0's.
#[test]
fn an_eager_member_hands_out_first_what_it_fetched_before() {
    let run = run(r#"{"partitions": 2, "members": 2, "record_processing_ms": 700, "max.poll.records": 6,
        "auto.commit.interval.ms": 3500, "partition.assignment.strategy": "roundrobin",
        "session.timeout.ms": 2000, "heartbeat.interval.ms": 500, "group.initial.rebalance.delay.ms": 0,
        "assigned_before_start_ms": 500, "horizon_ms": 22866, "group_events": [
        {"at_ms": 15850, "member": 1, "kind": "shutdown"}, {"at_ms": 22865, "member": 2, "kind": "crash"}]}"#);
    let last: Vec<_> = handovers(&run).into_iter().skip(2).collect();
    assert_eq!(last, [(0, Some(24), 0, 0), (1, Some(30), 0, 2)]);
}

/// model.md §10.1: a Java member with nothing else to read stops a poll at its fetched chunk's
/// end. Chunks of five records (`max.partition.fetch.bytes` 5120), six records a poll, one
/// partition each: consumer-1's polls return five, so when it shuts down at 12.86 s its batch
/// ends at record 25 and `close()` commits 25 (random case seed 8162 on Apache Kafka 4.3.1).
/// Before, the polls ran past the chunk (six records) and the close committed 24.
#[test]
fn a_poll_stops_at_the_chunks_end_when_nothing_else_is_buffered() {
    let run = run(r#"{"partitions": 2, "members": 2, "record_processing_ms": 600, "max.poll.records": 6,
        "auto.commit.interval.ms": 5500, "partition.assignment.strategy": "range", "session.timeout.ms": 4000,
        "heartbeat.interval.ms": 1000, "max.partition.fetch.bytes": 5120, "group.initial.rebalance.delay.ms": 0,
        "assigned_before_start_ms": 500, "horizon_ms": 19476, "group_events": [
        {"at_ms": 12860, "member": 1, "kind": "shutdown"}, {"at_ms": 19475, "member": 2, "kind": "crash"}]}"#);
    assert_eq!(handovers(&run)[0], (0, Some(25), 0, 0));
    let polls: Vec<u32> = run
        .marks
        .iter()
        .filter(|m| m.member == 0)
        .filter_map(|m| match m.kind {
            MarkKind::Poll { records, .. } => Some(records),
            _ => None,
        })
        .collect();
    assert!(polls.iter().all(|&n| n == 5), "{polls:?}");
}

/// model.md §10.2: a librdkafka leader runs librdkafka's own sticky assignor
/// (`rdkafka_sticky_assignor.c`), which hands a joining member the holder's lowest partitions
/// (`sortPartitions` lists them lowest first, `performReassignments` moves them in that order
/// until the counts are within one); Java's `AbstractStickyAssignor` keeps the lowest. Random
/// case seed 8156 on Apache Kafka 4.3.1 (librdkafka 2.16): consumer-1 holds orders-0 to
/// orders-3, consumer-2 joins at 4.22 s and gets orders-0 (committed 10) and orders-1 (0) at
/// 6.02 s, as the model now says. Before, the model gave it orders-2 and orders-3 (still the
/// Java client's answer).
#[test]
fn librdkafka_sticky_gives_a_joining_member_the_lowest_partitions() {
    let scenario = |client: &str| {
        format!(
            r#"{{"partitions": 4, "members": 1, "partition.assignment.strategy": "cooperative-sticky",
            "client": "{client}", "record_processing_ms": 550, "max.poll.records": 1,
            "strategy": "commit_sync_batch", "session.timeout.ms": 4000, "heartbeat.interval.ms": 1000,
            "horizon_ms": 20000, "group_events": [{{"at_ms": 4220, "member": 2, "kind": "join"}}]}}"#
        )
    };
    let to_consumer_2 = |run: &Run| -> Vec<u32> {
        group(run).handovers.iter().filter(|h| h.to == Some(1)).map(|h| h.partition as u32).collect()
    };
    let rdk = run(&scenario("librdkafka"));
    assert_eq!(to_consumer_2(&rdk), [0, 1]);
    assert_eq!(handovers(&rdk), [(0, Some(10), 0, 0), (1, Some(0), 0, 0)]);
    let java = run(&scenario("java_classic"));
    assert_eq!(to_consumer_2(&java), [2, 3]);
}

/// model.md §10.6: a KIP-848 revocation pauses the partition and keeps it assigned until a
/// later `poll()` runs `onPartitionsRevoked`
/// (`SubscriptionState.markPendingRevocation`; `allConsumed()` still covers it), so the
/// record in hand finishes and the `commitSync()` after it commits that partition too. Random
/// case seed 8203 on Apache Kafka 4.3.1 (kafka-clients 4.3.1): consumer-1 shuts down after its
/// fifth record and restarts 1.77 s later; the uniform assignor gives it orders-1 back from
/// consumer-2, whose heartbeat tells it mid-record to give it up; the real handover starts from
/// 9. Before, the model dropped the partition at the heartbeat: committed 8, one record repeated.
#[test]
fn a_kip848_revocation_pauses_until_the_next_poll() {
    let run = run(r#"{"client": "java_consumer_protocol", "partitions": 2, "members": 2,
        "record_processing_ms": 750, "max.poll.records": 1, "strategy": "commit_sync_batch",
        "session.timeout.ms": 4000, "group.consumer.heartbeat.interval.ms": 200, "horizon_ms": 20000,
        "group_events": [{"at_ms": 4120, "member": 1, "kind": "shutdown", "restart_after_ms": 1770.5}]}"#);
    assert_eq!(handovers(&run), [(0, Some(6), 0, 0), (1, Some(9), 0, 0)]);
}

/// model.md §10.6: kafka-clients 4.3 reconciles a revocation only inside the application's
/// `poll()` (`AbstractMembershipManager.maybeReconcile(canCommit)`), in three steps — pause,
/// `onPartitionsRevoked`, apply and `onPartitionsAssigned` — one per poll that returns
/// buffered records; the next heartbeat acknowledges it. Random case seed 12002 on Apache
/// Kafka 4.3.1: consumer-2 closes at once at 5.3 s and comes back 2.6 s later; consumer-1, in
/// batches of five 700 ms records, is told at a heartbeat to give orders-1 back, pauses it at its
/// next poll (10.5 s) and is killed at 13 s, before two more: the restarted member
/// never gets orders-1 (the broker logged consumer-1 in UNREVOKED_PARTITIONS to its end).
/// Before, the model handed orders-1 over at 11.4 s.
#[test]
fn a_kip848_revocation_takes_three_polls() {
    let run = run(r#"{"partitions": 2, "members": 2, "record_processing_ms": 700, "max.poll.records": 5,
        "strategy": "commit_sync_batch", "session.timeout.ms": 10000, "group.consumer.heartbeat.interval.ms": 500,
        "client": "java_consumer_protocol", "group.initial.rebalance.delay.ms": 0, "new_group": true,
        "auto.offset.reset": "earliest", "assigned_before_start_ms": 500, "horizon_ms": 13136.5,
        "group_events": [{"at_ms": 5275, "member": 2, "kind": "shutdown", "shutdown_mode": "abrupt", "restart_after_ms": 2590.5},
        {"at_ms": 12985, "member": 1, "kind": "crash"}, {"at_ms": 13135.5, "member": 2, "kind": "crash"}]}"#);
    let moved: Vec<_> =
        group(&run).handovers.iter().map(|h| (h.partition, h.from, h.to, h.at_us / 1000)).collect();
    assert_eq!(moved, [(1, Some(1), Some(0), 7010), (0, Some(0), None, 13_136), (1, Some(0), None, 13_136)]);
}

/// model.md §10.6 (issue 30, the real case `group-pool-drain-runs-out-kip848`): a kafka-clients
/// 4.3 poll that finds its fetch buffer empty runs `onPartitionsRevoked` before it returns the
/// records it fetches. consumer-1 holds both partitions and hands each poll's five records to a
/// pool of two threads (`commitSync` of the contiguous frontier after each hand-off, `on_revoke:
/// drain` with a 750 ms budget); consumer-2 joins at 4955 ms. consumer-1's 6 s poll comes after
/// it handed out orders-1's chunk to its last record, so nothing is buffered (the chunk still
/// counts as buffered for the fetcher, `FetchBuffer.bufferedPartitions`, so no prefetch went
/// out): the poll's reconciliation check queues the callback, `collectFetch` finds nothing, and
/// the poll's loop runs the callback before the fetched records come. It drains until 6750 ms and
/// commits orders-1 at 22, then the poll returns orders-0 25–29; `onPartitionsAssigned` runs in
/// the next poll (6760 ms), which acknowledges at once; consumer-2's heartbeat at 6955 ms takes
/// orders-1 from 22. Before, the model paused orders-1 at 6 s and returned orders-0 25–29 at
/// once, ran the callback in its next poll but one, when the pool had room again (7.5 s), drained
/// until 8250 ms and handed over at 8955 ms from 25 (real: 22).
#[test]
fn a_kip848_poll_with_nothing_buffered_runs_on_partitions_revoked_before_its_records() {
    let run = run(r#"{"partitions": 2, "members": 1, "worker_pool": true, "pool_threads": 2,
        "pool_max_in_flight_batches": 4, "pool_commit": "contiguous_completed", "strategy": "commit_sync_batch",
        "record_processing_ms": 300, "max.poll.records": 5, "max.partition.fetch.bytes": 5120,
        "session.timeout.ms": 10000, "group.consumer.heartbeat.interval.ms": 500, "on_revoke": "drain",
        "on_revoke_drain_ms": 750, "client": "java_consumer_protocol", "group.initial.rebalance.delay.ms": 0,
        "new_group": true, "auto.offset.reset": "earliest", "assigned_before_start_ms": 500, "horizon_ms": 8306,
        "group_events": [{"at_ms": 4955, "member": 2, "kind": "join"}, {"at_ms": 8250, "member": 1, "kind": "crash"},
        {"at_ms": 8305, "member": 2, "kind": "crash"}]}"#);
    let of_member_1 = |kind: fn(&MarkKind) -> bool| -> Vec<(u64, u32)> {
        run.marks
            .iter()
            .filter(|m| m.member == 0 && kind(&m.kind))
            .map(|m| (m.at_us / 1000, m.partition as u32))
            .collect()
    };
    assert_eq!(of_member_1(|k| matches!(k, MarkKind::Revoked))[0], (6000, 1));
    let polls: Vec<_> = of_member_1(|k| matches!(k, MarkKind::Poll { .. }))
        .into_iter()
        .filter(|&(t, _)| (6000..7000).contains(&t))
        .collect();
    assert_eq!(polls, [(6755, 0), (6760, 0)]);
    let beats: Vec<_> = of_member_1(|k| matches!(k, MarkKind::Heartbeat))
        .into_iter()
        .map(|(t, _)| t)
        .filter(|t| (6000..8000).contains(t))
        .collect();
    assert_eq!(
        beats,
        [6000, 6500, 6760, 7260, 7760],
        "the acknowledgement goes at once; the interval counts from it"
    );
    let moved: Vec<_> = group(&run)
        .handovers
        .iter()
        .map(|h| (h.partition, h.from, h.to, h.at_us / 1000, h.committed, h.duplicated))
        .collect();
    assert_eq!(moved[0], (1, Some(0), Some(1), 6955, Some(22), 3));
}

/// model.md §10.6: kafka-clients 4.3 starts a reconciliation only in a `poll()` that submits an
/// `AsyncPollEvent`, and a poll submits none while the previous poll's event is held and another
/// fetched chunk waits in the buffer (`AsyncKafkaConsumer.maybeClearPreviousInflightPoll`). Random
/// case seed 12082 on Apache Kafka 4.3.1, a deploy: consumer-1 restarts and gets both partitions in
/// one fetch (orders-0's chunk in hand, orders-1's waiting); consumer-2 restarts at 16 s and the
/// target takes orders-1 from consumer-1, whose next poll (the model's 18.2 s, the real 18.5 s)
/// submits no event (its TRACE log): it pauses orders-1 a poll later and hands it over at 27.4 s.
/// Before, the model paused at 18.2 s and handed it over at 24.4 s: orders-1 committed 24 at the
/// end where the real group committed 20.
#[test]
fn a_kip848_poll_without_its_event_starts_no_reconciliation() {
    let run = run(r#"{"partitions": 2, "members": 2, "record_processing_ms": 750, "max.poll.records": 4,
        "strategy": "commit_sync_batch", "session.timeout.ms": 4000, "group.consumer.heartbeat.interval.ms": 200,
        "client": "java_consumer_protocol", "group.initial.rebalance.delay.ms": 0, "new_group": true,
        "auto.offset.reset": "earliest", "assigned_before_start_ms": 500, "horizon_ms": 29326.5,
        "group_events": [{"at_ms": 10165, "member": 1, "kind": "shutdown", "restart_after_ms": 1000.5},
        {"at_ms": 13860.5, "member": 2, "kind": "shutdown", "restart_after_ms": 1000.5},
        {"at_ms": 29140.5, "member": 1, "kind": "crash"}, {"at_ms": 29325.5, "member": 2, "kind": "crash"}]}"#);
    let moved: Vec<_> = group(&run)
        .handovers
        .iter()
        .map(|h| (h.partition, h.from, h.to, h.at_us / 1000, h.committed))
        .collect();
    assert_eq!(
        moved,
        [
            (0, Some(0), Some(0), 15_220, Some(16)),
            (1, Some(1), Some(0), 15_220, Some(20)),
            (1, Some(0), Some(1), 27_425, Some(20)),
            (0, Some(0), None, 29_326, Some(32)),
            (1, Some(1), None, 29_326, Some(20)),
        ]
    );
    let skipped = run.marks.iter().filter(|m| m.kind == MarkKind::PollEventSkipped).map(|m| m.at_us / 1000);
    assert_eq!(skipped.collect::<Vec<_>>(), [18_225]);
}

/// model.md §8.14, sarama v1.61.1 in an eager group (`range`, its default): the heartbeat that
/// meets the rebalance cancels the session (`triggerRebalance`), the handler finishes and marks
/// the message in hand and returns, and the session's release flushes the marks
/// (`consumerGroupSession.release` → `offsetManager.Close` → `flushToBroker`) before the next
/// JoinGroup. Each session starts its own AutoCommit ticker (`newOffsetManagerFromClient`).
/// consumer-2 (orders-1, marks committed every second) is killed at 8.6 s with 21 records done
/// and 20 committed by the 8 s tick; its session expires at 10.6 s; consumer-1 learns at its
/// next heartbeat, finishes record 26 at 10.8 s and its release commits 27 on orders-0 (the 10 s
/// tick had committed 25): nothing repeated there. consumer-1 takes both at 10.815 s and orders-1
/// repeats record 20. Its new session's ticker sends at 11.815 s (landing 11.82 s), not at 11 s.
#[test]
fn sarama_release_flushes_the_marks_and_each_session_has_its_ticker() {
    let scenario = |strategy: &str| {
        format!(
            r#"{{"client": "sarama", "strategy": "{strategy}", "auto.commit.interval.ms": 1000,
            "record_processing_ms": 400, "partitions": 2, "members": 2, "session.timeout.ms": 2000,
            "heartbeat.interval.ms": 100, "horizon_ms": 13000,
            "group_events": [{{"at_ms": 8600, "member": 2, "kind": "crash"}}]}}"#
        )
    };
    let marks = run(&scenario("mark_message"));
    assert_eq!(handovers(&marks), [(0, Some(27), 0, 0), (1, Some(20), 0, 1)]);
    let landed: Vec<(u64, u64)> = marks
        .marks
        .iter()
        .filter(|m| m.member == 0 && m.at_us >= 9_500_000)
        .filter_map(|m| match m.kind {
            MarkKind::CommitLanded { offset } => Some((m.at_us / 1000, offset)),
            _ => None,
        })
        .collect();
    assert_eq!(landed[..3], [(10_005, 25), (10_805, 27), (11_820, 29)]);
    assert_eq!(group(&marks).rebalances, 1);
    // MarkMessage + session.Commit() after each message, AutoCommit off: nothing left to flush.
    let sync = run(&scenario("commit_sync_record"));
    assert_eq!(handovers(&sync), [(0, Some(27), 0, 0), (1, Some(21), 0, 0)]);
    // Not modelled (refused): sarama's cooperative protocol, static members, hangs; franz-go
    // in groups (read, model.md §8.14).
    let refused = |json: &str| Scenario::from_json(json).and_then(|s| s.validate().map(|_| s)).is_err();
    let two = r#""members": 2, "partitions": 2"#;
    assert!(refused(&format!(
        r#"{{"client": "sarama", {two}, "partition.assignment.strategy": "cooperative-sticky"}}"#
    )));
    assert!(refused(&format!(r#"{{"client": "sarama", {two}, "group.instance.id": true}}"#)));
    assert!(refused(&format!(r#"{{"client": "franz_go", {two}}}"#)), "franz-go: cooperative-sticky only");
    assert!(!refused(&format!(
        r#"{{"client": "sarama", {two}, "partition.assignment.strategy": "roundrobin"}}"#
    )));
}

/// model.md §8.14, KafkaJS 2.2.4 in a group (round robin, its one built-in assigner; eager):
/// `eachMessage` with autoCommit commits the resolved offsets after each batch — a batch is
/// what one fetch brought, here a partition's whole backlog — and the runner heartbeats after
/// each message (`Runner.processEachMessage` → `heartbeat`). consumer-2 (orders-1) is killed at
/// 8.6 s mid-batch: nothing committed, 21 records done. Its session (2.2 s) expires at 10.7 s;
/// consumer-1's heartbeat after record 26 (10.8 s) meets the rebalance: it commits the resolved
/// 27 (`Runner.heartbeat` → `autoCommitOffsets`), drops the rest of its batch and rejoins, taking
/// both at 10.815 s; orders-1 repeats all 21. (A member that finished its batch first, as the
/// Java loop does, would not rejoin before its 1024-record batch was done.)
#[test]
fn kafkajs_commits_what_it_resolved_when_a_heartbeat_meets_a_rebalance() {
    let kafkajs = run(r#"{"client": "kafkajs", "record_processing_ms": 400,
        "partition.assignment.strategy": "roundrobin", "partitions": 2, "members": 2,
        "session.timeout.ms": 2200, "heartbeat.interval.ms": 100, "horizon_ms": 13000, "new_group": true, "auto.offset.reset": "earliest",
        "group_events": [{"at_ms": 8600, "member": 2, "kind": "crash"}]}"#);
    assert_eq!(handovers(&kafkajs), [(0, Some(27), 0, 0), (1, None, 0, 21)]);
    assert_eq!(group(&kafkajs).handovers[0].at_us, 10_815_000);
    assert_eq!(group(&kafkajs).rebalances, 1);
    // `eachBatch` with `resolveOffset(message.offset)` + `await heartbeat()` after each message
    // (`eachBatchAutoResolve: false`): the same heartbeat, the same commit of what is resolved
    // (`Runner.heartbeat` is the payload's `heartbeat`), the same numbers.
    let each_batch = run(
        r#"{"client": "kafkajs", "strategy": "each_batch_resolve_offset", "record_processing_ms": 400,
        "partition.assignment.strategy": "roundrobin", "partitions": 2, "members": 2,
        "session.timeout.ms": 2200, "heartbeat.interval.ms": 100, "horizon_ms": 13000, "new_group": true, "auto.offset.reset": "earliest",
        "group_events": [{"at_ms": 8600, "member": 2, "kind": "crash"}]}"#,
    );
    assert_eq!(handovers(&each_batch), [(0, Some(27), 0, 0), (1, None, 0, 21)]);
    assert_eq!(group(&each_batch).handovers[0].at_us, 10_815_000);
    let refused = |json: &str| Scenario::from_json(json).and_then(|s| s.validate().map(|_| s)).is_err();
    assert!(refused(r#"{"client": "kafkajs", "members": 2, "partitions": 2}"#), "range: not KafkaJS's");
}

/// model.md §8.14, franz-go in a cooperative group: the management goroutine rebalances beside
/// the application, and a revocation commits the heads — not the latest poll, which the
/// application still holds. consumer-1 owns orders-0 and orders-1 (chunks of 10 records, polls
/// of 5, 400 ms records); consumer-2 joins at 5.1 s while consumer-1 works through orders-1's
/// first chunk. The poll at 6.0 s hands out orders-1 5–9 and makes 5 the head; the heartbeat at
/// 6.0 s meets the rebalance: the session's revoke commits the heads, JoinGroup, SyncGroup
/// (6.015 s) takes orders-1 away; the prerevoke commits orders-1's head, 5, and consumer-1
/// rejoins; the next round hands orders-1 to consumer-2 at 6.525 s (its session's 500 ms
/// heartbeat), which starts at 5 while consumer-1 finishes 5–9 as well: 5 records run twice.
/// `GreedyAutoCommit` commits the latest poll (10): nothing twice. Closing abruptly in the
/// middle of a batch commits its start too (`leave` → `defaultRevoke`).
#[test]
fn franz_go_revokes_beside_the_application_and_commits_the_heads() {
    let scenario = |strategy: &str, event: &str| {
        format!(
            r#"{{"client": "franz_go", "strategy": "{strategy}", "partition.assignment.strategy": "cooperative-sticky",
            "auto.commit.interval.ms": 1000, "record_processing_ms": 400, "partitions": 2, "members": 1,
            "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000, "horizon_ms": 20000,
            "max.partition.fetch.bytes": 10240, "group_events": [{event}]}}"#
        )
    };
    let join = r#"{"at_ms": 5100, "member": 2, "kind": "join"}"#;
    let heads = run(&scenario("auto_commit", join));
    assert_eq!(handovers(&heads), [(1, Some(5), 0, 5)]);
    assert_eq!(group(&heads).handovers[0].at_us, 6_525_000);
    assert_eq!(group(&heads).rebalances, 2);
    let greedy = run(&scenario("greedy_auto_commit", join));
    assert_eq!(handovers(&greedy), [(1, Some(10), 0, 0)]);
    // G1's shape: consumer-2 closes at 9 s in the middle of orders-1 20–24 (20 and 21 done).
    let g1 = |strategy: &str| {
        format!(
            r#"{{"client": "franz_go", "strategy": "{strategy}", "partition.assignment.strategy": "cooperative-sticky",
            "auto.commit.interval.ms": 1000, "record_processing_ms": 400, "partitions": 2, "members": 2,
            "session.timeout.ms": 2000, "heartbeat.interval.ms": 100, "horizon_ms": 13000,
            "group_events": [{{"at_ms": 9000, "member": 2, "kind": "shutdown", "shutdown_mode": "abrupt"}}]}}"#
        )
    };
    assert_eq!(handovers(&run(&g1("auto_commit"))), [(1, Some(20), 0, 2)]);
    assert_eq!(handovers(&run(&g1("greedy_auto_commit"))), [(1, Some(25), 3, 0)]);
}

/// model.md §8.14, kafka-go v0.4.51 in an eager group (`range`, `RangeGroupBalancer`):
/// `Generation.heartbeatLoop` returns at the heartbeat answered REBALANCE_IN_PROGRESS, which ends
/// the generation; `Reader.run` rejoins and subscribes in the background, the application's
/// message in hand going on, and a commit queued between generations goes out from the next
/// generation's `commitLoopImmediate`. G1's shape, `FetchMessage` + `CommitMessages` after each
/// 400 ms message (405 ms with the commit): consumer-2 (orders-1, committed 21) is killed at
/// 8.6 s; its session expires and consumer-1's heartbeat at 10.6 s meets the rebalance in the
/// middle of record 26; it takes both partitions at 10.61 s from the committed offsets, orders-0
/// at 26, so record 26, done at 10.93 s and committed 27 then, is handed out again. Under
/// `ReadMessage` the commit came before the message: orders-0 starts at 27, orders-1 at 22 with
/// consumer-2's message in hand lost.
#[test]
fn kafka_go_rejoins_at_its_heartbeat_and_commits_with_the_next_generation() {
    let scenario = |strategy: &str, record_ms: u32| {
        format!(
            r#"{{"client": "kafka_go", "strategy": "{strategy}", "record_processing_ms": {record_ms},
            "partitions": 2, "members": 2, "session.timeout.ms": 2000, "heartbeat.interval.ms": 100,
            "horizon_ms": 13000, "new_group": true, "auto.offset.reset": "earliest",
            "group_events": [{{"at_ms": 8600, "member": 2, "kind": "crash"}}]}}"#
        )
    };
    let landed = |run: &Run| -> Vec<(u64, u64)> {
        run.marks
            .iter()
            .filter(|m| m.member == 0 && (10_500_000..11_500_000).contains(&m.at_us))
            .filter_map(|m| match m.kind {
                MarkKind::CommitLanded { offset } => Some((m.at_us, offset)),
                _ => None,
            })
            .collect()
    };
    let fetch = run(&scenario("fetch_message_commit_messages", 400));
    assert_eq!(handovers(&fetch), [(0, Some(26), 0, 1), (1, Some(21), 0, 0)]);
    assert_eq!(group(&fetch).handovers[0].at_us, 10_610_000);
    assert_eq!(group(&fetch).rebalances, 1);
    assert_eq!(landed(&fetch), [(10_530_000, 26), (10_935_000, 27), (11_340_000, 27)]);
    let read = run(&scenario("read_message", 400));
    assert_eq!(handovers(&read), [(0, Some(27), 0, 0), (1, Some(22), 1, 0)]);
    // Record 25 of 403 ms ends at 10.603 s, between the generations: its commit of 26 waits for
    // the assignment (10.61 s, from 25) and lands at 10.615 s; 25 is handed out again.
    let gap = run(&scenario("fetch_message_commit_messages", 403));
    assert_eq!(handovers(&gap), [(0, Some(25), 0, 1), (1, Some(21), 0, 0)]);
    assert_eq!(landed(&gap), [(10_615_000, 26), (11_023_000, 26), (11_431_000, 27)]);
    // Refused: kafka-go's cooperative protocol does not exist, static members and hangs are not
    // modelled; with range, the later members get the extra partitions (`RangeGroupBalancer`).
    let refused = |json: &str| Scenario::from_json(json).and_then(|s| s.validate().map(|_| s)).is_err();
    let two = r#""client": "kafka_go", "members": 2, "partitions": 2"#;
    assert!(refused(&format!(r#"{{{two}, "partition.assignment.strategy": "cooperative-sticky"}}"#)));
    assert!(refused(&format!(r#"{{{two}, "group.instance.id": true}}"#)));
    assert!(refused(&format!(r#"{{{two}, "worker_pool": true}}"#)));
    let three = run(r#"{"client": "kafka_go", "members": 2, "partitions": 3, "session.timeout.ms": 2000,
        "horizon_ms": 6000, "group_events": [{"at_ms": 500, "member": 2, "kind": "crash"}]}"#);
    let moved: Vec<_> = group(&three).handovers.iter().map(|h| (h.partition, h.from, h.to)).collect();
    assert_eq!(moved[..3], [(0, Some(0), Some(0)), (1, Some(1), Some(0)), (2, Some(1), Some(0))]);
}

/// model.md §10.6, "Member epochs on commits": under the consumer protocol a commit carries the
/// member epoch its client knew when it sent it. consumer-1 holds orders-0 and commits each batch
/// of five 100 ms records with `commitSync` (a 350 ms round trip); consumer-2, on orders-1, shuts
/// down at 9 s. consumer-1's heartbeat at 10 s gives it orders-1 and, as it gives nothing up,
/// moves it to the new epoch at once while the commit sent at 9.85 s (the old epoch) is in
/// flight. Apache Kafka 4.3 (KIP-1251) takes it for orders-0, held since that epoch; 4.0–4.2
/// refuse it (STALE_MEMBER_EPOCH) and `commitSync` throws. A crash at 10.5 s then repeats 2
/// records of orders-0, or 7. (A member giving a partition up moves on only at its
/// acknowledging heartbeat, which kafka-clients 4.3 sends inside the `poll()` that ran
/// `onPartitionsAssigned`: no `commitSync` of its own is in flight then.)
#[test]
fn a_commit_in_flight_across_an_epoch_bump_is_refused_before_kafka_4_3() {
    let scenario = |broker: &str| {
        format!(
            r#"{{"client": "java_consumer_protocol", "broker_version": "{broker}", "strategy": "commit_sync_batch",
            "commit_latency_ms": 350, "record_processing_ms": 100, "partitions": 2, "members": 2, "horizon_ms": 20000,
            "group_events": [{{"at_ms": 9000, "member": 2, "kind": "shutdown"}}, {{"at_ms": 10500, "member": 1, "kind": "crash"}}]}}"#
        )
    };
    let stale = |run: &Run| -> Vec<(u64, u64)> {
        run.marks
            .iter()
            .filter_map(|m| match m.kind {
                MarkKind::CommitFailed { offset, reason: CommitFailure::StaleMemberEpoch } => {
                    Some((m.at_us / 1000, offset))
                }
                _ => None,
            })
            .collect()
    };
    let now = run(&scenario("4.3"));
    assert_eq!(stale(&now), []);
    assert_eq!(handovers(&now)[1], (0, Some(60), 0, 2));
    let before = run(&scenario("4.0"));
    assert_eq!(stale(&before), [(10_200, 60)]);
    assert_eq!(handovers(&before)[1], (0, Some(55), 0, 7));
    // The key is read under the consumer protocol only.
    let refused =
        Scenario::from_json(r#"{"broker_version": "4.0", "members": 2}"#).and_then(|s| s.validate());
    assert!(refused.unwrap_err().to_string().contains("broker_version"));
}

/// model.md §10.6 (issue 30): kafka-clients 4.3.1 retries the commit before a revocation
/// (`CommitRequestManager.maybeAutoCommitSyncBeforeRebalance`) on STALE_MEMBER_EPOCH, after
/// `retry.backoff.ms`, with the member's new epoch and what it has consumed by then
/// (`requestAttempt.offsets = subscriptions.allConsumed()`), and the reconciliation waits for
/// it. consumer-1 (auto-commit, 980 ms records, 350 ms commits) is told at 10 s to give orders-1
/// to consumer-2, which joined at 9 s and leaves at 12 s; its 14.7 s poll commits orders-0 at 15
/// with the old epoch, and its 15 s heartbeat, nothing left to revoke, moves it on. 4.0 refuses
/// the commit at 15.05 s; the retry at 15.15 s carries 20 — the 14.7 s poll's records, still
/// being processed — and lands: the crash at 17 s loses 17–19. Before (no retry): committed
/// 0, 17 repeated. 4.3 takes the first commit: 15, 2 repeated.
#[test]
fn the_commit_before_a_revocation_is_retried_with_the_new_epoch() {
    let scenario = |broker: &str| {
        format!(
            r#"{{"client": "java_consumer_protocol", "broker_version": "{broker}", "strategy": "auto_commit",
            "commit_latency_ms": 350, "record_processing_ms": 980, "partitions": 2, "members": 1, "horizon_ms": 30000,
            "group_events": [{{"at_ms": 9000, "member": 2, "kind": "join"}}, {{"at_ms": 12000, "member": 2, "kind": "shutdown"}},
                             {{"at_ms": 17000, "member": 1, "kind": "crash"}}]}}"#
        )
    };
    // (ms, partition, offset) of commits sent, refused as stale, landed.
    type Commits = Vec<(u64, u32, u64)>;
    let commits = |run: &Run| -> (Commits, Commits, Commits) {
        let mut out = (Vec::new(), Vec::new(), Vec::new());
        for m in run.marks.iter().filter(|m| m.at_us >= 14_000_000) {
            let at = (m.at_us / 1000, m.partition as u32);
            match m.kind {
                MarkKind::CommitSent { offset, .. } => out.0.push((at.0, at.1, offset)),
                MarkKind::CommitFailed { offset, reason: CommitFailure::StaleMemberEpoch } => {
                    out.1.push((at.0, at.1, offset))
                }
                MarkKind::CommitLanded { offset } => out.2.push((at.0, at.1, offset)),
                _ => {}
            }
        }
        out
    };
    let before = run(&scenario("4.0"));
    let (sent, stale, landed) = commits(&before);
    // At 14.7 s the poll's interval auto-commit and the commit before the reconciliation; only
    // the latter is sent again.
    assert_eq!(
        sent,
        [(14_700, 0, 15), (14_700, 1, 0), (14_700, 0, 15), (14_700, 1, 0), (15_150, 0, 20), (15_150, 1, 0)]
    );
    assert_eq!(stale, [(15_050, 0, 15), (15_050, 1, 0), (15_050, 0, 15), (15_050, 1, 0)]);
    assert_eq!(landed, [(15_500, 0, 20), (15_500, 1, 0)]);
    assert_eq!(handovers(&before)[0], (0, Some(20), 3, 0));
    let now = run(&scenario("4.3"));
    assert_eq!(commits(&now).1, []);
    assert_eq!(handovers(&now)[0], (0, Some(15), 0, 2));
    // kafka-clients 3.9.2 (`maybeAutoCommitSyncBeforeRevocation`) retries it too. It reconciles at
    // the 10 s heartbeat; with a 5.5 s round trip its commit is in flight at the 15 s heartbeat,
    // and is sent again at 15.6 s with the new epoch and the position then (the crash at 17 s
    // comes before it lands).
    let pre_fix = run(&scenario("4.0")
        .replace("java_consumer_protocol", "java_consumer_protocol_pre_fix")
        .replace("\"commit_latency_ms\": 350", "\"commit_latency_ms\": 5500"));
    let (sent, stale, _) = commits(&pre_fix);
    assert!(stale.contains(&(15_500, 0, 15)), "{stale:?}");
    assert!(sent.contains(&(15_600, 0, 20)), "{sent:?}");
}

/// model.md §10.6 (issue 30, KAFKA-20332): kafka-clients 4.2.0, the last release without
/// apache/kafka#21897. consumer-1 leaves at 5 s; consumer-2, given orders-0 too, goes on with
/// orders-1's fetched chunk; consumer-3 joins at 9 s and consumer-2 must give orders-1 up. With
/// auto-commit its 12 s poll starts the reconciliation, and 4.2.0's `collectFetch` does not wait
/// for it: the poll returns orders-1 30–34 and the commit before the revocation carries 35. Killed
/// at 13.1 s, consumer-2 has done 30 and 31: 3 lost when consumer-3 takes orders-1 at 24 s.
/// kafka-clients 4.3.1 pauses orders-1 before the hand-out and commits 30: consumer-3 takes it
/// at 14 s, and the kill repeats 2 of orders-0. Without auto-commit 4.2.0's background thread
/// reconciles at the heartbeat: orders-1 is paused at 10 s, not at the 10.025 s poll.
#[test]
fn kafka_clients_4_2_0_returns_records_of_a_partition_being_revoked() {
    let scenario = |client: &str, strategy: &str| {
        format!(
            r#"{{"client": "{client}", "strategy": "{strategy}", "record_processing_ms": 400, "partitions": 2,
            "members": 2, "session.timeout.ms": 10000, "horizon_ms": 40000,
            "group_events": [{{"at_ms": 5000, "member": 1, "kind": "shutdown"}}, {{"at_ms": 9000, "member": 3, "kind": "join"}},
                             {{"at_ms": 13100, "member": 2, "kind": "crash"}}]}}"#
        )
    };
    // (ms, member, partition, what) of consumer-2's polls, commits sent and revocations at 12 s.
    let at_12 = |run: &Run| -> Vec<(u32, u64, &'static str)> {
        run.marks
            .iter()
            .filter(|m| m.at_us == 12_000_000 && m.member == 1)
            .filter_map(|m| match m.kind {
                MarkKind::Poll { from, .. } => Some((m.partition as u32, from, "poll")),
                MarkKind::CommitSent { offset, .. } => Some((m.partition as u32, offset, "commit")),
                MarkKind::Revoked => Some((m.partition as u32, 0, "revoked")),
                _ => None,
            })
            .collect()
    };
    let old = run(&scenario("java_consumer_protocol_4_2_0", "auto_commit"));
    // The poll's interval auto-commit, the hand-out of the partition being revoked, then the
    // commit before the revocation and the pause.
    assert_eq!(at_12(&old), [(1, 30, "commit"), (1, 30, "poll"), (1, 35, "commit"), (1, 0, "revoked")]);
    assert_eq!(handovers(&old), [(0, Some(15), 0, 0), (1, Some(35), 3, 0)]);
    let fixed = run(&scenario("java_consumer_protocol", "auto_commit"));
    assert_eq!(at_12(&fixed), [(1, 30, "commit"), (1, 0, "revoked")]);
    assert_eq!(handovers(&fixed), [(0, Some(15), 0, 0), (1, Some(30), 0, 0), (0, Some(15), 0, 2)]);
    // Without auto-commit: paused at the heartbeat (4.2.0) or at the next poll (4.3.1).
    let paused = |client: &str| -> Vec<u64> {
        let run = run(&scenario(client, "commit_sync_batch"));
        run.marks
            .iter()
            .filter(|m| m.kind == MarkKind::Revoked && m.partition == 1 && m.member == 1)
            .map(|m| m.at_us / 1000)
            .collect()
    };
    assert_eq!(paused("java_consumer_protocol_4_2_0"), [10_000]);
    assert_eq!(paused("java_consumer_protocol"), [10_025]);
    // The case group-kip848-4-2-0-poll-returns-a-revoked-partition (200 ms heartbeats): consumer-2
    // takes orders-0 in its 8 s poll. A target revoking orders-1 that its 10 s poll reconciles
    // finds orders-0's position still to be looked up: `collectFetch` waits for the event's
    // positions stage, after the reconciliation check — orders-1 is paused first, as in 4.3.1.
    // Reconciled in the 12 s poll, the records come first: orders-1 30–34, committed 35.
    let case = |join_ms: u32| -> Vec<(u64, u32, u64)> {
        let run = run(&format!(
            r#"{{"client": "java_consumer_protocol_4_2_0", "strategy": "auto_commit", "record_processing_ms": 400,
            "partitions": 2, "members": 2, "session.timeout.ms": 4000, "group.consumer.heartbeat.interval.ms": 200,
            "horizon_ms": 20000, "group_events": [{{"at_ms": 2600, "member": 1, "kind": "shutdown"}},
            {{"at_ms": {join_ms}, "member": 3, "kind": "join"}}]}}"#
        ));
        let polls = run.marks.iter().filter(|m| m.member == 1 && (9_000_000..13_000_000).contains(&m.at_us));
        polls
            .filter_map(|m| match m.kind {
                MarkKind::Poll { from, .. } => Some((m.at_us / 1000, m.partition as u32, from)),
                _ => None,
            })
            .collect()
    };
    assert_eq!(case(8600), [(10_000, 0, 10), (12_000, 0, 15)]);
    assert_eq!(case(10_600), [(10_000, 1, 25), (12_000, 1, 30)]);
}

/// The group comparison runs every protocol on the scenario's broker: its version decides only
/// the consumer protocol's commits (model.md §10.6), so the classic and library rows run on it
/// too; a row the core refuses is named with the refusal, not dropped in silence.
#[test]
fn the_group_comparison_runs_every_protocol_on_an_older_broker_and_names_what_it_leaves_out() {
    use offset_window_sim::compare::compare_group_left_out;
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/group-kip848-stale-member-epoch.json"
    ))
    .unwrap();
    let scenario: serde_json::Value = serde_json::from_str(&text).unwrap();
    let scenario = Scenario::from_json(&scenario["scenario"].to_string()).unwrap();
    let (rows, left_out) = compare_group_left_out(&scenario).unwrap();
    assert_eq!(rows.len(), 12, "{rows:?}");
    assert!(left_out.is_empty(), "{left_out:?}");
    let kip848: Vec<_> = rows.iter().filter(|r| r.protocol == "consumer protocol (KIP-848)").collect();
    // The preset's own numbers; with static membership consumer-2's close keeps orders-1 until its
    // session expires (epoch −2), so consumer-1's epoch does not move before the crash.
    let dup: Vec<_> = kip848.iter().map(|r| (r.static_membership, r.duplicated)).collect();
    assert_eq!(dup, [(false, 7), (true, 2)], "{kip848:?}");

    let pool = Scenario { worker_pool: true, ..scenario };
    let (rows, left_out) = compare_group_left_out(&pool).unwrap();
    let named: Vec<_> = left_out.iter().flat_map(|(rows, _)| rows.iter().map(|r| r.0)).collect();
    let libraries = ["sarama, range (eager)", "kafka-go, range (eager)", "franz-go, cooperative sticky"];
    assert_eq!(named, [&libraries[..], &["KafkaJS, round robin (eager)"]].concat(), "{left_out:?}");
    assert!(left_out.iter().all(|(_, why)| why.key.as_deref() == Some("worker_pool")));
    assert_eq!(rows.len() + named.len(), 12);
}

/// model.md §10.6 (issue 30): librdkafka on the consumer protocol (`librdkafka_consumer_protocol`,
/// read in 2.15.0's `rdkafka_cgrp.c` and `rdkafka_assignment.c`). consumer-1 holds orders-0 and
/// orders-1 and hands out five 400 ms records a poll, in turn (orders-1 0–4 at 2 s); consumer-2
/// joins at 4.6 s. consumer-1's heartbeat then brings a target without orders-1: it stops
/// fetching orders-1 at once, but commits nothing before the reconciliation (kafka-clients does:
/// every position). Its next poll, at 6 s, serves the `REVOKE_PARTITIONS` op: the unassign
/// commits orders-1's stored offset, 5 (what was handed out), and nothing else; once that is
/// answered the `ASSIGN_PARTITIONS` op (nothing added) is served and the member heartbeats at
/// once to acknowledge (6.005 s). consumer-2 gets orders-1 at its next heartbeat (6.2 s) and
/// starts at 5: nothing repeated at the handover. consumer-1's orders-0, paused with the rest at
/// the heartbeat (what was fetched dropped) and resumed by nobody's wake-up, comes back at 7 s,
/// when its idle fetcher next wakes (measured on 2.16.0: 0.99–1.0 s after the revoke, 7 runs of 7).
/// With a 60 s auto-commit interval no timer commits: consumer-2, killed at 9.6 s, repeats its
/// 8 records of orders-1, consumer-1, killed at 10.6 s, its 18 of orders-0.
#[test]
fn librdkafka_on_the_consumer_protocol_commits_the_moved_partition_at_its_unassign() {
    let run = run(r#"{"client": "librdkafka_consumer_protocol", "strategy": "auto_commit",
        "auto.commit.interval.ms": 60000, "members": 1, "partitions": 2, "horizon_ms": 20000,
        "record_processing_ms": 400, "max.partition.fetch.bytes": 5120, "session.timeout.ms": 4000,
        "group.consumer.heartbeat.interval.ms": 200,
        "group_events": [{"at_ms": 4600, "member": 2, "kind": "join"},
                         {"at_ms": 9600, "member": 2, "kind": "crash"},
                         {"at_ms": 10600, "member": 1, "kind": "crash"}]}"#);
    // (ms, member, partition, what) of the rebalance's steps and the commits.
    assert_eq!(
        reconciliation(&run, |m| m.at_us < 9_000_000),
        reconciliation_of(&[
            (4600, 1, 1, "revoked"),
            (6000, 1, 1, "commit 5"),
            (6005, 1, 1, "landed 5"),
            (6200, 2, 1, "assigned"),
        ])
    );
    let first_poll = run.marks.iter().find_map(|m| match m.kind {
        MarkKind::Poll { from, .. } if m.member == 1 => Some((m.at_us / 1000, m.partition, from)),
        _ => None,
    });
    assert_eq!(first_poll, Some((6200, 1, 5)));
    // orders-0, paused at 4.6 s, resumed at 6.005 s, comes back when the idle fetcher next wakes:
    // on its 1 s grid from its first fetch at t = 0 (model.md §10.4).
    let kept = run.marks.iter().find_map(|m| match m.kind {
        MarkKind::Poll { from, records } if m.member == 0 && m.at_us > 6_000_000 && records > 0 => {
            Some((m.at_us / 1000, m.partition, from))
        }
        _ => None,
    });
    assert_eq!(kept, Some((7000, 0, 10)));
    assert_eq!(handovers(&run), [(1, Some(5), 0, 0), (0, Some(0), 0, 18), (1, Some(5), 0, 8)]);
}

/// model.md §10.6 (issue 30): librdkafka on the consumer protocol sends an automatic commit
/// refused STALE_MEMBER_EPOCH again at once with the member's new epoch and the same offsets
/// (`rd_kafka_cgrp_consumer_defer_offset_commit`). consumer-1's timer commits orders-0 at 100 at
/// 9.8 s (350 ms round trips); consumer-2 closes at 9.5 s and leaves at 9.85 s; consumer-1's
/// 10 s heartbeat brings orders-1 and, nothing to give up, a new epoch. A 4.0 broker refuses
/// the commit at 10.15 s; it goes out again and lands at 10.5 s: the same committed offsets as
/// under 4.3, which takes the first (orders-0 held since the older epoch).
#[test]
fn librdkafka_sends_a_stale_auto_commit_again_with_the_new_epoch() {
    let scenario = |broker: &str| {
        format!(
            r#"{{"client": "librdkafka_consumer_protocol", "broker_version": "{broker}", "strategy": "auto_commit",
            "auto.commit.interval.ms": 4900, "commit_latency_ms": 350, "members": 2, "partitions": 2,
            "horizon_ms": 14000, "record_processing_ms": 100, "group.consumer.heartbeat.interval.ms": 200,
            "group_events": [{{"at_ms": 9400, "member": 2, "kind": "shutdown"}}, {{"at_ms": 12000, "member": 1, "kind": "crash"}}]}}"#
        )
    };
    // (ms, what) of consumer-1's commits from 9 s on.
    let commits = |run: &Run| -> Vec<(u64, String)> {
        run.marks
            .iter()
            .filter(|m| m.member == 0 && m.at_us >= 9_000_000)
            .filter_map(|m| match m.kind {
                MarkKind::CommitSent { offset, .. } => Some((m.at_us / 1000, format!("sent {offset}"))),
                MarkKind::CommitFailed { offset, reason: CommitFailure::StaleMemberEpoch } => {
                    Some((m.at_us / 1000, format!("stale {offset}")))
                }
                MarkKind::CommitLanded { offset } => Some((m.at_us / 1000, format!("landed {offset}"))),
                _ => None,
            })
            .collect()
    };
    let before = run(&scenario("4.0"));
    let expected: Vec<(u64, String)> =
        [(9800, "sent 100"), (10_150, "stale 100"), (10_150, "sent 100"), (10_500, "landed 100")]
            .into_iter()
            .map(|(t, w)| (t, w.to_string()))
            .collect();
    assert_eq!(commits(&before), expected);
    let now = run(&scenario("4.3"));
    assert_eq!(commits(&now), [(9800, "sent 100".to_string()), (10_150, "landed 100".to_string())]);
    let h = [(1, Some(95), 0, 0), (0, Some(100), 0, 19), (1, Some(95), 0, 0)];
    assert_eq!(handovers(&before), h);
    assert_eq!(handovers(&now), h);
}

/// model.md §10.6 (issue 30): librdkafka on the consumer protocol reconciles one target at a
/// time (`rd_kafka_cgrp_consumer_handle_next_assignment`: "Reconciliation in progress, postponing
/// next one"). consumer-1 holds orders-0..2; consumer-2 joins at 6.6 s (target: give orders-2 up),
/// consumer-3 at 7 s (then orders-1 too). consumer-1's heartbeats after 7 s bring the second
/// target while the first is under way: orders-1 stays its own until the acknowledgement at
/// 8.005 s (after the 8 s poll's revoke commits orders-2 at 5), whose answer starts the second
/// reconciliation; the same poll, waiting for records, serves its revoke (orders-1 committed at 5)
/// and the assign.
#[test]
fn librdkafka_on_the_consumer_protocol_postpones_a_target_during_a_reconciliation() {
    let run = run(r#"{"client": "librdkafka_consumer_protocol", "strategy": "auto_commit",
        "auto.commit.interval.ms": 60000, "members": 1, "partitions": 3, "horizon_ms": 12000,
        "record_processing_ms": 400, "max.partition.fetch.bytes": 5120, "session.timeout.ms": 4000,
        "group.consumer.heartbeat.interval.ms": 200,
        "group_events": [{"at_ms": 6600, "member": 2, "kind": "join"}, {"at_ms": 7000, "member": 3, "kind": "join"}]}"#);
    // The first assignments (at 0) left out.
    assert_eq!(
        reconciliation(&run, |m| m.kind != MarkKind::Assigned || m.at_us > 0),
        reconciliation_of(&[
            (6600, 1, 2, "revoked"),
            (8000, 1, 2, "commit 5"),
            (8005, 1, 2, "landed 5"),
            (8005, 1, 1, "revoked"),
            (8005, 1, 1, "commit 5"),
            (8010, 1, 1, "landed 5"),
            (8200, 2, 2, "assigned"),
            (8200, 3, 1, "assigned"),
        ])
    );
}
