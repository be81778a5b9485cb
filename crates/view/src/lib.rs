//! The pure parts of the offset-window page: everything the page computes that is not a
//! browser call. It builds for the host (so `cargo test` covers it) and for wasm32 (where
//! the page, `offset-window-app`, uses it); the yew components stay in the page.
//!
//! Pages are siblings on one kit: [`kit`] holds what every page needs (drawing primitives
//! and backend, time and number text, the crash slider, the field type, the link's
//! encoding, presets' checks, first-frame helpers) and imports only the core; each page's
//! folder imports `kit` and the core, never another page (`tests/structure.rs` checks it,
//! and that no module imports itself through a cycle).
//!
//! * [`consumer`]: the consumer page (one consumer on `orders-3`): its state and pure
//!   reducer, link, fields, charts, words, presets, tour, client comparison, exports and
//!   (`svg` feature) first frame, written into `index.html` at build time.
//! * [`group`]: the group page (docs/model.md §10 and §11): its own state and reducer,
//!   link, lanes, words, presets and comparisons. Only with the `group` feature (on by
//!   default; the consumer page leaves it out, and with it the core's groups).
//! * [`pipeline`]: the pipeline page (docs/model.md §14): exactly-once pipelines, the three
//!   logs on one time axis, the crash slider and what downstream saw.
//! * [`page_link`]: which page shows a scenario, and its link there (it reads both pages'
//!   link encoders, so it sits above them): for the runner and the import module. Only
//!   with the `group` feature.
//!
//! Charts are drawn by functions generic over the plotters `DrawingBackend`, called with
//! `kit::backend::Backend`: the canvas in the browser (`canvas` feature), the SVG backend
//! for the slide, the first frame and tests (`svg` feature, on by default). With the `yew`
//! feature (the page turns it on), the pages' states are yew `Reducible`s.

#![forbid(unsafe_code)]

pub mod consumer;
#[cfg(feature = "group")]
pub mod group;
pub mod kit;
#[cfg(feature = "group")]
pub mod page_link;
pub mod pipeline;
pub mod producer;
pub mod transactions;
