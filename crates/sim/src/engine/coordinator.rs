//! The group coordinator (model.md §10): the committed offsets, the members it knows with
//! their sessions, and the group protocol — classic join/sync rounds (Kafka
//! `GroupMetadataManager` for classic groups, `AbstractCoordinator` on the client side) or the
//! consumer protocol's target assignment reconciled at heartbeats (KIP-848,
//! `ConsumerMembershipManager`).
//!
//! The coordinator never calls a member: join rounds it completes wait in
//! [`Coordinator::take_join_responses`] for the engine to deliver, and what a member learns
//! at a heartbeat comes back as a [`Reconcile`].
//!
//! Without the `group` feature only the committed offsets and the one consumer's generation
//! are used: the membership's state is there, never read.

#![cfg_attr(not(feature = "group"), allow(dead_code))]

#[cfg(feature = "group")]
use super::assignor;
use super::cx::Cx;
use super::queue::{Event, Phase};
use crate::output::{CommitFailure, MarkKind, MemberId, Output, PartitionId, Sink};
#[cfg(feature = "group")]
use crate::scenario::{Assignor, BrokerVersion, Client};
use crate::scenario::{Scenario, US_PER_MS};

/// The group's state (classic protocol; the consumer protocol is always `Stable` or `Empty`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// No member.
    Empty,
    /// Everyone holds its assignment.
    Stable,
    /// A rebalance has started: members join; `round` tells its timeouts apart.
    Preparing { round: u32 },
    /// The join completed; members are fetching their assignment (SyncGroup). A commit that
    /// lands now is refused with REBALANCE_IN_PROGRESS (model.md §10.5).
    Completing,
}

/// A member as the coordinator knows it. A dynamic member's restart is a new entry (a new
/// member id); the old one stays until its session expires (model.md §10.3).
#[derive(Clone, Debug)]
struct Entry {
    member: MemberId,
    /// The process life the entry belongs to.
    incarnation: u32,
    is_static: bool,
    session_deadline_us: u64,
    /// The instant of its one pending session check (a check found at another instant is
    /// stale: a later one replaced it).
    session_check_us: u64,
    /// Classic: its JoinGroup arrived in the current round.
    joined: bool,
    /// Classic: what it reported holding when it joined. Consumer protocol: what it holds.
    owned: Vec<PartitionId>,
    /// Classic: its assignment in the current generation (served at SyncGroup). Consumer
    /// protocol: its target assignment.
    assignment: Vec<PartitionId>,
    /// Consumer protocol: a static member that closed (epoch −2): it keeps its partitions
    /// until its session expires.
    away: bool,
    /// Consumer protocol: the member epoch — the target epoch, once the member has nothing
    /// left to revoke (model.md §10.6).
    epoch: u32,
    /// Consumer protocol: each partition it holds, with the member epoch it got it at (its
    /// assignment epoch, KIP-1251).
    since: Vec<(PartitionId, u32)>,
    /// Classic: a member new to the group whose first join round has not completed: its
    /// JoinGroup waits at most `classicGroupNewMemberJoinTimeoutMs` and no heartbeat can keep
    /// it (model.md §10.5).
    new: bool,
}

/// Kafka's `group.classic.new.member.join.timeout.ms` default (5 minutes), µs: how long the
/// coordinator keeps a new classic member's JoinGroup (`GroupMetadataManager`
/// `addMemberThenRebalanceOrCompleteJoin`).
const NEW_MEMBER_JOIN_TIMEOUT_US: u64 = 300_000_000;

/// The answer to a SyncGroup (model.md §10.5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SyncAnswer {
    /// The member's assignment in the current generation.
    Assignment(Vec<PartitionId>),
    /// A follower's SyncGroup waits for the leader's, which carries the assignment (Kafka
    /// `GroupMetadataManager` holds it in `COMPLETING_REBALANCE`); the answer comes through
    /// [`Coordinator::take_sync_responses`].
    Parked,
}

/// What a consumer-protocol member learns at a heartbeat (model.md §10.6).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Reconcile {
    /// Partitions it must give up (pause now, `onPartitionsRevoked` in its next poll).
    pub(crate) revoke: Vec<PartitionId>,
    /// Partitions it receives now.
    pub(crate) assign: Vec<PartitionId>,
    /// Its member epoch from now on: its commits carry it.
    pub(crate) epoch: u32,
}

