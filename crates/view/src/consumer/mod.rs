//! The consumer page's pure parts (one consumer on `orders-3`, docs/model.md §§1–9 and §12):
//! its state and reducer, link, field table, charts, words, presets, tour, comparison of
//! clients, exports and first frame. It imports [`crate::kit`] and the core, never another
//! page.

pub mod charts;
pub mod compare;
pub mod export;
pub mod fields;
#[cfg(feature = "svg")]
pub mod first_frame;
pub mod presets;
pub mod records;
pub mod state;
pub mod tour;
pub mod url;
pub mod words;
