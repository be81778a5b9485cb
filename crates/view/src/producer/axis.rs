//! The producer's time axis: one lane per batch, each send drawn from the producer to the
//! leader and back, the faults on top. Pure functions of a [`ProduceRun`] and a [`Lanes`]
//! layout, generic over the plotters [`DrawingBackend`].
//!
//! Time is not to scale: the interesting instants of a run are milliseconds apart and a
//! retry comes `request.timeout.ms` (30 s) later, so the axis gives every instant at which
//! something happens its own column and interpolates between neighbours. The HTML caption
//! says so; the tick labels give the real instants.

use crate::kit::draw::{COMMITTED, CRASH, DUPLICATED, DURABLE, LOST};
use crate::kit::text::millis_text as ms;
use offset_window_sim::producer::{AttemptResult, BatchTrace, FaultKind, ProduceRun, Verdict};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Result of a drawing call.
pub type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Margins, CSS px: batch labels left, fault labels above, tick labels below.
const LEFT: f64 = 64.0;
const RIGHT: f64 = 40.0;
const TOP: f64 = 22.0;
const BOTTOM: f64 = 28.0;
/// Height of one batch's lane, CSS px.
pub const LANE: f64 = 26.0;
/// Most lanes drawn (the view sends 20 records, so at most 20 batches).
pub const MAX_LANES: usize = 40;
const GRID: RGBColor = RGBColor(0xE3, 0xE6, 0xEA);
const AXIS: RGBColor = RGBColor(0x55, 0x5B, 0x66);
const WAIT: RGBColor = RGBColor(0x9A, 0xA3, 0xAE);
/// A zombie's or an old duplicate's request.
const STALE: RGBColor = RGBColor(0x7B, 0x2C, 0xBF);

/// The CSS height of the axis for `batches` lanes (and the lane of requests in flight).
pub fn css_height(batches: usize) -> f64 {
    TOP + LANE * (batches.clamp(1, MAX_LANES) + 1) as f64 + BOTTOM
}

/// Where things go on a canvas, device px.
#[derive(Clone, Debug, PartialEq)]
pub struct Lanes {
    /// Every instant at which something happens, ascending; each gets a column.
    pub instants: Vec<u64>,
    /// x of the first column.
    pub left: f64,
    /// x of the last column.
    pub right: f64,
    /// Top of the first lane.
    pub top: f64,
    /// Lanes drawn.
    pub lanes: usize,
    /// Device px per CSS px.
    pub scale: f64,
}

impl Lanes {
    /// The layout of `run` on a canvas `width` device px wide.
    pub fn new(run: &ProduceRun, width: u32, scale: f64) -> Lanes {
        // Every instant once, in order: each goes in at its place (a binary search), which is
        // a fraction of the code of a sort and a dedup (the page's only sort).
        let mut instants: Vec<u64> = Vec::new();
        let mut add = |t: u64| {
            if let Err(i) = instants.binary_search(&t) {
                instants.insert(i, t);
            }
        };
        add(0);
        for b in &run.batches {
            add(b.ready_us);
            for a in &b.attempts {
                add(a.sent_at_us);
                a.broker_at_us.into_iter().chain(a.resolved_at_us).for_each(&mut add);
            }
        }
        run.faults.iter().filter_map(|f| f.fired_at_us).for_each(&mut add);
        run.log.iter().for_each(|e| add(e.appended_at_us));
        let left = (LEFT * scale).round();
        Lanes {
            instants,
            left,
            right: (width as f64 - RIGHT * scale).round().max(left + 1.0),
            top: (TOP * scale).round(),
            lanes: run.batches.len().clamp(1, MAX_LANES),
            scale,
        }
    }

    fn step(&self) -> f64 {
        (self.right - self.left) / (self.instants.len().max(2) - 1) as f64
    }

    fn lane_h(&self) -> f64 {
        LANE * self.scale
    }

    /// Bottom of the last batch's lane.
    pub fn batches_bottom(&self) -> f64 {
        self.top + self.lane_h() * self.lanes as f64
    }

