//! The pipeline's three logs on one time axis, drawn over any plotters backend, one band
//! above the other:
//!
//! * **the input topic**: its records at their append instants (faint dots, offset up), the
//!   input's committed offset per partition as a step line, and the partition's stalls shaded
//!   by their reason (owner down, rebalance, UNSTABLE_OFFSET_COMMIT); two to four partitions
//!   get a lane each ([`input_lanes`]). Each rebalance of the service's group is a bar along
//!   the band's top (from its start to its completion) and, when it completes, each
//!   partition's new owner ("→ instance 1", "→ 1" in a lane under two lines tall) in the
//!   partition's lane;
//! * **the output topic**: each record at (its write instant, its offset) by its state at the
//!   horizon — committed (filled square), aborted (hollow, struck through), open (hollow) — the
//!   commit marker (a diamond), the abort marker (a cross; ringed when the coordinator's timeout
//!   scan wrote it) and the last stable offset as a step line;
//! * **downstream**: one lane per reader, then the side effect: a tick at each output the
//!   reader was handed, at the instant it was written (the side effect: at each processing's
//!   end), coloured by how many times its input record was seen in all (once, twice, three
//!   times or more), and a bar under the lane while a read_committed reader waits at the last
//!   stable offset.
//!
//! Stretches where nothing happens are cut short ([`TimeAxis`]).
//!
//! The first event is a line across the three bands (a crash or a hang in the crash colour, a
//! join in the position colour); the instant the instance is back a thin one. Band titles and
//! lane names are drawn (a few words each); the legend is HTML.

use crate::kit::draw::{self, DrawResult, Frame};
use crate::kit::text::fixed;
use offset_window_sim::pipeline::{EventKind, OutputState, PipelineRun, PipelineScenario, StallReason};
use offset_window_sim::transactions::{OffsetStep, RecordKind};
use offset_window_sim::Step;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// How the chart is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Look {
    /// Device px per CSS px (`devicePixelRatio` times projector mode's type scale).
    pub scale: f64,
    /// The dark palette.
    pub dark: bool,
    /// The backend's text factor: 1 on a canvas, 1.24 on plotters' SVG backend.
    pub font: f64,
}

/// The colour of a stall's reason.
pub fn reason_color(r: StallReason, dark: bool) -> RGBColor {
    let p = if dark { &draw::DARK } else { &draw::LIGHT };
    match r {
        StallReason::OwnerDown => p.lost,
        StallReason::Rebalance => p.duplicated,
        StallReason::UnstableOffsetCommit => p.position,
    }
}

/// The colour of a count of times seen: never, once, twice, three or more.
pub fn count_color(count: u32, dark: bool) -> RGBColor {
    let p = if dark { &draw::DARK } else { &draw::LIGHT };
    match count {
        0 => p.lost,
        1 => p.durable,
        2 => p.duplicated,
        _ => p.crash,
    }
}

/// A colour as CSS (`#e69f00`), for the page's legend swatches.
pub fn css(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// The time axis with its quiet stretches cut short: a run whose records all come in the
/// first 10 s and whose recovery comes at 48 s would otherwise squeeze both into slivers of
/// an 80 s axis. Every instant something happens (an append, an output, a commit, a change of
/// the last stable offset, a stall's or a rebalance's ends, an event) is kept; a stretch of
/// more than a tenth of the horizon (at least 1 s) between two of them is cut to a short
/// stretch, drawn hatched, and the tick labels say the real times on either side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeAxis {
    /// The cuts, `(from_us, to_us)` of real time, in order.
    pub cuts: Vec<(u64, u64)>,
    /// How long each cut is drawn, µs of the drawn axis.
    pub cut_us: u64,
    /// The real horizon, µs.
    pub horizon_us: u64,
}

impl TimeAxis {
    /// The axis of `run` over `scenario`'s horizon.
    pub fn of(run: &PipelineRun, scenario: &PipelineScenario) -> TimeAxis {
        let horizon = scenario.horizon_us.max(1);
        let mut busy: Vec<u64> = vec![0, horizon];
        let records = scenario.input.records_per_partition as u64;
        if records > 0 {
            busy.push(scenario.input.append_us(records - 1));
            // Appends are regular: a few of them stand for the rest (no cut between two).
            let every = (records / 64).max(1);
            busy.extend((0..records).step_by(every as usize).map(|k| scenario.input.append_us(k)));
        }
        busy.extend(run.output_log.iter().map(|e| e.at_us));
        busy.extend(run.output_last_stable_offset.iter().map(|s| s.at_us));
        for c in &run.input_committed {
            busy.extend(c.steps.iter().map(|s| s.at_us));
        }
        for p in &run.input_stalls {
            busy.extend(p.stalls.iter().flat_map(|s| [Some(s.from_us), s.to_us]).flatten());
        }
        for r in &run.readers {
            busy.extend(r.stalled.iter().flat_map(|s| [Some(s.from_us), s.to_us]).flatten());
        }
        for r in &run.rebalances {
            busy.extend([Some(r.started_at_us), r.completed_at_us].into_iter().flatten());
        }
        busy.extend(run.timed_out_aborts.iter().map(|a| a.aborted_at_us));
        for e in &scenario.events {
            busy.push(e.at_us);
            busy.extend(e.end_us());
        }
        busy.retain(|&t| t <= horizon);
        busy.sort_unstable();
        busy.dedup();
        let gap = (horizon / 10).max(1_000_000);
        let pad = gap / 4;
        let cuts: Vec<(u64, u64)> =
            busy.windows(2).filter(|w| w[1] - w[0] > gap).map(|w| (w[0] + pad, w[1] - pad)).collect();
        let cut_total: u64 = cuts.iter().map(|(a, b)| b - a).sum();
        let cut_us = ((horizon - cut_total) / 16).max(1);
        TimeAxis { cuts, cut_us, horizon_us: horizon }
    }

