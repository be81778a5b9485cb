//! Exactly-once pipelines (model.md §14): the reference scenarios P1–P9 as exact numbers (the
//! `scenarios/eos-*` files, read here from disk), bad input refused naming its key, and
//! invariants over random scenarios: under exactly_once_v2 every input record's output is
//! seen exactly once by a `read_committed` reader whatever the crash or hang instant, aborted
//! outputs never reach it, and a run is a function of its scenario.

use offset_window_sim::pipeline::{simulate_pipeline, OutputState, PipelineRun, PipelineScenario};
use offset_window_sim::transactions::RecordKind;
use proptest::prelude::*;
use serde_json::{json, Value};

fn scenario_file(name: &str) -> (PipelineScenario, Value) {
    let path = format!("{}/../../scenarios/{name}", env!("CARGO_MANIFEST_DIR"));
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let s = PipelineScenario::from_value(&file["scenario"]).unwrap_or_else(|e| panic!("{name}: {e}"));
    (s, file["expect"].clone())
}

fn run_file(name: &str) -> PipelineRun {
    let (s, expect) = scenario_file(name);
    let run = simulate_pipeline(&s).unwrap();
    let value = serde_json::to_value(&run).unwrap();
    for (pointer, expected) in expect.as_object().unwrap() {
        assert_eq!(value.pointer(pointer), Some(expected), "{name}: {pointer}");
    }
    run
}

fn refused(value: Value) -> (String, String) {
    let e = PipelineScenario::from_value(&value).unwrap_err();
    (e.key.unwrap_or_default(), e.message)
}

/// Offsets of data entries per (state).
fn data_states(run: &PipelineRun) -> Vec<(u64, OutputState)> {
    run.output_log.iter().filter_map(|e| e.state.map(|s| (e.input_offset.unwrap(), s))).collect()
}

#[test]
fn p1_killed_mid_transaction_and_restarted_with_the_same_id() {
    let run = run_file("eos-ctp-killed-mid-transaction-restarts.json");
    // Commits at 1010, 2011, 3012, 4013 ms (the first record end or idle instant a whole ms past
    // last + 1000 ms), each of 10 records but the first (11).
    let steps: Vec<(u64, u64)> = run.input_committed[0].steps.iter().map(|s| (s.at_us, s.offset)).collect();
    assert_eq!(&steps[..4], &[(1_010_000, 11), (2_011_000, 21), (3_012_000, 31), (4_013_000, 41)]);
    // The open transaction: outputs of 41–44 at 4110–4410 ms, offsets 45–48; the restart's
    // initTransactions aborts it at 5500 ms: marker 49.
    let aborted: Vec<u64> =
        data_states(&run).into_iter().filter(|&(_, s)| s == OutputState::Aborted).map(|(o, _)| o).collect();
    assert_eq!(aborted, vec![41, 42, 43, 44]);
    assert_eq!(run.output_log[49].kind, RecordKind::AbortMarker);
    assert!(run.timed_out_aborts.is_empty());
    let lso: Vec<(u64, u64)> = run.output_last_stable_offset.iter().map(|s| (s.at_us, s.offset)).collect();
    assert!(lso.contains(&(4_013_000, 45)) && lso.contains(&(5_500_000, 50)), "{lso:?}");
    assert_eq!(run.rebalances.len(), 1);
    assert_eq!(run.rebalances[0].assignment, vec![vec![0], vec![]]);
}

#[test]
fn p2_the_dead_transaction_waits_for_the_timeout_scan() {
    let run = run_file("eos-ctp-killed-never-restarts.json");
    assert_eq!(run.timed_out_aborts.len(), 1);
    // 4110 + 60000 = 64110 ms: the scans run at 0, 10000, …; the first strictly after is 70000.
    assert_eq!(run.timed_out_aborts[0].aborted_at_us, 70_000_000);
    assert_eq!(run.readers[0].seen.once, 100);
    assert_eq!((run.readers[1].seen.once, run.readers[1].seen.twice), (96, 4));
}

#[test]
fn p3_pending_offsets_stall_the_new_owner_until_the_abort() {
    let run = run_file("eos-ctp-killed-between-offsets-and-commit.json");
    let stalls = &run.input_stalls[0].stalls;
    assert_eq!(stalls.len(), 2);
    // The session expires 45 s after the dead member's last heartbeat (3 s), not its crash.
    assert_eq!((stalls[1].from_us, stalls[1].to_us), (48_000_000, Some(70_000_000)));
    assert_eq!(run.readers[1].seen.twice, 10);
}

