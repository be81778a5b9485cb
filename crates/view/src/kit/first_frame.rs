//! What every page's first frame (the page at its defaults as static HTML and SVG, written
//! at build time) shares: the script that says so when the simulator never starts, and the
//! SVG rewrites that keep a drawn chart small.

use crate::kit::draw::Palette;

/// The first frames' script for a simulator that never starts: its panel then says so
/// (both pages).
pub const FAILED_SCRIPT: &str = include_str!("first_frame_failed.js");

/// The shading's hatch lines (one SVG element per stroke, most of the drawing's bytes) as
/// pattern fills: the light fill of each band (`opacity="0.22"` in the shading's colour)
/// becomes a pattern of the same fill and hatching, and the strokes (`opacity="0.95"`) go.
/// The frame is on screen for a second or two; the live canvas draws the strokes.
pub fn hatch_as_patterns(body: &str, p: &Palette, id: &str) -> String {
    let hex = |c: plotters::style::RGBColor| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
    let (dup, lost) = (hex(p.duplicated), hex(p.lost));
    let mut out = format!(
        concat!(
            r#"<defs><pattern id="ffd-{id}" width="6" height="6" patternUnits="userSpaceOnUse">"#,
            r#"<rect width="6" height="6" fill="{d}" fill-opacity="0.22"/><path d="M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2" stroke="{d}" stroke-width="1"/></pattern>"#,
            r#"<pattern id="ffl-{id}" width="7" height="7" patternUnits="userSpaceOnUse">"#,
            r#"<rect width="7" height="7" fill="{l}" fill-opacity="0.22"/><path d="M0,7 l7,-7 M0,0 l7,7" stroke="{l}" stroke-width="1"/></pattern></defs>"#
        ),
        d = dup,
        l = lost,
        id = id
    );
    let (fill_d, fill_l) = (format!(r#"fill="url(#ffd-{id})""#), format!(r#"fill="url(#ffl-{id})""#));
    for line in body.lines() {
        if line.contains(r#"opacity="0.95""#) {
            continue;
        }
        let shaded = line.starts_with("<rect") && line.contains(r#"opacity="0.22""#);
        if shaded && line.contains(&format!(r#"fill="{dup}""#)) {
            out.push_str(
                &line.replace(r#"opacity="0.22""#, "").replace(&format!(r#"fill="{dup}""#), &fill_d),
            );
        } else if shaded && line.contains(&format!(r#"fill="{lost}""#)) {
            out.push_str(
                &line.replace(r#"opacity="0.22""#, "").replace(&format!(r#"fill="{lost}""#), &fill_l),
            );
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// Consecutive polylines and rectangles of one style as one `<path>`: the dashed lines are
/// a polyline per dash and the shading a rectangle per pixel column, so this divides the
/// frame's elements (and bytes) by several. Order between styles is kept.
pub fn merge_runs(body: &str) -> String {
    let mut out = String::with_capacity(body.len() / 2);
    let mut run: Option<(String, String)> = None; // (style attributes, path data)
    let flush = |run: &mut Option<(String, String)>, out: &mut String| {
        if let Some((style, d)) = run.take() {
            out.push_str(&format!(r#"<path{style} d="{d}"/>"#));
        }
    };
    for line in body.lines() {
        let shape = if let Some(rest) = line.strip_prefix("<polyline").and_then(|l| l.strip_suffix("\"/>")) {
            rest.split_once(r#" points=""#).map(|(style, points)| {
                let mut d = String::new();
                for (i, point) in points.split_whitespace().enumerate() {
                    d.push(if i == 0 { 'M' } else { 'L' });
                    d.push_str(point);
                }
                (style.to_string(), d)
            })
        } else if let Some(rest) = line.strip_prefix("<rect").and_then(|l| l.strip_suffix("/>")) {
            let value = |name: &str| -> Option<i64> {
                rest.split(&format!(r#" {name}=""#)).nth(1)?.split('"').next()?.parse().ok()
            };
            let style = rest.split_once(r#" height=""#).and_then(|(_, h)| h.split_once('"')).map(|(_, s)| s);
            match (value("x"), value("y"), value("width"), value("height"), style) {
                (Some(x), Some(y), Some(w), Some(h), Some(style)) => {
                    Some((style.to_string(), format!("M{x},{y}h{w}v{h}h{}z", -w)))
                }
                _ => None,
            }
        } else {
            None
        };
        match shape {
            Some((style, d)) => match &mut run {
                Some((s, path)) if *s == style => path.push_str(&d),
                _ => {
                    flush(&mut run, &mut out);
                    run = Some((style, d));
                }
            },
            None => {
                flush(&mut run, &mut out);
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    flush(&mut run, &mut out);
    out
}
