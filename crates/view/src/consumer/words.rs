//! The consumer page's sentences about a run that more than one view needs (the readouts,
//! the exports, the first frame): commits in flight at the crash, what close() left, the
//! crash heading, the scenario in words, the lede and legends. Every number is the core's;
//! every sentence is ours, written for a reader: labels, never identifiers.

use crate::kit::text::seconds_text;
use offset_window_sim::scenario::format_millis;
use offset_window_sim::{MarkKind, Run, Scenario, Strategy};

/// A commit sent before the crash that had not landed yet: the crash cancels it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InFlight {
    /// The offset it would have stored.
    pub offset: u64,
    /// When it was sent, µs.
    pub sent_at_us: u64,
    /// When it would have landed, µs.
    pub lands_at_us: u64,
}

/// The commits in flight at `crash_at_us` (sent before it, landing at or after it).
/// Every commit takes the same round trip, so only marks sent within one round trip
/// before the crash can be in flight: a binary search, then a short scan.
pub fn in_flight(run: &Run, crash_at_us: u64) -> Vec<InFlight> {
    let earliest = crash_at_us.saturating_sub(run.scenario.commit_latency_us);
    let start = run.marks.partition_point(|m| m.at_us < earliest);
    run.marks[start..]
        .iter()
        .take_while(|m| m.at_us < crash_at_us)
        .filter_map(|m| match m.kind {
            MarkKind::CommitSent { offset, .. } if run.lands_at_us(m.at_us) >= crash_at_us => {
                Some(InFlight { offset, sent_at_us: m.at_us, lands_at_us: run.lands_at_us(m.at_us) })
            }
            _ => None,
        })
        .collect()
}

/// The short note under the committed-offset readout when commits are in flight at the
/// crash: "25 in flight, lands at 5.005 s".
pub fn in_flight_note(flights: &[InFlight], base: u64) -> Option<String> {
    let last = flights.last()?;
    Some(format!(
        "{} in flight, lands at {} s",
        last.offset.saturating_add(base),
        seconds_text(last.lands_at_us)
    ))
}

/// The sentence about each commit in flight at the crash.
pub fn in_flight_sentence(c: &InFlight, base: u64) -> String {
    format!(
        "A commit of offset {} was sent at {} s and lands at {} s: a crash before it lands cancels it, \
         so the group restarts from the older committed offset.",
        c.offset.saturating_add(base),
        seconds_text(c.sent_at_us),
        seconds_text(c.lands_at_us)
    )
}

/// What the consumer was doing at the crash instant, when that is not simply running:
/// closed (model §8.6) and not restarted. `None` while it runs. O(log marks) and the few
/// marks of the downtime: the crash slider calls it at every move.
pub fn lifecycle_at(run: &Run, crash_at_us: u64) -> Option<String> {
    let closed = run.closed_at_us.filter(|&c| c < crash_at_us)?;
    let after = run.marks.partition_point(|m| m.at_us < closed);
    let restarted = run.marks[after..]
        .iter()
        .take_while(|m| m.at_us < crash_at_us)
        .any(|m| matches!(m.kind, MarkKind::Restarted { .. }));
    (!restarted).then(|| {
        format!(
            "The consumer closed before this instant: close() returned at {} s. A crash later finds \
             nothing running; these are the numbers after close() returned.",
            seconds_text(closed)
        )
    })
}

/// The heading of the readouts: "Crash at 8.200 s", or, once `close()` has returned before
/// that instant (and the consumer has not restarted), "After close() (returned at 6.005 s)".
pub fn crash_heading(run: &Run, crash_at_us: u64) -> String {
    match run.closed_at_us {
        Some(closed) if lifecycle_at(run, crash_at_us).is_some() => {
            format!("After close() (returned at {} s)", seconds_text(closed))
        }
        _ => format!("Crash at {} s", seconds_text(crash_at_us)),
    }
}

/// A scenario in one line of words, for the exports and the first frame: the client, how it
/// commits, the batch, the processing time, and whatever differs from the defaults that
/// matters to the crash.
pub fn scenario_words(s: &Scenario) -> String {
    let mut parts = vec![
        s.client.label().to_string(),
        s.strategy.label().to_string(),
        format!(
            "{} record{} a poll, {} ms each",
            s.max_poll_records,
            if s.max_poll_records == 1 { "" } else { "s" },
            format_millis(s.record_processing_us)
        ),
    ];
    if s.strategy.is_auto() {
        parts.push(format!("auto-commit every {} ms", format_millis(s.auto_commit_interval_us)));
    }
    if s.strategy == Strategy::CommitSyncEveryN {
        parts.push(format!("a commit every {} records", s.commit_every_records));
    }
    if s.worker_pool {
        parts.push(format!(
            "a worker pool ({} thread{}, {} batches in flight)",
            s.pool_threads,
            if s.pool_threads == 1 { "" } else { "s" },
            s.pool_max_in_flight_batches
        ));
    }
    parts.push(format!("commits take {} ms", format_millis(s.commit_latency_us)));
    if let Some(close) = s.close_at_us {
        parts.push(format!("close() at {} s", seconds_text(close)));
    }
    parts.join(" · ")
}

