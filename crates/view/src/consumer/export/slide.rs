//! The slide, a 1920 × 1080 SVG worth putting in front of a class: both charts with the
//! crash marker and axis titles, the legend, the six readouts at the crash, the worst
//! instants and the scenario in words. The page rasterises the same SVG for the PNG
//! (1920 × 1080, or twice that for print), so the two exports never differ. Only with the
//! `svg` feature: the page's own wasm leaves it out and fetches the slide module
//! (crates/slide, built on [`slide_for_link`]) on its first export.

use super::SLIDE;
use crate::consumer::charts;
use crate::consumer::words::{
    crash_heading, failure_words, in_flight, in_flight_note, lifecycle_at, scenario_words,
};
use crate::kit::backend::Backend;
use crate::kit::draw::{self, Frame, Palette, LIGHT};
use crate::kit::text::{instant_text, offset_text};
use offset_window_sim::{simulate, Run};
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea, RGBColor};

/// The slide of the page a link describes: `fragment` (the URL fragment as the page writes
/// it, without `#`) read as the page reads it ([`crate::consumer::url::state_from`]), simulated, and
/// drawn at its crash instant with its base offset. Errors: the core's refusal of the
/// scenario, in words (never for a fragment the page wrote: its state only holds scenarios
/// the core accepts). The slide module (crates/slide) is this function.
pub fn slide_for_link(fragment: &str) -> Result<String, String> {
    let state = crate::consumer::url::state_from(fragment);
    let run = simulate(&state.scenario).map_err(|e| e.to_string())?;
    Ok(slide_svg(&run, state.crash_at_us, state.base_offset))
}

