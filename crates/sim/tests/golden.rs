//! Golden results: the summary, crash profile and three lines of a set of scenarios, held
//! in `tests/golden/runs.json`. The same test runs natively and as wasm32 (in Node, via
//! `wasm-bindgen-test`), so it proves both platforms give identical bytes.
//!
//! After an intended change of the model: `UPDATE_GOLDEN=1 cargo test -p offset-window-sim --test golden`.

use offset_window_sim::{simulate, Input};
use serde_json::json;

const GOLDEN: &str = include_str!("golden/runs.json");

/// model.md §7's R1–R10, worker-pool scenarios where records complete out of order, and
/// the groups, share groups and per-record outcomes of §§10–12.
const SCENARIOS: &[&str] = &[
    r#"{}"#,
    r#"{"strategy": "commit_sync_batch"}"#,
    r#"{"max.poll.records": 25}"#,
    r#"{"max.poll.records": 25, "strategy": "commit_sync_batch"}"#,
    r#"{"max.poll.records": 25, "auto.commit.interval.ms": 100}"#,
    r#"{"worker_pool": true, "crash_at_ms": 5010}"#,
    r#"{"worker_pool": true, "crash_at_ms": 5010, "strategy": "commit_sync_batch"}"#,
    r#"{"strategy": "transactional"}"#,
    r#"{"record_processing_ms": 50, "max.poll.records": 25, "strategy": "commit_sync_batch"}"#,
    r#"{"record_processing_ms": 50, "max.poll.records": 25, "strategy": "commit_sync_record"}"#,
    r#"{"worker_pool": true, "pool_threads": 3, "strategy": "commit_async_batch", "record_processing_ms": 123.457}"#,
    r#"{"worker_pool": true, "pool_threads": 2, "strategy": "commit_sync_every_n", "commit_every_records": 7}"#,
    r#"{"worker_pool": true, "pool_threads": 4, "pool_max_in_flight_batches": 6, "strategy": "commit_sync_record"}"#,
    r#"{"strategy": "commit_sync_every_n", "commit_every_records": 3, "log_end_offset": 33, "commit_latency_ms": 0}"#,
    // model.md §10: G1, a cooperative scale-out and a consumer-protocol crash.
    r#"{"partitions": 2, "members": 2, "horizon_ms": 60000, "group_events": [{"at_ms": 8200, "member": 2, "kind": "crash"}]}"#,
    r#"{"partitions": 4, "members": 2, "horizon_ms": 30000, "partition.assignment.strategy": "cooperative-sticky", "group_events": [{"at_ms": 8200, "member": 3, "kind": "join"}]}"#,
    r#"{"partitions": 3, "members": 2, "horizon_ms": 30000, "client": "java_consumer_protocol", "worker_pool": true, "group_events": [{"at_ms": 4100, "member": 1, "kind": "crash", "restart_after_ms": 3000}]}"#, // model.md §11: share groups (seeded failures, a crash, a hang past the lock).
    r#"{"consumption": "share_group", "members": 3, "partitions": 2, "share.acknowledgement.mode": "explicit", "record_failure_probability": 0.05, "on_error": "release", "seed": 9, "horizon_ms": 60000, "group_events": [{"at_ms": 4100, "member": 2, "kind": "crash", "restart_after_ms": 2000}, {"at_ms": 9000, "member": 3, "kind": "hang", "duration_ms": 35000}]}"#,
    // model.md §12: seeded failures under Spring's error handler; pools out of order.
    r#"{"record_failure_probability": 0.1, "seed": 4, "on_error": "seek_to_failed", "strategy": "commit_sync_count", "commit_every_records": 3, "max_deliveries": 3, "dead_letter": true}"#,
    r#"{"worker_pool": true, "pool_threads": 5, "ordering": "key", "keys": 3, "pool_commit": "contiguous_completed", "record_processing_jitter": "exponential", "record_failure_probability": 0.05, "on_error": "retry", "seed": 11, "max.poll.records": 20}"#,
    r#"{"worker_pool": true, "pool_threads": 3, "ordering": "unordered", "pool_commit": "highest_completed", "record_processing_ms_by_offset": {"2": 2500, "9": 900}, "strategy": "auto_commit_background", "auto.commit.interval.ms": 700}"#,
];

