//! What the lanes show, read from a [`Run`] after the fact (the core is not asked again):
//! who owns each partition when, what each member is doing when, and, for a share group,
//! each record's state over time.
//!
//! * Owners come from the `Assigned` and `Revoked` marks (docs/model.md §10.5–10.6); the
//!   group's first assignment at t = 0 has no mark, so a partition's first owner is the
//!   member whose poll or revocation of it comes before any assignment of it.
//! * A consumer group's member intervals down, hung and rebalancing are the group report's
//!   (§10.7); the rest of a member's time is *active* while it owns a partition and *idle*
//!   while it owns none. A share group has no report and no owners: its members are down
//!   from a crash or a returned `close()` to their next start, hung for the hang's
//!   `duration_ms`, and active otherwise (§11.4).
//! * A share-group record (§11.1) is *acquired* by a member from its `ShareAcquired` mark,
//!   *available* again after a release or an expired lock, and ends *accepted*, *rejected*
//!   or *archived*; before its first delivery it has no state on the strip.

use offset_window_sim::events::GroupEventKind;
use offset_window_sim::keys::sort_ascending;
use offset_window_sim::{MarkKind, MemberId, Run};

/// A stretch `[from_us, to_us)` of simulated time with one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span<T> {
    /// Start, µs.
    pub from_us: u64,
    /// End, µs (the horizon when it had not ended).
    pub to_us: u64,
    /// What holds over it.
    pub what: T,
}

/// Appends `what` over `[from, to)`, joining it to the last span when that one holds the
/// same value and ends where this starts; empty stretches are dropped.
fn push<T: PartialEq + Copy>(spans: &mut Vec<Span<T>>, from_us: u64, to_us: u64, what: T) {
    if to_us <= from_us {
        return;
    }
    match spans.last_mut() {
        Some(last) if last.what == what && last.to_us == from_us => last.to_us = to_us,
        _ => spans.push(Span { from_us, to_us, what }),
    }
}

/// Each partition's owner over `[0, horizon)` (`None`: nobody holds it); empty lists for a
/// share group, whose partitions have no owner.
pub fn owners(run: &Run) -> Vec<Vec<Span<Option<MemberId>>>> {
    let partitions = run.partitions.len();
    let horizon = run.scenario.horizon_us;
    let mut out: Vec<Vec<Span<Option<MemberId>>>> = vec![Vec::new(); partitions];
    if run.scenario.share_group() {
        return out;
    }
    // The first owner: whoever polls or gives up the partition before any assignment of it.
    let mut first: Vec<Option<Option<MemberId>>> = vec![None; partitions];
    // Only polls, revocations and assignments count: the marks without the records' (the
    // log's walk that keeps nothing and skips its ramps of records).
    for m in run.marks.other_than_records() {
        let p = m.partition as usize;
        if p >= partitions || first[p].is_some() {
            continue;
        }
        match m.kind {
            MarkKind::Poll { .. } | MarkKind::Revoked => first[p] = Some(Some(m.member)),
            MarkKind::Assigned => first[p] = Some(None),
            _ => {}
        }
    }
    let mut current: Vec<(u64, Option<MemberId>)> = first.iter().map(|f| (0, f.flatten())).collect();
    for m in run.marks.other_than_records().take_while(|m| m.at_us < horizon) {
        let p = m.partition as usize;
        if p >= partitions {
            continue;
        }
        let next = match m.kind {
            MarkKind::Assigned => Some(m.member),
            MarkKind::Revoked if current[p].1 == Some(m.member) => None,
            _ => continue,
        };
        let (since, owner) = current[p];
        if owner != next {
            push(&mut out[p], since, m.at_us, owner);
            current[p] = (m.at_us, next);
        }
    }
    for (p, (since, owner)) in current.into_iter().enumerate() {
        push(&mut out[p], since, horizon, owner);
    }
    out
}

/// What a member is doing (the member lanes, docs/model.md §10.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activity {
    /// Processing: it owns at least one partition (a share-group member that is running).
    Active,
    /// In the group with no partition.
    Idle,
    /// Alive but not polling (a hang).
    Hung,
    /// Between its join and its new assignment.
    Rebalancing,
    /// Not running: crashed, closed, or not started yet.
    Down,
}