    /// Bottom of the lane of requests in flight, under the batches: the time axis.
    pub fn bottom(&self) -> f64 {
        self.batches_bottom() + self.lane_h()
    }

    /// x of instant `t_us`: its column, or between its neighbours' columns.
    pub fn x(&self, t_us: u64) -> f64 {
        let i = self.instants.partition_point(|&t| t < t_us);
        let step = self.step();
        match (i.checked_sub(1).map(|j| self.instants[j]), self.instants.get(i)) {
            (_, Some(&t)) if t == t_us => self.left + step * i as f64,
            (Some(a), Some(&b)) => self.left + step * ((i - 1) as f64 + (t_us - a) as f64 / (b - a) as f64),
            (None, _) => self.left,
            (Some(_), None) => self.right,
        }
    }

    /// The instant under device x, µs (inverse of [`Lanes::x`]).
    pub fn time_at(&self, x: f64) -> u64 {
        let n = self.instants.len();
        if n < 2 {
            return self.instants.first().copied().unwrap_or(0);
        }
        let f = ((x - self.left) / self.step()).clamp(0.0, (n - 1) as f64);
        let i = (f.floor() as usize).min(n - 2);
        let (a, b) = (self.instants[i], self.instants[i + 1]);
        a + ((b - a) as f64 * (f - i as f64)).round() as u64
    }

    /// Centre y of batch `batch`'s lane (batches count from 1).
    pub fn y(&self, batch: u32) -> f64 {
        self.top + self.lane_h() * (batch as f64 - 0.5)
    }

    /// The batch whose lane is under device y.
    pub fn batch_at(&self, y: f64) -> Option<u32> {
        if y < self.top || y >= self.batches_bottom() {
            return None;
        }
        Some(((y - self.top) / self.lane_h()) as u32 + 1)
    }

    /// What a click at device (x, y) is on: the batch lane, the send of that batch under
    /// (or nearest to) the pointer, and the instant.
    pub fn hit(&self, run: &ProduceRun, x: f64, y: f64) -> (Option<u32>, Option<u32>, u64) {
        let t = self.time_at(x);
        let batch = self.batch_at(y).filter(|&b| b as usize <= run.batches.len());
        let attempt = batch.and_then(|b| {
            let trace = &run.batches[b as usize - 1];
            trace
                .attempts
                .iter()
                .enumerate()
                .min_by_key(|(_, a)| {
                    let (x0, x1) = (self.x(a.sent_at_us), self.x(a.resolved_at_us.unwrap_or(a.sent_at_us)));
                    let d = if x < x0 {
                        x0 - x
                    } else if x > x1 {
                        x - x1
                    } else {
                        0.0
                    };
                    d.round() as u64
                })
                .map(|(i, _)| i as u32 + 1)
        });
        (batch, attempt, t)
    }

    /// Where each send's request leg is drawn, CSS px from the canvas's top left, for a canvas
    /// of `device_px` device px per CSS px (the layout's `scale` without projector mode's type
    /// scale): `"batch.attempt:x,y;…"` (for tests and the end-to-end check that click there).
    pub fn targets(&self, run: &ProduceRun, device_px: f64) -> String {
        let mut out = Vec::new();
        for b in run.batches.iter().take(self.lanes) {
            for (i, a) in b.attempts.iter().enumerate() {
                let x = (self.x(a.sent_at_us) + self.arrive_x(run, a.sent_at_us, a.broker_at_us)) / 2.0;
                out.push(format!(
                    "{}.{}:{},{}",
                    b.batch,
                    i + 1,
                    // Integers: no float formatting code in the page.
                    (x / device_px).round() as i64,
                    (self.y(b.batch) / device_px).round() as i64
                ));
            }
        }
        out.join(";")
    }

    fn arrive_x(&self, run: &ProduceRun, sent: u64, at: Option<u64>) -> f64 {
        let latency_us = run.scenario["network_latency_ms"].as_u64().unwrap_or(1) * 1_000;
        let x = self.x(at.unwrap_or(sent + latency_us.max(1)));
        x.max(self.x(sent) + 10.0 * self.scale).min(self.right)
    }
}

