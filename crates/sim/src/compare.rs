//! The same scenario and crash instant under each real client's commit behaviour
//! (model.md §8.4): where "the timer commits mid-batch" is true and where it is not.

use crate::scenario::{Client, Scenario, ScenarioError, Strategy};
use crate::simulate;
use serde::Serialize;

/// The (client, strategy) pairs worth comparing, in the order a table shows them.
pub const PAIRS: &[(Client, Strategy)] = &[
    (Client::JavaClassic, Strategy::AutoCommit),
    (Client::JavaConsumerProtocol, Strategy::AutoCommit),
    (Client::JavaConsumerProtocolPreFix, Strategy::AutoCommit),
    (Client::Librdkafka, Strategy::AutoCommit),
    (Client::Librdkafka, Strategy::StoreOffsetsAfterProcessing),
    (Client::JavaClassic, Strategy::CommitSyncBatch),
    (Client::JavaClassic, Strategy::CommitSyncRecord),
    (Client::JavaClassic, Strategy::CommitAsyncBatch),
    (Client::JavaClassic, Strategy::Transactional),
];

/// One row of the comparison: what a crash at the scenario's instant costs under one
/// (client, strategy) pair, and the worst instant over the horizon.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ComparisonRow {
    /// The client's JSON name.
    pub client: &'static str,
    /// The strategy's JSON name.
    pub strategy: &'static str,
    /// Which real client and version behaves so.
    pub note: &'static str,
    /// Records lost at the crash instant.
    pub lost: u64,
    /// Records processed twice at the crash instant.
    pub duplicated: u64,
    /// Records handed out again after restart.
    pub reread: u64,
    /// The worst `lost` over the horizon.
    pub worst_lost: u64,
    /// The worst `duplicated` over the horizon.
    pub worst_duplicated: u64,
}

/// Runs `scenario` once per pair of [`PAIRS`] that the scenario allows (transactions have
/// no worker pool), everything else unchanged, and reads each at `crash_at_us` (µs, in
/// (0, horizon]). Errors: the scenario's own validation error.
pub fn compare_clients(scenario: &Scenario, crash_at_us: u64) -> Result<Vec<ComparisonRow>, ScenarioError> {
    scenario.validate()?;
    let mut rows = Vec::new();
    for &(client, strategy) in PAIRS {
        if scenario.worker_pool && strategy == Strategy::Transactional {
            continue;
        }
        let run = simulate(&Scenario { client, strategy, ..scenario.clone() })?;
        let at = run.state_at(crash_at_us);
        let worst = run.worst();
        rows.push(ComparisonRow {
            client: client.name(),
            strategy: strategy.name(),
            note: client.note(),
            lost: at.lost,
            duplicated: at.duplicated,
            reread: at.reread,
            worst_lost: worst.lost,
            worst_duplicated: worst.duplicated,
        });
    }
    Ok(rows)
}
