//! What the page exports: the result JSON (as `offset-window run` prints it) and the slide,
//! a 1920 × 1080 SVG worth putting in front of a class: both charts with the crash marker
//! and axis titles, the legend, the six readouts at the crash, the worst instants and the
//! scenario in words. The page rasterises the same SVG for the PNG (1920 × 1080, or twice
//! that for print), so the two exports never differ.

use crate::charts::{self, Frame, Palette, LIGHT};
use crate::text::{
    crash_heading, in_flight, in_flight_note, instant_text, lifecycle_at, offset_text, scenario_words,
};
use offset_window_sim::Run;
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The scenario and result JSON, as `offset-window run` prints it.
pub fn result_json(run: &Run, crash_at_us: u64) -> String {
    serde_json::to_string(&run.summary_at(crash_at_us)).unwrap_or_default()
}

/// The slide's size in px (16:9).
pub const SLIDE: (u32, u32) = (1920, 1080);

/// The slide's layout, px: where the main chart's canvas sits (x, y, width, height) and
/// the scale its frame is drawn at. The end-to-end test reads the exported PNG's pixels
/// where this puts the crash marker.
pub const SLIDE_MAIN: (i32, i32, u32, u32) = (40, 196, 1380, 560);
const SLIDE_PROFILE: (i32, i32, u32, u32) = (40, 800, 1380, 200);
/// The scale of the slide's charts (type, lines and margins ×1.75 the page's).
pub const SLIDE_SCALE: f64 = 1.75;
const PANEL_X: i32 = 1460;
const INK: RGBColor = RGBColor(0x1B, 0x1F, 0x24);
const MUTED: RGBColor = RGBColor(0x52, 0x5A, 0x66);

/// The main chart's frame on the slide (in the chart's own canvas coordinates).
pub fn slide_main_frame(run: &Run) -> Frame {
    Frame { font: 1.24, ..charts::main_frame((SLIDE_MAIN.2, SLIDE_MAIN.3), SLIDE_SCALE, run) }
}

/// The slide as an SVG document: the crash at `crash_at_us`, offsets shifted by `base`.
/// Empty if drawing fails (it does not on the SVG backend).
pub fn slide_svg(run: &Run, crash_at_us: u64, base: u64) -> String {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SLIDE).into_drawing_area();
        if paint_slide(&root, run, crash_at_us, base).and_then(|()| root.present()).is_err() {
            return String::new();
        }
    }
    out
}

fn text<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    words: &str,
    (x, y): (i32, i32),
    size: f64,
    color: RGBColor,
    bold: bool,
) -> charts::DrawResult<DB> {
    // plotters' SVG backend writes font-size as size / 1.24.
    let font = ("sans-serif", size * 1.24).into_font();
    let font = if bold { font.style(FontStyle::Bold) } else { font };
    root.draw_text(words, &font.color(&color).pos(Pos::new(HPos::Left, VPos::Top)), (x, y))
}

/// Splits `words` into lines of at most about `width` px at `size` px type (an average
/// glyph is about half the type size wide), at spaces, or at " · " when `dots`.
fn wrap(words: &str, width: i32, size: f64, dots: bool) -> Vec<String> {
    let max = (width as f64 / (size * 0.52)) as usize;
    let sep = if dots { " · " } else { " " };
    let mut lines: Vec<String> = Vec::new();
    for part in words.split(sep) {
        match lines.last_mut() {
            Some(line) if line.chars().count() + sep.len() + part.chars().count() <= max => {
                line.push_str(sep);
                line.push_str(part);
            }
            _ => lines.push(part.to_string()),
        }
    }
    lines
}

