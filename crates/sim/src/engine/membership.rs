//! A member's side of the consumer group (model.md §10): heartbeats, the classic join and
//! sync rounds with `onJoinPrepare` / `onPartitionsRevoked` / `onJoinComplete` (Java
//! `ConsumerCoordinator`, `AbstractCoordinator`), the consumer protocol's reconciliation at
//! heartbeats (KIP-848, `ConsumerMembershipManager`, `CommitRequestManager`), and what
//! happens to the process: crash, hang, shutdown, restart, a new member joining.

use super::coordinator::SyncAnswer;
use super::member::{Flow, Life, Member};
use super::queue::Phase;
use super::world::{CommitKind, World};
use super::{Cx, Event, Sink};
use crate::events::{describe, GroupEventKind, ShutdownMode};
use crate::keys::{format_millis, ScenarioError};
use crate::output::{CommitId, MemberId, MemberStatus, Output, PartitionId};
use crate::scenario::{OnRevoke, Scenario};
use crate::timeline::MarkKind;

/// Where a classic member is in a join round (model.md §10.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Join {
    /// Stable: nothing to do.
    None,
    /// A rebalance is under way (its heartbeat said so), or it must rejoin: it joins in its
    /// next `poll()`.
    Needed,
    /// `onJoinPrepare`'s commit (or, `revoked`, the `onPartitionsRevoked` commit after it)
    /// is in flight; the JoinGroup waits for it.
    Preparing { commit: CommitId, revoked: bool },
    /// A new dynamic member's first JoinGroup, answered MEMBER_ID_REQUIRED (KIP-394).
    MemberIdRequired,
    /// JoinGroup sent: waiting for the round to complete.
    Joining,
    /// The round completed while the member's `poll()` was returning records: it handles
    /// the JoinGroup response (and sends SyncGroup) in its next `poll()`.
    Responded,
    /// SyncGroup sent: waiting for the assignment.
    Syncing,
}

impl Join {
    /// JoinGroup sent and the SyncGroup response not yet read: the member is not STABLE
    /// (Java `AbstractCoordinator`: PREPARING_REBALANCE from `initiateJoinGroup`,
    /// COMPLETING_REBALANCE from the JoinGroup response, STABLE when the SyncGroup response is
    /// handled), so its commits fail locally (model.md §10.5).
    pub(crate) fn awaits_sync_response(self) -> bool {
        matches!(self, Join::MemberIdRequired | Join::Joining | Join::Responded | Join::Syncing)
    }
}

/// A member's group client state; `None` on [`Member`] for the one-consumer model.
#[derive(Clone, Debug)]
pub(crate) struct GroupClient {
    pub(crate) is_static: bool,
    pub(crate) join: Join,
    /// The classic generation the member belongs to: its commits carry it.
    pub(crate) generation: u32,
    /// An assignment received and not yet taken in (that happens inside `poll()`).
    pub(crate) pending_assignment: Option<Vec<PartitionId>>,
    /// Bumped when the heartbeat schedule restarts (an assignment) or stops.
    pub(crate) heartbeat_seq: u32,
    /// Consumer protocol: paused for revocation, `onPartitionsRevoked` not yet run.
    pub(crate) revoking: Vec<PartitionId>,
    /// Consumer protocol: revoked, to acknowledge at the next heartbeat.
    pub(crate) released: Vec<PartitionId>,
    /// Consumer protocol: assigned at a heartbeat, fetched from once `onPartitionsAssigned`
    /// has run in the next `poll()`.
    pub(crate) assigning: Vec<PartitionId>,
    /// `wakeup()` was called: the next blocking consumer call throws and `close()` starts.
    pub(crate) wakeup: bool,
    /// The loop does nothing until then (a hang, model.md §10.3).
    pub(crate) hung_until_us: u64,
    /// After `close()` returns, the process comes back this much later.
    pub(crate) restart_after_us: Option<u64>,
    /// The next JoinGroup is a new dynamic member's: one MEMBER_ID_REQUIRED round trip first.
    pub(crate) new_member: bool,
    /// The loop waits inside `poll()` for the join (eager, or nothing to return): responses
    /// are handled as they arrive. Otherwise one step per `poll()` (model.md §10.5).
    pub(crate) join_waits: bool,
}