/// The slide's layout, px: where the main chart sits (x, y, width, height); its frame is
/// drawn at [`SLIDE_SCALE`]. The end-to-end test reads the exported PNG's pixels
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
/// The charts are the page's own drawing on plotters' SVG backend, nested as `<svg>`
/// elements; the words, readouts and legend around them are written here as plain SVG.
pub fn slide_svg(run: &Run, crash_at_us: u64, base: u64) -> String {
    let p: &Palette = &LIGHT;
    let at = run.state_at(crash_at_us);
    let mut out = format!(
        r##"<svg width="{w}" height="{h}" viewBox="0 0 {w} {h}" xmlns="http://www.w3.org/2000/svg" font-family="sans-serif"><rect width="{w}" height="{h}" fill="#FFFFFF"/>"##,
        w = SLIDE.0,
        h = SLIDE.1
    );
    let headline =
        format!("{}: {} lost, {} processed twice", crash_heading(run, crash_at_us), at.lost, at.duplicated);
    text(&mut out, &headline, (40, 68), 46, INK, true);
    for (i, line) in wrap(&scenario_words(&run.scenario), 1840, 24.0, true).iter().take(2).enumerate() {
        text(&mut out, line, (40, 114 + 32 * i as i32), 24, MUTED, false);
    }

    // The two charts, drawn by the page's own code at a larger scale.
    text(&mut out, "Partition orders-3: three offsets over time", (40, 186), 26, INK, true);
    let f = slide_main_frame(run);
    chart(&mut out, SLIDE_MAIN, |root| {
        charts::paint_main(root, run, &f)?;
        draw::paint_crash(root, &f, crash_at_us, &charts::main_values(&at, p))
    });
    text(
        &mut out,
        "If the crash came at that instant: records lost and processed twice",
        (40, 790),
        26,
        INK,
        true,
    );
    let g =
        Frame { font: 1.24, ..charts::profile_frame((SLIDE_PROFILE.2, SLIDE_PROFILE.3), SLIDE_SCALE, run) };
    chart(&mut out, SLIDE_PROFILE, |root| {
        charts::paint_profile(root, run, &g)?;
        draw::paint_crash(root, &g, crash_at_us, &charts::profile_values(&at, p))
    });

    // The readouts at the crash, two columns of three, each with its line's colour.
    text(&mut out, "At the crash", (PANEL_X, 190), 30, INK, true);
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
        out.push_str(&format!(r#"<rect x="{x}" y="{y}" width="7" height="104" fill="{}"/>"#, hex(*colour)));
        text(&mut out, label, (x + 18, y + 22), 21, MUTED, false);
        text(&mut out, value, (x + 18, y + 90), 58, INK, true);
    }
    let mut notes: Vec<String> = Vec::new();
    // The cause first: the preset's name and what makes records fail.
    if let Some(preset) = crate::consumer::presets::of_scenario(&run.scenario) {
        notes.push(format!("Preset: {}.", preset.title));
    }
    notes.extend(failure_words(&run.scenario, base));
    if let Some(note) = in_flight_note(&in_flight(run, crash_at_us), base) {
        notes.push(format!("Commit in flight: {note}; the crash cancels it."));
    }
    notes.extend(lifecycle_at(run, crash_at_us));
    let worst = run.worst();
    let cut = |at_end: bool| {
        if at_end {
            " Still growing where the horizon ends: a later crash may be worse."
        } else {
            ""
        }
    };
    notes.push(match worst.duplicated_at_us {
        Some(us) => format!(
            "Worst crash: {} processed twice, {}.{}",
            worst.duplicated,
            instant_text(us),
            cut(worst.duplicated_at_horizon_end)
        ),
        None => "No crash instant processes anything twice.".to_string(),
    });
    notes.push(match worst.lost_at_us {
        Some(us) => format!(
            "Worst crash: {} lost, {}.{}",
            worst.lost,
            instant_text(us),
            cut(worst.lost_at_horizon_end)
        ),
        None => "No crash instant loses anything.".to_string(),
    });
    let mut y = 630;
    for note in &notes {
        for line in wrap(note, 420, 22.0, false) {
            if y > 1010 {
                break;
            }
            text(&mut out, &line, (PANEL_X, y), 22, INK, false);
            y += 30;
        }
        y += 10;
    }
    legend(&mut out, p);
    out.push_str("</svg>");
    out
}

/// `#RRGGBB`.
fn hex(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// Appends a line of text, its baseline at `(x, y)`.
fn text(out: &mut String, words: &str, (x, y): (i32, i32), size: u32, color: RGBColor, bold: bool) {
    let escaped = words.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let weight = if bold { r#" font-weight="bold""# } else { "" };
    out.push_str(&format!(
        r#"<text x="{x}" y="{y}" font-size="{size}" fill="{}"{weight}>{escaped}</text>"#,
        hex(color)
    ));
}

/// Appends a chart drawn by `paint` on plotters' SVG backend as a nested `<svg>` at
/// `(x, y)`, `w × h` px.
fn chart(
    out: &mut String,
    (x, y, w, h): (i32, i32, u32, u32),
    paint: impl for<'a, 'b> FnOnce(&'b DrawingArea<Backend<'a>, Shift>) -> draw::DrawResult<Backend<'a>>,
) {
    let mut svg = String::new();
    {
        let root = Backend::svg(&mut svg, (w, h)).into_drawing_area();
        if paint(&root).and_then(|()| root.present()).is_err() {
            return;
        }
    }
    // The backend's own root element, placed: `<svg x=.. y=.. width=.. height=.. viewBox=..>`.
    out.push_str(&svg.replacen("<svg ", &format!(r#"<svg x="{x}" y="{y}" "#), 1));
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

/// The legend along the foot of the slide: each line, mark and shading as the charts draw it.
fn legend(out: &mut String, p: &Palette) {
    let items = [
        (
            format!(
                r#"<line x2="40" stroke="{}" stroke-width="4" stroke-dasharray="12 7"/>"#,
                hex(p.position)
            ),
            "position",
            120,
        ),
        (format!(r#"<line x2="40" stroke="{}" stroke-width="5"/>"#, hex(p.durable)), "durable frontier", 190),
        (
            format!(r#"<line x2="40" stroke="{}" stroke-width="6"/>"#, hex(p.committed)),
            "committed offset",
            200,
        ),
        (format!(r#"<circle cx="20" r="7" fill="{}"/>"#, hex(p.committed)), "a commit lands", 170),
        (hatch(p.duplicated), "crash here: processed twice", 300),
        (hatch(p.lost), "crash here: lost", 180),
        (
            format!(r#"<line x1="20" x2="20" y1="-16" y2="16" stroke="{}" stroke-width="4"/>"#, hex(p.crash)),
            "the crash",
            110,
        ),
    ];
    let mut x = 40;
    for (swatch, label, width) in items {
        out.push_str(&format!(r#"<g transform="translate({x},1040)">{swatch}</g>"#));
        text(out, label, (x + 52, 1048), 22, INK, false);
        x += 52 + width;
    }
}

/// A swatch of shading: the light fill and the hatching.
fn hatch(c: RGBColor) -> String {
    let c = hex(c);
    format!(
        r#"<rect y="-12" width="40" height="24" fill="{c}" fill-opacity="0.22"/><path d="M0,12 l12,-24 M10,12 l12,-24 M20,12 l12,-24 M30,12 l10,-20" stroke="{c}" stroke-width="2"/>"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use offset_window_sim::Scenario;

    #[test]
    fn the_slide_has_the_crash_the_readouts_the_legend_and_the_scenario() {
        let run = simulate(&Scenario::default()).unwrap();
        let svg = slide_svg(&run, 8_200_000, 0);
        if let Some(dir) = std::env::var_os("SLIDE_OUT") {
            std::fs::write(std::path::Path::new(&dir).join("slide.svg"), &svg).unwrap();
        }
        assert!(svg.starts_with(r#"<svg width="1920" height="1080""#) && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<svg").count(), 3, "the slide and its two charts");
        assert_eq!(svg.matches("</svg>").count(), 3);
        for words in [
            "Crash at 8.200 s: 0 lost, 15 processed twice",
            "5 records a poll, 200 ms each",
            "simulated time (s)",
            "offset",
            "committed offset",
            "durable frontier",
            "crash here: processed twice",
            "Worst crash: 25 processed twice, just after 5.000 s (5.000001 s).",
            ">45</text>",
            ">40</text>",
            ">25</text>",
        ] {
            assert!(svg.contains(words) || words_of(&svg).contains(words), "{words}");
        }
        // The crash marker, in its colour, on both charts.
        assert!(svg.matches("#7B2CBF").count() >= 4, "crash marker lines and grips");
    }

    #[test]
    fn the_slide_of_a_link_is_the_slide_of_the_page_it_describes() {
        use crate::consumer::state::{Action, State};
        use std::rc::Rc;
        for index in 0..crate::consumer::presets::PRESETS.len() {
            let state = Rc::new(State::default())
                .apply(Action::LoadPreset(index))
                .apply(Action::SetBaseText("1000".to_string()));
            let link = crate::consumer::url::state_fragment(&state);
            let run = simulate(&state.scenario).unwrap();
            let slide = slide_for_link(&link).unwrap();
            assert_eq!(slide, slide_svg(&run, state.crash_at_us, 1000), "{link}");
        }
    }

    /// Trial item 6: the slide says what explains its "lost": the preset, the failing records
    /// and the error policy. And a worst instant the horizon cuts says so.
    #[test]
    fn the_slide_names_the_preset_and_the_failing_records() {
        use crate::consumer::presets::{scenario, FILES, PRESETS};
        let i = FILES.iter().position(|f| f.starts_with("s12-")).expect("an s12 preset");
        let s = scenario(i).unwrap().scenario;
        assert!(s.record_failures_possible(), "{}", FILES[i]);
        let words = words_of(&slide_svg(&simulate(&s).unwrap(), 8_200_000, 0));
        assert!(words.contains(&format!("Preset: {}.", PRESETS[i].title)), "{words}");
        assert!(words.contains("Failing records: ") && words.contains("on error: "), "{words}");
        let plain = words_of(&slide_svg(&simulate(&Scenario::default()).unwrap(), 8_200_000, 0));
        assert!(!plain.contains("Failing records") && !plain.contains("horizon ends"), "{plain}");
        let cut = Scenario { max_poll_records: 500, record_processing_us: 30_000, ..Scenario::default() };
        let words = words_of(&slide_svg(&simulate(&cut).unwrap(), 8_200_000, 0));
        assert!(words.contains("Still growing where the horizon ends"), "{words}");
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
        assert!(svg.contains(">1025</text>"), "the committed offset too");
    }

    /// The SVG's text, each element's words joined by one space.
    fn words_of(svg: &str) -> String {
        let texts: Vec<&str> = svg
            .split("<text")
            .skip(1)
            .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim()))
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
