//! The producer model (model.md §9): the reference numbers, the issue's cases, bad input, and
//! invariants under random faults.

use offset_window_sim::producer::{
    simulate_producer, AttemptResult, BatchOutcome, ProduceRun, ProducerScenario, Source, Verdict,
};
use proptest::prelude::*;

fn run(json: &str) -> ProduceRun {
    let scenario = ProducerScenario::from_json(json).unwrap_or_else(|e| panic!("{json}: {e}"));
    simulate_producer(&scenario).unwrap()
}

fn refused(json: &str) -> String {
    ProducerScenario::from_json(json).unwrap_err().to_string()
}

#[test]
fn defaults_write_four_batches_of_five_once() {
    let r = run("{}");
    assert!(r.idempotence);
    assert_eq!(r.log.len(), 4);
    assert_eq!(r.record_ids(), (0..20).collect::<Vec<_>>());
    assert_eq!(r.counters.log_records, 20);
    assert_eq!(r.counters.retries, 0);
    assert_eq!(r.counters.batches_acknowledged, 4);
    // All four sent at t = 0, appended 5 ms later, acknowledged at 10 ms.
    assert!(r.batches.iter().all(|b| b.attempts.len() == 1 && b.done_at_us == Some(10_000)));
    assert_eq!(r.log[1].sequence, Some(5));
    assert_eq!(r.broker_memory.len(), 1);
    assert_eq!(r.broker_memory[0].batches.len(), 4);
    assert!(r.notes.is_empty(), "{:?}", r.notes);
}