    /// The drawn axis's length, µs.
    pub fn total_us(&self) -> u64 {
        let cut_total: u64 = self.cuts.iter().map(|(a, b)| b - a).sum();
        self.horizon_us - cut_total + self.cuts.len() as u64 * self.cut_us
    }

    /// Real instant `t_us` on the drawn axis, µs.
    pub fn map(&self, t_us: u64) -> u64 {
        let mut shift: i128 = 0;
        for &(a, b) in &self.cuts {
            if t_us <= a {
                break;
            }
            if t_us < b {
                // Inside the cut: proportionally along its short stretch.
                let inside = (t_us - a) as u128 * self.cut_us as u128 / (b - a) as u128;
                return (a as i128 + shift + inside as i128) as u64;
            }
            shift += self.cut_us as i128 - (b - a) as i128;
        }
        (t_us as i128 + shift).max(0) as u64
    }

    /// The real instant at `c_us` of the drawn axis (the inverse of [`TimeAxis::map`]).
    pub fn unmap(&self, c_us: u64) -> u64 {
        let mut shift: i128 = 0;
        for &(a, b) in &self.cuts {
            let start = (a as i128 + shift) as u64;
            if c_us <= start {
                break;
            }
            if c_us < start + self.cut_us {
                return a + ((c_us - start) as u128 * (b - a) as u128 / self.cut_us as u128) as u64;
            }
            shift += self.cut_us as i128 - (b - a) as i128;
        }
        ((c_us as i128 - shift).max(0) as u64).min(self.horizon_us)
    }

    /// The stretches drawn to scale, `(from_us, to_us)` of real time.
    pub fn kept(&self) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut from = 0;
        for &(a, b) in &self.cuts {
            out.push((from, a));
            from = b;
        }
        out.push((from, self.horizon_us));
        out
    }
}

/// The lanes of the input band: one per partition for two to four partitions, else one for all
/// (their records and committed offsets drawn over each other).
pub fn input_lanes(scenario: &PipelineScenario) -> u32 {
    match scenario.input.partitions {
        p @ 2..=4 => p,
        _ => 1,
    }
}

/// The three bands' frames on a backend of `size` device px: input, output, downstream. They
/// share the time axis (left, right, the drawn axis's length, [`TimeAxis`]); each has its own
/// top, bottom and values.
pub fn frames(run: &PipelineRun, scenario: &PipelineScenario, size: (u32, u32), look: Look) -> [Frame; 3] {
    let s = look.scale;
    let mut f = Frame::new(size, s, 0.0, TimeAxis::of(run, scenario).total_us(), 1.0);
    f.dark = look.dark;
    f.font = look.font;
    let title = 20.0 * s;
    let bottom = f.bottom;
    let avail = (bottom - 3.0 * title - 2.0 * 8.0 * s).max(30.0);
    let lanes = (run.readers.len() + usize::from(run.side_effects.is_some())).max(1) as f64;
    // The downstream lanes need room for a name and a row of ticks each.
    let down = (avail * 0.3).max(lanes * 42.0 * s).min(avail * 0.55);
    let share = if input_lanes(scenario) > 1 { 0.55 } else { 0.35 };
    let input = (avail - down) * share;
    let output = avail - down - input;
    let mut top = title;
    let mut band = |height: f64, y_max: f64| {
        let mut b = f;
        b.top = top.round();
        b.bottom = (top + height).round();
        b.y_max = y_max.max(1.0);
        top += height + 8.0 * s + title;
        b
    };
    let records = scenario.input.records_per_partition as f64;
    [band(input, records), band(output, run.output_log.len() as f64 + 0.5), band(down, lanes)]
}

/// The instant under device x, µs (1 to the horizon): where a click on the chart moves the crash.
pub fn time_at(run: &PipelineRun, scenario: &PipelineScenario, size: (u32, u32), look: Look, x: f64) -> u64 {
    let axis = TimeAxis::of(run, scenario);
    axis.unmap(frames(run, scenario, size, look)[0].time_at(x)).clamp(1, scenario.horizon_us)
}

