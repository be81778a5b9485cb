//! model.md §8 behaviours that the scenario files (`scenarios/`) cannot show as one number:
//! marks, lines over time, refusals and retries.

use offset_window_sim::scenario::{Jitter, OffsetReset, ScriptStep};
use offset_window_sim::{simulate, MarkKind, Run, Scenario, Strategy};

const MS: u64 = 1_000;

fn run(json: &str) -> Run {
    simulate(&Scenario::from_json(json).unwrap()).unwrap()
}

/// The committed line as (ms, offset) pairs.
fn committed_ms(run: &Run) -> Vec<(u64, Option<u64>)> {
    run.lines().committed.iter().map(|s| (s.at_us / MS, s.value)).collect()
}

fn marks_at(run: &Run, at_us: u64) -> Vec<MarkKind> {
    run.marks.iter().filter(|m| m.at_us == at_us).map(|m| m.kind).collect()
}

#[test]
fn a_batch_longer_than_max_poll_interval_livelocks() {
    let run = run(
        r#"{"strategy":"commit_sync_batch","max.poll.records":100,"record_processing_ms":60,"max.poll.interval.ms":5000}"#,
    );
    assert!(marks_at(&run, 5_000 * MS).contains(&MarkKind::Evicted), "evicted at 5 s");
    let at_6s = marks_at(&run, 6_000 * MS);
    assert!(at_6s.iter().any(|k| matches!(k, MarkKind::CommitFailed { offset: 100, .. })), "{at_6s:?}");
    assert!(at_6s.contains(&MarkKind::Rejoined { position: 0 }), "the position falls back: {at_6s:?}");
    assert_eq!(committed_ms(&run), [(0, Some(0))], "committed stays 0");
    assert_eq!(run.commits_landed, 0);
    // Nothing is ever committed, so every run so far repeats after a crash: the first
    // pass (100) and the second up to 11.94 s (99).
    assert_eq!(run.state_at(12_000 * MS).duplicated, 199);
}

