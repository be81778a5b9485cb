//! The group page's comparisons, as HTML handed to the browser in one string (as the
//! consumer page's `compare` module): the same events under each protocol and assignor,
//! dynamic and static, and each library modelled in a group (`compare::compare_group`,
//! docs/model.md §10, §8.14), and the same share
//! group under each acknowledgement mode and commit strategy (`compare::compare_share`,
//! §11), the latter simulated once per scenario and read at any crash instant.

use super::words::duration_text;
use crate::kit::run::simulate;
use crate::kit::text::fixed;
use crate::kit::text::{escape, left_out_html};
use offset_window_sim::compare::{share_modes_left_out, GroupComparisonRow, LeftOut, GROUP_LIBRARIES};
use offset_window_sim::scenario::{Assignor, OnError, ShareAcknowledgementMode, ShareAcquireMode};
use offset_window_sim::share_report::ShareSummary;
use offset_window_sim::{Client, Run, Scenario, Strategy};

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
    let library = GROUP_LIBRARIES.iter().find(|l| l.1 == s.client);
    let protocol = match s.client {
        Client::JavaConsumerProtocol | Client::LibrdkafkaConsumerProtocol => "consumer protocol (KIP-848)",
        // Their rows use the fixed client.
        Client::JavaConsumerProtocolPreFix | Client::JavaConsumerProtocol4_2_0 => return false,
        _ if library.is_some() => library.map_or("", |l| l.0),
        _ => classic_words(s.assignment_strategy),
    };
    row.protocol == protocol && row.static_membership == s.static_membership
}

