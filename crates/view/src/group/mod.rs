//! The pure parts of the group page (`group/`, its own wasm): a consumer group
//! (docs/model.md §10) or a share group (§11) on one shared time axis — a lane per partition
//! with its three lines, a lane per member with what it was doing, the group events the
//! reader drags, adds and removes, and the readouts in words. Built and tested on the host,
//! like the rest of this crate; the page's components are in `offset-window-app`.
//!
//! One job per module, data flowing one way (scenario → simulate → run → lanes / words):
//!
//! * [`state`]: the page's one [`state::GroupState`], its [`state::GroupAction`]s and a pure
//!   reducer. The scenario held is always valid *and runs* (an event aimed at a member that
//!   is down at that instant is refused like a value out of range, naming the event).
//! * [`url`]: the state in the URL fragment, read through the reducer (a bad value leaves a
//!   notice naming the field and its range).
//! * [`timeline`]: what the lanes show, read from a run — who owns each partition when,
//!   each member's active / idle / hung / rebalancing / down intervals, and, for a share
//!   group, each record's state over time (built from the marks).
//! * [`lanes`]: the drawing (generic over the plotters backend, like the consumer page's
//!   charts): the lanes, the events, the sweep of the first event, the share strip.
//! * [`words`]: the sentences and labels the page shows (readouts, handovers, events).
//! * [`presets`]: the `g*`, `group-*`, `s11-*` and `share-*` scenario files, with titles,
//!   stories and their expected values as sentences.
//! * [`first_frame`]: the page at its defaults as static HTML and SVG, written into the
//!   built page so it paints before its wasm arrives.
//! * [`tables`]: the comparisons (protocols and assignors × static membership; share
//!   acknowledgement modes × commit strategies) as HTML.
//! * [`background`]: what the page's worker module computes from the page's link (the table
//!   of every protocol, the sweep of the first event), away from the page's own wasm.
//!
//! The page's own style sheet is `web/group.css`, inlined into `group.html` (`web/style.css`
//! holds what it shares with the other pages).

pub mod background;
#[cfg(feature = "svg")]
pub mod first_frame;
pub mod lanes;
pub mod presets;
pub mod state;
pub mod tables;
pub mod timeline;
pub mod url;
pub mod words;
pub mod zoom;
