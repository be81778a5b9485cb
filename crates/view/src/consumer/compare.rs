//! "Compare clients": the same scenario and crash under each real client's commit
//! behaviour (the core's `compare::PAIRS`), simulated once per scenario and read at any
//! crash instant.

use crate::kit::text::{escape, left_out_html};
use offset_window_sim::compare::{refuse_row, PairsLeftOut, PAIRS};
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
/// With the pairs the core refuses, each with why.
pub fn compare_runs(scenario: &Scenario) -> (Vec<Row>, PairsLeftOut) {
    let mut rows = Vec::new();
    let mut left_out = Vec::new();
    for &(client, strategy) in PAIRS {
        match simulate(&Scenario { client, strategy, ..scenario.clone() }) {
            Ok(run) => rows.push(Row { client, strategy, run }),
            Err(why) => refuse_row(&mut left_out, (client, strategy), why),
        }
    }
    (rows, left_out)
}

/// Whether `row` is what the page shows now: the same client, and the same strategy as
/// the loop really runs (auto-commit under a client with a background timer is that timer);
/// a library's strategies are told apart by their names (KafkaJS's three all commit after
/// the batch), its `auto_commit` being its default.
pub fn is_current(row: &Row, scenario: &Scenario) -> bool {
    let c = row.client;
    let same = if c.is_java() || c.is_librdkafka() {
        c.effective(row.strategy) == scenario.effective_strategy()
    } else {
        c.named(row.strategy) == c.named(scenario.strategy)
    };
    c == scenario.client && same
}

/// The comparison table for `rows` at `crash_at_us`, as HTML (the page hands it to the
/// browser as one string: far less wasm than one element at a time). The row the page shows
/// is marked (`aria-current`); each client's note appears once, on its first row.
pub fn table_html(rows: &[Row], left_out: &PairsLeftOut, scenario: &Scenario, crash_at_us: u64) -> String {
    let mut out = String::from(concat!(
        r#"<table id="compare-table"><thead><tr><th scope="col">client · how it commits</th>"#,
        r#"<th scope="col">lost</th><th scope="col">processed twice</th><th scope="col">re-read</th></tr></thead><tbody>"#
    ));
    for (i, row) in rows.iter().enumerate() {
        let at = row.run.state_at(crash_at_us);
        let first = rows[..i].iter().all(|r| r.client != row.client);
        let current = is_current(row, scenario);
        out.push_str(&format!(
            r#"<tr data-client="{}" data-strategy="{}" data-lost="{}" data-duplicated="{}" data-reread="{}"{}><th scope="row">{} · {}{}{}</th><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td></tr>"#,
            row.client.name(),
            row.strategy.name(),
            at.lost,
            at.duplicated,
            at.reread,
            if current { r#" class="current" aria-current="true""# } else { "" },
            escape(row.client.label()),
            escape(row.strategy.label()),
            if current { r#"<strong class="here"> — shown above</strong>"# } else { "" },
            if first { format!("<br><small>{}</small>", escape(row.client.note())) } else { String::new() },
            at.lost,
            at.duplicated,
            at.reread
        ));
    }
    out.push_str("</tbody></table>");
    out.push_str(&left_out_html(left_out, |(c, st)| format!("{} · {}", c.label(), st.label())));
    out
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
        let (rows, left_out) = compare_runs(&scenario);
        assert!(left_out.is_empty(), "{left_out:?}");
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
        let html = table_html(&rows, &left_out, &scenario, 5_500_000);
        assert_eq!(html.matches("<tr data-client").count(), rows.len());
        assert_eq!(html.matches(r#"aria-current="true""#).count(), 1);
        assert!(!html.contains(">java_classic"), "labels, not identifiers");
        // Every row's own scenario marks exactly that row, a library's `auto_commit` its default
        // (KafkaJS's eachMessage and eachBatch strategies all commit after the batch).
        for row in &rows {
            let own = Scenario { client: row.client, strategy: row.strategy, ..scenario.clone() };
            let marked: Vec<_> = rows.iter().filter(|r| is_current(r, &own)).map(|r| r.strategy).collect();
            assert_eq!(marked, [row.strategy], "{:?} {:?}", row.client, row.strategy);
        }
        let kafkajs = Scenario { client: Client::Kafkajs, strategy: Strategy::AutoCommit, ..scenario };
        let marked: Vec<_> = rows.iter().filter(|r| is_current(r, &kafkajs)).map(|r| r.strategy).collect();
        assert_eq!(marked, [Strategy::EachMessage]);
    }

    #[test]
    fn pairs_the_core_refuses_are_named_with_the_refusal() {
        // Spring's DefaultErrorHandler: no transactions, Java only, no library's own loop.
        let scenario = Scenario::from_json(
            r#"{"record_failures":[12],"on_error":"seek_to_failed","strategy":"commit_sync_batch"}"#,
        )
        .unwrap();
        let (rows, left_out) = compare_runs(&scenario);
        assert_eq!(rows.len() + left_out.iter().map(|(p, _)| p.len()).sum::<usize>(), PAIRS.len());
        assert!(left_out.iter().any(|(p, _)| p.contains(&(Client::JavaClassic, Strategy::Transactional))));
        let html = table_html(&rows, &left_out, &scenario, 8_200_000);
        assert!(html.contains(r#"<p class="note">Left out: "#), "{html}");
        assert!(html.contains("modelled for loops without transactions"), "{html}");
    }
}