/// For each output data record, how many times its input counted for a reader (0: the reader
/// was not handed it): a `read_uncommitted` reader is handed every data record below its
/// position, a `read_committed` one the committed ones. `None` when those do not add up to the
/// run's own counts per input record (a client that hands aborted records to read_committed):
/// the page then places the reader's ticks at the input records' append instants.
pub fn handed_entries(run: &PipelineRun, reader: usize) -> Option<Vec<u32>> {
    let r = run.readers.get(reader)?;
    let count = |p: u32, k: u64| {
        r.by_input
            .iter()
            .find(|b| b.partition == p)
            .and_then(|b| b.counts.get(k as usize))
            .copied()
            .unwrap_or(0)
    };
    let mut tally: Vec<(u32, u64, u32)> = Vec::new();
    let mut out = Vec::with_capacity(run.output_log.len());
    for e in &run.output_log {
        let handed = e.kind == RecordKind::Data
            && e.offset < r.position
            && (r.isolation != "read_committed" || e.state == Some(OutputState::Committed));
        match (handed, e.input_partition, e.input_offset) {
            (true, Some(p), Some(k)) => {
                match tally.iter_mut().find(|t| t.0 == p && t.1 == k) {
                    Some(t) => t.2 += 1,
                    None => tally.push((p, k, 1)),
                }
                out.push(count(p, k));
            }
            _ => out.push(0),
        }
    }
    let total: u64 = r.by_input.iter().flat_map(|b| b.counts.iter()).map(|&c| c as u64).sum();
    let ok = tally.iter().all(|&(p, k, n)| count(p, k) == n)
        && tally.iter().map(|t| t.2 as u64).sum::<u64>() == total;
    ok.then_some(out)
}

/// As [`handed_entries`] for the side effect: one write at each processing's end, the instant
/// its output is written (model.md §14.2), so at each output data record.
pub fn side_effect_entries(run: &PipelineRun) -> Option<Vec<u32>> {
    let s = run.side_effects.as_ref()?;
    let count = |p: u32, k: u64| {
        s.by_input
            .iter()
            .find(|b| b.partition == p)
            .and_then(|b| b.counts.get(k as usize))
            .copied()
            .unwrap_or(0)
    };
    let out: Vec<u32> = run
        .output_log
        .iter()
        .map(|e| match (e.kind, e.input_partition, e.input_offset) {
            (RecordKind::Data, Some(p), Some(k)) => count(p, k),
            _ => 0,
        })
        .collect();
    let data = run.output_log.iter().filter(|e| e.kind == RecordKind::Data).count() as u64;
    let total: u64 = s.by_input.iter().flat_map(|b| b.counts.iter()).map(|&c| c as u64).sum();
    (data == total).then_some(out)
}

fn to_steps(s: &[OffsetStep], axis: &TimeAxis) -> Vec<Step<u64>> {
    s.iter().map(|s| Step { at_us: axis.map(s.at_us), value: s.offset }).collect()
}

