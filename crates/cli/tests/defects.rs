//! Regression tests for the defects fuzzing found (issue 28, D0–D6), through the binary:
//! exit 0 with a result, or exit 2 with a refusal naming the key — never a panic.

use assert_cmd::Command;
use serde_json::Value;

/// `offset-window <command> -` on `scenario`: exit code, stdout, stderr.
fn offset_window(command: &str, scenario: &str) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("offset-window")
        .unwrap()
        .args([command, "-"])
        .write_stdin(scenario)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

/// The result of `run` on `scenario`, which must succeed.
fn run(scenario: &str) -> Value {
    let (code, stdout, stderr) = offset_window("run", scenario);
    assert_eq!(code, Some(0), "{scenario}: {stderr}");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn d0_an_off_by_one_commit_below_the_log_start_runs_and_compares() {
    let d0 = r#"{"record_processing_ms":1,"log_start_offset":1,"partitions":2,"strategy":"commit_sync_batch","commit_value":"record_offset","group_events":[{"at_ms":1000,"kind":"shutdown","member":1,"restart_after_ms":0}]}"#;
    let result = run(d0);
    assert_eq!(result.pointer("/group/partitions/1/lost"), Some(&Value::from(99_999)));
    let (code, _, stderr) = offset_window("compare", d0);
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn d1_negative_zero_is_zero_in_group_events() {
    let result =
        run(r#"{"members":2,"group_events":[{"at_ms":-0,"member":2,"kind":"crash","restart_after_ms":-0}]}"#);
    assert_eq!(result.pointer("/scenario/group_events/0/at_ms"), Some(&Value::from(0)));
    assert_eq!(result.pointer("/scenario/group_events/0/restart_after_ms"), Some(&Value::from(0)));
}

#[test]
fn d2_a_long_field_name_in_a_group_event_is_echoed_cut_short() {
    let long = "x".repeat(20_000_000);
    let scenario =
        format!(r#"{{"members":2,"group_events":[{{"at_ms":1,"member":2,"kind":"crash","{long}":1}}]}}"#);
    let (code, stdout, stderr) = offset_window("run", &scenario);
    assert_eq!(code, Some(2));
    assert!(stdout.is_empty());
    assert!(stderr.len() < 500, "{} bytes of error", stderr.len());
    assert!(stderr.starts_with("offset-window: group_events[0].xxx"), "{stderr}");
    assert!(stderr.contains("… (20000000 characters): unknown field for a crash event"), "{stderr}");
}

#[test]
fn d4_an_offset_with_a_leading_zero_is_refused_naming_the_key() {
    for scenario in [
        r#"{"record_processing_ms_by_offset":{"1":5,"01":7000}}"#,
        r#"{"record_processing_ms_by_offset":{"+1":5}}"#,
    ] {
        let (code, stdout, stderr) = offset_window("run", scenario);
        assert_eq!(code, Some(2), "{scenario}");
        assert!(stdout.is_empty());
        assert!(stderr.contains("record_processing_ms_by_offset."), "{stderr}");
        assert!(stderr.contains("in plain decimal digits"), "{stderr}");
    }
}

#[test]
fn d6_a_partition_stopped_twice_counts_once() {
    let result = run(
        r#"{"members":2,"partitions":1,"record_failures":[3],"on_error":"stop","horizon_ms":120000,"group_events":[{"at_ms":5000,"member":1,"kind":"crash"}]}"#,
    );
    assert_eq!(result.pointer("/records/stopped_partitions"), Some(&Value::from(1)));
}

#[test]
fn d3_blocked_on_commits_is_a_fraction_in_a_group() {
    let four = r#"{"members":4,"partitions":4,"strategy":"commit_sync_record","commit_latency_ms":50,"record_processing_ms":1,"horizon_ms":10000}"#;
    let result = run(four);
    let mean = result["blocked_on_commits"].as_f64().unwrap();
    assert!((0.97..=1.0).contains(&mean), "{mean}");
    let members = result.pointer("/group/members").unwrap().as_array().unwrap();
    assert_eq!(members.len(), 4);
    for m in members {
        let b = m["blocked_on_commits"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&b), "{b}");
    }
    let out = Command::cargo_bin("offset-window")
        .unwrap()
        .args(["run", "-", "--format", "table"])
        .write_stdin(four)
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("blocked on commits: 98.0 % on average (consumer-1 98.0 %"), "{table}");
}
