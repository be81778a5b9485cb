//! The pipeline's three logs on one time axis, drawn over any plotters backend, one band
//! above the other:
//!
//! * **the input topic**: its records at their append instants (faint dots, offset up), the
//!   input's committed offset per partition as a step line, and the partition's stalls shaded
//!   by their reason (owner down, rebalance, UNSTABLE_OFFSET_COMMIT);
//! * **the output topic**: each record at (its write instant, its offset) by its state at the
//!   horizon — committed (filled square), aborted (hollow, struck through), open (hollow) — the
//!   commit marker (a diamond), the abort marker (a cross; ringed when the coordinator's timeout
//!   scan wrote it) and the last stable offset as a step line;
//! * **downstream**: one lane per reader, then the side effect: a tick at each input record's
//!   append instant coloured by how many times that record was seen (once, twice, three times
//!   or more, never), and a bar under the lane while a read_committed reader waits at the last
//!   stable offset.
//!
//! The first crash or hang is a line across the three bands; the instant the instance is back
//! a thin one. Band titles and lane names are drawn (a few words each); the legend is HTML.

use crate::kit::draw::{self, time_ticks, DrawResult, Frame};
use crate::kit::text::fixed;
use offset_window_sim::pipeline::{OutputState, PipelineRun, PipelineScenario, StallReason};
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

/// The three bands' frames on a backend of `size` device px: input, output, downstream. They
/// share the time axis (left, right, horizon); each has its own top, bottom and values.
pub fn frames(run: &PipelineRun, scenario: &PipelineScenario, size: (u32, u32), look: Look) -> [Frame; 3] {
    let s = look.scale;
    let mut f = Frame::new(size, s, 0.0, scenario.horizon_us, 1.0);
    f.dark = look.dark;
    f.font = look.font;
    let title = 20.0 * s;
    let bottom = f.bottom;
    let avail = (bottom - 3.0 * title - 2.0 * 8.0 * s).max(30.0);
    let lanes = (run.readers.len() + usize::from(run.side_effects.is_some())).max(1) as f64;
    // The downstream lanes need room for a name and a row of ticks each.
    let down = (avail * 0.3).max(lanes * 30.0 * s).min(avail * 0.5);
    let input = (avail - down) * 0.4;
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
    frames(run, scenario, size, look)[0].time_at(x)
}

fn to_steps(s: &[OffsetStep]) -> Vec<Step<u64>> {
    s.iter().map(|s| Step { at_us: s.at_us, value: s.offset }).collect()
}

