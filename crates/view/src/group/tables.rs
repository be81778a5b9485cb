//! The group page's comparisons, as HTML handed to the browser in one string (as the
//! consumer page's, [`crate::compare`]): the same events under each protocol and assignor,
//! dynamic and static (`compare::compare_group`, docs/model.md §10), and the same share
//! group under each acknowledgement mode and commit strategy (`compare::compare_share`,
//! §11), the latter simulated once per scenario and read at any crash instant.

use super::words::duration_text;
use crate::compare::escape;
use crate::text::fixed;
use offset_window_sim::compare::GroupComparisonRow;
use offset_window_sim::scenario::{Assignor, ShareAcknowledgementMode};
use offset_window_sim::share_report::ShareSummary;
use offset_window_sim::{simulate, Client, Run, Scenario, Strategy};

/// The core's protocol words for the classic assignor `a` (`compare::compare_group`'s rows).
fn classic_words(a: Assignor) -> &'static str {
    match a {
        Assignor::Range => "classic, range (eager)",
        Assignor::RoundRobin => "classic, round robin (eager)",
        Assignor::CooperativeSticky => "classic, cooperative sticky",
    }
}

/// Whether a group comparison row is what the page shows now.
pub fn group_row_is_current(row: &GroupComparisonRow, s: &Scenario) -> bool {
    let protocol = match s.client {
        Client::JavaConsumerProtocol => "consumer protocol (KIP-848)",
        Client::JavaConsumerProtocolPreFix => return false, // its rows use the fixed client
        _ => classic_words(s.assignment_strategy),
    };
    row.protocol == protocol && row.static_membership == s.static_membership
}

