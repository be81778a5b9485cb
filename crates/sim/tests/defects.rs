//! Regression tests for the defects fuzzing found (issue 28, D0–D6): each scenario runs
//! without a panic, or is refused with a message naming the key and what is allowed.

use offset_window_sim::producer::ProducerScenario;
use offset_window_sim::Input;
#[cfg(feature = "group")]
use offset_window_sim::{simulate, Run, Scenario};

#[cfg(feature = "group")]
fn run(json: &str) -> Run {
    simulate(&Scenario::from_json(json).unwrap_or_else(|e| panic!("{e}"))).unwrap_or_else(|e| panic!("{e}"))
}

/// The refusal of `json` as `key: message`.
fn refusal(json: &str) -> String {
    match Input::from_json(json) {
        Ok(_) => panic!("{json} was accepted"),
        Err(e) => e.to_string(),
    }
}

/// D0: an off-by-one commit (`commit_value: record_offset`) of a partition nothing was read
/// from commits log start − 1; the restarted member started from it and handed out a record
/// below the log start (a panic in the run counts). Now a committed offset below the log
/// start resolves `auto.offset.reset` (model.md §1): `latest` skips to the log end.
#[cfg(feature = "group")]
#[test]
fn d0_a_committed_offset_below_the_log_start_resolves_auto_offset_reset() {
    const D0: &str = r#"{"record_processing_ms":1,"log_start_offset":1,"partitions":2,"strategy":"commit_sync_batch","commit_value":"record_offset","group_events":[{"at_ms":1000,"kind":"shutdown","member":1,"restart_after_ms":0}]}"#;
    let run = run(D0);
    assert!(
        run.marks
            .iter()
            .all(|m| !matches!(m.kind, offset_window_sim::MarkKind::RecordDurable { offset } if offset < 1)),
        "no record below the log start is handed out"
    );
    let g = run.group.as_ref().unwrap();
    let back = g.handovers.iter().find(|h| h.partition == 1).expect("orders-1 is handed back");
    // orders-1 was committed 0 (log start 1 − 1) and never read: `latest` starts at the
    // log end, 100000, so offsets 1–99999 are lost.
    assert_eq!((back.committed, back.lost, back.duplicated), (Some(0), 99_999, 0));
    // Its next off-by-one commit sends 99999 (the log end − 1), a real offset: a crash at
    // the horizon resumes there and loses 1–99998.
    let at_horizon = run.partition_state_at(1, run.scenario.horizon_us);
    assert_eq!((at_horizon.committed, at_horizon.lost), (Some(99_999), 99_998));
    // With `earliest` the restart begins at the log start and loses nothing there.
    let earliest = D0.replace("\"partitions\":2", "\"partitions\":2,\"auto.offset.reset\":\"earliest\"");
    let run = self::run(&earliest);
    let back = run.group.as_ref().unwrap().handovers.iter().find(|h| h.partition == 1).copied().unwrap();
    assert_eq!((back.committed, back.lost), (Some(0), 0));
    // Every protocol and assignor runs it too (`compare`).
    let input = Input::from_json(D0).unwrap();
    offset_window_sim::compare::compare_group(&input.scenario).unwrap();
}