impl GroupClient {
    pub(crate) fn new(s: &Scenario) -> Self {
        GroupClient {
            is_static: s.static_membership,
            join: Join::None,
            join_waits: true,
            generation: 1,
            pending_assignment: None,
            heartbeat_seq: 0,
            revoking: Vec::new(),
            released: Vec::new(),
            assigning: Vec::new(),
            wakeup: false,
            hung_until_us: 0,
            restart_after_us: None,
            new_member: false,
        }
    }
}

impl Member {
    fn g(&mut self) -> &mut GroupClient {
        self.group.as_mut().expect("a group member")
    }

    fn heartbeat_interval_us(s: &Scenario) -> u64 {
        if s.consumer_protocol() {
            s.consumer_heartbeat_interval_us
        } else {
            s.heartbeat_interval_us
        }
    }

    /// (Re)starts the heartbeat schedule from now: every interval from the latest assignment
    /// (model.md §10.4).
    pub(crate) fn restart_heartbeats<S: Sink>(&mut self, cx: &mut Cx<S>) {
        let id = self.id;
        let g = self.g();
        g.heartbeat_seq += 1;
        let seq = g.heartbeat_seq;
        cx.schedule(
            cx.now_us + Self::heartbeat_interval_us(cx.s),
            Phase::Background,
            id,
            Event::Heartbeat { member: id, seq },
        );
    }

    /// The heartbeats of a member of the group at t = 0: from its assignment,
    /// `assigned_before_start_ms` before t = 0 (model.md §10.4).
    pub(crate) fn start_heartbeats_at_zero<S: Sink>(&mut self, cx: &mut Cx<S>) {
        let id = self.id;
        let interval = Self::heartbeat_interval_us(cx.s);
        let g = self.g();
        g.heartbeat_seq += 1;
        let seq = g.heartbeat_seq;
        let at_us = cx.now_us + interval - cx.s.assigned_before_start_us % interval;
        cx.schedule(at_us, Phase::Background, id, Event::Heartbeat { member: id, seq });
    }

    fn status<S: Sink>(&self, cx: &mut Cx<S>, status: MemberStatus) {
        cx.emit(Output::MemberStatus { member: self.id, status });
    }

