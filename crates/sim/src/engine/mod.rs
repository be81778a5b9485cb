//! The discrete-event engine, sans-IO: no clock, no I/O, no recorder. It steps a queue of
//! timed events ([`queue`]) instant by instant ([`Engine::advance`]) and reports what
//! happened as typed [`Output`](crate::output::Output)s to a [`Sink`]; whoever drives it (the recorder, the
//! brute-force path) implements the sink.
//!
//! State is split by Kafka entity, each addressed by id even while there is one of each:
//! * [`member::Member`] — one consumer process: its application loop (model.md §3, §8.11),
//!   worker pool (§4), client timers and commit callbacks (§8.2, §8.8), lifecycle (§8.6,
//!   §8.7, §8.9) and its side of a consumer group (§10);
//! * [`world::World`] — what the members share: the group coordinator (committed offsets
//!   per partition, generation, offset expiry), the partitions (log, durable frontier),
//!   the commit requests in flight, injected faults and record durations.
//!
//! Every entity acts through a [`cx::Cx`] (the scenario, the clock, the queue, the sink)
//! and imports neither this module nor an entity that imports it back.
//!
//! Events at one instant run in the order of [`queue::Phase`] (model.md §8.1): lifecycle
//! first (it sees only earlier events), then pool completions and commit responses (in
//! send order), then each member's loop, then background timers. Ties inside a phase break
//! by member, then scheduling order, so a run is a pure function of its [`Scenario`].
//!
//! The engine knows nothing of crashes: a crash at T is the state after every event with
//! time < T, which [`crate::Run::state_at`] reads off the recorded step functions and
//! [`crate::crash_state_brute_force`] recomputes by stopping the engine at T.

#[cfg(feature = "group")]
mod assignor;
mod clients;
mod coordinator;
mod cx;
mod frontier;
// Without the `group` feature, what only a group calls in here is dead code.
#[cfg_attr(not(feature = "group"), allow(dead_code))]
mod member;
mod pool;
mod queue;
#[cfg(feature = "group")]
mod rdk_wakes;
#[cfg(feature = "group")]
mod share_consumer;
#[cfg(feature = "group")]
mod share_partition;
mod sort;
mod world;

#[cfg(feature = "group")]
use crate::events::GroupEventKind;
use crate::output::{EventKey, MemberId, Sink, FINISH_KEY, SETUP_KEY};
use crate::scenario::{format_millis, Scenario, ScenarioError, MAX_EVENTS};
use cx::Cx;
use member::Member;
#[cfg(feature = "group")]
use queue::Phase;
use queue::{Event, EventQueue};
#[cfg(feature = "group")]
use share_consumer::ShareConsumer;
use world::{World, BUDGET_MARGIN};

/// The whole simulated world: the members, what they share, and the event queue.
#[derive(Clone)]
pub(crate) struct Engine<'a> {
    scenario: &'a Scenario,
    now_us: u64,
    queue: EventQueue,
    members: Vec<Member>,
    /// A share group's consumers (model.md §11); then `members` is empty.
    #[cfg(feature = "group")]
    share_consumers: Vec<ShareConsumer>,
    world: World,
    /// Events left before the run is refused (twice [`MAX_EVENTS`], or twice the bound
    /// given to [`Engine::with_event_bound`]).
    budget: u64,
    /// The bound the budget is twice of.
    bound: u64,
    /// A group event the run could not apply (model.md §10.3: aimed at a member that is down).
    error: Option<ScenarioError>,
}

/// Whether the engine may run a poll's records as one event (a batch): only where a run keeps
/// its steps and marks as ramps (`compact-runs`: the CLI and the benchmark). A constant, so
/// that the pages, built without it, carry none of the batches' code.
const BATCHES: bool = cfg!(feature = "compact-runs");