fn paint_slide<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    run: &Run,
    crash_at_us: u64,
    base: u64,
) -> charts::DrawResult<DB> {
    let p: &Palette = &LIGHT;
    root.fill(&WHITE)?;
    let at = run.state_at(crash_at_us);
    let headline =
        format!("{}: {} lost, {} processed twice", crash_heading(run, crash_at_us), at.lost, at.duplicated);
    text(root, &headline, (40, 28), 46.0, INK, true)?;
    for (i, line) in wrap(&scenario_words(&run.scenario), 1840, 24.0, true).iter().take(2).enumerate() {
        text(root, line, (40, 92 + 32 * i as i32), 24.0, MUTED, false)?;
    }

    // The two charts, drawn by the page's own code at a larger scale.
    let area = |(x, y, w, h): (i32, i32, u32, u32)| root.clone().shrink((x, y), (w, h));
    text(root, "Partition orders-3: three offsets over time", (40, 160), 26.0, INK, true)?;
    let main = area(SLIDE_MAIN);
    let f = slide_main_frame(run);
    charts::paint_main(&main, run, &f)?;
    charts::paint_crash(&main, &f, crash_at_us, &charts::main_values(&at, p))?;
    text(
        root,
        "If the crash came at that instant: records lost and processed twice",
        (40, 766),
        26.0,
        INK,
        true,
    )?;
    let profile = area(SLIDE_PROFILE);
    let g =
        Frame { font: 1.24, ..charts::profile_frame((SLIDE_PROFILE.2, SLIDE_PROFILE.3), SLIDE_SCALE, run) };
    charts::paint_profile(&profile, run, &g)?;
    charts::paint_crash(&profile, &g, crash_at_us, &charts::profile_values(&at, p))?;

    // The readouts at the crash, two columns of three, each with its line's colour.
    text(root, "At the crash", (PANEL_X, 160), 30.0, INK, true)?;
    let cells = [
        ("position", offset_text(at.position, base), p.position),
        ("durable frontier", offset_text(Some(at.durable), base), p.durable),
        ("committed offset", offset_text(at.committed, base), p.committed),
        ("re-read", at.reread.to_string(), p.axis),
        ("lost", at.lost.to_string(), p.lost),
        ("processed twice", at.duplicated.to_string(), p.duplicated),
    ];
    for (i, (label, value, colour)) in cells.iter().enumerate() {
        let (x, y) = (PANEL_X + 220 * (i as i32 % 2), 214 + 128 * (i as i32 / 2));
        root.draw(&Rectangle::new([(x, y), (x + 7, y + 104)], colour.filled()))?;
        text(root, label, (x + 18, y + 2), 21.0, MUTED, false)?;
        text(root, value, (x + 18, y + 34), 58.0, INK, true)?;
    }
    let mut notes: Vec<String> = Vec::new();
    if let Some(note) = in_flight_note(&in_flight(run, crash_at_us), base) {
        notes.push(format!("Commit in flight: {note}; the crash cancels it."));
    }
    notes.extend(lifecycle_at(run, crash_at_us));
    let worst = run.worst();
    notes.push(match worst.duplicated_at_us {
        Some(us) => format!("Worst crash: {} processed twice, {}.", worst.duplicated, instant_text(us)),
        None => "No crash instant processes anything twice.".to_string(),
    });
    notes.push(match worst.lost_at_us {
        Some(us) => format!("Worst crash: {} lost, {}.", worst.lost, instant_text(us)),
        None => "No crash instant loses anything.".to_string(),
    });
    let mut y = 612;
    for note in &notes {
        for line in wrap(note, 420, 22.0, false) {
            if y > 990 {
                break;
            }
            text(root, &line, (PANEL_X, y), 22.0, INK, false)?;
            y += 30;
        }
        y += 10;
    }

    paint_legend(root, p)?;
    Ok(())
}

