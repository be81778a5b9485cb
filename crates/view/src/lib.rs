//! The pure parts of the offset-window page: everything the page computes that is not a
//! browser call. It builds for the host (so `cargo test` covers it) and for wasm32 (where
//! the page, `offset-window-app`, uses it); the yew components stay in the page.
//!
//! One job per module, data flowing one way (scenario → simulate → run → draw / words):
//!
//! * [`state`]: the page's one [`state::State`], the [`state::Action`]s that change it and
//!   a pure reducer ([`state::State::apply`]). The crash instant is held in µs apart from
//!   the scenario.
//! * [`url`]: the state in the URL fragment (a link reproduces the page).
//! * [`charts`]: drawing functions generic over the plotters `DrawingBackend`, called with
//!   `backend::Backend`: the canvas in the browser (`canvas` feature), the SVG backend for
//!   the slide, the first frame and tests (`svg` feature, on by default).
//! * [`crash`]: how the slider's keys and drags move the crash.
//! * [`fields`]: each scenario field's label, unit, hint and slider range.
//! * [`text`]: exact time formatting and the sentences the views share, in words for
//!   readers (labels, never identifiers).
//! * [`presets`] and [`tour`]: the `scenarios/` files and the guided tour's steps, as data.
//! * [`records`]: one record at a time (docs/model.md §12): the record under a click on the
//!   chart, the failing and slow records' text fields, what became of records that threw.
//! * [`compare`]: the same crash under each real client; [`export`]: the result JSON and
//!   (`svg` feature) the slide; `first_frame` (`svg` feature): the page at its defaults as
//!   static HTML and SVG, written into `index.html` at build time (binary `first-frame`).
//! * [`group`]: the group page's pure parts (`group/`, docs/model.md §10 and §11): its own
//!   state and reducer, URL, lanes, words, presets and comparisons. Only with the `group`
//!   feature (on by default; the consumer page leaves it out, and with it the core's groups).
//!
//! With the `yew` feature (the page turns it on), [`state::State`] is a yew `Reducible`.

#![forbid(unsafe_code)]

#[cfg(any(feature = "svg", feature = "canvas"))]
pub mod backend;
pub mod charts;
pub mod compare;
pub mod crash;
pub mod export;
pub mod fields;
#[cfg(feature = "svg")]
pub mod first_frame;
#[cfg(feature = "group")]
pub mod group;
pub mod presets;
pub mod records;
pub mod state;
pub mod text;
pub mod tour;
pub mod url;