impl<'a> Engine<'a> {
    /// The world at t = 0, before any event: one member about to poll (or run its script's
    /// first step), the group's committed offset at the log start (a script's new group:
    /// none); or a consumer group with its first assignment (model.md §10.4: it exists at
    /// t = 0 with no round trips) and its `group_events` scheduled. The initial lines go to
    /// `sink` at t = 0.
    pub(crate) fn new<S: Sink>(scenario: &'a Scenario, sink: &mut S) -> Self {
        let s = scenario;
        sink.event(SETUP_KEY);
        let members = s.member_count() as usize;
        let mut queue = EventQueue::new(members);
        let mut world = World::new(s, s.partitions as usize);
        let mut cx = Cx { s, now_us: 0, queue: &mut queue, out: sink };
        world.start(&mut cx);
        #[cfg(feature = "group")]
        let mut share_consumers = Vec::new();
        #[cfg(feature = "group")]
        let members = if s.share_group() {
            share_consumers = (0..members as MemberId)
                .map(|id| ShareConsumer::start(&mut cx, id, (id as u32) < s.members))
                .collect();
            schedule_group_events(&mut cx);
            Vec::new()
        } else if s.group_mode() {
            let present = member::initial_members(s);
            let assignment = world.coordinator.start_group(&mut cx, &present);
            let members = (0..members as MemberId)
                .map(|id| {
                    Member::start_in_group_at_zero(
                        &mut cx,
                        &world,
                        id,
                        assignment.get(id as usize).map(Vec::as_slice),
                    )
                })
                .collect();
            schedule_group_events(&mut cx);
            members
        } else {
            vec![Member::start(&mut cx, &mut world, 0)]
        };
        // Without groups, validation has refused any scenario of more than one consumer.
        #[cfg(not(feature = "group"))]
        let members = vec![Member::start(&mut cx, &mut world, 0)];
        // A batch's marks are placed after the fact: only a log kept as ramps can. (A share
        // group's consumers run no batches.)
        world.batches.enabled = BATCHES && !members.is_empty();
        Engine {
            scenario,
            now_us: 0,
            queue,
            members,
            #[cfg(feature = "group")]
            share_consumers,
            world,
            budget: 2 * MAX_EVENTS,
            bound: MAX_EVENTS,
            error: None,
        }
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
        let Some((at_us, first, key)) = self.queue.pop_before(stop_before_us) else {
            // The batches' records before the stop are the run's too.
            if self.world.batches.pending > 0 {
                let mut cx =
                    Cx { s: self.scenario, now_us: stop_before_us, queue: &mut self.queue, out: sink };
                Self::settle_all(&mut self.members, &mut cx, &mut self.world, SETUP_KEY);
                self.budget -= std::mem::take(&mut self.world.batches.settled);
            }
            return Ok(None);
        };
        debug_assert!(at_us >= self.now_us, "time never goes backwards");
        self.now_us = at_us;
        let mut next = Some((first, key));
        while let Some((event, key)) = next {
            self.budget -= 1;
            if self.budget == 0 {
                return Err(ScenarioError::whole(format!(
                    "the run passed {} events before {} ms; shorten horizon_ms or make the scenario coarser",
                    2 * self.bound,
                    format_millis(at_us)
                )));
            }
            sink.event(key);
            let observed = if BATCHES && self.world.batches.pending > 0 {
                self.settle_for(event, key, sink)
            } else {
                None
            };
            self.world.batches.budget = self.budget;
            self.handle(event, key, sink);
            if BATCHES && self.world.batches.enabled {
                self.rebatch(event, observed, sink);
            }
            self.budget -= std::mem::take(&mut self.world.batches.settled);
            next = self.queue.pop_before(at_us + 1).map(|(_, event, key)| (event, key));
        }
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        #[cfg(debug_assertions)]
        self.check_invariants();
        Ok(Some(at_us))
    }

    /// Events processed so far.
    #[cfg(feature = "group")]
    pub(crate) fn events(&self) -> u64 {
        2 * self.bound - self.budget
    }

    /// The instant of the next event, if any.
    #[cfg(feature = "group")]
    pub(crate) fn next_instant(&self) -> Option<u64> {
        self.queue.next_at()
    }

    /// Goes on as a run of `scenario` would, which differs from the engine's own only in
    /// the instant of group event `index` (not yet happened): its queued events move to
    /// their new instants (the sweep's prefix reuse, model.md §10.7).
    #[cfg(feature = "group")]
    pub(crate) fn move_group_event(&mut self, scenario: &'a Scenario, index: u16) {
        self.scenario = scenario;
        let event = scenario.group_events[index as usize];
        self.queue.retime(|queued| match *queued {
            Event::Group { index: i, member } if i == index => Some(match event.kind {
                GroupEventKind::Deploy => event.deploy_shutdown_at_us(member + 1),
                _ => event.at_us,
            }),
            _ => None,
        });
    }

