//! The log of `orders-3` on a time axis, drawn over any plotters backend: each record at
//! (its write time, its offset), by its state — committed (filled square), aborted (hollow,
//! struck through), open (hollow), plain (filled circle) — the commit marker (a diamond) and
//! the abort marker (a cross); the last stable offset and the high watermark as step lines;
//! each reader's committed offset as a step line with its stalls shaded; the instant read.
//! Records stand as they are at that instant ([`state_at`]): a transaction's records are
//! open until its marker, and what is written after the instant is drawn faint.
//!
//! Offsets sit in bands: record `n` fills the band between the lines at `n` and `n + 1`, so
//! a line at `n` (a committed offset, the LSO) runs just under record `n`: everything below
//! it comes before `n`. Readers' lines that share a value are drawn side by side (2 px
//! apart) so that each stays visible. Legends and captions are the page's HTML.

use crate::kit::draw::{self, paint_crash, time_ticks, DrawResult, Frame};
use crate::kit::text::fixed;
use offset_window_sim::transactions::{DataState, LogRecord, OffsetStep, RecordKind, TxnRun};
use offset_window_sim::Step;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The readers' line colours on white (Okabe–Ito, then two more), cycled.
const READERS_LIGHT: [RGBColor; 8] = [
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0x7B, 0x2C, 0xBF),
    RGBColor(0x8C, 0x6D, 0x1F),
    RGBColor(0x00, 0x9E, 0x73),
];
/// The same on the dark background: each at least 3:1 against it.
const READERS_DARK: [RGBColor; 8] = [
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0xE8, 0x9B, 0xC8),
    RGBColor(0x9A, 0xD8, 0xF5),
    RGBColor(0xFF, 0x8A, 0x3D),
    RGBColor(0xC0, 0x92, 0xF0),
    RGBColor(0xD8, 0xB8, 0x5A),
    RGBColor(0x1F, 0xBF, 0x8F),
];

/// Reader `i`'s line colour.
pub fn reader_color(i: usize, dark: bool) -> RGBColor {
    if dark {
        READERS_DARK[i % 8]
    } else {
        READERS_LIGHT[i % 8]
    }
}

