//! Issue 33 through the binary: `check`'s exit codes and lines, `import` of a sample file,
//! and an MCP round trip (initialize, list tools, call `run` on the defaults).

use assert_cmd::Command;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};

fn bin() -> Command {
    let mut c = Command::cargo_bin("offset-window").unwrap();
    c.env_remove("OFFSET_WINDOW_PAGE_URL");
    c
}

fn samples(name: &str) -> String {
    format!("{}/../import/tests/samples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn check_of_r1_names_25_just_after_5_s() {
    let out = bin().args(["check", "-", "--max-duplicated", "0"]).write_stdin("{}").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text,
        "stdin: duplicated 25 > 0 (--max-duplicated), worst at 5000.001 ms over every crash instant: \
         http://127.0.0.1:8080/#crash_at_us=5000001\n"
    );
}

#[test]
fn check_of_transactional_holds() {
    let out = bin()
        .args(["check", "-", "--max-lost", "0", "--max-duplicated", "0"])
        .write_stdin(r#"{"strategy":"transactional"}"#)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn check_refuses_what_it_cannot_judge_with_2() {
    for (args, stdin) in [
        (vec!["check", "-"], "{}"),
        (vec!["check", "-", "--max-lost", "0"], r#"{"max.poll.records": 0}"#),
        (vec!["check", "-", "--max-lost", "0", "--over", "first-event"], "{}"),
    ] {
        let out = bin().args(&args).write_stdin(stdin).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn check_writes_junit_and_judges_configuration_files() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("report.xml");
    let out = bin()
        .args(["check", &samples("spring-record.yml"), "--max-lost", "0", "--max-duplicated", "1"])
        .args(["--junit", junit.to_str().unwrap(), "--page-url", "https://example.org/ow"])
        .output()
        .unwrap();
    // RECORD: commitSync after each record, a crash repeats at most the record in progress… and
    // one more if the crash falls inside the commit's round trip.
    let text = String::from_utf8_lossy(&out.stdout);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.starts_with("<?xml") && xml.contains("<testsuite name=\"offset-window check\" tests=\"2\""),
        "{xml}"
    );
    assert!(text.contains("https://example.org/ow/"), "{text}");
    assert!(matches!(out.status.code(), Some(0 | 1)));
}

#[test]
fn group_checks_over_the_first_event() {
    let file = format!("{}/../../scenarios/g1-crash-waits-out-the-session.json", env!("CARGO_MANIFEST_DIR"));
    let out =
        bin().args(["check", &file, "--max-duplicated", "0", "--over", "first-event"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("over the first group event's instant") && text.contains("/group/#"), "{text}");
}

#[test]
fn import_prints_the_scenario_and_the_link() {
    let out = bin().args(["import", &samples("spring-record.yml"), "--format", "json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scenario"]["strategy"], "commit_sync_record");
    assert_eq!(v["scenario"]["max.poll.records"], 500);
    let link = v["link"].as_str().unwrap();
    assert!(
        link.starts_with("http://127.0.0.1:8080/#") && link.contains("strategy=commit_sync_record"),
        "{link}"
    );
    // The scenario alone runs.
    let scenario = bin()
        .args(["import", &samples("java-auto-commit.properties"), "--format", "scenario"])
        .output()
        .unwrap();
    let run = bin().args(["run", "-"]).write_stdin(scenario.stdout).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    // A bad value: exit 2, one line naming file, line and property.
    let out = bin().args(["import", &samples("java-bad-value.properties")]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("java-bad-value.properties:4: max.poll.records:"), "{err}");
}

/// Reads JSON-RPC lines until the response with `id`.
fn response(reader: &mut impl BufRead, id: u64) -> Value {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "the server closed before answering {id}");
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["id"] == id {
            return v;
        }
    }
}

#[test]
fn mcp_round_trip_runs_the_defaults() {
    let exe = assert_cmd::cargo::cargo_bin("offset-window");
    let mut child = std::process::Command::new(exe)
        .arg("mcp")
        .env_remove("OFFSET_WINDOW_PAGE_URL")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}));
    let init = response(&mut reader, 1);
    assert_eq!(init["result"]["serverInfo"]["name"], "offset-window", "{init}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let tools = response(&mut reader, 2);
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["run", "compare", "import", "check"]);
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "run", "arguments": {"scenario": {}}}}),
    );
    let run = response(&mut reader, 3);
    let result = &run["result"]["structuredContent"];
    assert_eq!(result["worst"]["duplicated"], 25, "{run}");
    assert_eq!(result["worst"]["duplicated_at_ms"], 5000.001);
    assert_eq!(result["link"], "http://127.0.0.1:8080/");
    send(
        json!({"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "offset-window://scenario-schema"}}),
    );
    let schema = response(&mut reader, 4);
    let text = schema["result"]["contents"][0]["text"].as_str().unwrap();
    let schema: Value = serde_json::from_str(text).unwrap();
    assert_eq!(schema["properties"]["max.poll.records"]["default"], 5);
    // "Would this config lose records on a crash?", asked of a Spring Boot file.
    send(
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "check", "arguments": {
        "paths": [samples("spring-default.yml")], "max_lost": 0}}}),
    );
    let check = response(&mut reader, 5);
    let answer = &check["result"]["structuredContent"];
    assert_eq!(answer["holds"], true, "{check}");
    assert_eq!(answer["bounds"][0]["figure"], "lost");
    assert!(answer["bounds"][0]["link"].as_str().unwrap().contains("strategy=commit_sync_batch"), "{check}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_group_without_events_is_judged_over_a_crash_of_consumer_1() {
    let out = bin()
        .args(["check", "-", "--max-duplicated", "0"])
        .write_stdin(r#"{"partitions": 2, "members": 2, "horizon_ms": 60000}"#)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("worst with consumer-1 crashing at") && text.contains("/group/#"), "{text}");
}
