//! The group module: the group page's table of every protocol and assignor, dynamic and
//! static, and each library modelled in a group (`offset_window_view::group::tables`), as
//! its own WebAssembly module. The page fetches it when the table is first opened (or when
//! the pointer or focus comes to the table's summary), through `window.offsetWindowGroupTable`
//! in `group.html`, so that the page's own wasm carries neither the comparison's variants nor
//! its table (README, "Figures"). Trunk builds it beside the group page (`data-type="worker"`
//! in `group.html`: built and finished like the page's wasm, loaded by the page itself).

use wasm_bindgen::prelude::wasm_bindgen;

/// The table, as HTML, of the scenario that the link fragment `scenario` (the page's
/// scenario keys, without `#`) describes: `offset_window_view::group::tables::group_table_for_link`.
#[wasm_bindgen]
pub fn group_table(scenario: &str) -> String {
    offset_window_view::group::tables::group_table_for_link(scenario)
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
