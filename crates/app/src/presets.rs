//! The scenario files of `scenarios/` offered as presets: each file's scenario, its
//! one-line description (ours), the public report it came from, and the values it expects,
//! which the page shows next to what the core computes now.

use offset_window_sim::Input;
use serde_json::Value;

/// Every file of `scenarios/`: (name, JSON text), in name order.
pub const PRESETS: &[(&str, &str)] = &[
    ("r01-defaults", include_str!("../../../scenarios/r01-defaults.json")),
    ("r02-commit-sync-batch", include_str!("../../../scenarios/r02-commit-sync-batch.json")),
    ("r03-big-batch-auto-commit", include_str!("../../../scenarios/r03-big-batch-auto-commit.json")),
    ("r04-big-batch-commit-sync", include_str!("../../../scenarios/r04-big-batch-commit-sync.json")),
    ("r05-short-interval", include_str!("../../../scenarios/r05-short-interval.json")),
    ("r06-pool-auto-commit", include_str!("../../../scenarios/r06-pool-auto-commit.json")),
    ("r07-pool-commit-sync", include_str!("../../../scenarios/r07-pool-commit-sync.json")),
    ("r08-transactional", include_str!("../../../scenarios/r08-transactional.json")),
    ("r09-blocked-batch", include_str!("../../../scenarios/r09-blocked-batch.json")),
    ("r10-blocked-record", include_str!("../../../scenarios/r10-blocked-record.json")),
    ("s8-book-lab-script", include_str!("../../../scenarios/s8-book-lab-script.json")),
    ("s8-close-commits-unprocessed", include_str!("../../../scenarios/s8-close-commits-unprocessed.json")),
    ("s8-crash-instead-of-close", include_str!("../../../scenarios/s8-crash-instead-of-close.json")),
    ("s8-java-500-records", include_str!("../../../scenarios/s8-java-500-records.json")),
    ("s8-java-slow-records", include_str!("../../../scenarios/s8-java-slow-records.json")),
    ("s8-kip848-after-fix", include_str!("../../../scenarios/s8-kip848-after-fix.json")),
    ("s8-kip848-before-fix", include_str!("../../../scenarios/s8-kip848-before-fix.json")),
    ("s8-librdkafka-background", include_str!("../../../scenarios/s8-librdkafka-background.json")),
    (
        "s8-librdkafka-store-after-processing",
        include_str!("../../../scenarios/s8-librdkafka-store-after-processing.json"),
    ),
    ("s8-next-offset-commit", include_str!("../../../scenarios/s8-next-offset-commit.json")),
    ("s8-off-by-one-commit", include_str!("../../../scenarios/s8-off-by-one-commit.json")),
    ("s8-offset-expiry-earliest", include_str!("../../../scenarios/s8-offset-expiry-earliest.json")),
    ("s8-offset-expiry-latest", include_str!("../../../scenarios/s8-offset-expiry-latest.json")),
    ("s8-poll-interval-fits", include_str!("../../../scenarios/s8-poll-interval-fits.json")),
    ("s8-poll-interval-livelock", include_str!("../../../scenarios/s8-poll-interval-livelock.json")),
    (
        "s8-transactional-read-committed",
        include_str!("../../../scenarios/s8-transactional-read-committed.json"),
    ),
    (
        "s8-transactional-read-uncommitted",
        include_str!("../../../scenarios/s8-transactional-read-uncommitted.json"),
    ),
];

fn file(index: usize) -> Option<Value> {
    PRESETS.get(index).and_then(|(_, text)| serde_json::from_str(text).ok())
}

/// The preset's scenario and its own crash instant, if the file reads.
pub fn scenario(index: usize) -> Option<Input> {
    Input::from_value(file(index)?.get("scenario")?).ok()
}

/// The preset's index by file name (`s8-kip848-before-fix`).
pub fn by_name(name: &str) -> Option<usize> {
    PRESETS.iter().position(|(n, _)| *n == name)
}

/// The description and source address (empty when none).
pub fn describe(index: usize) -> (String, String) {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    file(index).map(|v| (text(&v, "description"), text(&v, "source"))).unwrap_or_default()
}

/// The expected values: (JSON pointer into the result, value).
pub fn expected(index: usize) -> Vec<(String, Value)> {
    match file(index).and_then(|v| v.get("expect").cloned()) {
        Some(Value::Object(map)) => map.into_iter().collect(),
        _ => Vec::new(),
    }
}