#[test]
fn p4_at_least_once_repeats_everything_since_the_last_commit() {
    let run = run_file("eos-streams-at-least-once-kill.json");
    assert!(run
        .output_log
        .iter()
        .all(|e| e.kind == RecordKind::Data && e.state == Some(OutputState::Committed)));
    let side = run.side_effects.unwrap();
    assert_eq!((side.counts.once, side.counts.twice), (55, 45));
}

#[test]
fn p5_streams_without_a_store_restarts_with_a_new_transactional_id() {
    let run = run_file("eos-streams-exactly-once-kill.json");
    assert!(run.notes.iter().any(|n| n.contains("new transactional.id")));
    assert_eq!(run.readers[0].seen.once, 100);
    // With a persistent store the process id survives: the restart aborts at once.
    let (mut s, _) = scenario_file("eos-streams-exactly-once-kill.json");
    s.service.state_store = true;
    let run = simulate_pipeline(&s).unwrap();
    assert!(run.timed_out_aborts.is_empty());
    let abort = run.output_log.iter().find(|e| e.kind == RecordKind::AbortMarker).unwrap();
    assert_eq!(abort.at_us, 5_530_000);
    assert_eq!(run.readers[0].seen.once, 100);
}

#[test]
fn p6_a_zombie_is_refused_by_the_generation_and_aborts() {
    let run = run_file("eos-ctp-zombie-refused-by-generation.json");
    assert!(run.notes.iter().any(|n| n.contains("ILLEGAL_GENERATION")));
    let abort = run.output_log.iter().find(|e| e.kind == RecordKind::AbortMarker).unwrap();
    assert_eq!((abort.at_us, abort.instance), (12_500_000, 0));
    assert!(run.timed_out_aborts.is_empty());
}

#[test]
fn p7_a_joining_instance_takes_a_partition_after_the_owner_commits() {
    let run = run_file("eos-ctp-scale-out-join.json");
    // Instance 0 commits at 1010 ms (p0:10 done, p1:10 in hand: 11 and 10), processes p1:10
    // (1010–1020), and at the join (1050) revokes both, committing that transaction first.
    assert_eq!(steps_of(&run, 1), vec![(1010, 10), (1050, 11), (2051, 20)]);
    assert_eq!(run.output_log[23].kind, RecordKind::CommitMarker);
    // Instance 1 processes p1 from 11 (its first output at 1110 ms, offset 25), both commit at
    // 2051 (markers 42, 43): 44 entries, nothing aborted, nothing repeated.
    assert_eq!(run.output_log.len(), 44);
    assert!(data_states(&run).iter().all(|&(_, s)| s == OutputState::Committed));
    assert_eq!((run.readers[1].seen.once, run.readers[1].seen.twice), (40, 0));
    // Kafka Streams (cooperative): only p1 moves; its owner commits at the revocation.
    let (mut s, _) = scenario_file("eos-ctp-scale-out-join.json");
    s.service.kind = offset_window_sim::pipeline::ServiceKind::KafkaStreams;
    let run = simulate_pipeline(&s).unwrap();
    assert_eq!(steps_of(&run, 1)[1], (1050, 11));
    assert_eq!(run.rebalances[0].assignment, vec![vec![0], vec![1]]);
    assert_eq!(run.readers[1].seen.once, 40);
}

#[test]
fn p8_a_rolling_deploy_of_the_loop_commits_then_leaves_the_group() {
    let run = run_file("eos-ctp-rolling-deploy.json");
    // Each close commits the open transaction (the listener's commit), then LeaveGroup: the
    // survivor revokes and commits at once, takes both partitions, and gives one back at the
    // restart. Four rebalances, none waiting; no stall; nothing aborted or repeated.
    assert_eq!(
        steps_of(&run, 0),
        vec![(1010, 11), (1550, 16), (2050, 21), (3051, 31), (3550, 36), (4050, 40)]
    );
    assert_eq!(run.rebalances.len(), 4);
    assert!(run.rebalances.iter().all(|r| r.completed_at_us == Some(r.started_at_us)));
    assert!(run.rebalances[0].trigger.contains("LeaveGroup"));
    assert_eq!(run.output_log.len(), 90);
    assert!(data_states(&run).iter().all(|&(_, s)| s == OutputState::Committed));
    assert!(run.input_stalls.iter().all(|p| p.stalls.is_empty()));
    // at_least_once: the close's commitSync, the same offsets; every output once.
    let (mut s, _) = scenario_file("eos-ctp-rolling-deploy.json");
    s.service.guarantee = offset_window_sim::pipeline::Guarantee::AtLeastOnce;
    let run = simulate_pipeline(&s).unwrap();
    assert_eq!(steps_of(&run, 0)[1], (1550, 16));
    assert_eq!((run.readers[0].seen.once, run.readers[1].seen.once), (80, 80));
}

