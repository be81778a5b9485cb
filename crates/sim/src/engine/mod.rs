//! The discrete-event engine, sans-IO: no clock, no I/O, no recorder. It steps a queue of
//! timed events ([`queue`]) instant by instant ([`Engine::advance`]) and reports what
//! happened as typed [`Output`]s to a [`Sink`]; whoever drives it (the recorder, the
//! brute-force path) implements the sink.
//!
//! State is split by Kafka entity, each addressed by id even while there is one of each:
//! * [`member::Member`] — one consumer process: its application loop (model.md §3, §8.11),
//!   worker pool (§4), client timers and commit callbacks (§8.2, §8.8), lifecycle (§8.6,
//!   §8.7, §8.9);
//! * [`world::World`] — what the members share: the group coordinator (committed offsets
//!   per partition, generation, offset expiry), the partitions (log, durable frontier),
//!   the commit requests in flight, injected faults and record durations.
//!
//! Events at one instant run in the order of [`queue::Phase`] (model.md §8.1): lifecycle
//! first (it sees only earlier events), then pool completions and commit responses (in
//! send order), then each member's loop, then background timers. Ties inside a phase break
//! by member, then scheduling order, so a run is a pure function of its [`Scenario`].
//!
//! The engine knows nothing of crashes: a crash at T is the state after every event with
//! time < T, which [`crate::Run::state_at`] reads off the recorded step functions and
//! [`crate::crash_state_brute_force`] recomputes by stopping the engine at T.

pub(crate) mod world;
mod member;
mod queue;

use crate::output::{CommitId, MemberId, Output, PartitionId};
use crate::scenario::{format_millis, Scenario, ScenarioError, MAX_EVENTS};
use world::World;
use member::Member;
use queue::{EventQueue, Phase};

/// An event in the queue. Events of a member's earlier life (`incarnation`) are ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// A record's processing ends. `worker` is the pool thread; `None`: the loop ran it
    /// itself and resumes.
    RecordDone {
        member: MemberId,
        partition: PartitionId,
        offset: u64,
        worker: Option<u32>,
        incarnation: u32,
    },
    /// The response to commit request `commit` arrives (the commit lands, or fails).
    CommitResponse { commit: CommitId, fails: bool },
    /// A failed synchronous commit is sent again after its backoff.
    CommitRetry { commit: CommitId },
    /// The member's loop resumes (if still in the same life).
    LoopWake { member: MemberId, incarnation: u32 },
    /// model.md §8.2: the member's background auto-commit timer fires.
    BackgroundAutoCommit { member: MemberId },
    /// model.md §8.7: the member has not polled for `max.poll.interval.ms`, unless it polled since.
    PollIntervalCheck { member: MemberId },
    /// model.md §8.6: the application calls `close()`.
    Close { member: MemberId },
    /// model.md §8.9: the consumer starts again after its downtime.
    Restart { member: MemberId },
    /// model.md §8.9: the group has been empty for `offsets.retention.minutes` since
    /// `empty_since_us`: its committed offsets are deleted (unless a member came back).
    OffsetsExpire { empty_since_us: u64 },
}

/// Whoever consumes the engine's outputs (the recorder, the brute-force count). The engine
/// knows only this trait; each output is handed over at the instant it happens.
pub(crate) trait Sink {
    /// Takes in one output of the instant `at_us`.
    fn emit(&mut self, at_us: u64, output: Output);
}

/// What an entity needs to act at the current instant: the scenario, the clock, the queue
/// to schedule into and the sink to report to.
pub(crate) struct Cx<'a, S: Sink> {
    pub(crate) s: &'a Scenario,
    pub(crate) now_us: u64,
    pub(crate) queue: &'a mut EventQueue,
    out: &'a mut S,
}

impl<S: Sink> Cx<'_, S> {
    fn schedule(&mut self, at_us: u64, phase: Phase, member: MemberId, event: Event) {
        self.queue.schedule(at_us, phase, member, event);
    }

    /// Reports `output` at the current instant.
    #[inline]
    fn emit(&mut self, output: Output) {
        self.out.emit(self.now_us, output);
    }
}

/// The whole simulated world: the members, what they share, and the event queue.
pub(crate) struct Engine<'a> {
    scenario: &'a Scenario,
    now_us: u64,
    queue: EventQueue,
    members: Vec<Member>,
    world: World,
    /// Events left before the run is refused (twice [`MAX_EVENTS`]).
    budget: u64,
}

