//! Drawing the two charts: pure functions of a [`Run`] and a [`Frame`], generic over the
//! plotters [`DrawingBackend`], so the canvas in the browser and an SVG backend elsewhere
//! share one code path.
//!
//! Everything is drawn in device pixels: the caller sizes the backing store by
//! `devicePixelRatio` (times a type scale in projector mode) and passes that ratio as
//! [`Frame::scale`], which every margin, line width, dash and font size is multiplied by.
//! Chart titles and the legend are HTML; the text drawn here is the tick labels and the
//! axis titles, written straight to the backend (no measuring). [`Frame::dark`] picks the
//! dark palette ([`Palette`]).
//!
//! Every step line, shaded band and mark is decimated to the pixel columns it covers,
//! so a run of a million records draws in about the time of a small one.

use crate::text::fixed;
use offset_window_sim::{CrashState, MarkKind, Run, Step};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Result of a drawing call: a plotters error names the backend's own.
pub type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// `position`: what `poll()` has handed out (dashed).
pub const POSITION: RGBColor = RGBColor(0x00, 0x72, 0xB2);
/// Durable frontier: records whose side effect has landed.
pub const DURABLE: RGBColor = RGBColor(0x00, 0x9E, 0x73);
/// Committed offset (solid, dark).
pub const COMMITTED: RGBColor = RGBColor(0x1A, 0x1A, 0x1A);
/// A crash here would process records twice (diagonal hatching).
pub const DUPLICATED: RGBColor = RGBColor(0xB8, 0x78, 0x00);
/// A crash here would lose records (cross-hatching).
pub const LOST: RGBColor = RGBColor(0xD5, 0x3E, 0x4F);
/// The crash marker.
pub const CRASH: RGBColor = RGBColor(0x7B, 0x2C, 0xBF);

/// The colours of a chart. The light one is the constants above on white; the dark one,
/// for `prefers-color-scheme: dark`, keeps each line's hue with at least 3:1 against its
/// background (WCAG 1.4.11), as the light one does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Palette {
    /// The plot's background.
    pub background: RGBColor,
    /// Grid lines.
    pub grid: RGBColor,
    /// Axes, tick labels, titles, close marks.
    pub axis: RGBColor,
    /// The position line.
    pub position: RGBColor,
    /// The durable frontier.
    pub durable: RGBColor,
    /// The committed offset, landed commits, the commit lane.
    pub committed: RGBColor,
    /// Duplicated shading.
    pub duplicated: RGBColor,
    /// Lost shading, failed commits, eviction.
    pub lost: RGBColor,
    /// The crash marker.
    pub crash: RGBColor,
}

/// The palette on white.
pub const LIGHT: Palette = Palette {
    background: WHITE,
    grid: RGBColor(0xE3, 0xE6, 0xEA),
    axis: RGBColor(0x55, 0x5B, 0x66),
    position: POSITION,
    durable: DURABLE,
    committed: COMMITTED,
    duplicated: DUPLICATED,
    lost: LOST,
    crash: CRASH,
};

/// The palette on a dark background (`prefers-color-scheme: dark`).
pub const DARK: Palette = Palette {
    background: RGBColor(0x16, 0x1A, 0x1F),
    grid: RGBColor(0x2C, 0x33, 0x3C),
    axis: RGBColor(0xA9, 0xB1, 0xBC),
    position: RGBColor(0x56, 0xB4, 0xE9),
    durable: RGBColor(0x1F, 0xBF, 0x8F),
    committed: RGBColor(0xEE, 0xEE, 0xEE),
    duplicated: RGBColor(0xE6, 0x9F, 0x00),
    lost: RGBColor(0xFF, 0x7A, 0x8A),
    crash: RGBColor(0xC0, 0x92, 0xF0),
};

/// Margins around the plot area, CSS px: room for tick labels and the axis titles left and
/// below, and above the main chart for the lane of commits in flight.
pub const LEFT: f64 = 64.0;
/// Right margin, CSS px.
pub const RIGHT: f64 = 14.0;
const MAIN_TOP: f64 = 26.0;
const PROFILE_TOP: f64 = 10.0;
const BOTTOM: f64 = 42.0;
/// The lane of commits in flight, CSS px above the plot area: `LANE_TOP..LANE_TOP + LANE_H`.
const LANE_TOP: f64 = 6.0;
const LANE_H: f64 = 12.0;

