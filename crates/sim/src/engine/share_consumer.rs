//! One `KafkaShareConsumer` of a share group (model.md §11): its loop — `poll()` acquires
//! records of any partition, the loop processes them one by one and acknowledges them,
//! implicitly with the next `poll()` or commit, or explicitly record by record — and its
//! lifecycle under `group_events` (crash, hang, shutdown, join, deploy).

use super::cx::Cx;
use super::queue::{Event, Phase};
use super::share_partition::{Ack, AckKind};
use super::world::World;
use crate::events::{GroupEventKind, ShutdownMode};
use crate::keys::{format_millis, ScenarioError};
use crate::output::{MarkKind, MemberId, MemberStatus, Output, PartitionId, Sink};
use crate::scenario::{OnError, ShareAcknowledgementMode, ShareAcquireMode, Strategy};

/// Where the loop is between events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pc {
    /// About to `poll()`.
    Poll,
    /// About to process record `i` of the batch.
    Process(usize),
    /// Record `i` of the batch just ended (processed, or given up).
    AfterRecord(usize),
    /// Waiting in `commitSync()` for its acknowledgements to land.
    Blocked,
    /// Not running, or closing.
    Stopped,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    Running,
    /// `close()` sent its acknowledgements and waits for them.
    Closing,
    Down,
}

/// One share consumer.
#[derive(Clone)]
pub(crate) struct ShareConsumer {
    id: MemberId,
    life: Life,
    /// Counts the loop's lives: its events of an earlier one are ignored.
    incarnation: u32,
    /// Counts share sessions (one per process): a request of an earlier one never lands.
    session: u32,
    pc: Pc,
    resume_pc: Pc,
    /// The last poll's records: (partition, offset).
    batch: Vec<(PartitionId, u64)>,
    /// Counts the polls that returned records: a renewal of an earlier batch is dropped.
    batches: u32,
    /// Records acquired in the background (a renewal's poll left a `ShareFetch` waiting) and
    /// not yet returned: each `poll()` returns up to `max.poll.records` of them, oldest first.
    prefetched: Vec<(PartitionId, u64)>,
    /// A `ShareFetch` waits at the broker (kafka-clients `fetchMoreRecords`): set by a
    /// renewal's poll, it acquires records the moment some become available, until it has.
    fetching: bool,
    /// Implicit mode: the batch was acknowledged by a commit already.
    batch_acknowledged: bool,
    /// Explicit mode: acknowledgements made and not yet sent.
    pending: Vec<Ack>,
    /// The next partition a poll tries first (model.md §10.1).
    turn: usize,
    failed_attempts: u32,
    /// A shutdown asked for `wakeup()`: the next poll closes instead.
    wakeup: bool,
    restart_after_us: Option<u64>,
    hung_until_us: u64,
    blocked_since_us: Option<u64>,
    /// The request `commitSync()` waits for.
    blocking_request: Option<usize>,
    requests_in_flight: u32,
}

impl ShareConsumer {
    /// Member `id` at t = 0: running (about to poll) if `present`, else waiting for its join.
    pub(crate) fn start<S: Sink>(cx: &mut Cx<S>, id: MemberId, present: bool) -> Self {
        let mut consumer = ShareConsumer {
            id,
            life: Life::Down,
            incarnation: 0,
            session: 0,
            pc: Pc::Stopped,
            resume_pc: Pc::Poll,
            batch: Vec::new(),
            batches: 0,
            prefetched: Vec::new(),
            fetching: false,
            batch_acknowledged: true,
            pending: Vec::new(),
            turn: 0,
            failed_attempts: 0,
            wakeup: false,
            restart_after_us: None,
            hung_until_us: 0,
            blocked_since_us: None,
            blocking_request: None,
            requests_in_flight: 0,
        };
        if present {
            consumer.begin(cx);
        } else {
            cx.emit(Output::MemberStatus { member: id, status: MemberStatus::Down });
        }
        consumer
    }

    /// A new life: about to poll, holding nothing.
    fn begin<S: Sink>(&mut self, cx: &mut Cx<S>) {
        self.life = Life::Running;
        self.incarnation += 1;
        self.pc = Pc::Poll;
        self.batch.clear();
        self.prefetched.clear();
        self.fetching = false;
        self.batch_acknowledged = true;
        self.pending.clear();
        self.failed_attempts = 0;
        self.wakeup = false;
        cx.emit(Output::MemberStatus { member: self.id, status: MemberStatus::Active });
        self.wake_at(cx, cx.now_us);
    }