/// Draws the lanes, every send, the faults and a marker at `at_us` (if any).
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    run: &ProduceRun,
    l: &Lanes,
    at_us: Option<u64>,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let s = l.scale;
    let w = |css: f64| (css * s).round().max(1.0) as u32;
    let font = (FontFamily::SansSerif, 12.0 * s).into_font();
    let (top, bottom) = (l.top as i32, l.bottom() as i32);
    // Columns and tick labels, as many as fit.
    let below = font.color(&AXIS).pos(Pos::new(HPos::Center, VPos::Top));
    let mut last_label = f64::NEG_INFINITY;
    for &t in &l.instants {
        let x = l.x(t);
        root.draw(&PathElement::new(vec![(x as i32, top), (x as i32, bottom)], GRID.stroke_width(w(1.0))))?;
        if x - last_label >= 48.0 * s {
            root.draw_text(&ms(t), &below, (x as i32, bottom + (4.0 * s) as i32))?;
            last_label = x;
        }
    }
    // Lanes.
    let left_of = font.color(&AXIS).pos(Pos::new(HPos::Right, VPos::Center));
    for b in run.batches.iter().take(l.lanes) {
        let y = l.y(b.batch) as i32;
        let bottom_line = (l.y(b.batch) + LANE * s / 2.0) as i32;
        root.draw(&PathElement::new(
            vec![(l.left as i32, bottom_line), (l.right as i32, bottom_line)],
            GRID.stroke_width(w(1.0)),
        ))?;
        root.draw_text(&format!("batch {}", b.batch), &left_of, ((l.left - 8.0 * s) as i32, y))?;
        draw_batch(root, run, l, b)?;
    }
    // Requests in flight over time, a step line with its values.
    let max = run.in_flight.iter().map(|p| p.value).max().unwrap_or(0).max(1);
    let (base, span) = (l.bottom() - 4.0 * s, LANE * s - 10.0 * s);
    let y_of = |v: u64| (base - span * v as f64 / max as f64) as i32;
    root.draw_text("in flight", &left_of, ((l.left - 8.0 * s) as i32, (base - span / 2.0) as i32))?;
    let mut points = Vec::new();
    let mut last_label = f64::NEG_INFINITY;
    let small =
        (FontFamily::SansSerif, 11.0 * s).into_font().color(&AXIS).pos(Pos::new(HPos::Left, VPos::Bottom));
    for p in &run.in_flight {
        let x = l.x(p.at_us);
        if let Some(&(_, y)) = points.last() {
            points.push((x as i32, y));
        }
        points.push((x as i32, y_of(p.value)));
        if x - last_label >= 14.0 * s {
            root.draw_text(&p.value.to_string(), &small, (x as i32 + (2.0 * s) as i32, y_of(p.value) - 1))?;
            last_label = x;
        }
    }
    if let Some(&(_, y)) = points.last() {
        points.push((l.right as i32, y));
    }
    root.draw(&PathElement::new(points, CRASH.stroke_width(w(1.5))))?;
    // Faults placed at an instant.
    let above = font.color(&COMMITTED).pos(Pos::new(HPos::Center, VPos::Bottom));
    for f in &run.faults {
        let (Some(at), Some(kind)) = (f.fired_at_us, f.fault["kind"].as_str().and_then(FaultKind::from_name))
        else {
            continue;
        };
        let x = l.x(at) as i32;
        let label = match kind {
            FaultKind::LeaderFailover => "failover",
            FaultKind::ProducerRestart => "restart",
            FaultKind::Zombie => "zombie",
            FaultKind::OldDuplicate => "old copy",
            _ => continue,
        };
        match kind {
            FaultKind::LeaderFailover => root.draw(&DashedPathElement::new(
                vec![(x, top), (x, bottom)],
                w(5.0),
                w(3.0),
                COMMITTED.stroke_width(w(2.0)),
            ))?,
            FaultKind::ProducerRestart => {
                root.draw(&PathElement::new(vec![(x, top), (x, bottom)], CRASH.stroke_width(w(3.0))))?
            }
            _ => {
                let batch = f.fault["batch"].as_u64().unwrap_or(1) as u32;
                let y = l.y(batch) as i32;
                root.draw(&PathElement::new(vec![(x, top), (x, y)], STALE.stroke_width(w(1.0))))?;
                let r = (6.0 * s) as i32;
                let color = match f.verdict {
                    Some(Verdict::Fenced) => STALE,
                    _ => LOST,
                };
                root.draw(&Polygon::new(
                    vec![(x, y - r), (x + r, y), (x, y + r), (x - r, y)],
                    color.filled(),
                ))?;
            }
        }
        root.draw_text(label, &above, (x, top - (3.0 * s) as i32))?;
    }
    if let Some(at) = at_us {
        let x = l.x(at) as i32;
        root.draw(&PathElement::new(vec![(x, top), (x, bottom)], CRASH.mix(0.55).stroke_width(w(2.0))))?;
    }
    root.draw(&PathElement::new(
        vec![(l.left as i32, top), (l.left as i32, bottom), (l.right as i32, bottom)],
        AXIS.stroke_width(w(1.0)),
    ))?;
    // Where a gap is more than 20 times the smallest one, a break on the axis: the columns
    // are not to scale.
    let smallest = l.instants.windows(2).map(|p| p[1] - p[0]).min().unwrap_or(1).max(1);
    for p in l.instants.windows(2).filter(|p| p[1] - p[0] > 20 * smallest) {
        let x = ((l.x(p[0]) + l.x(p[1])) / 2.0) as i32;
        let (d, h) = ((3.0 * s) as i32, (6.0 * s) as i32);
        root.draw(&Rectangle::new([(x - 2 * d, bottom - h), (x + 2 * d, bottom + h)], WHITE.filled()))?;
        for dx in [-d, d] {
            root.draw(&PathElement::new(
                vec![(x + dx - d, bottom + h), (x + dx + d, bottom - h)],
                AXIS.stroke_width(w(1.5)),
            ))?;
        }
    }
    root.present()
}

