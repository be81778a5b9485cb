//! The producer page's components (its pure parts: `offset_window_view::producer`).

pub mod view;

pub use view::ProducerApp;
