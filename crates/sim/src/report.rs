//! What the group view reports (model.md §10.7), recorded from the engine's outputs: each
//! handover of a partition with what it loses and repeats, how long each partition stalls,
//! the rebalances, and the intervals each member spends down, hung or rebalancing.

use crate::output::{MemberId, MemberStatus, PartitionId};
use crate::runs::RunCounts;
use crate::scenario::Scenario;
use serde::Serialize;

/// A partition passed to a new owner, or back to its own member (model.md §10.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Handover {
    /// When, µs (the new owner's assignment; the horizon for a partition left without one).
    pub at_us: u64,
    /// The partition.
    pub partition: PartitionId,
    /// The member that held it before (index from 0), if any.
    pub from: Option<MemberId>,
    /// The member that holds it now (index from 0); `None` at the horizon, still unowned.
    pub to: Option<MemberId>,
    /// The committed offset the new owner starts from (`None`: the group has none).
    pub committed: Option<u64>,
    /// Offsets below it that never completed (at-most-once), newly at this handover, less
    /// those the previous owner's pool completed afterwards.
    pub lost: u64,
    /// Runs completed at or above it by the previous owner, which the new owner repeats
    /// (at-least-once), including those its pool completed afterwards.
    pub duplicated: u64,
}

/// One partition's totals over the horizon (model.md §10.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PartitionDamage {
    /// The partition.
    pub partition: PartitionId,
    /// Records lost at its handovers.
    pub lost: u64,
    /// Records processed again after its handovers.
    pub duplicated: u64,
    /// Time nobody processed it: from when its owner stopped until a poll handed out its
    /// records again (or the horizon), µs.
    pub stalled_us: u64,
}

/// A stretch of time `[from_us, to_us)`, µs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Interval {
    /// Start, µs.
    pub from_us: u64,
    /// End, µs (the horizon when it had not ended).
    pub to_us: u64,
}

/// What one member spent its time on (model.md §10.7).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MemberTime {
    /// The member (index from 0: `consumer-1` is 0).
    pub member: MemberId,
    /// Down: crashed, closed, or not started yet.
    pub down: Vec<Interval>,
    /// Hung: alive but not polling.
    pub hung: Vec<Interval>,
    /// Between its join and its new assignment.
    pub rebalancing: Vec<Interval>,
    /// Its loop's time waiting in `commitSync` / `commitTransaction` within the horizon, µs.
    pub blocked_on_commits_us: u64,
}

/// The group's report over the horizon (model.md §10.7).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GroupReport {
    /// Every handover after t = 0, in time order.
    pub handovers: Vec<Handover>,
    /// Per partition, in partition order.
    pub partitions: Vec<PartitionDamage>,
    /// Rebalances whose assignment arrived within the horizon.
    pub rebalances: u32,
    /// Per member, in member order.
    pub members: Vec<MemberTime>,
    /// The horizon the report covers, µs.
    pub horizon_us: u64,
}

impl GroupReport {
    /// Records lost over all partitions.
    pub fn lost(&self) -> u64 {
        self.partitions.iter().map(|p| p.lost).sum()
    }

    /// Records processed again over all partitions.
    pub fn duplicated(&self) -> u64 {
        self.partitions.iter().map(|p| p.duplicated).sum()
    }
}

/// One partition's bookkeeping.
#[derive(Clone)]
struct PartitionBooks {
    owner: Option<MemberId>,
    /// Offsets completed by the owner since its handover, as ranges `start..end` each run
    /// once, in the order they ran (a run repeated by the owner is in a range of its own): a
    /// day of one owner (issue 28's S-C) is one range, not 27,000 offsets.
    owner_runs: Vec<(u64, u64)>,
    /// Where the last handover's owner started, and the handover's index.
    last: Option<(u64, usize)>,
    /// Never-run offsets below the last handover's start, counted lost and not run since.
    lost_counted: u64,
    /// The partition's handovers whose `lost` is above 0, in time order: each one's index in
    /// the report's handovers and its `lost` (a late run takes one off the last).
    lossy: Vec<(usize, u64)>,
    /// The owner stopped processing since its handover.
    stopped: bool,
    stalled_since_us: Option<u64>,
}