    /// Lets the run pass twice `bound` events, not twice [`MAX_EVENTS`] (a consumer group's
    /// result JSON, [`Scenario::events_bound`]).
    #[cfg(feature = "group")]
    pub(crate) fn with_event_bound(mut self, bound: u64) -> Self {
        self.budget = 2 * bound - (2 * self.bound - self.budget);
        self.bound = bound;
        self
    }

    /// Sends every record through the loop's step machine (for the test that the fast path
    /// of [`Member::record_done`] changes nothing).
    #[cfg(test)]
    pub(crate) fn without_fast_path(mut self) -> Self {
        self.members.iter_mut().for_each(|m| m.fast_path = false);
        self.without_batches()
    }

    /// Runs every record of the fast path as its own event (the engine's batches off):
    /// the engine then counts each, as the sweep's plan reads them (model.md §10.7).
    #[cfg(any(test, feature = "group"))]
    pub(crate) fn without_batches(mut self) -> Self {
        self.world.batches.enabled = false;
        self
    }

    /// Settles what the event `event` (of key `key`, at the current instant) can observe of
    /// the batches (model.md §8.1): its member's batch, which goes back to one event per
    /// record, and the records of other members' batches on the partitions it may report
    /// about; every batch for an event of no one member (the coordinator's, a group event's),
    /// and as the event budget nears its end.
    /// Returns whom the event observes: `Some(None)` everyone.
    fn settle_for<S: Sink>(&mut self, event: Event, key: EventKey, sink: &mut S) -> Option<Option<MemberId>> {
        let mut cx = Cx { s: self.scenario, now_us: self.now_us, queue: &mut self.queue, out: sink };
        let world = &mut self.world;
        let near_end = self.budget < world.batches.reserved + BUDGET_MARGIN;
        let member = match event {
            // A classic member's heartbeat that finds no rebalance only refreshes its session
            // and schedules the next one: it reads nothing of the loop.
            #[cfg(feature = "group")]
            Event::Heartbeat { member, seq }
                if !near_end
                    && self.members[member as usize].heartbeat_is_quiet(self.scenario, world, seq) =>
            {
                return None;
            }
            Event::RecordDone { member, .. }
            | Event::LoopWake { member, .. }
            | Event::BackgroundAutoCommit { member }
            | Event::PollIntervalCheck { member }
            | Event::Close { member }
            | Event::Restart { member }
            | Event::Heartbeat { member, .. }
            | Event::JoinLands { member, .. }
            | Event::SyncLands { member, .. }
            | Event::RdkJoin { member, .. }
            | Event::HangEnds { member } => Some(member),
            Event::CommitResponse { commit, .. } | Event::CommitRetry { commit } => {
                Some(world.commits.get(commit).member)
            }
            // A session check that finds the session alive only reschedules itself.
            #[cfg(feature = "group")]
            Event::SessionCheck { member, incarnation }
                if !near_end
                    && world.coordinator.session_check_is_quiet(
                        self.scenario,
                        member,
                        incarnation,
                        self.now_us,
                    ) =>
            {
                return None;
            }
            _ => None,
        };
        // A consumer-protocol heartbeat, a join or a sync may hand the member partitions
        // another member still runs records of.
        #[cfg(feature = "group")]
        let hands_out = match event {
            Event::Heartbeat { .. } => self.scenario.consumer_protocol(),
            Event::JoinLands { .. } | Event::SyncLands { .. } | Event::RdkJoin { .. } => true,
            _ => false,
        };
        #[cfg(not(feature = "group"))]
        let hands_out = false;
        let Some(member) = member.filter(|_| !near_end && !hands_out) else {
            Self::settle_all(&mut self.members, &mut cx, world, key);
            return Some(None);
        };
        self.members[member as usize].settle(&mut cx, world, key, true);
        if world.batches.pending == 0 {
            return Some(Some(member));
        }
        let mut others = Vec::new();
        let commit = match event {
            Event::CommitResponse { commit, .. } | Event::CommitRetry { commit } => Some(commit),
            _ => None,
        };
        let in_commit = commit.map(|c| world.commits.offsets(c)).unwrap_or_default();
        for partition in
            self.members[member as usize].partitions_in_reach().chain(in_commit.iter().map(|&(p, _)| p))
        {
            if let Some(owner) = world.batches.owner[partition as usize] {
                others.push(owner);
            }
        }
        for owner in others {
            self.members[owner as usize].settle(&mut cx, world, key, false);
        }
        Some(Some(member))
    }