/// One line of JSON for `text`'s scenario; `None` when a build without the `group` feature
/// refuses it (a group or share-group scenario).
fn line(text: &str) -> Option<String> {
    let input = match Input::from_json(text) {
        Ok(input) => input,
        Err(e) if !cfg!(feature = "group") => {
            let key = e.key.as_deref().unwrap_or_default();
            assert!(["members", "partitions", "group_events", "consumption"].contains(&key), "{e}");
            return None;
        }
        Err(e) => panic!("{e}"),
    };
    let run = simulate(&input.scenario).unwrap();
    #[cfg(feature = "group")]
    let group = json!(run.group);
    #[cfg(not(feature = "group"))]
    let group = serde_json::Value::Null;
    let lines = run.lines();
    Some(
        json!({
            "input": text,
            "summary": run.summary_at(input.crash_at_us),
            "group": group,
            "profile": lines.profile,
            "position": lines.position,
            "durable_frontier": lines.durable_frontier,
            "committed": lines.committed,
            "marks": run.marks.len(),
        })
        .to_string()
            + "\n",
    )
}

/// Every scenario's line, as the golden file holds them.
#[cfg(feature = "group")]
fn compute() -> String {
    SCENARIOS.iter().map(|text| line(text).unwrap()).collect()
}

#[cfg(feature = "group")]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn runs_match_the_golden_file() {
    let actual = compute();
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/runs.json"), &actual).unwrap();
        return;
    }
    assert!(
        actual == GOLDEN,
        "runs differ from tests/golden/runs.json (UPDATE_GOLDEN=1 to refresh after an intended change):\n{}",
        diff(&actual, GOLDEN)
    );
}

/// What differs, line by line: each scenario whose line moved, and the first values that moved
/// in it, by their path in the line's JSON (golden → now).
fn diff(actual: &str, golden: &str) -> String {
    let (now, was): (Vec<&str>, Vec<&str>) = (actual.lines().collect(), golden.lines().collect());
    let mut out = String::new();
    if now.len() != was.len() {
        out += &format!("{} lines now, {} in the golden file\n", now.len(), was.len());
    }
    for (i, (now, was)) in now.iter().zip(&was).enumerate().filter(|(_, (a, b))| a != b) {
        let parse = |line: &str| serde_json::from_str::<serde_json::Value>(line).unwrap_or_default();
        let (now, was) = (parse(now), parse(was));
        out += &format!("line {} {}:\n", i + 1, now["input"]);
        let mut moved = Vec::new();
        leaves_moved("", &was, &now, &mut moved);
        for m in moved.iter().take(12) {
            out += &format!("  {m}\n");
        }
        if moved.len() > 12 {
            out += &format!("  … and {} more\n", moved.len() - 12);
        }
    }
    out
}

fn leaves_moved(path: &str, was: &serde_json::Value, now: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value;
    match (was, now) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => leaves_moved(&format!("{path}.{k}"), x, y, out),
                    (x, y) => out.push(format!(
                        "{path}.{k}: {} → {}",
                        x.map_or("absent".into(), |v| v.to_string()),
                        y.map_or("absent".into(), |v| v.to_string())
                    )),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                out.push(format!("{path}: {} items → {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                leaves_moved(&format!("{path}[{i}]"), x, y, out);
            }
        }
        (a, b) if a != b => out.push(format!("{path}: {a} → {b}")),
        _ => {}
    }
}

/// Without the `group` feature (the one-consumer page's build): every one-consumer scenario
/// gives exactly its golden line, and the four group and share-group ones are refused.
#[cfg(not(feature = "group"))]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn one_consumer_runs_match_the_golden_file_without_groups() {
    let golden: Vec<&str> = GOLDEN.split_inclusive('\n').collect();
    assert_eq!(golden.len(), SCENARIOS.len());
    let mut refused = 0;
    for (text, want) in SCENARIOS.iter().zip(golden) {
        match line(text) {
            Some(actual) => {
                assert!(actual == want, "{text} differs from its golden line:\n{}", diff(&actual, want))
            }
            None => refused += 1,
        }
    }
    assert_eq!(refused, 4);
}