#[test]
fn the_java_client_has_no_offset_store() {
    let err = Scenario::from_json(r#"{"strategy":"store_offsets_after_processing"}"#).unwrap_err();
    assert_eq!(err.key.as_deref(), Some("strategy"));
    assert!(err.message.contains("the Java client has no offset store"), "{err}");
    assert!(
        Scenario::from_json(r#"{"strategy":"store_offsets_after_processing","client":"librdkafka"}"#).is_ok()
    );
}

#[test]
fn a_failed_commit_sync_is_retried_with_backoff_while_the_loop_waits() {
    let run = run(r#"{"strategy":"commit_sync_batch","commit_failures":[1]}"#);
    // Sent at 1000, fails at 1005, resent 100 ms later at 1105, lands at 1110.
    assert!(marks_at(&run, 1_005 * MS).iter().any(|k| matches!(k, MarkKind::CommitFailed { offset: 5, .. })));
    assert_eq!(run.lines().committed[1].at_us, 1_110 * MS);
    assert!(marks_at(&run, 1_110 * MS).iter().any(|k| matches!(k, MarkKind::Poll { from: 5, records: 5 })));
}

#[test]
fn commit_sync_gives_up_after_default_api_timeout() {
    let run = run(
        r#"{"strategy":"commit_sync_batch","commit_failures":[1,2,3,4,5,6],"default.api.timeout.ms":700,"horizon_ms":3000}"#,
    );
    // Attempts at 1000, 1105, 1310, 1715 (backoff 100, 200, 400); the next would start at
    // 2520, past 1000 + 700: TimeoutException, and the loop goes on uncommitted.
    let sent: Vec<u64> = run
        .marks
        .iter()
        .filter(|m| matches!(m.kind, MarkKind::CommitSent { offset: 5, .. }))
        .map(|m| m.at_us / MS)
        .collect();
    assert_eq!(sent, [1_000, 1_105, 1_310]);
    assert!(marks_at(&run, 1_315 * MS).iter().any(|k| matches!(k, MarkKind::Poll { from: 5, .. })));
}

#[test]
fn a_failed_auto_commit_is_retried_by_its_callback_at_the_next_poll() {
    // model.md §8.8: the 5 s auto-commit fails (response at 5.005); its callback runs at the
    // 6 s poll and resets the timer to 6.1 s, so the 7 s poll commits 35 (lands 7.005).
    let run = run(r#"{"commit_failures":[1]}"#);
    assert_eq!(committed_ms(&run), [(0, Some(0)), (7_005, Some(35))]);
    let at = run.state_at(8_200 * MS);
    assert_eq!((at.committed, at.duplicated), (Some(35), 5));
    assert_eq!((run.worst().duplicated, run.worst().duplicated_at_us), (35, Some(7_000_001)));
}

#[test]
fn an_async_retry_from_the_callback_never_overtakes_a_newer_commit_in_a_steady_loop() {
    // model.md §8.8: commit 10 (sent 2 s) fails at 2.005; its callback runs first thing in
    // the 3 s commitAsync, so the retry of 10 goes out just before 15 and lands before it.
    let run =
        run(r#"{"strategy":"commit_async_batch","commit_failures":[2],"retry_async_in_callback":true}"#);
    let landed: Vec<u64> = marks_at(&run, 3_005 * MS)
        .iter()
        .filter_map(|k| match k {
            MarkKind::CommitLanded { offset } => Some(*offset),
            _ => None,
        })
        .collect();
    assert_eq!(landed, [10, 15]);
    let committed = committed_ms(&run);
    assert!(committed.windows(2).all(|w| w[0].1 <= w[1].1), "never backwards: {committed:?}");
}

#[test]
fn the_reference_of_section_8_8_holds_with_a_slow_commit() {
    // The failure of commit 5 (sent 1 s) arrives at 2.5 s; its retry goes out at 3 s just
    // before commit 15; both land at 4.5 s in send order.
    let run = run(
        r#"{"strategy":"commit_async_batch","commit_latency_ms":1500,"commit_failures":[1],"retry_async_in_callback":true}"#,
    );
    let committed = committed_ms(&run);
    assert!(committed.windows(2).all(|w| w[0].1 <= w[1].1), "never backwards: {committed:?}");
    assert_eq!((run.worst().duplicated, run.worst().duplicated_at_us), (17, Some(3_400_001)));
}

#[test]
fn a_failure_arriving_after_the_last_commit_can_still_move_the_offset_back() {
    // The log ends at 15: commit 15 (sent 3 s) is the loop's last. Commit 10 (sent 2 s)
    // fails at 3.5 s, after 15 was sent; its callback runs at the 3.5 s poll and the stale
    // retry of 10 lands at 5 s, after 15 landed at 4.5 s.
    let run = run(
        r#"{"strategy":"commit_async_batch","commit_latency_ms":1500,"commit_failures":[2],"retry_async_in_callback":true,"log_end_offset":15}"#,
    );
    assert_eq!(committed_ms(&run), [(0, Some(0)), (2_500, Some(5)), (4_500, Some(15)), (5_000, Some(10))]);
}

#[test]
fn draining_the_pool_on_close_commits_only_finished_work() {
    let base = r#""worker_pool":true,"close_at_ms":5010"#;
    let dropped = run(&format!("{{{base}}}"));
    let drained = run(&format!("{{{base},\"drain_pool_on_close\":true}}"));
    let at_close = |r: &Run| r.state_at(r.closed_at_us.unwrap() + 1);
    assert_eq!((at_close(&dropped).committed, at_close(&dropped).lost), (Some(40), 15));
    assert_eq!(
        drained.closed_at_us,
        Some(8_005 * MS),
        "close() after the last queued batch (8 s) and its commit"
    );
    assert_eq!((at_close(&drained).committed, at_close(&drained).lost), (Some(40), 0));
}

#[test]
fn jitter_is_seeded_bounded_and_per_offset() {
    let scenario = |jitter, seed| Scenario {
        record_processing_jitter: jitter,
        record_processing_jitter_pct: 50,
        seed,
        ..Scenario::default()
    };
    let durations = |run: &Run| -> Vec<u64> {
        let done: Vec<u64> = run
            .marks
            .iter()
            .filter(|m| matches!(m.kind, MarkKind::RecordDurable { .. }))
            .map(|m| m.at_us)
            .collect();
        done.windows(2).map(|w| w[1] - w[0]).collect()
    };
    let a = simulate(&scenario(Jitter::Uniform, 7)).unwrap();
    assert_eq!(a, simulate(&scenario(Jitter::Uniform, 7)).unwrap());
    assert_ne!(
        a.lines().durable_frontier,
        simulate(&scenario(Jitter::Uniform, 8)).unwrap().lines().durable_frontier
    );
    assert!(durations(&a).iter().all(|&d| (100 * MS..=300 * MS).contains(&d)), "{:?}", durations(&a));
    let exp = simulate(&Scenario { horizon_us: 600_000 * MS, ..scenario(Jitter::Exponential, 1) }).unwrap();
    let d = durations(&exp);
    let mean = d.iter().sum::<u64>() / d.len() as u64;
    assert!((150 * MS..250 * MS).contains(&mean), "exponential mean {mean} µs over {} records", d.len());
}

#[test]
fn script_steps_wait_for_their_commits_before_the_next_step() {
    let run = simulate(&Scenario {
        strategy: Strategy::CommitAsyncBatch,
        script: Some(vec![
            ScriptStep::Poll,
            ScriptStep::Process(5),
            ScriptStep::CommitAsync,
            ScriptStep::Crash,
        ]),
        log_end_offset: 50,
        auto_offset_reset: OffsetReset::Earliest,
        ..Scenario::default()
    })
    .unwrap();
    let script = run.script.clone().unwrap();
    assert_eq!(script.iter().map(|r| r.committed).collect::<Vec<_>>(), [None, None, Some(5), Some(5)]);
    assert_eq!(script[3].ended_at_us, 1_005 * MS, "the crash step ran once commitAsync had landed");
    assert_eq!(run.state_at(2_000 * MS).position, Some(5), "nothing happens after the crash");
}

#[test]
fn compare_clients_shows_where_the_timer_commits_mid_batch() {
    use offset_window_sim::compare::compare_clients;
    let scenario = Scenario::from_json(
        r#"{"max.poll.records":1,"record_processing_ms":3000,"auto.commit.interval.ms":5000}"#,
    )
    .unwrap();
    let rows = compare_clients(&scenario, 5_500 * MS).unwrap();
    let row = |client: &str, strategy: &str| {
        let r = rows.iter().find(|r| r.client == client && r.strategy == strategy).unwrap();
        (r.lost, r.duplicated)
    };
    assert_eq!(row("java_classic", "auto_commit"), (0, 1));
    assert_eq!(row("java_consumer_protocol", "auto_commit"), (0, 1));
    assert_eq!(row("java_consumer_protocol_pre_fix", "auto_commit"), (1, 0));
    assert_eq!(row("librdkafka", "auto_commit"), (1, 0));
    assert_eq!(row("librdkafka", "store_offsets_after_processing"), (0, 0));
    // model.md §8.14: one record per poll, 3 s each, the crash at 5.5 s mid-record 1.
    assert_eq!(row("librdkafka_before_1_9", "auto_commit"), (1, 0));
    assert_eq!(row("sarama", "mark_message"), (0, 0));
    assert_eq!(row("kafka_go", "read_message"), (1, 0));
    assert_eq!(row("kafka_go", "fetch_message_commit_messages"), (0, 0));
    // KafkaJS: the batch is the backlog; a crash mid-batch commits nothing of it either way.
    assert_eq!(row("kafkajs", "each_batch"), row("kafkajs", "each_batch_resolve_offset"));
    assert_eq!(rows.len(), 20);
}

#[test]
fn commit_retries_cannot_spin_at_one_instant() {
    // A zero backoff would retry a failing commit forever without time passing.
    let err = Scenario::from_json(r#"{"retry.backoff.ms": 0}"#).unwrap_err();
    assert_eq!(err.key.as_deref(), Some("retry.backoff.ms"));
    // Every commit failing, 1 ms apart, for the whole default.api.timeout.ms: still bounded.
    let run = run(
        r#"{"strategy":"commit_sync_record","commit_failure_probability":1,"retry.backoff.ms":1,"retry.backoff.max.ms":1}"#,
    );
    assert_eq!(run.commits_landed, 0);
    assert!(run.marks.len() < 100_000, "{} marks", run.marks.len());
}

/// model.md §8.14, sarama#1287: workers mark messages 1, 2, 3 as they finish; 2 takes 5 s.
/// sarama's partition offset manager keeps the highest mark (`offset_manager.go`
/// `MarkOffset`), so the 1 s AutoCommit tick commits past the unfinished 2: a raw
/// `MarkOffset(msg.Offset)` of 1 and 3 commits 3 (2 lost, 3 repeated), `MarkMessage` 4.
#[test]
fn sarama_1287_raw_mark_offset_of_1_and_3_commits_3() {
    let shape = |extra: &str| {
        format!(
            r#"{{"client":"sarama","strategy":"mark_message","worker_pool":true,"pool_threads":3,
            "ordering":"unordered","log_start_offset":1,"log_end_offset":4,"record_processing_ms":200,
            "record_processing_ms_by_offset":{{"2":5000}},"auto.commit.interval.ms":1000{extra}}}"#
        )
    };
    let at = |run: &Run, ms: u64| {
        let s = run.state_at(ms * MS);
        (s.committed, s.lost, s.duplicated)
    };
    let raw = run(&shape(r#","pool_commit":"highest_completed","commit_value":"record_offset""#));
    // The raw mark of 1 is not above the committed 1: only 3 is sent, at the 1 s tick.
    assert_eq!(committed_ms(&raw), [(0, Some(1)), (1_005, Some(3))]);
    assert_eq!(at(&raw, 1_500), (Some(3), 1, 1));
    assert_eq!(at(&raw, 5_500), (Some(3), 0, 1), "2 done at 5 s (its raw mark not above 3)");
    let message = run(&shape(r#","pool_commit":"highest_completed""#));
    assert_eq!(committed_ms(&message), [(0, Some(1)), (1_005, Some(4))]);
    assert_eq!(at(&message, 1_500), (Some(4), 1, 0));
    // An application that marks the lowest unfinished offset commits 2 (MarkMessage of 1);
    // its raw MarkOffset of 1 is never above the committed 1.
    let contiguous = run(&shape(r#","pool_commit":"contiguous_completed""#));
    assert_eq!(committed_ms(&contiguous), [(0, Some(1)), (1_005, Some(2)), (5_005, Some(4))]);
    let contiguous_raw =
        run(&shape(r#","pool_commit":"contiguous_completed","commit_value":"record_offset""#));
    assert_eq!(committed_ms(&contiguous_raw), [(0, Some(1)), (5_005, Some(3))]);
    // Without a pool, raw marks commit one less than MarkMessage: at the 3 s tick 0–6 are
    // done, so 6 (MarkMessage: 7); a crash at 3.4 s repeats 6 and 7.
    let in_order = r#"{"client":"sarama","strategy":"mark_message","commit_value":"record_offset",
        "record_processing_ms":400,"auto.commit.interval.ms":1000}"#;
    assert_eq!(at(&run(in_order), 3_400), (Some(6), 0, 2));
    // What a sarama pool needs: the workers' marks (not what was handed out), one consumer,
    // MarkMessage; the other libraries still have no pool.
    let refused = |extra: &str| Scenario::from_json(&shape(extra)).unwrap_err();
    let e = refused("");
    assert_eq!(e.key.as_deref(), Some("pool_commit"));
    assert!(e.message.starts_with("sarama keeps the highest mark"), "{}", e.message);
    let e = refused(r#","pool_commit":"highest_completed","strategy":"commit_sync_record""#);
    assert_eq!(e.key.as_deref(), Some("worker_pool"));
    assert!(e.message.contains("\"mark_message\" on one consumer"), "{}", e.message);
    let e = refused(r#","pool_commit":"highest_completed","partitions":2"#);
    // (Without the `group` feature the second partition is refused first.)
    assert_eq!(e.key.as_deref(), Some(if cfg!(feature = "group") { "worker_pool" } else { "partitions" }));
    for client in ["franz_go", "kafka_go", "kafkajs"] {
        let e = Scenario::from_json(&format!(r#"{{"client":"{client}","worker_pool":true}}"#)).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("worker_pool"), "{client}");
    }
}

/// model.md §8.14, KafkaJS 2.2.4 `eachBatch` (`Runner.processEachBatch`): 24 records of 400 ms,
/// two fetches of 12 (`maxBytesPerPartition`). With `eachBatchAutoResolve` (the default) a
/// batch is resolved only when `eachBatch` returns and `handleBatch` commits it then; with
/// `resolveOffset` after each message the resolved offsets are the records done, which the
/// batch's end and `disconnect()` commit — as `eachMessage`. A crash at 6.6 s, mid-batch 2
/// (records 12–15 done), repeats 4 records either way; a close there commits 16 with
/// `resolveOffset`, nothing more with auto-resolve (restart at 12: the 4 repeated).
#[test]
fn kafkajs_each_batch_resolves_the_batch_when_it_returns_resolve_offset_each_message() {
    let shape = |strategy: &str, end: &str| {
        run(&format!(
            r#"{{"client":"kafkajs","strategy":"{strategy}","log_end_offset":24,"record_size_bytes":1000,
            "max.partition.fetch.bytes":12000,"record_processing_ms":400,{end}}}"#
        ))
    };
    for strategy in ["each_batch", "each_batch_resolve_offset", "each_message"] {
        let crashed = shape(strategy, r#""horizon_ms":6600"#);
        assert_eq!(committed_ms(&crashed), [(0, Some(0)), (4_805, Some(12))], "{strategy}");
        let s = crashed.state_at(6_600 * MS);
        assert_eq!((s.committed, s.lost, s.duplicated), (Some(12), 0, 4), "{strategy}");
        let closed = shape(strategy, r#""close_at_ms":6600"#);
        let s = closed.state_at(closed.closed_at_us.unwrap() + 1);
        let want = if strategy == "each_batch" { (Some(12), 0, 4) } else { (Some(16), 0, 0) };
        assert_eq!((s.committed, s.lost, s.duplicated), want, "{strategy}");
    }
    // Its users' words only under client "kafkajs"; auto-resolve is one consumer's (in a group
    // KafkaJS sends no heartbeat while such an eachBatch runs).
    let e = Scenario::from_json(r#"{"strategy":"each_batch"}"#).unwrap_err();
    assert_eq!(
        (e.key.as_deref(), e.message.as_str()),
        (Some("strategy"), "\"each_batch\" needs client \"kafkajs\"")
    );
    if cfg!(feature = "group") {
        let group =
            r#"{"client":"kafkajs","members":2,"partitions":2,"partition.assignment.strategy":"roundrobin""#;
        let e = Scenario::from_json(&format!(r#"{group},"strategy":"each_batch"}}"#)).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("strategy"));
        assert!(Scenario::from_json(&format!(r#"{group},"strategy":"each_batch_resolve_offset"}}"#)).is_ok());
    }
}

/// `Scenario::unread` is the truth: for every client and strategy the core accepts (record 7
/// throwing, so that the error handler runs), a key it calls unread changes nothing of the
/// run (lines and marks), whatever its value.
#[test]
fn a_key_called_unread_changes_nothing() {
    use offset_window_sim::scenario::Client;
    let mut unread = 0;
    for client in Client::ALL {
        for strategy in Strategy::ALL {
            let base = format!(
                r#""client":"{}","strategy":"{}","horizon_ms":12000,"record_failures":[7]"#,
                client.name(),
                strategy.name()
            );
            let Ok(scenario) = Scenario::from_json(&format!("{{{base}}}")) else { continue };
            let keys = [
                ("max.poll.records", "23"),
                ("auto.commit.interval.ms", "700"),
                ("error_retries", "5"),
                ("error_retry_backoff_ms", "300"),
                ("max_deliveries", "3"),
                ("dead_letter", "true"),
            ];
            for (key, value) in keys {
                if scenario.unread(key).is_none() {
                    continue;
                }
                unread += 1;
                let changed = run(&format!(r#"{{{base},"{key}":{value}}}"#));
                let same = simulate(&scenario).unwrap();
                assert_eq!(
                    format!("{:?}{:?}", changed.lines(), changed.marks),
                    format!("{:?}{:?}", same.lines(), same.marks),
                    "{} {} {key}",
                    client.name(),
                    strategy.name()
                );
            }
        }
    }
    assert!(unread >= 100, "{unread} unread keys checked");
}