/// Draws the chart for `run` of `scenario` and presents it.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    run: &PipelineRun,
    scenario: &PipelineScenario,
    look: Look,
) -> DrawResult<DB> {
    let axis = TimeAxis::of(run, scenario);
    let [input, output, down] = frames(run, scenario, root.dim_in_pixel(), look);
    let x = |f: &Frame, t: u64| f.x(axis.map(t)).round() as i32;
    let p = input.pal();
    root.fill(&p.background)?;
    let w = |css: f64| input.width_px(css);
    let font = |css: f64| (FontFamily::SansSerif, input.font_px(css)).into_font();
    let title_style = font(12.5).color(&p.axis).pos(Pos::new(HPos::Left, VPos::Bottom));
    let titles = [
        (&input, "input topic: records, committed offset, stalls"),
        (&output, "output topic: records, markers, LSO"),
        (&down, "downstream: times each input record was seen"),
    ];
    // The time grid over every band, the tick labels under the last; the cuts hatched.
    let step =
        draw::nice_step(axis.total_us() as f64 / 1e6, ((down.right - down.left) / down.px(80.0)).max(2.0));
    let mut decimals = 0;
    while decimals < 6 && (step * 10f64.powi(decimals) - (step * 10f64.powi(decimals)).round()).abs() > 1e-6 {
        decimals += 1;
    }
    let mut ticks: Vec<(u64, String)> = Vec::new();
    let mut last_x = i32::MIN / 2;
    let min_gap = down.px(52.0) as i32;
    for (from, to) in axis.kept() {
        let first = (from as f64 / 1e6 / step).ceil() as u64;
        let mut k = first;
        loop {
            let t = (k as f64 * step * 1e6).round() as u64;
            if t > to {
                break;
            }
            let xt = x(&down, t);
            if xt - last_x >= min_gap {
                ticks.push((t, fixed(k as f64 * step, decimals as u32)));
                last_x = xt;
            }
            k += 1;
        }
        // The stretch's end, when it is a cut's start: its real time labelled too.
        if to < axis.horizon_us && x(&down, to) - last_x >= min_gap {
            ticks.push((to, crate::kit::text::seconds_field(to)));
            last_x = x(&down, to);
        }
    }
    let grid = p.grid.stroke_width(w(1.0));
    let axis_style = p.axis.stroke_width(w(1.0));
    for f in [&input, &output, &down] {
        for (t, _) in &ticks {
            let xt = x(f, *t);
            root.draw(&PathElement::new(vec![(xt, f.top as i32), (xt, f.bottom as i32)], grid))?;
        }
        let (l, r, t, b) = (f.left as i32, f.right as i32, f.top as i32, f.bottom as i32);
        root.draw(&PathElement::new(vec![(l, t), (l, b), (r, b)], axis_style))?;
        for &(a, c) in &axis.cuts {
            let (x0, x1) = (x(f, a), x(f, c));
            root.draw(&Rectangle::new([(x0, t), (x1.max(x0 + 1), b)], p.grid.mix(0.6).filled()))?;
            for edge in [x0, x1] {
                root.draw(&PathElement::new(
                    vec![(edge, t), (edge, b)],
                    p.axis.mix(0.5).stroke_width(w(1.0)),
                ))?;
            }
        }
    }
    let tick = down.px(4.0) as i32;
    let below = font(12.0).color(&p.axis).pos(Pos::new(HPos::Center, VPos::Top));
    let b = down.bottom as i32;
    for (t, label) in &ticks {
        let xt = x(&down, *t);
        root.draw(&PathElement::new(vec![(xt, b), (xt, b + tick)], axis_style))?;
        root.draw_text(label, &below, (xt, b + tick + down.px(2.0) as i32))?;
    }
    // A break mark on the time axis at each cut: two slanted strokes.
    for &(a, c) in &axis.cuts {
        let mid = (x(&down, a) + x(&down, c)) / 2;
        let d = down.px(4.0) as i32;
        for dx in [-d / 2 - 1, d / 2 + 1] {
            let stroke = vec![(mid + dx - d / 2, b + d), (mid + dx + d / 2, b - d)];
            root.draw(&PathElement::new(stroke, p.axis.stroke_width(w(1.5))))?;
        }
    }
    let t = font(12.5).color(&p.axis).pos(Pos::new(HPos::Center, VPos::Top));
    let title = if axis.cuts.is_empty() {
        "simulated time (s)"
    } else {
        "simulated time (s); quiet stretches cut short (shaded)"
    };
    let at = (((down.left + down.right) / 2.0) as i32, b + tick + down.px(19.0) as i32);
    root.draw_text(title, &t, at)?;
    // The input's lanes: one per partition (two to four), else the whole band.
    let parts = input_lanes(scenario);
    let lane_of = |p: u32| -> Frame {
        if parts == 1 {
            return input;
        }
        let h = (input.bottom - input.top) / parts as f64;
        let gap = if p + 1 < parts { input.px(6.0) } else { 0.0 };
        let mut f = input;
        f.top = (input.top + h * p as f64).round();
        f.bottom = (input.top + h * (p + 1) as f64 - gap).round();
        f
    };
    for lane in 0..parts {
        let f = lane_of(lane);
        // Only the lowest lane labels its 0: above, it would sit on the next lane's end.
        offsets_axis(root, &f, scenario.input.records_per_partition as u64, lane + 1 == parts)?;
        if lane + 1 < parts {
            let (l, r, b) = (f.left as i32, f.right as i32, f.bottom as i32);
            root.draw(&PathElement::new(vec![(l, b), (r, b)], axis_style))?;
        }
    }
    offsets_axis(root, &output, run.output_log.len() as u64, true)?;

    // The input: stalls, records, committed offsets.
    for ps in &run.input_stalls {
        let f = lane_of(ps.partition);
        for s in &ps.stalls {
            let c = reason_color(s.reason, input.dark);
            let to = s.to_us.unwrap_or(scenario.horizon_us);
            let (x0, x1) = (x(&f, s.from_us), x(&f, to));
            let area = [(x0, f.top as i32), (x1.max(x0 + 1), f.bottom as i32)];
            root.draw(&Rectangle::new(area, c.mix(0.2).filled()))?;
            root.draw(&PathElement::new(
                vec![(x0, f.top as i32), (x0, f.bottom as i32)],
                c.stroke_width(w(1.5)),
            ))?;
        }
    }
    let records = scenario.input.records_per_partition as u64;
    let dot = input.width_px(1.5);
    for lane in 0..parts {
        let f = lane_of(lane);
        if records <= 2_000 {
            for k in 0..records {
                let c = (x(&f, scenario.input.append_us(k)), f.y(k as f64 + 0.5).round() as i32);
                root.draw(&Circle::new(c, dot, p.axis.mix(0.45).filled()))?;
            }
        } else {
            let last = scenario.input.append_us(records - 1);
            let line = vec![(x(&f, 0), f.bottom as i32), (x(&f, last), f.y(records as f64) as i32)];
            root.draw(&PathElement::new(line, p.axis.mix(0.45).stroke_width(w(1.5))))?;
        }
    }
    let n = run.input_committed.len() as f64;
    for (i, c) in run.input_committed.iter().enumerate() {
        let f = lane_of(c.partition);
        let shift = if parts > 1 { 0 } else { ((i as f64 - (n - 1.0) / 2.0) * input.px(2.0)).round() as i32 };
        for path in draw::step_paths(&to_steps(&c.steps, &axis), &f) {
            let moved: Vec<_> = path.into_iter().map(|(x, y)| (x, y + shift)).collect();
            root.draw(&PathElement::new(moved, p.committed.stroke_width(w(2.5))))?;
        }
    }

    // The rebalances: a bar along the input band's top from each one's start to its
    // completion; then each partition's new owner in its lane (one partition, or a lane each).
    // (Drawn after the first event's line, which may stand at the same instant.)
    // (text, lane, the rebalance's end x, whether the lane's committed offset is in its upper
    // half there: its line then runs along the lane's top, and the label goes to its foot).
    let mut owners: Vec<(usize, Frame, i32, bool)> = Vec::new();
    let mut rebalance_bars: Vec<(i32, i32)> = Vec::new();
    for r in &run.rebalances {
        let to = r.completed_at_us.unwrap_or(scenario.horizon_us);
        let (x0, x1) = (x(&input, r.started_at_us), x(&input, to));
        rebalance_bars.push((x0, x1));
        if r.completed_at_us.is_some() && (parts > 1 || scenario.input.partitions == 1) {
            for (instance, partitions) in r.assignment.iter().enumerate() {
                for &p in partitions {
                    let at = r.completed_at_us.unwrap_or(0);
                    let committed = run
                        .input_committed
                        .iter()
                        .filter(|c| parts == 1 || c.partition == p)
                        .filter_map(|c| c.steps.iter().rev().find(|s| s.at_us <= at).map(|s| s.offset))
                        .max()
                        .unwrap_or(0);
                    let high = 2 * committed > scenario.input.records_per_partition as u64;
                    owners.push((instance, lane_of(p), x1, high));
                }
            }
        }
    }

    // The output: the last stable offset, then the records and markers.
    for path in draw::step_paths(&to_steps(&run.output_last_stable_offset, &axis), &output) {
        root.draw(&PathElement::new(path, p.committed.stroke_width(w(2.5))))?;
    }
    let band_px = (output.bottom - output.top) / output.y_max;
    let half = (band_px * 0.45).clamp(output.px(1.5), output.px(5.0)).round().max(1.0) as i32;
    let timed_out: Vec<u64> = run.timed_out_aborts.iter().map(|a| a.marker_offset).collect();
    for e in &run.output_log {
        let (x, y) = (x(&output, e.at_us), output.y(e.offset as f64 + 0.5).round() as i32);
        let square = [(x - half, y - half), (x + half, y + half)];
        match (e.kind, e.state) {
            (RecordKind::CommitMarker, _) => {
                let d = half + output.px(2.0) as i32;
                root.draw(&Polygon::new(
                    vec![(x, y - d), (x + d, y), (x, y + d), (x - d, y)],
                    p.durable.filled(),
                ))?;
            }
            (RecordKind::AbortMarker, _) => {
                let d = half + output.px(2.0) as i32;
                let style = p.lost.stroke_width(w(2.5));
                root.draw(&PathElement::new(vec![(x - d, y - d), (x + d, y + d)], style))?;
                root.draw(&PathElement::new(vec![(x - d, y + d), (x + d, y - d)], style))?;
                if timed_out.contains(&e.offset) {
                    let ring = (d as f64 + output.px(4.0)) as u32;
                    root.draw(&Circle::new((x, y), ring, p.lost.stroke_width(w(1.5))))?;
                }
            }
            (_, Some(OutputState::Committed)) => root.draw(&Rectangle::new(square, p.durable.filled()))?,
            (_, Some(OutputState::Aborted)) => {
                root.draw(&Rectangle::new(square, p.lost.stroke_width(w(1.5))))?;
                let reach = half + output.px(4.0) as i32;
                root.draw(&PathElement::new(
                    vec![(x - reach, y), (x + reach, y)],
                    p.lost.stroke_width(w(2.0)),
                ))?;
            }
            _ => root.draw(&Rectangle::new(square, p.duplicated.stroke_width(w(2.0))))?,
        }
    }

    // Downstream: one lane per reader, then the side effect. A tick at each output it was
    // handed (written), coloured by how many times its input was seen; when the outputs do not
    // account for the counts, at each input record's append instant.
    type Lane<'a> = (
        String,
        &'a [offset_window_sim::pipeline::ByInput],
        &'a [offset_window_sim::transactions::Stall],
        Option<Vec<u32>>,
    );
    let mut lanes: Vec<Lane> = run
        .readers
        .iter()
        .enumerate()
        .map(|(i, r)| {
            (format!("{} ({})", r.name, r.isolation), &r.by_input[..], &r.stalled[..], handed_entries(run, i))
        })
        .collect();
    if let Some(s) = &run.side_effects {
        lanes.push(("side effect, outside Kafka".into(), &s.by_input[..], &[], side_effect_entries(run)));
    }
    let lane_h = (down.bottom - down.top) / lanes.len().max(1) as f64;
    let label = font(12.0).color(&p.axis).pos(Pos::new(HPos::Left, VPos::Top));
    let tick_w = down.width_px(2.0) as i32;
    let mut labels: Vec<(String, (i32, i32))> = Vec::new();
    for (i, (name, by_input, stalls, entries)) in lanes.iter().enumerate() {
        let top = down.top + lane_h * i as f64;
        let text_h = down.px(19.0);
        labels
            .push((name.clone(), (down.left as i32 + down.px(4.0) as i32, top as i32 + down.px(2.0) as i32)));
        let (y0, y1) = ((top + text_h).round() as i32, (top + lane_h - down.px(7.0)).round() as i32);
        let mut marks: Vec<(u64, u32)> = match entries {
            Some(counts) => run
                .output_log
                .iter()
                .zip(counts)
                .filter(|(_, &c)| c > 0)
                .map(|(e, &c)| (e.at_us, c))
                .collect(),
            None => by_input
                .iter()
                .flat_map(|b| {
                    b.counts.iter().enumerate().map(|(k, &c)| (scenario.input.append_us(k as u64), c))
                })
                .collect(),
        };
        // Ones first, then twice, more and never over them: a rare count stays visible.
        marks.sort_by_key(|&(t, c)| {
            (
                match c {
                    1 => 0,
                    2 => 1,
                    0 => 3,
                    _ => 2,
                },
                t,
            )
        });
        for (t, c) in marks {
            let xt = x(&down, t);
            let area = [(xt, y0), (xt + tick_w, y1.max(y0 + 1))];
            root.draw(&Rectangle::new(area, count_color(c, down.dark).filled()))?;
        }
        for s in stalls.iter() {
            let to = s.to_us.unwrap_or(scenario.horizon_us);
            let (x0, x1) = (x(&down, s.from_us), x(&down, to));
            let y = y1 + down.px(2.0) as i32;
            let bar = [(x0, y), (x1.max(x0 + 1), y + down.px(4.0).max(1.0) as i32)];
            root.draw(&Rectangle::new(bar, p.axis.filled()))?;
        }
        if i > 0 {
            let y = top.round() as i32;
            root.draw(&PathElement::new(vec![(down.left as i32, y), (down.right as i32, y)], grid))?;
        }
    }

    // The first crash or hang in each band (not across the gaps, where the titles are), and
    // the instant the instance is back.
    if let Some(i) = super::state::first_event(scenario) {
        let e = &scenario.events[i];
        // A join or a deploy is a planned change, drawn in the position colour, with no restart.
        let join = matches!(e.kind, EventKind::Join | EventKind::Deploy);
        let color = if join { p.position } else { p.crash };
        let back = e.end_us().filter(|&end| end <= scenario.horizon_us && !join);
        for f in [&input, &output, &down] {
            let (t, b) = (f.top as i32, f.bottom as i32);
            let xc = x(f, e.at_us);
            root.draw(&PathElement::new(vec![(xc, t), (xc, b)], color.stroke_width(w(2.5))))?;
            if let Some(end) = back {
                let xe = x(f, end);
                root.draw(&PathElement::new(vec![(xe, t), (xe, b)], p.crash.mix(0.8).stroke_width(w(1.0))))?;
            }
        }
    }
    let rebalance = reason_color(StallReason::Rebalance, input.dark);
    for &(x0, x1) in &rebalance_bars {
        let y = input.top as i32;
        let bar = [(x0, y), (x1.max(x0 + 1), y + input.px(5.0) as i32)];
        root.draw(&Rectangle::new(bar, rebalance.filled()))?;
        // A short one (a scale-out's) is a mark pointing down at its instant as well.
        if x1 - x0 < input.px(8.0) as i32 {
            let (d, h) = (input.px(6.0) as i32, input.px(9.0) as i32);
            let mid = (x0 + x1) / 2;
            root.draw(&Polygon::new(vec![(mid - d, y), (mid + d, y), (mid, y + h)], rebalance.filled()))?;
        }
    }
    // The band titles (in the gaps between the bands) and the lanes' names last, the names
    // on the background: no line runs through them.
    let pad = input.px(2.0) as i32;
    let text_on_background = |text: &str, style: &TextStyle, (x, y): (i32, i32)| -> DrawResult<DB> {
        let (w, h) = root.estimate_text_size(text, style).unwrap_or((0, 0));
        let area = [(x - pad, y), (x + w as i32 + pad, y + h as i32)];
        root.draw(&Rectangle::new(area, p.background.mix(0.85).filled()))?;
        root.draw_text(text, style, (x, y))?;
        Ok(())
    };
    for (f, text) in titles {
        root.draw_text(text, &title_style, (f.left as i32, f.top as i32 - f.px(4.0) as i32))?;
    }
    for (name, at) in &labels {
        text_on_background(name, &label, *at)?;
    }
    if parts > 1 {
        for lane in 0..parts {
            let f = lane_of(lane);
            let at = (f.left as i32 + f.px(4.0) as i32, f.top as i32 + f.px(2.0) as i32);
            text_on_background(&format!("partition {lane}"), &label, at)?;
        }
    }
    // The new owners: beside the rebalance's end, at the lane's top while its committed offset
    // is low (the records rise from the lane's foot left to right, so the top left of an
    // instant is mostly free), at its foot once the line runs along the top; the first of
    // left, right, the other edge that neither runs into another label nor off the lane (in a
    // projector's short lanes they were drawn over each other and the lines: issue 28's trial).
    // A lane less than two lines tall says "→ 1" (the legend says what it means), on an opaque
    // box: it covers a short stretch of the lines, never a label.
    let name_w = root.estimate_text_size("partition 0", &label).map_or(0, |(w, _)| w as i32);
    let mut taken: Vec<[i32; 4]> = Vec::new();
    if parts > 1 {
        for lane in 0..parts {
            let f = lane_of(lane);
            let (l, t) = (f.left as i32, f.top as i32);
            taken.push([l, t, l + name_w + 2 * pad + f.px(4.0) as i32, t + f.font_px(12.0) as i32 + 2 * pad]);
        }
    }
    let lane_h = (input.bottom - input.top) / parts as f64 - if parts > 1 { input.px(6.0) } else { 0.0 };
    let short = lane_h < 2.0 * input.font_px(12.0) + input.px(4.0);
    for (instance, f, x_end, high) in &owners {
        let text = if short { format!("→ {instance}") } else { format!("→ instance {instance}") };
        let (tw, th) = root.estimate_text_size(&text, &label).map_or((0, 0), |(w, h)| (w as i32, h as i32));
        let gap = f.px(6.0) as i32;
        let (top, foot) = (f.top as i32 + pad, (f.bottom as i32 - th - pad).max(f.top as i32 + pad));
        let rows = if *high { [foot, top] } else { [top, foot] };
        let spot = rows.iter().flat_map(|&y| [(x_end - gap - tw, y), (x_end + gap, y)]).find(|&(x, y)| {
            let r = [x - pad, y - pad, x + tw + pad, y + th + pad];
            x - pad >= f.left as i32 + gap
                && x + tw <= f.right as i32
                && taken.iter().all(|o| r[2] <= o[0] || o[2] <= r[0] || r[3] <= o[1] || o[3] <= r[1])
        });
        if let Some((x, y)) = spot {
            taken.push([x - pad, y - pad, x + tw + pad, y + th + pad]);
            root.draw(&Rectangle::new([(x - pad, y), (x + tw + pad, y + th)], p.background.filled()))?;
            root.draw_text(&text, &label, (x, y))?;
        }
    }
    root.present()?;
    Ok(())
}