/// The group comparison as HTML: one row per protocol and membership, the one shown above
/// marked (`aria-current`).
pub fn group_table_html(rows: &[GroupComparisonRow], s: &Scenario) -> String {
    let mut out = String::from(concat!(
        r#"<table id="group-compare-table" class="cmp"><thead><tr><th scope="col">protocol · membership</th>"#,
        r#"<th scope="col">lost</th><th scope="col">processed twice</th><th scope="col">stalled (all partitions)</th>"#,
        r#"<th scope="col">rebalances</th></tr></thead><tbody>"#
    ));
    for row in rows {
        let current = group_row_is_current(row, s);
        out.push_str(&format!(
            r#"<tr data-lost="{}" data-duplicated="{}" data-rebalances="{}"{}><th scope="row">{} · {}{}</th><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td></tr>"#,
            row.lost,
            row.duplicated,
            row.rebalances,
            if current { r#" class="current" aria-current="true""# } else { "" },
            escape(row.protocol),
            if row.static_membership { "static (group.instance.id)" } else { "dynamic" },
            if current { r#"<strong class="here"> — shown above</strong>"# } else { "" },
            row.lost,
            row.duplicated,
            duration_text(row.stalled_us),
            row.rebalances
        ));
    }
    out.push_str("</tbody></table>");
    out
}

/// One row of the share comparison: an acknowledgement mode, a strategy and its run.
#[derive(Clone, Debug)]
pub struct ShareRow {
    /// `share.acknowledgement.mode`.
    pub mode: ShareAcknowledgementMode,
    /// When acknowledgements are sent.
    pub strategy: Strategy,
    /// The scenario's run under them.
    pub run: Run,
}

/// The four strategies a share consumer has (docs/model.md §11.3), in the table's order.
pub const SHARE_STRATEGIES: [Strategy; 4] =
    [Strategy::AutoCommit, Strategy::CommitSyncBatch, Strategy::CommitAsyncBatch, Strategy::CommitSyncRecord];

/// What a strategy means for a share consumer, in words.
pub fn share_strategy_words(s: Strategy) -> &'static str {
    match s {
        Strategy::AutoCommit => "with the next poll()",
        Strategy::CommitSyncBatch => "commitSync() after each batch",
        Strategy::CommitAsyncBatch => "commitAsync() after each batch",
        Strategy::CommitSyncRecord => "commitSync() after each record",
        other => other.label(),
    }
}

/// The share group under each acknowledgement mode and strategy (as
/// `compare::compare_share` runs them), each simulated once; rows the core refuses are left
/// out.
pub fn share_runs(s: &Scenario) -> Vec<ShareRow> {
    let mut rows = Vec::new();
    for &mode in ShareAcknowledgementMode::ALL {
        for strategy in SHARE_STRATEGIES {
            let variant = Scenario { share_acknowledgement_mode: mode, strategy, ..s.clone() };
            if variant.validate().is_err() {
                continue;
            }
            if let Ok(run) = simulate(&variant) {
                rows.push(ShareRow { mode, strategy, run });
            }
        }
    }
    rows
}

/// The share comparison at `crash_at_us` as HTML, the row shown above marked.
pub fn share_table_html(rows: &[ShareRow], s: &Scenario, crash_at_us: u64) -> String {
    let mut out = String::from(concat!(
        r#"<table id="share-compare-table" class="cmp"><thead><tr><th scope="col">acknowledgement · sent</th>"#,
        r#"<th scope="col">lost</th><th scope="col">delivered again</th><th scope="col">worst</th>"#,
        r#"<th scope="col">processed</th><th scope="col">waiting for commits</th></tr></thead><tbody>"#
    ));
    for row in rows {
        let summary = ShareSummary::new(&row.run, crash_at_us);
        let current = row.mode == s.share_acknowledgement_mode && row.strategy == s.strategy;
        let mode = match row.mode {
            ShareAcknowledgementMode::Implicit => "implicit",
            ShareAcknowledgementMode::Explicit => "explicit (acknowledge() each record)",
        };
        out.push_str(&format!(
            r#"<tr data-lost="{}" data-duplicated="{}" data-processed="{}"{}><th scope="row">{} · {}{}</th><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{} %</td></tr>"#,
            summary.at_crash.lost,
            summary.at_crash.duplicated,
            summary.processed,
            if current { r#" class="current" aria-current="true""# } else { "" },
            mode,
            escape(share_strategy_words(row.strategy)),
            if current { r#"<strong class="here"> — shown above</strong>"# } else { "" },
            summary.at_crash.lost,
            summary.at_crash.duplicated,
            summary.worst_duplicated,
            summary.processed,
            fixed(row.run.blocked_on_commits() * 100.0, 1)
        ));
    }
    out.push_str("</tbody></table>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use offset_window_sim::compare::{compare_group, compare_share};

    #[test]
    fn the_group_table_is_the_cores_comparison_with_one_row_current() {
        let s = super::super::state::default_scenario();
        let rows = compare_group(&s).unwrap();
        assert_eq!(rows.len(), 8);
        assert_eq!(rows.iter().filter(|r| group_row_is_current(r, &s)).count(), 1);
        let html = group_table_html(&rows, &s);
        assert_eq!(html.matches("<tr data-lost").count(), 8);
        assert_eq!(html.matches(r#"aria-current="true""#).count(), 1);
        assert!(html.contains("classic, range (eager) · dynamic<strong"), "{html}");
        // G1 as shown: 15 processed twice, one rebalance.
        assert!(
            html.contains(r#"data-lost="0" data-duplicated="15" data-rebalances="1" class="current""#),
            "{html}"
        );
        for a in Assignor::ALL {
            for static_membership in [false, true] {
                let v = Scenario { assignment_strategy: *a, static_membership, ..s.clone() };
                assert_eq!(rows.iter().filter(|r| group_row_is_current(r, &v)).count(), 1, "{a:?}");
            }
        }
        let kip = Scenario { client: Client::JavaConsumerProtocol, ..s };
        assert_eq!(rows.iter().filter(|r| group_row_is_current(r, &kip)).count(), 1);
    }

    #[test]
    fn the_share_table_equals_the_cores_comparison_at_any_crash() {
        let i = super::super::presets::by_name("share-hang-waits-for-the-lock").unwrap();
        let s = super::super::presets::input(i).unwrap().scenario;
        let rows = share_runs(&s);
        for crash in [1_000_001, 20_000_000, 45_000_000] {
            let core = compare_share(&s, crash).unwrap();
            assert_eq!(rows.len(), core.len());
            for (row, c) in rows.iter().zip(&core) {
                let ours = ShareSummary::new(&row.run, crash);
                assert_eq!((row.mode.name(), row.strategy.name()), (c.acknowledgement_mode, c.strategy));
                assert_eq!(
                    (ours.at_crash.lost, ours.at_crash.duplicated, ours.worst_duplicated, ours.processed),
                    (c.lost, c.duplicated, c.worst_duplicated, c.processed)
                );
            }
            let html = share_table_html(&rows, &s, crash);
            assert_eq!(html.matches(r#"aria-current="true""#).count(), 1);
            assert!(!html.contains("auto_commit") && !html.contains("commit_sync"), "words: {html}");
        }
    }
}