#[test]
fn p9_a_rolling_deploy_of_streams_waits_for_the_sessions() {
    let run = run_file("eos-streams-rolling-deploy.json");
    // No LeaveGroup: instance 0's restart (3050 ms) waits for its old member's session (10000);
    // instance 1, told to close at 3150, polls on until then without committing, commits at
    // 10000 and its partition waits for its own session (19000).
    assert_eq!(
        steps_of(&run, 1),
        vec![(1010, 11), (2011, 21), (3012, 31), (10000, 32), (19010, 33), (20011, 40)]
    );
    assert_eq!(run.rebalances.len(), 2);
    assert!(run.notes.iter().any(|n| n.contains("waited for the group's rebalance from 3150 ms")));
    assert!(data_states(&run).iter().all(|&(_, s)| s == OutputState::Committed));
    assert_eq!((run.readers[0].seen.once, run.readers[1].seen.once), (80, 80));
    // The loop's rule instead (LeaveGroup): nothing stalls for a session.
    let (mut s, _) = scenario_file("eos-streams-rolling-deploy.json");
    s.service.kind = offset_window_sim::pipeline::ServiceKind::ConsumeTransformProduce;
    s.service.restart_keeps_transactional_id = true;
    s.service.state_store = false;
    s.service.transaction_timeout_us = 60_000_000;
    s.service.max_poll_records = 500;
    let run = simulate_pipeline(&s).unwrap();
    assert!(run.input_stalls.iter().all(|p| p.stalls.is_empty()), "{:?}", run.input_stalls);
    assert_eq!(run.readers[0].seen.once, 80);
}

#[test]
fn a_deploy_is_refused_naming_its_bad_key() {
    let base = |instances: u32, events: Value| json!({"service": {"instances": instances}, "events": events});
    let deploy = |extra: Value| {
        let mut d = json!({"at_ms": 1000, "kind": "deploy", "restart_after_ms": 500, "deploy_step_ms": 1000});
        for (k, v) in extra.as_object().unwrap() {
            d[k] = v.clone();
        }
        d
    };
    for (value, key, words) in [
        (base(2, json!([deploy(json!({"instance": 1}))])), "events[0].instance", "every instance in turn"),
        (
            base(2, json!([deploy(json!({"restart_after_ms": null}))])),
            "events[0].restart_after_ms",
            "every instance",
        ),
        (base(2, json!([deploy(json!({"restart_after_ms": -1}))])), "events[0].restart_after_ms", "86400000"),
        (base(2, json!([deploy(json!({"deploy_step_ms": "soon"}))])), "events[0].deploy_step_ms", "86400000"),
        (
            base(2, json!([deploy(json!({"deploy_step_ms": 86_400_001}))])),
            "events[0].deploy_step_ms",
            "86400000",
        ),
        (base(2, json!([deploy(json!({"duration_ms": 5}))])), "events[0].duration_ms", "hang"),
        (
            base(2, json!([deploy(json!({"shutdown_mode": "abrupt"}))])),
            "events[0].shutdown_mode",
            "records in hand",
        ),
        (
            base(2, json!([{"at_ms": 1, "kind": "deploy", "deploy_step_ms": 1000}])),
            "events[0].restart_after_ms",
            "needs",
        ),
        (
            base(2, json!([{"at_ms": 5, "instance": 0, "kind": "crash", "deploy_step_ms": 5}])),
            "events[0].deploy_step_ms",
            "deploy's field",
        ),
        // Instance 1's turn (2000 ms) while it is frozen until 2500.
        (
            base(
                2,
                json!([{"at_ms": 500, "instance": 1, "kind": "hang", "duration_ms": 2000}, deploy(json!({}))]),
            ),
            "events[1].deploy_step_ms",
            "frozen until 2500",
        ),
        // Instance 0's turn while it is down; nothing after a turn.
        (
            base(
                2,
                json!([{"at_ms": 900, "instance": 0, "kind": "crash", "restart_after_ms": 200}, deploy(json!({}))]),
            ),
            "events[1].at_ms",
            "down or frozen until 1100",
        ),
        (
            base(2, json!([deploy(json!({})), {"at_ms": 9000, "instance": 0, "kind": "crash"}])),
            "events[1].at_ms",
            "nothing may follow its turn",
        ),
        (
            base(2, json!([deploy(json!({})), deploy(json!({"at_ms": 5000}))])),
            "events[1].at_ms",
            "nothing may follow",
        ),
        // A joining instance must join before its turn.
        (
            base(2, json!([{"at_ms": 5000, "instance": 1, "kind": "join"}, deploy(json!({}))])),
            "events[1].deploy_step_ms",
            "joins at 5000 ms",
        ),
    ] {
        let (k, message) = refused(value.clone());
        assert_eq!(k, key, "{value}: {message}");
        assert!(message.contains(words), "{value}: {message}");
    }
    // The JSON form reads back; a deploy without deploy_step_ms takes the group model's 30000.
    let s = PipelineScenario::from_value(&base(
        2,
        json!([{"at_ms": 1, "kind": "deploy", "restart_after_ms": 0}]),
    ))
    .unwrap();
    s.validate().unwrap();
    assert_eq!(s.events[0].deploy_step_us, 30_000_000);
    assert_eq!(PipelineScenario::from_value(&s.to_json_value()).unwrap(), s);
}