/// The offsets' labels left of a band (one in every few, 14 CSS px apart at least) and faint
/// grid lines at them.
fn offsets_axis<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    f: &Frame,
    end: u64,
    zero: bool,
) -> DrawResult<DB> {
    let p = f.pal();
    let band = (f.bottom - f.top) / f.y_max;
    let nice = [
        1u64, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000,
    ];
    let every = nice.iter().copied().find(|k| band * *k as f64 >= f.px(16.0)).unwrap_or(100_000);
    let font = (FontFamily::SansSerif, f.font_px(12.0)).into_font();
    let left_of = font.color(&p.axis).pos(Pos::new(HPos::Right, VPos::Center));
    let tick = f.px(4.0) as i32;
    let grid = p.grid.stroke_width(f.width_px(1.0));
    for o in (0..=end).filter(|o| o % every == 0) {
        let y = f.y(o as f64).round() as i32;
        root.draw(&PathElement::new(vec![(f.left as i32, y), (f.right as i32, y)], grid))?;
        if o > 0 || zero {
            root.draw_text(&o.to_string(), &left_of, (f.left as i32 - tick, y))?;
        }
    }
    Ok(())
}

#[cfg(all(test, feature = "svg"))]
mod tests {
    use super::*;
    use crate::kit::backend::Backend;
    use crate::pipeline::presets::{scenario, PRESETS};
    use offset_window_sim::pipeline::simulate_pipeline;

