//! What the engine keeps for the clients of model.md §8.14 (`crate::clients` has their rules).

use crate::output::PartitionId;

/// franz-go's head (model.md §8.14): at the start of `PollRecords` the offsets the previous
/// polls returned become committable (`undirtyUncommitted`), so the head of `partition` is
/// where this poll starts, `from`. Kept in partition order.
pub(super) fn set_head(heads: &mut Vec<(PartitionId, u64)>, partition: PartitionId, from: u64) {
    match heads.binary_search_by_key(&partition, |&(p, _)| p) {
        Ok(i) => heads[i].1 = from,
        Err(i) => heads.insert(i, (partition, from)),
    }
}
