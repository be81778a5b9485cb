//! The first frame: the consumer page at its defaults as static HTML and SVG, rendered at
//! build time by the native core and the charts' own drawing code (plotters' SVG backend),
//! written into `index.html` (`cargo run -p offset-window-view --bin first-frame`, called
//! by the Trunk hook). A reader sees the chart and the readouts as soon as the HTML and
//! CSS arrive; a few lines of script move the crash over the step functions the core
//! computed here, until the wasm page mounts and replaces the frame (yew clears its root).
//!
//! The frame uses the live page's classes, so the style sheet lays both out alike. It
//! shows the defaults; a link with other settings keeps the layout but hides the numbers
//! (`html.ff-link`) until the live page has read the link, and the embed shows nothing of
//! it (`html.ff-embed`).

use crate::consumer::charts;
use crate::consumer::words::{LEDE, LEGEND_COMPACT};
use crate::kit::backend::Backend;
use crate::kit::crash::crash_key_step_us;
use crate::kit::draw::{Frame, Palette, LIGHT};
use crate::kit::first_frame::{hatch_as_patterns, merge_runs, FAILED_SCRIPT};
use crate::kit::text::{offset_text, seconds_text};
use offset_window_sim::scenario::DEFAULT_CRASH_AT_US;
use offset_window_sim::{simulate, CrashState, Run, Scenario, Step};
use plotters::prelude::IntoDrawingArea;

/// Where the frame goes in the built `index.html`: this element, which `index.html` holds
/// inside `#app`, is replaced by the frame.
pub const MARKER: &str = r#"<div id="first-frame-here"></div>"#;

/// Chart sizes drawn, CSS px: (main, profile) for wide screens, then for phones. The SVGs
/// keep their aspect ratio inside the chart boxes; the live canvases fit the boxes exactly.
const WIDE: ((u32, u32), (u32, u32)) = ((840, 420), (840, 150));
const NARROW: ((u32, u32), (u32, u32)) = ((380, 250), (380, 130));

/// Runs before the frame paints: a link with other settings than the crash (which the frame
/// can show) hides the frame's numbers; the embed hides the frame.
const BOOT: &str = concat!(
    "<script>(()=>{const c=document.documentElement.classList;",
    "if(/(^|[?&])embed=1(&|$)/.test(location.search))c.add('ff-embed');",
    "else if(location.hash.replace(/^#/,'').split('&')",
    ".some(p=>p&&!/^crash_at_us=\\d+$/.test(p)&&p!=='projector=1'&&p!=='projector=0'))c.add('ff-link');})();</script>"
);

/// The script that moves the frame's crash (see `first_frame.js`).
const SCRIPT: &str = include_str!("first_frame.js");