impl Activity {
    /// The word the lanes' legend and text use.
    pub fn word(self) -> &'static str {
        match self {
            Activity::Active => "active",
            Activity::Idle => "idle (no partition)",
            Activity::Hung => "hung",
            Activity::Rebalancing => "rebalancing",
            Activity::Down => "down",
        }
    }
}

/// The intervals of `member` (index from 0) in `list` of a group report, as spans.
fn report_spans(list: &[offset_window_sim::report::Interval], what: Activity) -> Vec<Span<Activity>> {
    list.iter().map(|i| Span { from_us: i.from_us, to_us: i.to_us, what }).collect()
}

/// A share-group member's down and hung spans, from the marks and the hang events.
fn share_member_spans(run: &Run, member: MemberId) -> Vec<Span<Activity>> {
    let s = &run.scenario;
    let horizon = s.horizon_us;
    let mut spans = Vec::new();
    // A member added by a join is down until it starts.
    let mut down_since = (u32::from(member) >= s.members).then_some(0);
    for m in run.marks.iter().filter(|m| m.member == member).take_while(|m| m.at_us <= horizon) {
        match m.kind {
            MarkKind::Crashed | MarkKind::Closed => {
                down_since.get_or_insert(m.at_us);
            }
            MarkKind::Started => {
                if let Some(since) = down_since.take() {
                    push(&mut spans, since, m.at_us, Activity::Down);
                }
            }
            MarkKind::HangStarted => {
                let duration = s
                    .group_events
                    .iter()
                    .find(|e| e.kind == GroupEventKind::Hang && e.member == member + 1 && e.at_us == m.at_us)
                    .map_or(horizon, |e| e.duration_us);
                push(&mut spans, m.at_us, (m.at_us + duration).min(horizon), Activity::Hung);
            }
            _ => {}
        }
    }
    if let Some(since) = down_since {
        push(&mut spans, since, horizon, Activity::Down);
    }
    spans
}

/// Every member's activity over `[0, horizon)`, in member order (consumer-1 first): the
/// report's (or, for a share group, the marks') down, hung and rebalancing spans, the rest
/// active or idle by whether the member owns a partition then (`owners`: [`owners`] of `run`).
pub fn member_spans(run: &Run, owners: &[Vec<Span<Option<MemberId>>>]) -> Vec<Vec<Span<Activity>>> {
    let horizon = run.scenario.horizon_us;
    let count = run.scenario.member_count() as usize;
    // Each member's ownership spans (from, to), gathered in one pass over every partition's.
    let mut owned: Vec<Vec<(u64, u64)>> = vec![Vec::new(); count];
    for s in owners.iter().flatten() {
        if let Some(spans) = s.what.and_then(|m| owned.get_mut(m as usize)) {
            spans.push((s.from_us, s.to_us));
        }
    }
    (0..count)
        .map(|m| {
            let member = m as MemberId;
            // The spans that override active/idle, in priority order: down, hung, rebalancing.
            let mut fixed: Vec<Span<Activity>> = match &run.group {
                Some(g) => g.members.get(m).map_or(Vec::new(), |t| {
                    let mut v = report_spans(&t.down, Activity::Down);
                    v.extend(report_spans(&t.hung, Activity::Hung));
                    v.extend(report_spans(&t.rebalancing, Activity::Rebalancing));
                    v
                }),
                None => share_member_spans(run, member),
            };
            fixed.retain(|s| s.from_us < horizon);
            // The member's ownership edges in time order, where it starts holding a partition
            // and where it stops: the starts passed less the stops passed say whether it holds
            // any at a cut, without scanning every partition's spans at each (1024 partitions
            // × 128 members took seconds). Two lists of instants rather than one of (instant,
            // ±1), sorted by the core's heap sort of u64 (`sort_ascending`): the page links no
            // standard library sort.
            let mut starts: Vec<u64> = owned[m].iter().map(|s| s.0).collect();
            let mut stops: Vec<u64> = owned[m].iter().map(|s| s.1).collect();
            sort_ascending(&mut starts);
            sort_ascending(&mut stops);
            // Instants where anything changes: the fixed spans' edges and the ownership's.
            let mut edges: Vec<u64> = vec![0, horizon];
            edges.extend(fixed.iter().flat_map(|s| [s.from_us, s.to_us.min(horizon)]));
            sort_ascending(&mut edges);
            let mut cuts = merged(&merged(&starts, &stops), &edges);
            cuts.dedup();
            // Between each cut and the next, the fixed span that overrides (its edges are cuts).
            let rank = |a: Activity| match a {
                Activity::Down => 0,
                Activity::Hung => 1,
                Activity::Rebalancing => 2,
                _ => 3,
            };
            let mut fixed_at: Vec<Option<Activity>> = vec![None; cuts.len()];
            for s in &fixed {
                let first = cuts.partition_point(|&c| c < s.from_us);
                for at in fixed_at.iter_mut().take(cuts.partition_point(|&c| c < s.to_us)).skip(first) {
                    if at.is_none_or(|a| rank(s.what) < rank(a)) {
                        *at = Some(s.what);
                    }
                }
            }
            let (mut started, mut stopped) = (0usize, 0usize);
            let share = run.scenario.share_group();
            let mut spans = Vec::new();
            for (w, fixed) in cuts.windows(2).zip(fixed_at) {
                let (from, to) = (w[0], w[1]);
                while starts.get(started).is_some_and(|&t| t <= from) {
                    started += 1;
                }
                while stops.get(stopped).is_some_and(|&t| t <= from) {
                    stopped += 1;
                }
                let held = started > stopped;
                let what = fixed.unwrap_or(if held || share { Activity::Active } else { Activity::Idle });
                push(&mut spans, from, to, what);
            }
            spans
        })
        .collect()
}

