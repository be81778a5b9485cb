//! The run's marks, kept compactly: a member's records done one after another on one
//! partition, each as long as the last, give a `RecordDurable` mark each; [`MarkLog`] keeps
//! such a run as one explicit mark and a ramp (how many more, how far apart). S-A's 380,495
//! record marks take 92,239 ramps.
//!
//! A ramp's marks sit among the other marks of their instants, which other members' events
//! give at the same microseconds. Each mark comes with the key of the event that gave it
//! ([`EventKey`]: phase and member, the queue's order); each explicit mark keeps the largest
//! key of the events of its instant up to its own, and a ramp the key of its marks' events.
//! A ramp's mark comes before the explicit marks of its instant whose key so kept is at
//! least its own: the events are handled in key order, but for one scheduled at the instant
//! itself by a later one, which the largest key so far accounts for. A record mark joins a
//! ramp only where that places it right: as the first mark of its event, no event of a
//! larger key before it in its instant. So the marks come back in exactly their order, and
//! a ramp can be placed after the fact, among marks pushed since (the engine's batch).
//!
//! One event also gives marks partition by partition: a commit sent and landed for each of a
//! member's partitions, a rebalance's revocations and assignments. A mark that repeats the
//! one before it but for its partition, the next one, and its offset is kept as a follower of
//! it: a count per explicit mark, and a commit's offset (8 bytes). S-A's 489,414 followers are
//! 69,642 counts and the offsets of its commits' (they took 16 bytes each, partition and
//! offset: its peak 48.3 -> 42.8 MiB).
//!
//! A [`MarkLog`] reads as the slice of every mark (`Deref`, expanded once on first use and
//! kept: S-A's take 28–40 ms); [`MarkLog::marks`] walks them without keeping them, and
//! [`MarkLog::other_than_records`] gives the others without walking the ramps.

use crate::output::{EventKey, MarkKind, MemberId, PartitionId};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::OnceLock;

/// Something that happened at an instant, for the chart to mark. 32 bytes: a
/// million-record run holds a million of them (fewer as [`MarkLog`] keeps them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mark {
    /// Event instant, µs.
    pub at_us: u64,
    /// The member it concerns (index from 0: `consumer-1` is 0).
    pub member: MemberId,
    /// The partition it concerns (index within the topic).
    pub partition: PartitionId,
    /// What happened.
    pub kind: MarkKind,
}

/// A member's record marks on one partition as a ramp: `count + 1` marks, the first at
/// `at_us` for `offset`, each next one `every_us` later for the next offset, each given by
/// an event of key `key`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ramp {
    at_us: u64,
    offset: u64,
    every_us: u64,
    count: u32,
    member: MemberId,
    partition: PartitionId,
    key: EventKey,
}

/// Where a member's record marks may go on: from an explicit record mark (a ramp's head to
/// be), or a ramp.
#[derive(Clone, Copy)]
enum Open {
    Head(u32),
    Ramp(u32),
}

/// Whether a follower of a mark of this kind keeps an offset (a commit's).
fn carries_offset(kind: &MarkKind) -> bool {
    matches!(kind, MarkKind::CommitSent { .. } | MarkKind::CommitLanded { .. })
}

/// The follower of `before` (a mark, or one of its followers): the next partition, of offset
/// `offsets[*next]` if its kind carries one ([`carries_offset`]; `next` moves on past it).
fn follower(before: &Mark, offsets: &[u64], next: &mut usize) -> Mark {
    let mut offset = || {
        *next += 1;
        offsets[*next - 1]
    };
    let kind = match before.kind {
        MarkKind::CommitSent { blocking, .. } => MarkKind::CommitSent { offset: offset(), blocking },
        MarkKind::CommitLanded { .. } => MarkKind::CommitLanded { offset: offset() },
        other => other,
    };
    Mark { partition: before.partition + 1, kind, ..*before }
}