    fn wake_at<S: Sink>(&self, cx: &mut Cx<S>, at_us: u64) {
        let event = Event::LoopWake { member: self.id, incarnation: self.incarnation };
        cx.schedule(at_us, Phase::Loop, self.id, event);
    }

    fn mark<S: Sink>(&self, cx: &mut Cx<S>, partition: PartitionId, kind: MarkKind) {
        cx.emit(Output::Mark { member: self.id, partition, kind });
    }

    /// While hung, the loop's event waits for the hang's end.
    fn deferred_by_hang<S: Sink>(&self, cx: &mut Cx<S>, event: Event) -> bool {
        if cx.now_us < self.hung_until_us {
            cx.schedule(self.hung_until_us, Phase::Loop, self.id, event);
            return true;
        }
        false
    }

    // ---------------------------------------------------------------- events

    /// The loop's own wake-up.
    pub(crate) fn wake<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, incarnation: u32) {
        if incarnation != self.incarnation || self.life != Life::Running {
            return;
        }
        if self.deferred_by_hang(cx, Event::LoopWake { member: self.id, incarnation }) {
            return;
        }
        self.resume(cx, world);
    }

    /// An attempt at a record ended: it completed, or it threw (model.md §12).
    pub(crate) fn record_done<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        partition: PartitionId,
        offset: u64,
        incarnation: u32,
    ) {
        if incarnation != self.incarnation || self.life != Life::Running {
            return;
        }
        let event = Event::RecordDone { member: self.id, partition, offset, worker: None, incarnation };
        if self.deferred_by_hang(cx, event) {
            return;
        }
        if !matches!(self.pc, Pc::AfterRecord(_)) {
            return;
        }
        let s = cx.s;
        let explicit = s.share_acknowledgement_mode == ShareAcknowledgementMode::Explicit;
        let ack = |kind| Ack { partition, offset, kind };
        if !world.failures.attempt_fails(s, offset) {
            self.failed_attempts = 0;
            world.complete_run(cx, self.id, partition, offset, 0);
            world.share[partition as usize].run_completed(cx, offset);
            if explicit {
                self.pending.push(ack(AckKind::Accept));
            }
        } else {
            self.mark(cx, partition, MarkKind::RecordFailed { offset });
            if s.on_error == OnError::Retry && self.failed_attempts < s.error_retries {
                self.failed_attempts += 1;
                let done_at = cx.now_us + s.error_retry_backoff_us + world.durations.of(s, partition, offset);
                cx.schedule(done_at, Phase::Loop, self.id, event);
                return;
            }
            self.failed_attempts = 0;
            match s.on_error {
                OnError::Release => self.pending.push(ack(AckKind::Release)),
                OnError::Reject => self.pending.push(ack(AckKind::Reject)),
                // Given up: acknowledged as processed, so it ends without a run (lost).
                _ => {
                    self.mark(cx, partition, MarkKind::RecordSkipped { offset });
                    if explicit {
                        self.pending.push(ack(AckKind::Accept));
                    }
                }
            }
        }
        self.resume(cx, world);
    }

    /// `share_renew_every_ms` (model.md §11.3): the poll loop acknowledges with RENEW every
    /// record of `batch` the application has not acknowledged yet and polls, which sends
    /// them with what else is pending; that poll also leaves a `ShareFetch` waiting, which
    /// acquires records (their locks run from then) as soon as any are available — now, or
    /// when some are offered again — and the next polls return them. A hung loop renews when it
    /// wakes; a batch done renews no more.
    pub(crate) fn renew<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, batch: u32) {
        if batch != self.batches || self.life != Life::Running {
            return;
        }
        let event = Event::ShareRenew { member: self.id, batch };
        if cx.now_us < self.hung_until_us {
            cx.schedule(self.hung_until_us, Phase::Background, self.id, event);
            return;
        }
        let at = match if self.pc == Pc::Blocked { self.resume_pc } else { self.pc } {
            Pc::Process(i) | Pc::AfterRecord(i) => i,
            Pc::Poll | Pc::Blocked | Pc::Stopped => return,
        };
        let renewals = self.unacknowledged(at, AckKind::Renew);
        let mut acks = std::mem::take(&mut self.pending);
        acks.extend(renewals);
        self.send(cx, world, acks, false);
        self.fetching = true;
        self.fetch_waiting(cx, world);
        let every = cx.s.share_renew_every_us.unwrap_or(u64::MAX);
        cx.schedule(cx.now_us.saturating_add(every), Phase::Background, self.id, event);
    }

    /// Acknowledgement request `request` lands: the broker applies each acknowledgement of a
    /// record the member still holds. A request from an earlier life never lands.
    pub(crate) fn acks_land<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, request: usize) {
        let (_, session, acks) = &world.ack_requests.list[request];
        if *session != self.session || self.life == Life::Down {
            return;
        }
        for ack in acks.clone() {
            world.share[ack.partition as usize].acknowledge(cx, self.id, ack.offset, ack.kind);
        }
        self.requests_in_flight -= 1;
        if self.blocking_request == Some(request) {
            self.blocking_request = None;
            if let Some(since_us) = self.blocked_since_us.take() {
                cx.emit(Output::Unblocked { member: self.id, since_us, until_us: cx.now_us });
            }
            if self.life == Life::Running {
                self.pc = self.resume_pc;
                self.wake_at(cx, cx.now_us);
            }
        }
        if self.life == Life::Closing && self.requests_in_flight == 0 {
            self.closed(cx, world);
        }
    }

    /// Event `index` of `group_events` (model.md §10.3, §11).
    pub(crate) fn group_event<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        index: u16,
    ) -> Result<(), ScenarioError> {
        let event = cx.s.group_events[index as usize];
        let refuse = |what: &str| {
            Err(ScenarioError::at(
                &format!("group_events[{index}]"),
                format!(
                    "consumer-{} {what} at {} ms: the event cannot apply",
                    self.id + 1,
                    format_millis(cx.now_us)
                ),
            ))
        };
        match event.kind {
            GroupEventKind::Join if self.incarnation > 0 || self.session > 0 => {
                return refuse("has already started")
            }
            GroupEventKind::Join => {
                self.mark(cx, 0, MarkKind::Started);
                self.begin(cx);
            }
            _ if self.life != Life::Running => return refuse("is down"),
            GroupEventKind::Crash => {
                self.mark(cx, 0, MarkKind::Crashed);
                self.go_down(cx, world);
                if let Some(after) = event.restart_after_us {
                    cx.schedule(
                        cx.now_us + after,
                        Phase::Lifecycle,
                        self.id,
                        Event::Restart { member: self.id },
                    );
                }
            }
            GroupEventKind::Hang => {
                self.mark(cx, 0, MarkKind::HangStarted);
                self.hung_until_us = cx.now_us + event.duration_us;
                cx.emit(Output::MemberStatus { member: self.id, status: MemberStatus::Hung });
                cx.schedule(
                    self.hung_until_us,
                    Phase::Lifecycle,
                    self.id,
                    Event::HangEnds { member: self.id },
                );
            }
            GroupEventKind::Shutdown | GroupEventKind::Deploy => {
                self.mark(cx, 0, MarkKind::ShutdownRequested);
                self.restart_after_us = event.restart_after_us;
                match event.shutdown_mode {
                    ShutdownMode::Abrupt => self.close(cx, world),
                    ShutdownMode::Wakeup => self.wakeup = true,
                }
            }
        }
        Ok(())
    }

    /// A hang ended.
    pub(crate) fn hang_ends<S: Sink>(&mut self, cx: &mut Cx<S>) {
        if self.life == Life::Running && cx.now_us >= self.hung_until_us {
            cx.emit(Output::MemberStatus { member: self.id, status: MemberStatus::Active });
        }
    }

    /// The process comes back after a crash or a shutdown.
    pub(crate) fn restart<S: Sink>(&mut self, cx: &mut Cx<S>) {
        if self.life == Life::Down {
            self.mark(cx, 0, MarkKind::Started);
            self.begin(cx);
        }
    }

    /// Ends the run: a loop still blocked reports its wait.
    pub(crate) fn finish<S: Sink>(&mut self, cx: &mut Cx<S>, stop_us: u64) {
        if let Some(since_us) = self.blocked_since_us.take() {
            cx.emit(Output::Unblocked { member: self.id, since_us, until_us: stop_us });
        }
    }

    // ---------------------------------------------------------------- the loop

    fn resume<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        loop {
            let s = cx.s;
            match self.pc {
                Pc::Blocked | Pc::Stopped => return,
                Pc::Poll => {
                    if self.wakeup {
                        self.close(cx, world);
                        return;
                    }
                    self.send_acks(cx, world, false);
                    self.acquire(cx, world);
                    if self.batch.is_empty() {
                        self.wake_at(cx, cx.now_us + s.fetch_max_wait_us);
                        return;
                    }
                    self.batches += 1;
                    if let Some(every) = s.share_renew_every_us {
                        let event = Event::ShareRenew { member: self.id, batch: self.batches };
                        cx.schedule(cx.now_us + every, Phase::Background, self.id, event);
                    }
                    self.pc = Pc::Process(0);
                }
                Pc::Process(i) => {
                    let (partition, offset) = self.batch[i];
                    let done_at = cx.now_us + world.durations.of(s, partition, offset);
                    let event = Event::RecordDone {
                        member: self.id,
                        partition,
                        offset,
                        worker: None,
                        incarnation: self.incarnation,
                    };
                    cx.schedule(done_at, Phase::Loop, self.id, event);
                    self.pc = Pc::AfterRecord(i);
                    return;
                }
                Pc::AfterRecord(i) => {
                    let last = i + 1 == self.batch.len();
                    self.pc = if last { Pc::Poll } else { Pc::Process(i + 1) };
                    let blocking = match s.strategy {
                        Strategy::CommitSyncRecord => true,
                        Strategy::CommitSyncBatch => last,
                        Strategy::CommitAsyncBatch => {
                            if last {
                                self.send_acks(cx, world, false);
                            }
                            false
                        }
                        _ => false,
                    };
                    if blocking && self.send_acks(cx, world, true) {
                        return;
                    }
                }
            }
        }
    }

    /// The waiting `ShareFetch` (if any) acquires what is available now; it stops waiting
    /// once it has acquired something (model.md §11.3).
    pub(crate) fn fetch_waiting<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        if !self.fetching || self.life == Life::Down {
            return;
        }
        let got = self.fetch(cx, world);
        if !got.is_empty() {
            self.fetching = false;
            self.prefetched.extend(got);
        }
    }

    /// `poll()`: records acquired in the background first, else a fetch; the batch it returns.
    fn acquire<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        self.batch = if self.prefetched.is_empty() {
            self.fetching = false;
            self.fetch(cx, world)
        } else {
            let s = cx.s;
            let mut n = self.prefetched.len().min(s.max_poll_records as usize);
            // `batch_optimized` (model.md §11.2): the poll reads on to the end of the producer
            // batch it is in (`ShareCompletedFetch.fetchRecords`, `currentBatchHasMoreRecords`).
            if s.share_acquire_mode == ShareAcquireMode::BatchOptimized && n > 0 {
                let (partition, last) = self.prefetched[n - 1];
                let end = s.producer_batch_end(last);
                while self.prefetched.get(n).is_some_and(|&(p, o)| p == partition && o < end) {
                    n += 1;
                }
            }
            self.prefetched.drain(..n).collect()
        };
        if let Some(&(partition, from)) = self.batch.first() {
            self.mark(cx, partition, MarkKind::Poll { from, records: self.batch.len() as u32 });
        }
        self.batch_acknowledged = false;
    }

    /// A `ShareFetch`: from the next partition in turn with records to offer, up to
    /// `max.poll.records` of them, lowest offsets first.
    fn fetch<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> Vec<(PartitionId, u64)> {
        let s = cx.s;
        let partitions = world.share.len();
        for k in 0..partitions {
            let p = (self.turn + k) % partitions;
            if !world.share[p].has_available(s, cx.now_us) {
                continue;
            }
            self.turn = p + 1;
            let taken = world.share[p].acquire(cx, self.id, s.max_poll_records);
            let partition = p as PartitionId;
            return taken.into_iter().map(|offset| (partition, offset)).collect();
        }
        Vec::new()
    }

    /// Sends what is to acknowledge — implicitly the whole last batch as ACCEPT, explicitly
    /// what the application acknowledged — with a poll or a commit. A blocking send
    /// (`commitSync()`) holds the loop until it lands. Returns whether anything was sent.
    fn send_acks<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, blocking: bool) -> bool {
        let acks: Vec<Ack> = match cx.s.share_acknowledgement_mode {
            // Implicit mode acknowledges nothing itself (nothing pending): the whole batch.
            ShareAcknowledgementMode::Implicit if !self.batch_acknowledged => {
                self.batch_acknowledged = true;
                self.unacknowledged(0, AckKind::Accept)
            }
            ShareAcknowledgementMode::Implicit => Vec::new(),
            ShareAcknowledgementMode::Explicit => std::mem::take(&mut self.pending),
        };
        self.send(cx, world, acks, blocking)
    }

    /// Acknowledgements of kind `kind` for the last batch's records from index `from` on that
    /// the application has not acknowledged (none pending for them).
    fn unacknowledged(&self, from: usize, kind: AckKind) -> Vec<Ack> {
        let acknowledged =
            |p: PartitionId, o: u64| self.pending.iter().any(|a| (a.partition, a.offset) == (p, o));
        self.batch[from..]
            .iter()
            .filter(|&&(p, o)| !acknowledged(p, o))
            .map(|&(partition, offset)| Ack { partition, offset, kind })
            .collect()
    }

    fn send<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, acks: Vec<Ack>, blocking: bool) -> bool {
        if acks.is_empty() {
            return false;
        }
        let request = world.ack_requests.list.len();
        world.ack_requests.list.push((self.id, self.session, acks));
        self.requests_in_flight += 1;
        cx.schedule(
            cx.now_us + cx.s.commit_latency_us,
            Phase::Completion,
            self.id,
            Event::AcksLand { member: self.id, request: request as u32 },
        );
        if blocking {
            self.blocking_request = Some(request);
            self.blocked_since_us = Some(cx.now_us);
            self.resume_pc = self.pc;
            self.pc = Pc::Blocked;
        }
        true
    }

    // ---------------------------------------------------------------- lifecycle

    /// `close()`: the record in progress is dropped; what the application acknowledged is
    /// sent, and every other record of the last batch is released (implicit mode: the whole
    /// batch, processed or not, unless a commit acknowledged it). The member leaves once
    /// these land.
    fn close<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        self.mark(cx, 0, MarkKind::CloseCalled);
        self.life = Life::Closing;
        self.pc = Pc::Stopped;
        if let Some(since_us) = self.blocked_since_us.take() {
            cx.emit(Output::Unblocked { member: self.id, since_us, until_us: cx.now_us });
        }
        // The record in progress never ends; requests in flight still land (same session).
        self.incarnation += 1;
        let release =
            if self.batch_acknowledged { Vec::new() } else { self.unacknowledged(0, AckKind::Release) };
        let mut acks = std::mem::take(&mut self.pending);
        acks.extend(release);
        self.batch_acknowledged = true;
        self.send(cx, world, acks, false);
        if self.requests_in_flight == 0 {
            self.closed(cx, world);
        }
    }

    /// `close()` returned: the member leaves; whatever it still holds is released.
    fn closed<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        self.mark(cx, 0, MarkKind::Closed);
        self.go_down(cx, world);
        if let Some(after) = self.restart_after_us.take() {
            cx.schedule(cx.now_us + after, Phase::Lifecycle, self.id, Event::Restart { member: self.id });
        }
    }

    /// The process is gone (a crash, or after `close()`): its share session ends and every
    /// record it holds is released at once (`ShareSessionCache` disconnect → member leave).
    fn go_down<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        self.life = Life::Down;
        self.pc = Pc::Stopped;
        self.incarnation += 1;
        self.session += 1;
        self.requests_in_flight = 0;
        self.blocking_request = None;
        self.blocked_since_us = None;
        self.hung_until_us = 0;
        for partition in &mut world.share {
            partition.member_left(cx, self.id);
        }
        cx.emit(Output::MemberStatus { member: self.id, status: MemberStatus::Down });
    }
}
