//! Drawing primitives every page's charts share: the palettes, the [`Frame`] that maps
//! time and values to device pixels, step lines decimated to pixel columns, hatched bands,
//! grid, axes and the crash marker. Pure functions generic over the plotters
//! [`DrawingBackend`], so the canvas in the browser and an SVG backend elsewhere share one
//! code path.
//!
//! Everything is drawn in device pixels: the caller sizes the backing store by
//! `devicePixelRatio` (times a type scale in projector mode) and passes that ratio as
//! [`Frame::scale`], which every margin, line width, dash and font size is multiplied by.

use crate::kit::text::fixed;
use offset_window_sim::Step;
use plotters::coord::Shift;
use plotters::element::{Drawable, PointCollection};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_backend::{BackendCoord, DrawingErrorKind};

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
/// Bottom margin, CSS px: room for the tick labels and the time axis title.
pub(crate) const BOTTOM: f64 = 42.0;

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
    /// A frame on a canvas of `size` device px with the plot `top_css` CSS px below its top,
    /// the time axis over `0..=horizon_us` and the value axis over `0..=y_max`.
    pub fn new(size: (u32, u32), scale: f64, top_css: f64, horizon_us: u64, y_max: f64) -> Frame {
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
    pub(crate) x0: i32,
    pub(crate) x1: i32,
    pub(crate) lo: f64,
    pub(crate) hi: f64,
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

/// A backend that strokes many line segments in one style at once (a band's hatching).
pub trait DrawSegments: DrawingBackend {
    /// Strokes the segments `points[0]`–`points[1]`, `points[2]`–`points[3]`, …
    fn draw_segments<S: plotters_backend::BackendStyle>(
        &mut self,
        points: &[BackendCoord],
        style: &S,
    ) -> std::result::Result<(), DrawingErrorKind<Self::ErrorType>>;
}

/// Line segments in one style as one plotters element: `points` in pairs, from and to.
struct Segments<S> {
    points: Vec<BackendCoord>,
    style: S,
}

impl<'a, S> PointCollection<'a, BackendCoord> for &'a Segments<S> {
    type Point = &'a BackendCoord;
    type IntoIter = &'a [BackendCoord];
    fn point_iter(self) -> Self::IntoIter {
        &self.points
    }
}

impl<DB: DrawSegments, S: plotters_backend::BackendStyle> Drawable<DB> for Segments<S> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        points: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> std::result::Result<(), DrawingErrorKind<DB::ErrorType>> {
        backend.draw_segments(&points.collect::<Vec<_>>(), &self.style)
    }
}

/// Fills each column lightly and hatches it, the hatching in one global phase so that
/// neighbouring columns join up.
pub(crate) fn draw_bands<DB: DrawSegments>(
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
        // The column's hatching as one element: segments from and to, in pairs.
        let mut points = Vec::new();
        // "/": x + y = k·spacing
        let mut k = ((x0 + y0) / spacing).ceil();
        while k * spacing <= x1 + y1 {
            let cc = k * spacing;
            let (lo, hi) = ((cc - y1).max(x0), (cc - y0).min(x1));
            if hi > lo {
                points.extend([(lo as i32, (cc - lo) as i32), (hi as i32, (cc - hi) as i32)]);
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
                    points.extend([(lo as i32, (lo - cc) as i32), (hi as i32, (hi - cc) as i32)]);
                }
                k += 1.0;
            }
        }
        root.draw(&Segments { points, style: line })?;
    }
    Ok(())
}

/// Rectangles of one row given left to right (each at least a pixel wide, as a row's spans in
/// time order are), as the runs to fill: a rectangle of the last one's colour touching it
/// extends it, one of another colour starting inside it cuts it there. Filling the runs
/// gives the pixels of the rectangles filled one by one, with one fill per run of a colour
/// (an overview's rows: thousands of spans, most of them narrower than a pixel).
#[cfg(feature = "group")]
#[derive(Default)]
pub(crate) struct Runs {
    pending: Option<(i32, i32, RGBColor)>,
}

#[cfg(feature = "group")]
impl Runs {
    /// The next rectangle, `x0..x1` (`x0` not left of the last one's); a run that is now
    /// final, if any.
    pub(crate) fn push(&mut self, x0: i32, x1: i32, color: RGBColor) -> Option<(i32, i32, RGBColor)> {
        match self.pending.replace((x0, x1, color)) {
            Some((a0, a1, c)) if c == color && x0 <= a1 => {
                self.pending = Some((a0, a1.max(x1), c));
                None
            }
            // Filled after it, this one covers the last one from x0 on.
            Some((a0, a1, c)) => Some((a0, a1.min(x0), c)).filter(|r| r.1 > r.0),
            None => None,
        }
    }

    /// The last run.
    pub(crate) fn finish(self) -> Option<(i32, i32, RGBColor)> {
        self.pending
    }
}

/// [`Runs`] filled on `root` between `y0` and `y1`.
#[cfg(feature = "group")]
pub(crate) struct RowFill<'a, DB: DrawingBackend> {
    root: &'a DrawingArea<DB, Shift>,
    rows: (i32, i32),
    runs: Runs,
}

#[cfg(feature = "group")]
impl<'a, DB: DrawingBackend> RowFill<'a, DB> {
    pub(crate) fn new(root: &'a DrawingArea<DB, Shift>, y0: i32, y1: i32) -> Self {
        RowFill { root, rows: (y0, y1), runs: Runs::default() }
    }

