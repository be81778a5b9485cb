//! Who gets which partition (model.md §10.2): the classic assignors and the consumer
//! protocol's uniform assignor, as pure functions of the members (in member order) and,
//! for the sticky ones, of what each member holds now.

use crate::output::{MemberId, PartitionId};

/// Kafka `RangeAssignor`: contiguous ranges in member order; the first P mod M members get
/// one more.
pub(crate) fn range(members: &[MemberId], partitions: u32) -> Vec<Vec<PartitionId>> {
    let m = members.len() as u32;
    let (base, extra) = (partitions / m, partitions % m);
    let mut next = 0;
    (0..m)
        .map(|i| {
            let count = base + u32::from(i < extra);
            let owned = (next..next + count).map(|p| p as PartitionId).collect();
            next += count;
            owned
        })
        .collect()
}

/// kafka-go's `RangeGroupBalancer` (`groupbalancer.go`, model.md §10.2): member i of M (sorted
/// by id, `findMembersByTopic`) gets partitions ⌊i·P/M⌋ up to ⌊(i+1)·P/M⌋ — the later members get
/// the extra ones, where Java's range gives them to the first.
pub(crate) fn range_kafka_go(members: &[MemberId], partitions: u32) -> Vec<Vec<PartitionId>> {
    let m = members.len() as u32;
    (0..m)
        .map(|i| (i * partitions / m..(i + 1) * partitions / m).map(|p| p as PartitionId).collect())
        .collect()
}

/// Kafka `RoundRobinAssignor` (one topic): partition i to the (i mod M)-th member.
pub(crate) fn round_robin(members: &[MemberId], partitions: u32) -> Vec<Vec<PartitionId>> {
    let m = members.len();
    let mut out = vec![Vec::new(); m];
    for p in 0..partitions {
        out[p as usize % m].push(p as PartitionId);
    }
    out
}

/// Kafka `AbstractStickyAssignor` (cooperative-sticky), and the broker's uniform assignor
/// modelled the same way (model.md §10.2): at most P mod M members hold ⌈P/M⌉ partitions,
/// the others ⌊P/M⌋; members already holding ⌈P/M⌉ keep that many (in member order, while
/// such places remain); every member keeps its lowest-numbered partitions up to its quota;
/// the partitions left are dealt, lowest first, round-robin over the members below quota in
/// member order. `owned[i]` is what `members[i]` holds now (ascending); a partition claimed
/// twice stays with the first claimant (the coordinator has already set aside the claims
/// Kafka ignores, [`super::coordinator`]). From scratch this is partition i to the (i mod
/// M)-th member.
pub(crate) fn sticky(owned: &[Vec<PartitionId>], partitions: u32) -> Vec<Vec<PartitionId>> {
    let m = owned.len();
    let (floor, mut extra) = ((partitions as usize) / m, (partitions as usize) % m);
    let mut quota = vec![floor; m];
    for (i, held) in owned.iter().enumerate() {
        if extra > 0 && held.len() > floor {
            quota[i] = floor + 1;
            extra -= 1;
        }
    }
    let mut taken = vec![false; partitions as usize];
    let mut out: Vec<Vec<PartitionId>> = owned
        .iter()
        .zip(&quota)
        .map(|(held, &q)| {
            let kept: Vec<PartitionId> = held
                .iter()
                .copied()
                .filter(|&p| (p as u32) < partitions && !taken[p as usize])
                .take(q)
                .collect();
            kept.iter().for_each(|&p| taken[p as usize] = true);
            kept
        })
        .collect();
    // Deal the rest; a member below ⌊P/M⌋ comes first, then the places of ⌈P/M⌉ left.
    let mut turn = 0;
    for p in (0..partitions).filter(|&p| !taken[p as usize]) {
        let cap = |i: usize, extra: usize| quota[i] + usize::from(quota[i] == floor && extra > 0);
        let below_quota = (0..m).map(|k| (turn + k) % m).find(|&i| out[i].len() < quota[i]);
        let i = match below_quota {
            Some(i) => i,
            None => {
                let i = (0..m)
                    .map(|k| (turn + k) % m)
                    .find(|&i| out[i].len() < cap(i, extra))
                    .expect("a place is left");
                quota[i] += 1;
                extra -= 1;
                i
            }
        };
        out[i].push(p as PartitionId);
        turn = (i + 1) % m;
    }
    for held in &mut out {
        super::sort::by_key(held, |&p| p);
    }
    out
}

