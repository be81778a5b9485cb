//! Deliberately broken rules, for the conformance suite's random cases only (tests/conformance
//! README, "Random cases": each must be caught within 50 random cases). Compiled in only with
//! the `broken-rules` feature; without it every rule is off and this costs nothing. With it,
//! `OFFSET_WINDOW_BROKEN` names the broken rules, comma-separated:
//! `auto_commit_late` (the poll-time auto-commit timer read one poll late),
//! `close_commits_nothing` (`close()` sends no commit), `cooperative_revoke_commits` (the
//! cooperative revocation commits the revoked partitions' positions), `one_partition_per_poll`
//! (the fetched chunk ignored: the turn moves to the next partition after every poll).

/// Whether `rule` is broken in this run.
#[cfg(feature = "broken-rules")]
pub(crate) fn on(rule: &str) -> bool {
    static RULES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    RULES
        .get_or_init(|| {
            std::env::var("OFFSET_WINDOW_BROKEN")
                .unwrap_or_default()
                .split(',')
                .map(|r| r.trim().to_string())
                .filter(|r| !r.is_empty())
                .collect()
        })
        .iter()
        .any(|r| r == rule)
}

/// Whether `rule` is broken in this run: never, without the `broken-rules` feature.
#[cfg(not(feature = "broken-rules"))]
#[inline(always)]
pub(crate) fn on(_rule: &str) -> bool {
    false
}