/// The whole frame for `scenario` (the page's defaults when built), ready to replace
/// [`MARKER`].
pub fn first_frame(scenario: &Scenario) -> Result<String, String> {
    let run = simulate(scenario).map_err(|e| e.to_string())?;
    let crash = DEFAULT_CRASH_AT_US.min(scenario.horizon_us);
    let at = run.state_at(crash);
    let mut out = String::with_capacity(64 * 1024);
    out.push_str(BOOT);
    out.push_str(r#"<div class="page consumer first-frame" id="first-frame">"#);
    out.push_str(r#"<header class="top"><div><h1>Offset window</h1>"#);
    out.push_str(LEDE);
    out.push_str("</div></header>");
    out.push_str(r#"<main class="layout"><section class="stage" aria-label="Chart and crash">"#);
    out.push_str(&figure(
        &run,
        &at,
        true,
        r#"Partition <code>orders-3</code>: three offsets over time"#,
        "Offsets of orders-3 over simulated time: position (dashed), durable frontier and committed offset, with shading where a crash would lose or duplicate records",
    )?);
    out.push_str(&strip(&run, &at, crash));
    out.push_str(&figure(
        &run,
        &at,
        false,
        "If the crash came at that instant: records lost and processed twice",
        "Records a crash would lose and process twice, for every crash instant",
    )?);
    out.push_str(LEGEND_COMPACT);
    out.push_str("</section>");
    out.push_str(concat!(
        r#"<div class="panel"><section class="ff-wait"><h2>The controls are on their way</h2>"#,
        r#"<p class="ff-default">This is the page at its defaults, drawn when it was built. The controls, the guided tour "#,
        r#"and the comparisons arrive with the simulator itself (WebAssembly), in a moment.</p>"#,
        r#"<p class="ff-linked">Loading the settings in this link…</p></section></div>"#,
        "</main></div>"
    ));
    out.push_str(r#"<script type="application/json" id="ff-data">"#);
    out.push_str(&data(&run, crash));
    out.push_str("</script><script>");
    out.push_str(SCRIPT);
    out.push_str(FAILED_SCRIPT);
    out.push_str("</script>");
    Ok(out)
}

/// `html` with [`MARKER`] replaced by the frame of the default scenario.
pub fn fill(html: &str) -> Result<String, String> {
    if !html.contains(MARKER) {
        return Err(format!("no {MARKER} in the page"));
    }
    Ok(html.replacen(MARKER, &first_frame(&Scenario::default())?, 1))
}

/// A chart as the live page lays it out: its title and, in its box, one SVG per layout.
fn figure(run: &Run, at: &CrashState, main: bool, title: &str, label: &str) -> Result<String, String> {
    let (class, sizes) =
        if main { ("main-chart", [WIDE.0, NARROW.0]) } else { ("profile-chart", [WIDE.1, NARROW.1]) };
    let mut out = format!(
        r#"<figure class="chart {class}"><figcaption><h2 class="chart-title">{title}</h2></figcaption><div class="canvas-box" role="img" aria-label="{label}">"#
    );
    for (size, layout) in sizes.into_iter().zip(["ff-wide", "ff-narrow"]) {
        out.push_str(&chart_svg(run, at, main, size, layout)?);
    }
    out.push_str("</div></figure>");
    Ok(out)
}

/// One chart as SVG, drawn by [`charts::draw_main`] / [`charts::draw_profile`], with a crash
/// marker the script can move (its geometry in `data-` attributes).
fn chart_svg(
    run: &Run,
    at: &CrashState,
    main: bool,
    size: (u32, u32),
    layout: &str,
) -> Result<String, String> {
    let f = if main { charts::main_frame(size, 1.0, run) } else { charts::profile_frame(size, 1.0, run) };
    let f = Frame { font: 1.24, ..f };
    let mut svg = String::new();
    {
        let root = Backend::svg(&mut svg, size).into_drawing_area();
        let drawn =
            if main { charts::draw_main(&root, run, &f) } else { charts::draw_profile(&root, run, &f) };
        drawn.map_err(|e| format!("drawing the first frame failed: {e}"))?;
    }
    let p: &Palette = &LIGHT;
    let values = if main { charts::main_values(at, p) } else { charts::profile_values(at, p) };
    let open = format!(
        r#"<svg class="ff-chart {} {layout}" aria-hidden="true" preserveAspectRatio="xMidYMid meet" data-left="{}" data-right="{}" data-top="{}" data-bottom="{}" data-ymax="{}" "#,
        if main { "ff-main" } else { "ff-profile" },
        f.left,
        f.right,
        f.top,
        f.bottom,
        f.y_max
    );
    // The backend writes `<svg width=".." height=".." viewBox="..">`: the box sizes it instead.
    let head_end = svg.find('>').ok_or("no svg element")?;
    let head = &svg[..head_end];
    let view_box = head.split("viewBox=\"").nth(1).and_then(|v| v.split('"').next()).ok_or("no viewBox")?;
    let mut out = format!(r#"{open}viewBox="{view_box}" xmlns="http://www.w3.org/2000/svg">"#);
    let body_end = svg.rfind("</svg>").ok_or("no </svg>")?;
    let id = format!("{}-{layout}", if main { "m" } else { "p" });
    out.push_str(&merge_runs(&hatch_as_patterns(&svg[head_end + 1..body_end], p, &id)));
    out.push_str(&marker(&f, at.crash_at_us, &values));
    out.push_str("</svg>");
    Ok(out)
}

/// The crash marker as `charts::draw_crash` draws it (a line, a grip, a dot per value), in
/// plain SVG the script moves.
fn marker(f: &Frame, crash_at_us: u64, values: &[(f64, plotters::style::RGBColor)]) -> String {
    let hex = |c: plotters::style::RGBColor| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
    let crash = hex(LIGHT.crash);
    let x = f.x(crash_at_us).round();
    let g = 6.0;
    let mut out = format!(
        r#"<g class="ff-crash"><line x1="{x}" x2="{x}" y1="{}" y2="{}" stroke="{crash}" stroke-width="2"/><polygon points="{},{} {},{} 0,{}" transform="translate({x},0)" fill="{crash}"/>"#,
        f.top,
        f.bottom,
        -g,
        f.top - 2.0 * g,
        g,
        f.top - 2.0 * g,
        f.top
    );
    for &(v, c) in values {
        out.push_str(&format!(
            r##"<g class="dot" transform="translate({x},{})"><circle r="5.5" fill="#FFFFFF"/><circle r="4" fill="{}"/></g>"##,
            f.y(v).round(),
            hex(c)
        ));
    }
    out.push_str("</g>");
    out
}

/// The crash slider and the six readouts, as the live strip (ids prefixed `ff-`).
fn strip(run: &Run, at: &CrashState, crash: u64) -> String {
    let horizon = run.scenario.horizon_us;
    let s = seconds_text(crash);
    let step = crate::kit::text::millis_text(crash_key_step_us(horizon));
    let readout = |id: &str, class: &str, (title, short): (&str, &str), value: String, note: &str| {
        format!(
            r#"<div class="ro {class}" id="ff-ro-{id}" data-value="{value}"><dt data-short="{short}"><span>{title}</span></dt><dd class="num">{value}</dd><dd class="note">{note}</dd></div>"#
        )
    };
    format!(
        concat!(
            r#"<div class="strip"><div class="crash-control field"><label for="ff-slider">crash at <span class="unit">(s)</span></label>"#,
            r#"<div class="crash-row"><button type="button" class="nudge" id="ff-crash-earlier" tabindex="-1" aria-label="crash {step} ms earlier">−</button>"#,
            r#"<input type="range" id="ff-slider" min="0" max="{horizon}" step="any" value="{crash}" aria-valuetext="{s} seconds">"#,
            r#"<button type="button" class="nudge" id="ff-crash-later" tabindex="-1" aria-label="crash {step} ms later">+</button>"#,
            r#"<input type="text" id="ff-crash-at" class="num" readonly value="{s}" aria-label="crash at, in seconds"></div>"#,
            r#"<p class="hint">− and + (or the arrow keys) move it by {step} ms, Page Up/Down by ten times that.</p></div>"#,
            r#"<section class="readouts ff-live" aria-labelledby="ff-at-title"><h2 id="ff-at-title"><span id="ff-crash-shown" class="crash-shown">Crash at {s} s</span></h2>"#,
            r#"<dl class="ro-grid">{ro}</dl></section></div>"#
        ),
        horizon = horizon,
        crash = crash,
        s = s,
        step = step,
        ro = [
            readout(
                "position",
                "position",
                ("position", "position"),
                offset_text(at.position, 0),
                "records poll() handed out"
            ),
            readout(
                "durable",
                "durable",
                ("durable frontier", "durable"),
                offset_text(Some(at.durable), 0),
                "side effects landed"
            ),
            readout(
                "committed",
                "committed",
                ("committed offset", "committed"),
                offset_text(at.committed, 0),
                "the group restarts here"
            ),
            readout("lost", "lost", ("lost", "lost"), at.lost.to_string(), "committed, never processed"),
            readout(
                "duplicated",
                "duplicated",
                ("processed twice", "twice"),
                at.duplicated.to_string(),
                "done, and done again after restart"
            ),
            readout(
                "reread",
                "reread",
                ("re-read", "re-read"),
                at.reread.to_string(),
                "poll() hands these out again"
            ),
        ]
        .concat()
    )
}

/// The step functions the script reads the crash from, as JSON: `[instant µs, value]`
/// pairs (null: none yet), the profile as `[instant, lost, duplicated]`.
fn data(run: &Run, crash: u64) -> String {
    let lines = run.lines();
    let opt = |steps: &[Step<Option<u64>>]| -> Vec<serde_json::Value> {
        steps.iter().map(|s| serde_json::json!([s.at_us, s.value])).collect()
    };
    let durable: Vec<serde_json::Value> =
        lines.durable_frontier.iter().map(|s| serde_json::json!([s.at_us, s.value])).collect();
    let profile: Vec<serde_json::Value> =
        lines.profile.iter().map(|s| serde_json::json!([s.at_us, s.lost, s.duplicated])).collect();
    serde_json::json!({
        "horizon": run.scenario.horizon_us,
        "default_crash": crash,
        "key_step": crash_key_step_us(run.scenario.horizon_us),
        "position": opt(&lines.position),
        "durable": durable,
        "committed": opt(&lines.committed),
        "profile": profile,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frame_shows_the_defaults_and_carries_what_the_script_needs() {
        let html = first_frame(&Scenario::default()).unwrap();
        for id in
            ["ff-ro-position", "ff-ro-duplicated", "ff-slider", "ff-crash-at", "ff-crash-shown", "ff-data"]
        {
            assert!(html.contains(&format!(r#"id="{id}""#)), "{id}");
        }
        // Reference R1 at 8.2 s: position 45, durable 40, committed 25, 15 processed twice.
        for (id, v) in [
            ("position", 45),
            ("durable", 40),
            ("committed", 25),
            ("lost", 0),
            ("duplicated", 15),
            ("reread", 20),
        ] {
            assert!(html.contains(&format!(r#"id="ff-ro-{id}" data-value="{v}""#)), "{id} = {v}");
        }
        assert_eq!(html.matches("<svg").count(), 4, "two charts, each for wide screens and phones");
        assert_eq!(html.matches("</svg>").count(), 4);
        assert!(html.contains("simulated time (s)") && html.contains("crash instant (s)"), "axis titles");
        assert!(
            !html.contains(r#"opacity="0.95""#) && html.contains(r#"fill="url(#ffd-m-ff-wide)""#),
            "hatching as patterns"
        );
        assert!(!html.contains("<svg width"), "sized by the box, not the backend");
        let data: serde_json::Value = serde_json::from_str(
            html.split(r#"id="ff-data">"#).nth(1).unwrap().split("</script>").next().unwrap(),
        )
        .unwrap();
        assert_eq!(data["horizon"], 12_000_000);
        assert_eq!(data["key_step"], 50_000);
        assert_eq!(data["committed"][0], serde_json::json!([0, 0]));
        // Compressed, the frame costs little on a slow line (the page's HTML is gzipped by most hosts).
        assert!(html.len() < 60_000, "{} bytes", html.len());
    }

    #[test]
    fn the_data_reads_as_the_core_does() {
        let run = simulate(&Scenario::default()).unwrap();
        let data: serde_json::Value = serde_json::from_str(&data(&run, 8_200_000)).unwrap();
        // The script's rule: the last step strictly before T.
        let at = |name: &str, t: u64, i: usize| {
            data[name]
                .as_array()
                .unwrap()
                .iter()
                .rev()
                .find(|s| s[0].as_u64().unwrap() < t)
                .map(|s| s[i].clone())
        };
        for t in [1u64, 1_000_000, 5_000_001, 5_005_000, 5_005_001, 8_200_000, 12_000_000] {
            let core = run.state_at(t);
            assert_eq!(at("position", t, 1).and_then(|v| v.as_u64()), core.position, "position at {t}");
            assert_eq!(
                at("durable", t, 1).and_then(|v| v.as_u64()).unwrap_or(0),
                core.durable,
                "durable at {t}"
            );
            assert_eq!(at("committed", t, 1).and_then(|v| v.as_u64()), core.committed, "committed at {t}");
            assert_eq!(at("profile", t, 1).and_then(|v| v.as_u64()).unwrap_or(0), core.lost, "lost at {t}");
            assert_eq!(
                at("profile", t, 2).and_then(|v| v.as_u64()).unwrap_or(0),
                core.duplicated,
                "dup at {t}"
            );
        }
    }

    #[test]
    fn runs_of_one_style_become_one_path() {
        let body = concat!(
            "<polyline fill=\"none\" stroke=\"#0072B2\" points=\"1,2 3,4 \"/>\n",
            "<polyline fill=\"none\" stroke=\"#0072B2\" points=\"5,6 7,8 \"/>\n",
            "<rect x=\"1\" y=\"2\" width=\"3\" height=\"4\" opacity=\"1\" fill=\"#FFF\"/>\n",
            "<text x=\"1\">a</text>\n",
        );
        assert_eq!(
            merge_runs(body),
            concat!(
                "<path fill=\"none\" stroke=\"#0072B2\" d=\"M1,2L3,4M5,6L7,8\"/>",
                "<path opacity=\"1\" fill=\"#FFF\" d=\"M1,2h3v4h-3z\"/>",
                "<text x=\"1\">a</text>\n"
            )
        );
    }

    #[test]
    fn fill_needs_the_marker() {
        assert!(fill("<html></html>").is_err());
        let page = fill(&format!("<div id=\"app\">{MARKER}</div>")).unwrap();
        assert!(page.starts_with("<div id=\"app\"><script>") && !page.contains(MARKER));
    }
}