/// Builds a [`GroupReport`] from the recorder's outputs.
#[derive(Clone)]
pub(crate) struct GroupRecorder {
    report: GroupReport,
    /// Whether the report lists the handovers (the sweep's totals need none of them).
    list_handovers: bool,
    books: Vec<PartitionBooks>,
    status: Vec<(MemberStatus, u64)>,
}

impl GroupRecorder {
    /// `handovers`: the room its list of handovers reserves, `None` for a report that lists
    /// none (the sweep's totals need none of them).
    pub(crate) fn new(partitions: usize, members: usize, handovers: Option<usize>) -> Self {
        GroupRecorder {
            list_handovers: handovers.is_some(),
            report: GroupReport {
                handovers: Vec::with_capacity(handovers.unwrap_or(0)),
                partitions: (0..partitions)
                    .map(|p| PartitionDamage {
                        partition: p as PartitionId,
                        lost: 0,
                        duplicated: 0,
                        stalled_us: 0,
                    })
                    .collect(),
                members: (0..members)
                    .map(|m| MemberTime { member: m as MemberId, ..MemberTime::default() })
                    .collect(),
                ..GroupReport::default()
            },
            books: (0..partitions)
                .map(|_| PartitionBooks {
                    owner: None,
                    owner_runs: Vec::new(),
                    last: None,
                    lost_counted: 0,
                    lossy: Vec::new(),
                    stopped: false,
                    stalled_since_us: None,
                })
                .collect(),
            status: vec![(MemberStatus::Active, 0); members],
        }
    }

    /// A run of `offset` completed; `ran_before`: k(offset) > 0 before it. A `late` run
    /// comes from a batch polled before the partition's last handover (a pool finishing
    /// after it): it counts against that handover, as duplicated at or above where the new
    /// owner started, else no longer lost.
    pub(crate) fn run_completed(
        &mut self,
        partition: PartitionId,
        offset: u64,
        ran_before: bool,
        late: bool,
    ) {
        let p = partition as usize;
        let books = &mut self.books[p];
        if !late {
            match books.owner_runs.last_mut() {
                Some((_, end)) if *end == offset => *end += 1,
                _ => books.owner_runs.push((offset, offset + 1)),
            }
            return;
        }
        let Some((start, index)) = books.last else { return };
        let damage = &mut self.report.partitions[p];
        if offset >= start {
            if self.list_handovers {
                self.report.handovers[index].duplicated += 1;
            }
            damage.duplicated += 1;
        } else if !ran_before && books.lost_counted > 0 {
            // No longer lost: taken off the latest handover of the partition that counted
            // a loss (the last one may have counted none), so the totals stay its sums.
            books.lost_counted -= 1;
            if let Some((index, lost)) = books.lossy.last_mut() {
                *lost -= 1;
                if self.list_handovers {
                    self.report.handovers[*index].lost -= 1;
                }
                damage.lost -= 1;
                if *lost == 0 {
                    books.lossy.pop();
                }
            }
        }
    }

    /// `partition` passes to `to` at `at_us` (`None`: counted at the horizon, unowned).
    pub(crate) fn handover(
        &mut self,
        s: &Scenario,
        at_us: u64,
        partition: PartitionId,
        to: Option<MemberId>,
        committed: Option<u64>,
        runs: &RunCounts,
    ) {
        let p = partition as usize;
        let books = &mut self.books[p];
        let start = s.restart_offset(committed, at_us);
        let duplicated =
            books.owner_runs.iter().map(|&(from, end)| end.saturating_sub(from.max(start))).sum();
        let never_run = runs.range_counts(s.log_start_offset, start).never_run;
        let lost = never_run.saturating_sub(books.lost_counted);
        books.lost_counted = never_run;
        let from = books.owner;
        books.owner = to;
        books.owner_runs.clear();
        books.stopped = false;
        if at_us == 0 && from.is_none() {
            return; // the group's first assignment
        }
        let index = self.report.handovers.len();
        books.last = Some((start, index));
        if lost > 0 {
            books.lossy.push((index, lost));
        }
        if self.list_handovers {
            self.report.handovers.push(Handover { at_us, partition, from, to, committed, lost, duplicated });
        }
        let damage = &mut self.report.partitions[p];
        damage.lost += lost;
        damage.duplicated += duplicated;
    }