/// Where data goes on a canvas: the plot area in device pixels and the axis ranges.
/// Both charts use the same left and right margins, so they share the time axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Left edge of the plot area (t = 0), device px.
    pub left: f64,
    /// Top edge (y = `y_max`), device px.
    pub top: f64,
    /// Right edge (t = horizon), device px.
    pub right: f64,
    /// Bottom edge (y = 0), device px.
    pub bottom: f64,
    /// The time axis runs over `0..=horizon_us`.
    pub horizon_us: u64,
    /// The value axis runs over `0..=y_max`.
    pub y_max: f64,
    /// Device pixels per CSS pixel (`devicePixelRatio`, times the type scale).
    pub scale: f64,
    /// Dark palette ([`DARK`]) instead of the light one.
    pub dark: bool,
    /// Text size factor of the backend: 1 for a canvas; plotters' SVG backend writes
    /// `font-size` as size / 1.24, so SVG output passes 1.24 to match the canvas.
    pub font: f64,
    /// The axis titles, (x, y); empty strings draw none.
    pub titles: (&'static str, &'static str),
}

impl Frame {
    fn new(size: (u32, u32), scale: f64, top_css: f64, horizon_us: u64, y_max: f64) -> Frame {
        let (w, h) = (size.0 as f64, size.1 as f64);
        let left = (LEFT * scale).round();
        let right = (w - RIGHT * scale).round().max(left + 1.0);
        let top = (top_css * scale).round();
        let bottom = (h - BOTTOM * scale).round().max(top + 1.0);
        Frame {
            left,
            top,
            right,
            bottom,
            horizon_us: horizon_us.max(1),
            y_max: y_max.max(1.0),
            scale,
            dark: false,
            font: 1.0,
            titles: ("", ""),
        }
    }

    /// The colours to draw with.
    pub fn pal(&self) -> &'static Palette {
        if self.dark {
            &DARK
        } else {
            &LIGHT
        }
    }

    /// A font of `css` px for this frame's backend.
    pub(crate) fn font_px(&self, css: f64) -> f64 {
        css * self.scale * self.font
    }

    /// The x of instant `t_us`, device px.
    pub fn x(&self, t_us: u64) -> f64 {
        self.left + (self.right - self.left) * (t_us as f64 / self.horizon_us as f64)
    }

    /// The y of value `v` (an offset or a count), device px.
    pub fn y(&self, v: f64) -> f64 {
        self.bottom - (self.bottom - self.top) * (v / self.y_max)
    }

    /// The instant under device x, µs, clamped into `1..=horizon_us` (a valid crash instant).
    pub fn time_at(&self, x: f64) -> u64 {
        let f = ((x - self.left) / (self.right - self.left)).clamp(0.0, 1.0);
        ((f * self.horizon_us as f64).round() as u64).clamp(1, self.horizon_us)
    }

    pub(crate) fn px(&self, css: f64) -> f64 {
        css * self.scale
    }

    pub(crate) fn width_px(&self, css: f64) -> u32 {
        (css * self.scale).round().max(1.0) as u32
    }
}

/// The main chart's frame on a canvas of `size` device px: y from 0 to a little above the
/// highest offset handed out.
pub fn main_frame(size: (u32, u32), scale: f64, run: &Run) -> Frame {
    let lines = run.lines();
    let top_value = last(&lines.position).max(last(&lines.committed)) as f64;
    let f = Frame::new(size, scale, MAIN_TOP, run.scenario.horizon_us, (top_value * 1.06).ceil().max(5.0));
    Frame { titles: ("simulated time (s)", "offset"), ..f }
}

/// The profile chart's frame: y from 0 to the worst lost or duplicated count.
pub fn profile_frame(size: (u32, u32), scale: f64, run: &Run) -> Frame {
    let worst = run.lines().profile.iter().map(|p| p.lost.max(p.duplicated)).max().unwrap_or(0) as f64;
    let f = Frame::new(size, scale, PROFILE_TOP, run.scenario.horizon_us, (worst * 1.1).ceil().max(2.0));
    Frame { titles: ("crash instant (s)", "records"), ..f }
}

/// The highest value a line reaches (0 when it has none).
fn last(steps: &[Step<Option<u64>>]) -> u64 {
    steps.iter().filter_map(|s| s.value).max().unwrap_or(0)
}

/// Draws the main chart: grid, the lost/duplicated shading from the crash profile, the lane
/// of commits in flight, the three lines and the marks where commits land, and the axes.
pub fn draw_main<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, run: &Run, f: &Frame) -> DrawResult<DB> {
    paint_main(root, run, f)?;
    root.present()?;
    Ok(())
}

