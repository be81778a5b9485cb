//! "Compare clients": the same scenario and crash under each real client's commit
//! behaviour (the core's `compare::PAIRS`), simulated once per scenario and read at any
//! crash instant.

use offset_window_sim::compare::PAIRS;
use offset_window_sim::{simulate, Client, Run, Scenario, Strategy};

/// One row of the comparison: a client, a strategy and its run.
#[derive(Clone, Debug)]
pub struct Row {
    /// The client.
    pub client: Client,
    /// The strategy.
    pub strategy: Strategy,
    /// The scenario's run under them.
    pub run: Run,
}

/// The scenario under each pair of `compare::PAIRS` (as `compare::compare_clients`
/// does), simulated once; the crash instant is read per row, so moving it re-runs nothing.
pub fn compare_runs(scenario: &Scenario) -> Vec<Row> {
    PAIRS
        .iter()
        .filter(|(_, st)| !(scenario.worker_pool && *st == Strategy::Transactional))
        .filter_map(|&(client, strategy)| {
            let run = simulate(&Scenario { client, strategy, ..scenario.clone() }).ok()?;
            Some(Row { client, strategy, run })
        })
        .collect()
}

/// Whether `row` is what the page shows now: the same client, and the same strategy as
/// the loop really runs (auto-commit under a client with a background timer is that timer).
pub fn is_current(row: &Row, scenario: &Scenario) -> bool {
    row.client == scenario.client && row.client.effective(row.strategy) == scenario.effective_strategy()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_the_cores_comparison_and_one_is_current() {
        let scenario = Scenario::from_json(
            r#"{"max.poll.records":1,"record_processing_ms":3000,"auto.commit.interval.ms":5000}"#,
        )
        .unwrap();
        let rows = compare_runs(&scenario);
        let core = offset_window_sim::compare::compare_clients(&scenario, 5_500_000).unwrap();
        assert_eq!(rows.len(), core.len());
        for (row, c) in rows.iter().zip(&core) {
            let at = row.run.state_at(5_500_000);
            assert_eq!((row.client.name(), row.strategy.name()), (c.client, c.strategy));
            assert_eq!([at.lost, at.duplicated, at.reread], [c.lost, c.duplicated, c.reread]);
        }
        let current: Vec<_> = rows.iter().filter(|r| is_current(r, &scenario)).collect();
        assert_eq!(current.len(), 1);
        assert_eq!((current[0].client, current[0].strategy), (Client::JavaClassic, Strategy::AutoCommit));
    }
}
