//! When librdkafka's threads wake (model.md §10.4). A classic-protocol member's heartbeats
//! go out from its main thread, which sleeps until its next timer or op
//! (`rd_kafka_thread_main`): a heartbeat waits for the first wake-up at least
//! `heartbeat.interval.ms` after the previous one (`rd_kafka_cgrp_join_state_serve` checks
//! the interval only when it runs). Its fetcher (the broker thread) waits up to 1 s at a time
//! when it has nothing to fetch (`rd_kafka_max_block_ms`), and a partition resumed after a
//! pause is only seen when that wait ends.
//!
//! Every grid is a phase (µs modulo its period), so anchors before t = 0 (the consumer's
//! creation, its first assignment) need no negative instants.

use crate::scenario::Scenario;

/// The main thread's 1 s timer (`rd_kafka_1s_tmr_cb`), from the consumer's creation.
const ONE_SECOND_US: u64 = 1_000_000;
/// The `max.poll.interval.ms` check (`rd_kafka_cgrp_start_max_poll_interval_timer`: "2 hz"),
/// restarted by every `assign()` / `incremental_assign()`.
const POLL_CHECK_US: u64 = 500_000;
/// The broker thread's longest wait with nothing to fetch (`rd_kafka_max_block_ms`).
const FETCHER_WAIT_US: u64 = 1_000_000;
/// At most one JoinGroup a second (`rkcg_join_intvl`).
const JOIN_INTERVAL_US: u64 = 1_000_000;

/// One librdkafka member's wake-up grids.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RdkWakes {
    /// The 1 s timer's phase: the consumer's creation.
    created_phase_us: u64,
    /// The auto-commit timer's phase and period, when it runs (`enable.auto.commit`: from the
    /// creation).
    auto_commit: Option<(u64, u64)>,
    /// The poll-interval check's phase: the last `assign()`; `None` before the first.
    assigned_phase_us: Option<u64>,
    /// The fetcher's 1 s wait's phase: its last wake-up call (a partition starting to fetch).
    fetcher_phase_us: u64,
    /// The last heartbeat sent.
    pub(crate) last_heartbeat_us: Option<u64>,
    /// The last JoinGroup sent.
    pub(crate) last_join_us: Option<u64>,
}

/// The first instant at or after `t_us` on the grid of `period_us` with `phase_us`.
fn next_on_grid(phase_us: u64, period_us: u64, t_us: u64) -> u64 {
    t_us + (phase_us + period_us - t_us % period_us) % period_us
}

/// `-before_us` modulo `period_us`: the phase of an anchor `before_us` before t = 0.
fn phase_before_zero(before_us: u64, period_us: u64) -> u64 {
    (period_us - before_us % period_us) % period_us
}

impl RdkWakes {
    /// A consumer created at `created_us` (not yet assigned), with its auto-commit timer if
    /// `auto_commit`: its partitions join the fetcher when it subscribes, which wakes it
    /// (`rd_kafka_broker_wakeup`).
    pub(crate) fn created_at(s: &Scenario, created_us: u64, auto_commit: bool) -> Self {
        let every = s.auto_commit_interval_us;
        RdkWakes {
            created_phase_us: created_us % ONE_SECOND_US,
            auto_commit: auto_commit.then_some((created_us % every, every)),
            assigned_phase_us: None,
            fetcher_phase_us: created_us % FETCHER_WAIT_US,
            last_heartbeat_us: None,
            last_join_us: None,
        }
    }

    /// A member of the group at t = 0: created `consumer_created_before_start_ms` and
    /// assigned (its fetcher woken by its partitions) `assigned_before_start_ms` earlier.
    pub(crate) fn at_zero(s: &Scenario, auto_commit: bool) -> Self {
        let created = |period_us| phase_before_zero(s.created_before_start_us, period_us);
        let assigned = |period_us| phase_before_zero(s.assigned_before_start_us, period_us);
        let every = s.auto_commit_interval_us;
        RdkWakes {
            created_phase_us: created(ONE_SECOND_US),
            auto_commit: auto_commit.then(|| (created(every), every)),
            assigned_phase_us: Some(assigned(POLL_CHECK_US)),
            fetcher_phase_us: assigned(FETCHER_WAIT_US),
            last_heartbeat_us: None,
            last_join_us: None,
        }
    }

    /// The application called `assign()` (its rebalance callback) at `now_us`; `fetching`:
    /// it added partitions, whose fetch start wakes the fetcher.
    pub(crate) fn assigned(&mut self, now_us: u64, fetching: bool) {
        self.assigned_phase_us = Some(now_us % POLL_CHECK_US);
        if fetching {
            self.fetcher_phase_us = now_us % FETCHER_WAIT_US;
        }
    }

    /// The main thread's first timer wake-up at or after `t_us`.
    pub(crate) fn main_thread_wake(&self, t_us: u64) -> u64 {
        let mut at = next_on_grid(self.created_phase_us, ONE_SECOND_US, t_us);
        if let Some(phase) = self.assigned_phase_us {
            at = at.min(next_on_grid(phase, POLL_CHECK_US, t_us));
        }
        if let Some((phase, every)) = self.auto_commit {
            at = at.min(next_on_grid(phase, every, t_us));
        }
        at
    }

    /// When a rejoin decided at `now_us` sends its JoinGroup: at once a second or more after
    /// the last one, else at the main thread's first wake-up after that second
    /// (`rd_kafka_cgrp_join_state_serve` in join state init: `rd_interval_immediate(
    /// &rkcg_join_intvl, 1000 * 1000, now)`).
    pub(crate) fn join_at(&self, now_us: u64) -> u64 {
        match self.last_join_us {
            Some(last) if now_us < last + JOIN_INTERVAL_US => self.main_thread_wake(last + JOIN_INTERVAL_US),
            _ => now_us,
        }
    }

    /// When the fetcher, idle, next looks at its partitions: at or after `t_us`.
    pub(crate) fn fetcher_wake(&self, t_us: u64) -> u64 {
        next_on_grid(self.fetcher_phase_us, FETCHER_WAIT_US, t_us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_round_up_to_their_phase() {
        assert_eq!(next_on_grid(300, 1000, 0), 300);
        assert_eq!(next_on_grid(300, 1000, 300), 300);
        assert_eq!(next_on_grid(300, 1000, 301), 1300);
        assert_eq!(phase_before_zero(10_046_254, 1_000_000), 953_746);
        assert_eq!(phase_before_zero(0, 500_000), 0);
    }
}
