//! The pipeline page's presets: every `scenarios/eos-*.json` file (docs/model.md §14.6,
//! P1–P7), by title, with a one-line story naming the question it answers. The page carries
//! the first (its defaults) and fetches the others on the first one chosen (`presets.json`,
//! [`all_json`], written beside the page by the first-frame binary), as the other pages do.
//! Links carry the whole scenario, so a link never waits for the fetch.

use crate::kit::presets::{fetched_text, json_array, Fetched};
use offset_window_sim::pipeline::PipelineScenario;
use serde_json::Value;

/// One preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// Its name in the link (`preset=zombie`) and the select's value.
    pub slug: &'static str,
    /// Its file in `scenarios/`.
    pub file: &'static str,
    /// The select's words.
    pub title: &'static str,
    /// One sentence: the question it answers, and the answer.
    pub story: &'static str,
    /// Whether the producer half (a transactional producer's epoch, its fencing) is the story,
    /// so the page links the producer page beside it.
    pub producer_story: bool,
    /// The file's text as build.rs writes it (the scenario only); empty when fetched.
    pub json: &'static str,
}

macro_rules! file {
    (embed, $file:literal) => {
        include_str!(concat!(env!("OUT_DIR"), "/scenarios/", $file))
    };
    (fetch, $file:literal) => {
        fetched_text!(include_str!(concat!(env!("OUT_DIR"), "/scenarios/", $file)))
    };
}

/// Every preset; the first is the page's default.
pub const PRESETS: [Preset; 9] = [
    Preset {
        slug: "killed-restarts",
        file: "eos-ctp-killed-mid-transaction-restarts.json",
        title: "Killed mid-transaction, restarted: a side effect outside Kafka is never rolled back",
        story: "Is a write outside Kafka exactly once under exactly_once_v2? No: the loop dies at 4.5 s with inputs 41–44 processed in an open transaction; its restart's initTransactions aborts their outputs, read_committed sees every record once, but the side effect (and read_uncommitted) saw 41–44 twice.",
        producer_story: true,
        json: file!(embed, "eos-ctp-killed-mid-transaction-restarts.json"),
    },
    Preset {
        slug: "killed-never-restarts",
        file: "eos-ctp-killed-never-restarts.json",
        title: "Killed, never restarted: downstream waits at the last stable offset",
        story: "Why does a consumer downstream of an exactly-once app see duplicates, or nothing for a minute? The dead instance's transaction stays open until the coordinator's timeout scan at 70 s: read_uncommitted is handed its outputs and their re-processing (41–44 twice), read_committed waits at the last stable offset behind it, then sees each record once.",
        producer_story: false,
        json: file!(fetch, "eos-ctp-killed-never-restarts.json"),
    },
    Preset {
        slug: "pending-offsets",
        file: "eos-ctp-killed-between-offsets-and-commit.json",
        title: "Killed between sendOffsetsToTransaction and commit: UNSTABLE_OFFSET_COMMIT",
        story: "Why does the new owner of a partition not start (UNSTABLE_OFFSET_COMMIT)? Only a crash between sendOffsetsToTransaction and EndTxn leaves offsets pending: the new owner's OffsetFetch is refused from 48 s until the timeout abort at 70 s.",
        producer_story: false,
        json: file!(fetch, "eos-ctp-killed-between-offsets-and-commit.json"),
    },
    Preset {
        slug: "zombie",
        file: "eos-ctp-zombie-refused-by-generation.json",
        title: "A zombie: frozen past its session, refused by the group's generation",
        story: "What stops a zombie? The instance freezes at 4.5 s for 8 s; the group removes it at 9 s and the other instance takes over from 41. When it wakes at 12.5 s its TxnOffsetCommit is refused (UNKNOWN_MEMBER_ID), so it aborts its transaction: read_committed still sees every record once.",
        producer_story: true,
        json: file!(fetch, "eos-ctp-zombie-refused-by-generation.json"),
    },
    Preset {
        slug: "streams-at-least-once",
        file: "eos-streams-at-least-once-kill.json",
        title: "Kafka Streams at_least_once: killed before its first commit",
        story: "Does a kill -9 make Kafka Streams repeat records (kafka-streams-examples#21)? Under at_least_once, yes: it commits every 30 s by default; killed at 4.5 s before its first commit, its successor starts again at offset 0: inputs 0–44 are seen twice by both isolation levels and written twice outside Kafka.",
        producer_story: false,
        json: file!(fetch, "eos-streams-at-least-once-kill.json"),
    },
    Preset {
        slug: "streams-exactly-once",
        file: "eos-streams-exactly-once-kill.json",
        title: "Kafka Streams exactly_once_v2: a new transactional.id waits for the timeout",
        story: "Why does a restarted Streams app not abort its own transaction? Without a persistent store it comes back with a new process id and a new transactional.id, so the old transaction waits for the timeout scan at 20 s; read_committed sees every record once, after that wait.",
        producer_story: true,
        json: file!(fetch, "eos-streams-exactly-once-kill.json"),
    },
    Preset {
        slug: "scale-out",
        file: "eos-ctp-scale-out-join.json",
        title: "Scale-out: a second instance joins, the partitions move without a repeat",
        story: "Does a scale-out repeat work under exactly_once_v2? No: instance 1 joins at 1.05 s; instance 0 revokes both partitions, committing its open transaction first (partition 1 committed at 11 at 1.050 s), and instance 1 starts partition 1 at 11: every reader sees each of the 40 inputs once, nothing aborted.",
        producer_story: false,
        json: file!(fetch, "eos-ctp-scale-out-join.json"),
    },
    Preset {
        slug: "rolling-deploy",
        file: "eos-ctp-rolling-deploy.json",
        title: "A rolling deploy of a consume-transform-produce service: nothing repeated",
        story: "Does a rolling deploy repeat work under exactly_once_v2? Not with a listener that commits: each instance's close runs onPartitionsRevoked, which commits its open transaction, then leaves the group, so the group rebalances at once: nothing aborted, no input partition stalls, every input seen once.",
        producer_story: false,
        json: file!(fetch, "eos-ctp-rolling-deploy.json"),
    },
    Preset {
        slug: "streams-rolling-deploy",
        file: "eos-streams-rolling-deploy.json",
        title: "A rolling deploy of Kafka Streams: each close waits out a session",
        story: "Why does a rolling deploy of Kafka Streams stall its partitions? KafkaStreams.close() commits its tasks but sends no LeaveGroup: partition 0 waits for the closed instance's session until 10 s; instance 1, told to close at 3.15 s, polls on without processing until that rebalance ends, and its partition then waits for its own session until 19 s. Nothing is repeated.",
        producer_story: false,
        json: file!(fetch, "eos-streams-rolling-deploy.json"),
    },
];