    fn svg(index: usize, dark: bool) -> String {
        let s = scenario(index).unwrap();
        let run = simulate_pipeline(&s).unwrap();
        let mut out = String::new();
        {
            let root = Backend::svg(&mut out, (900, 520)).into_drawing_area();
            draw(&root, &run, &s, Look { scale: 1.0, dark, font: 1.24 }).unwrap();
        }
        out
    }

    #[test]
    fn every_preset_draws_its_three_logs() {
        for (i, p) in PRESETS.iter().enumerate() {
            let out = svg(i, false);
            assert!(out.starts_with("<svg"), "{}", p.file);
            assert!(
                out.contains("input topic") && out.contains("output topic") && out.contains("downstream")
            );
            assert!(out.contains("simulated time (s)"));
            let run = simulate_pipeline(&scenario(i).unwrap()).unwrap();
            for r in &run.readers {
                assert!(out.contains(&r.name), "{} {}", p.file, r.name);
            }
            // The crash (or hang) line; a join's or a deploy's in the position colour.
            let join = p.file.contains("join") || p.file.contains("deploy");
            let line = if join { draw::POSITION } else { draw::CRASH };
            assert!(out.contains(&css(line).to_uppercase()), "{}", p.file);
        }
        // P1: aborted records (red), duplicates downstream (amber), the owner-down stall.
        let p1 = svg(0, false);
        assert!(
            p1.contains(&css(draw::LOST).to_uppercase())
                && p1.contains(&css(draw::DUPLICATED).to_uppercase())
        );
        assert!(svg(0, true).contains(&css(draw::DARK.background).to_uppercase()));
    }

