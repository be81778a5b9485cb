//! The words and numbers the page shows: exact time formatting (integer µs, no float
//! printing), offsets, offset ranges, and the sentences about a run that more than one view
//! needs (the readouts, the exports, the first frame). Every number is the core's; every
//! sentence is ours, written for a reader, not a programmer: labels, never identifiers.

use offset_window_sim::scenario::{format_millis, parse_millis, US_PER_MS};
use offset_window_sim::{MarkKind, Run, Scenario, Strategy};
use std::ops::Range;

/// Parses seconds with at most six decimals into µs, exactly (no float): `"5.000001"` is
/// 5 000 001 µs.
pub fn parse_seconds(text: &str) -> Result<u64, String> {
    let text = text.trim();
    if text.contains(['e', 'E']) {
        return Err(format!("`{text}` is not a plain number of seconds"));
    }
    // seconds = milliseconds × 10³: let the core's exact decimal reader do the work.
    parse_millis(&format!("{text}e3"))
}

/// µs as seconds, at least three decimals and as many more (up to six) as needed to be
/// exact: `8_200_000` → `"8.200"`, `5_000_001` → `"5.000001"`.
pub fn seconds_text(us: u64) -> String {
    let (s, frac) = (us / (1_000 * US_PER_MS), us % (1_000 * US_PER_MS));
    let digits = format!("{frac:06}");
    let trimmed = digits.trim_end_matches('0');
    let shown = if trimmed.len() <= 3 { &digits[..3] } else { trimmed };
    format!("{s}.{shown}")
}

/// µs as milliseconds text, exact (`5000.001`).
pub fn millis_text(us: u64) -> String {
    format_millis(us)
}

/// `x` (≥ 0) with `decimals` decimals, rounded half away from zero: `fixed(0.1666, 2)` is
/// `"0.17"`. Integer arithmetic only, so the page carries no float-formatting code.
pub fn fixed(x: f64, decimals: u32) -> String {
    let scale = 10u64.pow(decimals);
    let n = (x.max(0.0) * scale as f64).round() as u64;
    if decimals == 0 {
        return n.to_string();
    }
    let frac = (n % scale).to_string();
    let pad = "0".repeat(decimals as usize - frac.len());
    format!("{}.{pad}{frac}", n / scale)
}

/// An offset shifted by the display base, or "none" (a new group with no committed offset,
/// a consumer that has not polled yet).
pub fn offset_text(offset: Option<u64>, base: u64) -> String {
    offset.map_or("none".to_string(), |o| (o.saturating_add(base)).to_string())
}

/// "just after 5.000 s (5.000001 s)" for an instant 1 µs after a whole millisecond, else
/// "at 8.200 s".
pub fn instant_text(us: u64) -> String {
    if us % 1_000 == 1 {
        format!("just after {} s ({} s)", seconds_text(us - 1), seconds_text(us))
    } else {
        format!("at {} s", seconds_text(us))
    }
}

/// As [`instant_text`] without the exact instant: "just after 5.000 s", "at 8.200 s".
pub fn short_instant(us: u64) -> String {
    if us % 1_000 == 1 {
        format!("just after {} s", seconds_text(us - 1))
    } else {
        format!("at {} s", seconds_text(us))
    }
}

/// Half-open offset ranges as a reader writes them, shifted by `base`: `25–39, 41`, or
/// "none".
pub fn ranges(rs: &[Range<u64>], base: u64) -> String {
    if rs.is_empty() {
        return "none".into();
    }
    let parts: Vec<String> = rs
        .iter()
        .map(|r| {
            let (a, b) = (r.start.saturating_add(base), (r.end - 1).saturating_add(base));
            if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        })
        .collect();
    parts.join(", ")
}

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

/// The page's lede, as HTML (the live page and the first frame).
pub const LEDE: &str = concat!(
    r#"<p class="lede">One Kafka consumer reads partition <code>orders-3</code>. Drag the crash "#,
    r#"through time and see which records a restart would lose and which it would process a "#,
    r#"second time. Several consumers in a group, rebalances, share groups: "#,
    r#"<a href="group/">the group page</a>.</p>"#
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
    fn seconds_are_exact() {
        assert_eq!(seconds_text(8_200_000), "8.200");
        assert_eq!(seconds_text(5_000_001), "5.000001");
        assert_eq!(parse_seconds("5.000001"), Ok(5_000_001));
        assert_eq!(parse_seconds(" 13 "), Ok(13_000_000));
        assert!(parse_seconds("1e3").is_err());
        assert!(parse_seconds("1.0000001").is_err());
        assert_eq!(fixed(0.1666, 2), "0.17");
        assert_eq!(fixed(9.05, 1), "9.1");
        assert_eq!(fixed(3.0, 0), "3");
    }

    #[test]
    fn ranges_and_offsets_read_as_a_reader_writes_them() {
        assert_eq!(ranges(&[25..40, 41..42], 0), "25–39, 41");
        assert_eq!(ranges(&[25..40, 50..51], 1000), "1025–1039, 1050");
        assert_eq!(ranges(&[], 0), "none");
        assert_eq!(offset_text(None, 5), "none");
        assert_eq!(offset_text(Some(25), 1000), "1025");
        assert_eq!(instant_text(5_000_001), "just after 5.000 s (5.000001 s)");
        assert_eq!(instant_text(8_200_000), "at 8.200 s");
    }

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
        let i = crate::presets::by_name("s8-offset-expiry-latest").unwrap();
        let run = simulate(&crate::presets::scenario(i).unwrap().scenario).unwrap();
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
