//! The group page's first frame: the page at its defaults (reference G1, docs/model.md
//! §10.7) as static HTML and SVG, rendered at build time by the native core and the lanes'
//! own drawing code (plotters' SVG backend), written into the built `group/index.html` by
//! the same binary and hook as the consumer page's (`first-frame`, called by
//! `scripts/trunk-post-build.sh`). A reader sees the totals, the lanes, the sweep and the
//! story as soon as the HTML and CSS arrive; the live page replaces the frame when its wasm
//! mounts (yew clears its root).
//!
//! Unlike the consumer page's frame it does not move anything: moving a group event
//! re-runs the simulation, which is the wasm's job. It uses the live page's classes and
//! words ([`super::words`]), so both lay out alike, and no id of the live page, so nothing
//! waits for it by mistake. A link with settings of its own hides the frame's drawings and
//! numbers (`html.ff-link`) until the live page has read it; the embed shows none of it.

use super::lanes::{self, Lanes, Marks};
use super::state::default_scenario;
use super::timeline::{member_spans, owners};
use super::words;
use crate::kit::backend::Backend;
use crate::kit::draw::{Frame, LIGHT};
use crate::kit::first_frame::{hatch_as_patterns, merge_runs};
use crate::kit::text::escape;
use offset_window_sim::sweep::{first_event, first_event_profile, GroupProfile};
use offset_window_sim::{simulate, Run, Scenario};
use plotters::prelude::IntoDrawingArea;

/// Where the frame goes in the built `group/index.html`: this element, which `group.html`
/// holds inside `#app`, is replaced by the frame.
pub const MARKER: &str = r#"<div id="group-first-frame-here"></div>"#;

/// Widths drawn, CSS px: for wide screens (the stage beside the controls) and for phones.
/// The SVGs keep their aspect ratio inside boxes as tall as the live canvases.
const WIDE: u32 = 860;
const NARROW: u32 = 360;
/// The sweep chart's CSS height (as the live canvas outside projector mode).
const SWEEP_H: u32 = 150;

/// Runs before the frame paints: the embed hides the frame; a link with any settings (or
/// projector mode, laid out otherwise) hides its drawings and numbers.
const BOOT: &str = concat!(
    "<script>(()=>{const c=document.documentElement.classList;",
    "if(/(^|[?&])embed=1(&|$)/.test(location.search))c.add('ff-embed');",
    "else if(location.hash.replace(/^#/,''))c.add('ff-link');})();</script>"
);