    #[test]
    fn p7_two_partition_lanes_the_rebalance_and_the_join() {
        let out = svg(6, false);
        assert!(out.contains("partition 0") && out.contains("partition 1"));
        assert_eq!(out.matches("→ instance").count(), 2, "each partition's new owner");
        assert!(out.contains("→ instance 1"));
        // The join's line in the position colour, no crash line.
        assert!(out.contains(&css(draw::POSITION).to_uppercase()));
        assert!(!out.contains(&css(draw::CRASH).to_uppercase()));
        // P1 (one partition): no lane names.
        assert!(!svg(0, false).contains("partition 0"));
    }

    #[test]
    fn the_new_owners_labels_stand_apart_on_a_projector() {
        // Kafka Streams' rolling deploy on a 1280 × 720 projector screen (its chart 860 × 330 CSS px at type scale 1.5): its
        // "→ instance" labels were drawn over each other and the lines (issue 28's trial). Its
        // lanes are shorter than two lines: each label is the short "→ N".
        let i = PRESETS.iter().position(|p| p.slug == "streams-rolling-deploy").unwrap();
        let s = scenario(i).unwrap();
        let run = simulate_pipeline(&s).unwrap();
        let mut out = String::new();
        {
            let root = Backend::svg(&mut out, (1290, 495)).into_drawing_area();
            draw(&root, &run, &s, Look { scale: 1.5, dark: false, font: 1.24 }).unwrap();
        }
        let attr = |t: &str, k: &str| {
            t.split(&format!(" {k}=\"")).nth(1).unwrap().split('"').next().unwrap().parse::<f64>().unwrap()
        };
        let em = 12.0 * 1.5 * 1.24;
        let boxes: Vec<(f64, f64, f64, f64)> = out
            .split("<text")
            .filter_map(|t| Some((t, t.split_once(">\n→ ")?.1.split('\n').next()?)))
            .map(|(t, rest)| {
                let chars = 2 + rest.chars().count();
                (attr(t, "x"), attr(t, "y"), attr(t, "x") + 0.6 * em * chars as f64, attr(t, "y") + em)
            })
            .collect();
        let owners: usize = run
            .rebalances
            .iter()
            .filter(|r| r.completed_at_us.is_some())
            .map(|r| r.assignment.iter().map(Vec::len).sum::<usize>())
            .sum();
        assert!(owners >= 2 && boxes.len() == owners, "{} labels for {owners} new owners", boxes.len());
        let [input, ..] = frames(&run, &s, (1290, 495), Look { scale: 1.5, dark: false, font: 1.24 });
        assert!(!out.contains("→ instance") && out.contains(">\n→ 1\n<"), "the short labels: {input:?}");
        for (k, a) in boxes.iter().enumerate() {
            for b in &boxes[k + 1..] {
                assert!(a.2 <= b.0 || b.2 <= a.0 || a.3 <= b.1 || b.3 <= a.1, "{a:?} and {b:?} overlap");
            }
        }
    }