    /// Takes `partitions` (model.md §10.5: positions from the committed offsets, the
    /// auto-commit timer from now; the poll turn stays with a partition kept, §10.1): each is
    /// a handover.
    fn take_partitions<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, partitions: &[PartitionId]) {
        let in_turn = self.partition_in_turn_now();
        for &partition in partitions {
            world.partitions[partition as usize].handovers += 1;
            let position = world.start_offset(cx.s, cx.now_us, partition);
            self.add_partition(cx, partition, position);
            cx.emit(Output::Handover { partition, to: self.id });
            self.mark(cx, partition, MarkKind::Assigned);
        }
        self.keep_turn(in_turn);
        self.auto_commit_deadline_us = cx.now_us + cx.s.auto_commit_interval_us;
    }

    /// Gives up `partitions`: the member stops processing them (a stall starts).
    fn drop_partitions<S: Sink>(&mut self, cx: &mut Cx<S>, partitions: &[PartitionId]) {
        let in_turn = self.partition_in_turn_now();
        for &partition in partitions {
            if self.remove_partition(partition) {
                cx.emit(Output::Position { partition, position: None });
                cx.emit(Output::Stopped { partition });
                self.mark(cx, partition, MarkKind::Revoked);
            }
        }
        self.keep_turn(in_turn);
    }

    /// The partition whose fetched chunk the member is handing out, if any.
    fn partition_in_turn_now(&self) -> Option<PartitionId> {
        self.chunk_left.and(self.assigned.get(self.turn)).map(|a| a.partition)
    }

    /// After the assignment changed (model.md §10.1): a partition still held keeps the turn and
    /// what is left of its fetched chunk — the fetcher is not cleared at a rebalance
    /// (`FetchBuffer.retainAll` keeps the kept partitions' `nextInLineFetch`;
    /// `Fetcher.clearBufferedDataForUnassignedPartitions` runs only from `subscribe`,
    /// `unsubscribe` and `assign`), so an incremental assignment (cooperative, KIP-848) leaves
    /// an added lower partition waiting. Otherwise — an eager round revoked everything, or the
    /// partition in turn is gone — the next poll starts at the lowest partition.
    fn keep_turn(&mut self, in_turn: Option<PartitionId>) {
        match in_turn.and_then(|p| self.assigned.iter().position(|a| a.partition == p)) {
            Some(index) => self.turn = index,
            None => {
                self.turn = 0;
                self.chunk_left = None;
            }
        }
    }

    /// `onPartitionsRevoked` with `on_revoke: commit_sync`: a `commitSync` of each revoked
    /// partition's durable frontier. Returns whether the loop now waits for it.
    fn on_revoke_commit<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        partitions: &[PartitionId],
    ) -> bool {
        if cx.s.on_revoke != OnRevoke::CommitSync || partitions.is_empty() {
            return false;
        }
        let offsets =
            partitions.iter().map(|&p| (p, world.partitions[p as usize].durable_frontier())).collect();
        self.send_commit(cx, world, CommitKind::Sync, offsets)
    }

    // ---------------------------------------------------------------- heartbeats

    /// A heartbeat (model.md §10.4, §10.5, §10.6): it refreshes the session; a classic member
    /// learns of a rebalance (one with no partitions joins at once, its poll being idle); a
    /// consumer-protocol member reconciles its target assignment.
    pub(crate) fn heartbeat<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, seq: u32) {
        let Some(g) = &self.group else { return };
        if g.heartbeat_seq != seq || self.life != Life::Running || !self.in_group {
            return;
        }
        let interval = Self::heartbeat_interval_us(cx.s);
        cx.schedule(
            cx.now_us + interval,
            Phase::Background,
            self.id,
            Event::Heartbeat { member: self.id, seq },
        );
        self.mark(cx, 0, MarkKind::Heartbeat);
        if cx.s.consumer_protocol() {
            self.reconcile(cx, world);
            return;
        }
        world.coordinator.refresh(cx.s, self.id, self.process, cx.now_us);
        if world.coordinator.rebalance_pending(self.id, self.process) && self.g().join == Join::None {
            if self.joins_in_background(cx.s) {
                // librdkafka's cooperative member rejoins from its background thread at the
                // heartbeat's REBALANCE_IN_PROGRESS (`rd_kafka_cgrp_rejoin`), the application
                // polling on (model.md §10.5).
                self.send_join(cx, world);
                return;
            }
            self.g().join = Join::Needed;
            if self.assigned.is_empty() && self.pc == super::member::Pc::Poll {
                self.wake_at(cx, cx.now_us);
            }
        }
    }

    /// KIP-848 reconciliation at a heartbeat: acknowledge finished revocations, then give
    /// up what the target no longer holds (with auto-commit, a commit of every position
    /// first, `CommitRequestManager.maybeAutoCommitSyncBeforeRebalance`; the partitions pause
    /// now and `onPartitionsRevoked` runs in the next poll) and take what is free.
    fn reconcile<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        let released = std::mem::take(&mut self.g().released);
        let Some(todo) = world.coordinator.consumer_heartbeat(cx, self.id, self.process, &released) else {
            return;
        };
        let revoke: Vec<PartitionId> = todo
            .revoke
            .into_iter()
            .filter(|p| !self.group.as_ref().is_some_and(|g| g.revoking.contains(p)))
            .collect();
        if !revoke.is_empty() {
            if self.strategy.is_auto() {
                let positions = self.positions();
                self.send_commit(cx, world, CommitKind::AutoBackground, positions);
            }
            self.drop_partitions(cx, &revoke);
            self.g().revoking.extend(revoke);
        }
        if !todo.assign.is_empty() {
            // The background thread adds them awaiting the callback
            // (`SubscriptionState.assignFromSubscribedAwaitingCallback`): not fetchable until
            // `onPartitionsAssigned` has run on the application thread, in its next `poll()`.
            self.g().assigning.extend(todo.assign);
            if self.pc == super::member::Pc::Poll {
                self.wake_at(cx, cx.now_us);
            }
        }
    }

    // ---------------------------------------------------------------- inside poll()

    /// What `poll()` does for the group before it fetches (model.md §10.5, §10.6). Returns
    /// `Some(flow)` when the poll must not fetch now (it blocks, or it closed).
    pub(crate) fn group_poll<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> Option<Flow> {
        self.group.as_ref()?;
        if self.woken(cx, world) {
            return Some(Flow::Wait);
        }
        if cx.s.consumer_protocol() {
            return self.consumer_poll(cx, world);
        }
        if let Some(assignment) = self.g().pending_assignment.take() {
            if let Some(flow) = self.on_join_complete(cx, world, assignment) {
                return Some(flow);
            }
        }
        if !self.in_group && self.g().join == Join::None {
            // Evicted (model.md §8.7, §10.3): rejoin; a dynamic member as a new member.
            self.g().join = Join::Needed;
        }
        match self.g().join {
            Join::None => None,
            Join::Needed => self.on_join_prepare(cx, world),
            Join::Preparing { commit, revoked } => {
                if world.commits.is_resolved(commit) {
                    self.prepared(cx, world, revoked)
                } else if self.eager(cx.s) {
                    Some(Flow::Wait)
                } else {
                    None
                }
            }
            Join::MemberIdRequired => Some(Flow::Wait),
            Join::Joining | Join::Syncing => self.wait_for_join(cx),
            Join::Responded => {
                self.send_sync(cx);
                self.wait_for_join(cx)
            }
        }
    }

    /// Whether this `poll()` waits for the join to go on (model.md §10.5): an eager member
    /// always (it revoked everything), a cooperative one only when it has no records to
    /// return — one with records returns them and takes the next step in its next `poll()`
    /// (Java `ClassicKafkaConsumer.poll` → `updateAssignmentMetadataIfNeeded(timer, false)`
    /// → `ensureActiveGroup(time.timer(0))`).
    /// The member counts as waiting in a rebalance (§10.7) only while its `poll()` waits.
    fn wait_for_join<S: Sink>(&mut self, cx: &mut Cx<S>) -> Option<Flow> {
        let waits = self.eager(cx.s) || !self.has_records(cx.s, cx.now_us);
        if waits != self.g().join_waits {
            self.status(cx, if waits { MemberStatus::Rebalancing } else { MemberStatus::Active });
        }
        self.g().join_waits = waits;
        waits.then_some(Flow::Wait)
    }

    fn eager(&self, s: &Scenario) -> bool {
        s.assignment_strategy != crate::scenario::Assignor::CooperativeSticky
    }

    /// librdkafka runs a cooperative member's JoinGroup and SyncGroup on its background
    /// thread (`rd_kafka_cgrp_rejoin`, `rd_kafka_cgrp_handle_JoinGroup` →
    /// `rd_kafka_SyncGroupRequest`): only the assignment waits for the application's
    /// `poll()`, which runs the rebalance callback (model.md §10.5).
    fn joins_in_background(&self, s: &Scenario) -> bool {
        s.client.is_librdkafka() && !self.eager(s)
    }

    /// `onJoinPrepare`: with auto-commit, an asynchronous commit of every position that the
    /// join waits for; eager strategies then revoke everything (`onPartitionsRevoked`) and
    /// wait inside this poll; cooperative ones keep fetching and join in a later poll (Java
    /// `ConsumerCoordinator.onJoinPrepare`).
    fn on_join_prepare<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> Option<Flow> {
        let eager = self.eager(cx.s);
        if eager && !self.assigned.is_empty() {
            // Eager members pause everything in this poll (KAFKA-14196): the stall starts now.
            self.status(cx, MemberStatus::Rebalancing);
            for a in &self.assigned {
                cx.emit(Output::Stopped { partition: a.partition });
            }
        }
        let offsets = self.client_commit_offsets(cx.s, world);
        if self.strategy.is_auto()
            && self.in_group
            && !offsets.is_empty()
            && self.send_commit(cx, world, CommitKind::JoinPrepare, offsets)
        {
            self.g().join = Join::Preparing { commit: world.commits.last_id(), revoked: false };
            return if eager { Some(Flow::Wait) } else { None };
        }
        self.prepared(cx, world, false)
    }

    /// `onJoinPrepare`'s commit is done (or there was none): eager strategies revoke
    /// everything (with `on_revoke: commit_sync`, a commit the loop waits for), then JoinGroup.
    fn prepared<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, revoked: bool) -> Option<Flow> {
        if self.eager(cx.s) && !revoked && self.revoke_all(cx, world) {
            self.g().join = Join::Preparing { commit: world.commits.last_id(), revoked: true };
            return Some(Flow::Wait);
        }
        self.send_join(cx, world)
    }

    /// Eager: every owned partition is revoked at the join (`onPartitionsRevoked`, with
    /// `on_revoke: commit_sync` a commit of each durable frontier). Returns whether the loop
    /// waits for that commit.
    fn revoke_all<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> bool {
        let owned: Vec<PartitionId> = self.assigned.iter().map(|a| a.partition).collect();
        let waits = self.on_revoke_commit(cx, world, &owned);
        self.drop_partitions(cx, &owned);
        waits
    }

    /// Sends JoinGroup (a new dynamic member: first the MEMBER_ID_REQUIRED round trip). The
    /// loop waits inside `poll()` until the assignment arrives, unless a cooperative member
    /// has records to return ([`Member::wait_for_join`]).
    fn send_join<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> Option<Flow> {
        let _ = world;
        let (id, process) = (self.id, self.process);
        let first = std::mem::replace(&mut self.g().new_member, false);
        self.g().join = if first { Join::MemberIdRequired } else { Join::Joining };
        cx.schedule(
            cx.now_us + cx.s.commit_latency_us,
            Phase::Lifecycle,
            id,
            Event::JoinLands { member: id, process, first },
        );
        self.mark(cx, 0, MarkKind::JoinSent);
        self.g().join_waits = false;
        if first {
            self.g().join_waits = true;
            self.status(cx, MemberStatus::Rebalancing);
            return Some(Flow::Wait);
        }
        self.wait_for_join(cx)
    }

    /// The JoinGroup request lands at the coordinator (or is answered MEMBER_ID_REQUIRED and
    /// sent again).
    pub(crate) fn join_lands<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        process: u32,
        first: bool,
    ) {
        if process != self.process || self.life == Life::Down {
            return;
        }
        if first {
            self.g().join = Join::Joining;
            let id = self.id;
            cx.schedule(
                cx.now_us + cx.s.commit_latency_us,
                Phase::Lifecycle,
                id,
                Event::JoinLands { member: id, process, first: false },
            );
            return;
        }
        self.in_group = true;
        let owned = self.assigned.iter().map(|a| a.partition).collect();
        world.coordinator.join(cx, self.id, self.process, owned);
    }

    /// The JoinGroup response: the round completed; a member waiting in `poll()` sends
    /// SyncGroup now, one returning records in its next `poll()`.
    pub(crate) fn join_response<S: Sink>(&mut self, cx: &mut Cx<S>, world: &World) {
        self.g().generation = world.coordinator.generation();
        // Java restarts its heartbeats when it reads the JoinGroup response
        // (`JoinGroupResponseHandler` → `enable()` of the heartbeat thread), one round trip before
        // the assignment (model.md §10.4).
        self.restart_heartbeats(cx);
        if self.g().join_waits || self.joins_in_background(cx.s) {
            self.send_sync(cx);
        } else {
            self.g().join = Join::Responded;
        }
    }

    /// Sends SyncGroup (the leader's carries the assignment).
    fn send_sync<S: Sink>(&mut self, cx: &mut Cx<S>) {
        self.g().join = Join::Syncing;
        let (id, process) = (self.id, self.process);
        cx.schedule(
            cx.now_us + cx.s.commit_latency_us,
            Phase::Lifecycle,
            id,
            Event::SyncLands { member: id, process },
        );
    }

    /// The SyncGroup request lands: the assignment comes back (a follower's once the
    /// leader's SyncGroup has landed), and the loop takes it in at its `poll()` (the heartbeat
    /// thread receives it; a loop waiting inside `poll()` wakes).
    pub(crate) fn sync_lands<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, process: u32) {
        if process != self.process || self.life == Life::Down {
            return;
        }
        match world.coordinator.sync(cx, self.id, self.process) {
            Some(SyncAnswer::Parked) => {}
            Some(SyncAnswer::Assignment(assignment)) => self.synced(cx, Some(assignment)),
            None => self.synced(cx, None),
        }
    }

    /// The SyncGroup answer: the assignment, or (`None`) dropped from the round meanwhile:
    /// join again.
    pub(crate) fn synced<S: Sink>(&mut self, cx: &mut Cx<S>, assignment: Option<Vec<PartitionId>>) {
        if self.life == Life::Down || self.group.is_none() {
            return;
        }
        match assignment {
            Some(assignment) => {
                self.g().join = Join::None;
                self.g().pending_assignment = Some(assignment);
            }
            None => self.g().join = Join::Needed,
        }
        self.restart_heartbeats(cx);
        if self.pc == super::member::Pc::Poll && self.life == Life::Running {
            self.wake_at(cx, cx.now_us);
        }
    }

    /// `onJoinComplete`, inside `poll()`: eager members take the whole new assignment;
    /// cooperative ones revoke what moved (no auto-commit; `onPartitionsRevoked`) and, if
    /// anything did, rejoin at once for the round that hands it over.
    fn on_join_complete<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        assignment: Vec<PartitionId>,
    ) -> Option<Flow> {
        let owned: Vec<PartitionId> = self.assigned.iter().map(|a| a.partition).collect();
        let revoked: Vec<PartitionId> = owned.iter().copied().filter(|p| !assignment.contains(p)).collect();
        let added: Vec<PartitionId> = assignment.iter().copied().filter(|p| !owned.contains(p)).collect();
        self.mark(cx, 0, MarkKind::AssignmentReceived);
        self.take_partitions(cx, world, &added);
        self.status(cx, if self.assigned.is_empty() { MemberStatus::Idle } else { MemberStatus::Active });
        if revoked.is_empty() {
            return None;
        }
        if crate::broken::on("cooperative_revoke_commits") {
            let positions = self.positions().into_iter().filter(|(p, _)| revoked.contains(p)).collect();
            self.send_commit(cx, world, CommitKind::Async, positions);
        }
        if self.joins_in_background(cx.s) {
            // librdkafka: with auto-commit the removed partitions' stored offsets are committed
            // (`rd_kafka_assignment_serve_removals`), and the background thread rejoins once the
            // incremental unassign is done (`rd_kafka_cgrp_incr_unassign_done`): no
            // `onJoinPrepare` commit of everything, nothing waited for.
            if self.strategy.is_auto() {
                let offsets = self
                    .client_commit_offsets(cx.s, world)
                    .into_iter()
                    .filter(|(p, _)| revoked.contains(p))
                    .collect();
                self.send_commit(cx, world, CommitKind::AutoBackground, offsets);
            }
            self.drop_partitions(cx, &revoked);
            return self.send_join(cx, world);
        }
        let waits = self.on_revoke_commit(cx, world, &revoked);
        self.drop_partitions(cx, &revoked);
        self.g().join = Join::Needed;
        if waits {
            return Some(Flow::Wait);
        }
        self.on_join_prepare(cx, world)
    }

    /// Consumer protocol, inside `poll()`: `onPartitionsRevoked` for what the last
    /// reconciliation paused; the next heartbeat acknowledges it.
    fn consumer_poll<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> Option<Flow> {
        if !self.in_group {
            // Evicted: rejoin as a new member (epoch 0) at once.
            self.in_group = true;
            world.coordinator.consumer_join(cx, self.id, self.process);
            self.restart_heartbeats(cx);
        }
        let assigned = std::mem::take(&mut self.g().assigning);
        if !assigned.is_empty() {
            self.take_partitions(cx, world, &assigned);
            self.status(cx, MemberStatus::Active);
        }
        let revoked = std::mem::take(&mut self.g().revoking);
        if revoked.is_empty() {
            return None;
        }
        let waits = self.on_revoke_commit(cx, world, &revoked);
        self.g().released.extend(revoked);
        waits.then_some(Flow::Wait)
    }

    /// A pending `wakeup()` makes this blocking call throw: `close()` starts now. Returns
    /// whether it did.
    pub(crate) fn woken<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> bool {
        if !self.group.as_ref().is_some_and(|g| g.wakeup) {
            return false;
        }
        self.g().wakeup = false;
        self.close(cx, world);
        true
    }

    // ---------------------------------------------------------------- the process

    /// The process dies (model.md §10.3): nothing it had in flight lands; its partitions
    /// wait for the coordinator to expire its session.
    pub(crate) fn crash<S: Sink>(&mut self, cx: &mut Cx<S>, restart_after_us: Option<u64>) {
        self.mark(cx, 0, MarkKind::Crashed);
        self.go_down(cx);
        if let Some(after) = restart_after_us {
            cx.schedule(cx.now_us + after, Phase::Lifecycle, self.id, Event::Restart { member: self.id });
        }
    }

    /// The process is gone: the loop, its pool and its timers stop; its partitions stall.
    pub(crate) fn go_down<S: Sink>(&mut self, cx: &mut Cx<S>) {
        self.life = Life::Down;
        self.pc = super::member::Pc::Stopped;
        self.blocked_since_us = None;
        self.incarnation += 1;
        self.commits_in_flight = 0;
        self.retries_pending = 0;
        self.callbacks.clear();
        self.pool.clear();
        if let Some(g) = self.group.as_mut() {
            g.heartbeat_seq += 1;
            g.join = Join::None;
            g.pending_assignment = None;
            g.wakeup = false;
            g.revoking.clear();
            g.released.clear();
            g.assigning.clear();
        }
        let owned: Vec<PartitionId> = self.assigned.iter().map(|a| a.partition).collect();
        self.drop_partitions(cx, &owned);
        self.status(cx, MemberStatus::Down);
    }

    /// The loop stops polling until `until_us`; the heartbeat thread keeps the session alive.
    pub(crate) fn hang<S: Sink>(&mut self, cx: &mut Cx<S>, until_us: u64) {
        self.g().hung_until_us = until_us;
        self.mark(cx, 0, MarkKind::HangStarted);
        for a in &self.assigned {
            cx.emit(Output::Stopped { partition: a.partition });
        }
        self.status(cx, MemberStatus::Hung);
        cx.schedule(until_us, Phase::Lifecycle, self.id, Event::HangEnds { member: self.id });
    }

    /// The hang is over.
    pub(crate) fn hang_ends<S: Sink>(&mut self, cx: &mut Cx<S>) {
        if self.life == Life::Running {
            self.status(cx, if self.assigned.is_empty() { MemberStatus::Idle } else { MemberStatus::Active });
        }
    }

    /// Whether the loop is hung now; then `event` waits for the hang's end.
    pub(crate) fn deferred_by_hang<S: Sink>(&self, cx: &mut Cx<S>, event: Event) -> bool {
        match &self.group {
            Some(g) if cx.now_us < g.hung_until_us => {
                cx.schedule(g.hung_until_us, Phase::Loop, self.id, event);
                true
            }
            _ => false,
        }
    }

    /// A shutdown (model.md §10.3): `wakeup()` — the next blocking call throws, then
    /// `close()` — or `close()` at once; the process comes back `restart_after_us` after
    /// `close()` returns.
    pub(crate) fn shutdown<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        mode: ShutdownMode,
        restart_after_us: Option<u64>,
    ) {
        self.mark(cx, 0, MarkKind::ShutdownRequested);
        self.g().restart_after_us = restart_after_us;
        match mode {
            ShutdownMode::Abrupt => self.close(cx, world),
            ShutdownMode::Wakeup => {
                self.g().wakeup = true;
                // A loop idle in poll() (no partitions, or nothing to fetch) throws now.
                if self.pc == super::member::Pc::Poll && self.blocked_since_us.is_none() {
                    self.wake_at(cx, cx.now_us);
                }
            }
        }
    }

    /// `close()` returned in a group: `onPartitionsRevoked` already ran (Java
    /// `AbstractCoordinator.close` → `onLeavePrepare`); a dynamic member leaves the group
    /// (LeaveGroup, or a consumer-protocol leave heartbeat), a static one does not (KIP-345:
    /// its partitions wait for its session to expire); then the process may come back.
    pub(crate) fn closed_in_group<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        let (id, process) = (self.id, self.process);
        let is_static = self.g().is_static;
        if self.in_group {
            if !is_static {
                world.coordinator.leave(cx, id, process);
            } else if cx.s.consumer_protocol() {
                world.coordinator.static_away(id, process);
            }
        }
        let restart = self.g().restart_after_us.take();
        self.go_down(cx);
        if let Some(after) = restart {
            cx.schedule(cx.now_us + after, Phase::Lifecycle, id, Event::Restart { member: id });
        }
    }

    /// The process starts (a restart, or a new member): it joins the group in its first
    /// `poll()`; a dynamic one as a new member.
    pub(crate) fn start_in_group<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        self.process += 1;
        self.life = Life::Running;
        self.in_group = false;
        self.pc = super::member::Pc::Poll;
        self.incarnation += 1;
        let is_static = self.g().is_static;
        let g = self.g();
        g.new_member = !is_static;
        g.join = Join::Needed;
        g.hung_until_us = 0;
        self.mark(cx, 0, MarkKind::Started);
        self.status(cx, MemberStatus::Rebalancing);
        if cx.s.consumer_protocol() {
            self.in_group = true;
            self.g().join = Join::None;
            world.coordinator.consumer_join(cx, self.id, self.process);
            self.reconcile(cx, world);
            self.restart_heartbeats(cx);
        }
        self.wake_at(cx, cx.now_us);
        self.start_background_timer(cx);
    }

    /// Event `index` of `group_events` reaches this member (model.md §10.3). An event aimed
    /// at a member that is down (or, for `join`, already started) is refused.
    pub(crate) fn group_event<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        index: u16,
    ) -> Result<(), ScenarioError> {
        let event = cx.s.group_events[index as usize];
        let (running, started) = (self.life == Life::Running, self.process > 0 || self.life != Life::Down);
        let refuse = |what: &str| {
            Err(ScenarioError::at(
                &format!("group_events[{index}]"),
                format!(
                    "consumer-{} {what} at {} ms: {} cannot apply",
                    self.id + 1,
                    format_millis(cx.now_us),
                    describe(&event)
                ),
            ))
        };
        match event.kind {
            GroupEventKind::Join if started => return refuse("has already started"),
            GroupEventKind::Join => self.start_in_group(cx, world),
            _ if !running => return refuse("is down"),
            GroupEventKind::Crash => self.crash(cx, event.restart_after_us),
            GroupEventKind::Hang => self.hang(cx, cx.now_us + event.duration_us),
            GroupEventKind::Shutdown | GroupEventKind::Deploy => {
                self.shutdown(cx, world, event.shutdown_mode, event.restart_after_us)
            }
        }
        Ok(())
    }

    /// model.md §10.3: an eviction by `max.poll.interval.ms` starts a rebalance. A dynamic
    /// member sends LeaveGroup from its heartbeat thread and rejoins as a new member in its
    /// next poll; a static one sends nothing (Java `AbstractCoordinator.maybeLeaveGroup`) and
    /// stops heartbeating, so its session runs out unless it polls first.
    pub(crate) fn evicted_from_group<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        let (id, process) = (self.id, self.process);
        let is_static = self.g().is_static;
        if !is_static {
            world.coordinator.leave(cx, id, process);
            self.process += 1;
            self.g().new_member = true;
        }
        self.g().heartbeat_seq += 1;
        self.g().join = Join::None;
        let owned: Vec<PartitionId> = self.assigned.iter().map(|a| a.partition).collect();
        self.drop_partitions(cx, &owned);
    }
}

/// Member ids of the members present at t = 0.
pub(crate) fn initial_members(s: &Scenario) -> Vec<MemberId> {
    (0..s.members as MemberId).collect()
}
