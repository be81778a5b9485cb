//! `offset-window produce` end to end: model.md §9's reference numbers through the binary, and
//! its refusals.

use assert_cmd::Command;
use serde_json::Value;

fn produce(scenario: &str) -> Value {
    let out = Command::cargo_bin("offset-window")
        .unwrap()
        .args(["produce", "-"])
        .write_stdin(scenario)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn refused(scenario: &str) -> String {
    let out = Command::cargo_bin("offset-window")
        .unwrap()
        .args(["produce", "-"])
        .write_stdin(scenario)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn spec_reference_through_the_binary() {
    let ack_lost = r#""faults": [{"kind": "ack_lost", "batch": 1}]"#;
    let restart = r#"{"kind": "producer_restart", "at_ms": 20000}"#;
    let cases = [
        (format!(r#"{{"enable.idempotence": false, {ack_lost}}}"#), 25, 5),
        (format!("{{{ack_lost}}}"), 20, 0),
        (
            format!(
                r#"{{"enable.idempotence": false, "faults": [{{"kind": "ack_lost", "batch": 1}}, {restart}]}}"#
            ),
            25,
            5,
        ),
        (format!(r#"{{"faults": [{{"kind": "ack_lost", "batch": 1}}, {restart}]}}"#), 25, 5),
    ];
    for (scenario, records, twice) in cases {
        let result = produce(&scenario);
        assert_eq!(result["counters"]["log_records"], records, "{scenario}");
        assert_eq!(result["counters"]["records_written_twice"], twice, "{scenario}");
    }
}

#[test]
fn the_result_has_log_batches_memory_and_counters() {
    let result = produce("{}");
    assert_eq!(result["idempotence"], true);
    assert_eq!(
        result["log"][1],
        serde_json::json!({"offset": 5, "batch": 2, "pid": 1000, "epoch": 1, "sequence": 5,
                           "records": [5, 6, 7, 8, 9], "appended_at_us": 5000,
                           "duplicate_of": null, "source": "producer"})
    );
    assert_eq!(result["batches"].as_array().unwrap().len(), 4);
    assert_eq!(result["batches"][0]["attempts"][0]["result"], "acknowledged");
    assert_eq!(result["broker_memory"][0]["batches"].as_array().unwrap().len(), 4);
    assert_eq!(result["counters"]["records_never_written"], 0);
    assert_eq!(result["notes"], serde_json::json!([]));
}

#[test]
fn java_refusals_name_the_setting_and_exit_2() {
    assert_eq!(
        refused(r#"{"enable.idempotence": true, "acks": "1"}"#),
        "offset-window: acks: Must set acks to all in order to use the idempotent producer. \
         Otherwise we cannot guarantee idempotence.\n"
    );
    assert!(refused(r#"{"enable.idempotence": true, "max.in.flight.requests.per.connection": 6}"#)
        .starts_with("offset-window: max.in.flight.requests.per.connection: To use the idempotent producer"));
    assert_eq!(
        refused(r#"{"batch.size": -1}"#),
        "offset-window: batch.size: must be a whole number from 1 to 10000 (got -1)\n"
    );
    assert!(refused("not json").starts_with("offset-window: not valid JSON"));
}

#[test]
fn default_idempotence_with_acks_1_prints_a_note() {
    let result = produce(r#"{"acks": "1"}"#);
    assert_eq!(result["idempotence"], false);
    assert!(result["notes"][0].as_str().unwrap().starts_with("Idempotence is off"));
}

#[test]
fn reads_a_file_and_prints_a_table() {
    let dir = std::env::temp_dir().join(format!("offset-window-produce-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("producer.json");
    std::fs::write(&file, r#"{"enable.idempotence": false, "faults": [{"kind": "ack_lost", "batch": 1}]}"#)
        .unwrap();
    let out = Command::cargo_bin("offset-window")
        .unwrap()
        .args(["produce", "--format", "table"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("records in the log           25"), "{text}");
    assert!(text.contains("records written twice        5"), "{text}");
    assert!(text.contains("(again; first at offset 0)"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