/// A colour as CSS (`#e69f00`), for the page's legend swatches.
pub fn css(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// The colour of a record's state (data) or marker.
pub fn state_color(kind: RecordKind, state: Option<DataState>, dark: bool) -> RGBColor {
    let p = if dark { &draw::DARK } else { &draw::LIGHT };
    match (kind, state) {
        (RecordKind::CommitMarker, _) | (_, Some(DataState::Committed)) => p.durable,
        (RecordKind::AbortMarker, _) | (_, Some(DataState::Aborted)) => p.lost,
        (_, Some(DataState::Open)) => p.duplicated,
        _ => p.axis,
    }
}

/// A record's state at `at_us`: a committed or aborted transaction's data is open until its
/// marker is written; markers and plain records keep theirs.
pub fn state_at(run: &TxnRun, rec: &LogRecord, at_us: u64) -> Option<DataState> {
    match rec.state {
        Some(DataState::Committed | DataState::Aborted) => {
            let ended = run
                .transactions
                .iter()
                .find(|t| t.producer == rec.producer && Some(t.transaction) == rec.transaction)
                .and_then(|t| t.ended_at_us);
            if ended.is_none_or(|e| e > at_us) {
                Some(DataState::Open)
            } else {
                rec.state
            }
        }
        other => other,
    }
}

/// The last instant anything changes in `run`, µs.
pub fn last_change_us(run: &TxnRun) -> u64 {
    let steps = |s: &[OffsetStep]| s.last().map_or(0, |s| s.at_us);
    let mut last = run.log.last().map_or(0, |r| r.at_us);
    last = last.max(steps(&run.last_stable_offset)).max(steps(&run.high_watermark));
    for r in &run.readers {
        last = last.max(steps(&r.committed_steps));
        last = last.max(r.handed.last().map_or(0, |h| h.at_us));
        for s in &r.stalled {
            last = last.max(s.to_us.unwrap_or(s.from_us));
        }
    }
    for r in &run.share_readers {
        last = last.max(r.handed.last().map_or(0, |h| h.at_us));
    }
    last
}

/// Where the time axis ends, µs: the horizon, or 1.5 × the last change when the horizon is
/// more than three times as far (a 1000 s run whose last change is at 3 s is drawn to 4.5 s;
/// the page says so).
pub fn x_end_us(run: &TxnRun, horizon_us: u64) -> u64 {
    let last = last_change_us(run).max(1_000);
    if horizon_us > 3 * last {
        last + last / 2
    } else {
        horizon_us
    }
}

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

/// The chart's frame on a backend of `size` device px.
pub fn frame(run: &TxnRun, horizon_us: u64, size: (u32, u32), look: Look) -> Frame {
    let mut f =
        Frame::new(size, look.scale, 10.0, x_end_us(run, horizon_us), run.log_end_offset as f64 + 0.8);
    f.dark = look.dark;
    f.font = look.font;
    f.titles = ("simulated time (s)", "offset");
    f
}

fn to_steps(s: &[OffsetStep]) -> Vec<Step<u64>> {
    s.iter().map(|s| Step { at_us: s.at_us, value: s.offset }).collect()
}

/// Draws the chart for `run` read at `at_us` (µs) and presents it.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    run: &TxnRun,
    horizon_us: u64,
    at_us: u64,
    look: Look,
) -> DrawResult<DB> {
    let f = frame(run, horizon_us, root.dim_in_pixel(), look);
    let p = f.pal();
    root.fill(&p.background)?;
    grid_and_axes(root, &f, run.log_end_offset)?;
    let w = |css: f64| f.width_px(css);
    // Stalls: a band along the reader's line while it waits at the last stable offset.
    for (i, r) in run.readers.iter().enumerate() {
        let c = reader_color(i, f.dark);
        for s in &r.stalled {
            let v = crate::transactions::readouts::step_at(&run.last_stable_offset, s.from_us).unwrap_or(0)
                as f64;
            let to = s.to_us.unwrap_or(horizon_us).min(f.horizon_us);
            let (x0, x1) = (f.x(s.from_us).round() as i32, f.x(to).round() as i32);
            let (y0, y1) = (f.y(v + 0.32).round() as i32, f.y((v - 0.32).max(0.0)).round() as i32);
            root.draw(&Rectangle::new([(x0, y0), (x1.max(x0 + 1), y1)], c.mix(0.16).filled()))?;
            root.draw(&Rectangle::new([(x0, y0), (x1.max(x0 + 1), y1)], c.mix(0.7).stroke_width(w(1.0))))?;
        }
    }
    // The high watermark (thin) and the last stable offset (thick), then each reader.
    for path in draw::step_paths(&to_steps(&run.high_watermark), &f) {
        root.draw(&PathElement::new(path, p.axis.stroke_width(w(1.5))))?;
    }
    for path in draw::step_paths(&to_steps(&run.last_stable_offset), &f) {
        root.draw(&PathElement::new(path, p.committed.stroke_width(w(3.0))))?;
    }
    let n = run.readers.len() as f64;
    for (i, r) in run.readers.iter().enumerate() {
        let shift = ((i as f64 - (n - 1.0) / 2.0) * f.px(2.0)).round() as i32;
        let style = reader_color(i, f.dark).stroke_width(w(2.0));
        for path in draw::step_paths(&to_steps(&r.committed_steps), &f) {
            let moved: Vec<_> = path.into_iter().map(|(x, y)| (x, y + shift)).collect();
            root.draw(&PathElement::new(moved, style))?;
        }
    }
    // The records.
    let half = f.px(5.0).round() as i32;
    for rec in run.log.iter().filter(|r| r.at_us <= f.horizon_us) {
        let (x, y) = (f.x(rec.at_us).round() as i32, f.y(rec.offset as f64 + 0.5).round() as i32);
        let state = state_at(run, rec, at_us);
        let c = state_color(rec.kind, state, f.dark);
        // Written after the instant read: faint.
        let c = if rec.at_us > at_us { c.mix(0.3).to_rgba() } else { c.to_rgba() };
        let square = [(x - half, y - half), (x + half, y + half)];
        match (rec.kind, state) {
            (RecordKind::CommitMarker, _) => {
                let d = half + f.px(1.5) as i32;
                root.draw(&Polygon::new(vec![(x, y - d), (x + d, y), (x, y + d), (x - d, y)], c.filled()))?;
            }
            (RecordKind::AbortMarker, _) => {
                let style = c.stroke_width(w(3.0));
                root.draw(&PathElement::new(vec![(x - half, y - half), (x + half, y + half)], style))?;
                root.draw(&PathElement::new(vec![(x - half, y + half), (x + half, y - half)], style))?;
            }
            (_, Some(DataState::Committed)) => root.draw(&Rectangle::new(square, c.filled()))?,
            (_, Some(DataState::Aborted)) => {
                root.draw(&Rectangle::new(square, p.background.filled()))?;
                root.draw(&Rectangle::new(square, c.stroke_width(w(2.0))))?;
                let strike = vec![(x - half - f.px(3.0) as i32, y), (x + half + f.px(3.0) as i32, y)];
                root.draw(&PathElement::new(strike, c.stroke_width(w(2.0))))?;
            }
            (_, Some(DataState::Open)) => {
                root.draw(&Rectangle::new(square, p.background.filled()))?;
                root.draw(&Rectangle::new(square, c.stroke_width(w(2.5))))?;
            }
            _ => root.draw(&Circle::new((x, y), half as u32, c.filled()))?,
        }
    }
    // The instant read: a line with a dot where it crosses the last stable offset.
    let lso = crate::transactions::readouts::step_at(&run.last_stable_offset, at_us).unwrap_or(0);
    paint_crash(root, &f, at_us.clamp(1, f.horizon_us), &[(lso as f64, p.committed)])?;
    root.present()?;
    Ok(())
}