impl<'a> Engine<'a> {
    /// The world at t = 0, before any event: one member about to poll (or run its script's
    /// first step), the group's committed offset at the log start (a script's new group:
    /// none). The initial lines go to `sink` at t = 0.
    pub(crate) fn new<S: Sink>(scenario: &'a Scenario, sink: &mut S) -> Self {
        let mut queue = EventQueue::new(1);
        let mut world = World::new(scenario, 1);
        let mut cx = Cx { s: scenario, now_us: 0, queue: &mut queue, out: sink };
        world.start(&mut cx);
        let member = Member::start(&mut cx, &mut world, 0);
        Engine { scenario, now_us: 0, queue, members: vec![member], world, budget: 2 * MAX_EVENTS }
    }

    /// Processes every event of the next instant before `stop_before_us`, reporting to
    /// `sink`. Returns that instant, or `None` when no event is left before the stop.
    /// Errors when the run needs more than twice [`MAX_EVENTS`] events (the estimate that
    /// validation checks was too low): the bound that keeps every input from hanging the page.
    pub(crate) fn advance<S: Sink>(
        &mut self,
        stop_before_us: u64,
        sink: &mut S,
    ) -> Result<Option<u64>, ScenarioError> {
        let Some((at_us, first)) = self.queue.pop_before(stop_before_us) else {
            return Ok(None);
        };
        debug_assert!(at_us >= self.now_us, "time never goes backwards");
        self.now_us = at_us;
        let mut next = Some(first);
        while let Some(event) = next {
            self.budget -= 1;
            if self.budget == 0 {
                return Err(ScenarioError::whole(format!(
                    "the run passed {} events before {} ms; shorten horizon_ms or make the scenario coarser",
                    2 * MAX_EVENTS,
                    format_millis(at_us)
                )));
            }
            self.handle(event, sink);
            next = self.queue.pop_before(at_us + 1).map(|(_, event)| event);
        }
        #[cfg(debug_assertions)]
        self.check_invariants();
        Ok(Some(at_us))
    }

    /// Ends the run at `stop_us` (the stop given to [`Self::advance`]): a loop still blocked
    /// on a commit reports its wait until then; a script reports the step in progress. The
    /// outputs carry the instant of the last event processed.
    pub(crate) fn finish<S: Sink>(&mut self, stop_us: u64, sink: &mut S) {
        let mut cx = Cx { s: self.scenario, now_us: self.now_us, queue: &mut self.queue, out: sink };
        for member in &mut self.members {
            member.finish(&mut cx, stop_us);
        }
    }

    fn handle<S: Sink>(&mut self, event: Event, sink: &mut S) {
        let mut cx = Cx { s: self.scenario, now_us: self.now_us, queue: &mut self.queue, out: sink };
        let world = &mut self.world;
        match event {
            Event::RecordDone { member, partition, offset, worker, incarnation } => self.members
                [member as usize]
                .record_done(&mut cx, world, partition, offset, worker, incarnation),
            Event::CommitResponse { commit, fails } => {
                let member = world.commits.get(commit).member;
                self.members[member as usize].commit_response(&mut cx, world, commit, fails)
            }
            Event::CommitRetry { commit } => {
                let member = world.commits.get(commit).member;
                self.members[member as usize].commit_retry(&mut cx, world, commit)
            }
            Event::LoopWake { member, incarnation } => {
                self.members[member as usize].wake(&mut cx, world, incarnation)
            }
            Event::BackgroundAutoCommit { member } => {
                self.members[member as usize].background_auto_commit(&mut cx, world)
            }
            Event::PollIntervalCheck { member } => {
                self.members[member as usize].check_poll_interval(&mut cx, world)
            }
            Event::Close { member } => self.members[member as usize].close(&mut cx, world),
            Event::Restart { member } => self.members[member as usize].restart(&mut cx, world),
            Event::OffsetsExpire { empty_since_us } => world.expire_offsets(&mut cx, empty_since_us),
        }
    }

    /// The invariants every instant must keep (debug builds only).
    #[cfg(debug_assertions)]
    fn check_invariants(&self) {
        for member in &self.members {
            member.check_invariants(&self.queue);
        }
        self.world.check_invariants();
    }
}
