//! The scenario fields the page shows, in its words: each key's label (Kafka's property
//! name where there is one, else words, never an identifier), its unit, a one-line hint
//! and the comfortable range of its slider. Messages about a field name it by its label.

/// One field of the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// The scenario key (a name from `scenario::KEYS`).
    pub key: &'static str,
    /// What the label says.
    pub label: &'static str,
    /// Whether the label is a Kafka property name (shown as code).
    pub kafka: bool,
    /// The unit, as shown.
    pub unit: &'static str,
    /// One line on what it does.
    pub hint: &'static str,
    /// The slider's range (min, max, step) in the unit; `None` for a text field only.
    pub slider: Option<(u32, u32, u32)>,
    /// Whether it sits in the "advanced" group.
    pub advanced: bool,
}

const fn f(
    key: &'static str,
    label: &'static str,
    kafka: bool,
    unit: &'static str,
    hint: &'static str,
    slider: Option<(u32, u32, u32)>,
    advanced: bool,
) -> Field {
    Field { key, label, kafka, unit, hint, slider, advanced }
}

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
        "commit_every_records",
        "commit every N records",
        false,
        "records",
        "records between commits, for “commitSync() every N records”",
        Some((1, 100, 1)),
        true,
    ),
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

/// The labels of the other keys the page shows (choices and the pool box).
const OTHER_LABELS: &[(&str, &str)] = &[
    ("strategy", "commit strategy"),
    ("client", "client"),
    ("worker_pool", "worker pool"),
    ("commit_value", "manual commits send"),
    ("isolation.level", "isolation.level of the output's reader"),
];

/// What an option of a named-choice key says: the core's label, but in words where the
/// core's label is Kafka's value itself (`isolation.level`).
pub fn option_label(key: &str, name: &'static str, core_label: &'static str) -> &'static str {
    match (key, name) {
        ("isolation.level", "read_committed") => "read_committed: aborted outputs stay hidden",
        ("isolation.level", "read_uncommitted") => {
            "read_uncommitted (Kafka's default): aborted outputs are read"
        }
        _ => core_label,
    }
}

/// The field of `key`, if the page shows it as a number.
pub fn field(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.key == key)
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
        for f in FIELDS {
            assert!(offset_window_sim::scenario::key_spec(f.key).is_some(), "{}", f.key);
            assert!(f.kafka || !f.label.contains('_'), "{}", f.label);
            assert!(!f.hint.contains('_'), "{}", f.hint);
        }
        use offset_window_sim::scenario::{CommitValue, IsolationLevel};
        let options = CommitValue::ALL
            .iter()
            .map(|v| option_label("commit_value", v.name(), v.label()))
            .chain(IsolationLevel::ALL.iter().map(|v| option_label("isolation.level", v.name(), v.label())));
        for o in options {
            assert!(!o.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{o}");
        }
        for (key, l) in OTHER_LABELS {
            assert!(offset_window_sim::scenario::key_spec(key).is_some(), "{key}");
            assert_eq!(label(key), *l);
        }
    }
}
