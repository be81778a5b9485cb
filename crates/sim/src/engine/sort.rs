//! One small sort for the engine's slices (no import of the engine: entities use it).

/// Sorts a slice (a group's members, a member's partitions: up to 4096) by `key`, stably:
/// a binary insertion sort, n log n comparisons (and none past the first for an element
/// already in place, the common case) and memmove-sized shifts. The standard library's
/// sorts are several kilobytes of code for each element type, which the group page carried
/// six times over.
#[cfg_attr(not(feature = "group"), allow(dead_code))]
pub(super) fn by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    for i in 1..v.len() {
        let k = key(&v[i]);
        if key(&v[i - 1]) <= k {
            continue;
        }
        // After every element whose key is ≤ k: equal keys keep their order.
        let at = v[..i].partition_point(|e| key(e) <= k);
        v[at..=i].rotate_right(1);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sorts_stably_by_key() {
        let mut v: Vec<(u32, u32)> = (0..300u32).map(|i| ((i * 7919) % 13, i)).collect();
        let mut expected = v.clone();
        expected.sort_by_key(|e| e.0);
        super::by_key(&mut v, |e| e.0);
        assert_eq!(v, expected);
    }
}