/// What `mark` keeps as a follower of `leader` (the same instant, member and kind, another
/// partition: one event's marks partition by partition), if it can be one: the offset of a
/// commit, 0 for a revocation or an assignment.
fn follower_payload(leader: &Mark, mark: &Mark) -> Option<u64> {
    if (leader.at_us, leader.member) != (mark.at_us, mark.member) {
        return None;
    }
    match (leader.kind, mark.kind) {
        (MarkKind::CommitSent { blocking: a, .. }, MarkKind::CommitSent { offset, blocking: b })
            if a == b =>
        {
            Some(offset)
        }
        (MarkKind::CommitLanded { .. }, MarkKind::CommitLanded { offset }) => Some(offset),
        (MarkKind::Revoked, MarkKind::Revoked) | (MarkKind::Assigned, MarkKind::Assigned) => Some(0),
        _ => None,
    }
}

/// Whether the log keeps ramps and followers (the `compact-runs` feature; without it the
/// log is its marks, as a `Vec`, and the code that reads ramps is never reached).
const RAMPS: bool = cfg!(feature = "compact-runs");

/// The marks of a run, in the order they happened, kept as explicit marks and ramps.
pub struct MarkLog {
    /// Every mark that is not in a ramp, in order.
    explicit: Vec<Mark>,
    /// For each explicit mark, the largest key of the events of its instant up to its own
    /// (kept with ramps only).
    keys: Vec<EventKey>,
    /// The ramps, in the order they began.
    ramps: Vec<Ramp>,
    /// Marks held in the ramps.
    in_ramps: usize,
    /// How many marks repeat the explicit mark before them (or its follower before them)
    /// but for the partition, the next one, and the offset: one event's commit, revocation
    /// or assignment, partition by partition.
    followers: usize,
    /// The runs of followers: (explicit mark they follow, how many), by that mark.
    runs: Vec<(u32, u32)>,
    /// The offsets of the followers of commits, in order.
    offsets: Vec<u64>,
    /// While recording: whether the last mark pushed is the explicit one before it or one
    /// of its followers (nothing came between, so the next may follow it too).
    may_follow: bool,
    /// While recording: each member's ramp that may go on.
    open: Vec<Option<Open>>,
    /// While recording: the instant of the last mark, and the largest key of its events so far.
    instant: (u64, EventKey),
    /// Every mark, made on first use of the log as a slice.
    expanded: OnceLock<Vec<Mark>>,
}

impl MarkLog {
    /// An empty log with room for `explicit` explicit marks.
    pub(crate) fn with_capacity(explicit: usize) -> Self {
        MarkLog::with_capacities(explicit, 0, 0)
    }

    /// An empty log with room for `marks` marks, `records` of them record marks (kept in
    /// ramps, with ramps: a head and a ramp for a few of them) and `followers` given
    /// partition by partition (kept as followers: the offsets of those of commits).
    pub(crate) fn with_capacities(marks: usize, records: usize, followers: usize) -> Self {
        let (explicit, ramps) =
            if RAMPS { (marks.saturating_sub(followers + records / 2), records / 4) } else { (marks, 0) };
        MarkLog {
            explicit: Vec::with_capacity(explicit),
            keys: Vec::with_capacity(if RAMPS { explicit } else { 0 }),
            ramps: Vec::with_capacity(ramps),
            in_ramps: 0,
            followers: 0,
            runs: Vec::new(),
            offsets: Vec::with_capacity(if RAMPS { followers } else { 0 }),
            may_follow: false,
            open: Vec::new(),
            instant: (u64::MAX, 0),
            expanded: OnceLock::new(),
        }
    }

    /// Appends `mark`, given by an event of key `key`, no earlier than every mark so far.
    #[inline(always)]
    pub(crate) fn push(&mut self, mark: Mark, key: EventKey) {
        debug_assert!(self.expanded.get().is_none(), "a log grows only before it is read as a slice");
        if !RAMPS {
            self.explicit.push(mark);
            return;
        }
        let earlier = (self.instant.0 == mark.at_us).then_some(self.instant.1);
        let largest = earlier.map_or(key, |k| k.max(key));
        self.instant = (mark.at_us, largest);
        if let MarkKind::RecordDurable { offset } = mark.kind {
            self.may_follow = false;
            // Its key places it only as its event's first mark, after events of smaller keys.
            if earlier.is_none_or(|k| k < key) && self.join_ramp(mark, offset, key, None) {
                return;
            }
            self.open_ramp(mark.member);
        } else if self.may_follow && self.keys.last() == Some(&largest) && self.follow(mark) {
            // (The same largest key: no record mark of another event can come between them.)
            return;
        }
        self.may_follow = true;
        self.explicit.push(mark);
        self.keys.push(largest);
    }

