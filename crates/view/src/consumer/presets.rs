//! The scenario files of `scenarios/` the consumer page offers as presets (the reference
//! scenarios `r*` and `s12-*`, the single-consumer cases `s8-*`, the frameworks' presets
//! `spring-*` and `parallel-consumer-*` of docs/model.md §12.7, and the other clients'
//! `clients-*` of §8.14; the group and share-group
//! files belong to their own views), each with a title and a one-line story in our words
//! (the select shows titles, never file names; a framework preset's story is its file's
//! description, which names the framework's version and classes), the public report it came
//! from, and the values it expects, said as sentences next to what the core computes now.

use crate::kit::presets::{fetched_text, json_array, records_word, same_value, Check, Fetched};
use crate::kit::text::{fixed, seconds_text};
use offset_window_sim::keys::json_text;
use offset_window_sim::{Input, Run};
use serde_json::Value;

/// One scenario file as the page offers it (its name is [`FILES`]' entry of the same index:
/// the page's select says the index, so the names stay out of the page's wasm).
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// What the select shows.
    pub title: &'static str,
    /// One line on what it shows.
    pub story: &'static str,
    /// Which group of the select it sits in.
    pub group: Group,
    /// The file's JSON text, as build.rs writes it: no whitespace, and no description
    /// unless the preset has no story of its own. Empty in the consumer page's wasm, which
    /// fetches the files on the first preset chosen ([`install`]).
    pub json: &'static str,
}

/// The groups of the presets' select.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// The model's reference scenarios (`r*`, `s12-*`).
    Reference,
    /// Real clients and incidents (`s8-*`).
    Incident,
    /// Spring Kafka and the Confluent Parallel Consumer (`spring-*`, `parallel-consumer-*`).
    Framework,
    /// The Go and Node libraries of docs/model.md §8.14 (`clients-*`).
    Clients,
}

impl Group {
    /// Every group, in the select's order.
    pub const ALL: [Group; 4] = [Group::Reference, Group::Framework, Group::Incident, Group::Clients];

    /// The group's label in the select.
    pub fn label(self) -> &'static str {
        match self {
            Group::Reference => "The model's reference scenarios",
            Group::Framework => "Frameworks: Spring Kafka, Confluent Parallel Consumer",
            Group::Incident => "Real clients and incidents",
            Group::Clients => "Other clients",
        }
    }
}

macro_rules! presets {
    ($($file:literal, $group:ident, $title:literal, $story:literal;)+) => {
        /// Every `r*`, `s8-*`, `s12-*`, `spring-*`, `parallel-consumer-*` and `clients-*` file of
        /// `scenarios/`, in name order within each group.
        pub const PRESETS: &[Preset] = &[$(Preset {
            title: $title,
            story: $story,
            group: Group::$group,
            json: fetched_text!(include_str!(concat!(env!("OUT_DIR"), "/scenarios/", $file, ".json"))),
        },)+];

        /// Each preset's file name in `scenarios/`, without `.json`, in [`PRESETS`]' order (for
        /// tests and tools: the page never reads them).
        pub const FILES: &[&str] = &[$($file,)+];
    };
}