    /// After event `event`, which observed `observed` ([`Self::settle_for`]; `None` when no
    /// batch was pending), or a response delivered to every member: the records in hand of
    /// the members it observed go on as batches again where the fast path would run them.
    fn rebatch<S: Sink>(&mut self, event: Event, observed: Option<Option<MemberId>>, sink: &mut S) {
        let mut cx = Cx { s: self.scenario, now_us: self.now_us, queue: &mut self.queue, out: sink };
        let world = &mut self.world;
        let all = std::mem::take(&mut world.batches.settled_all);
        let member = match (observed, event) {
            _ if all => None,
            (Some(None), _) => None,
            (Some(Some(member)), _) => Some(member),
            (
                None,
                Event::RecordDone { member, .. }
                | Event::LoopWake { member, .. }
                | Event::Heartbeat { member, .. }
                | Event::BackgroundAutoCommit { member },
            ) => Some(member),
            (None, Event::CommitResponse { commit, .. }) => Some(world.commits.get(commit).member),
            _ => return,
        };
        match member {
            Some(member) => self.members[member as usize].rebatch(&mut cx, world),
            None => self.members.iter_mut().for_each(|m| m.rebatch(&mut cx, world)),
        }
    }

    /// Settles every batch as of the event of key `key` at the current instant, each going
    /// back to one event per record.
    fn settle_all<S: Sink>(members: &mut [Member], cx: &mut Cx<S>, world: &mut World, key: EventKey) {
        world.batches.settled_all = true;
        for member in members.iter_mut() {
            if world.batches.pending == 0 {
                return;
            }
            member.settle(cx, world, key, true);
        }
    }

    /// Ends the run at `stop_us` (the stop given to [`Self::advance`]): a loop still blocked
    /// on a commit reports its wait until then; a script reports the step in progress. The
    /// outputs carry the instant of the last event processed.
    pub(crate) fn finish<S: Sink>(&mut self, stop_us: u64, sink: &mut S) {
        sink.event(FINISH_KEY);
        let mut cx = Cx { s: self.scenario, now_us: self.now_us, queue: &mut self.queue, out: sink };
        for member in &mut self.members {
            member.finish(&mut cx, stop_us);
        }
        #[cfg(feature = "group")]
        for consumer in &mut self.share_consumers {
            consumer.finish(&mut cx, stop_us);
        }
    }