/// What makes records fail and what the application does then (docs/model.md §12), in
/// words, offsets shifted by `base`: the cause behind a slide's "2 lost". `None` when no
/// record can throw.
pub fn failure_words(s: &Scenario, base: u64) -> Option<String> {
    use offset_window_sim::scenario::OnError;
    if !s.record_failures_possible() {
        return None;
    }
    let mut throws = Vec::new();
    if !s.record_failures.is_empty() {
        let shifted: Vec<u64> = s.record_failures.iter().map(|o| o + base).collect();
        let one = shifted.len() == 1;
        throws.push(format!(
            "record{} {} throw{} on every attempt",
            if one { "" } else { "s" },
            crate::consumer::records::offsets_text(&shifted),
            if one { "s" } else { "" }
        ));
    }
    if s.record_failure_per_mille > 0 {
        throws.push(format!(
            "any attempt throws with a chance of {} % (seed {})",
            crate::kit::text::fixed(s.record_failure_per_mille as f64 / 10.0, 1),
            s.seed
        ));
    }
    let then = match s.on_error {
        OnError::Retry => format!("{} retries, then it is skipped", s.error_retries),
        OnError::SeekToFailed => format!(
            "seek back and deliver it again, up to {} deliveries, then {}",
            s.max_deliveries,
            if s.dead_letter { "the dead-letter topic" } else { "skip it" }
        ),
        other => other.label().to_string(),
    };
    Some(format!("Failing records: {}; on error: {then}.", throws.join(", and ")))
}

/// The page's lede, as HTML (the live page and the first frame).
pub const LEDE: &str = concat!(
    r#"<p class="lede">One Kafka consumer reads partition <code>orders-3</code>. Drag the crash "#,
    r#"through time and see which records a restart would lose and which it would process a "#,
    r#"second time. Several consumers in a group, rebalances, share groups: "#,
    r#"<a href="group/">the group page</a>. Transactional producers, their markers and the last "#,
    r#"stable offset: <a href="transactions/">transactions in the log</a>.</p>"#
);

/// The charts' legend, naming the lines in Kafka's words. Static HTML, handed to the
/// browser as one string (no per-element code in the page); the swatches repeat the
/// chart's dashes and hatching, so it reads without colour too.
pub const LEGEND: &str = concat!(
    r#"<ul class="legend" aria-label="Legend of the charts">"#,
    r#"<li><span class="sw sw-position" aria-hidden="true"></span><span><b>position</b>: next offset poll() hands out (dashed)</span></li>"#,
    r#"<li><span class="sw sw-durable" aria-hidden="true"></span><span><b>durable frontier</b>: first record whose side effect has not landed</span></li>"#,
    r#"<li><span class="sw sw-committed" aria-hidden="true"></span><span><b>committed offset</b>: what the group coordinator stored</span></li>"#,
    r#"<li><span class="sw sw-landed" aria-hidden="true"></span><span>a commit lands (OffsetCommit stored)</span></li>"#,
    r#"<li><span class="sw sw-inflight" aria-hidden="true"></span><span>commits lane: a commit in flight, filled when the loop waits for it (commitSync, commitTransaction), hollow when not</span></li>"#,
    r#"<li><span class="sw sw-duplicated" aria-hidden="true"></span><span>crash here: records processed twice (/ hatching, above the committed offset)</span></li>"#,
    r#"<li><span class="sw sw-lost" aria-hidden="true"></span><span>crash here: records lost (× hatching, below the committed offset)</span></li>"#,
    r#"<li><span class="sw sw-crash" aria-hidden="true"></span><span>the crash: drag it on either chart, or use the slider</span></li>"#,
    r#"<li><span class="sw sw-failed" aria-hidden="true">×</span><span>a commit that failed (CommitFailedException, a retriable error): it never lands</span></li>"#,
    r#"<li><span class="sw sw-evicted" aria-hidden="true"></span><span>the member is evicted: no poll() for max.poll.interval.ms (dashed)</span></li>"#,
    r#"<li><span class="sw sw-closed" aria-hidden="true"></span><span>close() returned (solid grey); the consumer restarted (dotted grey)</span></li>"#,
    r#"<li><span class="sw sw-rec-failed" aria-hidden="true"></span><span>a record threw (one ring per attempt; click a record to make it throw)</span></li>"#,
    r#"<li><span class="sw sw-rec-skipped" aria-hidden="true"></span><span>a record given up and skipped: it never runs</span></li>"#,
    r#"<li><span class="sw sw-beyond" aria-hidden="true"></span><span>records finished beyond the durable frontier (dotted: the frontier waits at a record skipped or still running)</span></li>"#,
    r#"<li><span class="sw sw-rec-dead" aria-hidden="true"></span><span>a record sent to the dead-letter topic</span></li>"#,
    r#"<li><span class="sw sw-stopped" aria-hidden="true"></span><span>the partition stopped at this offset</span></li>"#,
    "</ul>"
);