#[test]
fn a_zombie_whose_flush_ends_after_its_removal_is_refused() {
    // Found by the exactly-once property: instance 0 freezes during its commit's flush() and the
    // group removes it; when it resumes, its sendOffsetsToTransaction (TxnOffsetCommit) goes out
    // as a removed member's: refused, so it aborts. (It used to commit, while the new owner had
    // already re-processed from the committed offset: read_committed saw an input twice.)
    let s = PipelineScenario::from_value(&json!({
        "input": {"partitions": 3, "records_per_partition": 7, "rate_per_s": 13},
        "service": {"kind": "consume_transform_produce", "instances": 2, "commit.interval.ms": 50,
                    "commit_phase_ms": 43, "flush_ms": 1, "offsets_to_end_txn_ms": 3, "record_processing_ms": 8,
                    "restart_keeps_transactional.id": false, "session.timeout.ms": 6000},
        "transaction.abort.timed.out.transaction.cleanup.interval.ms": 5000,
        "events": [{"at_ms": 470, "instance": 0, "kind": "hang", "duration_ms": 5531}],
        "readers": [{"name": "rc", "isolation.level": "read_committed", "poll_interval_ms": 50}],
        "horizon_ms": 400_000
    }))
    .unwrap();
    let run = simulate_pipeline(&s).unwrap();
    assert_eq!((run.readers[0].seen.once, run.readers[0].seen.twice), (21, 0));
    assert!(run.notes.iter().any(|n| n.contains("TxnOffsetCommit is refused")), "{:?}", run.notes);
}

#[test]
fn a_join_is_the_instance_s_first_event() {
    let base = |events: Value| json!({"service": {"instances": 2}, "events": events});
    let crash_before = base(json!([{"at_ms": 500, "instance": 1, "kind": "crash"},
                                   {"at_ms": 1000, "instance": 1, "kind": "join"}]));
    assert_eq!(refused(crash_before).0, "events[0].at_ms");
    let twice = base(json!([{"at_ms": 500, "instance": 1, "kind": "join"},
                            {"at_ms": 1000, "instance": 1, "kind": "join"}]));
    assert_eq!(refused(twice).0, "events[1].kind");
    let extra = base(json!([{"at_ms": 500, "instance": 1, "kind": "join", "duration_ms": 5}]));
    assert_eq!(refused(extra).0, "events[0].duration_ms");
}

#[test]
fn the_issue_example_runs_and_reads_back() {
    let value = json!({
      "input": {"partitions": 2, "records_per_partition": 200, "rate_per_s": 50},
      "service": {"kind": "consume_transform_produce", "processing.guarantee": "exactly_once_v2", "instances": 2,
        "commit.interval.ms": 100, "record_processing_ms": 5, "max.poll.records": 500,
        "transaction.timeout.ms": 10000, "session.timeout.ms": 45000, "side_effect": false},
      "transaction.abort.timed.out.transaction.cleanup.interval.ms": 10000,
      "coordinator_scan_phase_ms": 0,
      "events": [{"at_ms": 5000, "instance": 1, "kind": "crash", "restart_after_ms": 2000}],
      "readers": [{"name": "downstream-rc", "isolation.level": "read_committed"},
                  {"name": "downstream-ru", "isolation.level": "read_uncommitted"}],
      "horizon_ms": 60000
    });
    let s = PipelineScenario::from_value(&value).unwrap();
    s.validate().unwrap();
    let run = simulate_pipeline(&s).unwrap();
    assert_eq!(run.reader("downstream-rc").unwrap().seen.once, 400);
}