presets! {
    "r01-defaults", Reference, "The defaults: auto-commit every 5 s",
        "Five records a poll, auto-commit every 5 s: a crash at 8.2 s repeats 15 records, the worst instant 25.";
    "r02-commit-sync-batch", Reference, "commitSync() after each batch",
        "Committing once each batch is done shrinks the worst crash to one batch.";
    "r03-big-batch-auto-commit", Reference, "Bigger batches: 25 records a poll",
        "With 25 records a poll, auto-commit's worst crash repeats the whole batch.";
    "r04-big-batch-commit-sync", Reference, "25 records a poll, committed after the batch",
        "The same batch with commitSync() after it: the worst crash is no smaller.";
    "r05-short-interval", Reference, "Auto-commit every 100 ms",
        "A shorter interval changes nothing: the classic client commits only inside poll(), so the batch sets the window.";
    "r06-pool-auto-commit", Reference, "A worker pool with auto-commit",
        "The loop hands each batch to a pool and auto-commit commits records that never ran: a crash at 5.01 s loses them.";
    "r07-pool-commit-sync", Reference, "A worker pool with commitSync()",
        "Committing after the hand-off, not after the work, loses even more at the same crash.";
    "r08-transactional", Reference, "Transactions",
        "Outputs and offsets commit together: nothing lost or processed twice, though the handler runs a batch again.";
    "r09-blocked-batch", Reference, "The cost of one commit per batch",
        "One blocking commitSync() per 25-record batch: how long the loop waits.";
    "r10-blocked-record", Reference, "The cost of one commit per record",
        "A blocking commitSync() after every record: the loop waits far longer.";
    "s8-book-lab-script", Incident, "A new group, step by step (the book's lab)",
        "poll, process 3, sleep 3 s, poll, close: the committed offset after each step.";
    "s8-close-commits-unprocessed", Incident, "close() with auto-commit",
        "close() commits the position: records handed out but never processed are marked done.";
    "s8-crash-instead-of-close", Incident, "A crash where close() was",
        "The same instant as a crash instead of a close: nothing lost, a batch processed again.";
    "s8-java-500-records", Incident, "Java client, 500 records a poll",
        "The classic client's auto-commit with 10 ms records: what a crash at 6 s repeats.";
    "s8-java-slow-records", Incident, "Java client, 3-second records",
        "The auto-commit timer waits for poll(), so a crash at 5.5 s repeats only the record in hand.";
    "s8-kip848-after-fix", Incident, "Consumer protocol (KIP-848), Kafka 4.0 and later",
        "After KAFKA-18641 the new consumer commits inside poll() again: the same as the classic client.";
    "s8-kip848-before-fix", Incident, "Consumer protocol (KIP-848) before the fix, 3.9",
        "Its background timer committed records still being processed: the same crash loses hundreds.";
    "s8-librdkafka-background", Incident, "librdkafka's default auto-commit",
        "A background timer commits what was handed out: the record in progress is lost.";
    "s8-librdkafka-store-after-processing", Incident, "librdkafka, storing each offset after processing",
        "store_offsets() once a record is done, auto-commit on the timer: nothing lost, nothing repeated.";
    "s8-next-offset-commit", Incident, "A commit of offset + 1 after each record",
        "The correct per-record commit: a crash repeats nothing.";
    "s8-off-by-one-commit", Incident, "Off by one: committing the record's own offset",
        "Every restart repeats the last record processed.";
    "s8-offset-expiry-earliest", Incident, "Offsets expired, reset to earliest",
        "Down longer than the offset retention: the restart replays records already processed.";
    "s8-offset-expiry-latest", Incident, "Offsets expired, reset to latest",
        "Down longer than the offset retention: the restart skips what was produced meanwhile.";
    "s8-poll-interval-fits", Incident, "A slow batch within max.poll.interval.ms",
        "Half the batch fits in the interval: commits land, and a crash repeats part of a batch.";
    "s8-poll-interval-livelock", Incident, "A batch longer than max.poll.interval.ms",
        "Evicted mid-batch, the commit fails and the batch repeats for ever: nothing is committed.";
    "s8-transactional-read-committed", Incident, "Transactions, read by a read_committed consumer",
        "The downstream reader never sees aborted outputs: no duplicates.";
    "s8-transactional-read-uncommitted", Incident, "Transactions, read by a read_uncommitted consumer",
        "Kafka's default isolation level sees the aborted outputs: duplicates downstream.";
    "s12-failed-record-log-and-continue", Reference, "Record 12 throws: log it and go on",
        "The record counts as handled, so the batch's commit passes it: 1 lost from 3.015 s, crash or not.";
    "s12-failed-record-retry", Reference, "Record 12 throws: retry twice, 1 s apart",
        "Two retries hold the loop 2.4 s longer, then the record is skipped: 1 lost once the commit of 15 lands at 5.415 s.";
    "s12-failed-record-seek-to-failed", Reference, "Record 12 throws: seek back and deliver it again",
        "Spring's DefaultErrorHandler delivers it 10 times, then skips it: nothing runs twice, 1 lost.";
    "s12-failed-record-dead-letter", Reference, "Record 12 throws: 10 deliveries, then the dead-letter topic",
        "Sent to the dead-letter topic, the record counts as run: nothing lost.";
    "s12-failed-record-stops-the-partition", Reference, "Record 12 throws: the partition stops",
        "The position and the committed offset stay at 12 for good; the lag grows for ever.";
    "s12-pool-highest-completed-skips-unfinished", Reference, "A pool commits the highest finished offset",
        "Record 3 takes 6 s; the commit of 76 passes it, so a crash before it finishes loses it.";
    "s12-pool-contiguous-completed", Reference, "A pool commits the lowest unfinished offset",
        "The same slow record 3: the commit stays at 3, nothing lost, a crash repeats what finished above it.";
    "s12-spring-count-3.1", Reference, "Spring AckMode.COUNT of 3, Spring Kafka 3.1 and later",
        "The count is checked after each record: a commit every 3 records, at most 3 repeated.";
    "s12-spring-count-before-3.1", Reference, "Spring AckMode.COUNT of 3, before Spring Kafka 3.1",
        "The count is checked once the poll is done: with 10 records a poll, a commit only at each batch's end.";
    "spring-ackmode-batch", Framework, "Spring Kafka AckMode.BATCH (the default)", "";
    "spring-ackmode-batch-no-ack-on-error", Framework, "Spring Kafka AckMode.BATCH, ackOnError false", "";
    "spring-ackmode-record", Framework, "Spring Kafka AckMode.RECORD", "";
    "spring-ackmode-record-no-ack-on-error", Framework, "Spring Kafka AckMode.RECORD, ackOnError false", "";
    "spring-ackmode-count", Framework, "Spring Kafka AckMode.COUNT", "";
    "spring-ackmode-time", Framework, "Spring Kafka AckMode.TIME", "";
    "spring-ackmode-manual", Framework, "Spring Kafka AckMode.MANUAL", "";
    "spring-ackmode-manual-no-ack-on-error", Framework, "Spring Kafka AckMode.MANUAL, ackOnError false", "";
    "spring-ackmode-manual-immediate", Framework, "Spring Kafka AckMode.MANUAL_IMMEDIATE", "";
    "spring-ackmode-manual-immediate-no-ack-on-error", Framework,
        "Spring Kafka AckMode.MANUAL_IMMEDIATE, ackOnError false", "";
    "spring-default-error-handler-dead-letter", Framework,
        "Spring Kafka DefaultErrorHandler: 10 deliveries, then the dead-letter topic", "";
    "spring-logging-error-handler", Framework, "Spring Kafka CommonLoggingErrorHandler: log and skip", "";
    "spring-batch-listener-retries-the-whole-batch", Framework,
        "Spring Kafka batch listener: the whole batch again, ten times", "";
    "parallel-consumer-partition", Framework, "Confluent Parallel Consumer, PARTITION ordering", "";
    "parallel-consumer-key", Framework, "Confluent Parallel Consumer, KEY ordering (its default)", "";
    "parallel-consumer-unordered", Framework, "Confluent Parallel Consumer, UNORDERED", "";
    "clients-sarama-mark-message", Clients, "sarama MarkMessage with AutoCommit",
        "sarama 1.61: marks are committed each second; a crash at 3.4 s repeats one record.";
    "clients-franz-go-autocommit-previous-poll", Clients, "franz-go autocommit of the previous poll",
        "franz-go 1.22: a tick commits up to where the latest poll began; a crash at 5.8 s repeats 9.";
    "clients-kafka-go-84-read-message-loses-record", Clients, "kafka-go ReadMessage loses a record (kafka-go#84)",
        "kafka-go 0.4.51 commits a message before returning it: a crash while it runs loses it.";
    "clients-kafkajs-each-message", Clients, "KafkaJS eachMessage",
        "KafkaJS 2.2.4 commits after the whole batch: a crash at 3.4 s repeats the 8 records done.";
    "clients-sarama-1287-raw-mark-offset", Clients, "sarama raw MarkOffset (sarama#1287)",
        "sarama 1.61 keeps the highest mark: raw marks of 1 and 3 commit 3 while 2 runs; a crash loses 2.";
    "clients-kafkajs-each-batch-resolve-offset", Clients, "KafkaJS eachBatch with resolveOffset",
        "KafkaJS 2.2.4 resolves each message once done: a close at 3.4 s, mid-batch, commits 8, repeats none.";
}