/// The group coordinator.
#[derive(Clone)]
pub(crate) struct Coordinator {
    committed: Vec<Option<u64>>,
    /// How many partitions have no committed offset (the engine's batches wait for none:
    /// then a restart offset may follow the log end, which the recorder reads every instant).
    uncommitted: usize,
    /// Classic: bumped when a join round completes (and, for one consumer, at an eviction,
    /// model.md §8.7). Commits of an older generation are rejected.
    generation: u32,
    state: State,
    /// In member order (the group starts so, and a join sorts its entry in): a heartbeat finds
    /// its member's by a binary search ([`Self::entry`]), not a scan of the group.
    entries: Vec<Entry>,
    /// Consumer protocol: who holds each partition until its revocation is acknowledged.
    holder: Vec<Option<MemberId>>,
    /// Consumer protocol: the target assignment's epoch, and the last epoch counted as a
    /// rebalance.
    target_epoch: u32,
    counted_epoch: u32,
    round: u32,
    /// The first join of an empty group completes no earlier than this (KIP-134's
    /// `group.initial.rebalance.delay.ms`).
    initial_delay_until_us: u64,
    empty_since_us: Option<u64>,
    /// Members whose JoinGroup response is due now (a round completed), as (member, life).
    join_responses: Vec<(MemberId, u32)>,
    /// Classic: the completed round's leader (the lowest member in it), until its SyncGroup
    /// lands.
    leader: Option<(MemberId, u32)>,
    /// Classic: followers whose SyncGroup waits for the leader's.
    parked: Vec<(MemberId, u32)>,
    /// SyncGroup answers due now, as (member, life, assignment); `None`: no longer in the
    /// round (REBALANCE_IN_PROGRESS or gone), join again.
    sync_responses: Vec<(MemberId, u32, Option<Vec<PartitionId>>)>,
}

impl Coordinator {
    /// The coordinator at t = 0 with no committed offsets and no members.
    pub(crate) fn new(partitions: usize) -> Self {
        Coordinator {
            committed: vec![None; partitions],
            uncommitted: partitions,
            generation: 0,
            state: State::Empty,
            entries: Vec::new(),
            holder: vec![None; partitions],
            target_epoch: 0,
            counted_epoch: 0,
            round: 0,
            initial_delay_until_us: 0,
            empty_since_us: None,
            join_responses: Vec::new(),
            leader: None,
            parked: Vec::new(),
            sync_responses: Vec::new(),
        }
    }

    fn partitions(&self) -> u32 {
        self.committed.len() as u32
    }

    pub(crate) fn committed(&self, partition: PartitionId) -> Option<u64> {
        self.committed[partition as usize]
    }

    /// Sets the committed offsets at t = 0 (a steady loop's group has committed the log
    /// start; a script's new group has none).
    pub(crate) fn set_committed<S: Sink>(&mut self, cx: &mut Cx<S>, offset: Option<u64>) {
        for p in 0..self.committed.len() {
            self.committed[p] = offset;
            cx.emit(Output::Committed { partition: p as PartitionId, offset });
        }
        self.uncommitted = if offset.is_none() { self.committed.len() } else { 0 };
    }

    /// Whether every partition has a committed offset.
    pub(crate) fn all_committed(&self) -> bool {
        self.uncommitted == 0
    }

    pub(crate) fn generation(&self) -> u32 {
        self.generation
    }

    /// Stores a committed offset (an OffsetCommit landed).
    pub(crate) fn store<S: Sink>(&mut self, cx: &mut Cx<S>, partition: PartitionId, offset: u64) {
        if self.committed[partition as usize].replace(offset).is_none() {
            self.uncommitted -= 1;
        }
        cx.emit(Output::Committed { partition, offset: Some(offset) });
    }

