//! One record at a time on the page (docs/model.md §12): which record a click on the main
//! chart lands on, the two text fields that place failures and slow records (offsets typed
//! as a reader writes them, `12, 30–32` and `3: 6000`), and what became of the records
//! that threw, in words.
//!
//! A record sits on the main chart where its attempt ended: at the instant it completed
//! (`MarkKind::RecordDurable`, or `RecordProcessed` inside a transaction) or threw
//! (`RecordFailed`, `RecordSkipped`, `RecordDeadLettered`), halfway up its offset's row,
//! which is where the durable frontier steps over it in a loop that processes in order.

use crate::kit::draw::Frame;
use crate::kit::text::{ranges, seconds_text};
use offset_window_sim::keys::MAX_LIST;
use offset_window_sim::scenario::{ascending_unique, format_millis, ByOffset, MAX_OFFSET};
use offset_window_sim::{MarkKind, Run};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::{Map, Value};
use std::ops::Range;

/// The scenario key of the failing records.
pub const FAILURES_KEY: &str = "record_failures";
/// The scenario key of the slow records.
pub const SLOW_KEY: &str = "record_processing_ms_by_offset";

/// The offset of a record mark of partition 0 (the one the chart draws), if `kind` is one.
fn record_offset(kind: &MarkKind) -> Option<u64> {
    match *kind {
        MarkKind::RecordDurable { offset }
        | MarkKind::RecordProcessed { offset }
        | MarkKind::RecordFailed { offset }
        | MarkKind::RecordSkipped { offset }
        | MarkKind::RecordDeadLettered { offset } => Some(offset),
        _ => None,
    }
}

/// Where record `offset`'s mark at `at_us` is drawn on frame `f`, device px.
pub fn record_point(f: &Frame, at_us: u64, offset: u64) -> (f64, f64) {
    (f.x(at_us), f.y(offset as f64 + 0.5))
}

/// The record whose mark lies nearest to (`x`, `y`) (device px on the main chart's frame
/// `f`), within `radius` device px; `None` when no record is that close (the click then
/// moves the crash). Only marks within `radius` in time are looked at: a binary search on
/// the marks, then a scan of that window.
pub fn record_at(run: &Run, f: &Frame, x: f64, y: f64, radius: f64) -> Option<u64> {
    if run.scenario.share_group() || run.scenario.script.is_some() {
        return None; // not this page's records (failures are refused for scripts)
    }
    let from = f.time_at(x - radius).saturating_sub(1);
    let to = f.time_at(x + radius).saturating_add(1);
    let start = run.marks.partition_point(|m| m.at_us < from);
    let mut best: Option<(f64, u64)> = None;
    for m in run.marks[start..].iter().take_while(|m| m.at_us <= to) {
        let Some(offset) = record_offset(&m.kind).filter(|_| m.partition == 0) else { continue };
        let (mx, my) = record_point(f, m.at_us, offset);
        let d = (mx - x).powi(2) + (my - y).powi(2);
        if d <= radius * radius && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, offset));
        }
    }
    best.map(|(_, offset)| offset)
}