    /// The owner of `partition` stopped processing it at `at_us`.
    pub(crate) fn stopped(&mut self, at_us: u64, partition: PartitionId) {
        let books = &mut self.books[partition as usize];
        books.stopped = true;
        books.stalled_since_us.get_or_insert(at_us);
    }

    /// A poll handed out records of `partition` at `at_us`: a stall ends.
    pub(crate) fn polled(&mut self, at_us: u64, partition: PartitionId, horizon_us: u64) {
        let p = partition as usize;
        if let Some(since) = self.books[p].stalled_since_us.take() {
            self.report.partitions[p].stalled_us += at_us.min(horizon_us).saturating_sub(since);
        }
        self.books[p].stopped = false;
    }

    /// A member's status changed at `at_us`.
    pub(crate) fn member_status(
        &mut self,
        at_us: u64,
        member: MemberId,
        status: MemberStatus,
        horizon_us: u64,
    ) {
        let m = member as usize;
        let (was, since) = self.status[m];
        self.close_interval(m, was, since, at_us.min(horizon_us));
        self.status[m] = (status, at_us);
    }

    fn close_interval(&mut self, m: usize, status: MemberStatus, from_us: u64, to_us: u64) {
        if to_us <= from_us {
            return;
        }
        let time = &mut self.report.members[m];
        let list = match status {
            MemberStatus::Down => &mut time.down,
            MemberStatus::Hung => &mut time.hung,
            MemberStatus::Rebalancing => &mut time.rebalancing,
            MemberStatus::Active | MemberStatus::Idle => return,
        };
        match list.last_mut() {
            Some(last) if last.to_us == from_us => last.to_us = to_us,
            _ => list.push(Interval { from_us, to_us }),
        }
    }

    /// Member `member`'s loop waited `blocked_us` on a commit within the horizon.
    pub(crate) fn blocked(&mut self, member: MemberId, blocked_us: u64) {
        self.report.members[member as usize].blocked_on_commits_us += blocked_us;
    }

    /// A rebalance's assignment arrived at `at_us`.
    pub(crate) fn rebalance(&mut self, at_us: u64, horizon_us: u64) {
        self.report.rebalances += u32::from(at_us <= horizon_us);
    }

    /// The run ended at the horizon: partitions still without an owner are handed over
    /// there; open stalls and intervals close there.
    pub(crate) fn finish(
        mut self,
        s: &Scenario,
        committed: &[Option<u64>],
        runs: &[&RunCounts],
    ) -> GroupReport {
        let horizon = s.horizon_us;
        self.report.horizon_us = horizon;
        for p in 0..self.books.len() {
            if self.books[p].stopped {
                self.handover(s, horizon, p as PartitionId, None, committed[p], runs[p]);
            }
            if let Some(since) = self.books[p].stalled_since_us.take() {
                self.report.partitions[p].stalled_us += horizon.saturating_sub(since);
            }
        }
        for m in 0..self.status.len() {
            let (status, since) = self.status[m];
            self.close_interval(m, status, since, horizon);
        }
        self.report
    }
}

// The sweep's results (model.md §10.7), here because the summary below reads them;
// `crate::sweep` computes them.

/// The group's total damage when the first event happens at `at_us`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GroupPoint {
    /// The first event's instant T, µs.
    pub at_us: u64,
    /// Records lost at the handovers, all partitions.
    pub lost: u64,
    /// Records processed again after the handovers, all partitions.
    pub duplicated: u64,
}

