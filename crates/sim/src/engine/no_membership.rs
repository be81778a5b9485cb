//! A member's side of the consumer group in a build without the `group` feature (the
//! one-consumer page's): it stands in for `membership.rs` (see `engine/mod.rs`). Validation
//! refuses every group scenario there and [`crate::Scenario::group_mode`] is always false, so
//! no member ever has a [`GroupClient`]: each entry point below does what `membership.rs`
//! does for a member without one — nothing. It holds exactly what `member.rs` uses; when
//! `member.rs` calls something new in `membership.rs`, add it here too (the consumer page's
//! build, `cargo clippy -p offset-window-sim --no-default-features`, says so).

use super::member::{Flow, Member};
use super::world::World;
use super::{Cx, Event, Sink};
use crate::scenario::Scenario;

/// Where a classic member is in a join round: without groups, nowhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Join {
    /// Stable: nothing to do.
    None,
}

impl Join {
    /// Whether the member awaits its SyncGroup response: never without a group.
    pub(crate) fn awaits_sync_response(self) -> bool {
        false
    }
}

/// A member's group client state: the fields `member.rs` reads. Never built without groups.
#[derive(Clone, Debug)]
pub(crate) struct GroupClient {
    /// Where it is in a join round.
    pub(crate) join: Join,
    /// The classic generation the member belongs to.
    pub(crate) generation: u32,
    /// `wakeup()` was called.
    pub(crate) wakeup: bool,
}

impl GroupClient {
    /// A group client as `membership.rs` starts one (never called: no scenario is a group).
    pub(crate) fn new(_: &Scenario) -> Self {
        GroupClient { join: Join::None, generation: 1, wakeup: false }
    }
}

impl Member {
    /// The heartbeats of a member of the group at t = 0: none without a group.
    pub(crate) fn start_heartbeats_at_zero<S: Sink>(&mut self, _: &mut Cx<S>) {}

    /// What `poll()` does for the group first: nothing without a group, the poll goes on.
    pub(crate) fn group_poll<S: Sink>(&mut self, _: &mut Cx<S>, _: &mut World) -> Option<Flow> {
        None
    }

    /// Whether a `wakeup()` interrupted the call: never without a group.
    pub(crate) fn woken<S: Sink>(&mut self, _: &mut Cx<S>, _: &mut World) -> bool {
        false
    }

    /// Whether a hang holds `event` back: a hang is a group event, so never.
    pub(crate) fn deferred_by_hang<S: Sink>(&self, _: &mut Cx<S>, _: Event) -> bool {
        false
    }

    /// A group member's `close()` has returned: nothing to tell a group.
    pub(crate) fn closed_in_group<S: Sink>(&mut self, _: &mut Cx<S>, _: &mut World) {}

    /// A group member starts again: no group to join.
    pub(crate) fn start_in_group<S: Sink>(&mut self, _: &mut Cx<S>, _: &mut World) {}

    /// A group member was evicted: no group to leave.
    pub(crate) fn evicted_from_group<S: Sink>(&mut self, _: &mut Cx<S>, _: &mut World) {}
}
