//! The page's presets: every `scenarios/txn-*.json` file, by title, with a one-sentence
//! story. The page carries the files' scenarios (build.rs writes them without whitespace,
//! description and expectations: ≈ 4 KB together).

use offset_window_sim::transactions::TxnScenario;

/// One preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// Its name in the link (`preset=killed-producer`) and the select's value.
    pub slug: &'static str,
    /// Its file in `scenarios/`.
    pub file: &'static str,
    /// The select's words.
    pub title: &'static str,
    /// One sentence on what it shows.
    pub story: &'static str,
    /// The file's text.
    pub json: &'static str,
}

/// Every preset; the first is the page's default.
pub const PRESETS: [Preset; 5] = [
    Preset {
        slug: "lag-per-client",
        file: "txn-committed-batch-lag-per-client.json",
        title: "LAG 1 or 0 after a committed transaction, per client",
        story: "Five records and their commit marker (offset 5): readers that commit their position reach 6 (LAG 0), readers that commit the last record + 1 stay at 5 and kafka-consumer-groups.sh shows LAG 1 for ever, as spring-kafka#1587 and librdkafka#3917 report.",
        json: include_str!(concat!(env!("OUT_DIR"), "/scenarios/txn-committed-batch-lag-per-client.json")),
    },
    Preset {
        slug: "killed-producer",
        file: "txn-producer-killed-stalls-until-timeout.json",
        title: "A killed producer stalls read_committed until the timeout abort",
        story: "tx-a dies inside its transaction, so the last stable offset stays at 1 and the read_committed reader waits until the coordinator's scan after transaction.timeout.ms writes the abort marker at 20 s.",
        json: include_str!(concat!(env!("OUT_DIR"), "/scenarios/txn-producer-killed-stalls-until-timeout.json")),
    },
    Preset {
        slug: "aborted",
        file: "txn-aborted-never-handed-to-read-committed.json",
        title: "An aborted transaction stays in the log",
        story: "The aborted records 0–2 stay in the log: read_committed readers never get them, read_uncommitted readers get them as if nothing happened (kafka-go's Reader hands them even to read_committed: kafka-go#1332, model.md §13.3).",
        json: include_str!(concat!(env!("OUT_DIR"), "/scenarios/txn-aborted-never-handed-to-read-committed.json")),
    },
    Preset {
        slug: "two-producers",
        file: "txn-open-transaction-holds-back-another.json",
        title: "Two producers: an open transaction holds back another's commit",
        story: "tx-b commits at 2.1 s, but tx-a's transaction opened earlier is still open, so read_committed readers get tx-b's records only when tx-a commits at 5 s.",
        json: include_str!(concat!(env!("OUT_DIR"), "/scenarios/txn-open-transaction-holds-back-another.json")),
    },
    Preset {
        slug: "hanging",
        file: "txn-hanging-transaction.json",
        title: "A hanging transaction: no marker ever comes",
        story: "With partition verification off and transaction.version 1, a transaction the coordinator does not know of never gets a marker, and the read_committed reader stays at offset 1 for ever.",
        json: include_str!(concat!(env!("OUT_DIR"), "/scenarios/txn-hanging-transaction.json")),
    },
];

/// Preset `index`'s scenario (the file's `scenario`); `None` for an index past the list or a
/// file the core refuses (the tests hold every file to be read).
pub fn scenario(index: usize) -> Option<TxnScenario> {
    let file: serde_json::Value = serde_json::from_str(PRESETS.get(index)?.json).ok()?;
    TxnScenario::from_value(file.get("scenario")?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_txn_file_is_a_preset_and_reads() {
        let mut files: Vec<String> =
            std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios"))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("txn-") && n.ends_with(".json"))
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
}