/// As [`draw_main`], without presenting: for several drawings on one backend (the slide).
pub fn paint_main<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, run: &Run, f: &Frame) -> DrawResult<DB> {
    let p = f.pal();
    root.fill(&p.background)?;
    draw_grid(root, f, 5)?;
    draw_axes(root, f, 5)?; // under the data: a line at offset 0 stays visible

    // Shading: at every crash instant T, the duplicated count is drawn as a band just above
    // the committed offset and the lost count as a band just below it. Both heights come
    // from the profile (counts), anchored on the committed line, so both show when both are
    // non-zero (several pool threads). Offsets that ran several times count each run, so
    // the band can reach above the axis: it stops at the top (the profile chart has the count).
    // While the group has no committed offset there is no line to anchor on: no band.
    let segments: Vec<_> =
        profile_segments(run).into_iter().filter_map(|s| Some((s, s.committed?))).collect();
    let dup = segments.iter().map(|&(s, committed)| {
        (s.from_us, s.to_us, committed as f64, ((committed + s.duplicated) as f64).min(f.y_max))
    });
    draw_bands(root, f, columns(f, dup.filter(|b| b.3 > b.2)), p.duplicated, Hatch::Diagonal)?;
    let lost = segments.iter().map(|&(s, committed)| {
        (s.from_us, s.to_us, committed.saturating_sub(s.lost) as f64, committed as f64)
    });
    draw_bands(root, f, columns(f, lost.filter(|b| b.3 > b.2)), p.lost, Hatch::Cross)?;

    draw_commit_lane(root, run, f)?;

    let w2 = f.width_px(2.0);
    let lines = run.lines();
    for piece in step_paths(&lines.durable_frontier, f) {
        root.draw(&PathElement::new(piece, p.durable.stroke_width(f.width_px(2.5))))?;
    }
    for piece in step_paths(&lines.position, f) {
        root.draw(&DashedPathElement::new(
            piece,
            f.px(7.0) as i32,
            f.px(4.0) as i32,
            p.position.stroke_width(w2),
        ))?;
    }
    for piece in step_paths(&lines.committed, f) {
        root.draw(&PathElement::new(piece, p.committed.stroke_width(f.width_px(3.0))))?;
    }

    // Where commits land: a dot on the committed line, unless they are too dense to tell apart.
    let landings: Vec<(u64, u64)> = run
        .marks
        .iter()
        .filter_map(|m| match m.kind {
            MarkKind::CommitLanded { offset } if m.at_us <= f.horizon_us => Some((m.at_us, offset)),
            _ => None,
        })
        .collect();
    if (landings.len() as f64) < (f.right - f.left) / f.px(6.0) {
        let r = f.width_px(3.5);
        for (at, offset) in landings {
            let c = (f.x(at).round() as i32, f.y(offset as f64).round() as i32);
            root.draw(&Circle::new(c, r + f.width_px(1.0), p.background.filled()))?;
            root.draw(&Circle::new(c, r, p.committed.filled()))?;
        }
    }

    draw_lifecycle_marks(root, run, f)?;
    crate::records::draw_record_marks(root, run, f)?;
    Ok(())
}

