//! What the engine keeps for the clients of model.md §8.14 (`crate::clients` has their rules).

use crate::output::PartitionId;

/// franz-go's heads (model.md §8.14): at the start of `PollRecords` the offsets the previous
/// polls returned become committable (`undirtyUncommitted`, every partition), so each
/// partition's head is its position as this poll starts — for the partition it polls, where
/// this poll starts. Only partitions something was polled from have one (`updateUncommitted`
/// creates the entry). Kept in partition order.
pub(super) fn set_heads(
    heads: &mut [(PartitionId, u64)],
    positions: impl Iterator<Item = (PartitionId, u64)>,
) {
    for (partition, position) in positions {
        if let Ok(i) = heads.binary_search_by_key(&partition, |&(p, _)| p) {
            heads[i].1 = position;
        }
    }
}

/// The first poll of `partition` creates its head where that poll starts (`updateUncommitted`).
pub(super) fn add_head(heads: &mut Vec<(PartitionId, u64)>, partition: PartitionId, from: u64) {
    match heads.binary_search_by_key(&partition, |&(p, _)| p) {
        Ok(i) => heads[i].1 = from,
        Err(i) => heads.insert(i, (partition, from)),
    }
}