/// Two ascending lists as one.
fn merged(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] <= b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// A share-group record's state (docs/model.md §11.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordState {
    /// Offered again after a release or an expired lock, waiting for a member.
    Available,
    /// Acquired by a member (index from 0): its `delivery`-th delivery.
    Acquired {
        /// Who holds it.
        member: MemberId,
        /// Deliveries so far, this one included.
        delivery: u32,
    },
    /// An ACCEPT landed: it ended.
    Accepted,
    /// A REJECT landed: it ended, never to be delivered again.
    Rejected,
    /// Archived at `group.share.delivery.count.limit`: ended, never delivered again.
    Archived,
}

impl RecordState {
    /// The words the strip's legend and text use.
    pub fn words(self) -> String {
        match self {
            RecordState::Available => "available again".to_string(),
            RecordState::Acquired { member, .. } => format!("acquired by consumer-{}", member + 1),
            RecordState::Accepted => "acknowledged (accepted)".to_string(),
            RecordState::Rejected => "rejected".to_string(),
            RecordState::Archived => "archived".to_string(),
        }
    }
}

/// One record's row of the share strip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordLine {
    /// The record's offset.
    pub offset: u64,
    /// Its states from its first delivery on, over `[first delivery, horizon)`.
    pub spans: Vec<Span<RecordState>>,
    /// When a run of it completed, and by whom.
    pub processed: Vec<(u64, MemberId)>,
    /// When a RENEW of it landed (its lock started over, docs/model.md §11.3).
    pub renewed: Vec<u64>,
}

impl RecordLine {
    /// Its state at `at_us` (every event before that instant happened, none at it); `None`
    /// before its first delivery.
    pub fn state_at(&self, at_us: u64) -> Option<RecordState> {
        self.spans.iter().rev().find(|s| s.from_us < at_us).map(|s| s.what)
    }

    /// Where the lock of a holding that began at `held_from_us` runs from, as seen at `at_us`:
    /// its last renewal before then, else the holding's start (docs/model.md §11.3).
    pub fn lock_from(&self, held_from_us: u64, at_us: u64) -> u64 {
        let renewed = self.renewed.iter().copied().filter(|&t| t >= held_from_us && t < at_us);
        renewed.max().unwrap_or(held_from_us)
    }
}