/// Eviction, close, restart and failed commits (docs/model.md §8.6–8.9): a dashed vertical line in
/// the lost colour where the member is evicted, a grey one where `close()` returns (dotted
/// where the consumer restarts), and a × on the offset a failed commit would have stored.
fn draw_lifecycle_marks<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    run: &Run,
    f: &Frame,
) -> DrawResult<DB> {
    let (t, b) = (f.top as i32, f.bottom as i32);
    let p = f.pal();
    let arm = f.px(4.5) as i32;
    let cross = p.lost.stroke_width(f.width_px(2.5));
    let halo = p.background.stroke_width(f.width_px(5.0));
    let mut last_cross = i32::MIN;
    for m in run.marks.iter().take_while(|m| m.at_us <= f.horizon_us) {
        let x = f.x(m.at_us).round() as i32;
        match m.kind {
            MarkKind::Evicted => root.draw(&DashedPathElement::new(
                vec![(x, t), (x, b)],
                f.px(6.0) as i32,
                f.px(4.0) as i32,
                p.lost.stroke_width(f.width_px(2.0)),
            ))?,
            MarkKind::Closed => {
                root.draw(&PathElement::new(vec![(x, t), (x, b)], p.axis.stroke_width(f.width_px(2.0))))?
            }
            MarkKind::Restarted { .. } => root.draw(&DashedPathElement::new(
                vec![(x, t), (x, b)],
                f.px(2.0) as i32,
                f.px(3.0) as i32,
                p.axis.stroke_width(f.width_px(2.0)),
            ))?,
            // One × per few pixels: a livelock fails a commit every poll.
            MarkKind::CommitFailed { offset, .. } if x >= last_cross + 2 * arm => {
                last_cross = x;
                let y = f.y(offset as f64).round() as i32;
                for style in [halo, cross] {
                    root.draw(&PathElement::new(vec![(x - arm, y - arm), (x + arm, y + arm)], style))?;
                    root.draw(&PathElement::new(vec![(x - arm, y + arm), (x + arm, y - arm)], style))?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Draws the profile chart: lost(T) and duplicated(T) as hatched step areas with their
/// outlines, on the main chart's time axis.
pub fn draw_profile<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    run: &Run,
    f: &Frame,
) -> DrawResult<DB> {
    paint_profile(root, run, f)?;
    root.present()?;
    Ok(())
}

/// As [`draw_profile`], without presenting.
pub fn paint_profile<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    run: &Run,
    f: &Frame,
) -> DrawResult<DB> {
    let p = f.pal();
    root.fill(&p.background)?;
    draw_grid(root, f, 3)?;
    draw_axes(root, f, 3)?;
    let profile = &run.lines().profile;
    let dup_steps: Vec<Step> = profile.iter().map(|p| Step { at_us: p.at_us, value: p.duplicated }).collect();
    let lost_steps: Vec<Step> = profile.iter().map(|p| Step { at_us: p.at_us, value: p.lost }).collect();
    for (steps, color, hatch) in
        [(&dup_steps, p.duplicated, Hatch::Diagonal), (&lost_steps, p.lost, Hatch::Cross)]
    {
        let bands = step_segments(steps, f.horizon_us).map(|(from, to, v)| (from, to, 0.0, v as f64));
        draw_bands(root, f, columns(f, bands.filter(|b| b.3 > 0.0)), color, hatch)?;
    }
    for piece in step_paths(&dup_steps, f) {
        root.draw(&PathElement::new(piece, p.duplicated.stroke_width(f.width_px(2.0))))?;
    }
    for piece in step_paths(&lost_steps, f) {
        let style = p.lost.stroke_width(f.width_px(2.0));
        root.draw(&DashedPathElement::new(piece, f.px(5.0) as i32, f.px(3.0) as i32, style))?;
    }
    Ok(())
}

/// Half the width of what [`draw_crash`] draws around the crash instant, CSS px (the grip
/// and the dots are the widest parts), with a margin for anti-aliasing.
pub const CRASH_MARKER_HALF_WIDTH: f64 = 10.0;

/// Draws the crash marker: a vertical line at `crash_at_us` with a grip above the plot and
/// a dot on each of `values` (value, colour) where it crosses them. The caller clears
/// the layer first (a transparent fill draws nothing on a canvas).
pub fn draw_crash<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    f: &Frame,
    crash_at_us: u64,
    values: &[(f64, RGBColor)],
) -> DrawResult<DB> {
    paint_crash(root, f, crash_at_us, values)?;
    root.present()?;
    Ok(())
}

/// As [`draw_crash`], without presenting.
pub fn paint_crash<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    f: &Frame,
    crash_at_us: u64,
    values: &[(f64, RGBColor)],
) -> DrawResult<DB> {
    let x = f.x(crash_at_us).round() as i32;
    let (top, bottom) = (f.top as i32, f.bottom as i32);
    let p = f.pal();
    root.draw(&PathElement::new(vec![(x, top), (x, bottom)], p.crash.stroke_width(f.width_px(2.0))))?;
    // The grip: a triangle pointing down at the line, in the margin above the plot.
    let g = f.px(6.0) as i32;
    root.draw(&Polygon::new(vec![(x - g, top - 2 * g), (x + g, top - 2 * g), (x, top)], p.crash.filled()))?;
    for &(value, color) in values {
        let c = (x, f.y(value).round() as i32);
        root.draw(&Circle::new(c, f.width_px(5.5), p.background.filled()))?;
        root.draw(&Circle::new(c, f.width_px(4.0), color.filled()))?;
    }
    Ok(())
}

/// One interval over which the committed offset and the crash profile are constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Segment {
    from_us: u64,
    to_us: u64,
    committed: Option<u64>,
    lost: u64,
    duplicated: u64,
}

