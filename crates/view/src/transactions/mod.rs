//! The transactions page (`transactions/`; docs/model.md §13): transactional and plain
//! producers writing to `orders-3`, the commit and abort markers that take offsets, the last
//! stable offset and the high watermark over time, and what each reader was handed,
//! committed and lags by. Pure: the presets ([`presets`]), the state and its reducer
//! ([`state`]), the link ([`url`]), the readouts at an instant ([`readouts`]) and the
//! drawing over any plotters backend ([`chart`]); the components are in crates/app. Every
//! number shown comes from `offset_window_sim::transactions`.

pub mod chart;
pub mod presets;
pub mod readouts;
pub mod state;
pub mod url;