    /// Puts record mark `mark`, given by an event of key `key` and settled after the fact
    /// (the engine's batch, of pace `every_us`: marks of later events may have come in
    /// since), into its member's ramp, or a ramp of its own; false only without ramps.
    pub(crate) fn push_past(&mut self, mark: Mark, key: EventKey, every_us: u64) -> bool {
        let MarkKind::RecordDurable { offset } = mark.kind else { return false };
        RAMPS && self.join_ramp(mark, offset, key, Some(every_us.max(1)))
    }

    /// Keeps `mark` as a follower of the last explicit mark if it repeats it but for its
    /// partition, the one after the last mark's, and offset; false if it does not.
    fn follow(&mut self, mark: Mark) -> bool {
        let Some(&leader) = self.explicit.last() else { return false };
        let Some(payload) = follower_payload(&leader, &mark) else { return false };
        let Ok(index) = u32::try_from(self.explicit.len() - 1) else { return false };
        let run = self.runs.last_mut().filter(|(of, _)| *of == index);
        let before = run.as_ref().map_or(0, |(_, count)| *count);
        if u32::from(mark.partition) != u32::from(leader.partition) + before + 1 {
            return false;
        }
        match run {
            Some((_, count)) => *count += 1,
            None => self.runs.push((index, 1)),
        }
        if carries_offset(&leader.kind) {
            self.offsets.push(payload);
        }
        self.followers += 1;
        true
    }

    /// The record mark about to be pushed heads `member`'s ramp that may go on.
    fn open_ramp(&mut self, member: MemberId) {
        let member = member as usize;
        if self.open.len() <= member {
            self.open.resize(member + 1, None);
        }
        self.open[member] = u32::try_from(self.explicit.len()).ok().map(Open::Head);
    }

    /// Puts record mark `mark` (of `offset`, given by an event of key `key`) into its member's
    /// ramp if it goes on from it, or starts one from the explicit record mark before it;
    /// with `pace`, a ramp of its own if neither. False if it does not join one.
    fn join_ramp(&mut self, mark: Mark, offset: u64, key: EventKey, pace: Option<u64>) -> bool {
        let member = mark.member as usize;
        let open = self.open.get(member).copied().flatten();
        let every_us = match open {
            Some(Open::Ramp(i)) => {
                let ramp = &mut self.ramps[i as usize];
                let k = u64::from(ramp.count) + 1;
                if ramp.partition == mark.partition
                    && offset.wrapping_sub(ramp.offset) == k
                    && mark.at_us.checked_sub(ramp.at_us) == Some(k * ramp.every_us)
                    && key == ramp.key
                    && ramp.count < u32::MAX
                {
                    ramp.count += 1;
                    self.in_ramps += 1;
                    return true;
                }
                pace
            }
            Some(Open::Head(h)) => {
                let head = self.explicit[h as usize];
                match head.kind {
                    MarkKind::RecordDurable { offset: first }
                        if head.partition == mark.partition
                            && offset.wrapping_sub(first) == 1
                            && mark.at_us > head.at_us =>
                    {
                        Some(mark.at_us - head.at_us)
                    }
                    _ => pace,
                }
            }
            None => pace,
        };
        let Some(every_us) = every_us else { return false };
        let Ok(index) = u32::try_from(self.ramps.len()) else { return false };
        self.ramps.push(Ramp {
            at_us: mark.at_us,
            offset,
            every_us,
            count: 0,
            member: mark.member,
            partition: mark.partition,
            key,
        });
        if self.open.len() <= member {
            self.open.resize(member + 1, None);
        }
        self.open[member] = Some(Open::Ramp(index));
        self.in_ramps += 1;
        true
    }

    /// Ends the recording (drops what only recording needs).
    pub(crate) fn finish(mut self) -> Self {
        self.open = Vec::new();
        self
    }

    /// How many marks the log holds.
    pub fn len(&self) -> usize {
        self.explicit.len() + self.in_ramps + self.followers
    }

    /// Whether the log holds no mark.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many entries the log keeps (explicit marks, ramps and runs of followers), for the
    /// benchmark.
    pub fn stored(&self) -> usize {
        self.explicit.len() + self.ramps.len() + self.runs.len()
    }