/// Merges the committed line's steps and the profile's steps into intervals of constant
/// (committed, lost, duplicated), over `0..horizon`.
fn profile_segments(run: &Run) -> Vec<Segment> {
    let horizon = run.scenario.horizon_us;
    let (c, p) = (&run.lines().committed, &run.lines().profile);
    let (mut i, mut j) = (0, 0);
    let mut cur = Segment { from_us: 0, to_us: 0, committed: None, lost: 0, duplicated: 0 };
    let mut out = Vec::with_capacity(c.len() + p.len());
    loop {
        let next_c = c.get(i).map_or(u64::MAX, |s| s.at_us);
        let next_p = p.get(j).map_or(u64::MAX, |s| s.at_us);
        let next = next_c.min(next_p).min(horizon);
        if next > cur.from_us {
            out.push(Segment { to_us: next, ..cur });
            cur.from_us = next;
        }
        if next >= horizon {
            break;
        }
        if next_c == next {
            cur.committed = c[i].value;
            i += 1;
        }
        if next_p == next {
            (cur.lost, cur.duplicated) = (p[j].lost, p[j].duplicated);
            j += 1;
        }
    }
    out
}

/// The intervals `(from, to, value)` of a step function over `0..horizon`.
pub(crate) fn step_segments(steps: &[Step], horizon_us: u64) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
    let first = (0, steps.first().map_or(horizon_us, |s| s.at_us), 0);
    std::iter::once(first).chain(steps.iter().enumerate().map(move |(k, s)| {
        let to = steps.get(k + 1).map_or(horizon_us, |n| n.at_us).min(horizon_us);
        (s.at_us.min(horizon_us), to, s.value)
    }))
}

/// A shaded rectangle in device px: `x0..x1` × value `lo..hi`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Column {
    x0: i32,
    x1: i32,
    lo: f64,
    hi: f64,
}

