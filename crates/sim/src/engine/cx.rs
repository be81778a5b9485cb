//! What an entity of the engine needs to act at the current instant ([`Cx`]): the scenario,
//! the clock, the queue to schedule into and the sink to report to.

use super::queue::{Event, EventQueue, Phase};
use crate::output::{EventKey, MemberId, Output, PartitionId, Sink};
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

    /// Reports a batch's completed run of instant `at_us` and event key `key`, settled now
    /// (the batch's runs `every_us` apart).
    #[inline(always)]
    pub(super) fn emit_settled(&mut self, at_us: u64, key: EventKey, every_us: u64, output: Output) {
        self.out.settled(at_us, key, self.now_us, every_us, output);
    }

    /// Tells the sink where the batch on `partition` stands (its next unsettled run).
    #[inline(always)]
    pub(super) fn batch_pending(&mut self, partition: PartitionId, next: Option<(u64, EventKey)>) {
        self.out.batch_pending(partition, next);
    }
}