    /// Whether an OffsetCommit of `member` (life `incarnation`) sent in generation
    /// `generation` is stored when it lands, or why not (model.md §8.7, §10.5). The one-
    /// consumer model checks the generation only; a group also checks the member is still
    /// in it and that no join round is completing.
    pub(crate) fn accepts(
        &self,
        s: &Scenario,
        member: MemberId,
        incarnation: u32,
        generation: u32,
    ) -> Result<(), CommitFailure> {
        if !s.group_mode() {
            return if generation == self.generation { Ok(()) } else { Err(CommitFailure::Evicted) };
        }
        if self.entry(member, incarnation).is_none() {
            return Err(CommitFailure::Evicted);
        }
        if s.consumer_protocol() {
            return Ok(());
        }
        match self.state {
            State::Completing => Err(CommitFailure::RebalanceInProgress),
            _ if generation != self.generation => Err(CommitFailure::Evicted),
            _ => Ok(()),
        }
    }

    /// Consumer protocol: whether the broker refuses a commit of `offsets` carrying member
    /// epoch `epoch` with STALE_MEMBER_EPOCH (model.md §10.6). The member's current epoch is
    /// taken for any partition. An older one: Apache Kafka 4.3 (KIP-1251,
    /// `ConsumerGroup.validateOffsetCommit` → `createAssignmentEpochValidator`) checks each
    /// partition — held (or pending revocation) since that epoch or before — and one partition
    /// refused fails the whole request (`OffsetMetadataManager.commitOffset` validates inside its
    /// loop); 4.0–4.2 refuse it outright.
    #[cfg(feature = "group")]
    pub(crate) fn refuses_epoch(
        &self,
        s: &Scenario,
        member: MemberId,
        incarnation: u32,
        epoch: u32,
        offsets: &[(PartitionId, u64)],
    ) -> bool {
        let Some(e) = self.entry(member, incarnation).map(|i| &self.entries[i]) else { return false };
        if epoch >= e.epoch {
            return false;
        }
        let held_since = |p: PartitionId| e.since.iter().any(|&(q, at)| q == p && at <= epoch);
        s.broker_version == BrokerVersion::Kafka4_0 || !offsets.iter().all(|&(p, _)| held_since(p))
    }

    fn entry(&self, member: MemberId, incarnation: u32) -> Option<usize> {
        let is = |e: &Entry| e.member == member && e.incarnation == incarnation;
        let first = self.entries.partition_point(|e| e.member < member);
        let found =
            self.entries[first..].iter().take_while(|e| e.member == member).position(is).map(|i| first + i);
        debug_assert_eq!(found, self.entries.iter().position(is), "entries in member order");
        found
    }

    /// The one-consumer model (model.md §8.7): a member is evicted; commits of its
    /// generation will be rejected.
    pub(crate) fn evict(&mut self) {
        self.generation += 1;
    }

    /// The one-consumer model: the member is there (at t = 0, or back after its downtime).
    pub(crate) fn single_member_present(&mut self, incarnation: u32) {
        self.entries = vec![Entry {
            member: 0,
            incarnation,
            is_static: false,
            session_deadline_us: u64::MAX,

            session_check_us: u64::MAX,
            joined: true,
            owned: vec![0],
            assignment: vec![0],
            away: false,
            new: false,
            epoch: 0,
            since: Vec::new(),
        }];
        self.state = State::Stable;
        self.empty_since_us = None;
    }

    /// The one-consumer model: the member's `close()` returned.
    pub(crate) fn single_member_left<S: Sink>(&mut self, cx: &mut Cx<S>) {
        self.entries.clear();
        self.become_empty(cx);
    }

    fn become_empty<S: Sink>(&mut self, cx: &mut Cx<S>) {
        self.state = State::Empty;
        self.leader = None;
        self.parked.clear();
        self.empty_since_us = Some(cx.now_us);
        let retention_us = cx.s.offsets_retention_minutes.saturating_mul(60_000 * US_PER_MS);
        if let Some(at_us) = cx.now_us.checked_add(retention_us) {
            cx.schedule(at_us, Phase::Lifecycle, 0, Event::OffsetsExpire { empty_since_us: cx.now_us });
        }
    }

    /// model.md §8.9: the group stayed empty for the retention period: its committed offsets
    /// are deleted (KIP-211). Ignored when a member came back since `empty_since_us`.
    pub(crate) fn expire_offsets<S: Sink>(&mut self, cx: &mut Cx<S>, empty_since_us: u64) {
        if self.empty_since_us != Some(empty_since_us) {
            return;
        }
        for p in 0..self.committed.len() {
            let partition = p as PartitionId;
            if self.committed[p].take().is_some() {
                self.uncommitted += 1;
                cx.emit(Output::Committed { partition, offset: None });
                cx.emit(Output::Mark { member: 0, partition, kind: MarkKind::OffsetsExpired });
            }
        }
    }