/// The damage as a function of the first event's instant, with its worst instants.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GroupProfile {
    /// The event moved: its index in `group_events`.
    pub event: usize,
    /// One point per instant evaluated, in time order.
    pub points: Vec<GroupPoint>,
    /// The largest `lost` and the earliest instant reaching it (`None` when it is 0).
    pub worst_lost: (u64, Option<u64>),
    /// The largest `duplicated` and the earliest instant reaching it (`None` when it is 0).
    pub worst_duplicated: (u64, Option<u64>),
    /// The candidate instants (model.md §10.7); `points` holds one per candidate evaluated
    /// (fewer when the moved scenario is refused at some).
    pub candidates: usize,
    /// Only every k-th candidate was evaluated: the whole scan would not fit the sweep's
    /// event budget (`sweep::SWEEP_EVENTS`); the worst instants are then those of the
    /// candidates evaluated.
    pub thinned: bool,
}

impl GroupProfile {
    /// The sweep's point at the latest instant it evaluated at or before `at_us` (`None`
    /// before the first): what the group page shows while a drag of a big group's first
    /// event is not yet simulated. An estimate of the run with the event at `at_us`, not its
    /// totals: between two candidates the group the event meets is the same (model.md
    /// §10.7), but what the event's own durations (a hang's end, a restart) meet later can
    /// differ.
    pub fn at(&self, at_us: u64) -> Option<GroupPoint> {
        let after = self.points.partition_point(|p| p.at_us <= at_us);
        after.checked_sub(1).map(|i| self.points[i])
    }

    /// The profile as one list of whole numbers, for handing it from one WebAssembly module to
    /// another (the group page's worker, crates/group-worker): the event, the candidates,
    /// `thinned` as 0 or 1, the worst lost and its instant, the worst duplicated and its
    /// instant (an instant `u64::MAX` for none), then `at_us`, `lost`, `duplicated` of each
    /// point. [`GroupProfile::from_flat`] reads it back.
    pub fn to_flat(&self) -> Vec<u64> {
        let none = |at: Option<u64>| at.unwrap_or(u64::MAX);
        let mut flat = vec![
            self.event as u64,
            self.candidates as u64,
            u64::from(self.thinned),
            self.worst_lost.0,
            none(self.worst_lost.1),
            self.worst_duplicated.0,
            none(self.worst_duplicated.1),
        ];
        flat.reserve(3 * self.points.len());
        for p in &self.points {
            flat.extend([p.at_us, p.lost, p.duplicated]);
        }
        flat
    }

    /// The profile that [`GroupProfile::to_flat`] wrote; `None` for a list it cannot have
    /// written (too short, a point cut off, `thinned` not 0 or 1).
    pub fn from_flat(flat: &[u64]) -> Option<GroupProfile> {
        let (&[event, candidates, thinned, lost, lost_at, duplicated, duplicated_at], points) =
            flat.split_first_chunk::<7>()?;
        if thinned > 1 || points.len() % 3 != 0 {
            return None;
        }
        let some = |at: u64| (at != u64::MAX).then_some(at);
        Some(GroupProfile {
            event: usize::try_from(event).ok()?,
            points: points
                .chunks_exact(3)
                .map(|p| GroupPoint { at_us: p[0], lost: p[1], duplicated: p[2] })
                .collect(),
            worst_lost: (lost, some(lost_at)),
            worst_duplicated: (duplicated, some(duplicated_at)),
            candidates: usize::try_from(candidates).ok()?,
            thinned: thinned == 1,
        })
    }
}

/// [`GroupReport`] in the result JSON's words (model.md §10.7): milliseconds, members as N
/// of `consumer-N` (from 1), totals, and the worst instants of the first event.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupSummary {
    /// Records lost at all handovers.
    pub lost: u64,
    /// Records processed again after all handovers.
    pub duplicated: u64,
    /// Rebalances whose assignment arrived within the horizon.
    pub rebalances: u32,
    /// Per partition.
    pub partitions: Vec<PartitionSummary>,
    /// Per member.
    pub members: Vec<MemberSummary>,
    /// Every handover after t = 0.
    pub handovers: Vec<HandoverSummary>,
    /// The damage as a function of the first event's instant: its worst instants.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_event: Option<FirstEventSummary>,
}