    /// Every mark but the `RecordDurable` ones, in order, without walking the ramps: as fast as
    /// a slice for a reader that looks at no record mark (the group page's owners and member
    /// spans; the first walk of the log as a slice costs S-A 28 ms and keeps every mark).
    pub fn other_than_records(&self) -> impl Iterator<Item = Mark> + '_ {
        let mut runs = self.runs.iter().peekable();
        let mut next_offset = 0;
        self.explicit.iter().enumerate().flat_map(move |(i, &leader)| {
            let count = runs.next_if(|(of, _)| *of as usize == i).map_or(0, |&(_, count)| count as usize);
            let taken = if carries_offset(&leader.kind) { count } else { 0 };
            let offsets = &self.offsets[next_offset..next_offset + taken];
            next_offset += taken;
            let (mut before, mut next) = (leader, 0);
            let followers = (0..count).map(move |_| {
                before = follower(&before, offsets, &mut next);
                before
            });
            std::iter::once(leader)
                .chain(followers)
                .filter(|m| !matches!(m.kind, MarkKind::RecordDurable { .. }))
        })
    }

    /// Every mark in order, made as it goes (nothing is kept).
    pub fn marks(&self) -> impl Iterator<Item = Mark> + '_ {
        // The ramps by their first marks' instants and keys: a heap sort, as
        // `keys::sort_ascending` (the pages link no standard library sort).
        let starts = if RAMPS {
            BinaryHeap::from_iter(self.ramps.iter().enumerate().map(|(i, r)| (r.at_us, r.key, i as u32)))
                .into_sorted_vec()
        } else {
            Vec::new()
        };
        Marks {
            log: self,
            next: 0,
            starts,
            next_start: 0,
            due: BinaryHeap::new(),
            next_run: 0,
            next_offset: 0,
            following: None,
        }
    }
}

/// The walk of [`MarkLog::marks`]: the explicit marks in order, each ramp's marks put in at
/// their instants and places.
struct Marks<'a> {
    log: &'a MarkLog,
    /// The next explicit mark.
    next: usize,
    /// The next mark of each ramp under way: (instant, key, ramp, k).
    due: BinaryHeap<Reverse<(u64, EventKey, u32, u32)>>,
    /// (instant, key, ramp) of every ramp's first mark, ascending.
    starts: Vec<(u64, EventKey, u32)>,
    /// The next ramp to join `due`.
    next_start: usize,
    /// The next run of followers, and the next follower's offset.
    next_run: usize,
    next_offset: usize,
    /// The last mark given, whose followers come now, and how many are left.
    following: Option<(Mark, u32)>,
}

impl Iterator for Marks<'_> {
    type Item = Mark;

    fn next(&mut self) -> Option<Mark> {
        if !RAMPS {
            let mark = self.log.explicit.get(self.next).copied();
            self.next += 1;
            return mark;
        }
        // An explicit mark's followers come right after it (nothing came between them).
        if let Some((before, left)) = self.following {
            let mark = follower(&before, &self.log.offsets, &mut self.next_offset);
            self.following = (left > 1).then_some((mark, left - 1));
            return Some(mark);
        }
        // The ramps that start before the next mark due join the heap of those under way.
        while let Some(&(at_us, key, index)) = self.starts.get(self.next_start) {
            if self.due.peek().is_some_and(|&Reverse((t, k, _, _))| (t, k) < (at_us, key)) {
                break;
            }
            self.due.push(Reverse((at_us, key, index, 0)));
            self.next_start += 1;
        }
        let explicit = self.log.explicit.get(self.next);
        // A ramp's mark comes first if it is earlier, or in the same instant if the explicit
        // mark's event (or one before it in the instant) has a key at least its own.
        let ramp_first = match (self.due.peek(), explicit) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(&Reverse((at_us, key, _, _))), Some(e)) => {
                at_us < e.at_us || (at_us == e.at_us && key <= self.log.keys[self.next])
            }
        };
        let mark = if ramp_first {
            let mut top = self.due.peek_mut()?;
            let Reverse((at_us, key, index, k)) = *top;
            let ramp = self.log.ramps[index as usize];
            // The ramp's next mark takes its place in the heap (one sift), or it is done.
            if k < ramp.count {
                *top = Reverse((at_us + ramp.every_us, key, index, k + 1));
                drop(top);
            } else {
                std::collections::binary_heap::PeekMut::pop(top);
            }
            Mark {
                at_us,
                member: ramp.member,
                partition: ramp.partition,
                kind: MarkKind::RecordDurable { offset: ramp.offset + u64::from(k) },
            }
        } else {
            let mark = *explicit?;
            if let Some(&(_, count)) =
                self.log.runs.get(self.next_run).filter(|(of, _)| *of as usize == self.next)
            {
                self.following = Some((mark, count));
                self.next_run += 1;
            }
            self.next += 1;
            mark
        };
        Some(mark)
    }
}