#[test]
fn bad_input_is_refused_naming_the_key() {
    let base = || json!({"input": {"partitions": 1, "records_per_partition": 10, "rate_per_s": 10}});
    let with = |path: &str, v: Value| {
        let mut b = base();
        let mut at = &mut b;
        let parts: Vec<&str> = path.split('/').collect();
        for p in &parts[..parts.len() - 1] {
            if at.get(*p).is_none() {
                at[*p] = json!({});
            }
            at = &mut at[*p];
        }
        at[parts[parts.len() - 1]] = v;
        b
    };
    for (value, key) in [
        (with("input/partitions", json!(0)), "input.partitions"),
        (with("input/records_per_partition", json!(100_001)), "input.records_per_partition"),
        (with("input/rate_per_s", json!(-1)), "input.rate_per_s"),
        (with("service/kind", json!("flink")), "service.kind"),
        (with("service/processing.guarantee", json!("exactly_once")), "service.processing.guarantee"),
        (with("service/instances", json!(17)), "service.instances"),
        (with("service/commit.interval.ms", json!(60_000)), "service.commit.interval.ms"),
        (with("service/session.timeout.ms", json!(1_000)), "service.session.timeout.ms"),
        (with("service/heartbeat.interval.ms", json!(45_000)), "service.heartbeat.interval.ms"),
        (with("service/record_processing_ms", json!(0.0001)), "service.record_processing_ms"),
        (with("service/colour", json!(1)), "service.colour"),
        (with("service/state_store", json!(true)), "service.state_store"),
        (with("events", json!([{"at_ms": 1, "instance": 3, "kind": "crash"}])), "events[0].instance"),
        (with("events", json!([{"at_ms": 1, "instance": 0, "kind": "rebalance"}])), "events[0].kind"),
        (with("events", json!([{"at_ms": 1, "kind": "redeploy"}])), "events[0].kind"),
        (with("events", json!([{"at_ms": 1, "instance": 0, "kind": "hang"}])), "events[0].duration_ms"),
        (
            with(
                "events",
                json!([{"at_ms": 1, "instance": 0, "kind": "crash"}, {"at_ms": 5, "instance": 0, "kind": "crash"}]),
            ),
            "events[1].at_ms",
        ),
        (with("readers", json!([{"isolation.level": "serializable"}])), "readers[0].isolation.level"),
        (with("coordinator_scan_phase_ms", json!(10_000)), "coordinator_scan_phase_ms"),
        (with("horizon_ms", json!(0)), "horizon_ms"),
        (with("speed", json!(1)), "speed"),
    ] {
        let (k, message) = refused(value.clone());
        assert_eq!(k, key, "{value}: {message}");
    }
    let at_least_once =
        json!({"service": {"processing.guarantee": "at_least_once", "transaction.timeout.ms": 1000}});
    assert_eq!(refused(at_least_once).0, "service.transaction.timeout.ms");
}

fn steps_of(run: &PipelineRun, p: usize) -> Vec<(u64, u64)> {
    run.input_committed[p].steps.iter().map(|s| (s.at_us / 1000, s.offset)).collect()
}

/// The suite's consume-transform-produce loop (`commit_rule: transaction_age`): records every
/// 40 ms, 5 ms each, a transaction committed once it is 100 ms old, checked after each record
/// and when poll(100 ms) returns empty; flush 4 ms, then the offsets, EndTxn 4 ms later.
fn age_rule_scenario(crash_at_ms: Option<f64>) -> Value {
    let events = match crash_at_ms {
        Some(at) => json!([{"at_ms": at, "instance": 0, "kind": "crash", "restart_after_ms": 1000}]),
        None => json!([]),
    };
    json!({
        "input": {"partitions": 1, "records_per_partition": 10, "rate_per_s": 25},
        "service": {"kind": "consume_transform_produce", "processing.guarantee": "exactly_once_v2",
                    "commit_rule": "transaction_age", "commit.interval.ms": 100, "record_processing_ms": 5,
                    "transaction.timeout.ms": 10000, "session.timeout.ms": 6000, "heartbeat.interval.ms": 2000,
                    "flush_ms": 4, "offsets_to_end_txn_ms": 4, "restart_keeps_transactional.id": false},
        "transaction.abort.timed.out.transaction.cleanup.interval.ms": 1000,
        "events": events,
        "readers": [{"name": "ru", "isolation.level": "read_uncommitted"}],
        "horizon_ms": 20000
    })
}