fn grid_and_axes<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    f: &Frame,
    log_end: u64,
) -> DrawResult<DB> {
    let p = f.pal();
    let (l, r, t, b) = (f.left as i32, f.right as i32, f.top as i32, f.bottom as i32);
    let grid = p.grid.stroke_width(f.width_px(1.0));
    // One offset in every `every` labelled, so that labels keep 14 CSS px apart.
    let band = (f.bottom - f.top) / f.y_max;
    let every = (1..).find(|k| band * *k as f64 >= f.px(14.0)).unwrap_or(1).max(1) as u64;
    for o in 0..=log_end {
        let y = f.y(o as f64).round() as i32;
        if o % every == 0 {
            root.draw(&PathElement::new(vec![(l, y), (r, y)], grid))?;
        }
    }
    let (decimals, ticks) = time_ticks(f);
    for s in &ticks {
        let x = f.x((s * 1e6).round() as u64).round() as i32;
        root.draw(&PathElement::new(vec![(x, t), (x, b)], grid))?;
    }
    let axis = p.axis.stroke_width(f.width_px(1.0));
    root.draw(&PathElement::new(vec![(l, t), (l, b), (r, b)], axis))?;
    let font = (FontFamily::SansSerif, f.font_px(12.0)).into_font();
    let tick = f.px(4.0) as i32;
    let below = font.color(&p.axis).pos(Pos::new(HPos::Center, VPos::Top));
    for s in ticks {
        let x = f.x((s * 1e6).round() as u64).round() as i32;
        root.draw(&PathElement::new(vec![(x, b), (x, b + tick)], axis))?;
        root.draw_text(&fixed(s, decimals), &below, (x, b + tick + f.px(2.0) as i32))?;
    }
    let left_of = font.color(&p.axis).pos(Pos::new(HPos::Right, VPos::Center));
    for o in (0..log_end).filter(|o| o % every == 0) {
        let y = f.y(o as f64 + 0.5).round() as i32;
        root.draw_text(&o.to_string(), &left_of, (l - tick, y))?;
    }
    let title = (FontFamily::SansSerif, f.font_px(12.5)).into_font().color(&p.axis);
    let at = ((l + r) / 2, b + tick + f.px(19.0) as i32);
    root.draw_text(f.titles.0, &title.pos(Pos::new(HPos::Center, VPos::Top)), at)?;
    let up = title.transform(FontTransform::Rotate270).pos(Pos::new(HPos::Center, VPos::Top));
    root.draw_text(f.titles.1, &up, (f.px(3.0) as i32, (t + b) / 2))?;
    Ok(())
}