/// Turns bands `(from_us, to_us, lo, hi)` into at most one rectangle per pixel column:
/// a band narrower than a pixel still gets one (a brief danger stays visible); bands
/// sharing a column are merged into their hull, over the shared pixels only (a wide
/// rectangle is cut where the next band starts, never raised over its whole width); equal
/// neighbours are joined.
pub(crate) fn columns(f: &Frame, bands: impl Iterator<Item = (u64, u64, f64, f64)>) -> Vec<Column> {
    let mut out: Vec<Column> = Vec::new();
    for (from, to, lo, hi) in bands {
        let x0 = f.x(from).round() as i32;
        let x1 = (f.x(to).round() as i32).max(x0 + 1);
        let new = Column { x0, x1, lo, hi };
        match out.last_mut() {
            // A band starting inside a wide rectangle of other values (after a band
            // narrower than a pixel widened it): the hull covers only the shared pixels.
            Some(prev) if x0 < prev.x1 && x0 > prev.x0 && (prev.lo, prev.hi) != (lo, hi) => {
                let old = *prev;
                prev.x1 = x0;
                out.push(Column { x0, x1: old.x1, lo: old.lo.min(lo), hi: old.hi.max(hi) });
                if x1 > old.x1 {
                    out.push(Column { x0: old.x1, x1, lo, hi });
                }
            }
            Some(prev) if x0 < prev.x1 => {
                prev.x1 = prev.x1.max(x1);
                prev.lo = prev.lo.min(lo);
                prev.hi = prev.hi.max(hi);
            }
            Some(prev) if x0 == prev.x1 && prev.lo == lo && prev.hi == hi => prev.x1 = x1,
            _ => out.push(new),
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hatch {
    /// `/` lines: duplicated.
    Diagonal,
    /// `/` and `\` lines: lost.
    Cross,
}

/// Fills each column lightly and hatches it, the hatching in one global phase so that
/// neighbouring columns join up.
pub(crate) fn draw_bands<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    f: &Frame,
    cols: Vec<Column>,
    color: RGBColor,
    hatch: Hatch,
) -> DrawResult<DB> {
    let fill = color.mix(0.22).filled();
    let line = color.mix(0.95).stroke_width(f.width_px(1.2));
    let spacing = f.px(if hatch == Hatch::Cross { 7.0 } else { 6.0 });
    for c in cols {
        let (x0, x1) = (c.x0 as f64, c.x1 as f64);
        let (y0, y1) = (f.y(c.hi).round(), f.y(c.lo).round());
        let (y0, y1) = (y0.min(y1 - 1.0), y1);
        root.draw(&Rectangle::new([(c.x0, y0 as i32), (c.x1, y1 as i32)], fill))?;
        // "/": x + y = k·spacing
        let mut k = ((x0 + y0) / spacing).ceil();
        while k * spacing <= x1 + y1 {
            let cc = k * spacing;
            let (lo, hi) = ((cc - y1).max(x0), (cc - y0).min(x1));
            if hi > lo {
                let seg = vec![(lo as i32, (cc - lo) as i32), (hi as i32, (cc - hi) as i32)];
                root.draw(&PathElement::new(seg, line))?;
            }
            k += 1.0;
        }
        if hatch == Hatch::Cross {
            // "\": x − y = k·spacing
            let mut k = ((x0 - y1) / spacing).ceil();
            while k * spacing <= x1 - y0 {
                let cc = k * spacing;
                let (lo, hi) = ((y0 + cc).max(x0), (y1 + cc).min(x1));
                if hi > lo {
                    let seg = vec![(lo as i32, (lo - cc) as i32), (hi as i32, (hi - cc) as i32)];
                    root.draw(&PathElement::new(seg, line))?;
                }
                k += 1.0;
            }
        }
    }
    Ok(())
}

/// The lane above the plot: each commit from the moment it is sent to the moment it
/// lands, solid when the loop blocks on it (`commitSync`, `commitTransaction`), outlined
/// when it does not (auto-commit, `commitAsync`). At least 3 CSS px wide, so a 5 ms
/// round trip is still seen.
fn draw_commit_lane<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    run: &Run,
    f: &Frame,
) -> DrawResult<DB> {
    let (y0, y1) = (f.px(LANE_TOP).round() as i32, f.px(LANE_TOP + LANE_H).round() as i32);
    let min_w = f.px(3.0).round() as i32;
    let mut spans: Vec<(i32, i32, bool)> = Vec::new();
    for m in &run.marks {
        if let MarkKind::CommitSent { blocking, .. } = m.kind {
            let lands_at_us = run.lands_at_us(m.at_us);
            if m.at_us > f.horizon_us {
                continue;
            }
            let x0 = f.x(m.at_us).round() as i32;
            let x1 = (f.x(lands_at_us.min(f.horizon_us)).round() as i32).max(x0 + min_w);
            match spans.last_mut() {
                Some(prev) if x0 <= prev.1 && prev.2 == blocking => prev.1 = prev.1.max(x1),
                _ => spans.push((x0, x1, blocking)),
            }
        }
    }
    let p = f.pal();
    let label = (FontFamily::SansSerif, f.font_px(11.0))
        .into_font()
        .color(&p.axis)
        .pos(Pos::new(HPos::Right, VPos::Center));
    root.draw_text("commits", &label, ((f.left - f.px(6.0)) as i32, (y0 + y1) / 2))?;
    for (x0, x1, blocking) in spans {
        let rect = [(x0, y0), (x1, y1)];
        if blocking {
            root.draw(&Rectangle::new(rect, p.committed.filled()))?;
        } else {
            root.draw(&Rectangle::new(rect, p.background.filled()))?;
            root.draw(&Rectangle::new(rect, p.committed.stroke_width(f.width_px(1.5))))?;
        }
    }
    Ok(())
}

/// A step function as a polyline in device px from t = 0 to the horizon, with at most
/// four points per pixel column (first, lowest, highest, last), in drawing order.
/// A step line as device-px polylines, one per stretch where it has a value (the position
/// and the committed offset can have none).
pub(crate) fn step_paths<V: Copy + Into<Option<u64>>>(steps: &[Step<V>], f: &Frame) -> Vec<Vec<(i32, i32)>> {
    let y = |v: u64| f.y(v as f64).round() as i32;
    let mut pieces = Vec::new();
    let mut out = Decimator::default();
    let mut prev: Option<u64> = None;
    for s in steps.iter().take_while(|s| s.at_us <= f.horizon_us) {
        let x = f.x(s.at_us).round() as i32;
        let value = s.value.into();
        if let Some(p) = prev {
            out.push(x, y(p));
        }
        match value {
            Some(v) => out.push(x, y(v)),
            None if prev.is_some() => pieces.push(std::mem::take(&mut out).finish()),
            None => {}
        }
        prev = value;
    }
    if let Some(p) = prev {
        out.push(f.x(f.horizon_us).round() as i32, y(p));
        pieces.push(out.finish());
    }
    pieces
}

#[derive(Default)]
struct Decimator {
    points: Vec<(i32, i32)>,
    /// The open column: x, first, min, max, last y.
    col: Option<(i32, i32, i32, i32, i32)>,
}

impl Decimator {
    fn push(&mut self, x: i32, y: i32) {
        match &mut self.col {
            Some(c) if c.0 == x => {
                c.2 = c.2.min(y);
                c.3 = c.3.max(y);
                c.4 = y;
            }
            _ => {
                self.flush();
                self.col = Some((x, y, y, y, y));
            }
        }
    }

    fn flush(&mut self) {
        if let Some((x, first, min, max, last)) = self.col.take() {
            let (a, b) = if last >= first { (min, max) } else { (max, min) };
            for y in [first, a, b, last] {
                if self.points.last() != Some(&(x, y)) {
                    self.points.push((x, y));
                }
            }
        }
    }

    fn finish(mut self) -> Vec<(i32, i32)> {
        self.flush();
        self.points
    }
}

/// A tick step of 1, 2 or 5 × 10^k giving about `target` ticks over `range`.
fn nice_step(range: f64, target: f64) -> f64 {
    let raw = (range / target.max(1.0)).max(1e-6);
    let mut mag = 1.0;
    while mag > raw {
        mag /= 10.0;
    }
    while mag * 10.0 <= raw {
        mag *= 10.0;
    }
    let norm = raw / mag;
    mag * if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    }
}

