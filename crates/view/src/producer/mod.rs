//! The producer page (`producer/`; docs/model.md §9): one producer writing batches to
//! `orders-3`, the faults the reader places on a time axis, the partition log, the leader's
//! memory of the last five batches per producer id, and the counters. Pure: the state and
//! its reducer ([`state`]), the tour ([`tour`]) and the drawing over any plotters backend
//! ([`axis`]); the page's components are in crates/app. Every number shown comes from
//! `offset_window_sim::producer`.

pub mod axis;
pub mod state;
pub mod tour;
