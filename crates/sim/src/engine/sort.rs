//! One small sort for the engine's short slices (no import of the engine: entities use it).

/// Sorts a short slice (a group's members, a member's partitions: at most 64) by `key`,
/// stably: an insertion sort. The standard library's sorts are several kilobytes of code
/// for each element type, which the group page carried six times over; on these slices
/// (every element distinct by its key, or equal ones identical) the order is the same.
#[cfg_attr(not(feature = "group"), allow(dead_code))]
pub(super) fn by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && key(&v[j - 1]) > key(&v[j]) {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}