std::thread_local! {
    /// The files fetched by the page ([`install`]), in [`PRESETS`]' order.
    static FETCHED: Fetched = const { Fetched::new() };
}

/// Whether the presets' files are at hand: in the binary, or fetched and installed.
pub fn installed() -> bool {
    PRESETS.first().is_some_and(|p| !p.json.is_empty()) || FETCHED.with(Fetched::is_installed)
}

/// Takes the text of `presets.json` ([`all_json`]); whether it read as one file per preset.
pub fn install(text: &str) -> bool {
    FETCHED.with(|f| f.install(text, PRESETS.len()))
}

/// `presets.json`: every preset's file in [`PRESETS`]' order, one JSON array (written beside
/// the consumer page by the first-frame binary; fetched on the first preset chosen).
pub fn all_json() -> String {
    json_array(PRESETS.iter().map(|p| p.json))
}

fn file(index: usize) -> Option<Value> {
    let json = PRESETS.get(index)?.json;
    FETCHED.with(|f| f.file(index, json))
}

/// What the page says about preset `index`: its story, or for a framework preset (no story
/// of ours) the file's description, which names the framework's version and classes.
pub fn story(index: usize) -> String {
    match PRESETS.get(index) {
        Some(p) if !p.story.is_empty() => p.story.to_string(),
        Some(_) => {
            file(index).and_then(|v| v.get("description")?.as_str().map(str::to_string)).unwrap_or_default()
        }
        None => String::new(),
    }
}

