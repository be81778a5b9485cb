//! The slide module: the consumer page's slide export (`offset_window_view::consumer::export::slide`)
//! as its own WebAssembly module. The page fetches it on its first export (or when the
//! pointer or focus comes to the export buttons), through `window.offsetWindowSlide` in
//! `index.html`, so that the page's own wasm carries neither the slide nor plotters' SVG
//! backend and the float formatting it links (README, "Figures"). Trunk builds it beside
//! the page (`data-type="worker"` in `index.html`: built and finished like the page's
//! wasm, loaded by the page itself); the offline page inlines it
//! (`scripts/offline-page.mjs`).

use wasm_bindgen::prelude::wasm_bindgen;

/// The slide, a 1920 × 1080 SVG document, of the page that the URL fragment `fragment`
/// (without `#`, as the page writes it) describes: read, simulated and drawn as
/// `offset_window_view::consumer::export::slide::slide_for_link` does. Errors, thrown to JavaScript
/// as a string: the core's refusal of the scenario, in words.
#[wasm_bindgen]
pub fn slide(fragment: &str) -> Result<String, String> {
    offset_window_view::consumer::export::slide::slide_for_link(fragment)
}

/// A release build's report of a panic, as on the pages (`offset_window_app`'s):
/// scripts/finish-wasm.mjs makes the standard library's panic entry points call this export,
/// which throws a JavaScript error saying so, and trap.
#[wasm_bindgen]
pub fn offset_window_panic_report() {
    wasm_bindgen::throw_str(
        "offset-window stopped on an internal error (a Rust panic); a debug build of the page (trunk serve) reports its message and place.",
    )
}