/// The rows of the share strip: records `from..from + rows` of `partition`, each with its
/// states over time, built from the marks in one pass (docs/model.md §11).
pub fn record_lines(run: &Run, partition: u32, from: u64, rows: u64) -> Vec<RecordLine> {
    let horizon = run.scenario.horizon_us;
    let mut lines: Vec<RecordLine> = (from..from.saturating_add(rows))
        .map(|offset| RecordLine { offset, spans: Vec::new(), processed: Vec::new(), renewed: Vec::new() })
        .collect();
    let mut current: Vec<Option<(u64, RecordState)>> = vec![None; lines.len()];
    for m in run.marks.iter().take_while(|m| m.at_us < horizon) {
        if u32::from(m.partition) != partition {
            continue;
        }
        let (offset, next) = match m.kind {
            MarkKind::ShareRenewed { offset } if offset >= from && offset - from < rows => {
                lines[(offset - from) as usize].renewed.push(m.at_us);
                continue;
            }
            MarkKind::ShareAcquired { offset, delivery } => {
                (offset, RecordState::Acquired { member: m.member, delivery })
            }
            MarkKind::ShareReleased { offset } | MarkKind::ShareLockExpired { offset } => {
                (offset, RecordState::Available)
            }
            MarkKind::ShareAccepted { offset } => (offset, RecordState::Accepted),
            MarkKind::ShareRejected { offset } => (offset, RecordState::Rejected),
            MarkKind::ShareArchived { offset } => (offset, RecordState::Archived),
            MarkKind::RecordDurable { offset } if offset >= from && offset - from < rows => {
                lines[(offset - from) as usize].processed.push((m.at_us, m.member));
                continue;
            }
            _ => continue,
        };
        if offset < from || offset - from >= rows {
            continue;
        }
        let i = (offset - from) as usize;
        if let Some((since, what)) = current[i] {
            push(&mut lines[i].spans, since, m.at_us, what);
        }
        current[i] = Some((m.at_us, next));
    }
    for (i, c) in current.into_iter().enumerate() {
        if let Some((since, what)) = c {
            push(&mut lines[i].spans, since, horizon, what);
        }
    }
    lines
}