/// librdkafka's sticky assignor (`src/rdkafka_sticky_assignor.c`, `rd_kafka_sticky_assignor_assign_cb`,
/// a port of Java's older general-path `StickyAssignor`) for one topic every member subscribes
/// to, without racks (model.md §10.2). Member order stands for member-id order (`strcmp`).
/// - `sortPartitions` (identical subscriptions, not fresh): the held partitions listed round
///   robin from the member holding most (ties: the highest member id), each its lowest left;
///   then the partitions nobody holds, highest first (`RD_MAP_FOREACH` walks
///   `partition2AllPotentialConsumers` newest first). From scratch: ascending.
/// - `maybeAssign`: in that order, each partition nobody holds goes to the member holding fewest
///   (ties: the lowest member id, `sort_by_map_elem_val_toppar_list_cnt`).
/// - `performReassignments`, first over those partitions, then over the whole list: while the
///   counts differ by more than one (`isBalanced`), a partition whose holder has two more than
///   another member goes to the member holding fewest (`reassignPartition`) — or, if that member
///   gave the holder partitions earlier in this run, the first of those goes back
///   (`PartitionMovements_getTheActualPartitionToBeMoved`).
///
/// Every move there lowers `getBalanceScore`, so its revert never happens here. `owned[i]` is
/// what `members[i]` holds now; a partition claimed twice stays with the first claimant (the
/// model has no generations). O(P·M) time, O(P + M) memory.
pub(crate) fn sticky_librdkafka(owned: &[Vec<PartitionId>], partitions: u32) -> Vec<Vec<PartitionId>> {
    let m = owned.len();
    let count = partitions as usize;
    let mut holder: Vec<Option<usize>> = vec![None; count];
    let mut held: Vec<Vec<PartitionId>> = vec![Vec::new(); m];
    for (i, list) in owned.iter().enumerate() {
        for &p in list {
            if (p as u32) < partitions && holder[p as usize].is_none() {
                holder[p as usize] = Some(i);
                held[i].push(p);
            }
        }
        super::sort::by_key(&mut held[i], |&p| p);
    }
    // sortPartitions.
    let mut sorted: Vec<PartitionId> = Vec::with_capacity(count);
    if held.iter().all(Vec::is_empty) {
        sorted.extend((0..partitions).map(|p| p as PartitionId));
    } else {
        let mut next = vec![0usize; m];
        while let Some(i) =
            (0..m).filter(|&i| next[i] < held[i].len()).max_by_key(|&i| (held[i].len() - next[i], i))
        {
            sorted.push(held[i][next[i]]);
            next[i] += 1;
        }
        sorted.extend(
            (0..partitions).rev().map(|p| p as PartitionId).filter(|&p| holder[p as usize].is_none()),
        );
    }
    let unassigned: Vec<PartitionId> =
        sorted.iter().copied().filter(|&p| holder[p as usize].is_none()).collect();
    let mut sizes: Vec<usize> = held.iter().map(Vec::len).collect();
    let fewest = |sizes: &[usize]| (0..sizes.len()).min_by_key(|&i| (sizes[i], i));
    // maybeAssign.
    for &p in &unassigned {
        if let Some(i) = fewest(&sizes) {
            holder[p as usize] = Some(i);
            sizes[i] += 1;
        }
    }
    // performReassignments, over the newly assigned partitions, then over all.
    let mut moves = Movements::default();
    for list in [&unassigned, &sorted] {
        if list.is_empty() {
            continue;
        }
        loop {
            let mut modified = false;
            for &p in list.iter() {
                let (lo, hi) = (sizes.iter().min(), sizes.iter().max());
                if matches!((lo, hi), (Some(&lo), Some(&hi)) if lo + 1 >= hi) {
                    break;
                }
                let Some(old) = holder[p as usize] else { continue };
                if !(0..m).any(|j| j != old && sizes[old] > sizes[j] + 1) {
                    continue;
                }
                let new = fewest(&sizes).expect("a member");
                let moved = moves.actual(p, old, new);
                let from = holder[moved as usize].expect("a holder");
                moves.record(moved, from, new);
                holder[moved as usize] = Some(new);
                sizes[from] -= 1;
                sizes[new] += 1;
                modified = true;
            }
            if !modified {
                break;
            }
        }
    }
    let mut out = vec![Vec::new(); m];
    for (p, h) in holder.iter().enumerate() {
        if let Some(i) = *h {
            out[i].push(p as PartitionId);
        }
    }
    out
}

