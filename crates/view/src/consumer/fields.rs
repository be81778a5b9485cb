//! The scenario fields the page shows, in its words: each key's label (Kafka's property
//! name where there is one, else words, never an identifier), its unit, a one-line hint
//! and the comfortable range of its slider. Messages about a field name it by its label.

use crate::kit::fields::{field as f, Field};
/// The numeric fields, in the order the page shows them.
pub const FIELDS: &[Field] = &[
    f(
        "max.poll.records",
        "max.poll.records",
        true,
        "records",
        "records one poll() returns while the backlog lasts",
        Some((1, 50, 1)),
        false,
    ),
    f(
        "auto.commit.interval.ms",
        "auto.commit.interval.ms",
        true,
        "ms",
        "the auto-commit timer; the Java classic client checks it only inside poll()",
        Some((100, 12_000, 100)),
        false,
    ),
    f(
        "record_processing_ms",
        "record processing time",
        false,
        "ms",
        "how long one record takes",
        Some((10, 1_000, 10)),
        false,
    ),
    f(
        "commit_latency_ms",
        "commit latency (OffsetCommit round trip)",
        false,
        "ms",
        "from sending a commit to the coordinator storing it",
        Some((0, 500, 1)),
        true,
    ),
    f(
        "pool_max_in_flight_batches",
        "pool capacity (batches in flight)",
        false,
        "batches",
        "batches in the pool before the loop waits to poll",
        Some((1, 16, 1)),
        true,
    ),
    f("pool_threads", "pool threads", false, "threads", "worker threads of the pool", Some((1, 16, 1)), true),
    f(
        "horizon_ms",
        "horizon (simulated time shown)",
        false,
        "ms",
        "how much simulated time the chart shows",
        Some((1_000, 60_000, 1_000)),
        true,
    ),
    f(
        "max.poll.interval.ms",
        "max.poll.interval.ms",
        true,
        "ms",
        "a member that does not poll for this long is evicted from the group",
        Some((1_000, 300_000, 1_000)),
        true,
    ),
    f(
        "close_at_ms",
        "close() at",
        false,
        "ms",
        "a graceful close() at this instant; leave it empty and the consumer never closes",
        None,
        true,
    ),
];

/// The numeric fields that show only when they apply (docs/model.md §12): beside the
/// strategy that reads them (`commit_every_records`, `commit_every_ms`), the pool's
/// ordering (`keys`), or the error handling that uses them. Not in [`FIELDS`]: the page
/// places each one itself.
pub const RECORD_FIELDS: &[Field] = &[
    f(
        "commit_every_records",
        "commit every N records",
        false,
        "records",
        "records between commits (Spring's ackCount for COUNT)",
        Some((1, 100, 1)),
        false,
    ),
    f(
        "commit_every_ms",
        "commit every T (Spring's ackTime)",
        false,
        "ms",
        "a commit once more than this has passed since the last one",
        Some((100, 10_000, 100)),
        false,
    ),
    f(
        "keys",
        "keys",
        false,
        "keys",
        "record n has key n mod keys; records of one key run one at a time, in order",
        Some((1, 64, 1)),
        false,
    ),
    f(
        "record_failure_probability",
        "chance that any attempt throws",
        false,
        "0 to 1",
        "each attempt at any record throws with this chance, drawn from the seed",
        None,
        false,
    ),
    f(
        "error_retries",
        "retries",
        false,
        "attempts",
        "attempts after the first one; then the record is given up (skipped)",
        Some((0, 10, 1)),
        false,
    ),
    f(
        "error_retry_backoff_ms",
        "wait between attempts",
        false,
        "ms",
        "the thread waits this long before each retry, holding its records",
        Some((0, 5_000, 100)),
        false,
    ),
    f(
        "max_deliveries",
        "deliveries before giving up",
        false,
        "deliveries",
        "Spring's DefaultErrorHandler gives up at the 10th delivery (FixedBackOff(0, 9))",
        Some((1, 20, 1)),
        false,
    ),
];

/// The labels of the other keys the page shows (choices, boxes and the records' text
/// fields).
const OTHER_LABELS: &[(&str, &str)] = &[
    ("strategy", "commit strategy"),
    ("client", "client"),
    ("worker_pool", "worker pool"),
    ("commit_value", "manual commits send"),
    ("isolation.level", "isolation.level of the output's reader"),
    ("record_failures", "records that throw"),
    ("record_processing_ms_by_offset", "slow records"),
    ("on_error", "what happens to a record that throws"),
    ("dead_letter", "dead-letter topic"),
    ("ack_on_error", "acknowledge a record given up on (Spring's ackOnError)"),
    ("spring_ack_check", "when Spring checks the count or the time"),
    ("pool_commit", "what the pool's commits carry"),
    ("ordering", "how the pool hands out records"),
];

