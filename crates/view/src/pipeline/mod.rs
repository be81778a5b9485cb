//! The pipeline page (`pipeline/`; docs/model.md §14): an input topic → a
//! consume-transform-produce service or a Kafka Streams application → an output topic →
//! downstream readers. Its three logs on one time axis (the input's committed offset and
//! stalls; the output's records, markers and last stable offset; what each reader saw), the
//! crash slider, and downstream counts "seen once / twice / never" per isolation level and
//! for a side effect outside Kafka. Pure: the presets ([`presets`]), the state and its
//! reducer ([`state`]), the link ([`url`]), the readouts ([`readouts`]) and the drawing over
//! any plotters backend ([`chart`]); the components are in crates/app. Every number shown
//! comes from `offset_window_sim::pipeline`.

pub mod chart;
pub mod presets;
pub mod readouts;
pub mod state;
pub mod url;
