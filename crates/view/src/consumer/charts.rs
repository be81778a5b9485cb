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

use crate::kit::draw::DrawSegments;
use crate::kit::draw::{
    columns, draw_axes, draw_bands, draw_grid, step_paths, step_segments, DrawResult, Frame, Hatch, Palette,
};
use offset_window_sim::{CrashState, MarkKind, Run, Step};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

const MAIN_TOP: f64 = 26.0;
const PROFILE_TOP: f64 = 10.0;
/// The lane of commits in flight, CSS px above the plot area: `LANE_TOP..LANE_TOP + LANE_H`.
const LANE_TOP: f64 = 6.0;
const LANE_H: f64 = 12.0;

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
pub fn draw_main<DB: DrawSegments>(root: &DrawingArea<DB, Shift>, run: &Run, f: &Frame) -> DrawResult<DB> {
    paint_main(root, run, f)?;
    root.present()?;
    Ok(())
}

/// As [`draw_main`], without presenting: for several drawings on one backend (the slide).
pub fn paint_main<DB: DrawSegments>(root: &DrawingArea<DB, Shift>, run: &Run, f: &Frame) -> DrawResult<DB> {
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
    // Under the frontier, so that it shows only where records finish past it (a record
    // skipped or still running holds the frontier back): dotted, in the frontier's colour.
    for piece in step_paths(&finished_beyond(run), f) {
        root.draw(&DashedPathElement::new(
            piece,
            f.px(2.0) as i32,
            f.px(3.0) as i32,
            p.durable.stroke_width(f.width_px(1.5)),
        ))?;
    }
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
    crate::consumer::records::draw_record_marks(root, run, f)?;
    Ok(())
}

/// One past the highest offset finished (durable) so far, over time: where it stands above
/// the durable frontier, records finish beyond a gap the frontier waits at.
pub fn finished_beyond(run: &Run) -> Vec<Step> {
    let mut steps = vec![Step { at_us: 0, value: run.scenario.log_start_offset }];
    let mut highest = run.scenario.log_start_offset;
    for m in &run.marks {
        if let MarkKind::RecordDurable { offset } = m.kind {
            if m.partition == 0 && offset + 1 > highest {
                highest = offset + 1;
                match steps.last_mut() {
                    Some(last) if last.at_us == m.at_us => last.value = highest,
                    _ => steps.push(Step { at_us: m.at_us, value: highest }),
                }
            }
        }
    }
    steps
}

/// Eviction, close, restart and failed commits (docs/model.md §8.6–8.9): a dashed vertical line in
/// the lost colour where the member is evicted, a grey one where `close()` returns (dotted
/// where the consumer restarts), and a × on the offset a failed commit would have stored.
fn draw_lifecycle_marks<DB: DrawSegments>(
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
pub fn draw_profile<DB: DrawSegments>(root: &DrawingArea<DB, Shift>, run: &Run, f: &Frame) -> DrawResult<DB> {
    paint_profile(root, run, f)?;
    root.present()?;
    Ok(())
}

/// As [`draw_profile`], without presenting.
pub fn paint_profile<DB: DrawSegments>(
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

/// The lane above the plot: each commit from the moment it is sent to the moment it
/// lands, solid when the loop blocks on it (`commitSync`, `commitTransaction`), outlined
/// when it does not (auto-commit, `commitAsync`). At least 3 CSS px wide, so a 5 ms
/// round trip is still seen.
fn draw_commit_lane<DB: DrawSegments>(root: &DrawingArea<DB, Shift>, run: &Run, f: &Frame) -> DrawResult<DB> {
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
    use crate::kit::draw::*;
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
    /// Trial item 4: a skipped record holds the durable frontier at its offset while later
    /// records finish; the dotted line shows them.
    #[test]
    fn records_finished_past_a_skipped_one_show_beyond_the_frontier() {
        let run = offset_window_sim::simulate(
            &offset_window_sim::Input::from_json(r#"{"record_failures": [3]}"#).unwrap().scenario,
        )
        .unwrap();
        let lines = run.lines();
        let beyond = finished_beyond(&run);
        let at = |steps: &[Step], us: u64| steps.iter().take_while(|s| s.at_us <= us).last().map(|s| s.value);
        assert_eq!(
            at(&lines.durable_frontier, 8_000_000),
            Some(3),
            "the frontier waits at the skipped record"
        );
        assert!(at(&beyond, 8_000_000).unwrap() >= 39, "{beyond:?}");
        // Without a gap the dotted line is the frontier itself.
        let plain = offset_window_sim::simulate(&Scenario::default()).unwrap();
        assert_eq!(finished_beyond(&plain), plain.lines().durable_frontier);
    }

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