impl std::ops::Deref for MarkLog {
    type Target = [Mark];
    fn deref(&self) -> &[Mark] {
        if !RAMPS {
            return &self.explicit;
        }
        self.expanded.get_or_init(|| {
            let mut marks = Vec::with_capacity(self.len());
            marks.extend(self.marks());
            marks
        })
    }
}

impl<'a> IntoIterator for &'a MarkLog {
    type Item = &'a Mark;
    type IntoIter = std::slice::Iter<'a, Mark>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Each mark as given by an event of its own, the instant's events in order.
impl From<Vec<Mark>> for MarkLog {
    fn from(marks: Vec<Mark>) -> Self {
        let mut log = MarkLog::with_capacity(marks.len());
        let mut instant: (u64, EventKey) = (u64::MAX, 0);
        for mark in marks {
            let key = if instant.0 == mark.at_us { instant.1.saturating_add(1) } else { 0 };
            instant = (mark.at_us, key);
            log.push(mark, key);
        }
        log.finish()
    }
}

impl Default for MarkLog {
    fn default() -> Self {
        MarkLog::with_capacity(0)
    }
}

/// A clone does not copy the expanded marks (made again if asked for).
impl Clone for MarkLog {
    fn clone(&self) -> Self {
        MarkLog {
            explicit: self.explicit.clone(),
            keys: self.keys.clone(),
            ramps: self.ramps.clone(),
            in_ramps: self.in_ramps,
            followers: self.followers,
            runs: self.runs.clone(),
            offsets: self.offsets.clone(),
            may_follow: self.may_follow,
            open: self.open.clone(),
            instant: self.instant,
            expanded: OnceLock::new(),
        }
    }
}

/// Equal when the marks are (the engine's batch keeps them otherwise than one event per
/// record would).
impl PartialEq for MarkLog {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.marks().eq(other.marks())
    }
}
impl Eq for MarkLog {}

impl PartialEq<Vec<Mark>> for MarkLog {
    fn eq(&self, other: &Vec<Mark>) -> bool {
        self.len() == other.len() && self.marks().eq(other.iter().copied())
    }
}

/// As the list of its marks.
impl std::fmt::Debug for MarkLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.marks()).finish()
    }
}