/// Draws the chart for `run` of `scenario` and presents it.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    run: &PipelineRun,
    scenario: &PipelineScenario,
    look: Look,
) -> DrawResult<DB> {
    let [input, output, down] = frames(run, scenario, root.dim_in_pixel(), look);
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
    for (f, text) in titles {
        root.draw_text(text, &title_style, (f.left as i32, f.top as i32 - f.px(4.0) as i32))?;
    }
    // The time grid over every band, the tick labels under the last.
    let (decimals, ticks) = time_ticks(&down);
    let grid = p.grid.stroke_width(w(1.0));
    let axis = p.axis.stroke_width(w(1.0));
    for f in [&input, &output, &down] {
        for s in &ticks {
            let x = f.x((s * 1e6).round() as u64).round() as i32;
            root.draw(&PathElement::new(vec![(x, f.top as i32), (x, f.bottom as i32)], grid))?;
        }
        let (l, r, t, b) = (f.left as i32, f.right as i32, f.top as i32, f.bottom as i32);
        root.draw(&PathElement::new(vec![(l, t), (l, b), (r, b)], axis))?;
    }
    let tick = down.px(4.0) as i32;
    let below = font(12.0).color(&p.axis).pos(Pos::new(HPos::Center, VPos::Top));
    for s in &ticks {
        let x = down.x((s * 1e6).round() as u64).round() as i32;
        let b = down.bottom as i32;
        root.draw(&PathElement::new(vec![(x, b), (x, b + tick)], axis))?;
        root.draw_text(&fixed(*s, decimals), &below, (x, b + tick + down.px(2.0) as i32))?;
    }
    let t = font(12.5).color(&p.axis).pos(Pos::new(HPos::Center, VPos::Top));
    let at = (((down.left + down.right) / 2.0) as i32, down.bottom as i32 + tick + down.px(19.0) as i32);
    root.draw_text("simulated time (s)", &t, at)?;
    offsets_axis(root, &input, scenario.input.records_per_partition as u64)?;
    offsets_axis(root, &output, run.output_log.len() as u64)?;

    // The input: stalls, records, committed offsets.
    for ps in &run.input_stalls {
        for s in &ps.stalls {
            let c = reason_color(s.reason, input.dark);
            let to = s.to_us.unwrap_or(scenario.horizon_us);
            let (x0, x1) = (input.x(s.from_us).round() as i32, input.x(to).round() as i32);
            let area = [(x0, input.top as i32), (x1.max(x0 + 1), input.bottom as i32)];
            root.draw(&Rectangle::new(area, c.mix(0.2).filled()))?;
            root.draw(&PathElement::new(
                vec![(x0, input.top as i32), (x0, input.bottom as i32)],
                c.stroke_width(w(1.5)),
            ))?;
        }
    }
    let records = scenario.input.records_per_partition as u64;
    let dot = input.width_px(1.5);
    if records <= 2_000 {
        for k in 0..records {
            let c =
                (input.x(scenario.input.append_us(k)).round() as i32, input.y(k as f64 + 0.5).round() as i32);
            root.draw(&Circle::new(c, dot, p.axis.mix(0.45).filled()))?;
        }
    } else {
        let last = scenario.input.append_us(records - 1);
        let line = vec![
            (input.x(0) as i32, input.bottom as i32),
            (input.x(last) as i32, input.y(records as f64) as i32),
        ];
        root.draw(&PathElement::new(line, p.axis.mix(0.45).stroke_width(w(1.5))))?;
    }
    let n = run.input_committed.len() as f64;
    for (i, c) in run.input_committed.iter().enumerate() {
        let shift = ((i as f64 - (n - 1.0) / 2.0) * input.px(2.0)).round() as i32;
        for path in draw::step_paths(&to_steps(&c.steps), &input) {
            let moved: Vec<_> = path.into_iter().map(|(x, y)| (x, y + shift)).collect();
            root.draw(&PathElement::new(moved, p.committed.stroke_width(w(2.5))))?;
        }
    }

    // The output: the last stable offset, then the records and markers.
    for path in draw::step_paths(&to_steps(&run.output_last_stable_offset), &output) {
        root.draw(&PathElement::new(path, p.committed.stroke_width(w(2.5))))?;
    }
    let band_px = (output.bottom - output.top) / output.y_max;
    let half = (band_px * 0.45).clamp(output.px(1.5), output.px(5.0)).round().max(1.0) as i32;
    let timed_out: Vec<u64> = run.timed_out_aborts.iter().map(|a| a.marker_offset).collect();
    for e in &run.output_log {
        let (x, y) = (output.x(e.at_us).round() as i32, output.y(e.offset as f64 + 0.5).round() as i32);
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

    // Downstream: one lane per reader, then the side effect.
    let mut lanes: Vec<(
        String,
        &[offset_window_sim::pipeline::ByInput],
        &[offset_window_sim::transactions::Stall],
    )> = run
        .readers
        .iter()
        .map(|r| (format!("{} ({})", r.name, r.isolation), &r.by_input[..], &r.stalled[..]))
        .collect();
    if let Some(s) = &run.side_effects {
        lanes.push(("side effect, outside Kafka".into(), &s.by_input[..], &[]));
    }
    let lane_h = (down.bottom - down.top) / lanes.len().max(1) as f64;
    let label = font(12.0).color(&p.axis).pos(Pos::new(HPos::Left, VPos::Top));
    let tick_w = ((down.right - down.left) / (records.max(1) as f64)).clamp(1.0, down.px(3.0)).round() as i32;
    for (i, (name, by_input, stalls)) in lanes.iter().enumerate() {
        let top = down.top + lane_h * i as f64;
        let text_h = down.px(16.0);
        root.draw_text(
            name,
            &label,
            (down.left as i32 + down.px(4.0) as i32, top as i32 + down.px(2.0) as i32),
        )?;
        let (y0, y1) = ((top + text_h).round() as i32, (top + lane_h - down.px(7.0)).round() as i32);
        // Ones first, then twice, more and never over them: a rare count stays visible.
        for pass in [1u32, 2, 3, 0] {
            for b in by_input.iter() {
                for (k, &c) in b.counts.iter().enumerate() {
                    let group = if c >= 3 { 3 } else { c };
                    if group != pass {
                        continue;
                    }
                    let x = down.x(scenario.input.append_us(k as u64)).round() as i32;
                    let area = [(x, y0), (x + tick_w, y1.max(y0 + 1))];
                    root.draw(&Rectangle::new(area, count_color(c, down.dark).filled()))?;
                }
            }
        }
        for s in stalls.iter() {
            let to = s.to_us.unwrap_or(scenario.horizon_us);
            let (x0, x1) = (down.x(s.from_us).round() as i32, down.x(to).round() as i32);
            let y = y1 + down.px(2.0) as i32;
            let bar = [(x0, y), (x1.max(x0 + 1), y + down.px(4.0).max(1.0) as i32)];
            root.draw(&Rectangle::new(bar, p.axis.filled()))?;
        }
        if i > 0 {
            let y = top.round() as i32;
            root.draw(&PathElement::new(vec![(down.left as i32, y), (down.right as i32, y)], grid))?;
        }
    }

    // The first crash or hang across the bands, and the instant the instance is back.
    if let Some(i) = super::state::first_event(scenario) {
        let e = &scenario.events[i];
        let (t, b) = (input.top as i32 - input.px(2.0) as i32, down.bottom as i32);
        let x = input.x(e.at_us).round() as i32;
        root.draw(&PathElement::new(vec![(x, t), (x, b)], p.crash.stroke_width(w(2.5))))?;
        if let Some(end) = e.end_us().filter(|&end| end <= scenario.horizon_us) {
            let x = input.x(end).round() as i32;
            root.draw(&PathElement::new(vec![(x, t), (x, b)], p.crash.mix(0.8).stroke_width(w(1.0))))?;
        }
    }
    root.present()?;
    Ok(())
}

/// The offsets' labels left of a band (one in every few, 14 CSS px apart at least) and faint
/// grid lines at them.
fn offsets_axis<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, f: &Frame, end: u64) -> DrawResult<DB> {
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
        root.draw_text(&o.to_string(), &left_of, (f.left as i32 - tick, y))?;
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
            // The crash line.
            assert!(out.contains(&css(draw::CRASH).to_uppercase()), "{}", p.file);
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
    fn the_bands_share_the_time_axis_and_stack() {
        let s = scenario(0).unwrap();
        let run = simulate_pipeline(&s).unwrap();
        let [a, b, c] = frames(&run, &s, (900, 520), Look { scale: 1.0, dark: false, font: 1.0 });
        assert_eq!((a.left, a.right, a.horizon_us), (b.left, b.right, b.horizon_us));
        assert_eq!((b.left, b.right), (c.left, c.right));
        assert!(a.bottom < b.top && b.bottom < c.top && c.bottom <= 520.0 - 42.0);
        assert_eq!(
            time_at(&run, &s, (900, 520), Look { scale: 1.0, dark: false, font: 1.0 }, a.x(4_500_000)),
            4_500_000
        );
    }
}