/// What an option of a named-choice key says: the core's label, but in words where the
/// core's label is Kafka's value itself (`isolation.level`).
pub fn option_label(key: &str, name: &'static str, core_label: &'static str) -> &'static str {
    match (key, name) {
        ("isolation.level", "read_committed") => "read_committed: aborted outputs stay hidden",
        ("isolation.level", "read_uncommitted") => {
            "read_uncommitted (Kafka's default): aborted outputs are read"
        }
        ("on_error", "log_and_continue") => "log it and go on: the record is skipped",
        ("on_error", "retry") => "retry it, then skip it",
        ("on_error", "seek_to_failed") => "seek back and deliver it again (Spring's DefaultErrorHandler)",
        ("on_error", "stop") => "stop the partition",
        ("on_error", "retry_batch") => {
            "run the whole batch again (Spring's batch listener), then skip the rest"
        }
        ("pool_commit", "handed_out") => "what was handed to the pool",
        ("pool_commit", "highest_completed") => "the highest finished offset + 1 (passes unfinished records)",
        ("pool_commit", "contiguous_completed") => {
            "the lowest unfinished offset (Parallel Consumer, Spring's out-of-order acks)"
        }
        ("ordering", "batch") => "whole batches, one per thread",
        ("ordering", "partition") => "one record of the partition at a time (Parallel Consumer PARTITION)",
        ("ordering", "key") => "one record per key at a time (Parallel Consumer KEY)",
        ("ordering", "unordered") => "any record on any thread (Parallel Consumer UNORDERED)",
        ("spring_ack_check", "after_record") => "after each record (Spring Kafka 3.1 and later)",
        ("spring_ack_check", "after_poll") => "once the whole poll is done (before Spring Kafka 3.1)",
        _ => core_label,
    }
}

/// What the page calls value `name` of the named-choice key `key`: [`option_label`] of the
/// core's label; the name itself for a name the key does not have (a link can hold one) or a
/// key the page does not show.
pub fn choice_label<'a>(key: &str, name: &'a str) -> &'a str {
    use offset_window_sim::scenario::{AckCheck, CommitValue, IsolationLevel, OnError, Ordering, PoolCommit};
    use offset_window_sim::{Client, Strategy};
    macro_rules! from {
        ($($key:literal => $enum:ident),+) => {
            match key {
                $($key => $enum::from_name(name).map(|v| option_label(key, v.name(), v.label())),)+
                _ => None,
            }
        };
    }
    from!(
        "strategy" => Strategy, "client" => Client, "commit_value" => CommitValue,
        "isolation.level" => IsolationLevel, "on_error" => OnError, "pool_commit" => PoolCommit,
        "ordering" => Ordering, "spring_ack_check" => AckCheck
    )
    .unwrap_or(name)
}

/// The field of `key`, if the page shows it as a number.
pub fn field(key: &str) -> Option<&'static Field> {
    FIELDS.iter().chain(RECORD_FIELDS).find(|f| f.key == key)
}

/// What the page calls `key`: its label, or the key itself for keys the page does not show
/// (a link can still set them).
pub fn label(key: &str) -> &str {
    field(key)
        .map(|f| f.label)
        .or_else(|| OTHER_LABELS.iter().find(|(k, _)| *k == key).map(|(_, l)| *l))
        .unwrap_or(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_is_a_core_key_and_labels_are_words() {
        for f in FIELDS.iter().chain(RECORD_FIELDS) {
            assert!(offset_window_sim::scenario::key_spec(f.key).is_some(), "{}", f.key);
            assert!(f.kafka || !f.label.contains('_'), "{}", f.label);
            assert!(!f.hint.contains('_'), "{}", f.hint);
        }
        use offset_window_sim::scenario::{
            AckCheck, CommitValue, IsolationLevel, OnError, Ordering, PoolCommit,
        };
        let options = CommitValue::ALL
            .iter()
            .map(|v| option_label("commit_value", v.name(), v.label()))
            .chain(IsolationLevel::ALL.iter().map(|v| option_label("isolation.level", v.name(), v.label())));
        for o in options {
            assert!(!o.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{o}");
        }
        // docs/model.md §12's choices: no identifier at all in their words.
        let records = OnError::ALL
            .iter()
            .map(|v| choice_label("on_error", v.name()))
            .chain(PoolCommit::ALL.iter().map(|v| choice_label("pool_commit", v.name())))
            .chain(Ordering::ALL.iter().map(|v| choice_label("ordering", v.name())))
            .chain(AckCheck::ALL.iter().map(|v| choice_label("spring_ack_check", v.name())));
        for o in records {
            assert!(!o.contains('_') && o.contains(' '), "words, not identifiers: {o}");
        }
        assert_eq!(choice_label("on_error", "explode"), "explode", "a link's unknown value, as given");
        for (key, l) in OTHER_LABELS {
            assert!(offset_window_sim::scenario::key_spec(key).is_some(), "{key}");
            assert_eq!(label(key), *l);
        }
    }
}