    fn draw(&self, run: Option<(i32, i32, RGBColor)>) -> DrawResult<DB> {
        match run {
            Some((x0, x1, c)) => {
                self.root.draw(&Rectangle::new([(x0, self.rows.0), (x1, self.rows.1)], c.filled()))
            }
            None => Ok(()),
        }
    }

    /// The next rectangle (see [`Runs::push`]).
    pub(crate) fn fill(&mut self, x0: i32, x1: i32, color: RGBColor) -> DrawResult<DB> {
        let run = self.runs.push(x0, x1, color);
        self.draw(run)
    }

    /// Fills what is pending.
    pub(crate) fn finish(mut self) -> DrawResult<DB> {
        let run = std::mem::take(&mut self.runs).finish();
        self.draw(run)
    }
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
pub(crate) struct Decimator {
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
pub(crate) fn nice_step(range: f64, target: f64) -> f64 {
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

/// The time axis's labels, (device x, text): each tick's, and the horizon's at the axis's end
/// when no tick falls there (a 180 s axis with a tick every 50 s ended unlabelled: issue 28's
/// trial); a tick label too near the end gives way to it.
pub(crate) fn time_labels(f: &Frame) -> Vec<(i32, String)> {
    let (decimals, ticks) = time_ticks(f);
    let mut labels: Vec<(i32, String)> =
        ticks.iter().map(|&s| (f.x((s * 1e6).round() as u64).round() as i32, fixed(s, decimals))).collect();
    let end = f.x(f.horizon_us).round() as i32;
    if labels.last().is_some_and(|(x, _)| *x < end) {
        // The horizon to its last whole digit, µs at most.
        let digits = (0..6).find(|&d| f.horizon_us.is_multiple_of(10u64.pow(6 - d))).unwrap_or(6);
        let text = fixed(f.horizon_us as f64 / 1e6, digits);
        // Half of each label (a digit is about 0.6 em) and a gap of half an em between them.
        let apart = |a: &str, b: &str| f.font_px(12.0) * (0.3 * (a.len() + b.len()) as f64 + 0.5);
        if labels.last().is_some_and(|(x, last)| ((end - x) as f64) < apart(last, &text)) {
            labels.pop();
        }
        labels.push((end, text));
    }
    labels
}

pub(crate) fn value_ticks(f: &Frame, target: f64) -> Vec<f64> {
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
    for s in time_ticks(f).1 {
        let x = f.x((s * 1e6).round() as u64).round() as i32;
        root.draw(&PathElement::new(vec![(x, b), (x, b + tick)], axis))?;
    }
    for (x, text) in time_labels(f) {
        root.draw_text(&text, &below, (x, b + tick + f.px(2.0) as i32))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_axis_ends_with_its_horizon_labelled() {
        // The KEDA preset's 180 s on every width from a phone to a projector, at two scales:
        // the last label says 180 at the axis's end, and no two labels crowd each other.
        for scale in [1.0, 1.5, 2.0] {
            for width in (300..=2400).step_by(20) {
                let f = Frame::new((width, 300), scale, 10.0, 180_000_000, 1.0);
                let labels = time_labels(&f);
                let (x, text) = labels.last().unwrap();
                assert_eq!((*x, text.as_str()), (f.right as i32, "180"), "{width} px at {scale}");
                for pair in labels.windows(2) {
                    let room = (pair[1].0 - pair[0].0) as f64;
                    assert!(room >= f.font_px(12.0) * 1.5, "{width} px at {scale}: {pair:?}");
                }
            }
        }
        // A horizon on a tick keeps the ticks' labels; one of whole ms says its ms.
        let f = Frame::new((900, 300), 1.0, 10.0, 12_000_000, 1.0);
        assert_eq!(time_labels(&f).last().unwrap().1, "12");
        assert_eq!(time_labels(&f).len(), time_ticks(&f).1.len());
        let f = Frame::new((900, 300), 1.0, 10.0, 90_500_000, 1.0);
        assert_eq!(time_labels(&f).last().unwrap().1, "90.5");
    }

    /// Filling the runs gives the pixels of the rectangles filled one by one, for spans in
    /// time order (from ≥ the last one's to; any length, some not drawn) mapped to pixels as
    /// the lanes map them: x0 = round(from), x1 = max(x0 + 1, round(to)).
    #[test]
    #[cfg(feature = "group")]
    fn runs_fill_the_pixels_the_rectangles_fill() {
        let colors = [RGBColor(1, 0, 0), RGBColor(0, 1, 0), RGBColor(0, 0, 1)];
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let mut fills = 0;
        for _ in 0..3000 {
            let (mut one_by_one, mut merged) = ([None; 200], [None; 200]);
            let paint = |pixels: &mut [Option<RGBColor>; 200], (x0, x1, c): (i32, i32, RGBColor)| {
                (x0..x1).for_each(|x| pixels[x as usize] = Some(c));
            };
            let mut runs = Runs::default();
            let mut t = next(30); // tenths of a pixel
            for _ in 0..next(40) {
                let from = t + next(3) * next(10);
                t = from + next(2) * next(25);
                let color = colors[next(3) as usize];
                if next(5) == 0 {
                    continue; // a span not drawn (no owner)
                }
                let x0 = ((from + 5) / 10) as i32;
                let x1 = (((t + 5) / 10) as i32).max(x0 + 1);
                paint(&mut one_by_one, (x0, x1, color));
                if let Some(run) = runs.push(x0, x1, color) {
                    paint(&mut merged, run);
                    fills += 1;
                }
            }
            if let Some(run) = runs.finish() {
                paint(&mut merged, run);
                fills += 1;
            }
            assert_eq!(one_by_one, merged);
        }
        assert!(fills > 10_000, "the cases fill something: {fills}");
    }
}