#[test]
fn transaction_age_commits_once_the_transaction_is_old_enough() {
    let s = PipelineScenario::from_value(&age_rule_scenario(None)).unwrap();
    let run = simulate_pipeline(&s).unwrap();
    // Record 0 begins the transaction at 0 ms; record 2 ends at 85 ms (85 < 100), record 3 at
    // 125 ms: commit, flush to 129, offsets, EndTxn at 133 (committed 4). Record 4 begins the
    // next at 160; record 7 ends at 285: committed 8 at 293. Record 8 begins at 320, record 9
    // ends at 365 (45 ms old); the poll started then returns empty at 465: commit, 10 at 473.
    assert_eq!(steps_of(&run, 0), vec![(133, 4), (293, 8), (473, 10)]);
}

#[test]
fn transaction_records_commits_every_n_records_and_the_tail_when_old() {
    let mut value = age_rule_scenario(None);
    value["service"]["commit_rule"] = json!("transaction_records");
    value["service"]["commit_records"] = json!(4);
    let run = simulate_pipeline(&PipelineScenario::from_value(&value).unwrap()).unwrap();
    // Records 0–3 (record 3 ends at 125 ms): committed 4 at 133; 4–7 (ends 285): 8 at 293;
    // 8–9, then empty polls every 100 ms from 365: the one at 465 finds the transaction (begun
    // at 320) 145 ms old, ≥ 100: 10 at 473.
    assert_eq!(steps_of(&run, 0), vec![(133, 4), (293, 8), (473, 10)]);
    value["service"]["commit.interval.ms"] = json!(1000);
    let run = simulate_pipeline(&PipelineScenario::from_value(&value).unwrap()).unwrap();
    // The tail waits for an empty poll at least 1000 ms after 320: 365 + 10 · 100 = 1365.
    assert_eq!(steps_of(&run, 0), vec![(133, 4), (293, 8), (1373, 10)]);
    assert_eq!(refused(json!({"service": {"commit_records": 4}})).0, "service.commit_records");
}

#[test]
fn a_crash_in_the_flush_leaves_no_offsets_pending() {
    // Crash at 127 ms: inside record 0–3's flush (125–129): outputs open, no offsets sent. The
    // restart (new transactional.id) joins at 1127; the dead member's session (last heartbeat
    // at 0) expires at 6000: the new owner reads committed nothing → 0 at once.
    let s = PipelineScenario::from_value(&age_rule_scenario(Some(127.0))).unwrap();
    let run = simulate_pipeline(&s).unwrap();
    let stalls: Vec<_> =
        run.input_stalls[0].stalls.iter().map(|x| (x.from_us / 1000, x.to_us.map(|t| t / 1000))).collect();
    assert_eq!(stalls, vec![(127, Some(6000))]);
    assert_eq!(run.readers[0].seen.twice, 4);
    // Crash at 131 ms: after sendOffsetsToTransaction (129), before EndTxn (133): the offsets
    // stay pending until the scan after 5 + 10000 ms (11000): UNSTABLE_OFFSET_COMMIT 6000–11000.
    let s = PipelineScenario::from_value(&age_rule_scenario(Some(131.0))).unwrap();
    let run = simulate_pipeline(&s).unwrap();
    let stalls: Vec<_> =
        run.input_stalls[0].stalls.iter().map(|x| (x.from_us / 1000, x.to_us.map(|t| t / 1000))).collect();
    assert_eq!(stalls, vec![(131, Some(6000)), (6000, Some(11000))]);
    assert_eq!(run.timed_out_aborts[0].aborted_at_us, 11_000_000);
    assert_eq!(run.readers[0].seen.twice, 4);
}