/// As the list of its marks (what a `Vec` of them gives).
impl Serialize for MarkLog {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.marks())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn record(at_us: u64, member: MemberId, partition: PartitionId, offset: u64) -> Mark {
        Mark { at_us, member, partition, kind: MarkKind::RecordDurable { offset } }
    }

    #[test]
    #[cfg(feature = "compact-runs")] // counts the ramps kept
    fn two_members_in_step_keep_their_places() {
        // Members 0 and 1 finish a record every 10 µs at the same instants, member 0 first;
        // member 1's polls sit between (each at the place of the instant it took).
        let mut marks = Vec::new();
        for k in 0..50 {
            marks.push(record(100 + 10 * k, 0, 3, 40 + k));
            marks.push(record(100 + 10 * k, 1, 4, 7 + k));
            if k % 7 == 0 {
                marks.push(Mark { at_us: 100 + 10 * k, member: 1, partition: 4, kind: MarkKind::Revoked });
            }
        }
        let log = MarkLog::from(marks.clone());
        assert_eq!(log.stored(), 2 + 2 + 8, "a head and a ramp per member, and the revocations");
        assert_eq!(log.len(), marks.len());
        assert_eq!(log, marks);
        assert_eq!(&*log, &marks[..]);
    }

    #[test]
    #[cfg(feature = "compact-runs")] // counts the followers kept
    fn a_commit_partition_by_partition_keeps_its_offsets() {
        // Member 2 commits partitions 4, 5, 6 and then 9 at one instant, and is assigned
        // 5, 6 at the next: the marks of the next partition follow.
        let commit = |partition, offset| Mark {
            at_us: 70,
            member: 2,
            partition,
            kind: MarkKind::CommitSent { offset, blocking: false },
        };
        let assigned = |partition| Mark { at_us: 80, member: 2, partition, kind: MarkKind::Assigned };
        let marks = vec![commit(4, 31), commit(5, 12), commit(6, 90), commit(9, 4), assigned(5), assigned(6)];
        let mut log = MarkLog::with_capacity(0);
        for &mark in &marks {
            log.push(mark, 5); // each instant's marks of one event
        }
        let log = log.finish();
        assert_eq!(log.stored(), 3 + 2, "three explicit marks, two runs of followers");
        assert_eq!(log.offsets, [12, 90]);
        assert_eq!(log, marks);
        assert_eq!(&*log, &marks[..]);
        assert!(log.other_than_records().eq(marks));
    }

    proptest! {
        /// Whatever the marks (record marks of a few members at few instants, among others),
        /// the log gives them back in order, and compares, prints and serializes as the `Vec`.
        #[test]
        fn a_log_is_its_marks(
            draws in proptest::collection::vec((0u64..=3, 0u16..=2, 0u16..=3, 0u64..=2, 0u8..=4), 0..120),
        ) {
            let mut at = 0;
            let mut offsets = [0u64; 3];
            let marks: Vec<Mark> = draws
                .into_iter()
                .map(|(gap, member, partition, skip, kind)| {
                    at += gap;
                    if kind == 0 {
                        Mark { at_us: at, member, partition, kind: MarkKind::Revoked }
                    } else if kind == 1 {
                        // A commit, partition by partition (its offset from the draw).
                        Mark { at_us: at, member, partition, kind: MarkKind::CommitSent { offset: skip, blocking: gap > 1 } }
                    } else {
                        let o = &mut offsets[member as usize];
                        *o += skip + 1;
                        record(at, member, partition, *o)
                    }
                })
                .collect();
            let log = MarkLog::from(marks.clone());
            prop_assert!(log.stored() <= marks.len());
            prop_assert_eq!(log.len(), marks.len());
            prop_assert_eq!(log.marks().collect::<Vec<_>>(), marks.clone());
            prop_assert_eq!(&*log, &marks[..]);
            let others = marks.iter().copied().filter(|m| !matches!(m.kind, MarkKind::RecordDurable { .. }));
            prop_assert!(log.other_than_records().eq(others));
            prop_assert_eq!(format!("{log:?}"), format!("{marks:?}"));
            prop_assert_eq!(serde_json::to_string(&log).unwrap(), serde_json::to_string(&marks).unwrap());
            prop_assert_eq!(log.clone(), MarkLog::from(marks));
        }

        /// Whatever the keys of the events that give the marks (in any order within an
        /// instant: an event may schedule one of a smaller key at its own instant), the log
        /// gives the marks back in order.
        #[test]
        fn any_event_keys_give_the_marks_back(
            draws in proptest::collection::vec((0u64..=3, 0u16..=2, 0u16..=3, 0u64..=1, 0u8..=4, 0u16..=4, any::<bool>()), 0..150),
        ) {
            let mut at = 0;
            let mut offsets = [0u64; 3];
            let mut key = 0;
            let mut log = MarkLog::with_capacity(0);
            let mut marks = Vec::new();
            for (gap, member, partition, skip, kind, next_key, same_event) in draws {
                at += gap;
                // A new event unless the draw keeps the last one (not across instants).
                if !same_event || gap > 0 {
                    key = next_key;
                }
                let mark = if kind == 0 {
                    Mark { at_us: at, member, partition, kind: MarkKind::Assigned }
                } else if kind == 1 {
                    Mark { at_us: at, member, partition, kind: MarkKind::CommitLanded { offset: skip } }
                } else {
                    let o = &mut offsets[member as usize];
                    *o += skip + 1;
                    record(at, member, partition, *o)
                };
                log.push(mark, key);
                marks.push(mark);
            }
            let log = log.finish();
            prop_assert!(log.stored() <= marks.len());
            prop_assert_eq!(log.len(), marks.len());
            prop_assert_eq!(log.marks().collect::<Vec<_>>(), marks.clone());
            prop_assert_eq!(&*log, &marks[..]);
        }
    }
}