/// The group comparison as HTML: one row per protocol and membership, the one shown above
/// marked (`aria-current`), then a note for each refusal that left rows out.
pub fn group_table_html(rows: &[GroupComparisonRow], left_out: &LeftOut, s: &Scenario) -> String {
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
    out.push_str(&left_out_html(left_out, |&(protocol, fixed)| {
        format!("{protocol} · {}", if fixed { "static" } else { "dynamic" })
    }));
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

/// The share comparison at `crash_at_us` as HTML, the row shown above marked: what a crash
/// of the whole group then would lose and deliver again, the worst of that over every
/// instant, and the whole run's throughput (the headers say which is which).
pub fn share_table_html(rows: &[ShareRow], s: &Scenario, crash_at_us: u64) -> String {
    let mut out = format!(
        concat!(
            r#"<table id="share-compare-table" class="cmp"><thead><tr><th scope="col">acknowledgement · sent</th>"#,
            r#"<th scope="col">lost if it crashed at {at} s</th><th scope="col">delivered again if it crashed at {at} s</th>"#,
            r#"<th scope="col">delivered again, worst instant</th>"#,
            r#"<th scope="col">processed in the whole run</th><th scope="col">waiting for commits</th></tr></thead><tbody>"#
        ),
        at = crate::kit::text::seconds_text(crash_at_us)
    );
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
    for (mode, why) in share_modes_left_out(s) {
        let mode = match mode {
            ShareAcknowledgementMode::Implicit => "Implicit acknowledgement",
            ShareAcknowledgementMode::Explicit => "Explicit acknowledgement",
        };
        out.push_str(&format!(r#"<p class="note">{mode} is left out: {}.</p>"#, escape(&why.to_string())));
    }
    out
}

/// One side of the "consumer group vs share group" comparison: the same workload and the
/// same group events run as a consumer group (docs/model.md §10) and as a share group (§11).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersusRow {
    /// The share group's side.
    pub share: bool,
    /// Records lost by the horizon: a consumer group's at its handovers (§10.7); a share
    /// group's records that ended with no run (archived, rejected, §11.5).
    pub lost: u64,
    /// Records processed twice, all partitions: a share group's second, third, … completed
    /// runs within the horizon; a consumer group's repeats as counted at its handovers
    /// (§10.7), including those its new owner has not reached by the horizon.
    pub processed_twice: u64,
    /// Completed runs within the horizon, all partitions.
    pub processed: u64,
    /// The horizon, µs (for the throughput).
    pub horizon_us: u64,
    /// The client the side runs (a share group's is the Java `KafkaShareConsumer`).
    pub client: Client,
}

impl VersusRow {
    /// Completed runs per second of simulated time.
    pub fn per_s(&self) -> f64 {
        self.processed as f64 * 1e6 / self.horizon_us.max(1) as f64
    }
}

/// The runs completed within the horizon and how many of them were repeats, from the
/// `RecordDurable` marks (one per completed run): per partition, a bit per offset between the
/// least and the greatest completed, a repeat being an offset whose bit is already set (a bit
/// set rather than a hash set, whose hashing and table code the page would carry for this
/// alone, or a sort: a big group's 380,000 runs took 20 ms sorted at every move). The offsets
/// between those two were all written to the log, so the bits grow with the records, not
/// with the offsets' values.
fn runs(run: &Run) -> (u64, u64) {
    let mut offsets: Vec<Vec<u64>> = Vec::new();
    let mut processed = 0;
    // Walked as they are made, not as the slice the log would keep.
    for m in run.marks.marks().take_while(|m| m.at_us <= run.scenario.horizon_us) {
        if let offset_window_sim::MarkKind::RecordDurable { offset } = m.kind {
            processed += 1;
            let p = m.partition as usize;
            if offsets.len() <= p {
                offsets.resize_with(p + 1, Vec::new);
            }
            offsets[p].push(offset);
        }
    }
    let mut again = 0;
    for list in &offsets {
        let (Some(&least), Some(&most)) = (list.iter().min(), list.iter().max()) else { continue };
        let mut seen = vec![0u64; ((most - least) / 64 + 1) as usize];
        for &o in list {
            let (word, bit) = (((o - least) / 64) as usize, 1u64 << ((o - least) % 64));
            again += u64::from(seen[word] & bit != 0);
            seen[word] |= bit;
        }
    }
    (processed, again)
}

/// The scenario's workload and events as a consumer group and as a share group; a side the
/// core refuses (an event only one kind of group can have) is left out. `shown`, the run of
/// `s` itself when the caller has it, serves the side that is `s` unchanged, so that only
/// the other side is simulated (the page re-reads this table at every move of an event).
pub fn versus(s: &Scenario, shown: Option<&Run>) -> Vec<VersusRow> {
    versus_sides(s, shown, true)
}

/// The comparison as the page shows it beside the run `shown` of `s`: both kinds of group,
/// except for a group drawn as an overview ([`super::zoom::is_overview`]), whose other kind
/// would be simulated on the page's thread at every change (seconds for issue 28's S-D:
/// 1,024 partitions as a share group): its row only, and `true` for "the other side is left
/// out".
pub fn versus_on_page(s: &Scenario, shown: &Run) -> (Vec<VersusRow>, bool) {
    let big = super::zoom::is_overview(s.partitions as usize, s.share_group());
    (versus_sides(s, Some(shown), !big), big)
}

fn versus_sides(s: &Scenario, shown: Option<&Run>, both: bool) -> Vec<VersusRow> {
    let mut consumer = s.clone();
    consumer.consumption = offset_window_sim::scenario::Consumption::ConsumerGroup;
    if matches!(consumer.on_error, OnError::Release | OnError::Reject) {
        consumer.on_error = OnError::LogAndContinue;
    }
    let mut share = s.clone();
    super::state::make_shareable(&mut share);
    let mut rows = Vec::new();
    for (is_share, scenario) in [(false, consumer), (true, share)] {
        if scenario.validate().is_err() {
            continue;
        }
        if !both && scenario != *s {
            continue;
        }
        let simulated;
        let run = match shown {
            Some(run) if scenario == *s => run,
            _ => match simulate(&scenario) {
                Ok(run) => {
                    simulated = run;
                    &simulated
                }
                Err(_) => continue,
            },
        };
        let (processed, mut processed_twice) = runs(run);
        let lost = if is_share {
            ShareSummary::new(run, scenario.horizon_us).at_crash.lost
        } else {
            // A consumer group's repeats count at each handover (model.md §10.7), also
            // those its new owner has not reached by the horizon (§10.1).
            let g = run.group.as_ref();
            processed_twice = g.map_or(processed_twice, |g| g.duplicated());
            g.map_or(0, |g| g.lost())
        };
        rows.push(VersusRow {
            share: is_share,
            lost,
            processed_twice,
            processed,
            horizon_us: scenario.horizon_us,
            client: scenario.client,
        });
    }
    rows
}

/// The comparison as HTML, the kind of group shown above marked. Its numbers are the whole
/// run's, with the scenario's events and no crash of the whole group (a share group's
/// readouts above are what such a crash would cost): the caption and headers say so.
pub fn versus_html(rows: &[VersusRow], share_shown: bool) -> String {
    let horizon =
        rows.first().map_or(String::new(), |r| format!(" ({})", super::words::duration_text(r.horizon_us)));
    let mut out = format!(
        concat!(
            r#"<table id="versus-table" class="cmp"><caption>The whole run{}, with the events above and no crash of the whole group</caption>"#,
            r#"<thead><tr><th scope="col">the same workload and events as</th>"#,
            r#"<th scope="col">lost in the whole run</th><th scope="col">processed twice in the whole run</th><th scope="col">processed</th>"#,
            r#"<th scope="col">throughput</th></tr></thead><tbody>"#
        ),
        horizon
    );
    for row in rows {
        let current = row.share == share_shown;
        out.push_str(&format!(
            r#"<tr data-kind="{}" data-lost="{}" data-duplicated="{}" data-processed="{}"{}><th scope="row">{}{}</th><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{} records/s</td></tr>"#,
            if row.share { "share" } else { "consumer" },
            row.lost,
            row.processed_twice,
            row.processed,
            if current { r#" class="current" aria-current="true""# } else { "" },
            match (row.share, row.client.is_java()) {
                (true, _) => "a share group (KafkaShareConsumer)".to_string(),
                (false, true) => "a consumer group (KafkaConsumer)".to_string(),
                (false, false) => format!("a consumer group ({})", escape(row.client.label())),
            },
            if current { r#"<strong class="here"> — shown above</strong>"# } else { "" },
            row.lost,
            row.processed_twice,
            row.processed,
            fixed(row.per_s(), 1)
        ));
    }
    out.push_str("</tbody></table>");
    out
}

/// The options of a named-choice key the group page shows: (JSON name, words), for a share
/// group (`share`) or a consumer group.
pub fn choice_options(key: &str, share: bool) -> Vec<(&'static str, &'static str)> {
    use offset_window_sim::scenario::{OffsetReset, OnRevoke};
    fn all<T: Copy>(
        list: &[T],
        name: fn(T) -> &'static str,
        label: fn(T) -> &'static str,
    ) -> Vec<(&'static str, &'static str)> {
        list.iter().map(|&v| (name(v), label(v))).collect()
    }
    match key {
        "client" => all(Client::ALL, Client::name, Client::label),
        "partition.assignment.strategy" => all(Assignor::ALL, Assignor::name, Assignor::label),
        "strategy" if share => {
            SHARE_STRATEGIES.iter().map(|&s| (s.name(), share_strategy_words(s))).collect()
        }
        "strategy" => all(Strategy::ALL, Strategy::name, Strategy::label),
        "on_revoke" => all(OnRevoke::ALL, OnRevoke::name, OnRevoke::label),
        "share.acknowledgement.mode" => all(
            ShareAcknowledgementMode::ALL,
            ShareAcknowledgementMode::name,
            ShareAcknowledgementMode::label,
        ),
        "share.auto.offset.reset" => all(OffsetReset::ALL, OffsetReset::name, OffsetReset::label),
        "share.acquire.mode" => all(ShareAcquireMode::ALL, ShareAcquireMode::name, ShareAcquireMode::label),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use offset_window_sim::compare::{compare_group, compare_group_left_out, compare_share};

    #[test]
    fn the_group_table_is_the_cores_comparison_with_one_row_current() {
        let s = super::super::state::default_scenario();
        let rows = compare_group(&s).unwrap();
        // Four protocols, dynamic and static; sarama, kafka-go, franz-go and KafkaJS with their
        // own balancers, dynamic.
        assert_eq!(rows.len(), 12);
        assert_eq!(rows.iter().filter(|r| group_row_is_current(r, &s)).count(), 1);
        let html = group_table_html(&rows, &Vec::new(), &s);
        assert_eq!(html.matches("<tr data-lost").count(), 12);
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
        let kip = Scenario { client: Client::JavaConsumerProtocol, ..s.clone() };
        assert_eq!(rows.iter().filter(|r| group_row_is_current(r, &kip)).count(), 1);
        for (_, client, assignor) in GROUP_LIBRARIES {
            let v = Scenario { client, assignment_strategy: assignor, ..s.clone() };
            assert_eq!(rows.iter().filter(|r| group_row_is_current(r, &v)).count(), 1, "{client:?}");
        }
    }

    #[test]
    fn rows_the_core_refuses_are_named_with_the_refusal() {
        let s = Scenario { worker_pool: true, ..super::super::state::default_scenario() };
        let (rows, left_out) = compare_group_left_out(&s).unwrap();
        let html = group_table_html(&rows, &left_out, &s);
        assert_eq!(
            html.matches("<tr data-lost").count() + left_out.iter().map(|(r, _)| r.len()).sum::<usize>(),
            12
        );
        assert!(
            html.contains(
                r#"<p class="note">Left out: sarama, range (eager) · dynamic. worker_pool: must be false"#
            ),
            "{html}"
        );
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
            assert!(!html.contains("left out"), "both modes run: {html}");
            assert!(!html.contains("auto_commit") && !html.contains("commit_sync"), "words: {html}");
            let at = crate::kit::text::seconds_text(crash);
            assert!(html.contains(&format!("delivered again if it crashed at {at} s")), "{html}");
        }
    }

    #[test]
    fn the_share_table_says_why_a_mode_is_left_out() {
        let i = super::super::presets::by_name("share-explicit-reject").unwrap();
        let s = super::super::presets::input(i).unwrap().scenario;
        let rows = share_runs(&s);
        assert!(rows.iter().all(|r| r.mode == ShareAcknowledgementMode::Explicit));
        let html = share_table_html(&rows, &s, 12_000_000);
        assert!(
            html.contains(r#"<p class="note">Implicit acknowledgement is left out: on_error: release and reject are acknowledgements"#),
            "{html}"
        );
    }

    #[test]
    fn consumer_group_versus_share_group_on_g1() {
        // G1 (docs/model.md §10.7): the consumer group repeats orders-1's 15 uncommitted
        // records after the session timeout; a share group releases the crashed member's
        // records at once (§11.4), so what was processed and not yet accepted runs again.
        let s = super::super::state::default_scenario();
        let rows = versus(&s, None);
        assert_eq!(rows.len(), 2);
        // The page hands in the run it shows: the same rows, one simulation fewer.
        assert_eq!(versus(&s, Some(&simulate(&s).unwrap())), rows);
        let mut share = s.clone();
        super::super::state::make_shareable(&mut share);
        assert_eq!(versus(&share, Some(&simulate(&share).unwrap())), versus(&share, None));
        // A small group shows both sides on the page; a big one (an overview) its own only.
        assert_eq!(versus_on_page(&s, &simulate(&s).unwrap()), (rows.clone(), false));
        let big = Scenario { partitions: 64, members: 4, ..s.clone() };
        let (page_rows, left_out) = versus_on_page(&big, &simulate(&big).unwrap());
        assert!(left_out);
        assert_eq!(page_rows.len(), 1);
        assert!(!page_rows[0].share);
        let (c, sh) = (&rows[0], &rows[1]);
        assert!(!c.share && sh.share);
        let g = simulate(&s).unwrap().group.unwrap();
        assert_eq!(
            (c.lost, c.processed_twice),
            (g.lost(), g.duplicated()),
            "the marks agree with the report"
        );
        assert_eq!(c.processed_twice, 15);
        assert!(sh.processed_twice < c.processed_twice, "{sh:?}");
        assert!(sh.processed > c.processed, "no 45 s stall: {sh:?} vs {c:?}");
        let html = versus_html(&rows, false);
        assert!(html.contains(r#"data-kind="consumer" data-lost="0" data-duplicated="15""#), "{html}");
        assert_eq!(html.matches(r#"aria-current="true""#).count(), 1);
        // Its numbers are the whole run's, not a crash's: the caption and headers say so.
        assert!(html.contains("<caption>The whole run (60 s), with the events above and no crash of the whole group</caption>"), "{html}");
        assert!(html.contains("processed twice in the whole run"), "{html}");
        assert!(html.contains("a consumer group (KafkaConsumer)"), "{html}");
        // A library's consumer group is named as that library.
        let kafka_go = Scenario { client: Client::KafkaGo, ..s.clone() };
        let html = versus_html(&versus(&kafka_go, None), false);
        assert!(html.contains("a consumer group (kafka-go (Go) v0.4.51)"), "{html}");
    }

    #[test]
    fn every_choice_has_options_in_words() {
        for (key, _, shown) in super::super::words::CHOICES {
            for share in [false, true] {
                if shown.on(share) {
                    let options = choice_options(key, share);
                    assert!(options.len() >= 2, "{key}");
                    // Words, not the JSON names (a label may quote a client's call, `store_offsets()`).
                    assert!(
                        options.iter().all(|(_, l)| !l.contains('_') || l.contains("()")),
                        "{key}: {options:?}"
                    );
                }
            }
        }
    }
}