/// Draws what became of the records that threw (docs/model.md §12) on the main chart, where
/// each attempt ended: a ring in the lost colour per failed attempt, a filled square where a
/// record was given up (skipped), a triangle where it went to the dead-letter topic, and a
/// bar in the stopped record's row from where the partition stopped to the chart's right
/// edge. Marks closer than a few
/// px to the last one of their kind are left out (seeded failures can throw at every poll).
pub fn draw_record_marks<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    run: &Run,
    f: &Frame,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    if run.scenario.share_group() || !run.scenario.record_failures_possible() {
        return Ok(());
    }
    let p = f.pal();
    let r = f.px(5.0);
    let halo = p.background.stroke_width(f.width_px(4.0));
    let mut last: [(f64, f64); 3] = [(f64::MIN, f64::MIN); 3];
    let mut near = |kind: usize, x: f64, y: f64| {
        let (lx, ly) = last[kind];
        let close = (x - lx).abs() < r && (y - ly).abs() < r;
        if !close {
            last[kind] = (x, y);
        }
        close
    };
    for m in run.marks.iter().take_while(|m| m.at_us <= f.horizon_us).filter(|m| m.partition == 0) {
        let at = |offset: u64| {
            let (x, y) = record_point(f, m.at_us, offset);
            (x.round() as i32, y.round() as i32)
        };
        match m.kind {
            MarkKind::RecordFailed { offset } => {
                let (x, y) = at(offset);
                if !near(0, x as f64, y as f64) {
                    root.draw(&Circle::new((x, y), r as i32, halo))?;
                    root.draw(&Circle::new((x, y), r as i32, p.lost.stroke_width(f.width_px(2.0))))?;
                }
            }
            MarkKind::RecordSkipped { offset } => {
                let (x, y) = at(offset);
                if !near(1, x as f64, y as f64) {
                    let h = (r * 0.9) as i32;
                    root.draw(&Rectangle::new(
                        [(x - h - 1, y - h - 1), (x + h + 1, y + h + 1)],
                        p.background.filled(),
                    ))?;
                    root.draw(&Rectangle::new([(x - h, y - h), (x + h, y + h)], p.lost.filled()))?;
                }
            }
            MarkKind::RecordDeadLettered { offset } => {
                let (x, y) = at(offset);
                if !near(2, x as f64, y as f64) {
                    let h = (r * 1.2) as i32;
                    let tri = vec![(x, y - h), (x + h, y + h), (x - h, y + h)];
                    root.draw(&Polygon::new(tri.clone(), p.background.filled()))?;
                    root.draw(&PathElement::new(
                        [tri.clone(), vec![tri[0]]].concat(),
                        p.durable.stroke_width(f.width_px(2.5)),
                    ))?;
                }
            }
            MarkKind::PartitionStopped { offset } => {
                // In the record's own row, above the lines that stop at its offset.
                let (x, y) = at(offset);
                let band = f.width_px(3.0) as i32;
                root.draw(&Rectangle::new(
                    [(x, y - band), (f.right.round() as i32, y + band)],
                    p.lost.mix(0.55).filled(),
                ))?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// `list` with `offset` added, or taken out if it was there; ascending, without repeats.
pub fn toggled(list: &[u64], offset: u64) -> Vec<u64> {
    let mut out: Vec<u64> = list.iter().copied().filter(|&o| o != offset).collect();
    if out.len() == list.len() {
        out.push(offset);
    }
    ascending_unique(out)
}

/// Offsets as a reader writes them, consecutive ones as a range: `12, 30–32`; empty for
/// none.
pub fn offsets_text(list: &[u64]) -> String {
    let mut rs: Vec<Range<u64>> = Vec::new();
    for o in ascending_unique(list.iter().copied()) {
        match rs.last_mut() {
            Some(r) if r.end == o => r.end = o + 1,
            _ => rs.push(o..o + 1),
        }
    }
    if rs.is_empty() {
        String::new()
    } else {
        ranges(&rs, 0)
    }
}

/// Reads offsets typed into the "records that throw" field: whole numbers and ranges
/// (`20-24` or `20–24`) separated by commas or spaces. The error is in words: what the field
/// takes.
pub fn parse_offsets(text: &str) -> Result<Vec<u64>, String> {
    let refuse = || {
        format!(
            "offsets from 0 to {MAX_OFFSET} and ranges such as 20–24, separated by commas, at most {MAX_LIST} records"
        )
    };
    let mut out = Vec::new();
    for part in text.split([',', ' ', ';', '\t']).map(str::trim).filter(|p| !p.is_empty()) {
        let number = |t: &str| t.trim().parse::<u64>().ok().filter(|o| *o <= MAX_OFFSET);
        let (a, b) = match part.split_once(['-', '–']) {
            Some((a, b)) => (number(a), number(b)),
            None => (number(part), number(part)),
        };
        let (Some(a), Some(b)) = (a, b) else { return Err(refuse()) };
        if b < a || b - a >= MAX_LIST as u64 || out.len() as u64 + (b - a) >= MAX_LIST as u64 {
            return Err(refuse());
        }
        out.extend(a..=b);
    }
    Ok(ascending_unique(out))
}

/// Slow records as a reader writes them: `3: 6000, 12: 3000` (offset: milliseconds).
pub fn durations_text(by: &ByOffset) -> String {
    let parts: Vec<String> = by.0.iter().map(|(o, us)| format!("{o}: {}", format_millis(*us))).collect();
    parts.join(", ")
}

/// Reads the "slow records" field, `offset: ms` pairs separated by commas (`=` also works),
/// into the scenario's JSON object. The core checks the ranges; this only reads the shape.
pub fn parse_durations(text: &str) -> Result<Value, String> {
    let mut map = Map::new();
    for part in text.split([',', ';']).map(str::trim).filter(|p| !p.is_empty()) {
        let pair = part.split_once([':', '=']).map(|(o, ms)| (o.trim(), ms.trim()));
        let Some((offset, ms)) = pair.filter(|(o, ms)| !o.is_empty() && !ms.is_empty()) else {
            return Err(
                "pairs of an offset and its processing time in ms, such as 3: 6000, separated by commas"
                    .into(),
            );
        };
        let ms = ms.trim_end_matches("ms").trim();
        let number = ms.parse::<serde_json::Number>().map(Value::Number).unwrap_or(Value::String(ms.into()));
        map.insert(offset.to_string(), number);
    }
    Ok(Value::Object(map))
}

/// Failing or slow offsets that the log never holds within the horizon (at or past the log
/// end offset at the horizon, docs/model.md §8.9), said with the field's label and the
/// offsets the log does hold; `None` when every offset is in the log. Not a refusal: the
/// core accepts any offset (a longer horizon or a producer may reach it), but the reader
/// should know that these never throw.
pub fn beyond_log(s: &offset_window_sim::Scenario) -> Option<String> {
    let end = s.log_end_at(s.horizon_us);
    let held = if end > s.log_start_offset {
        format!("the log holds offsets {} to {} by the end of the horizon", s.log_start_offset, end - 1)
    } else {
        "the log is empty".to_string()
    };
    let failing: Vec<u64> = s.record_failures.iter().copied().filter(|&o| o >= end).collect();
    let slow: Vec<u64> = s.record_processing_by_offset_us.0.keys().copied().filter(|&o| o >= end).collect();
    let say = |key: &str, list: &[u64]| {
        let (it, verb) = if list.len() == 1 { ("it is", "is") } else { ("they are", "are") };
        format!(
            "{}: {} {verb} beyond the log ({held}), so {it} never read",
            crate::consumer::fields::label(key),
            offsets_text(list)
        )
    };
    let mut parts = Vec::new();
    if !failing.is_empty() {
        parts.push(say(FAILURES_KEY, &failing));
    }
    if !slow.is_empty() {
        parts.push(say(SLOW_KEY, &slow));
    }
    (!parts.is_empty()).then(|| parts.join(". ") + ".")
}

/// What became of the records that threw within the horizon, from the marks of partition 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcomes {
    /// Offsets with at least one failed attempt.
    pub failed: Vec<Range<u64>>,
    /// Failed attempts in all.
    pub failed_attempts: u64,
    /// Offsets given up on without a run.
    pub skipped: Vec<Range<u64>>,
    /// Offsets sent to the dead-letter topic.
    pub dead_lettered: Vec<Range<u64>>,
    /// Where and when the partition stopped.
    pub stopped: Option<(u64, u64)>,
}

/// The outcomes of `run` (O(marks); the page memoises it on the run).
pub fn outcomes(run: &Run) -> Outcomes {
    let (mut failed, mut skipped, mut dead) = (Vec::new(), Vec::new(), Vec::new());
    let mut out = Outcomes::default();
    for m in run.marks.iter().take_while(|m| m.at_us <= run.scenario.horizon_us) {
        if m.partition != 0 {
            continue;
        }
        match m.kind {
            MarkKind::RecordFailed { offset } => {
                failed.push(offset);
                out.failed_attempts += 1;
            }
            MarkKind::RecordSkipped { offset } => skipped.push(offset),
            MarkKind::RecordDeadLettered { offset } => dead.push(offset),
            MarkKind::PartitionStopped { offset } => out.stopped = Some((offset, m.at_us)),
            _ => {}
        }
    }
    let as_ranges = |v: Vec<u64>| {
        let mut rs: Vec<Range<u64>> = Vec::new();
        for o in ascending_unique(v) {
            match rs.last_mut() {
                Some(r) if r.end == o => r.end = o + 1,
                _ => rs.push(o..o + 1),
            }
        }
        rs
    };
    out.failed = as_ranges(failed);
    out.skipped = as_ranges(skipped);
    out.dead_lettered = as_ranges(dead);
    out
}

/// The chart's record marks in words, for its text alternative; `None` when no record can
/// throw. Offsets are shifted by `base`.
pub fn outcomes_sentence(run: &Run, base: u64) -> Option<String> {
    if !run.scenario.record_failures_possible() {
        return None;
    }
    let o = outcomes(run);
    if o.failed_attempts == 0 {
        return Some("No record threw within the horizon.".into());
    }
    let times = |n: u64| if n == 1 { "1 failed attempt".to_string() } else { format!("{n} failed attempts") };
    let mut s = format!(
        "Records that threw (a ring on the chart at each attempt): {} ({}).",
        ranges(&o.failed, base),
        times(o.failed_attempts)
    );
    if !o.skipped.is_empty() {
        s.push_str(&format!(
            " Given up and skipped, never run (a square): {}; once a commit passes them they are lost, crash or not.",
            ranges(&o.skipped, base)
        ));
    }
    if !o.dead_lettered.is_empty() {
        s.push_str(&format!(
            " Sent to the dead-letter topic (a triangle): {}.",
            ranges(&o.dead_lettered, base)
        ));
    }
    if let Some((offset, at)) = o.stopped {
        s.push_str(&format!(
            " The partition stopped at offset {} at {} s (a bar to the end of the chart): nothing after it is processed.",
            offset.saturating_add(base),
            seconds_text(at)
        ));
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consumer::charts::main_frame;
    use offset_window_sim::{simulate, Scenario};

    #[test]
    fn offsets_read_and_print_as_a_reader_writes_them() {
        assert_eq!(parse_offsets(" 12, 30-32 7;7 "), Ok(vec![7, 12, 30, 31, 32]));
        assert_eq!(parse_offsets("20–21"), Ok(vec![20, 21]));
        assert_eq!(parse_offsets(""), Ok(vec![]));
        assert!(parse_offsets("x").unwrap_err().contains("offsets from 0"));
        assert!(parse_offsets("5-3").is_err());
        assert!(parse_offsets("0-5000").is_err(), "at most 1000 records");
        assert!(parse_offsets("1000000000001").is_err());
        assert_eq!(offsets_text(&[32, 12, 30, 31]), "12, 30–32");
        assert_eq!(offsets_text(&[]), "");
        assert_eq!(toggled(&[3, 12], 12), vec![3]);
        assert_eq!(toggled(&[12], 3), vec![3, 12]);
    }

    #[test]
    fn offsets_beyond_the_log_are_named_with_the_offsets_it_holds() {
        let mut s = Scenario { record_failures: vec![12, 100_000, 100_001], ..Scenario::default() };
        assert_eq!(
            beyond_log(&s).unwrap(),
            "records that throw: 100000–100001 are beyond the log (the log holds offsets 0 to 99999 by the end \
             of the horizon), so they are never read."
        );
        s.record_failures = vec![12];
        assert_eq!(beyond_log(&s), None);
        s.set_key(SLOW_KEY, &parse_durations("200000: 5").unwrap()).unwrap();
        assert!(beyond_log(&s).unwrap().starts_with("slow records: 200000 is beyond the log"));
    }

    #[test]
    fn durations_read_and_print_exactly() {
        let v = parse_durations("3: 6000, 12=0.5 ms").unwrap();
        assert_eq!(v.to_string(), r#"{"12":0.5,"3":6000}"#);
        let mut s = Scenario::default();
        s.set_key(SLOW_KEY, &v).unwrap();
        assert_eq!(durations_text(&s.record_processing_by_offset_us), "3: 6000, 12: 0.5");
        assert!(parse_durations("3").is_err());
        assert!(parse_durations("3:").is_err());
        assert_eq!(parse_durations("").unwrap(), Value::Object(Map::new()));
    }

    #[test]
    fn a_click_on_record_12_finds_it_and_nothing_else() {
        let run = simulate(&Scenario::default()).unwrap();
        let f = main_frame((840, 420), 1.0, &run);
        // Record 12 completes at 2.6 s (200 ms each, in order).
        let (x, y) = record_point(&f, 2_600_000, 12);
        assert_eq!(record_at(&run, &f, x, y, 8.0), Some(12));
        assert_eq!(record_at(&run, &f, x + 3.0, y - 2.0, 8.0), Some(12));
        // Where the e2e drags the crash (8.2 s, mid-height): no record there.
        assert_eq!(record_at(&run, &f, f.x(8_200_000), (f.top + f.bottom) / 2.0, 16.0), None);
    }

    #[test]
    fn outcomes_say_what_became_of_record_12() {
        let s = Scenario {
            record_failures: vec![12],
            strategy: offset_window_sim::Strategy::CommitSyncBatch,
            ..Scenario::default()
        };
        let run = simulate(&s).unwrap();
        let o = outcomes(&run);
        assert_eq!((o.failed_attempts, o.stopped), (1, None));
        assert_eq!(o.skipped, std::iter::once(12..13).collect::<Vec<_>>());
        let text = outcomes_sentence(&run, 1000).unwrap();
        assert!(text.contains("1012 (1 failed attempt)") && text.contains("skipped, never run"), "{text}");
        assert_eq!(outcomes_sentence(&simulate(&Scenario::default()).unwrap(), 0), None);
    }

    #[test]
    #[cfg(feature = "svg")]
    fn the_chart_marks_failed_skipped_and_dead_lettered_records() {
        use crate::kit::backend::Backend;
        let svg_of = |s: &Scenario| {
            let run = simulate(s).unwrap();
            let f = main_frame((840, 420), 1.0, &run);
            let mut svg = String::new();
            {
                let root = Backend::svg(&mut svg, (840, 420)).into_drawing_area();
                crate::consumer::charts::draw_main(&root, &run, &f).unwrap();
            }
            svg
        };
        let lost = "#D53E4F";
        let plain = svg_of(&Scenario::default());
        // Record 12 skipped at 2.6 s (log and go on): one ring, one square.
        let skipped = svg_of(&Scenario { record_failures: vec![12], ..Scenario::default() });
        let rings = |svg: &str| svg.matches("<circle").count();
        assert!(rings(&skipped) > rings(&plain), "a ring where record 12 threw");
        assert!(
            skipped.matches(&format!("fill=\"{lost}\"")).count()
                > plain.matches(&format!("fill=\"{lost}\"")).count()
        );
        // Spring's handler with a dead-letter topic: ten rings, then a triangle (a polygon).
        let dead = svg_of(&Scenario {
            record_failures: vec![12],
            on_error: offset_window_sim::scenario::OnError::SeekToFailed,
            dead_letter: true,
            ..Scenario::default()
        });
        assert!(rings(&dead) >= rings(&plain) + 10, "ten failed deliveries");
        assert!(dead.contains("<polygon"), "the dead-lettered record");
    }
}