#[test]
fn the_commit_phase_moves_the_first_commit() {
    let value = |phase: u64| {
        json!({
            "input": {"partitions": 1, "records_per_partition": 10, "rate_per_s": 25},
            "service": {"kind": "kafka_streams", "processing.guarantee": "exactly_once_v2",
                        "commit.interval.ms": 100, "record_processing_ms": 5, "commit_phase_ms": phase},
            "horizon_ms": 2000
        })
    };
    // Phase 0: due at 101 ms (idle after record 2, 85 ms): committed 3 at 101.
    let run = simulate_pipeline(&PipelineScenario::from_value(&value(0)).unwrap()).unwrap();
    assert_eq!(steps_of(&run, 0)[0], (101, 3));
    // Phase 60: due at 41 ms, record 1 runs 40–45: committed 2 at 45; next due 146: 4 at 146.
    let run = simulate_pipeline(&PipelineScenario::from_value(&value(60)).unwrap()).unwrap();
    assert_eq!(&steps_of(&run, 0)[..2], &[(45, 2), (146, 4)]);
    assert_eq!(
        refused(json!({"service": {"kind": "kafka_streams", "commit_phase_ms": 30000}})).0,
        "service.commit_phase_ms"
    );
    assert_eq!(
        refused(json!({"service": {"kind": "kafka_streams", "commit_rule": "transaction_age"}})).0,
        "service.commit_rule"
    );
    assert_eq!(
        refused(json!({"service": {"kind": "kafka_streams", "commit_rule": "transaction_records"}})).0,
        "service.commit_rule"
    );
}