/// One partition's totals, ms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PartitionSummary {
    /// The partition (`orders-N`).
    pub partition: PartitionId,
    /// Records lost.
    pub lost: u64,
    /// Records processed again.
    pub duplicated: u64,
    /// Time nobody processed it, ms.
    pub stalled_ms: f64,
}

/// One member's intervals, ms, as `[from, to]` pairs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemberSummary {
    /// N of `consumer-N`.
    pub member: u16,
    /// Down.
    pub down: Vec<[f64; 2]>,
    /// Hung.
    pub hung: Vec<[f64; 2]>,
    /// Waiting in a rebalance.
    pub rebalancing: Vec<[f64; 2]>,
    /// Fraction 0..1 of the horizon its loop spent blocked on commits (the result's
    /// `blocked_on_commits` is the mean of these).
    pub blocked_on_commits: f64,
}

/// One handover, ms; members as N of `consumer-N`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HandoverSummary {
    /// When, ms.
    pub at_ms: f64,
    /// The partition.
    pub partition: PartitionId,
    /// Its previous owner (N), if any.
    pub from: Option<u16>,
    /// Its new owner (N); `null` at the horizon, still unowned.
    pub to: Option<u16>,
    /// Where the new owner starts.
    pub committed: Option<u64>,
    /// Records lost.
    pub lost: u64,
    /// Records processed again.
    pub duplicated: u64,
}

/// The worst instants of the first group event (model.md §10.7).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FirstEventSummary {
    /// Its index in `group_events`.
    pub event: usize,
    /// Instants evaluated.
    pub instants: usize,
    /// Candidate instants (model.md §10.7): every one is evaluated unless `thinned`.
    pub candidates: usize,
    /// Only every k-th candidate was evaluated (the whole scan would not fit the sweep's
    /// event budget): the worst instants are those of the candidates evaluated.
    pub thinned: bool,
    /// The largest total lost.
    pub worst_lost: u64,
    /// The earliest instant reaching it, ms (`null` when it is 0).
    pub worst_lost_at_ms: Option<f64>,
    /// The largest total duplicated.
    pub worst_duplicated: u64,
    /// The earliest instant reaching it, ms (`null` when it is 0).
    pub worst_duplicated_at_ms: Option<f64>,
}

impl GroupSummary {
    /// The summary of `report`, with `profile`'s worst instants when there is one.
    pub fn new(report: &GroupReport, profile: Option<&GroupProfile>) -> Self {
        use crate::keys::millis_f64;
        let n = |m: MemberId| m + 1;
        let pairs =
            |list: &[Interval]| list.iter().map(|i| [millis_f64(i.from_us), millis_f64(i.to_us)]).collect();
        GroupSummary {
            lost: report.lost(),
            duplicated: report.duplicated(),
            rebalances: report.rebalances,
            partitions: report
                .partitions
                .iter()
                .map(|p| PartitionSummary {
                    partition: p.partition,
                    lost: p.lost,
                    duplicated: p.duplicated,
                    stalled_ms: millis_f64(p.stalled_us),
                })
                .collect(),
            members: report
                .members
                .iter()
                .map(|m| MemberSummary {
                    member: n(m.member),
                    down: pairs(&m.down),
                    hung: pairs(&m.hung),
                    rebalancing: pairs(&m.rebalancing),
                    blocked_on_commits: m.blocked_on_commits_us as f64 / report.horizon_us as f64,
                })
                .collect(),
            handovers: report
                .handovers
                .iter()
                .map(|h| HandoverSummary {
                    at_ms: millis_f64(h.at_us),
                    partition: h.partition,
                    from: h.from.map(n),
                    to: h.to.map(n),
                    committed: h.committed,
                    lost: h.lost,
                    duplicated: h.duplicated,
                })
                .collect(),
            first_event: profile.map(|p| FirstEventSummary {
                event: p.event,
                instants: p.points.len(),
                candidates: p.candidates,
                thinned: p.thinned,
                worst_lost: p.worst_lost.0,
                worst_lost_at_ms: p.worst_lost.1.map(millis_f64),
                worst_duplicated: p.worst_duplicated.0,
                worst_duplicated_at_ms: p.worst_duplicated.1.map(millis_f64),
            }),
        }
    }
}
