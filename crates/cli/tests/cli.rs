//! The runner end to end: model.md §7 through `offset-window run -`, and its errors.

use assert_cmd::Command;
use serde_json::Value;

fn run(scenario: &str) -> Value {
    let out = Command::cargo_bin("offset-window")
        .unwrap()
        .args(["run", "-"])
        .write_stdin(scenario)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn r1_defaults_print_the_spec_result() {
    let result = run("{}");
    assert_eq!(
        result["at_crash"],
        serde_json::json!({"position": 45, "durable": 40, "committed": 25, "lost": 0, "duplicated": 15, "reread": 20})
    );
    assert_eq!(
        result["worst"],
        serde_json::json!({"lost": 0, "lost_at_ms": null, "duplicated": 25, "duplicated_at_ms": 5000.001,
            "lost_at_horizon_end": false, "duplicated_at_horizon_end": false})
    );
    // A worst instant the horizon cuts says so, in the JSON and the table (model.md §5).
    let cut = run(r#"{"max.poll.records": 500, "record_processing_ms": 30}"#);
    assert_eq!(cut["worst"]["duplicated"], 399);
    assert_eq!(cut["worst"]["duplicated_at_horizon_end"], true);
    assert_eq!(result["blocked_on_commits"], 0.0);
}

#[test]
fn reference_scenarios_through_the_binary() {
    let cases = [
        (r#"{"strategy":"commit_sync_batch"}"#, "/worst/duplicated", 5),
        (r#"{"max.poll.records":25}"#, "/worst/duplicated", 25),
        (r#"{"max.poll.records":25,"strategy":"commit_sync_batch"}"#, "/worst/duplicated", 25),
        (r#"{"max.poll.records":25,"auto.commit.interval.ms":100}"#, "/worst/duplicated", 25),
        (r#"{"worker_pool":true,"crash_at_ms":5010}"#, "/at_crash/lost", 10),
        (r#"{"worker_pool":true,"crash_at_ms":5010,"strategy":"commit_sync_batch"}"#, "/at_crash/lost", 15),
        (r#"{"strategy":"transactional"}"#, "/at_crash/reread", 5),
        (r#"{"strategy":"transactional"}"#, "/worst/duplicated", 0),
        (r#"{"strategy":"transactional"}"#, "/worst/lost", 0),
    ];
    for (scenario, pointer, expected) in cases {
        assert_eq!(run(scenario).pointer(pointer), Some(&Value::from(expected)), "{scenario} {pointer}");
    }
    let blocked = |s: &str| format!("{:.1}", run(s)["blocked_on_commits"].as_f64().unwrap() * 100.0);
    let r9 = r#"{"record_processing_ms":50,"max.poll.records":25,"strategy":"commit_sync_batch"}"#;
    assert_eq!(blocked(r9), "0.4");
    assert_eq!(blocked(&r9.replace("commit_sync_batch", "commit_sync_record")), "9.1");
}

#[test]
fn reads_a_file_and_prints_a_table() {
    let dir = std::env::temp_dir().join(format!("offset-window-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("scenario.json");
    std::fs::write(&file, r#"{"strategy":"commit_sync_batch","crash_at_ms":1000.001}"#).unwrap();
    let out = Command::cargo_bin("offset-window")
        .unwrap()
        .args(["run", file.to_str().unwrap(), "--format", "table"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("crash at                     1000.001 ms"), "{text}");
    assert!(text.contains("duplicated                   5\n"), "{text}");
}

#[test]
fn a_key_the_client_does_not_read_is_noted_not_ignored() {
    let note = |scenario: &str| {
        let out = Command::cargo_bin("offset-window")
            .unwrap()
            .args(["run", "-"])
            .write_stdin(scenario.to_string())
            .output()
            .unwrap();
        assert!(out.status.success(), "{scenario}");
        String::from_utf8(out.stderr).unwrap()
    };
    let kafkajs = note(r#"{"client": "kafkajs", "max.poll.records": 25}"#);
    assert!(
        kafkajs.contains("note: stdin: max.poll.records is not read: a KafkaJS batch is one fetch"),
        "{kafkajs}"
    );
    let manual = note(r#"{"strategy": "commit_sync_batch", "auto.commit.interval.ms": 100}"#);
    assert!(
        manual.contains("auto.commit.interval.ms is not read: the application commits itself"),
        "{manual}"
    );
    assert_eq!(note(r#"{"max.poll.records": 25, "auto.commit.interval.ms": 100}"#), "");
}

#[test]
fn bad_input_exits_non_zero_naming_the_key() {
    for (scenario, message) in [
        (r#"{"max.poll.records": 0}"#, "max.poll.records: must be a whole number from 1 to 100000 (got 0)"),
        (r#"{"colour": "red"}"#, "colour: unknown key"),
        (r#"{"record_processing_ms": 1.0001}"#, "record_processing_ms: `1.0001` has more than 3 decimals"),
        (
            r#"{"record_processing_ms": -1}"#,
            "record_processing_ms: must be a number of milliseconds from 0.001 to 600000",
        ),
        ("not json", "not valid JSON"),
    ] {
        let out = Command::cargo_bin("offset-window")
            .unwrap()
            .args(["run", "-"])
            .write_stdin(scenario)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{scenario}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(message), "{scenario}: {stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn a_refused_value_is_echoed_cut_short() {
    let huge = format!(r#"{{"strategy": "{}"}}"#, "x".repeat(20_000_000));
    let out =
        Command::cargo_bin("offset-window").unwrap().args(["run", "-"]).write_stdin(huge).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    // The message names every strategy (19 with KafkaJS's eachBatch two): ≈ 520 bytes.
    assert!(stderr.len() < 600, "{} bytes of error", stderr.len());
    assert!(stderr.contains("… (20000002 characters)"), "{stderr}");
}

#[test]
fn negative_zero_is_zero() {
    let result = run(r#"{"log_start_offset": -0, "commit_latency_ms": -0}"#);
    assert_eq!(result["scenario"]["commit_latency_ms"], 0);
}

#[test]
fn a_closed_stdout_ends_quietly() {
    // `offset-window produce - | head -c 1`: the reader is gone before the result is written.
    use std::io::Write;
    use std::process::Stdio;
    for command in ["run", "produce"] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("offset-window"))
            .args([command, "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        child.stdin.take().unwrap().write_all(b"{}").unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(out.status.success() && stderr.is_empty(), "{command}: {:?} {stderr}", out.status);
    }
}

#[test]
fn help_explains_every_key_with_unit_and_default() {
    let out = Command::cargo_bin("offset-window").unwrap().arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    for key in offset_window_sim::scenario::KEYS {
        assert!(help.contains(&format!("  {}", key.name)), "{} missing from --help", key.name);
    }
    assert!(help.contains("max.poll.records (records): default 5\n"), "{help}");
    assert!(help.contains("; a whole number from 1 to 100000\n"), "{help}");
    assert!(help.contains("record_processing_ms (ms): default 200"), "{help}");
    assert!(help.contains("  close_at_ms (ms): default empty\n"), "{help}");
    assert!(help.contains("  crash_at_ms (ms): default 8200\n"), "{help}");
}

#[test]
fn compare_runs_each_client_on_the_same_crash() {
    let scenario = r#"{"max.poll.records":1,"record_processing_ms":3000,"auto.commit.interval.ms":5000,"crash_at_ms":5500}"#;
    let out = Command::cargo_bin("offset-window")
        .unwrap()
        .args(["compare", "-"])
        .write_stdin(scenario)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let first_three: Vec<(String, u64, u64)> = rows.as_array().unwrap()[..5]
        .iter()
        .filter(|r| r["client"] == "java_classic" || r["client"] == "librdkafka")
        .map(|r| {
            (
                format!("{}/{}", r["client"].as_str().unwrap(), r["strategy"].as_str().unwrap()),
                r["lost"].as_u64().unwrap(),
                r["duplicated"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        first_three,
        [
            ("java_classic/auto_commit".to_string(), 0, 1),
            ("librdkafka/auto_commit".to_string(), 1, 0),
            ("librdkafka/store_offsets_after_processing".to_string(), 0, 0)
        ]
    );
}

#[test]
fn a_share_comparison_says_why_a_mode_is_left_out() {
    let out = Command::cargo_bin("offset-window")
        .unwrap()
        .args(["compare", "../../scenarios/share-explicit-reject.json", "--format", "table"])
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("explicit    commit_sync_record"), "{table}");
    assert!(
        table.contains("implicit mode left out: on_error: release and reject are acknowledgements"),
        "{table}"
    );
}

#[test]
fn a_group_prints_its_handovers_and_compares_protocols() {
    let g1 = r#"{"partitions":2,"members":2,"horizon_ms":60000,"group_events":[{"at_ms":8200,"member":2,"kind":"crash"}]}"#;
    let result = run(g1);
    assert!(result.get("at_crash").is_none(), "a group has no single crash instant");
    assert_eq!(result["group"]["partitions"][1]["duplicated"], 15);
    assert_eq!(result["group"]["handovers"][1]["from"], 2);
    assert_eq!(result["group"]["first_event"]["worst_duplicated"], 25);
    let out = Command::cargo_bin("offset-window")
        .unwrap()
        .args(["compare", "-", "--format", "table"])
        .write_stdin(g1)
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table
            .contains("consumer protocol (KIP-848)     no           0          15         51800           1"),
        "{table}"
    );
    // The libraries modelled in a group, each with its own balancer (model.md §8.14): KafkaJS
    // commits after each batch, so orders-1 repeats everything consumer-2 did.
    assert!(table.contains("franz-go, cooperative sticky"), "{table}");
    assert!(table.contains("KafkaJS, round robin (eager)    no           0          40"), "{table}");
    // kafka-go's ReadMessage committed the message consumer-2 had in hand: lost, not repeated.
    assert!(table.contains("kafka-go, range (eager)         no           1           0"), "{table}");
    let refused = Command::cargo_bin("offset-window")
        .unwrap()
        .args(["run", "-"])
        .write_stdin(r#"{"members":2,"crash_at_ms":100}"#)
        .output()
        .unwrap();
    assert!(String::from_utf8(refused.stderr)
        .unwrap()
        .contains("crash_at_ms: is not read in a consumer group"));
}

#[test]
fn transactions_runs_a_file_and_refuses_by_key() {
    let file =
        format!("{}/../../scenarios/txn-committed-batch-lag-per-client.json", env!("CARGO_MANIFEST_DIR"));
    let out = Command::cargo_bin("offset-window").unwrap().args(["transactions", &file]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["log"][5]["kind"], "commit_marker");
    assert_eq!(result["readers"][1]["lag"], 1);
    let table = Command::cargo_bin("offset-window")
        .unwrap()
        .args(["transactions", &file, "--format", "table"])
        .output()
        .unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.contains("commit_marker") && table.contains("spring-last-plus-one"), "{table}");
    for (input, key) in [
        (r#"{"producers": []}"#, "offset-window: producers: must be a list of 1 to 16 producers"),
        (
            r#"{"producers": [{"records_at_ms": [1]}], "readers": [{"client": "kafkajs", "commit": "position"}]}"#,
            "offset-window: readers[0].commit: commit \"position\" is refused for kafkajs",
        ),
        (
            r#"{"producers": [{"records_at_ms": [1]}], "horizon_ms": -1}"#,
            "offset-window: horizon_ms: must be",
        ),
    ] {
        let out = Command::cargo_bin("offset-window")
            .unwrap()
            .args(["transactions", "-"])
            .write_stdin(input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{input}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.starts_with(key), "{input}: {stderr}");
    }
    let help =
        Command::cargo_bin("offset-window").unwrap().args(["transactions", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    for key in offset_window_sim::transactions::TXN_KEYS {
        assert!(help.contains(&format!("  {}", key.name)), "{} missing from transactions --help", key.name);
    }
    assert!(
        help.contains("  transaction.abort.timed.out.transaction.cleanup.interval.ms (ms): default 10000\n"),
        "{help}"
    );
    assert!(help.contains("    isolation.level: default \"read_uncommitted\"\n"), "{help}");
}