    #[test]
    fn the_bands_share_the_time_axis_and_stack() {
        let s = scenario(0).unwrap();
        let run = simulate_pipeline(&s).unwrap();
        let [a, b, c] = frames(&run, &s, (900, 520), Look { scale: 1.0, dark: false, font: 1.0 });
        assert_eq!((a.left, a.right, a.horizon_us), (b.left, b.right, b.horizon_us));
        assert_eq!((b.left, b.right), (c.left, c.right));
        assert!(a.bottom < b.top && b.bottom < c.top && c.bottom <= 520.0 - 42.0);
        let axis = TimeAxis::of(&run, &s);
        let look = Look { scale: 1.0, dark: false, font: 1.0 };
        assert!(time_at(&run, &s, (900, 520), look, a.x(axis.map(4_500_000))).abs_diff(4_500_000) < 100_000);
    }

    #[test]
    fn quiet_stretches_are_cut_and_the_axis_maps_back() {
        // P1: records 0–10 s, the restart at 5.5 s, the recovery at 48–49 s, the horizon 80 s.
        let s = scenario(0).unwrap();
        let run = simulate_pipeline(&s).unwrap();
        let axis = TimeAxis::of(&run, &s);
        assert_eq!(axis.cuts, [(11_900_000, 46_000_000), (51_011_000, 78_000_000)]);
        assert!(axis.total_us() < 25_000_000, "{}", axis.total_us());
        for t in [0, 4_500_000, 11_900_000, 30_000_000, 46_000_000, 48_010_000, 79_000_000, 80_000_000] {
            let back = axis.unmap(axis.map(t));
            assert!(back.abs_diff(t) <= 20, "{t} → {back}");
        }
        assert_eq!(axis.map(80_000_000), axis.total_us());
    }

    #[test]
    fn the_outputs_account_for_every_count_downstream() {
        for (i, p) in PRESETS.iter().enumerate() {
            let run = simulate_pipeline(&scenario(i).unwrap()).unwrap();
            for r in 0..run.readers.len() {
                assert!(handed_entries(&run, r).is_some(), "{} reader {r}", p.file);
            }
            assert_eq!(side_effect_entries(&run).is_some(), run.side_effects.is_some(), "{}", p.file);
        }
    }
}