fn cross<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
    r: i32,
    style: ShapeStyle,
) -> DrawResult<DB> {
    root.draw(&PathElement::new(vec![(x - r, y - r), (x + r, y + r)], style))?;
    root.draw(&PathElement::new(vec![(x - r, y + r), (x + r, y - r)], style))
}

/// One batch's sends: request leg, the leader's verdict, answer leg (or the wait for the
/// timeout when something was lost).
fn draw_batch<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    run: &ProduceRun,
    l: &Lanes,
    b: &BatchTrace,
) -> DrawResult<DB> {
    let s = l.scale;
    let w = |css: f64| (css * s).round().max(1.0) as u32;
    let y = l.y(b.batch) as i32;
    let r = (5.0 * s) as i32;
    for a in &b.attempts {
        let x0 = l.x(a.sent_at_us) as i32;
        let xa = l.arrive_x(run, a.sent_at_us, a.broker_at_us) as i32;
        let x1 = a.resolved_at_us.map_or(xa, |t| (l.x(t) as i32).max(xa));
        // The send: a short bar where it leaves, a line to the leader.
        root.draw(&PathElement::new(vec![(x0, y - r), (x0, y + r)], COMMITTED.stroke_width(w(2.0))))?;
        let request = if a.request_lost { xa - (xa - x0) / 3 } else { xa };
        root.draw(&PathElement::new(vec![(x0, y), (request, y)], COMMITTED.stroke_width(w(2.0))))?;
        if a.request_lost {
            cross(root, (request, y), r, LOST.stroke_width(w(2.5)))?;
        }
        match a.broker {
            Some(Verdict::Appended { offset }) => {
                // A second copy of records already in the log: orange, ringed.
                if run.log.iter().any(|e| e.offset == offset && e.duplicate_of.is_some()) {
                    root.draw(&Circle::new((xa, y), r + w(1.0) as i32, DUPLICATED.filled()))?;
                    root.draw(&Circle::new((xa, y), r + w(1.0) as i32, LOST.stroke_width(w(2.0))))?;
                } else {
                    root.draw(&Circle::new((xa, y), r, DURABLE.filled()))?;
                }
            }
            Some(Verdict::Duplicate { .. }) => {
                root.draw(&Circle::new((xa, y), r, DURABLE.stroke_width(w(2.0))))?
            }
            Some(Verdict::OutOfOrderSequence) => root.draw(&Polygon::new(
                vec![(xa, y - r - 1), (xa + r + 1, y + r), (xa - r - 1, y + r)],
                DUPLICATED.filled(),
            ))?,
            Some(Verdict::Fenced) => {
                root.draw(&Rectangle::new([(xa - r, y - r), (xa + r, y + r)], STALE.filled()))?
            }
            Some(Verdict::LostInFailover) => cross(root, (xa, y), r, COMMITTED.stroke_width(w(2.0)))?,
            None => {}
        }
        // The answer, or the wait for one.
        let answered = matches!(
            a.result,
            AttemptResult::Acknowledged | AttemptResult::OutOfOrderSequence | AttemptResult::Fenced
        );
        if x1 > xa + r {
            if answered && !a.ack_lost {
                root.draw(&PathElement::new(vec![(xa + r, y), (x1, y)], COMMITTED.stroke_width(w(1.0))))?;
            } else {
                root.draw(&DashedPathElement::new(
                    vec![(xa + r, y), (x1, y)],
                    w(2.0),
                    w(3.0),
                    WAIT.stroke_width(w(1.5)),
                ))?;
            }
        }
        if a.ack_lost {
            let xl = (xa + 2 * r + 2).min(x1.max(xa + 2 * r + 2));
            cross(root, (xl, y), r, LOST.stroke_width(w(2.5)))?;
        }
        if a.result == AttemptResult::Acknowledged {
            root.draw(&PathElement::new(
                vec![(x1 - r, y - r / 2), (x1 - r / 3, y + r / 2), (x1 + r, y - r)],
                DURABLE.stroke_width(w(2.0)),
            ))?;
        } else if x1 > xa {
            root.draw(&PathElement::new(vec![(x1, y - r / 2), (x1, y + r / 2)], WAIT.stroke_width(w(2.0))))?;
        }
    }
    Ok(())
}