#[test]
fn spec_reference_ack_lost_25_without_idempotence_20_with_it() {
    let ack_lost = r#""faults": [{"kind": "ack_lost", "batch": 1}]"#;
    let off = run(&format!(r#"{{"enable.idempotence": false, {ack_lost}}}"#));
    assert_eq!(off.counters.log_records, 25);
    assert_eq!(off.counters.records_written_twice, 5);
    assert_eq!(off.counters.records_never_written, 0);
    let again = off.log.last().unwrap();
    assert_eq!((again.batch, again.offset, again.duplicate_of), (1, 20, Some(0)));
    // The retry: request timeout (30 s) after the first send, then 100 ms backoff.
    assert_eq!(off.batches[0].attempts[1].sent_at_us, 30_100_000);

    let on = run(&format!("{{{ack_lost}}}"));
    assert_eq!(on.counters.log_records, 20);
    assert_eq!(on.counters.records_written_twice, 0);
    assert_eq!(on.counters.duplicates_dropped, 1);
    assert_eq!(on.batches[0].attempts[1].broker, Some(Verdict::Duplicate { offset: 0 }));
    assert_eq!(on.batches[0].outcome, BatchOutcome::Acknowledged);
}

#[test]
fn spec_reference_restart_before_the_retry_25_either_way() {
    let faults =
        r#""faults": [{"kind": "ack_lost", "batch": 1}, {"kind": "producer_restart", "at_ms": 20000}]"#;
    for idempotence in [false, true] {
        let r = run(&format!(r#"{{"enable.idempotence": {idempotence}, {faults}}}"#));
        assert_eq!(r.counters.log_records, 25, "idempotence {idempotence}");
        assert_eq!(r.counters.records_written_twice, 5);
        // Only the unacknowledged batch 1 is sent again, once, at the restart.
        let resent: Vec<_> = r.batches.iter().filter(|b| b.attempts.len() > 1).map(|b| b.batch).collect();
        assert_eq!(resent, [1]);
        assert_eq!(r.batches[0].attempts[0].result, AttemptResult::Abandoned);
        assert_eq!(r.batches[0].attempts[1].sent_at_us, 20_000_000);
        let again = r.log.last().unwrap();
        assert_eq!((again.batch, again.duplicate_of), (1, Some(0)));
        if idempotence {
            assert_eq!((r.log[0].pid, again.pid), (Some(1000), Some(1001)));
            assert_eq!(r.broker_memory.iter().map(|m| m.pid).collect::<Vec<_>>(), [1000, 1001]);
        }
    }
}

#[test]
fn five_in_flight_with_batch_2_lost_keep_sequence_order() {
    let r = run(r#"{"records": 25, "faults": [{"kind": "request_lost", "batch": 2}]}"#);
    assert_eq!(r.record_ids(), (0..25).collect::<Vec<_>>(), "in order, each once");
    assert_eq!(r.counters.records_written_twice, 0);
    assert_eq!(r.counters.records_never_written, 0);
    assert_eq!(r.counters.out_of_order_rejections, 3, "batches 3, 4, 5 ran into the gap");
    assert_eq!(r.log.iter().map(|e| e.batch).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    // Batch 2 times out and goes first; 3, 4, 5 follow one at a time once it is done.
    assert_eq!(r.batches[1].attempts[1].sent_at_us, 30_100_000);
    let resends: Vec<_> = r.batches[2..].iter().map(|b| b.attempts[1].sent_at_us).collect();
    assert_eq!(resends, [30_110_000, 30_120_000, 30_130_000]);
    // Five requests were in flight at t = 0.
    assert_eq!(r.in_flight[0].value, 5);

    // Without idempotence the same loss reorders the log instead.
    let off = run(
        r#"{"records": 25, "enable.idempotence": false, "faults": [{"kind": "request_lost", "batch": 2}]}"#,
    );
    assert_eq!(off.log.iter().map(|e| e.batch).collect::<Vec<_>>(), [1, 3, 4, 5, 2]);
    assert_eq!(off.counters.records_written_twice, 0);
}

#[test]
fn explicit_idempotence_refuses_what_the_java_client_refuses() {
    assert_eq!(
        refused(r#"{"enable.idempotence": true, "max.in.flight.requests.per.connection": 6}"#),
        "max.in.flight.requests.per.connection: To use the idempotent producer, \
         max.in.flight.requests.per.connection must be set to at most 5. Current value is 6."
    );
    assert_eq!(
        refused(r#"{"enable.idempotence": true, "acks": "1"}"#),
        "acks: Must set acks to all in order to use the idempotent producer. Otherwise we cannot \
         guarantee idempotence."
    );
    assert_eq!(
        refused(r#"{"enable.idempotence": true, "retries": 0}"#),
        "retries: Must set retries to non-zero when using the idempotent producer."
    );
    // Without idempotence both are allowed.
    run(r#"{"enable.idempotence": false, "max.in.flight.requests.per.connection": 6, "acks": 1}"#);
}

#[test]
fn default_idempotence_with_acks_1_is_silently_off_with_a_note() {
    let on_default = run(r#"{"acks": "1", "faults": [{"kind": "ack_lost", "batch": 1}]}"#);
    assert!(!on_default.idempotence);
    assert_eq!(on_default.counters.log_records, 25);
    assert_eq!(on_default.notes.len(), 1);
    assert!(on_default.notes[0].starts_with("Idempotence is off"), "{}", on_default.notes[0]);
    assert!(on_default.notes[0].contains("acks is 1"));
    assert_eq!(on_default.scenario["acks"], "1");
    assert_eq!(on_default.scenario["enable.idempotence"], serde_json::Value::Null, "left at its default");
}

#[test]
fn a_zombie_is_fenced() {
    let r = run(r#"{"faults": [{"kind": "zombie", "at_ms": 50, "batch": 2}]}"#);
    assert_eq!(r.counters.fenced_requests, 1);
    assert_eq!(r.faults[0].verdict, Some(Verdict::Fenced));
    assert_eq!(r.faults[0].fired_at_us, Some(50_000));
    assert_eq!(r.counters.log_records, 20);
    assert!(r.log.iter().all(|e| e.source == Source::Producer));
}

#[test]
fn a_duplicate_older_than_five_batches_is_out_of_order() {
    // 7 batches; a stale copy of batch 1 arrives after batches 2–7 pushed it out of memory.
    let r = run(r#"{"records": 35, "faults": [{"kind": "old_duplicate", "at_ms": 100, "batch": 1}]}"#);
    assert_eq!(r.faults[0].verdict, Some(Verdict::OutOfOrderSequence));
    assert_eq!(r.counters.out_of_order_rejections, 1);
    assert_eq!(r.counters.log_records, 35);
    let remembered: Vec<_> = r.broker_memory[0].batches.iter().map(|b| b.first_sequence).collect();
    assert_eq!(remembered, [10, 15, 20, 25, 30]);

    // Within the five it is a plain duplicate.
    let recent = run(r#"{"records": 35, "faults": [{"kind": "old_duplicate", "at_ms": 100, "batch": 3}]}"#);
    assert_eq!(recent.faults[0].verdict, Some(Verdict::Duplicate { offset: 10 }));
    assert_eq!(recent.counters.log_records, 35);

    // Without idempotence the stale copy is simply written again.
    let off = run(
        r#"{"records": 35, "enable.idempotence": false, "faults": [{"kind": "old_duplicate", "at_ms": 100, "batch": 1}]}"#,
    );
    assert_eq!(off.counters.log_records, 40);
    assert_eq!(off.log.last().unwrap().source, Source::OldDuplicate);
}

#[test]
fn a_leader_failover_keeps_deduplicating() {
    // The acks of all four batches are on the wire at 7 ms when the leader fails: every
    // batch is resent, and the new leader recognises all four.
    let r = run(r#"{"faults": [{"kind": "leader_failover", "at_ms": 7}]}"#);
    assert_eq!(r.counters.log_records, 20);
    assert_eq!(r.counters.duplicates_dropped, 4);
    assert!(r.batches.iter().all(|b| b.attempts[0].result == AttemptResult::Disconnected));
    let off = run(r#"{"enable.idempotence": false, "faults": [{"kind": "leader_failover", "at_ms": 7}]}"#);
    assert_eq!(off.counters.log_records, 40);
    assert_eq!(off.counters.records_written_twice, 20);
}

#[test]
fn acks_0_never_retries_and_a_lost_request_is_never_written() {
    let r =
        run(r#"{"enable.idempotence": false, "acks": 0, "faults": [{"kind": "request_lost", "batch": 3}]}"#);
    assert_eq!(r.counters.records_never_written, 5);
    assert_eq!(r.counters.log_records, 15);
    assert!(r.batches.iter().all(|b| b.outcome == BatchOutcome::SentWithoutAck));
}

#[test]
fn linger_cuts_batches_short_when_records_trickle_in() {
    let r = run(r#"{"records": 6, "send_interval_ms": 2, "linger.ms": 5}"#);
    // Records at 0, 2, 4 ms join the batch created at 0 (ready at 5 ms); 6, 8, 10 the next.
    let sizes: Vec<_> = r.batches.iter().map(|b| (b.record_count, b.ready_us)).collect();
    assert_eq!(sizes, [(3, 5_000), (3, 11_000)]);
}

#[test]
fn bad_input_names_the_key_and_the_range() {
    assert_eq!(refused(r#"{"batch.size": 0}"#), "batch.size: must be a whole number from 1 to 10000 (got 0)");
    assert_eq!(refused(r#"{"acks": "2"}"#), "acks: must be one of \"all\", \"1\", \"0\" (got \"2\")");
    assert_eq!(
        refused(r#"{"enable.idempotence": "yes"}"#),
        "enable.idempotence: must be true, false or null (the client's default) (got \"yes\")"
    );
    assert!(refused(r#"{"idempotence": true}"#)
        .starts_with("idempotence: unknown key; the keys are enable.idempotence,"));
    assert_eq!(
        refused(r#"{"linger.ms": 0.0001}"#),
        "linger.ms: `0.0001` has more than 3 decimals (the model counts whole µs)"
    );
    assert_eq!(
        refused(r#"{"faults": [{"kind": "ack_lost", "batch": 5}]}"#),
        "faults[0].batch: must be a whole number from 1 to 4, the batches this scenario sends (got 5)"
    );
    assert!(refused(r#"{"faults": [{"kind": "meteor"}]}"#)
        .starts_with("faults[0].kind: must be one of \"request_lost\""));
    assert_eq!(
        refused(r#"{"faults": [{"kind": "zombie", "batch": 1}]}"#),
        "faults[0].at_ms: a zombie fault needs at_ms"
    );
    assert_eq!(
        refused(r#"{"faults": [{"kind": "ack_lost", "batch": 1, "at_ms": 3}]}"#),
        "faults[0].at_ms: unknown field for a ack_lost fault; its fields are kind, batch, attempt"
    );
    assert_eq!(
        refused(r#"{"delivery.timeout.ms": 1000}"#),
        "delivery.timeout.ms: delivery.timeout.ms should be equal to or larger than linger.ms + \
         request.timeout.ms (got 1000 < 5 + 30000)"
    );
    assert!(refused("[]").starts_with("a producer scenario must be a JSON object"));
}

#[test]
fn a_short_default_delivery_timeout_is_raised_with_a_note() {
    let r = run(r#"{"request.timeout.ms": 200000}"#);
    assert!(r.notes.iter().any(|n| n.contains("raised to linger.ms + request.timeout.ms = 200005 ms")));
}

#[test]
fn canonical_json_round_trips() {
    let text = r#"{"enable.idempotence": false, "acks": "1", "linger.ms": 1.5,
                   "faults": [{"kind": "ack_lost", "batch": 2, "attempt": 2}, {"kind": "leader_failover", "at_ms": 3.25}]}"#;
    let s = ProducerScenario::from_json(text).unwrap();
    let back = ProducerScenario::from_value(&s.to_json_value()).unwrap();
    assert_eq!(back, s);
    assert_eq!(ProducerScenario::from_json("{}").unwrap(), ProducerScenario::default());
}

fn fault_json() -> impl Strategy<Value = String> {
    prop_oneof![
        (1u32..=6, 1u32..=3)
            .prop_map(|(b, a)| format!(r#"{{"kind":"request_lost","batch":{b},"attempt":{a}}}"#)),
        (1u32..=6, 1u32..=3).prop_map(|(b, a)| format!(r#"{{"kind":"ack_lost","batch":{b},"attempt":{a}}}"#)),
        (0u64..40_000).prop_map(|t| format!(r#"{{"kind":"leader_failover","at_ms":{t}}}"#)),
        (0u64..40_000).prop_map(|t| format!(r#"{{"kind":"producer_restart","at_ms":{t}}}"#)),
        (0u64..40_000, 1u32..=6).prop_map(|(t, b)| format!(r#"{{"kind":"zombie","at_ms":{t},"batch":{b}}}"#)),
        (0u64..40_000, 1u32..=6)
            .prop_map(|(t, b)| format!(r#"{{"kind":"old_duplicate","at_ms":{t},"batch":{b}}}"#)),
    ]
}

fn scenario_json() -> impl Strategy<Value = (String, bool)> {
    (any::<bool>(), 1u32..=5, 1u64..=20, prop::collection::vec(fault_json(), 0..6)).prop_map(
        |(idempotence, in_flight, latency_ms, faults)| {
            let restart_or_zombie = faults.iter().any(|f| f.contains("producer_restart") || f.contains("zombie"));
            (
                format!(
                    r#"{{"enable.idempotence":{idempotence},"records":30,"max.in.flight.requests.per.connection":{in_flight},
                        "network_latency_ms":{latency_ms},"request.timeout.ms":1000,"faults":[{}]}}"#,
                    faults.join(",")
                ),
                idempotence && !restart_or_zombie,
            )
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn runs_are_deterministic((json, _) in scenario_json()) {
        let a = serde_json::to_string(&run(&json)).unwrap();
        let b = serde_json::to_string(&run(&json)).unwrap();
        prop_assert_eq!(a, b);
    }

    #[test]
    fn idempotence_keeps_acknowledged_records_and_drops_repeats((json, no_new_session) in scenario_json()) {
        let r = run(&json);
        let ids = r.record_ids();
        for b in &r.batches {
            prop_assert!(b.outcome != BatchOutcome::Unresolved && b.outcome != BatchOutcome::SentWithoutAck);
            if b.outcome == BatchOutcome::Acknowledged {
                for id in b.first_record..b.first_record + b.record_count {
                    prop_assert!(ids.contains(&id), "acknowledged record {} missing", id);
                }
            }
        }
        if no_new_session {
            prop_assert_eq!(r.counters.records_written_twice, 0, "{}", json);
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            prop_assert_eq!(sorted, ids, "the log keeps sequence order");
        }
    }
}
