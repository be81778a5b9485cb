//! What several test files share: random consumer groups for property tests.

use std::ops::RangeInclusive;

use offset_window_sim::events::{GroupEvent, GroupEventKind, ShutdownMode};
use offset_window_sim::scenario::{Assignor, OnRevoke};
use offset_window_sim::{Client, Scenario, Strategy as Commit};
use proptest::prelude::*;

const MS: u64 = 1_000;

/// The sizes and times of a test file's random groups (all times in ms but processing).
pub struct Bounds {
    pub partitions: u32,
    pub processing_us: RangeInclusive<u64>,
    pub events: RangeInclusive<usize>,
    pub event_at_ms: u64,
    pub event_member: u16,
    pub restart_ms: u64,
    pub hang_ms: u64,
    pub deploy_step_ms: u64,
    pub session_ms: u64,
    pub poll_interval_ms: u64,
    pub horizon_ms: u64,
    /// Whether `on_revoke` `commit_sync` and `drain` are drawn (else never).
    pub on_revoke: bool,
}

/// Random groups: 1–4 members, 1–`partitions` partitions, every strategy, client and
/// assignor, a pool (whose commits keep revoked partitions or not) and static membership or
/// not, 1–20 records a poll, events of any kind.
pub fn random_groups(b: Bounds) -> impl Strategy<Value = Scenario> {
    (
        (1u32..=4, 1u32..=b.partitions, 0usize..Commit::ALL.len(), 0usize..Client::ALL.len(), 0usize..3),
        (
            any::<bool>(),
            any::<bool>(),
            0usize..OnRevoke::ALL.len(),
            1u32..=20,
            b.processing_us.clone(),
            any::<bool>(),
        ),
        proptest::collection::vec(
            (
                0u64..=b.event_at_ms,
                1u16..=b.event_member,
                0usize..5,
                any::<bool>(),
                proptest::option::of(0u64..=b.restart_ms),
            ),
            b.events.clone(),
        ),
    )
        .prop_map(
            move |(
                (members, partitions, strategy, client, assignor),
                (pool, fixed, revoke, mpr, processing, keep_revoked),
                events,
            )| {
                let client = Client::ALL[client];
                let strategy = match Commit::ALL[strategy] {
                    Commit::StoreOffsetsAfterProcessing if !client.is_librdkafka() => Commit::CommitSyncBatch,
                    s => s,
                };
                let pool = pool && strategy != Commit::Transactional;
                let on_revoke = match OnRevoke::ALL[revoke] {
                    _ if !b.on_revoke => OnRevoke::Nothing,
                    OnRevoke::Drain
                        if !pool || !matches!(client, Client::JavaClassic | Client::JavaConsumerProtocol) =>
                    {
                        OnRevoke::CommitSync
                    }
                    r => r,
                };
                // The application's commits keep revoked partitions (model.md §10.5).
                let commit_revoked_partitions = keep_revoked
                    && pool
                    && client.is_java()
                    && matches!(strategy, Commit::CommitSyncBatch | Commit::CommitAsyncBatch);
                let mut joins = members as u16;
                let group_events = events
                    .into_iter()
                    .map(|(at_ms, member, kind, abrupt, restart_ms)| {
                        let kind = GroupEventKind::ALL[kind];
                        let member = if kind == GroupEventKind::Join {
                            joins += 1;
                            joins
                        } else {
                            member.min(members as u16)
                        };
                        GroupEvent {
                            shutdown_mode: if abrupt { ShutdownMode::Abrupt } else { ShutdownMode::Wakeup },
                            restart_after_us: restart_ms.map(|ms| ms * MS),
                            duration_us: b.hang_ms * MS,
                            deploy_step_us: b.deploy_step_ms * MS,
                            ..GroupEvent::new(at_ms * MS, member, kind)
                        }
                    })
                    .collect();
                Scenario {
                    members,
                    partitions,
                    strategy,
                    client,
                    assignment_strategy: Assignor::ALL[assignor],
                    worker_pool: pool,
                    static_membership: fixed,
                    on_revoke,
                    commit_revoked_partitions,
                    max_poll_records: mpr,
                    record_processing_us: processing,
                    session_timeout_us: b.session_ms * MS,
                    max_poll_interval_us: b.poll_interval_ms * MS,
                    horizon_us: b.horizon_ms * MS,
                    group_events,
                    ..Scenario::default()
                }
            },
        )
        .prop_filter("valid", |s| s.validate().is_ok())
}
