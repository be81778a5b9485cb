//! The group page's worker module: what the page computes away from its own wasm
//! (`offset_window_view::group::background`), each from the page's scenario link. `group.html`
//! runs it in Web Workers (`web/group-worker.js`): the table of every protocol when the table
//! is opened, and the sweep of the first event's instant after every change of the scenario
//! but the first event's own instant — in the background, so the lanes and totals answer
//! first, and a new change stops a sweep in progress. Trunk builds it beside the group page
//! (`data-type="worker"` in `group.html`: built and finished like the page's wasm).

use wasm_bindgen::prelude::wasm_bindgen;

/// The table of every protocol and assignor, as HTML, for the scenario link `scenario`.
#[wasm_bindgen]
pub fn group_table(scenario: &str) -> String {
    offset_window_view::group::background::table_for_link(scenario)
}

/// The sweep of the first event for the link `scenario` (the page's sweep key), as the
/// numbers `GroupProfile::to_flat` writes; empty when there is none.
#[wasm_bindgen]
pub fn first_event_sweep(scenario: &str) -> Vec<u64> {
    offset_window_view::group::background::sweep_for_link(scenario)
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