/// The record marks in one line (docs/model.md §12), under the charts while a record can
/// throw.
pub const LEGEND_RECORDS: &str = concat!(
    r#"<ul class="legend compact records-legend" id="records-legend" aria-label="Legend of the record marks">"#,
    r#"<li><span class="sw sw-rec-failed" aria-hidden="true"></span>threw</li>"#,
    r#"<li><span class="sw sw-rec-skipped" aria-hidden="true"></span>skipped</li>"#,
    r#"<li><span class="sw sw-beyond" aria-hidden="true"></span>finished beyond the frontier</li>"#,
    r#"<li><span class="sw sw-rec-dead" aria-hidden="true"></span>dead-lettered</li>"#,
    r#"<li><span class="sw sw-stopped" aria-hidden="true"></span>partition stopped</li>"#,
    "</ul>"
);

/// The legend in one line, under the charts (and in the embed).
pub const LEGEND_COMPACT: &str = concat!(
    r#"<ul class="legend compact" aria-label="Legend">"#,
    r#"<li><span class="sw sw-position" aria-hidden="true"></span>position</li>"#,
    r#"<li><span class="sw sw-durable" aria-hidden="true"></span>durable frontier</li>"#,
    r#"<li><span class="sw sw-committed" aria-hidden="true"></span>committed offset</li>"#,
    r#"<li><span class="sw sw-duplicated" aria-hidden="true"></span>processed twice</li>"#,
    r#"<li><span class="sw sw-lost" aria-hidden="true"></span>lost</li>"#,
    r#"<li><span class="sw sw-crash" aria-hidden="true"></span>the crash</li>"#,
    "</ul>"
);
#[cfg(test)]
mod tests {
    use super::*;
    use offset_window_sim::simulate;
    #[test]
    fn a_crash_just_after_the_commit_says_it_is_in_flight() {
        let run = simulate(&Scenario::default()).unwrap();
        let flights = in_flight(&run, 5_001_000);
        assert_eq!(flights, vec![InFlight { offset: 25, sent_at_us: 5_000_000, lands_at_us: 5_005_000 }]);
        assert_eq!(in_flight_note(&flights, 0).unwrap(), "25 in flight, lands at 5.005 s");
        assert!(in_flight(&run, 5_006_000).is_empty(), "landed");
        assert!(
            in_flight(&run, 5_000_000).is_empty(),
            "not yet sent: events at the crash instant do not happen"
        );
    }

    #[test]
    fn after_close_the_heading_says_so() {
        let s = Scenario { close_at_us: Some(6_000_000), ..Scenario::default() };
        let run = simulate(&s).unwrap();
        let heading = crash_heading(&run, 8_200_000);
        assert!(heading.starts_with("After close() (returned at 6.0"), "{heading}");
        assert_eq!(crash_heading(&run, 3_000_000), "Crash at 3.000 s");
        assert!(lifecycle_at(&run, 8_200_000).unwrap().contains("close() returned"));
    }

    #[test]
    fn after_a_restart_a_crash_is_a_crash_again() {
        let i = crate::consumer::presets::by_name("s8-offset-expiry-latest").unwrap();
        let run = simulate(&crate::consumer::presets::scenario(i).unwrap().scenario).unwrap();
        assert!(lifecycle_at(&run, 650_000_000).is_some(), "closed at 601 s, down 100 s");
        assert_eq!(crash_heading(&run, 800_000_000), "Crash at 800.000 s");
    }

    #[test]
    fn scenario_words_use_labels() {
        let words = scenario_words(&Scenario::default());
        assert!(words.contains("5 records a poll, 200 ms each"), "{words}");
        assert!(!words.contains('_'), "no identifiers: {words}");
    }
}

#[cfg(test)]
mod failure_words_tests {
    use super::failure_words;
    use offset_window_sim::Input;

    #[test]
    fn failure_words_name_the_records_and_the_policy() {
        let s = |json: &str| Input::from_json(json).unwrap().scenario;
        assert_eq!(failure_words(&s("{}"), 0), None);
        assert_eq!(
            failure_words(&s(r#"{"record_failures": [12, 30, 31, 32]}"#), 1000).as_deref(),
            Some("Failing records: records 1012, 1030–1032 throw on every attempt; on error: log and go on (the record is skipped).")
        );
        assert_eq!(
            failure_words(
                &s(r#"{"record_failures": [3], "record_failure_probability": 0.05, "seed": 4, "on_error": "seek_to_failed", "max_deliveries": 3, "dead_letter": true}"#),
                0
            )
            .as_deref(),
            Some("Failing records: record 3 throws on every attempt, and any attempt throws with a chance of 5.0 % (seed 4); on error: seek back and deliver it again, up to 3 deliveries, then the dead-letter topic.")
        );
    }
}