/// Time ticks, s, and the decimals their labels need.
pub(crate) fn time_ticks(f: &Frame) -> (u32, Vec<f64>) {
    let horizon_s = f.horizon_us as f64 / 1e6;
    let step = nice_step(horizon_s, ((f.right - f.left) / f.px(80.0)).max(2.0));
    let ticks = (0..=(horizon_s / step + 1e-9).floor() as usize).map(|k| k as f64 * step).collect();
    let mut decimals = 0;
    while decimals < 6
        && (step * 10f64.powi(decimals as i32) - (step * 10f64.powi(decimals as i32)).round()).abs() > 1e-6
    {
        decimals += 1;
    }
    (decimals, ticks)
}

fn value_ticks(f: &Frame, target: f64) -> Vec<f64> {
    let step = nice_step(f.y_max, target).max(1.0);
    (0..=(f.y_max / step).floor() as usize).map(|k| k as f64 * step).collect()
}

pub(crate) fn draw_grid<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    f: &Frame,
    y_target: usize,
) -> DrawResult<DB> {
    let style = f.pal().grid.stroke_width(f.width_px(1.0));
    let (l, r, t, b) = (f.left as i32, f.right as i32, f.top as i32, f.bottom as i32);
    for v in value_ticks(f, y_target as f64) {
        let y = f.y(v).round() as i32;
        root.draw(&PathElement::new(vec![(l, y), (r, y)], style))?;
    }
    for s in time_ticks(f).1 {
        let x = f.x((s * 1e6).round() as u64).round() as i32;
        root.draw(&PathElement::new(vec![(x, t), (x, b)], style))?;
    }
    Ok(())
}

pub(crate) fn draw_axes<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    f: &Frame,
    y_target: usize,
) -> DrawResult<DB> {
    let ink = f.pal().axis;
    let axis = ink.stroke_width(f.width_px(1.0));
    let (l, r, t, b) = (f.left as i32, f.right as i32, f.top as i32, f.bottom as i32);
    root.draw(&PathElement::new(vec![(l, t), (l, b), (r, b)], axis))?;
    let font = (FontFamily::SansSerif, f.font_px(12.0)).into_font();
    let tick = f.px(4.0) as i32;
    let below = font.color(&ink).pos(Pos::new(HPos::Center, VPos::Top));
    let (decimals, ticks) = time_ticks(f);
    for s in ticks {
        let x = f.x((s * 1e6).round() as u64).round() as i32;
        root.draw(&PathElement::new(vec![(x, b), (x, b + tick)], axis))?;
        root.draw_text(&fixed(s, decimals), &below, (x, b + tick + f.px(2.0) as i32))?;
    }
    let left_of = font.color(&ink).pos(Pos::new(HPos::Right, VPos::Center));
    for v in value_ticks(f, y_target as f64) {
        let y = f.y(v).round() as i32;
        root.draw(&PathElement::new(vec![(l - tick, y), (l, y)], axis))?;
        root.draw_text(&fixed(v, 0), &left_of, (l - tick - f.px(3.0) as i32, y))?;
    }
    // Axis titles: along the time axis under its labels, and up the value axis at the left edge.
    let (x_title, y_title) = f.titles;
    let title = (FontFamily::SansSerif, f.font_px(12.5)).into_font().color(&ink);
    if !x_title.is_empty() {
        let at = ((l + r) / 2, b + tick + f.px(19.0) as i32);
        root.draw_text(x_title, &title.pos(Pos::new(HPos::Center, VPos::Top)), at)?;
    }
    if !y_title.is_empty() {
        let up = title.transform(FontTransform::Rotate270).pos(Pos::new(HPos::Center, VPos::Top));
        root.draw_text(y_title, &up, (f.px(3.0) as i32, (t + b) / 2))?;
    }
    Ok(())
}