/// D1: `-0` is 0 in every ms field of `group_events`, as in every other ms key (a script's
/// `sleep -0`, a producer fault's `at_ms`, the top-level keys).
#[cfg(feature = "group")]
#[test]
fn d1_negative_zero_is_zero_in_every_ms_field() {
    let event = |fields: &str| {
        let json = format!(r#"{{"members": 2, "group_events": [{{{fields}}}]}}"#);
        Scenario::from_json(&json).unwrap_or_else(|e| panic!("{json}: {e}")).group_events[0]
    };
    let crash = event(r#""at_ms": -0, "member": 2, "kind": "crash", "restart_after_ms": -0.0"#);
    assert_eq!((crash.at_us, crash.restart_after_us), (0, Some(0)));
    let hang = event(r#""at_ms": -0e3, "member": 2, "kind": "hang", "duration_ms": -0"#);
    assert_eq!((hang.at_us, hang.duration_us), (0, 1), "a hang lasts at least 1 µs, as for 0");
    let deploy = event(r#""at_ms": 1, "kind": "deploy", "deploy_step_ms": -0, "restart_after_ms": -0"#);
    assert_eq!((deploy.deploy_step_us, deploy.restart_after_us), (0, Some(0)));
    run(r#"{"members":2,"group_events":[{"at_ms":-0,"member":2,"kind":"crash"}]}"#);
    // Still refused: a negative value and a fourth decimal, naming the field.
    let bad = refusal(r#"{"members": 2, "group_events": [{"at_ms": -1, "member": 2, "kind": "crash"}]}"#);
    assert!(
        bad.starts_with("group_events[0].at_ms: must be a number of milliseconds from 0 to 86400000"),
        "{bad}"
    );
    let bad = refusal(r#"{"members": 2, "group_events": [{"at_ms": 1.0001, "member": 2, "kind": "crash"}]}"#);
    assert!(bad.starts_with("group_events[0].at_ms: `1.0001` has more than 3 decimals"), "{bad}");
}

#[test]
fn d1_negative_zero_is_zero_in_the_other_ms_keys() {
    let input =
        Input::from_json(r#"{"script": ["poll", "sleep -0", "poll"], "commit_latency_ms": -0}"#).unwrap();
    assert_eq!(input.scenario.script.unwrap()[1], offset_window_sim::scenario::ScriptStep::Sleep(0));
    let producer = ProducerScenario::from_json(r#"{"faults": [{"kind": "leader_failover", "at_ms": -0}]}"#);
    assert_eq!(producer.unwrap().faults[0].at_us, Some(0));
    // A crash instant of -0 is 0, outside (0, horizon]: refused as 0 is.
    assert!(refusal(r#"{"crash_at_ms": -0}"#)
        .starts_with("crash_at_ms: must be a number of milliseconds from 0.001"));
}

/// D2: every name and value an error message echoes is cut short: a 2 MB field name inside
/// a group event gave 2 MB of message.
#[test]
fn d2_every_echoed_name_and_value_is_cut_short() {
    let long = "x".repeat(2_000_000);
    let mut cases = vec![
        format!(r#"{{"{long}": 1}}"#),
        format!(r#"{{"strategy": "{long}"}}"#),
        format!(r#"{{"record_processing_ms_by_offset": {{"{long}": 5}}}}"#),
        format!(r#"{{"script": ["{long}"]}}"#),
        format!(r#"{{"script": ["sleep {long}"]}}"#),
        format!(r#"{{"record_failures": ["{long}"]}}"#),
    ];
    if cfg!(feature = "group") {
        cases.extend([
            format!(r#"{{"members": 2, "group_events": [{{"at_ms": 1, "member": 2, "kind": "crash", "{long}": 1}}]}}"#),
            format!(r#"{{"members": 2, "group_events": [{{"at_ms": 1, "member": 2, "kind": "{long}"}}]}}"#),
            format!(r#"{{"members": 2, "group_events": [{{"at_ms": "{long}", "member": 2, "kind": "crash"}}]}}"#),
            format!(r#"{{"members": 2, "group_events": [{{"at_ms": 1, "member": "{long}", "kind": "crash"}}]}}"#),
            format!(r#"{{"members": 2, "group_events": ["{long}"]}}"#),
        ]);
    }
    for json in &cases {
        let message = refusal(json);
        assert!(!message.contains(&"x".repeat(61)), "{} bytes: {}", message.len(), &message[..200]);
        assert!(message.contains("… (200000"), "{message}");
    }
    for json in [
        format!(r#"{{"faults": [{{"kind": "ack_lost", "batch": 1, "{long}": 1}}]}}"#),
        format!(r#"{{"faults": [{{"kind": "{long}"}}]}}"#),
        format!(r#"{{"faults": ["{long}"]}}"#),
        format!(r#"{{"{long}": 1}}"#),
    ] {
        let message = ProducerScenario::from_json(&json).unwrap_err().to_string();
        assert!(!message.contains(&"x".repeat(61)), "{} bytes: {}", message.len(), &message[..200]);
        assert!(message.contains("… (200000"), "{message}");
    }
}

/// D4: offsets of `record_processing_ms_by_offset` are their plain decimal text; `"01"`
/// and `"+1"` were read as 1, and `{"1": 5, "01": 7000}` silently kept one of the two.
#[test]
fn d4_offsets_by_offset_are_plain_decimal_text() {
    for key in ["01", "+1", "-0", " 1", "1 ", "1.0", "1e0", "00", ""] {
        let json = format!(r#"{{"record_processing_ms_by_offset": {{"{key}": 5}}}}"#);
        let message = refusal(&json);
        assert!(
            message
                .starts_with(&format!("record_processing_ms_by_offset.{key}: must name an offset from 0 to")),
            "{json}: {message}"
        );
        assert!(message.contains("plain decimal digits"), "{message}");
    }
    assert!(refusal(r#"{"record_processing_ms_by_offset": {"1": 5, "01": 7000}}"#)
        .starts_with("record_processing_ms_by_offset.01: "));
    let s =
        Input::from_json(r#"{"record_processing_ms_by_offset": {"0": 5, "10": 7000, "1000000000000": 1}}"#)
            .unwrap()
            .scenario;
    let offsets: Vec<u64> = s.record_processing_by_offset_us.0.keys().copied().collect();
    assert_eq!(offsets, [0, 10, 1_000_000_000_000]);
    assert!(refusal(r#"{"record_processing_ms_by_offset": {"1000000000001": 5}}"#)
        .contains("must name an offset"));
}

/// D6: `stopped_partitions` counted stop events: one partition stopped by consumer-1 and,
/// after its crash, again by consumer-2, counted 2. It counts partitions (model.md §12.3).
#[cfg(feature = "group")]
#[test]
fn d6_stopped_partitions_counts_partitions_not_stops() {
    let run = run(
        r#"{"members":2,"partitions":1,"record_failures":[3],"on_error":"stop","horizon_ms":120000,"group_events":[{"at_ms":5000,"member":1,"kind":"crash"}]}"#,
    );
    let stops =
        run.marks.iter().filter(|m| matches!(m.kind, offset_window_sim::MarkKind::PartitionStopped { .. }));
    assert_eq!(stops.count(), 2, "stopped by consumer-1, then by consumer-2");
    assert_eq!(run.records.stopped_partitions, 1);
    // Two partitions, each stopped once: 2.
    let run = self::run(r#"{"members":2,"partitions":2,"record_failures":[3],"on_error":"stop"}"#);
    assert_eq!(run.records.stopped_partitions, 2);
}

/// D3: `blocked_on_commits` (a fraction) summed the members: 3.92 for four members each
/// blocked 98 % of the time. It is the group's mean; each member has its own.
#[cfg(feature = "group")]
#[test]
fn d3_blocked_on_commits_is_the_mean_over_members() {
    let four = r#"{"members":4,"partitions":4,"strategy":"commit_sync_record","commit_latency_ms":50,"record_processing_ms":1,"horizon_ms":10000}"#;
    let run = run(four);
    let summary = run.summary_at(run.scenario.horizon_us);
    let group = summary.group.as_ref().unwrap();
    let each: Vec<f64> = group.members.iter().map(|m| m.blocked_on_commits).collect();
    assert_eq!(each.len(), 4);
    assert!(each.iter().all(|&b| (0.97..=1.0).contains(&b)), "{each:?}");
    let mean = each.iter().sum::<f64>() / 4.0;
    assert!((summary.blocked_on_commits - mean).abs() < 1e-12, "{} vs {mean}", summary.blocked_on_commits);
    assert_eq!(summary.blocked_on_commits, run.blocked_on_commits());
    let report = run.group.as_ref().unwrap();
    let sum: u64 = report.members.iter().map(|m| m.blocked_on_commits_us).sum();
    assert_eq!(sum, run.blocked_on_commits_us, "the members' times add up to the run's");
    // One member of two blocks, the other never polls a record (one partition): the mean halves it.
    let run = self::run(
        r#"{"members":2,"partitions":1,"strategy":"commit_sync_record","commit_latency_ms":50,"horizon_ms":10000}"#,
    );
    let members = &run.group.as_ref().unwrap().members;
    assert_eq!(members[1].blocked_on_commits_us, 0);
    let first = members[0].blocked_on_commits_us as f64 / run.scenario.horizon_us as f64;
    assert!(first > 0.0);
    assert!((run.blocked_on_commits() - first / 2.0).abs() < 1e-12);
}

/// D0 over random small groups: off-by-one commits with the log starting above 0, members
/// shutting down or crashing and coming back. No run panics or hands out a record below the
/// log start; runs are deterministic; every partition's totals are its handovers' sums; the
/// first partition's crash reading equals the brute force.
#[cfg(all(feature = "group", not(target_arch = "wasm32")))]
mod d0_properties {
    use super::*;
    use offset_window_sim::events::{GroupEvent, GroupEventKind};
    use offset_window_sim::scenario::{CommitValue, OffsetReset};
    use offset_window_sim::{crash_state_brute_force, MarkKind, Strategy};
    use proptest::prelude::*;

    const MS: u64 = 1_000;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        #[test]
        fn off_by_one_commits_above_the_log_start_never_hand_out_a_missing_record(
            (members, partitions, start, earliest) in (1u32..=3, 1u32..=4, 1u64..=3, any::<bool>()),
            (strategy, processing_ms, latency_ms, chunk) in (0usize..4, 1u64..=20, 0u64..=20, prop_oneof![Just(1_024u64), Just(100), Just(5)]),
            events in proptest::collection::vec((0u64..=4_000, 1u16..=3, any::<bool>(), proptest::option::of(0u64..=3_000)), 1..=2),
        ) {
            let strategy = [Strategy::CommitSyncBatch, Strategy::CommitAsyncBatch, Strategy::CommitSyncRecord, Strategy::CommitSyncEveryN][strategy];
            let group_events = events
                .into_iter()
                .map(|(at_ms, member, crash, restart_ms)| GroupEvent {
                    restart_after_us: restart_ms.map(|ms| ms * MS),
                    ..GroupEvent::new(at_ms * MS, member.min(members as u16), if crash { GroupEventKind::Crash } else { GroupEventKind::Shutdown })
                })
                .collect();
            let scenario = Scenario {
                members,
                partitions,
                strategy,
                commit_value: CommitValue::RecordOffset,
                log_start_offset: start,
                auto_offset_reset: if earliest { OffsetReset::Earliest } else { OffsetReset::Latest },
                record_processing_us: processing_ms * MS,
                max_partition_fetch_bytes: chunk * 1_024,
                commit_latency_us: latency_ms * MS,
                session_timeout_us: 5_000 * MS,
                horizon_us: 12_000 * MS,
                group_events,
                ..Scenario::default()
            };
            prop_assume!(scenario.validate().is_ok());
            // An event may reach a member that is down then: refused, and nothing to check.
            let Ok(run) = simulate(&scenario) else { return Ok(()) };
            prop_assert_eq!(&run, &simulate(&scenario).unwrap());
            let below = |m: &offset_window_sim::Mark| matches!(m.kind, MarkKind::RecordDurable { offset } if offset < start);
            prop_assert!(!run.marks.iter().any(below), "a record below the log start ran");
            let g = run.group.as_ref().unwrap();
            for p in &g.partitions {
                let handovers = g.handovers.iter().filter(|h| h.partition == p.partition);
                let (lost, dup) = handovers.fold((0, 0), |(l, d), h| (l + h.lost, d + h.duplicated));
                prop_assert_eq!((lost, dup), (p.lost, p.duplicated));
            }
            let horizon = scenario.horizon_us;
            for crash_at_us in [horizon / 3, horizon / 2 + 1, horizon] {
                prop_assert_eq!(run.state_at(crash_at_us), crash_state_brute_force(&scenario, crash_at_us).unwrap());
            }
        }
    }
}

/// Found by the fast path's property test (session 22): consumer-1 was removed from the group
/// while it worked through a batch (its rebalance timeout ran out), joined again as a new
/// member still claiming both partitions, which consumer-2 held by then; the sticky assignor
/// found no place left for a partition claimed twice and panicked. Kafka's
/// `AbstractStickyAssignor` ignores the claims of an older generation: consumer-2 keeps what
/// it holds down to its quota, consumer-1 gets the rest.
#[cfg(feature = "group")]
#[test]
fn a_removed_members_stale_claims_give_way_to_the_groups() {
    const STALE: &str = r#"{"members":2,"partitions":2,"horizon_ms":40000,"partition.assignment.strategy":"cooperative-sticky","strategy":"commit_sync_every_n","max.poll.records":20,"record_processing_ms":269.854,"record_processing_jitter":"exponential","seed":14230094258381293859,"max.poll.interval.ms":8000,"session.timeout.ms":10000,"group_events":[{"at_ms":6332,"duration_ms":5000,"kind":"hang","member":2}]}"#;
    let g = run(STALE).group.unwrap();
    let last: Vec<_> =
        g.handovers.iter().filter(|h| h.at_us == 36_833_592).map(|h| (h.partition, h.from, h.to)).collect();
    assert_eq!(
        last,
        [(0, Some(1), Some(0)), (1, Some(1), Some(1))],
        "orders-0 to consumer-1, orders-1 stays with consumer-2"
    );
    assert_eq!((g.lost(), g.duplicated(), g.rebalances), (0, 20, 3));
}

/// Found by the same test: a restarted member whose join round waited past
/// `max.poll.interval.ms` (the crashed process's entry kept it open) was evicted while its
/// loop sat in `poll()` waiting for the round, and never polled again. A loop blocked in its
/// join round is polling (model.md §8.7).
#[cfg(feature = "group")]
#[test]
fn a_loop_blocked_in_its_join_round_is_not_evicted() {
    const BLOCKED: &str = r#"{"members":1,"partitions":1,"client":"librdkafka_before_1_9","max.poll.records":1,"record_processing_ms":1,"horizon_ms":40000,"session.timeout.ms":10000,"max.poll.interval.ms":8000,"group_events":[{"at_ms":1,"member":1,"kind":"crash","restart_after_ms":0}]}"#;
    let run = run(BLOCKED);
    let g = run.group.as_ref().unwrap();
    assert_eq!(
        g.members[0].rebalancing.iter().map(|i| (i.from_us, i.to_us)).collect::<Vec<_>>(),
        [(1_000, 8_016_000)],
        "the round ends at the old entry's rebalance timeout"
    );
    assert_eq!(run.polls, 31_986, "and the member polls on after it");
}