#[cfg(all(test, feature = "svg"))]
mod tests {
    use super::*;
    use crate::kit::backend::Backend;
    use crate::transactions::presets::{scenario, PRESETS};
    use offset_window_sim::transactions::simulate_transactions;

    fn svg(index: usize, at_us: u64, dark: bool) -> String {
        let s = scenario(index).unwrap();
        let run = simulate_transactions(&s).unwrap();
        let mut out = String::new();
        {
            let root = Backend::svg(&mut out, (900, 360)).into_drawing_area();
            draw(&root, &run, s.horizon_us, at_us, Look { scale: 1.0, dark, font: 1.24 }).unwrap();
        }
        out
    }

    #[test]
    fn every_preset_draws_its_records_markers_and_lines() {
        for (i, p) in PRESETS.iter().enumerate() {
            let s = scenario(i).unwrap();
            let run = simulate_transactions(&s).unwrap();
            let out = svg(i, s.horizon_us, false);
            assert!(out.starts_with("<svg"), "{}", p.file);
            let c = |color: RGBColor| css(color).to_uppercase();
            // A commit marker is a green diamond; an abort marker a red cross.
            let markers = |k| run.log.iter().filter(|r| r.kind == k).count();
            if markers(RecordKind::CommitMarker) > 0 {
                assert!(out.contains("<polygon") && out.contains(&c(draw::DURABLE)), "{}", p.file);
            }
            if markers(RecordKind::AbortMarker) > 0 {
                assert!(out.contains(&c(draw::LOST)), "{}", p.file);
            }
            // Every reader's line is drawn in its colour.
            for j in 0..run.readers.len().min(8) {
                assert!(out.contains(&c(reader_color(j, false))), "{} reader {j}", p.file);
            }
            assert!(out.contains("simulated time (s)"));
        }
        assert!(svg(1, 10_000_000, true).contains(&css(draw::DARK.background).to_uppercase()));
    }

    #[test]
    fn records_stand_as_they_are_at_the_instant_read() {
        // Two producers: at 3 s tx-a (offsets 0, 1) is open, tx-b (2–4) committed at 2.1 s.
        let s = scenario(3).unwrap();
        let run = simulate_transactions(&s).unwrap();
        let states: Vec<_> = run.log.iter().map(|r| state_at(&run, r, 3_000_000)).collect();
        assert_eq!(
            states[..5],
            [
                Some(DataState::Open),
                Some(DataState::Open),
                Some(DataState::Committed),
                Some(DataState::Committed),
                Some(DataState::Committed)
            ]
        );
        assert_eq!(state_at(&run, &run.log[0], s.horizon_us), Some(DataState::Committed));
        assert!(
            svg(3, 3_000_000, false).contains(&css(draw::DUPLICATED).to_uppercase()),
            "open records are amber"
        );
        assert!(!svg(3, s.horizon_us, false).contains(&css(draw::DUPLICATED).to_uppercase()));
    }

    #[test]
    fn a_long_quiet_horizon_is_cut_where_nothing_changes_any_more() {
        let s = scenario(4).unwrap();
        let run = simulate_transactions(&s).unwrap();
        assert_eq!(last_change_us(&run), 3_000_000);
        assert_eq!(x_end_us(&run, s.horizon_us), 4_500_000);
        let s = scenario(1).unwrap();
        assert_eq!(x_end_us(&simulate_transactions(&s).unwrap(), s.horizon_us), s.horizon_us);
    }
}