#[cfg(all(test, feature = "svg"))]
mod tests {
    use super::{draw, Lanes};

    #[test]
    fn batches_hit_and_duplicates_show_through_the_svg_backend() {
        use offset_window_sim::producer::{simulate_producer, Fault, FaultKind, ProducerScenario};
        use plotters::prelude::{IntoDrawingArea, SVGBackend};
        let ack_lost = Fault { kind: FaultKind::AckLost, at_us: None, batch: Some(1), attempt: 1 };
        let svg = |idempotence: bool| {
            let s = ProducerScenario {
                enable_idempotence: Some(idempotence),
                faults: vec![ack_lost],
                ..ProducerScenario::default()
            };
            let run = simulate_producer(&s).unwrap();
            let lanes = Lanes::new(&run, 800, 1.0);
            // Click on batch 1's first send: that send, on that lane.
            let (x, y) = (lanes.x(run.batches[0].attempts[0].sent_at_us) + 4.0, lanes.y(1));
            assert_eq!(lanes.hit(&run, x, y).0, Some(1));
            assert_eq!(lanes.hit(&run, x, y).1, Some(1));
            let mut out = String::new();
            draw(&SVGBackend::with_string(&mut out, (800, 180)).into_drawing_area(), &run, &lanes, None)
                .unwrap();
            out
        };
        let (off, on) = (svg(false), svg(true));
        for b in 1..=4 {
            assert!(off.contains(&format!("batch {b}")));
        }
        // The second write of batch 1 is drawn orange (DUPLICATED) only without idempotence.
        assert!(off.contains("#B87800"), "a duplicate write is marked");
        assert!(!on.contains("#B87800"), "with idempotence nothing is written twice");
    }
}
