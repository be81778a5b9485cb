//! The offset-window pages: the simulator of `offset-window-sim` running as WebAssembly,
//! drawn with plotters on a canvas, built by Trunk. Three pages, one wasm each: the consumer
//! page (`index.html`, binary `offset-window-app`, [`start`]), the producer page
//! (`producer.html`, binary `offset-window-producer`, [`start_producer`]) and the group page
//! (`group.html`, binary `offset-window-group`, [`start_group`]).
//!
//! One job per module, data flowing one way (scenario → simulate → run → draw / readouts).
//! The pure parts — state and reducer, URL codec, words, charts generic over the plotters
//! `DrawingBackend` — live in `offset-window-view` (re-exported here as [`state`], [`url`],
//! [`charts`], [`presets`], [`tour`]), which builds and is tested on the host too. Here:
//!
//! * [`shell`]: what every page uses around its own parts: the hooks (URL, media queries,
//!   canvas sizes, the tour's keys), canvas helpers and the page frame (page, projector
//!   screen, embed; notices, footer).
//! * [`components`]: the Yew components. The run is memoised on the scenario without the
//!   crash instant, so the crash slider never re-simulates; each component takes only the
//!   props it shows, so moving one control re-renders only what depends on it.
//! * [`producer`]: the producer page (docs/model.md §9), with its own state, chart and tour.
//! * [`transactions`]: the transactions page (docs/model.md §13): the log with its markers,
//!   the last stable offset and each reader's committed offset over time.
//! * [`pipeline`]: the pipeline page (docs/model.md §14): exactly-once pipelines, the input,
//!   output and downstream on one time axis, the crash slider and what downstream saw.
//! * [`group`]: the group page (docs/model.md §10, §11): lanes per partition and member,
//!   the share strip, presets, comparisons and a tour.
//!
//! Everything is compiled for `wasm32` only: on the host this crate is empty, so host
//! builds of the workspace skip yew and web-sys.

#![forbid(unsafe_code)]

#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(all(target_arch = "wasm32", feature = "group"))]
pub mod group;
#[cfg(target_arch = "wasm32")]
pub mod pipeline;
#[cfg(target_arch = "wasm32")]
pub mod producer;
#[cfg(target_arch = "wasm32")]
pub mod shell;
#[cfg(target_arch = "wasm32")]
pub mod transactions;
#[cfg(target_arch = "wasm32")]
pub use offset_window_view::consumer::{charts, presets, state, tour, url};

#[cfg(target_arch = "wasm32")]
pub use components::App;

/// Every page's memory allocator: Talc, which is smaller than the standard library's
/// dlmalloc in the wasm (≈ 1.8 KB brotli off the consumer page) and faster; it grows the
/// wasm memory as dlmalloc does.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// A release build's report of a panic, the same on every page: scripts/finish-wasm.mjs makes
/// the standard library's panic entry points call this export, which throws a JavaScript
/// error saying so, and trap (a debug build reports the panic's message and place instead).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn offset_window_panic_report() {
    wasm_bindgen::throw_str(
        "offset-window stopped on an internal error (a Rust panic); a debug build of the page (trunk serve) reports its message and place.",
    )
}

/// The consumer page (`index.html`): in a debug build installs the panic hook (a panic is
/// reported in the console with its message and place; a release build's panics stop the
/// page with an error in the console, [`offset_window_panic_report`]) and mounts [`App`] into the element `#app`, or the body when
/// there is none. An old link to `?view=producer` is sent on to the producer page.
#[cfg(target_arch = "wasm32")]
pub fn start() {
    #[cfg(debug_assertions)]
    console_error_panic_hook::set_once();
    if shell::query_has("view=producer") {
        if let Some(l) = web_sys::window().map(|w| w.location()) {
            let hash = l.hash().unwrap_or_default();
            if l.replace(&format!("producer/{hash}")).is_ok() {
                return;
            }
        }
    }
    shell::mount::<App>();
}

/// The producer page (`producer.html`, served as `producer/`): the panic hook (debug builds), then
/// [`producer::ProducerApp`] (docs/model.md §9). Its own wasm, so the consumer page never loads it.
#[cfg(target_arch = "wasm32")]
pub fn start_producer() {
    #[cfg(debug_assertions)]
    console_error_panic_hook::set_once();
    shell::mount::<producer::ProducerApp>();
}

/// The transactions page (`transactions.html`, served as `transactions/`): the panic hook
/// (debug builds), then [`transactions::TxnApp`] (docs/model.md §13). Its own wasm.
#[cfg(target_arch = "wasm32")]
pub fn start_transactions() {
    #[cfg(debug_assertions)]
    console_error_panic_hook::set_once();
    shell::mount::<transactions::TxnApp>();
}

/// The pipeline page (`pipeline.html`, served as `pipeline/`): the panic hook (debug builds),
/// then [`pipeline::PipelineApp`] (docs/model.md §14). Its own wasm.
#[cfg(target_arch = "wasm32")]
pub fn start_pipeline() {
    #[cfg(debug_assertions)]
    console_error_panic_hook::set_once();
    shell::mount::<pipeline::PipelineApp>();
}

/// The group page (`group.html`, served as `group/`): the panic hook (debug builds), then
/// [`group::GroupApp`] (docs/model.md §10, §11). Its own wasm, so the consumer page never
/// loads it. Only with the `group` feature (the core's consumer and share groups).
#[cfg(all(target_arch = "wasm32", feature = "group"))]
pub fn start_group() {
    #[cfg(debug_assertions)]
    console_error_panic_hook::set_once();
    shell::mount::<group::GroupApp>();
}
