//! Transactions in the log (model.md §13): the reference scenarios T1–T4 as exact numbers
//! (the `scenarios/txn-*` files, read here from disk), bad input, and invariants over random
//! scenarios.

use offset_window_sim::transactions::{
    simulate_transactions, DataState, RecordKind, TxnOutcome, TxnRun, TxnScenario, MAX_TXN_EVENTS,
};
use proptest::prelude::*;
use serde_json::{json, Value};

const MS: u64 = 1_000;

fn scenario_file(name: &str) -> TxnScenario {
    let path = format!("{}/../../scenarios/{name}", env!("CARGO_MANIFEST_DIR"));
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    TxnScenario::from_value(&file["scenario"]).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn run_file(name: &str) -> TxnRun {
    simulate_transactions(&scenario_file(name)).unwrap()
}

fn refused(value: Value) -> (String, String) {
    let e = TxnScenario::from_value(&value).unwrap_err();
    (e.key.unwrap_or_default(), e.message)
}

fn steps(run: &TxnRun) -> Vec<(u64, u64)> {
    run.last_stable_offset.iter().map(|s| (s.at_us / MS, s.offset)).collect()
}

fn handed(run: &TxnRun, reader: usize) -> Vec<(u64, u64)> {
    run.readers[reader].handed.iter().map(|h| (h.offset, h.at_us / MS)).collect()
}

fn kinds(run: &TxnRun) -> Vec<RecordKind> {
    run.log.iter().map(|r| r.kind).collect()
}

#[test]
fn t1_committed_batch_lag_per_client() {
    let run = run_file("txn-committed-batch-lag-per-client.json");
    use RecordKind::*;
    assert_eq!(kinds(&run), [Data, Data, Data, Data, Data, CommitMarker]);
    assert_eq!(run.log_end_offset, 6);
    assert_eq!(steps(&run), [(0, 0), (1200, 6)]);
    // Every read_committed reader gets 0–4 at the 1.2 s poll, the first after the marker.
    let five: Vec<(u64, u64)> = (0..5).map(|o| (o, 1200)).collect();
    for (i, r) in run.readers.iter().enumerate() {
        if r.client != "kafka_go" && r.isolation == "read_committed" {
            assert_eq!(handed(&run, i), five, "{}", r.name);
        }
    }
    // (name, position, committed, lag)
    let expected = [
        ("java-position", 6, 6, 0),
        ("spring-last-plus-one", 6, 5, 1),
        ("java-auto-commit", 6, 6, 0),
        ("java-kip848-position", 6, 6, 0),
        ("librdkafka-auto-commit", 6, 6, 0),
        ("librdkafka-store-after-processing", 6, 5, 1),
        ("sarama-mark-message", 6, 5, 1),
        ("franz-go-autocommit", 6, 5, 1),
        ("kafkajs-each-message", 6, 5, 1),
        ("kafkajs-commit-offsets", 6, 5, 1),
        ("kafka-go-read-message", 6, 6, 0),
        ("kafkajs-auto-commit-interval-uncommitted", 6, 6, 0),
    ];
    for (r, (name, position, committed, lag)) in run.readers.iter().zip(expected) {
        assert_eq!(
            (r.name.as_str(), r.position, r.committed, r.lag),
            (name, position, Some(committed), Some(lag)),
            "{name}"
        );
        if r.isolation == "read_committed" {
            assert_eq!(r.stalled.len(), 1);
            assert_eq!((r.stalled[0].from_us, r.stalled[0].to_us), (1_000 * MS, Some(1_200 * MS)));
        }
    }
    let commits = |i: usize| -> Vec<(u64, u64)> {
        run.readers[i].committed_steps.iter().map(|s| (s.at_us / MS, s.offset)).collect()
    };
    // Java commits its position after every poll: 0 until 1.2 s.
    assert_eq!(commits(0), [(0, 0), (1200, 6)]);
    // Java's auto-commit: the first poll at or after 5 s commits the position.
    assert_eq!(commits(2), [(5000, 6)]);
    // librdkafka's timer at 5 s commits the offset stored past the marker.
    assert_eq!(commits(4), [(5000, 6)]);
    // sarama's ticker (1 s) commits the mark 5 at 2 s; franz-go's autocommit (5 s) its head.
    assert_eq!(commits(6), [(2000, 5)]);
    assert_eq!(commits(7), [(5000, 5)]);
    // KafkaJS commits 5 after the batch; the next fetch holds only the marker, which it
    // resolves (position 6) but, with autoCommitInterval unset, never commits.
    assert_eq!(commits(8), [(1200, 5)]);
    assert_eq!(run.readers[8].handed.len(), 5);
    // read_uncommitted with autoCommitInterval 100 ms: 0 at 1000 ms, 1–4 at 1100 ms, and the
    // marker's lone fetch at 1200 ms comes 100 ms after the last commit: 6.
    assert_eq!(commits(11), [(1000, 1), (1100, 5), (1200, 6)]);
    // kafka-go hands the marker itself, as a message.
    let go = &run.readers[10];
    assert_eq!(go.handed.len(), 6);
    assert!(go.handed[5].control && go.handed[..5].iter().all(|h| !h.control));
}

#[test]
fn t2_killed_producer_stalls_read_committed_until_the_timeout_abort() {
    let run = run_file("txn-producer-killed-stalls-until-timeout.json");
    use RecordKind::*;
    assert_eq!(kinds(&run), [Data, Data, Data, Data, Data, Data, AbortMarker]);
    let states: Vec<Option<DataState>> = run.log.iter().map(|r| r.state).collect();
    use DataState::*;
    assert_eq!(
        states,
        [Some(Plain), Some(Aborted), Some(Aborted), Some(Aborted), Some(Plain), Some(Plain), None]
    );
    // Started at 1 s, timeout 10 s: the first scan strictly after 11 s is at 20 s.
    assert_eq!(run.timed_out_aborts.len(), 1);
    let a = &run.timed_out_aborts[0];
    assert_eq!(
        (a.producer, a.transaction, a.started_at_us, a.aborted_at_us, a.marker_offset),
        (0, 0, 1_000 * MS, 20_000 * MS, 6)
    );
    assert_eq!(run.transactions[0].outcome, TxnOutcome::TimedOut);
    assert_eq!(steps(&run), [(0, 0), (500, 1), (20000, 7)]);
    assert_eq!(handed(&run, 0), [(0, 500), (4, 20000), (5, 20000)]);
    let rc = &run.readers[0];
    assert_eq!((rc.position, rc.committed, rc.lag), (7, Some(7), Some(0)));
    assert_eq!(rc.stalled.len(), 1);
    assert_eq!((rc.stalled[0].from_us, rc.stalled[0].to_us), (1_000 * MS, Some(20_000 * MS)));
    assert_eq!(handed(&run, 1), [(0, 500), (1, 1000), (2, 1100), (3, 1100), (4, 2000), (5, 3000)]);
    assert!(run.readers[1].stalled.is_empty());
}

#[test]
fn the_timeout_scan_is_the_first_strictly_after_start_plus_timeout() {
    let base = scenario_file("txn-producer-killed-stalls-until-timeout.json");
    for (phase_ms, interval_ms, expected_ms) in [
        (0, 10_000, 20_000),
        (0, 1_000, 12_000),
        (0, 11_000, 22_000),
        (500, 1_000, 11_500),
        (999, 1_000, 11_999),
    ] {
        let s = TxnScenario {
            scan_phase_us: phase_ms * MS,
            cleanup_interval_us: interval_ms * MS,
            ..base.clone()
        };
        let run = simulate_transactions(&s).unwrap();
        assert_eq!(
            run.timed_out_aborts[0].aborted_at_us,
            expected_ms * MS,
            "phase {phase_ms}, interval {interval_ms}"
        );
        assert_eq!(run.readers[0].stalled[0].to_us, Some(expected_ms * MS));
    }
}

#[test]
fn t3_aborted_records_never_reach_read_committed() {
    let run = run_file("txn-aborted-never-handed-to-read-committed.json");
    use RecordKind::*;
    assert_eq!(kinds(&run), [Data, Data, Data, AbortMarker, Data, Data, CommitMarker]);
    assert_eq!(steps(&run), [(0, 0), (1100, 4), (2100, 7)]);
    assert_eq!(handed(&run, 0), [(4, 2100), (5, 2100)]);
    assert_eq!(handed(&run, 1), [(0, 1000), (1, 1100), (2, 1100), (4, 2000), (5, 2100)]);
    for r in &run.readers {
        assert_eq!((r.position, r.committed, r.lag), (7, Some(7), Some(0)), "{}", r.name);
    }
    let share = |i: usize| -> Vec<(u64, u64)> {
        run.share_readers[i].handed.iter().map(|h| (h.offset, h.at_us / MS)).collect()
    };
    assert_eq!(share(0), [(4, 2100), (5, 2100)]);
    assert_eq!(share(1), [(0, 1000), (1, 1100), (2, 1100), (4, 2000), (5, 2100)]);
    assert_eq!(run.share_readers[0].stalled.len(), 2);
}

#[test]
fn t4_an_open_transaction_holds_back_another_producers_committed_records() {
    let run = run_file("txn-open-transaction-holds-back-another.json");
    use RecordKind::*;
    assert_eq!(kinds(&run), [Data, Data, Data, Data, Data, CommitMarker, CommitMarker]);
    let producers: Vec<u32> = run.log.iter().map(|r| r.producer).collect();
    assert_eq!(producers, [0, 0, 1, 1, 1, 1, 0]);
    assert_eq!(steps(&run), [(0, 0), (5000, 7)]);
    assert_eq!(handed(&run, 0), (0..5).map(|o| (o, 5000)).collect::<Vec<_>>());
    assert_eq!(run.readers[0].lag, Some(0));
    assert_eq!((run.readers[1].committed, run.readers[1].lag), (Some(5), Some(2)));
    assert_eq!(handed(&run, 2), [(0, 1000), (1, 1100), (2, 2000), (3, 2100), (4, 2100)]);
    let s = &run.readers[0].stalled;
    assert_eq!((s.len(), s[0].from_us, s[0].to_us), (1, 1_000 * MS, Some(5_000 * MS)));
}

#[test]
fn a_hanging_transaction_holds_the_lso_to_the_horizon() {
    let run = run_file("txn-hanging-transaction.json");
    assert_eq!(run.transactions[0].outcome, TxnOutcome::Hanging);
    assert!(run.timed_out_aborts.is_empty());
    assert_eq!(steps(&run), [(0, 0), (500, 1)]);
    let r = &run.readers[0];
    assert_eq!((r.position, r.committed, r.lag), (1, Some(1), Some(3)));
    assert_eq!((r.stalled[0].from_us, r.stalled[0].to_us), (1_000 * MS, None));
}

#[test]
fn a_commit_after_the_timeout_scan_fails_and_fences_the_producer() {
    let s = TxnScenario::from_value(&json!({
        "producers": [{"transactional.id": "slow", "transaction.timeout.ms": 1000, "transactions": [
            {"begin_ms": 0, "records": 30, "record_interval_ms": 100, "end": "commit", "end_ms": 3000},
            {"begin_ms": 4000, "records": 1, "end": "commit", "end_ms": 4100}
        ]}],
        "transaction.abort.timed.out.transaction.cleanup.interval.ms": 1000,
        "readers": [{"isolation.level": "read_committed"}],
        "horizon_ms": 6000
    }))
    .unwrap();
    let run = simulate_transactions(&s).unwrap();
    // Started at 0, timeout 1 s: the scan at 2 s (not 1 s: strictly after) aborts it. The
    // records at 0–1.9 s are written (20), the ones from 2 s on are fenced, as is the commit.
    assert_eq!(run.timed_out_aborts[0].aborted_at_us, 2_000 * MS);
    assert_eq!(run.log_end_offset, 21);
    assert_eq!(run.log[20].kind, RecordKind::AbortMarker);
    assert_eq!(run.transactions[1].outcome, TxnOutcome::NotWritten);
    assert_eq!(run.notes.len(), 2, "{:?}", run.notes);
    assert!(run.readers[0].handed.is_empty());
    assert_eq!(run.readers[0].position, 21);
}

#[test]
fn refusals_name_the_key_and_the_range() {
    let producer = json!({"transactional.id": "tx", "transactions": [{"begin_ms": 0, "records": 2, "end": "commit", "end_ms": 10}]});
    let with = |key: &str, value: Value| {
        let mut s = json!({"producers": [producer.clone()]});
        s[key] = value;
        s
    };
    let too_many = format!("more than {MAX_TXN_EVENTS}");
    let cases: Vec<(Value, &str, &str)> = vec![
        (json!({}), "producers", "required"),
        (json!({"producers": []}), "producers", "1 to 16 producers"),
        (with("horizon", json!(5)), "horizon", "unknown key"),
        (with("horizon_ms", json!(0)), "horizon_ms", "from 1 to 86400000"),
        (with("coordinator_scan_phase_ms", json!(10_000)), "coordinator_scan_phase_ms", "below"),
        (with("transaction.version", json!(3)), "transaction.version", "from 1 to 2"),
        (
            json!({"producers": [{"transactional.id": "tx", "transaction.timeout.ms": 900_001, "transactions": [{"begin_ms": 0, "end": "producer_dies"}]}]}),
            "producers[0].transaction.timeout.ms",
            "at most transaction.max.timeout.ms, 900000 ms",
        ),
        (
            json!({"producers": [{"transactional.id": "tx", "transactions": [{"begin_ms": 0, "records": 3, "record_interval_ms": 10, "end": "commit", "end_ms": 15}]}]}),
            "producers[0].transactions[0].end_ms",
            "at or after the transaction's last record, 20 ms",
        ),
        (
            json!({"producers": [{"transactional.id": "tx", "transactions": [{"begin_ms": 0, "end": "commit"}]}]}),
            "producers[0].transactions[0].end_ms",
            "needs end_ms",
        ),
        (
            json!({"producers": [{"transactional.id": "tx", "transactions": [{"begin_ms": 0, "end": "hangs"}]}]}),
            "producers[0].transactions[0].end",
            "transaction.partition.verification.enable",
        ),
        (
            json!({"producers": [{"transactional.id": "tx", "transactions": [{"begin_ms": 0, "end": "producer_dies"}, {"begin_ms": 10, "end": "commit", "end_ms": 20}]}]}),
            "producers[0].transactions[1]",
            "writes nothing more",
        ),
        (
            json!({"producers": [{"transactional.id": "tx", "transactions": [{"begin_ms": 0, "end": "commit", "end_ms": 100}, {"begin_ms": 50, "end": "commit", "end_ms": 200}]}]}),
            "producers[0].transactions[1].begin_ms",
            "one transaction at a time",
        ),
        (
            json!({"producers": [{"transactional.id": "tx", "transactions": [{"begin_ms": 0, "end": "later"}]}]}),
            "producers[0].transactions[0].end",
            "one of \"commit\", \"abort\", \"producer_dies\", \"hangs\"",
        ),
        (
            json!({"producers": [{"transactional.id": null}]}),
            "producers[0].records_at_ms",
            "needs records_at_ms",
        ),
        (json!({"producers": [{"records_at_ms": [5, 3]}]}), "producers[0].records_at_ms[1]", "ascending"),
        (
            json!({"producers": [{"transactional.id": ""}]}),
            "producers[0].transactional.id",
            "1 to 249 characters",
        ),
        (
            with("readers", json!([{"client": "sarama", "commit": "position"}])),
            "readers[0].commit",
            "no consumer position",
        ),
        (
            with("readers", json!([{"client": "java_consumer_protocol_pre_fix"}])),
            "readers[0].client",
            "3.9.2",
        ),
        (with("readers", json!([{"client": "nope"}])), "readers[0].client", "one of \"java_classic\""),
        (
            with("readers", json!([{"max.poll.records": 0}])),
            "readers[0].max.poll.records",
            "from 1 to 100000",
        ),
        (
            with("readers", json!([{"poll_interval_ms": 0.0001}])),
            "readers[0].poll_interval_ms",
            "more than 3 decimals",
        ),
        (
            with(
                "readers",
                json!([{"client": "kafka_go", "commit": "auto_commit", "auto.commit.interval.ms": 100}]),
            ),
            "readers[0].auto.commit.interval.ms",
            "is not read",
        ),
        (with("readers", json!([{"name": "a"}, {"name": "a"}])), "readers[1].name", "repeats"),
        (with("readers", json!([{"colour": "red"}])), "readers[0].colour", "its fields are name, client"),
        (
            with("share_readers", json!([{"share.isolation.level": "serializable"}])),
            "share_readers[0].share.isolation.level",
            "read_committed",
        ),
        (
            json!({"producers": [producer.clone()], "horizon_ms": 86_400_000, "readers": [{"poll_interval_ms": 1}, {"poll_interval_ms": 1}, {"poll_interval_ms": 1}]}),
            "horizon_ms",
            &too_many,
        ),
    ];
    for (value, key, words) in cases {
        let (got_key, message) = refused(value.clone());
        assert_eq!(got_key, key, "{value}: {message}");
        assert!(message.contains(words), "{value}: {key}: {message}");
    }
}

// ---- properties over random scenarios ----

fn producer_strategy() -> impl Strategy<Value = Value> {
    prop_oneof![
        proptest::collection::vec(0u64..6_000, 1..6).prop_map(|mut at| {
            at.sort_unstable();
            json!({"transactional.id": null, "records_at_ms": at})
        }),
        (
            1u64..=8_000,
            proptest::collection::vec((0u64..2_000, 1u32..6, 0u64..60, 0usize..3, 0u64..3_000), 1..4)
        )
            .prop_map(|(timeout_ms, txns)| {
                let mut at = 0u64;
                let n = txns.len();
                let list: Vec<Value> = txns
                    .into_iter()
                    .enumerate()
                    .map(|(j, (gap, records, interval, end, after))| {
                        let begin = at + gap;
                        let last = begin + (records as u64 - 1) * interval;
                        let end_ms = last + after;
                        at = end_ms;
                        // Only the last transaction may end with the producer dying.
                        match (end, j + 1 == n) {
                            (2, true) => json!({"begin_ms": begin, "records": records, "record_interval_ms": interval, "end": "producer_dies"}),
                            (1, _) => json!({"begin_ms": begin, "records": records, "record_interval_ms": interval, "end": "abort", "end_ms": end_ms}),
                            _ => json!({"begin_ms": begin, "records": records, "record_interval_ms": interval, "end": "commit", "end_ms": end_ms}),
                        }
                    })
                    .collect();
                json!({"transaction.timeout.ms": timeout_ms, "transactions": list})
            }),
    ]
}

const CLIENTS: [&str; 7] =
    ["java_classic", "java_consumer_protocol", "librdkafka", "sarama", "franz_go", "kafka_go", "kafkajs"];
const COMMITS: [&str; 3] = ["position", "last_record_plus_one", "auto_commit"];

fn scenario_strategy() -> impl Strategy<Value = Value> {
    (
        proptest::collection::vec(producer_strategy(), 1..4),
        (100u64..=5_000, 0u64..=4_999),
        proptest::collection::vec(
            (0usize..7, 0usize..3, any::<bool>(), 10u64..=700, 1u32..=8, 0u64..=600),
            1..5,
        ),
        proptest::collection::vec((any::<bool>(), 10u64..=700, 1u32..=8), 0..3),
        1_000u64..=30_000,
    )
        .prop_map(|(producers, (interval, phase), readers, shares, horizon)| {
            let producers: Vec<Value> = producers
                .into_iter()
                .enumerate()
                .map(|(i, mut p)| {
                    if p.get("transactions").is_some() {
                        p["transactional.id"] = json!(format!("tx-{i}"));
                    }
                    p
                })
                .collect();
            let readers: Vec<Value> = readers
                .into_iter()
                .map(|(client, commit, rc, poll, max, interval)| {
                    let client = CLIENTS[client];
                    let commit = if client.starts_with("java") || client == "librdkafka" {
                        COMMITS[commit]
                    } else {
                        COMMITS[1 + commit % 2]
                    };
                    let mut r = json!({"client": client, "commit": commit,
                           "isolation.level": if rc { "read_committed" } else { "read_uncommitted" },
                           "poll_interval_ms": poll, "max.poll.records": max});
                    // KafkaJS's autoCommitInterval, set or not (0: unset).
                    if client == "kafkajs" && commit == "auto_commit" && interval > 0 {
                        r["auto.commit.interval.ms"] = json!(interval);
                    }
                    r
                })
                .collect();
            let shares: Vec<Value> = shares
                .into_iter()
                .map(|(rc, poll, max)| {
                    json!({"share.isolation.level": if rc { "read_committed" } else { "read_uncommitted" },
                           "poll_interval_ms": poll, "max.poll.records": max})
                })
                .collect();
            json!({
                "producers": producers,
                "transaction.abort.timed.out.transaction.cleanup.interval.ms": interval,
                "coordinator_scan_phase_ms": phase % interval,
                "readers": readers,
                "share_readers": shares,
                "horizon_ms": horizon,
            })
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The invariants of model.md §13.5 hold at every poll of every reader.
    #[test]
    fn invariants_hold_over_random_scenarios(value in scenario_strategy()) {
        let s = TxnScenario::from_value(&value).map_err(|e| TestCaseError::fail(format!("{value}: {e}")))?;
        let run = simulate_transactions(&s).unwrap();
        let leo = run.log_end_offset;
        prop_assert_eq!(run.log.len() as u64, leo);
        // The LSO never goes back, never passes the high watermark.
        for w in run.last_stable_offset.windows(2) {
            prop_assert!(w[0].offset <= w[1].offset && w[0].at_us < w[1].at_us);
        }
        prop_assert!(run.last_stable_offset.last().unwrap().offset <= leo);
        // The LSO the brute-force way, at every write: the first offset of the transactions
        // begun and not yet ended at that instant, else the high watermark.
        for rec in &run.log {
            let t = rec.at_us;
            let hw = run.log.iter().filter(|r| r.at_us <= t).count() as u64;
            let open = run
                .transactions
                .iter()
                .filter_map(|x| {
                    let first = x.first_offset?;
                    let begun = run.log[first as usize].at_us <= t;
                    let ended = x.ended_at_us.is_some_and(|e| e <= t) && x.marker_offset.is_some();
                    (begun && !ended).then_some(first)
                })
                .min();
            prop_assert_eq!(run.last_stable_offset_at(t), open.unwrap_or(hw), "at {} µs", t);
        }
        // A timeout abort comes at the first scan strictly after start + timeout.
        for a in &run.timed_out_aborts {
            let timeout = value["producers"][a.producer as usize]["transaction.timeout.ms"].as_u64().unwrap() * MS;
            let mut scan = s.scan_phase_us;
            while scan <= a.started_at_us + timeout {
                scan += s.cleanup_interval_us;
            }
            prop_assert_eq!(a.aborted_at_us, scan);
        }
        // Each ended transaction has exactly one marker, after its records.
        for t in &run.transactions {
            let markers = run.log.iter().filter(|r| r.kind != RecordKind::Data && r.producer == t.producer && r.transaction == Some(t.transaction)).count();
            let ended = matches!(t.outcome, TxnOutcome::Committed | TxnOutcome::Aborted | TxnOutcome::TimedOut);
            prop_assert_eq!(markers, usize::from(ended));
            if let (Some(first), Some(marker)) = (t.first_offset, t.marker_offset) {
                prop_assert!(first < marker);
            }
        }
        for r in &run.readers {
            let rc = r.isolation == "read_committed";
            let mut last: Option<u64> = None;
            for h in &r.handed {
                // Each offset at most once, in order.
                prop_assert!(last.is_none_or(|l| h.offset > l), "{}: {} after {:?}", r.name, h.offset, last);
                last = Some(h.offset);
                let entry = &run.log[h.offset as usize];
                prop_assert!(entry.at_us <= h.at_us);
                if r.client != "kafka_go" {
                    // A control record's offset is never handed to the application.
                    prop_assert_eq!(entry.kind, RecordKind::Data, "{} handed a marker", &r.name);
                    prop_assert!(!h.control);
                    if rc {
                        // Aborted (or still open) data never reaches read_committed.
                        prop_assert!(matches!(entry.state, Some(DataState::Committed | DataState::Plain)), "{}: {:?}", &r.name, entry);
                    }
                } else {
                    prop_assert_eq!(h.control, entry.kind != RecordKind::Data);
                }
                if rc {
                    prop_assert!(h.offset < run.last_stable_offset_at(h.at_us));
                }
            }
            // A read_committed reader's position never passes the LSO.
            if rc {
                prop_assert!(r.position <= run.last_stable_offset_at(s.horizon_us), "{}", &r.name);
            } else {
                prop_assert!(r.stalled.is_empty());
            }
            prop_assert!(r.position <= leo);
            for w in r.stalled.windows(2) {
                prop_assert!(w[0].to_us.is_some_and(|to| to < w[1].from_us));
            }
            for st in &r.stalled {
                prop_assert!(st.to_us.is_none_or(|to| st.from_us < to));
            }
            if let Some(c) = r.committed {
                prop_assert!(c <= r.position.max(last.map_or(0, |l| l + 1)));
                prop_assert_eq!(r.lag, Some(leo - c));
            }
            for w in r.committed_steps.windows(2) {
                prop_assert!(w[0].offset <= w[1].offset, "{}: commits go back", &r.name);
            }
        }
        for sr in &run.share_readers {
            for h in &sr.handed {
                let entry = &run.log[h.offset as usize];
                prop_assert_eq!(entry.kind, RecordKind::Data);
                if sr.isolation == "read_committed" {
                    prop_assert!(matches!(entry.state, Some(DataState::Committed | DataState::Plain)));
                    prop_assert!(h.offset < run.last_stable_offset_at(h.at_us));
                }
            }
        }
    }

    /// Same input, same output: a run is a function of its scenario, and its JSON reads back.
    #[test]
    fn runs_are_deterministic(value in scenario_strategy()) {
        let s = TxnScenario::from_value(&value).unwrap();
        let a = simulate_transactions(&s).unwrap();
        let b = simulate_transactions(&TxnScenario::from_value(&s.to_json_value()).unwrap()).unwrap();
        prop_assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
        prop_assert_eq!(a, b);
    }
}