/// librdkafka's `PartitionMovements_t` for one topic: each moved partition's (first source,
/// current destination), and per such pair its partitions in the order they moved.
#[derive(Default)]
struct Movements {
    of: Vec<(PartitionId, usize, usize)>,
}

impl Movements {
    /// `PartitionMovements_getTheActualPartitionToBeMoved`: with any movement recorded, the
    /// first partition that moved from `new` to `old`, if any (librdkafka builds that pair
    /// before it looks up `p`'s own record), else `p`.
    fn actual(&self, p: PartitionId, old: usize, new: usize) -> PartitionId {
        self.of.iter().find(|&&(_, src, dst)| src == new && dst == old).map_or(p, |&(q, _, _)| q)
    }

    /// `PartitionMovements_movePartition`: a partition moving back to where it came from drops
    /// its record; otherwise its record becomes (first source, `new`), last in that pair's list.
    fn record(&mut self, p: PartitionId, old: usize, new: usize) {
        let src = match self.of.iter().position(|&(q, _, _)| q == p) {
            Some(k) => self.of.remove(k).1,
            None => old,
        };
        if src != new {
            self.of.push((p, src, new));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_gives_contiguous_ranges_and_the_first_members_one_more() {
        assert_eq!(range(&[0, 1, 2], 7), [vec![0, 1, 2], vec![3, 4], vec![5, 6]]);
        assert_eq!(range(&[0, 1], 2), [vec![0], vec![1]]);
        assert_eq!(range(&[0, 1, 2], 2), [vec![0], vec![1], vec![]]);
    }

    #[test]
    fn kafka_go_range_gives_the_last_members_one_more() {
        assert_eq!(range_kafka_go(&[0, 1, 2], 7), [vec![0, 1], vec![2, 3], vec![4, 5, 6]]);
        assert_eq!(range_kafka_go(&[0, 1], 2), [vec![0], vec![1]]);
        assert_eq!(range_kafka_go(&[0, 1, 2], 2), [vec![], vec![0], vec![1]]);
    }

    #[test]
    fn round_robin_deals_in_member_order() {
        assert_eq!(round_robin(&[0, 1, 2], 7), [vec![0, 3, 6], vec![1, 4], vec![2, 5]]);
    }

    #[test]
    fn sticky_from_scratch_is_round_robin() {
        assert_eq!(sticky(&[vec![], vec![], vec![]], 7), [vec![0, 3, 6], vec![1, 4], vec![2, 5]]);
    }

    #[test]
    fn sticky_keeps_what_it_can_and_deals_the_freed_partitions() {
        // consumer-2 of three left: its partitions 2 and 3 are dealt to the two others.
        assert_eq!(sticky(&[vec![0, 1], vec![4, 5]], 6), [vec![0, 1, 2], vec![3, 4, 5]]);
        // A new third member takes one from each of the two holding three.
        assert_eq!(sticky(&[vec![0, 1, 2], vec![3, 4, 5], vec![]], 6), [vec![0, 1], vec![3, 4], vec![2, 5]]);
        // Members already at ⌈P/M⌉ keep it while such places remain.
        assert_eq!(
            sticky(&[vec![0, 1, 2], vec![3, 4, 5], vec![6]], 7),
            [vec![0, 1, 2], vec![3, 4], vec![5, 6]]
        );
    }

    #[test]
    fn librdkafka_sticky_from_scratch_is_round_robin() {
        let empty = vec![Vec::new(); 3];
        assert_eq!(sticky_librdkafka(&empty, 7), [vec![0, 3, 6], vec![1, 4], vec![2, 5]]);
        assert_eq!(sticky_librdkafka(&[vec![]], 3), [vec![0, 1, 2]]);
    }

    #[test]
    fn librdkafka_sticky_gives_a_new_member_the_lowest_partitions() {
        // Random seed 8156 (Apache Kafka 4.3.1, librdkafka 2.16): consumer-1 holds 0–3 and
        // consumer-2 joins. sortPartitions lists 0, 1, 2, 3; performReassignments moves 0,
        // then 1, to consumer-2 until balanced. Java's assignor moves 2 and 3.
        let owned = [vec![0, 1, 2, 3], vec![]];
        assert_eq!(sticky_librdkafka(&owned, 4), [vec![2, 3], vec![0, 1]]);
        assert_eq!(sticky(&owned, 4), [vec![0, 1], vec![2, 3]]);
        // The cooperative second round (consumer-1 gave 0 and 1 up) keeps that target.
        assert_eq!(sticky_librdkafka(&[vec![2, 3], vec![]], 4), [vec![2, 3], vec![0, 1]]);
    }

    #[test]
    fn librdkafka_sticky_deals_freed_partitions_highest_first_to_the_fewest() {
        // Random seed 1007: consumer-1 of three (0, 3) is gone. The partitions nobody holds
        // come highest first: 3 to consumer-2 (two each, the lower id), then 0 to consumer-3.
        // Java's assignor deals 0 first, to consumer-2.
        let owned = [vec![1, 4], vec![2, 5]];
        assert_eq!(sticky_librdkafka(&owned, 6), [vec![1, 3, 4], vec![0, 2, 5]]);
        assert_eq!(sticky(&owned, 6), [vec![0, 1, 4], vec![2, 3, 5]]);
    }

    #[test]
    fn librdkafka_sticky_moves_from_the_fullest_and_back_where_a_partition_came_from() {
        // A third member joins two holding three each: sortPartitions lists 3, 0, 4, 1, 5, 2
        // (at equal counts the higher member id first), so 3 moves, then 0: 2, 2, 2.
        assert_eq!(
            sticky_librdkafka(&[vec![0, 1, 2], vec![3, 4, 5], vec![]], 6),
            [vec![1, 2], vec![4, 5], vec![0, 3]]
        );
        // Every partition ends with exactly one member, the counts within one.
        for m in 1..6usize {
            for p in 0..13u32 {
                let owned: Vec<Vec<PartitionId>> = (0..m)
                    .map(|i| {
                        (0..p).filter(|&q| q as usize % (m + 1) == i).map(|q| q as PartitionId).collect()
                    })
                    .collect();
                let out = sticky_librdkafka(&owned, p);
                let mut all: Vec<PartitionId> = out.iter().flatten().copied().collect();
                all.sort_unstable();
                assert_eq!(
                    all,
                    (0..p).map(|q| q as PartitionId).collect::<Vec<_>>(),
                    "{m} members, {p} partitions"
                );
                let sizes: Vec<usize> = out.iter().map(Vec::len).collect();
                assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1, "{sizes:?}");
            }
        }
    }
}