    fn handle<S: Sink>(&mut self, event: Event, key: EventKey, sink: &mut S) {
        #[cfg(not(feature = "group"))]
        let _ = key; // only a group's join and sync responses settle batches
        let mut cx = Cx { s: self.scenario, now_us: self.now_us, queue: &mut self.queue, out: sink };
        let world = &mut self.world;
        #[cfg(feature = "group")]
        if !self.share_consumers.is_empty() {
            return Self::handle_share(&mut self.share_consumers, &mut self.error, &mut cx, world, event);
        }
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
            Event::OffsetsExpire { empty_since_us } => {
                world.coordinator.expire_offsets(&mut cx, empty_since_us)
            }
            #[cfg(feature = "group")]
            group_only => Self::handle_group(&mut self.members, &mut self.error, &mut cx, world, group_only),
            // Without groups nothing schedules the other events.
            #[cfg(not(feature = "group"))]
            _ => {}
        }
        // Join rounds the event completed: each member gets its JoinGroup response now; a
        // leader's SyncGroup answers the followers waiting for it.
        #[cfg(feature = "group")]
        Self::deliver_responses(&mut self.members, &mut cx, world, key);
    }

    /// The JoinGroup responses and SyncGroup answers the coordinator holds for members now
    /// (model.md §10.5).
    #[cfg(feature = "group")]
    fn deliver_responses<S: Sink>(members: &mut [Member], cx: &mut Cx<S>, world: &mut World, key: EventKey) {
        if world.coordinator.has_join_responses() {
            for (member, process) in world.coordinator.take_join_responses() {
                if world.batches.pending > 0 {
                    Self::settle_all(members, cx, world, key);
                }
                let m = &mut members[member as usize];
                if m.process == process {
                    m.join_response(cx, world);
                }
            }
        }
        if world.coordinator.has_sync_responses() {
            for (member, process, assignment) in world.coordinator.take_sync_responses() {
                if world.batches.pending > 0 {
                    Self::settle_all(members, cx, world, key);
                }
                let m = &mut members[member as usize];
                if m.process == process {
                    m.synced(cx, world, assignment);
                }
            }
        }
    }

    /// An event only a consumer group schedules (model.md §10).
    #[cfg(feature = "group")]
    fn handle_group<S: Sink>(
        members: &mut [Member],
        error: &mut Option<ScenarioError>,
        cx: &mut Cx<S>,
        world: &mut World,
        event: Event,
    ) {
        match event {
            Event::Heartbeat { member, seq } => members[member as usize].heartbeat(cx, world, seq),
            Event::SessionCheck { member, incarnation } => {
                world.coordinator.session_check(cx, member, incarnation)
            }
            Event::RebalanceTimeout { round } => world.coordinator.rebalance_timeout(cx, round),
            Event::InitialDelayOver { round } => world.coordinator.initial_delay_over(cx, round),
            Event::JoinLands { member, process, first } => {
                members[member as usize].join_lands(cx, world, process, first)
            }
            Event::SyncLands { member, process } => members[member as usize].sync_lands(cx, world, process),
            Event::RdkJoin { member, seq } => members[member as usize].rdk_join(cx, world, seq),
            Event::Group { index, member } => {
                if let Err(e) = members[member as usize].group_event(cx, world, index) {
                    error.get_or_insert(e);
                }
            }
            Event::HangEnds { member } => members[member as usize].hang_ends(cx),
            // The one consumer's events are handled by `handle`; AcksLand and LockExpires are a
            // share group's.
            _ => unreachable!("not a consumer group's event"),
        }
    }

    /// An event of a share group (model.md §11).
    #[cfg(feature = "group")]
    fn handle_share<S: Sink>(
        consumers: &mut [ShareConsumer],
        error: &mut Option<ScenarioError>,
        cx: &mut Cx<S>,
        world: &mut World,
        event: Event,
    ) {
        // A lock running out, a RELEASE landing and a member leaving offer records again.
        let offers =
            matches!(event, Event::LockExpires { .. } | Event::AcksLand { .. } | Event::Group { .. });
        match event {
            Event::RecordDone { member, partition, offset, incarnation, .. } => {
                consumers[member as usize].record_done(cx, world, partition, offset, incarnation)
            }
            Event::LoopWake { member, incarnation } => {
                consumers[member as usize].wake(cx, world, incarnation)
            }
            Event::AcksLand { member, request } => {
                consumers[member as usize].acks_land(cx, world, request as usize)
            }
            Event::LockExpires { partition, offset, delivery } => {
                world.share[partition as usize].lock_expired(cx, offset, delivery)
            }
            Event::ShareRenew { member, batch } => consumers[member as usize].renew(cx, world, batch),
            Event::Group { index, member } => {
                if let Err(e) = consumers[member as usize].group_event(cx, world, index) {
                    error.get_or_insert(e);
                }
            }
            Event::HangEnds { member } => consumers[member as usize].hang_ends(cx),
            Event::Restart { member } => consumers[member as usize].restart(cx),
            // No `{other:?}` in the message: it kept `Event`'s Debug (and the standard library's
            // struct formatting) in the group page for a panic that never happens.
            _ => unreachable!("a share group schedules no such event"),
        }
        if offers {
            // Records offered again go to a `ShareFetch` waiting for some (model.md §11.3).
            for consumer in consumers.iter_mut() {
                consumer.fetch_waiting(cx, world);
            }
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

/// Schedules `group_events` (model.md §10.3): each at its instant for its member; a deploy
/// reaches each member in turn, `deploy_step_ms` apart.
#[cfg(feature = "group")]
fn schedule_group_events<S: Sink>(cx: &mut Cx<S>) {
    let s = cx.s;
    for (index, event) in s.group_events.iter().enumerate() {
        let index = index as u16;
        match event.kind {
            GroupEventKind::Deploy => {
                for n in 1..=s.members as u16 {
                    let at_us = event.deploy_shutdown_at_us(n);
                    cx.schedule(at_us, Phase::Lifecycle, n - 1, Event::Group { index, member: n - 1 });
                }
            }
            _ => cx.schedule(
                event.at_us,
                Phase::Lifecycle,
                event.member - 1,
                Event::Group { index, member: event.member - 1 },
            ),
        }
    }
}