fn random_scenario(
    (streams, eos): (bool, bool),
    (partitions, instances, records, rate): (u32, u32, u32, u32),
    (processing_ms, interval_ms, window_ms, session_s): (u64, u64, u64, u64),
    (keeps, side): (bool, bool),
    events: Vec<(u64, u32, bool, Option<u64>, u64)>,
    (rule, flush_ms, phase_ms): (u8, u64, u64),
    (join_ms, deploy): (Option<u64>, Option<(u64, u64, u64)>),
) -> Value {
    let mut next_free = vec![0u64; instances as usize];
    let mut list = Vec::new();
    // Scale-out: the last instance (never instance 0) joins, before any other event of its own.
    if let (Some(at), true) = (join_ms, instances > 1) {
        let i = instances as usize - 1;
        list.push(json!({"at_ms": at, "instance": i, "kind": "join"}));
        next_free[i] = at;
    }
    for (at_ms, instance, crash, restart_ms, hang_ms) in events {
        let i = (instance % instances) as usize;
        if next_free[i] == u64::MAX {
            continue;
        }
        let at = at_ms.max(next_free[i] + 1);
        if crash {
            // Instance 0 always comes back, so that someone finishes the input.
            let restart_ms = if i == 0 { Some(restart_ms.unwrap_or(1_000)) } else { restart_ms };
            list.push(json!({"at_ms": at, "instance": i, "kind": "crash", "restart_after_ms": restart_ms}));
            next_free[i] = restart_ms.map_or(u64::MAX, |r| at + r);
        } else {
            list.push(json!({"at_ms": at, "instance": i, "kind": "hang", "duration_ms": hang_ms}));
            next_free[i] = at + hang_ms;
        }
    }
    // A rolling deploy (at, deploy_step_ms, restart_after_ms): every instance's turn after its
    // other events; none when an instance never comes back.
    if let Some((at_ms, step_ms, restart_ms)) = deploy.filter(|_| next_free.iter().all(|&f| f != u64::MAX)) {
        let step = step_ms;
        let at = (0..instances as u64)
            .map(|k| (next_free[k as usize] + 1).saturating_sub(k * step))
            .fold(at_ms, u64::max);
        list.push(
            json!({"at_ms": at, "kind": "deploy", "deploy_step_ms": step, "restart_after_ms": restart_ms}),
        );
    }
    let mut service = json!({
        "kind": if streams { "kafka_streams" } else { "consume_transform_produce" },
        "processing.guarantee": "exactly_once_v2",
        "instances": instances,
        "commit.interval.ms": interval_ms,
        "record_processing_ms": processing_ms,
        "session.timeout.ms": session_s * 1000,
        "offsets_to_end_txn_ms": window_ms,
        "side_effect": side,
    });
    match (streams, rule % 3) {
        (false, 1) => {
            service["commit_rule"] = json!("transaction_age");
            service["commit_phase_ms"] = json!(phase_ms % interval_ms);
        }
        (false, 2) => {
            service["commit_rule"] = json!("transaction_records");
            service["commit_records"] = json!(1 + phase_ms % 7);
        }
        _ => service["commit_phase_ms"] = json!(phase_ms % interval_ms),
    }
    if eos {
        service["flush_ms"] = json!(flush_ms);
    } else {
        service["processing.guarantee"] = json!("at_least_once");
        service.as_object_mut().unwrap().remove("offsets_to_end_txn_ms");
    }
    if streams {
        service["state_store"] = json!(keeps);
    } else {
        service["restart_keeps_transactional.id"] = json!(keeps);
    }
    json!({
        "input": {"partitions": partitions, "records_per_partition": records, "rate_per_s": rate},
        "service": service,
        "transaction.abort.timed.out.transaction.cleanup.interval.ms": 5000,
        "events": list,
        "readers": [
            {"name": "rc", "isolation.level": "read_committed", "poll_interval_ms": 50},
            {"name": "ru", "isolation.level": "read_uncommitted", "poll_interval_ms": 50}
        ],
        "horizon_ms": 400_000
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Under exactly_once_v2, whatever the crash and hang instants, a read_committed reader sees
    /// every input record's output exactly once, never an aborted output, and a run is a
    /// function of its scenario.
    #[test]
    fn exactly_once_whatever_the_crash_instant(
        streams in any::<bool>(),
        shape in (1u32..=3, 1u32..=3, 5u32..=40, 5u32..=50),
        timing in (0u64..=20, 50u64..=1_000, 0u64..=30, 6u64..=45),
        flags in (any::<bool>(), any::<bool>()),
        events in proptest::collection::vec(
            (0u64..=8_000, 0u32..3, any::<bool>(), proptest::option::of(0u64..=5_000), 1u64..=30_000), 0..4),
        rules in (any::<u8>(), 0u64..=20, 0u64..=1_000),
        join_ms in proptest::option::of(0u64..=8_000),
        deploy in proptest::option::of((0u64..=10_000, 0u64..=10_000, 0u64..=5_000)),
    ) {
        let value = random_scenario((streams, true), shape, timing, flags, events, rules, (join_ms, deploy));
        let s = PipelineScenario::from_value(&value).unwrap_or_else(|e| panic!("{value}: {e}"));
        let run = simulate_pipeline(&s).unwrap();
        let rc = run.reader("rc").unwrap();
        let total = (shape.0 * shape.2) as u64;
        prop_assert_eq!(rc.seen.once, total, "{} {:?}", value, rc.seen);
        // read_committed is never handed an aborted output; read_uncommitted sees each at least once.
        let aborted = run.output_log.iter().filter(|e| e.state == Some(OutputState::Aborted)).count() as u64;
        let ru = run.reader("ru").unwrap();
        let handed_ru: u64 = ru.by_input.iter().flat_map(|b| b.counts.iter()).map(|&c| c as u64).sum();
        prop_assert_eq!(handed_ru, total + aborted);
        prop_assert_eq!(ru.seen.never, 0);
        if flags.1 {
            let side = run.side_effects.as_ref().unwrap();
            prop_assert_eq!(side.counts.never, 0);
            prop_assert_eq!(side.counts.once + side.counts.twice + side.counts.more, total);
        }
        // Every input partition ends fully committed.
        for c in &run.input_committed {
            prop_assert_eq!(c.last, Some(shape.2 as u64));
        }
        // Determinism: the same JSON bytes twice.
        let again = simulate_pipeline(&s).unwrap();
        prop_assert_eq!(serde_json::to_string(&run).unwrap(), serde_json::to_string(&again).unwrap());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Under at_least_once nothing is lost: every input record's output is seen at least once by
    /// both readers, and every partition ends fully committed.
    #[test]
    fn at_least_once_loses_nothing(
        streams in any::<bool>(),
        shape in (1u32..=3, 1u32..=3, 5u32..=40, 5u32..=50),
        timing in (0u64..=20, 50u64..=1_000, 0u64..=30, 6u64..=45),
        flags in (any::<bool>(), any::<bool>()),
        events in proptest::collection::vec(
            (0u64..=8_000, 0u32..3, any::<bool>(), proptest::option::of(0u64..=5_000), 1u64..=30_000), 0..4),
        rules in (any::<u8>(), 0u64..=20, 0u64..=1_000),
        join_ms in proptest::option::of(0u64..=8_000),
        deploy in proptest::option::of((0u64..=10_000, 0u64..=10_000, 0u64..=5_000)),
    ) {
        let value = random_scenario((streams, false), shape, timing, flags, events, rules, (join_ms, deploy));
        let s = PipelineScenario::from_value(&value).unwrap_or_else(|e| panic!("{value}: {e}"));
        let run = simulate_pipeline(&s).unwrap();
        for r in &run.readers {
            prop_assert_eq!(r.seen.never, 0, "{} {}", value, r.name);
        }
        prop_assert!(run.output_log.iter().all(|e| e.kind == RecordKind::Data));
        for c in &run.input_committed {
            prop_assert_eq!(c.last, Some(shape.2 as u64));
        }
    }
}