    /// A heartbeat, JoinGroup, SyncGroup or landed OffsetCommit refreshes a member's
    /// session (model.md §10.4).
    pub(crate) fn refresh(&mut self, s: &Scenario, member: MemberId, incarnation: u32, now_us: u64) {
        if let Some(i) = self.entry(member, incarnation) {
            self.entries[i].session_deadline_us = now_us + s.session_timeout_us;
        }
    }
}

/// The group's membership: only with the `group` feature (the one-consumer model has none).
#[cfg(feature = "group")]
impl Coordinator {
    // ---------------------------------------------------------------- membership

    /// The group at t = 0 (model.md §10.4: it exists with no round trips): `members` in
    /// member order, with the first assignment. Returns each member's partitions.
    pub(crate) fn start_group<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        members: &[MemberId],
    ) -> Vec<Vec<PartitionId>> {
        let s = cx.s;
        let empty = vec![Vec::new(); members.len()];
        let assignment = if s.consumer_protocol() {
            assignor::sticky(&empty, self.partitions())
        } else {
            self.assign(s, members, &empty)
        };
        self.entries = members
            .iter()
            .zip(&assignment)
            .map(|(&member, held)| Entry {
                member,
                incarnation: 0,
                is_static: s.static_membership,
                session_deadline_us: s.session_timeout_us,

                session_check_us: u64::MAX,
                joined: false,
                owned: held.clone(),
                assignment: held.clone(),
                away: false,
                new: false,
                epoch: 1,
                since: held.iter().map(|&p| (p, 1)).collect(),
            })
            .collect();
        for (&member, held) in members.iter().zip(&assignment) {
            for &p in held {
                self.holder[p as usize] = Some(member);
            }
            self.schedule_session_check(cx, member, 0, s.session_timeout_us);
        }
        self.generation = 1;
        self.target_epoch = 1;
        self.counted_epoch = 1;
        self.state = State::Stable;
        assignment
    }

    /// The classic assignment of `members` (member order) holding `owned` now.
    fn assign(
        &self,
        s: &Scenario,
        members: &[MemberId],
        owned: &[Vec<PartitionId>],
    ) -> Vec<Vec<PartitionId>> {
        match s.assignment_strategy {
            Assignor::Range if s.client == Client::KafkaGo => {
                assignor::range_kafka_go(members, self.partitions())
            }
            Assignor::Range => assignor::range(members, self.partitions()),
            Assignor::RoundRobin => assignor::round_robin(members, self.partitions()),
            // librdkafka's leader runs its own port of the sticky assignor (model.md §10.2).
            Assignor::CooperativeSticky if s.client.is_librdkafka() => {
                assignor::sticky_librdkafka(owned, self.partitions())
            }
            Assignor::CooperativeSticky => assignor::sticky(owned, self.partitions()),
        }
    }

    fn schedule_session_check<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        member: MemberId,
        incarnation: u32,
        at_us: u64,
    ) {
        if let Some(i) = self.entry(member, incarnation) {
            self.entries[i].session_check_us = at_us;
        }
        cx.schedule(at_us, Phase::Lifecycle, member, Event::SessionCheck { member, incarnation });
    }

    /// The session check of a member: if it was not refreshed, the coordinator drops it
    /// (model.md §10.3), which starts a rebalance. Returns a join round it completes.
    /// Whether the session check of `member` (life `incarnation`) at `now_us` only looks:
    /// no session ends (as [`Coordinator::session_check`] decides it), so it reports
    /// nothing and changes no member.
    #[cfg(feature = "group")]
    pub(crate) fn session_check_is_quiet(
        &self,
        s: &Scenario,
        member: MemberId,
        incarnation: u32,
        now_us: u64,
    ) -> bool {
        let Some(i) = self.entry(member, incarnation) else { return true };
        self.entries[i].session_check_us != now_us
            || now_us < self.entries[i].session_deadline_us
            || self.awaits_response(i, s)
    }

    pub(crate) fn session_check<S: Sink>(&mut self, cx: &mut Cx<S>, member: MemberId, incarnation: u32) {
        let Some(i) = self.entry(member, incarnation) else { return };
        if self.entries[i].session_check_us != cx.now_us {
            return; // replaced by a check at another instant
        }
        let deadline = self.entries[i].session_deadline_us;
        if cx.now_us < deadline {
            self.schedule_session_check(cx, member, incarnation, deadline);
            return;
        }
        if self.awaits_response(i, cx.s) {
            // `ClassicGroupMember.hasSatisfiedHeartbeat`: a member awaiting its JoinGroup or
            // SyncGroup response satisfies its heartbeats (its heartbeat thread is paused).
            let deadline = cx.now_us + cx.s.session_timeout_us;
            self.entries[i].session_deadline_us = deadline;
            self.schedule_session_check(cx, member, incarnation, deadline);
            return;
        }
        cx.emit(Output::Mark { member, partition: 0, kind: MarkKind::SessionExpired });
        self.remove(cx, i);
    }

    /// Whether classic entry `i` awaits a response the coordinator holds back: its JoinGroup in
    /// a round under way (unless it is new to the group), or its SyncGroup parked until the
    /// leader's (model.md §10.5).
    fn awaits_response(&self, i: usize, s: &Scenario) -> bool {
        let e = &self.entries[i];
        if s.consumer_protocol() {
            return false;
        }
        match self.state {
            State::Preparing { .. } => e.joined && !e.new,
            State::Completing => self.parked.contains(&(e.member, e.incarnation)),
            _ => false,
        }
    }

    /// The members whose JoinGroup response is due now, in member order.
    /// Whether a join round completed and its members wait for their responses.
    #[inline(always)]
    pub(crate) fn has_join_responses(&self) -> bool {
        !self.join_responses.is_empty()
    }

    pub(crate) fn take_join_responses(&mut self) -> Vec<(MemberId, u32)> {
        let mut due = std::mem::take(&mut self.join_responses);
        super::sort::by_key(&mut due, |&d| d);
        due
    }

    /// Removes entry `i` (expired, left, or dropped) and lets the group react: the consumer
    /// protocol frees its partitions and recomputes the target; a classic group rebalances.
    fn remove<S: Sink>(&mut self, cx: &mut Cx<S>, i: usize) {
        let gone = self.entries.remove(i);
        for p in &gone.owned {
            if self.holder[*p as usize] == Some(gone.member) {
                self.holder[*p as usize] = None;
            }
        }
        if self.entries.is_empty() {
            self.become_empty(cx);
        } else if cx.s.consumer_protocol() {
            self.retarget();
        } else if let State::Preparing { .. } = self.state {
            self.try_complete(cx);
        } else {
            self.start_rebalance(cx);
        }
    }

    /// A dynamic member's LeaveGroup (its `close()` returned, or its poll timer expired).
    pub(crate) fn leave<S: Sink>(&mut self, cx: &mut Cx<S>, member: MemberId, incarnation: u32) {
        if let Some(i) = self.entry(member, incarnation) {
            self.remove(cx, i);
        }
    }

    /// A static member under the consumer protocol closed (epoch −2): it keeps its
    /// partitions until its session expires.
    pub(crate) fn static_away(&mut self, member: MemberId, incarnation: u32) {
        if let Some(i) = self.entry(member, incarnation) {
            self.entries[i].away = true;
        }
    }

    // ---------------------------------------------------------------- classic rounds

    fn start_rebalance<S: Sink>(&mut self, cx: &mut Cx<S>) {
        // Followers still waiting for the leader's SyncGroup are told to join again.
        self.leader = None;
        let parked = std::mem::take(&mut self.parked);
        self.sync_responses.extend(parked.into_iter().map(|(m, life)| (m, life, None)));
        self.round += 1;
        self.state = State::Preparing { round: self.round };
        for e in &mut self.entries {
            e.joined = false;
        }
        // Dynamic members that have not joined within the rebalance timeout are dropped.
        cx.schedule(
            cx.now_us + cx.s.max_poll_interval_us,
            Phase::Lifecycle,
            0,
            Event::RebalanceTimeout { round: self.round },
        );
    }

    /// Whether a classic member must (re)join: a rebalance is under way that it has not
    /// joined yet. Its heartbeat tells it (model.md §10.5).
    pub(crate) fn rebalance_pending(&self, member: MemberId, incarnation: u32) -> bool {
        matches!(self.state, State::Preparing { .. })
            && self.entry(member, incarnation).is_some_and(|i| !self.entries[i].joined)
    }

    /// A JoinGroup of a classic member lands. A static member within its session gets its
    /// assignment back with no rebalance (KIP-345): then it alone completes at once.
    pub(crate) fn join<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        member: MemberId,
        incarnation: u32,
        owned: Vec<PartitionId>,
    ) {
        let s = cx.s;
        let session_deadline_us = cx.now_us + s.session_timeout_us;
        // Only a static member's entry outlives its life (no scan of the group for a dynamic one).
        let back = s.static_membership.then(|| {
            self.entries
                .iter()
                .position(|e| e.member == member && e.is_static && e.incarnation != incarnation)
        });
        if let Some(i) = back.flatten() {
            // A static member back within its session: same entry, new life.
            let e = &mut self.entries[i];
            e.incarnation = incarnation;
            e.session_deadline_us = session_deadline_us;
            let stable = self.state == State::Stable;
            e.joined |= stable;
            self.schedule_session_check(cx, member, incarnation, session_deadline_us);
            if stable {
                self.join_responses.push((member, incarnation));
                return;
            }
        }
        match self.entry(member, incarnation) {
            Some(i) => {
                self.entries[i].joined = true;
                self.entries[i].owned = owned;
                self.entries[i].session_deadline_us = session_deadline_us;
            }
            None => {
                // A new member cannot heartbeat yet: its JoinGroup is timed out separately.
                let deadline = cx.now_us + NEW_MEMBER_JOIN_TIMEOUT_US.max(s.session_timeout_us);
                self.entries.push(Entry {
                    member,
                    incarnation,
                    is_static: s.static_membership,
                    session_deadline_us: deadline,

                    session_check_us: u64::MAX,
                    joined: true,
                    owned,
                    assignment: Vec::new(),
                    away: false,
                    new: true,
                    epoch: 0,
                    since: Vec::new(),
                });
                super::sort::by_key(&mut self.entries, |e| e.member);
                self.schedule_session_check(cx, member, incarnation, deadline);
            }
        }
        match self.state {
            State::Empty => {
                // KIP-134: the first join of an empty group waits for others to arrive.
                self.empty_since_us = None;
                self.initial_delay_until_us = cx.now_us + s.initial_rebalance_delay_us;
                self.start_rebalance(cx);
                self.entries
                    .iter_mut()
                    .for_each(|e| e.joined = e.member == member && e.incarnation == incarnation);
                cx.schedule(
                    self.initial_delay_until_us,
                    Phase::Lifecycle,
                    0,
                    Event::InitialDelayOver { round: self.round },
                );
            }
            State::Stable | State::Completing => {
                self.start_rebalance(cx);
                let i = self.entry(member, incarnation).expect("just joined");
                self.entries[i].joined = true;
                self.try_complete(cx);
            }
            State::Preparing { .. } => self.try_complete(cx),
        }
    }

    /// The rebalance timeout of round `round`: dynamic members that have not joined are
    /// dropped, and the round completes with those that did.
    pub(crate) fn rebalance_timeout<S: Sink>(&mut self, cx: &mut Cx<S>, round: u32) {
        if self.state != (State::Preparing { round }) {
            return;
        }
        self.entries.retain(|e| e.joined || e.is_static);
        if self.entries.is_empty() {
            self.become_empty(cx);
        } else {
            self.try_complete(cx);
        }
    }

    /// The initial rebalance delay of round `round` ended.
    pub(crate) fn initial_delay_over<S: Sink>(&mut self, cx: &mut Cx<S>, round: u32) {
        if self.state == (State::Preparing { round }) {
            self.try_complete(cx);
        }
    }

    /// What each member's JoinGroup claims to hold, as the sticky assignors read it: a member
    /// the group removed while it worked (its rebalance timeout ran out) joins again as new,
    /// with no generation, still claiming what it held; Kafka's `AbstractStickyAssignor`
    /// ignores the claims of a generation older than the newest (kafka-clients 4.3.1,
    /// `allSubscriptionsEqual`), so a partition a member of the group claims is not the new
    /// one's. Elsewhere the claims are what the members hold.
    fn claims(&self) -> Vec<Vec<PartitionId>> {
        let mut held = vec![false; self.partitions() as usize];
        for p in self.entries.iter().filter(|e| !e.new).flat_map(|e| &e.owned) {
            if let Some(h) = held.get_mut(*p as usize) {
                *h = true;
            }
        }
        self.entries
            .iter()
            .map(|e| {
                let mut claim = e.owned.clone();
                if e.new {
                    claim.retain(|&p| !held.get(p as usize).copied().unwrap_or(false));
                }
                claim
            })
            .collect()
    }

    /// Completes the join round if every member has joined (and the initial delay passed):
    /// a new generation and its assignment (model.md §10.5).
    fn try_complete<S: Sink>(&mut self, cx: &mut Cx<S>) {
        let all_joined = self.entries.iter().all(|e| e.joined);
        if !all_joined || cx.now_us < self.initial_delay_until_us || self.entries.is_empty() {
            return;
        }
        let s = cx.s;
        self.generation += 1;
        let members: Vec<MemberId> = self.entries.iter().map(|e| e.member).collect();
        let owned: Vec<Vec<PartitionId>> = self.entries.iter().map(|e| e.owned.clone()).collect();
        let mut assignment = self.assign(s, &members, &self.claims());
        if s.assignment_strategy == Assignor::CooperativeSticky {
            // A partition still held by another member is withheld from its new owner this
            // round: its holder revokes it, rejoins, and the next round hands it over.
            for (i, target) in assignment.iter_mut().enumerate() {
                target.retain(|p| owned.iter().enumerate().all(|(j, held)| j == i || !held.contains(p)));
            }
        }
        // `completeClassicGroupJoin` restarts every member's session; a new member's, timed by
        // the join timeout until now, is checked from here on like the others'.
        let session_deadline_us = cx.now_us + s.session_timeout_us;
        for (e, a) in self.entries.iter_mut().zip(assignment) {
            e.assignment = a;
            e.joined = false;
            e.new = false;
            e.session_deadline_us = session_deadline_us;
        }
        let checks: Vec<_> = self
            .entries
            .iter()
            .filter(|e| e.session_check_us > session_deadline_us)
            .map(|e| (e.member, e.incarnation))
            .collect();
        for (member, incarnation) in checks {
            self.schedule_session_check(cx, member, incarnation, session_deadline_us);
        }
        self.state = State::Completing;
        self.leader = self.entries.first().map(|e| (e.member, e.incarnation));
        self.join_responses.extend(self.entries.iter().map(|e| (e.member, e.incarnation)));
    }

    /// A SyncGroup lands (`None` when the member is no longer in the group). In a completing
    /// round a follower waits for the leader's SyncGroup (model.md §10.5); the leader's makes
    /// the group stable, counts the rebalance and answers the followers waiting.
    pub(crate) fn sync<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        member: MemberId,
        incarnation: u32,
    ) -> Option<SyncAnswer> {
        let i = self.entry(member, incarnation)?;
        if self.state == State::Completing {
            if self.leader != Some((member, incarnation)) {
                self.parked.push((member, incarnation));
                return Some(SyncAnswer::Parked);
            }
            self.state = State::Stable;
            self.leader = None;
            cx.emit(Output::Rebalance);
            // Handing out the assignment restarts every member's session (`propagateAssignment`).
            let session_deadline_us = cx.now_us + cx.s.session_timeout_us;
            for e in &mut self.entries {
                e.session_deadline_us = session_deadline_us;
            }
            for (m, life) in std::mem::take(&mut self.parked) {
                let answer = self.entry(m, life).map(|j| self.serve(cx, j));
                self.sync_responses.push((m, life, answer));
            }
        }
        Some(SyncAnswer::Assignment(self.serve(cx, i)))
    }

    /// Entry `i` takes its assignment of the current generation (its session refreshed).
    fn serve<S: Sink>(&mut self, cx: &mut Cx<S>, i: usize) -> Vec<PartitionId> {
        let e = &mut self.entries[i];
        e.owned = e.assignment.clone();
        e.session_deadline_us = cx.now_us + cx.s.session_timeout_us;
        e.assignment.clone()
    }

    /// Whether SyncGroup answers wait for the engine to deliver.
    #[inline(always)]
    pub(crate) fn has_sync_responses(&self) -> bool {
        !self.sync_responses.is_empty()
    }

    /// The SyncGroup answers due now, in member order.
    pub(crate) fn take_sync_responses(&mut self) -> Vec<(MemberId, u32, Option<Vec<PartitionId>>)> {
        let mut due = std::mem::take(&mut self.sync_responses);
        super::sort::by_key(&mut due, |&(m, life, _)| (m, life));
        due
    }

    // ---------------------------------------------------------------- consumer protocol

    /// The consumer protocol's target assignment: the uniform assignor over the members in
    /// member order, sticky on the current target (model.md §10.2, §10.6).
    fn retarget(&mut self) {
        let current: Vec<Vec<PartitionId>> = self.entries.iter().map(|e| e.assignment.clone()).collect();
        let target = assignor::sticky(&current, self.partitions());
        let changed = current != target;
        for (e, t) in self.entries.iter_mut().zip(target) {
            e.assignment = t;
        }
        if changed {
            self.target_epoch += 1;
        }
    }

    /// A consumer-protocol member joins (its first heartbeat, epoch 0). A static member back
    /// within its session takes its entry over with what it held.
    pub(crate) fn consumer_join<S: Sink>(&mut self, cx: &mut Cx<S>, member: MemberId, incarnation: u32) {
        let s = cx.s;
        let session_deadline_us = cx.now_us + s.session_timeout_us;
        self.empty_since_us = None;
        if self.state == State::Empty {
            self.state = State::Stable;
        }
        if let Some(i) = self.entries.iter().position(|e| e.member == member && e.is_static) {
            let e = &mut self.entries[i];
            e.incarnation = incarnation;
            e.away = false;
            e.session_deadline_us = session_deadline_us;
            e.owned.clear();
            e.since.clear();
        } else {
            self.entries.push(Entry {
                member,
                incarnation,
                is_static: s.static_membership,
                session_deadline_us,

                session_check_us: u64::MAX,
                joined: true,
                owned: Vec::new(),
                assignment: Vec::new(),
                away: false,
                new: false,
                epoch: 0,
                since: Vec::new(),
            });
            super::sort::by_key(&mut self.entries, |e| e.member);
            self.retarget();
        }
        self.schedule_session_check(cx, member, incarnation, session_deadline_us);
    }

    /// A consumer-protocol heartbeat: refreshes the session, takes the revocations the
    /// member has finished (`released`), and tells it what to give up and what it receives
    /// now (partitions nobody holds any more).
    pub(crate) fn consumer_heartbeat<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        member: MemberId,
        incarnation: u32,
        released: &[PartitionId],
    ) -> Option<Reconcile> {
        let i = self.entry(member, incarnation)?;
        let now_us = cx.now_us;
        let e = &mut self.entries[i];
        e.session_deadline_us = now_us + cx.s.session_timeout_us;
        for p in released {
            e.owned.retain(|o| o != p);
            e.since.retain(|(o, _)| o != p);
            if self.holder[*p as usize] == Some(member) {
                self.holder[*p as usize] = None;
            }
        }
        let revoke: Vec<PartitionId> =
            e.owned.iter().copied().filter(|p| !e.assignment.contains(p)).collect();
        if revoke.is_empty() {
            // Nothing left to give up: the member reaches the target epoch
            // (`CurrentAssignmentBuilder`: UNREVOKED_PARTITIONS until then).
            e.epoch = self.target_epoch;
        }
        let assign: Vec<PartitionId> = e
            .assignment
            .iter()
            .copied()
            .filter(|p| !e.owned.contains(p) && self.holder[*p as usize].is_none())
            .collect();
        for &p in &assign {
            self.holder[p as usize] = Some(member);
            e.owned.push(p);
            e.since.push((p, e.epoch));
        }
        super::sort::by_key(&mut e.owned, |&p| p);
        if !assign.is_empty() && self.counted_epoch < self.target_epoch {
            self.counted_epoch = self.target_epoch;
            cx.emit(Output::Rebalance);
        }
        Some(Reconcile { revoke, assign, epoch: e.epoch })
    }
}