/// The preset's scenario and its own crash instant, if the file reads.
pub fn scenario(index: usize) -> Option<Input> {
    Input::from_value(file(index)?.get("scenario")?).ok()
}

/// The preset whose scenario `scenario` is, if any (a slide drawn from a link names it).
pub fn of_scenario(scenario: &offset_window_sim::Scenario) -> Option<&'static Preset> {
    (0..PRESETS.len())
        .find(|&i| self::scenario(i).is_some_and(|input| &input.scenario == scenario))
        .map(|i| &PRESETS[i])
}

/// The preset's index by file name (`s8-kip848-before-fix`).
pub fn by_name(name: &str) -> Option<usize> {
    FILES.iter().position(|&f| f == name)
}

/// The preset the select's value (its index) names.
pub fn by_value(value: &str) -> Option<usize> {
    value.parse().ok().filter(|&i: &usize| i < PRESETS.len())
}

/// The address of the public report the file came from (empty when none).
pub fn source(index: usize) -> String {
    file(index).and_then(|v| v.get("source")?.as_str().map(str::to_string)).unwrap_or_default()
}

/// The expected values: (JSON pointer into the result, value).
pub fn expected(index: usize) -> Vec<(String, Value)> {
    match file(index).and_then(|v| v.get("expect").cloned()) {
        Some(Value::Object(map)) => map.into_iter().collect(),
        _ => Vec::new(),
    }
}

/// The file's expectations for preset `index`, checked against `run` read at `crash_at_us`,
/// each said as a sentence.
pub fn checks(index: usize, run: &Run, crash_at_us: u64) -> Vec<Check> {
    let result: Value =
        serde_json::from_str(&crate::consumer::export::result_json(run, crash_at_us)).unwrap_or_default();
    expected(index)
        .into_iter()
        .map(|(pointer, want)| {
            let got = result.pointer(&pointer).cloned().unwrap_or_default();
            let ok = same_value(&got, &want);
            let said = sentence(&pointer, &got, run, crash_at_us);
            let sentence = if ok {
                format!("{said}, as the file expects.")
            } else {
                format!("{said}; the file expects {}.", json_text(&want))
            };
            Check { pointer, got: json_text(&got), ok, sentence }
        })
        .collect()
}