/// Where the crash marker crosses the main chart's lines: (value, colour) for the position,
/// the durable frontier and the committed offset (those that have a value).
pub fn main_values(at: &CrashState, p: &Palette) -> Vec<(f64, RGBColor)> {
    [(at.position, p.position), (Some(at.durable), p.durable), (at.committed, p.committed)]
        .into_iter()
        .filter_map(|(v, colour)| Some((v? as f64, colour)))
        .collect()
}

/// Where it crosses the profile chart's two curves: duplicated and lost.
pub fn profile_values(at: &CrashState, p: &Palette) -> Vec<(f64, RGBColor)> {
    vec![(at.duplicated as f64, p.duplicated), (at.lost as f64, p.lost)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use offset_window_sim::Scenario;

    #[test]
    fn a_band_narrower_than_a_pixel_never_raises_the_rectangle_before_it() {
        // Spring's handler seeking back to record 12 (docs/model.md §12): lost 1 from 5.405 s,
        // below a committed offset of 18, then of 43 from 10.405 s; the step between them
        // passes through a 5 ms segment, under a pixel wide.
        let s = Scenario {
            record_failures: vec![12],
            on_error: offset_window_sim::scenario::OnError::SeekToFailed,
            ..Scenario::default()
        };
        let run = offset_window_sim::simulate(&s).unwrap();
        let f = main_frame((840, 420), 1.0, &run);
        let lost = profile_segments(&run).into_iter().filter_map(|s| {
            let committed = s.committed?;
            Some((s.from_us, s.to_us, committed.saturating_sub(s.lost) as f64, committed as f64))
        });
        let cols = columns(&f, lost.filter(|b| b.3 > b.2));
        for c in &cols {
            assert!(c.x1 - c.x0 <= 1 || c.hi - c.lo <= 1.0, "a wide band one record tall at most: {c:?}");
        }
        assert!(cols.iter().any(|c| c.x1 - c.x0 > 100 && (c.lo, c.hi) == (17.0, 18.0)), "{cols:?}");
    }

    /// WCAG 2.x contrast ratio of two sRGB colours (1 to 21).
    fn contrast(a: RGBColor, b: RGBColor) -> f64 {
        let luminance = |c: RGBColor| {
            let lin = |v: u8| {
                let s = f64::from(v) / 255.0;
                if s <= 0.03928 {
                    s / 12.92
                } else {
                    ((s + 0.055) / 1.055).powf(2.4)
                }
            };
            0.2126 * lin(c.0) + 0.7152 * lin(c.1) + 0.0722 * lin(c.2)
        };
        let (x, y) = (luminance(a), luminance(b));
        (x.max(y) + 0.05) / (x.min(y) + 0.05)
    }

    #[test]
    fn both_palettes_have_wcag_non_text_contrast() {
        // WCAG 1.4.11: graphical objects need 3:1 against what is next to them; the axis ink
        // is text (tick labels, titles): 4.5:1.
        for (name, p) in [("light", &LIGHT), ("dark", &DARK)] {
            for (what, c) in [
                ("position", p.position),
                ("durable", p.durable),
                ("committed", p.committed),
                ("duplicated", p.duplicated),
                ("lost", p.lost),
                ("crash", p.crash),
            ] {
                let ratio = contrast(c, p.background);
                assert!(ratio >= 3.0, "{name} {what}: {ratio:.2}:1");
            }
            assert!(contrast(p.axis, p.background) >= 4.5, "{name} axis text");
        }
    }

    #[test]
    fn frames_map_time_and_values_both_ways() {
        let run = offset_window_sim::simulate(&offset_window_sim::Scenario::default()).unwrap();
        let f = main_frame((840, 420), 1.0, &run);
        assert_eq!((f.left, f.right), (64.0, 826.0));
        assert_eq!(f.x(0), f.left);
        assert_eq!(f.x(run.scenario.horizon_us), f.right);
        assert_eq!(f.time_at(f.x(8_200_000)), 8_200_000);
        assert_eq!(f.time_at(-50.0), 1, "clamped to a valid crash instant");
        assert_eq!(f.y(0.0), f.bottom);
        let big = main_frame((840, 420), 2.0, &run);
        assert_eq!(big.left, 128.0, "margins scale with the type");
    }
}