std::thread_local! {
    /// The files fetched by the page ([`install`]), in [`PRESETS`]' order.
    static FETCHED: Fetched = const { Fetched::new() };
}

/// Whether preset `index`'s file is at hand: in the page, or fetched and installed.
pub fn available(index: usize) -> bool {
    PRESETS.get(index).is_some_and(|p| !p.json.is_empty()) || FETCHED.with(Fetched::is_installed)
}

/// Takes the text of `presets.json` ([`all_json`]); whether it read as one file per preset.
pub fn install(text: &str) -> bool {
    FETCHED.with(|f| f.install(text, PRESETS.len()))
}

/// `presets.json`: every preset's file (its scenario only) in [`PRESETS`]' order, one JSON
/// array, written beside the page by the first-frame binary.
pub fn all_json() -> String {
    json_array(PRESETS.iter().map(|p| p.json))
}

/// Preset `index`'s scenario (the file's `scenario`); `None` for an index past the list, a
/// file not at hand ([`available`]) or one the core refuses (the tests hold every file to
/// be read).
pub fn scenario(index: usize) -> Option<PipelineScenario> {
    let file: Value = FETCHED.with(|f| f.file(index, PRESETS.get(index)?.json))?;
    PipelineScenario::from_value(file.get("scenario")?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_eos_file_is_a_preset_and_reads() {
        let mut files: Vec<String> =
            std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios"))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("eos-") && n.ends_with(".json"))
                .collect();
        files.sort();
        let mut ours: Vec<String> = PRESETS.iter().map(|p| p.file.to_string()).collect();
        ours.sort();
        assert_eq!(files, ours);
        for (i, p) in PRESETS.iter().enumerate() {
            assert!(scenario(i).is_some(), "{}", p.file);
            assert_eq!(PRESETS.iter().position(|q| q.slug == p.slug), Some(i), "slugs are unique");
        }
    }

    #[test]
    fn presets_json_is_every_file_in_order_and_installs() {
        let text = all_json();
        let files: Vec<Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(files.len(), PRESETS.len());
        assert!(install(&text));
        assert!(!install("[1]"), "a wrong count is refused");
        assert!((0..PRESETS.len()).all(available));
    }
}
