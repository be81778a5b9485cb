//! What an entity of the engine needs to act at the current instant ([`Cx`]): the scenario,
//! the clock, the queue to schedule into and the sink to report to.

use super::queue::{Event, EventQueue, Phase};
use crate::output::{MemberId, Output, Sink};
use crate::scenario::Scenario;

/// What an entity needs to act at the current instant: the scenario, the clock, the queue
/// to schedule into and the sink to report to.
pub(crate) struct Cx<'a, S: Sink> {
    pub(crate) s: &'a Scenario,
    pub(crate) now_us: u64,
    pub(crate) queue: &'a mut EventQueue,
    pub(super) out: &'a mut S,
}

impl<S: Sink> Cx<'_, S> {
    pub(super) fn schedule(&mut self, at_us: u64, phase: Phase, member: MemberId, event: Event) {
        self.queue.schedule(at_us, phase, member, event);
    }

    /// Reports `output` at the current instant.
    #[inline(always)]
    pub(super) fn emit(&mut self, output: Output) {
        self.out.emit(self.now_us, output);
    }
}