/// The legend along the foot of the slide: each line, mark and shading as the charts draw it.
fn paint_legend<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, p: &Palette) -> charts::DrawResult<DB> {
    enum Swatch {
        Dashed(RGBColor),
        Line(RGBColor, u32),
        Dot(RGBColor),
        Hatch(RGBColor),
        Crash(RGBColor),
    }
    let items = [
        (Swatch::Dashed(p.position), "position", 120),
        (Swatch::Line(p.durable, 5), "durable frontier", 190),
        (Swatch::Line(p.committed, 6), "committed offset", 200),
        (Swatch::Dot(p.committed), "a commit lands", 170),
        (Swatch::Hatch(p.duplicated), "crash here: processed twice", 300),
        (Swatch::Hatch(p.lost), "crash here: lost", 180),
        (Swatch::Crash(p.crash), "the crash", 110),
    ];
    let (mut x, y) = (40, 1040);
    for (swatch, label, width) in items {
        match swatch {
            Swatch::Dashed(c) => {
                root.draw(&DashedPathElement::new(vec![(x, y), (x + 40, y)], 12, 7, c.stroke_width(4)))?
            }
            Swatch::Line(c, w) => {
                root.draw(&PathElement::new(vec![(x, y), (x + 40, y)], c.stroke_width(w)))?
            }
            Swatch::Dot(c) => root.draw(&Circle::new((x + 20, y), 7, c.filled()))?,
            Swatch::Hatch(c) => {
                root.draw(&Rectangle::new([(x, y - 12), (x + 40, y + 12)], c.mix(0.22).filled()))?;
                for k in 0..4 {
                    let x0 = x + 10 * k;
                    root.draw(&PathElement::new(vec![(x0, y + 12), (x0 + 12, y - 12)], c.stroke_width(2)))?;
                }
            }
            Swatch::Crash(c) => {
                root.draw(&PathElement::new(vec![(x + 20, y - 16), (x + 20, y + 16)], c.stroke_width(4)))?
            }
        }
        text(root, label, (x + 52, y - 14), 22.0, INK, false)?;
        x += 52 + width;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use offset_window_sim::{simulate, Scenario};

    #[test]
    fn the_slide_has_the_crash_the_readouts_the_legend_and_the_scenario() {
        let run = simulate(&Scenario::default()).unwrap();
        let svg = slide_svg(&run, 8_200_000, 0);
        if let Some(dir) = std::env::var_os("SLIDE_OUT") {
            std::fs::write(std::path::Path::new(&dir).join("slide.svg"), &svg).unwrap();
        }
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains(r#"width="1920""#) && svg.contains(r#"height="1080""#), "{}", &svg[..200]);
        for words in [
            "Crash at 8.200 s: 0 lost, 15 processed twice",
            "5 records a poll, 200 ms each",
            "simulated time (s)",
            "offset",
            "committed offset",
            "durable frontier",
            "crash here: processed twice",
            "Worst crash: 25 processed twice, just after 5.000 s (5.000001 s).",
            "\n45\n",
            "\n40\n",
            "\n25\n",
        ] {
            assert!(svg.contains(words) || words_of(&svg).contains(words), "{words}");
        }
        // The crash marker, in its colour, on both charts.
        assert!(svg.matches("#7B2CBF").count() >= 4, "crash marker lines and grips");
        assert!(svg.find("</svg>") == svg.rfind("</svg>"), "one document: nothing drawn after it closed");
    }

    #[test]
    fn a_crash_just_after_a_commit_says_it_is_in_flight() {
        let run = simulate(&Scenario::default()).unwrap();
        let svg = slide_svg(&run, 5_001_000, 1000);
        let words = words_of(&svg);
        assert!(
            words.contains("Commit in flight: 1025 in flight, lands at 5.005 s; the crash cancels it."),
            "{words}"
        );
        assert!(svg.contains("\n1025\n"), "the committed offset too");
    }

    /// The SVG's text, each element's words joined by one space.
    fn words_of(svg: &str) -> String {
        let texts: Vec<&str> = svg
            .split("<text")
            .skip(1)
            .filter_map(|t| t.split_once(">\n")?.1.split_once("\n</text>").map(|w| w.0))
            .collect();
        texts.join(" ")
    }

    #[test]
    fn wrap_keeps_lines_short() {
        let lines = wrap("a b c d e f g h i j", 40, 10.0, false);
        assert!(lines.iter().all(|l| l.len() <= 8), "{lines:?}");
        assert_eq!(lines.join(" "), "a b c d e f g h i j");
    }
}