/// The whole frame for `scenario` (the page's defaults when built), ready to replace
/// [`MARKER`].
pub fn first_frame(scenario: &Scenario) -> Result<String, String> {
    let run = simulate(scenario).map_err(|e| e.to_string())?;
    let g = run.group.as_ref().ok_or("the first frame shows a consumer group")?;
    let profile = first_event_profile(scenario).map_err(|e| e.to_string())?;
    let mut out = String::with_capacity(96 * 1024);
    out.push_str(BOOT);
    // The page's own styles are in group.html's head (web/group.css).
    out.push_str(r#"<div class="page group first-frame" id="first-frame">"#);
    out.push_str(concat!(
        r#"<header class="top"><div><p class="views"><a href="../">← the consumer view (one partition)</a> · "#,
        r#"<a href="../producer/">the producer view</a> · <a href="../transactions/">transactions in the log</a></p>"#,
        r#"<h1>Offset window: a consumer group</h1>"#
    ));
    out.push_str(words::LEDE);
    out.push_str(r#"</div><button class="projector-toggle" disabled>Projector mode</button></header>"#);
    out.push_str(&format!(
        r#"<button class="ff-tour" disabled>Take the tour ({} steps)</button>"#,
        super::presets::TOUR.len()
    ));
    out.push_str(r#"<main><div class="layout"><section class="stage" aria-label="The group over time">"#);
    // The totals.
    out.push_str(&format!(
        r#"<section class="readouts" aria-labelledby="ff-g-ro-title"><h2 id="ff-g-ro-title">{}</h2><dl class="ro-grid">"#,
        escape(&words::group_readouts_title(run.scenario.horizon_us))
    ));
    for r in words::group_readouts(g) {
        out.push_str(&format!(
            r#"<div class="ro {}" id="ff-{}" data-value="{}"><dt>{}</dt><dd class="ff-live">{}</dd></div>"#,
            r.class,
            r.id,
            r.value,
            escape(r.title),
            escape(&r.shown)
        ));
    }
    out.push_str("</dl>");
    if let Some(p) = &profile {
        out.push_str(&format!(r#"<p class="hint ff-live">{}</p>"#, escape(&words::worst_sentence(p))));
    }
    out.push_str("</section>");
    // The lanes, their legend, the sweep.
    out.push_str(r#"<figure class="chart"><figcaption><h2 class="chart-title">The group over time: partitions, then members</h2></figcaption>"#);
    out.push_str(&format!(
        r#"<div class="lanes-box" role="img" aria-label="The group over simulated time: each partition's position, durable frontier and committed offset with its owner's colour, each member's activity, the group events">{}{}</div>"#,
        lanes_svg(&run, WIDE, "ff-wide")?,
        lanes_svg(&run, NARROW, "ff-narrow")?
    ));
    out.push_str(r#"<ul class="gkey">"#);
    for line in words::legend_lines(false, false, false) {
        out.push_str(&format!("<li>{}</li>", escape(line)));
    }
    for m in 0..run.scenario.member_count().min(8) as u16 {
        out.push_str(&format!(
            r#"<li><span class="sw" style="background:{}"></span>{}</li>"#,
            lanes::member_css(m, false),
            words::member_name(m + 1)
        ));
    }
    out.push_str(&format!("<li>{}</li></ul></figure>", escape(words::LEGEND_EVENTS)));
    if let (Some(p), Some(first)) = (&profile, first_event(scenario)) {
        let event = scenario.group_events[first];
        out.push_str(&format!(
            r#"<figure class="chart"><figcaption><h2 class="chart-title">{}</h2><p class="hint">{}</p></figcaption><div role="img" aria-label="Records lost and processed twice by the whole group, for each instant of the first event">{}{}</div></figure>"#,
            escape(&words::sweep_title(&event)),
            escape(words::SWEEP_HINT),
            sweep_svg(p, &run, event.at_us, WIDE, "ff-wide")?,
            sweep_svg(p, &run, event.at_us, NARROW, "ff-narrow")?
        ));
    }
    // The story, as the live page tells it.
    out.push_str(r#"<section class="story ff-live" aria-labelledby="ff-story-title"><h2 id="ff-story-title">What happened, in words</h2><ul class="sentences">"#);
    for e in &scenario.group_events {
        out.push_str(&format!("<li>{}</li>", escape(&words::event_words(e))));
    }
    out.push_str(r#"</ul><ul class="sentences">"#);
    for h in &g.handovers {
        out.push_str(&format!("<li>{}</li>", escape(&words::handover_sentence(h, scenario.horizon_us))));
    }
    out.push_str(r#"</ul><ul class="sentences">"#);
    for p in &g.partitions {
        out.push_str(&format!("<li>{}</li>", escape(&words::partition_sentence(p))));
    }
    out.push_str("</ul></section></section>");
    out.push_str(concat!(
        r#"<div class="panel"><section class="ff-wait"><h2>The controls are on their way</h2>"#,
        r#"<p class="ff-default">This is the page at its defaults, drawn when it was built. The presets, the group events, "#,
        r#"the settings, the tour and the comparisons arrive with the simulator itself (WebAssembly), in a moment.</p>"#,
        r#"<p class="ff-linked">Loading the settings in this link…</p></section></div>"#,
        "</div></main></div>"
    ));
    out.push_str("<script>");
    out.push_str(crate::kit::first_frame::FAILED_SCRIPT);
    out.push_str("</script>");
    Ok(out)
}

/// `html` with [`MARKER`] replaced by the frame of the page's default scenario.
pub fn fill(html: &str) -> Result<String, String> {
    if !html.contains(MARKER) {
        return Err(format!("no {MARKER} in the page"));
    }
    Ok(html.replacen(MARKER, &first_frame(&default_scenario())?, 1))
}

/// `svg` (as plotters' SVG backend writes it) sized by its box: the class, `aria-hidden`,
/// the aspect kept, its polylines and rectangles merged and its hatching as patterns.
fn boxed(svg: &str, class: &str, style: &str, id: &str) -> Result<String, String> {
    let head_end = svg.find('>').ok_or("no svg element")?;
    let head = &svg[..head_end];
    let view_box = head.split("viewBox=\"").nth(1).and_then(|v| v.split('"').next()).ok_or("no viewBox")?;
    let body_end = svg.rfind("</svg>").ok_or("no </svg>")?;
    Ok(format!(
        r#"<svg class="ff-chart ff-live {class}" style="{style}" aria-hidden="true" preserveAspectRatio="xMidYMid meet" viewBox="{view_box}" xmlns="http://www.w3.org/2000/svg">{}</svg>"#,
        merge_runs(&hatch_as_patterns(&svg[head_end + 1..body_end], &LIGHT, id))
    ))
}

/// The lanes `width` CSS px wide, as tall as the live canvas, drawn by [`lanes::draw_lanes`].
fn lanes_svg(run: &Run, width: u32, layout: &str) -> Result<String, String> {
    let o = owners(run);
    let m = member_spans(run, &o);
    let h = lanes::css_height(run.partitions.len(), m.len()).round() as u32;
    let mut svg = String::new();
    {
        let root = Backend::svg(&mut svg, (width, h)).into_drawing_area();
        let l = Lanes {
            font: 1.24,
            ..Lanes::new((width, h), 1.0, run.scenario.horizon_us, run.partitions.len(), m.len())
        };
        let marks = Marks { events: &run.scenario.group_events, selected: None, crash_at_us: None };
        lanes::draw_lanes(&root, run, &o, &m, &l, marks)
            .map_err(|e| format!("drawing the lanes failed: {e:?}"))?;
    }
    boxed(&svg, layout, &format!("width:100%;height:{h}px"), &format!("l-{layout}"))
}

/// The sweep `width` CSS px wide, drawn by [`lanes::draw_sweep`].
fn sweep_svg(
    profile: &GroupProfile,
    run: &Run,
    at_us: u64,
    width: u32,
    layout: &str,
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = Backend::svg(&mut svg, (width, SWEEP_H)).into_drawing_area();
        let f = Frame {
            font: 1.24,
            ..lanes::sweep_frame((width, SWEEP_H), 1.0, run.scenario.horizon_us, profile)
        };
        lanes::draw_sweep(&root, profile, &f, at_us)
            .map_err(|e| format!("drawing the sweep failed: {e:?}"))?;
    }
    boxed(&svg, layout, &format!("width:100%;height:{SWEEP_H}px"), &format!("s-{layout}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frame_shows_the_cores_totals_lanes_sweep_and_story() {
        let s = default_scenario();
        let frame = first_frame(&s).unwrap();
        let run = simulate(&s).unwrap();
        let g = run.group.as_ref().unwrap();
        // Every total as the core computes it, with the live page's words.
        for r in words::group_readouts(g) {
            assert!(
                frame.contains(&format!(r#"id="ff-{}" data-value="{}"><dt>{}</dt>"#, r.id, r.value, r.title)),
                "{}: {frame}",
                r.id
            );
        }
        let profile = first_event_profile(&s).unwrap().unwrap();
        assert!(frame.contains(&escape(&words::worst_sentence(&profile))));
        // G1's worst instant is 1 µs after the 5 s poll: said in words, not as 5.000001.
        assert_eq!(profile.worst_duplicated.1, Some(5_000_001));
        assert!(
            words::worst_sentence(&profile).ends_with("(first event just after 5.000 s)."),
            "{}",
            words::worst_sentence(&profile)
        );
        for h in &g.handovers {
            assert!(frame.contains(&escape(&words::handover_sentence(h, s.horizon_us))));
        }
        // Both layouts of both drawings, the lanes' names and axis title in them.
        assert_eq!(frame.matches("<svg class=\"ff-chart").count(), 4);
        assert!(
            frame.contains("orders-1")
                && frame.contains("consumer-2")
                && frame.contains("simulated time (s)")
        );
        assert!(frame.contains("instant (s)"), "the sweep's axis title");
        // No id of the live page is taken.
        for id in ["lanes", "sweep", "ro-g-lost", "tour-start", "projector", "legend"] {
            assert!(!frame.contains(&format!(r#"id="{id}""#)), "{id}");
        }
        assert!(frame.len() < 200_000, "{} bytes", frame.len());
    }

    #[test]
    fn fill_needs_the_marker() {
        let page = format!("<body><div id=\"app\">{MARKER}</div></body>");
        let filled = fill(&page).unwrap();
        assert!(filled.contains(r#"id="first-frame""#) && !filled.contains(MARKER));
        assert!(fill("<body></body>").unwrap_err().contains("group-first-frame-here"));
    }
}
