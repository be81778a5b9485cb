//! What the page exports: the result JSON (as `offset-window run` prints it) and the slide
//! ([`slide`], a 1920 × 1080 SVG with the `svg` feature; the page's PNG is that SVG
//! rasterised).

#[cfg(feature = "svg")]
pub mod slide;

/// The scenario and result JSON, as `offset-window run` prints it.
pub fn result_json(run: &offset_window_sim::Run, crash_at_us: u64) -> String {
    serde_json::to_string(&run.summary_at(crash_at_us)).unwrap_or_default()
}

/// The slide's size in px (16:9).
pub const SLIDE: (u32, u32) = (1920, 1080);
