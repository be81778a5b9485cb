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
/// member order. `owned[i]` is what `members[i]` holds now (ascending). From scratch this is
/// partition i to the (i mod M)-th member.
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
            let kept: Vec<PartitionId> =
                held.iter().copied().filter(|&p| (p as u32) < partitions).take(q).collect();
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
}