/// The strip's records at `at_us` in words, by state: "acquired by consumer-1: 30–34;
/// acknowledged (accepted): 0–29; not delivered yet: 35–39".
pub fn strip_words(lines: &[RecordLine], at_us: u64) -> String {
    let mut groups: Vec<(String, Vec<std::ops::Range<u64>>)> = Vec::new();
    for line in lines {
        let key = line.state_at(at_us).map_or("not delivered yet".to_string(), |s| s.words());
        let o = line.offset;
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, ranges)) => match ranges.last_mut() {
                Some(r) if r.end == o => r.end = o + 1,
                _ => ranges.push(o..o + 1),
            },
            None => groups.push((key, std::iter::once(o..o + 1).collect())),
        }
    }
    groups
        .iter()
        .map(|(k, r)| format!("{k}: {}", crate::kit::text::ranges(r, 0)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The acquisition locks held at `at_us` among `lines`, each with when it runs out
/// (acquired or last renewed + `group.share.record.lock.duration.ms`, docs/model.md §11.2,
/// §11.3): "consumer-1
/// holds 30–34 (delivery 1), lock runs out at 33.000 s". Empty when no record is held.
pub fn lock_words(lines: &[RecordLine], at_us: u64, lock_us: u64) -> Vec<String> {
    // (member, delivery, expiry) → offsets, in order of first appearance.
    type Held = (MemberId, u32, u64);
    let mut groups: Vec<(Held, Vec<std::ops::Range<u64>>)> = Vec::new();
    for line in lines {
        let Some(span) = line.spans.iter().rev().find(|s| s.from_us < at_us) else { continue };
        let RecordState::Acquired { member, delivery } = span.what else { continue };
        let key = (member, delivery, line.lock_from(span.from_us, at_us).saturating_add(lock_us));
        let o = line.offset;
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, ranges)) => match ranges.last_mut() {
                Some(r) if r.end == o => r.end = o + 1,
                _ => ranges.push(o..o + 1),
            },
            None => groups.push((key, std::iter::once(o..o + 1).collect())),
        }
    }
    groups
        .iter()
        .map(|((member, delivery, expiry), r)| {
            format!(
                "consumer-{} holds {} (delivery {delivery}), lock runs out at {} s",
                member + 1,
                crate::kit::text::ranges(r, 0),
                crate::kit::text::seconds_text(*expiry)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use offset_window_sim::{simulate, Input};

    fn run_of(name: &str) -> Run {
        let i = super::super::presets::by_name(name).unwrap();
        simulate(&super::super::presets::input(i).unwrap().scenario).unwrap()
    }

    /// A member is active, outside its down, hung and rebalancing spans, exactly where it
    /// holds a partition (the running count against a scan of every partition's owners), on
    /// every consumer-group preset of up to 64 partitions.
    #[test]
    fn members_are_active_exactly_where_they_hold_a_partition() {
        let presets = super::super::presets::PRESETS.iter().zip(super::super::presets::FILES);
        for (i, (_, file)) in presets.enumerate().filter(|(_, (p, _))| !p.share) {
            let scenario = super::super::presets::input(i).unwrap().scenario;
            if scenario.partitions > 64 {
                continue;
            }
            let run = simulate(&scenario).unwrap();
            let owners = owners(&run);
            for (m, lane) in member_spans(&run, &owners).iter().enumerate() {
                for s in lane.iter().filter(|s| matches!(s.what, Activity::Active | Activity::Idle)) {
                    let holds = owners.iter().flatten().any(|o| {
                        o.what == Some(m as MemberId) && o.from_us <= s.from_us && s.from_us < o.to_us
                    });
                    assert_eq!(
                        s.what == Activity::Active,
                        holds,
                        "{} consumer-{} at {}",
                        file,
                        m + 1,
                        s.from_us
                    );
                }
            }
        }
    }

    #[test]
    fn g1_owners_and_member_lanes() {
        let run = run_of("g1-crash-waits-out-the-session");
        let o = owners(&run);
        assert_eq!(
            o[1],
            vec![
                Span { from_us: 0, to_us: 8_200_000, what: Some(1) },
                Span { from_us: 8_200_000, to_us: 52_015_000, what: None },
                Span { from_us: 52_015_000, to_us: 60_000_000, what: Some(0) },
            ]
        );
        let m = member_spans(&run, &owners(&run));
        assert_eq!(
            m[1],
            vec![
                Span { from_us: 0, to_us: 8_200_000, what: Activity::Active },
                Span { from_us: 8_200_000, to_us: 60_000_000, what: Activity::Down },
            ]
        );
        assert_eq!(
            m[0],
            vec![
                Span { from_us: 0, to_us: 52_000_000, what: Activity::Active },
                Span { from_us: 52_000_000, to_us: 52_015_000, what: Activity::Rebalancing },
                Span { from_us: 52_015_000, to_us: 60_000_000, what: Activity::Active },
            ]
        );
    }

    #[test]
    fn a_member_without_partitions_is_idle_and_a_new_one_down_until_it_starts() {
        // Three members on two partitions: consumer-3 has none (range).
        let s = Input::from_json(r#"{"partitions":2,"members":3,"horizon_ms":20000,"group_events":[{"at_ms":5000,"member":4,"kind":"join"}]}"#)
            .unwrap()
            .scenario;
        let run = simulate(&s).unwrap();
        let m = member_spans(&run, &owners(&run));
        assert_eq!(m[2][0], Span { from_us: 0, to_us: m[2][0].to_us, what: Activity::Idle });
        assert_eq!(m[3][0], Span { from_us: 0, to_us: 5_000_000, what: Activity::Down });
        // Every lane covers the horizon without a gap.
        for lane in &m {
            assert_eq!(lane.first().unwrap().from_us, 0);
            assert_eq!(lane.last().unwrap().to_us, 20_000_000);
            assert!(lane.windows(2).all(|w| w[0].to_us == w[1].from_us && w[0].what != w[1].what));
        }
    }

    #[test]
    fn share_members_hang_and_go_down() {
        let run = run_of("share-hang-waits-for-the-lock");
        let m = member_spans(&run, &owners(&run));
        assert_eq!(m[0][1], Span { from_us: 3_100_000, to_us: 43_100_000, what: Activity::Hung });
        let run = run_of("share-crash-releases-at-once");
        let m = member_spans(&run, &owners(&run));
        assert_eq!(m[0][1], Span { from_us: 3_100_000, to_us: 20_000_000, what: Activity::Down });
        assert!(owners(&run).iter().all(Vec::is_empty));
    }

    #[test]
    fn s2_record_0_is_delivered_five_times_then_archived() {
        let run = run_of("s11-s2-release-until-archived");
        let lines = record_lines(&run, 0, 0, 3);
        let zero = &lines[0];
        let deliveries: Vec<u32> = zero
            .spans
            .iter()
            .filter_map(|s| match s.what {
                RecordState::Acquired { delivery, .. } => Some(delivery),
                _ => None,
            })
            .collect();
        assert_eq!(deliveries, vec![1, 2, 3, 4, 5]);
        assert_eq!(zero.spans.last().unwrap().what, RecordState::Archived);
        assert_eq!(zero.spans.last().unwrap().from_us, 7_405_000);
        assert_eq!(
            zero.state_at(7_405_000),
            Some(RecordState::Acquired { member: 0, delivery: 5 }),
            "released and archived at 7.405 s itself (its fifth delivery came alone at 7.2 s, model.md §11.2)"
        );
        assert_eq!(zero.state_at(7_405_001), Some(RecordState::Archived));
        assert!(zero.processed.is_empty(), "record 0 never completes");
        assert_eq!(lines[1].spans.last().unwrap().what, RecordState::Accepted);
        assert_eq!(lines[1].processed.len(), 1);
    }

    #[test]
    fn the_strip_in_words() {
        let run = run_of("share-crash-releases-at-once");
        let lines = record_lines(&run, 0, 25, 15);
        assert_eq!(
            strip_words(&lines, 3_050_000),
            "acknowledged (accepted): 25–29; acquired by consumer-1: 30–34; acquired by consumer-2: 35–39"
        );
        assert_eq!(
            strip_words(&lines, 3_100_001),
            "acknowledged (accepted): 25–29; available again: 30–34; acquired by consumer-2: 35–39"
        );
        assert!(
            strip_words(&lines, 5_000_001).contains("acquired by consumer-2: 30–34"),
            "{}",
            strip_words(&lines, 5_000_001)
        );
    }

    #[test]
    fn lock_timers_in_words() {
        // share-hang-waits-for-the-lock: consumer-1 hangs holding its records; they stay
        // locked for group.share.record.lock.duration.ms from their acquisition.
        let run = run_of("share-hang-waits-for-the-lock");
        let lock = run.scenario.share_record_lock_duration_us;
        let lines = record_lines(&run, 0, 0, 40);
        let held = lock_words(&lines, 3_050_000, lock);
        assert_eq!(
            held,
            vec![
                "consumer-1 holds 30–34 (delivery 1), lock runs out at 33.000 s",
                "consumer-2 holds 35–39 (delivery 1), lock runs out at 33.000 s"
            ]
        );
        assert!(lock_words(&lines, 0, lock).is_empty(), "nothing is held before the first poll");
    }

    #[test]
    fn a_renewed_lock_runs_from_its_last_renewal() {
        // share-renew-keeps-the-lock: offset 0's RENEWs land at 15.005 and 30.005 s.
        let run = run_of("share-renew-keeps-the-lock");
        let lock = run.scenario.share_record_lock_duration_us;
        let lines = record_lines(&run, 0, 0, 1);
        let at = |ms: u64| lock_words(&lines, ms * 1_000, lock);
        assert_eq!(at(10_000), vec!["consumer-1 holds 0 (delivery 1), lock runs out at 30.000 s"]);
        assert_eq!(at(20_000), vec!["consumer-1 holds 0 (delivery 1), lock runs out at 45.005 s"]);
        assert_eq!(at(35_000), vec!["consumer-1 holds 0 (delivery 1), lock runs out at 60.005 s"]);
    }
}