/// What one result value means, with the value, in words.
fn sentence(pointer: &str, got: &Value, run: &Run, crash_at_us: u64) -> String {
    let n = match got {
        Value::Null => "none".to_string(),
        other => json_text(other),
    };
    let crash = seconds_text(crash_at_us);
    let close = || {
        run.closed_at_us.map_or(String::new(), |c| format!(" (close() returned at {} s)", seconds_text(c)))
    };
    let parts: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
    match parts.as_slice() {
        ["at_crash", field] => {
            let what = match *field {
                "position" => "The position at the crash",
                "durable" => "The durable frontier at the crash",
                "committed" => "The committed offset at the crash",
                "lost" => "Records a crash loses",
                "duplicated" => "Records a crash processes twice",
                "reread" => "Records re-read after the crash",
                other => other,
            };
            format!("{what} at {crash} s: {n}")
        }
        ["at_close", field] => {
            let what = match *field {
                "committed" => "The committed offset",
                "lost" => "Records lost",
                "duplicated" => "Records processed twice",
                other => other,
            };
            format!("{what} after close(){}: {n}", close())
        }
        ["worst", "duplicated"] => format!("The worst crash processes {n} {} twice", records_word(&n)),
        ["worst", "lost"] => format!("The worst crash loses {n} {}", records_word(&n)),
        ["worst", "duplicated_at_ms"] => format!("It first does so at {n} ms"),
        ["worst", "lost_at_ms"] => format!("It first loses them at {n} ms"),
        ["blocked_on_commits"] => {
            format!("The loop waits for commits {} % of the time", fixed(run.blocked_on_commits() * 100.0, 2))
        }
        ["closed_at_ms"] => format!("close() returns at {n} ms"),
        ["commits_landed"] => format!("Commits that land within the horizon: {n}"),
        ["polls"] => format!("poll() calls within the horizon: {n}"),
        ["records", field] => {
            let what = match *field {
                "failed_attempts" => "Attempts that threw",
                "skipped" => "Records given up and skipped",
                "dead_lettered" => "Records sent to the dead-letter topic",
                "stopped_partitions" => "Partitions stopped",
                other => other,
            };
            format!("{what} within the horizon: {n}")
        }
        ["script", step, "committed"] => {
            let i = step.parse::<usize>().unwrap_or(0);
            let text = run.script.as_ref().and_then(|s| s.get(i)).map_or(String::new(), |r| r.step.clone());
            format!("The committed offset after step {} ({text}): {n}", i + 1)
        }
        _ => format!("{}: {n}", pointer.trim_start_matches('/').replace('/', " ")),
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn presets_json_is_every_file_in_order_and_installs() {
        let all: Vec<Value> = serde_json::from_str(&all_json()).unwrap();
        assert_eq!(all.len(), PRESETS.len());
        for (i, file) in all.iter().enumerate() {
            assert_eq!(Some(file), super::file(i).as_ref(), "{}", FILES[i]);
        }
        assert!(install(&all_json()));
        assert!(!install("[]"), "one file per preset, or nothing");
        assert!(installed());
    }
    use super::*;
    use offset_window_sim::simulate;

    #[test]
    fn every_consumer_scenario_file_is_a_preset_with_a_title() {
        // r01…r10, s8-*, s12-* and the frameworks' files: the one-consumer files; the
        // group and share-group files belong to other views.
        let consumer = |name: &str| {
            (name.starts_with('r') && name[1..].starts_with(|c: char| c.is_ascii_digit()))
                || ["s8-", "s12-", "spring-", "parallel-consumer-", "clients-"]
                    .iter()
                    .any(|p| name.starts_with(p))
        };
        let mut files: Vec<String> =
            std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios"))
                .unwrap()
                .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".json").map(str::to_string))
                .filter(|name| consumer(name))
                .collect();
        files.sort();
        assert_eq!(FILES.len(), PRESETS.len());
        let mut presets: Vec<&str> = FILES.to_vec();
        presets.sort();
        assert_eq!(presets, files);
        for (i, p) in PRESETS.iter().enumerate() {
            assert!(!p.title.is_empty() && !story(i).is_empty(), "{}", FILES[i]);
            if p.group == Group::Framework {
                // docs/model.md §12.7: which framework version and class it follows.
                let s = story(i);
                assert!(
                    s.contains("Spring Kafka 3.x KafkaMessageListenerContainer")
                        || s.contains("Spring Kafka 4.1 KafkaMessageListenerContainer")
                        || s.contains("Confluent Parallel Consumer 0.5.3 (ParallelConsumerOptions"),
                    "{}: {s}",
                    FILES[i]
                );
            }
        }
        // docs/model.md §8.14: each library's preset names its version.
        for (name, version) in [
            ("sarama", "sarama 1.61"),
            ("franz-go", "franz-go 1.22"),
            ("kafka-go", "kafka-go 0.4.51"),
            ("KafkaJS", "KafkaJS 2.2.4"),
        ] {
            let i =
                PRESETS.iter().position(|p| p.group == Group::Clients && p.title.starts_with(name)).unwrap();
            assert!(story(i).starts_with(version), "{name}: {}", story(i));
        }
        // The names users search for, each once.
        for name in [
            "AckMode.BATCH (",
            "AckMode.RECORD",
            "AckMode.COUNT",
            "AckMode.TIME",
            "AckMode.MANUAL",
            "AckMode.MANUAL_IMMEDIATE",
            "DefaultErrorHandler",
            "PARTITION",
            "KEY",
            "UNORDERED",
        ] {
            assert!(PRESETS.iter().any(|p| p.group == Group::Framework && p.title.contains(name)), "{name}");
        }
    }

    #[test]
    fn every_preset_meets_its_expectations_said_in_sentences() {
        for (i, &file) in FILES.iter().enumerate() {
            let input = scenario(i).unwrap_or_else(|| panic!("{file} does not read"));
            let run = simulate(&input.scenario).unwrap();
            let checks = checks(i, &run, input.crash_at_us);
            assert!(!checks.is_empty(), "{file}");
            for c in checks {
                assert!(c.ok, "{file}: {}", c.sentence);
                assert!(c.sentence.ends_with("as the file expects."), "{}", c.sentence);
                assert!(!c.sentence.contains('›') && !c.sentence.contains("at_crash"), "{}", c.sentence);
            }
        }
        let i = by_name("s8-kip848-before-fix").unwrap();
        let input = scenario(i).unwrap();
        let run = simulate(&input.scenario).unwrap();
        let lost =
            checks(i, &run, input.crash_at_us).into_iter().find(|c| c.pointer == "/at_crash/lost").unwrap();
        assert_eq!(lost.sentence, "Records a crash loses at 6.000 s: 201, as the file expects.");
        // The other clients' presets, value by value (docs/model.md §8.14).
        for (file, want) in [
            (
                "clients-sarama-mark-message",
                [("/at_crash/committed", 7), ("/at_crash/lost", 0), ("/at_crash/duplicated", 1)],
            ),
            (
                "clients-franz-go-autocommit-previous-poll",
                [("/at_crash/committed", 5), ("/at_crash/lost", 0), ("/at_crash/duplicated", 9)],
            ),
            (
                "clients-kafka-go-84-read-message-loses-record",
                [("/at_crash/committed", 9), ("/at_crash/lost", 1), ("/at_crash/duplicated", 0)],
            ),
            (
                "clients-kafkajs-each-message",
                [("/at_crash/committed", 0), ("/at_crash/lost", 0), ("/at_crash/duplicated", 8)],
            ),
            (
                "clients-kafkajs-each-batch-resolve-offset",
                [("/at_close/committed", 8), ("/at_close/lost", 0), ("/at_close/duplicated", 0)],
            ),
            (
                "clients-sarama-1287-raw-mark-offset",
                [("/at_crash/committed", 3), ("/at_crash/lost", 1), ("/at_crash/duplicated", 1)],
            ),
        ] {
            let i = by_name(file).unwrap();
            let input = scenario(i).unwrap();
            let run = simulate(&input.scenario).unwrap();
            let checks = checks(i, &run, input.crash_at_us);
            for (pointer, value) in want {
                let c = checks
                    .iter()
                    .find(|c| c.pointer == pointer)
                    .unwrap_or_else(|| panic!("{file} {pointer}"));
                assert_eq!(c.got, value.to_string(), "{file} {pointer}");
            }
        }
    }
}
