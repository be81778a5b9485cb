//! The inputs of one simulation: [`Scenario`], read from JSON with the keys and defaults of
//! `docs/model.md` §6 (and the extensions of §8), validated against their ranges (§5), and
//! [`Input`], a scenario plus the crash instant to read it at.
//!
//! Every key is declared once, in the `scenario_keys!` list below ([`crate::keys`]): name,
//! type, default, JSON name, range, unit and help. Parsing, `offset-window --help`, error
//! messages and the page's hints all read the table [`KEYS`] it generates; `--help` also
//! reads the one-line meanings in [`KEY_HELP`] (a table apart, which the page does not link).

use crate::clients::{strategies, LIBRARY_STRATEGIES};
pub use crate::clients::{Client, Strategy};
use crate::events::{GroupEvent, GroupEventKind, GROUP_EVENTS_RANGE};
pub use crate::keys::{
    ascending_unique, format_millis, millis_f64, parse_millis, KeyKind, KeySpec, ScenarioError, MAX_LIST,
    US_PER_MS,
};
use crate::keys::{json_object, named_enum, parse_json, scenario_keys, KeyValue};
use serde_json::{Map, Value};

/// Scenarios estimated above this many simulation events are refused (model.md §5), so that
/// no input can hang the page or exhaust memory. The 1,000,000-record benchmark fits.
pub const MAX_EVENTS: u64 = 5_000_000;

/// The bound for the result JSON of a consumer group without group events
/// ([`crate::summarize`], `offset-window run`), whose run keeps no lines (but the first
/// partition's) and no marks, and has no sweep to run: its memory grows with the offsets
/// not yet run and the commits in flight, not with the events (model.md §5). Issue 28's S-C,
/// 64 members on 1,024 partitions for a day, is estimated at 96,937,879.
pub const MAX_SUMMARY_EVENTS: u64 = 100_000_000;

/// Most partitions of the topic (model.md §10.1).
pub const MAX_PARTITIONS: u32 = 4096;

pub use crate::events::MAX_MEMBERS;

/// The largest offset a scenario may name (log end, log start): 10^12.
pub const MAX_OFFSET: u64 = 1_000_000_000_000;

named_enum! {
    /// What a manual commit sends (model.md §8.5).
    CommitValue {
        /// The next offset to read, `offset + 1` (correct).
        NextOffset = "next_offset", "the next offset to read (offset + 1)",
        /// The processed record's own offset (the classic off-by-one): every restart
        /// re-delivers the last processed record.
        RecordOffset = "record_offset", "the record's own offset (off by one)",
    }
}

named_enum! {
    /// The broker's rule for the member epoch an OffsetCommit carries under the consumer
    /// protocol (model.md §10.6, "Member epochs on commits").
    BrokerVersion {
        /// Apache Kafka 4.3 (KIP-1251): an older epoch is accepted for a partition the member
        /// has held since that epoch or before; the current epoch for any partition.
        Kafka4_3 = "4.3", "Kafka 4.3 (KIP-1251)",
        /// Apache Kafka 4.0 to 4.2: any epoch but the member's current one is refused
        /// (STALE_MEMBER_EPOCH), the whole commit.
        Kafka4_0 = "4.0", "Kafka 4.0–4.2",
    }
}

named_enum! {
    /// `auto.offset.reset`: where a group with no committed offset starts (model.md §8.9).
    OffsetReset {
        /// The log end: every record not yet read is skipped.
        Latest = "latest", "latest (the log end)",
        /// `log_start_offset`: everything still in the log is replayed.
        Earliest = "earliest", "earliest (the log start)",
    }
}

named_enum! {
    /// `isolation.level` of the reader of the transactional output (model.md §8.10).
    IsolationLevel {
        /// Aborted outputs are hidden: output is durable when its transaction commits.
        ReadCommitted = "read_committed", "read_committed",
        /// Kafka's default: output is visible the instant the record is processed.
        ReadUncommitted = "read_uncommitted", "read_uncommitted",
    }
}

named_enum! {
    /// Random variation of per-record processing time (model.md §8.12).
    Jitter {
        /// Every record takes exactly `record_processing_ms`.
        None = "none", "none",
        /// Uniform within ± `record_processing_jitter_pct` %.
        Uniform = "uniform", "uniform",
        /// Exponential with mean `record_processing_ms`.
        Exponential = "exponential", "exponential",
    }
}

/// One step of a scripted consumer (model.md §8.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScriptStep {
    /// `poll()`: the auto-commit check, then up to `max.poll.records` records.
    Poll,
    /// Process the next N records handed out and not yet processed.
    Process(u64),
    /// Do nothing for this many µs (no `poll()`).
    Sleep(u64),
    /// `commitSync()` of the position.
    CommitSync,
    /// `commitAsync()` of the position.
    CommitAsync,
    /// `close()` (model.md §8.6).
    Close,
    /// The process dies: nothing further happens, in-flight commits never land.
    Crash,
}

impl ScriptStep {
    /// Parses `poll`, `process N`, `sleep MS`, `commit_sync`, `commit_async`, `close`, `crash`.
    pub fn parse(text: &str) -> Result<ScriptStep, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            ["poll"] => Ok(ScriptStep::Poll),
            ["process", n] => n
                .parse()
                .ok()
                .filter(|n| (1..=1_000_000).contains(n))
                .map(ScriptStep::Process)
                .ok_or_else(|| format!("`process N` takes N from 1 to 1000000 (got `{}`)", crate::keys::shorten(n))),
            ["sleep", ms] => parse_millis(crate::keys::without_negative_zero(ms))
                .ok()
                .filter(|us| *us <= 86_400_000 * US_PER_MS)
                .map(ScriptStep::Sleep)
                .ok_or_else(|| {
                    format!(
                        "`sleep MS` takes 0 to 86400000 ms with at most 3 decimals (got `{}`)",
                        crate::keys::shorten(ms)
                    )
                }),
            ["commit_sync"] => Ok(ScriptStep::CommitSync),
            ["commit_async"] => Ok(ScriptStep::CommitAsync),
            ["close"] => Ok(ScriptStep::Close),
            ["crash"] => Ok(ScriptStep::Crash),
            _ => Err(format!(
                "`{}` is not a step; the steps are poll, process N, sleep MS, commit_sync, commit_async, close, crash",
                crate::keys::shorten(text)
            )),
        }
    }

    /// The step as written in a script.
    pub fn text(self) -> String {
        match self {
            ScriptStep::Poll => "poll".into(),
            ScriptStep::Process(n) => format!("process {n}"),
            ScriptStep::Sleep(us) => format!("sleep {}", format_millis(us)),
            ScriptStep::CommitSync => "commit_sync".into(),
            ScriptStep::CommitAsync => "commit_async".into(),
            ScriptStep::Close => "close".into(),
            ScriptStep::Crash => "crash".into(),
        }
    }
}

/// Most steps a script may hold.
pub const MAX_SCRIPT_STEPS: usize = 10_000;

impl KeyValue for Option<Vec<ScriptStep>> {
    fn read(spec: &KeySpec, value: &Value) -> Result<Self, ScenarioError> {
        match value {
            Value::Null => Ok(None),
            Value::Array(items) if items.len() <= MAX_SCRIPT_STEPS => {
                let mut steps = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let at = |message: String| ScenarioError::at(&format!("{}[{i}]", spec.name), message);
                    steps.push(match item {
                        Value::String(text) => ScriptStep::parse(text).map_err(at)?,
                        other => {
                            return Err(at(format!(
                                "must be a string step (got {})",
                                crate::keys::shown(other)
                            )))
                        }
                    });
                }
                Ok(Some(steps))
            }
            other => Err(spec.refuse(other)),
        }
    }
    fn write(&self, _: &KeySpec) -> Value {
        match self {
            None => Value::Null,
            Some(steps) => steps.iter().map(|s| Value::from(s.text())).collect(),
        }
    }
}

const fn millis(min_ms: u64, max_ms: u64) -> KeyKind {
    KeyKind::Millis { min_us: min_ms * US_PER_MS, max_us: max_ms * US_PER_MS }
}

const DAY_MS: u64 = 86_400_000;

scenario_keys! {
    /// One simulation's inputs (model.md §6 and §8). Build one with [`Scenario::default`] and
    /// struct update syntax, or read one from JSON with [`Scenario::from_json`]; check it with
    /// [`Scenario::validate`] (the simulator does so before running). Every §8 field's default
    /// switches its feature off, leaving the model of §§1–7. The crash instant is not part
    /// of a scenario: it is a query on the [`crate::Run`] (see [`Input`]).
    pub struct Scenario, table KEYS, help KEY_HELP {
        /// `max.poll.records`: records one `poll()` returns while the backlog lasts.
        max_poll_records: u32 = 5,
            key "max.poll.records", KeyKind::Count { min: 1, max: 100_000 }, "records",
            "records one poll() returns while the backlog lasts";
        /// `auto.commit.interval.ms`, µs: the auto-commit timer.
        auto_commit_interval_us: u64 = 5_000 * US_PER_MS,
            key "auto.commit.interval.ms", millis(1, 3_600_000), "ms",
            "auto-commit timer (checked only inside poll() by the Java classic client)";
        /// Processing time of one record, µs.
        record_processing_us: u64 = 200 * US_PER_MS,
            key "record_processing_ms", KeyKind::Millis { min_us: 1, max_us: 600_000 * US_PER_MS }, "ms",
            "processing time of one record";
        /// One OffsetCommit (or `commitTransaction`) round trip, µs.
        commit_latency_us: u64 = 5 * US_PER_MS,
            key "commit_latency_ms", millis(0, 60_000), "ms",
            "one OffsetCommit (or commitTransaction) round trip";
        /// How the application commits.
        strategy: Strategy = Strategy::AutoCommit,
            key "strategy", KeyKind::Choice(Strategy::NAMES), "",
            "how the application commits (see the strategies below)";
        /// For [`Strategy::CommitSyncEveryN`]: records between commits.
        commit_every_records: u32 = 10,
            key "commit_every_records", KeyKind::Count { min: 1, max: 1_000_000 }, "records",
            "records between commits, for commit_sync_every_n";
        /// Hand each batch to a worker pool and poll again (model.md §4).
        worker_pool: bool = false,
            key "worker_pool", KeyKind::Flag, "",
            "hand each batch to a worker pool and poll again at once";
        /// Batches in flight in the pool before the loop waits.
        pool_max_in_flight_batches: u32 = 3,
            key "pool_max_in_flight_batches", KeyKind::Count { min: 1, max: 64 }, "batches",
            "batches in the pool before the loop waits to poll";
        /// Worker threads of the pool.
        pool_threads: u32 = 1,
            key "pool_threads", KeyKind::Count { min: 1, max: 64 }, "threads",
            "worker threads of the pool";
        /// Simulated time shown, µs.
        horizon_us: u64 = 12_000 * US_PER_MS,
            key "horizon_ms", millis(1, DAY_MS), "ms",
            "simulated time shown";
        /// The partition's log end offset at t = 0 (LOG-END-OFFSET); polls stop returning
        /// records there.
        log_end_offset: u64 = 100_000,
            key "log_end_offset", KeyKind::Count { min: 0, max: MAX_OFFSET }, "offset",
            "the partition's LOG-END-OFFSET at t = 0; polls return nothing past it";
        /// `fetch.max.wait.ms`, µs: how long a `poll()` waits when no record is left.
        fetch_max_wait_us: u64 = 500 * US_PER_MS,
            key "fetch.max.wait.ms", millis(1, 300_000), "ms",
            "how long a poll() waits when no record is left";
        /// `max.partition.fetch.bytes`: most bytes one fetch brings of one partition; with
        /// `record_size_bytes` it makes the chunk a member hands out before turning to its next
        /// partition (model.md §10.1).
        max_partition_fetch_bytes: u64 = 1_048_576,
            key "max.partition.fetch.bytes", KeyKind::Count { min: 1, max: 1 << 30 }, "bytes",
            "most bytes one fetch brings of one partition (a member drains that chunk before its next partition)";
        /// The size of one record as fetched, bytes (model.md §10.1).
        record_size_bytes: u64 = 1_024,
            key "record_size_bytes", KeyKind::Count { min: 1, max: 1 << 30 }, "bytes",
            "size of one record as fetched (with max.partition.fetch.bytes: the records of one fetched chunk)";
        /// Which real client's behaviour to follow (model.md §8.4).
        client: Client = Client::JavaClassic,
            key "client", KeyKind::Choice(Client::NAMES), "",
            "whose behaviour to follow: what auto_commit means, what close() commits";
        /// What manual commits send (model.md §8.5).
        commit_value: CommitValue = CommitValue::NextOffset,
            key "commit_value", KeyKind::Choice(CommitValue::NAMES), "",
            "manual commits send offset + 1 (next_offset) or the record's own offset";
        /// Graceful `close()` at this instant, µs (model.md §8.6); `None`: the consumer runs on.
        close_at_us: Option<u64> = None,
            key "close_at_ms", KeyKind::OptionalMillis { min_us: 1, max_us: DAY_MS * US_PER_MS }, "ms",
            "graceful close() at this instant (empty: never)";
        /// At close, let the pool finish its queued batches before `close()` (model.md §8.6).
        drain_pool_on_close: bool = false,
            key "drain_pool_on_close", KeyKind::Flag, "",
            "let the pool finish its queued batches before close()";
        /// `max.poll.interval.ms`, µs (model.md §8.7).
        max_poll_interval_us: u64 = 300_000 * US_PER_MS,
            key "max.poll.interval.ms", millis(1, DAY_MS), "ms",
            "a member that does not poll for this long is evicted from the group";
        /// Commit requests that fail, by number counted from 1 in send order (model.md §8.8).
        commit_failures: Vec<u64> = Vec::new(),
            key "commit_failures", KeyKind::CountList { min: 1, max: 1_000_000_000 }, "commit numbers",
            "commit requests that fail, numbered from 1 in send order";
        /// Probability, in thousandths, that any commit request fails (seeded, model.md §8.8).
        commit_failure_per_mille: u64 = 0,
            key "commit_failure_probability", KeyKind::Thousandths { max_thousandths: 1_000 }, "",
            "chance that any commit request fails (seeded)";
        /// The application re-sends a failed `commitAsync` from its callback (model.md §8.8).
        retry_async_in_callback: bool = false,
            key "retry_async_in_callback", KeyKind::Flag, "",
            "the application re-sends a failed commitAsync from its callback";
        /// `retry.backoff.ms`, µs: first wait before a failed commit is retried.
        retry_backoff_us: u64 = 100 * US_PER_MS,
            key "retry.backoff.ms", millis(1, 60_000), "ms",
            "first wait before a failed commit is retried (then doubling)";
        /// `retry.backoff.max.ms`, µs: cap of the doubling backoff.
        retry_backoff_max_us: u64 = 1_000 * US_PER_MS,
            key "retry.backoff.max.ms", millis(1, 600_000), "ms",
            "cap of the doubling retry backoff";
        /// `default.api.timeout.ms`, µs: how long `commitSync` retries (model.md §8.8).
        default_api_timeout_us: u64 = 60_000 * US_PER_MS,
            key "default.api.timeout.ms", millis(0, 3_600_000), "ms",
            "how long commitSync retries before TimeoutException";
        /// After `close()`, the consumer is down this long, then restarts (model.md §8.9), µs.
        downtime_us: Option<u64> = None,
            key "downtime_ms", KeyKind::OptionalMillis { min_us: 0, max_us: DAY_MS * US_PER_MS }, "ms",
            "after close(), the consumer is down this long, then restarts (empty: never restarts)";
        /// `offsets.retention.minutes`: an empty group's committed offsets expire after this.
        offsets_retention_minutes: u64 = 10_080,
            key "offsets.retention.minutes", KeyKind::Count { min: 1, max: 10_000_000 }, "min",
            "an empty group's committed offsets are deleted after this";
        /// `auto.offset.reset`: where a group without committed offset starts.
        auto_offset_reset: OffsetReset = OffsetReset::Latest,
            key "auto.offset.reset", KeyKind::Choice(OffsetReset::NAMES), "",
            "where a group without committed offset starts";
        /// Records produced to the partition per 1000 s (the JSON `produce_rate_per_s` × 1000).
        produce_rate_milli_per_s: u64 = 0,
            key "produce_rate_per_s", KeyKind::Thousandths { max_thousandths: 1_000_000_000 }, "records/s",
            "records appended to the partition per second (0: a fixed backlog)";
        /// The log start offset (what `earliest` means; retention deletes older records).
        log_start_offset: u64 = 0,
            key "log_start_offset", KeyKind::Count { min: 0, max: MAX_OFFSET }, "offset",
            "the log start: where auto.offset.reset=earliest starts";
        /// `isolation.level` of the transactional output's reader (model.md §8.10).
        isolation_level: IsolationLevel = IsolationLevel::ReadCommitted,
            key "isolation.level", KeyKind::Choice(IsolationLevel::NAMES), "",
            "the output reader's isolation level (transactional only)";
        /// A scripted consumer replacing the steady loop (model.md §8.11).
        script: Option<Vec<ScriptStep>> = None,
            key "script", KeyKind::Structured("null or a list of steps (strings): poll, process N, sleep MS, commit_sync, commit_async, close, crash"), "",
            "null, or steps replacing the loop: poll, process N, sleep MS, commit_sync, commit_async, close, crash";
        /// Processing-time jitter (model.md §8.12).
        record_processing_jitter: Jitter = Jitter::None,
            key "record_processing_jitter", KeyKind::Choice(Jitter::NAMES), "",
            "random variation of record_processing_ms";
        /// Half-width of uniform jitter, percent of `record_processing_ms`.
        record_processing_jitter_pct: u64 = 50,
            key "record_processing_jitter_pct", KeyKind::Count { min: 0, max: 100 }, "%",
            "half-width of uniform jitter";
        /// Seed of the jitter (`seed`) and commit-failure (`seed + 1`) generators.
        seed: u64 = 0,
            key "seed", KeyKind::Count { min: 0, max: u64::MAX - 1 }, "",
            "seed of the jitter and commit-failure generators";
        /// Partitions of the topic `orders` (model.md §10.1); one is the one-consumer model.
        partitions: u32 = 1,
            key "partitions", KeyKind::Count { min: 1, max: MAX_PARTITIONS as u64 }, "partitions",
            "partitions of the topic orders (orders-0, orders-1, …)";
        /// Members of the group at t = 0 (`consumer-1` …, model.md §10.1).
        members: u32 = 1,
            key "members", KeyKind::Count { min: 1, max: MAX_MEMBERS as u64 }, "members",
            "consumers in the group at t = 0 (consumer-1, consumer-2, …)";
        /// How the classic protocol divides the partitions (model.md §10.2); the consumer
        /// protocol (KIP-848) uses the broker's uniform assignor instead.
        assignment_strategy: Assignor = Assignor::Range,
            key "partition.assignment.strategy", KeyKind::Choice(Assignor::NAMES), "",
            "how the classic protocol divides partitions among members (KIP-848 uses the broker's uniform assignor)";
        /// What happens to the members (model.md §10.3).
        group_events: Vec<GroupEvent> = Vec::new(),
            key "group_events", KeyKind::Structured(GROUP_EVENTS_RANGE), "",
            "crashes, hangs, shutdowns, joins and deploys of members";
        /// Every member has the static id `consumer-N` (KIP-345, model.md §10.3).
        static_membership: bool = false,
            key "group.instance.id", KeyKind::Flag, "",
            "give each member the static id consumer-N: back within session.timeout.ms, it gets its partitions with no rebalance";
        /// How long before t = 0 each starting consumer was created, µs (model.md §8.2):
        /// librdkafka's auto-commit timer counts from then.
        created_before_start_us: u64 = 0,
            key "consumer_created_before_start_ms", millis(0, 3_600_000), "ms",
            "how long before t = 0 the starting consumers were created (librdkafka's auto-commit timer counts from then)";
        /// How long before t = 0 the starting consumers received their assignment, µs (model.md
        /// §10.4): heartbeats and the Java clients' auto-commit timers count from then.
        assigned_before_start_us: u64 = 0,
            key "assigned_before_start_ms", millis(0, 3_600_000), "ms",
            "how long before t = 0 the starting consumers got their partitions (heartbeats and the Java auto-commit timer count from then)";
        /// The group has never committed (model.md §1, §10.1): every partition starts with no
        /// committed offset, so its first owner starts where `auto.offset.reset` resolves.
        new_group: bool = false,
            key "new_group", KeyKind::Flag, "",
            "the group has never committed: each partition's first owner starts where auto.offset.reset resolves";
        /// `session.timeout.ms`, µs: the coordinator expires a member not heard from for this long.
        session_timeout_us: u64 = 45_000 * US_PER_MS,
            key "session.timeout.ms", millis(1, 3_600_000), "ms",
            "the coordinator drops a member not heard from for this long";
        /// `heartbeat.interval.ms`, µs (classic protocol).
        heartbeat_interval_us: u64 = 3_000 * US_PER_MS,
            key "heartbeat.interval.ms", millis(1, 3_600_000), "ms",
            "time between a classic member's heartbeats (they tell it of a rebalance)";
        /// `group.consumer.heartbeat.interval.ms`, µs: the broker's heartbeat interval for the
        /// consumer protocol (KIP-848).
        consumer_heartbeat_interval_us: u64 = 5_000 * US_PER_MS,
            key "group.consumer.heartbeat.interval.ms", millis(1, 3_600_000), "ms",
            "time between heartbeats under the consumer protocol (KIP-848; a broker setting)";
        /// What the application's `onPartitionsRevoked` does (model.md §10.5).
        on_revoke: OnRevoke = OnRevoke::Nothing,
            key "on_revoke", KeyKind::Choice(OnRevoke::NAMES), "",
            "what onPartitionsRevoked does: nothing, commitSync() of what was processed, or wait for the pool first";
        /// With `on_revoke: drain`: how long `onPartitionsRevoked` waits for the pool's work
        /// in flight before it commits, µs (model.md §10.5).
        on_revoke_drain_us: u64 = 20_000 * US_PER_MS,
            key "on_revoke_drain_ms", millis(0, 3_600_000), "ms",
            "with on_revoke drain: how long onPartitionsRevoked waits for the pool's work in flight";
        /// The application's commits keep the partitions it gave up, with what its worker pool
        /// finishes there after the revocation (model.md §10.5): an offsets map that
        /// `onPartitionsRevoked` does not prune.
        commit_revoked_partitions: bool = false,
            key "commit_revoked_partitions", KeyKind::Flag, "",
            "with a worker pool: the application's commits keep the partitions it lost, with what its workers finish there later";
        /// The broker's member-epoch rule for commits under the consumer protocol (model.md
        /// §10.6).
        broker_version: BrokerVersion = BrokerVersion::Kafka4_3,
            key "broker_version", KeyKind::Choice(BrokerVersion::NAMES), "",
            "consumer protocol: the broker's check of a commit's member epoch";
        /// `group.initial.rebalance.delay.ms`, µs: the first member to join an empty group
        /// waits this long (a broker setting).
        initial_rebalance_delay_us: u64 = 3_000 * US_PER_MS,
            key "group.initial.rebalance.delay.ms", millis(0, 300_000), "ms",
            "how long the first member joining an empty group waits for others (a broker setting)";
        /// For [`Strategy::CommitSyncTime`]: time between commits, µs (Spring `ackTime`).
        commit_every_us: u64 = 5_000 * US_PER_MS,
            key "commit_every_ms", millis(1, 3_600_000), "ms",
            "time between commits, for commit_sync_time (Spring ackTime)";
        /// Processing times of particular offsets, µs (model.md §12); others take
        /// `record_processing_ms`.
        record_processing_by_offset_us: ByOffset = ByOffset::default(),
            key "record_processing_ms_by_offset", KeyKind::Structured(BY_OFFSET_RANGE), "ms",
            "processing time of particular offsets, e.g. {\"0\": 2000}; the others take record_processing_ms";
        /// Offsets whose processing fails on every attempt (model.md §12).
        record_failures: Vec<u64> = Vec::new(),
            key "record_failures", KeyKind::CountList { min: 0, max: MAX_OFFSET }, "offsets",
            "offsets whose processing throws on every attempt";
        /// Probability, in thousandths, that any processing attempt fails (seeded).
        record_failure_per_mille: u64 = 0,
            key "record_failure_probability", KeyKind::Thousandths { max_thousandths: 1_000 }, "",
            "chance that any processing attempt throws (seeded)";
        /// What the application does with a record that throws (model.md §12).
        on_error: OnError = OnError::LogAndContinue,
            key "on_error", KeyKind::Choice(OnError::NAMES), "",
            "what happens to a record that throws";
        /// For `on_error: retry`: attempts after the first.
        error_retries: u32 = 2,
            key "error_retries", KeyKind::Count { min: 0, max: 100 }, "retries",
            "for on_error retry: attempts after the first, then the record is skipped";
        /// For `on_error: retry`: the wait between attempts, µs.
        error_retry_backoff_us: u64 = 1_000 * US_PER_MS,
            key "error_retry_backoff_ms", millis(0, 600_000), "ms",
            "for on_error retry: the wait between attempts";
        /// For `on_error: seek_to_failed`: deliveries of a failing record before it is given
        /// up (Spring `DefaultErrorHandler`: 10, `FixedBackOff(0, 9)`).
        max_deliveries: u32 = 10,
            key "max_deliveries", KeyKind::Count { min: 1, max: 1_000 }, "deliveries",
            "for seek_to_failed: deliveries of a failing record before it is given up";
        /// For `on_error: seek_to_failed`: a record given up goes to a dead-letter topic
        /// (Spring `DeadLetterPublishingRecoverer`) instead of being skipped.
        dead_letter: bool = false,
            key "dead_letter", KeyKind::Flag, "",
            "for seek_to_failed: a record given up goes to a dead-letter topic instead of being skipped";
        /// With a worker pool: the offset every commit carries (model.md §12).
        pool_commit: PoolCommit = PoolCommit::HandedOut,
            key "pool_commit", KeyKind::Choice(PoolCommit::NAMES), "",
            "with a worker pool: the offset commits carry";
        /// How a worker pool orders its work (model.md §4, §12).
        ordering: Ordering = Ordering::Batch,
            key "ordering", KeyKind::Choice(Ordering::NAMES), "",
            "how the pool orders work: whole batches per thread, or records by partition, by key or unordered (Confluent Parallel Consumer)";
        /// For `ordering: key`: records are keyed offset mod `keys`.
        keys: u32 = 16,
            key "keys", KeyKind::Count { min: 1, max: 1_000_000 }, "keys",
            "for ordering key: records are keyed offset mod keys";
        /// Whether a record the error handler gave up on is acknowledged like a processed
        /// one, so the next commit carries its offset + 1 (Spring Kafka `ackOnError`; since
        /// 2.8 the error handler's `isAckAfterHandle()`, true by default).
        ack_on_error: bool = true,
            key "ack_on_error", KeyKind::Flag, "",
            "Spring: a record the error handler gave up on is acknowledged like a processed one";
        /// When Spring's COUNT and TIME modes check whether to commit (model.md §12).
        spring_ack_check: AckCheck = AckCheck::AfterRecord,
            key "spring_ack_check", KeyKind::Choice(AckCheck::NAMES), "",
            "for commit_sync_count and commit_sync_time: checked after each record (Spring Kafka 3.1 and later) or once the whole poll's records are done (before 3.1)";
        /// A consumer group, or a share group of `KafkaShareConsumer`s (model.md §11).
        consumption: Consumption = Consumption::ConsumerGroup,
            key "consumption", KeyKind::Choice(Consumption::NAMES), "",
            "a consumer group (partitions assigned, offsets committed) or a share group (KIP-932: records acquired and acknowledged one by one)";
        /// Share groups: how records are acknowledged (model.md §11).
        share_acknowledgement_mode: ShareAcknowledgementMode = ShareAcknowledgementMode::Implicit,
            key "share.acknowledgement.mode", KeyKind::Choice(ShareAcknowledgementMode::NAMES), "",
            "share groups: the next poll() or commit acknowledges the last poll's records (implicit), or the application acknowledges each record (explicit)";
        /// Share groups: how long an acquired record stays locked to its member, µs.
        share_record_lock_duration_us: u64 = 30_000 * US_PER_MS,
            key "group.share.record.lock.duration.ms", millis(15_000, 60_000), "ms",
            "share groups: how long an acquired record stays locked to its consumer before it is offered again (a broker setting)";
        /// Share groups: the most records in flight (acquired, or released but not done)
        /// per partition.
        share_partition_max_record_locks: u32 = 2_000,
            key "group.share.partition.max.record.locks", KeyKind::Count { min: 100, max: 10_000 }, "records",
            "share groups: the most records in flight per partition (a broker setting)";
        /// Share groups: deliveries of a record before a release archives it.
        share_delivery_count_limit: u32 = 5,
            key "group.share.delivery.count.limit", KeyKind::Count { min: 2, max: 10 }, "deliveries",
            "share groups: deliveries of a record before it is archived instead of offered again (a broker setting)";
        /// Share groups: how a `ShareFetch` acquires records (`share.acquire.mode`, KIP-1206,
        /// a consumer setting; model.md §11.2). The model's default is `record_limit`, what
        /// the conformance cases measure; Kafka's is `batch_optimized`.
        share_acquire_mode: ShareAcquireMode = ShareAcquireMode::RecordLimit,
            key "share.acquire.mode", KeyKind::Choice(ShareAcquireMode::NAMES), "",
            "share groups: a poll acquires at most max.poll.records (record_limit) or goes on to the end of the producer batch (batch_optimized); the model's default is record_limit, Kafka's is batch_optimized";
        /// The records of one producer batch (model.md §11.2): the log is written in batches of
        /// this many records (the backlog's last one may be shorter), and the produced records
        /// reach the log a batch at a time.
        records_per_producer_batch: u32 = 1,
            key "records_per_producer_batch", KeyKind::Count { min: 1, max: 10_000 }, "records",
            "records in one producer batch: the log grows a batch at a time (Kafka's batch.size counts bytes; the model counts records)";
        /// Share groups: `fetch.max.bytes`, the `ShareFetch` request's MaxBytes (model.md §11.2):
        /// the broker reads each partition's log up to an equal share of it, in whole producer
        /// batches of `record_size_bytes` records, at least one batch.
        fetch_max_bytes: u64 = 52_428_800,
            key "fetch.max.bytes", KeyKind::Count { min: 1, max: 1 << 30 }, "bytes",
            "share groups: most bytes one ShareFetch reads, shared equally by its partitions, whole producer batches of record_size_bytes records, at least one";
        /// Share groups: where a new share group starts (model.md §11).
        share_auto_offset_reset: OffsetReset = OffsetReset::Earliest,
            key "share.auto.offset.reset", KeyKind::Choice(OffsetReset::NAMES), "",
            "share groups: where a new share group starts; the model's default is earliest, Kafka's is latest (which skips the backlog)";
        /// Share groups, explicit mode: while a batch is in hand, every this long the poll loop
        /// acknowledges each of its records not yet acknowledged with `AcknowledgeType.RENEW`
        /// (KIP-1222, Kafka 4.2+), µs; `None`: never (model.md §11.3).
        share_renew_every_us: Option<u64> = None,
            key "share_renew_every_ms", KeyKind::OptionalMillis { min_us: 100 * US_PER_MS, max_us: 3_600_000 * US_PER_MS }, "ms",
            "share groups, explicit mode: renew the acquisition locks of the records in hand this often (AcknowledgeType.RENEW; empty: never)";
    }
}

named_enum! {
    /// Which kind of group the members form (model.md §10, §11).
    Consumption {
        /// A consumer group: each partition has one owner, progress is a committed offset.
        ConsumerGroup = "consumer_group", "consumer group",
        /// A share group (KIP-932): any member may receive any record; each record is
        /// acquired, then acknowledged.
        ShareGroup = "share_group", "share group (KIP-932)",
    }
}

named_enum! {
    /// `share.acknowledgement.mode` (KIP-932, `KafkaShareConsumer`).
    ShareAcknowledgementMode {
        /// The next `poll()`, `commitSync()` or `commitAsync()` acknowledges (ACCEPT) every
        /// record the last poll returned.
        Implicit = "implicit", "implicit (the next poll accepts the last batch)",
        /// The application calls `acknowledge(record, type)` for each record.
        Explicit = "explicit", "explicit (acknowledge() each record)",
    }
}

named_enum! {
    /// `share.acquire.mode` (KIP-1206, kafka-clients 4.2+ `ShareAcquireMode`; default
    /// `batch_optimized` in Kafka, `ConsumerConfig.DEFAULT_SHARE_ACQUIRE_MODE`).
    ShareAcquireMode {
        /// A `ShareFetch` acquires at most `max.poll.records` records.
        RecordLimit = "record_limit", "record limit (at most max.poll.records a poll)",
        /// A `ShareFetch` acquires whole producer batches: past `max.poll.records` to the end
        /// of the batch it reached.
        BatchOptimized = "batch_optimized", "batch optimized (whole producer batches; Kafka's default)",
    }
}

named_enum! {
    /// When Spring Kafka's `AckMode.COUNT` and `AckMode.TIME` check whether to commit
    /// (`KafkaMessageListenerContainer.ListenerConsumer.processCommits`).
    AckCheck {
        /// After each record (`invokeOnMessage` → `doProcessCommits`, Spring Kafka 3.1+,
        /// GH-2731); COUNT also commits what is pending when a poll returns no records.
        AfterRecord = "after_record", "after each record (Spring Kafka 3.1 and later)",
        /// Once the whole poll's records are done (Spring Kafka before 3.1).
        AfterPoll = "after_poll", "after the whole poll (Spring Kafka before 3.1)",
    }
}

named_enum! {
    /// What the application does with a record whose processing throws (model.md §12).
    OnError {
        /// Log it and go on: the record counts as handled, so commits pass it (lost).
        LogAndContinue = "log_and_continue", "log and go on (the record is skipped)",
        /// Try again `error_retries` more times, `error_retry_backoff_ms` apart, then skip it.
        Retry = "retry", "retry, then skip",
        /// Spring `DefaultErrorHandler`: commit what is before it, seek back to it and deliver
        /// it again, up to `max_deliveries`, then skip it or send it to a dead-letter topic.
        SeekToFailed = "seek_to_failed", "seek back and redeliver (Spring DefaultErrorHandler)",
        /// The partition stops: it is paused for good and falls behind for ever.
        Stop = "stop", "stop the partition",
        /// Spring batch listener, `DefaultErrorHandler`'s `FallbackBatchErrorHandler`: the
        /// whole batch again, `error_retry_backoff_ms` apart with the consumer paused and
        /// polled, up to `max_deliveries`; then the rest of the batch is skipped (or
        /// dead-lettered) and the batch committed.
        RetryBatch = "retry_batch", "the whole batch again (Spring batch listener)",
        /// Share groups (model.md §11): acknowledge it RELEASE, to be delivered again.
        Release = "release", "release it (share group)",
        /// Share groups (model.md §11): acknowledge it REJECT, never to be delivered again.
        Reject = "reject", "reject it (share group)",
    }
}

named_enum! {
    /// The offset a worker pool's commits carry (model.md §12).
    PoolCommit {
        /// What §4 commits: the position (or the counters' offsets) of what was handed off.
        HandedOut = "handed_out", "what was handed out",
        /// The highest completed offset + 1: skips unfinished earlier records (a common bug).
        HighestCompleted = "highest_completed", "the highest completed offset + 1",
        /// The lowest unfinished offset: what the Confluent Parallel Consumer and Spring's
        /// out-of-order acknowledgements commit.
        ContiguousCompleted = "contiguous_completed", "the lowest unfinished offset",
    }
}

named_enum! {
    /// How a worker pool orders its work (model.md §4, §12).
    Ordering {
        /// §4: each thread takes the oldest waiting batch and processes it in order.
        Batch = "batch", "whole batches per thread",
        /// One record at a time per partition (Parallel Consumer `ProcessingOrder.PARTITION`).
        Partition = "partition", "in order per partition",
        /// Records of one key in order, keys in parallel (`ProcessingOrder.KEY`).
        Key = "key", "in order per key",
        /// Any record on any thread (`ProcessingOrder.UNORDERED`).
        Unordered = "unordered", "unordered",
    }
}

/// Processing times by offset (`record_processing_ms_by_offset`), µs, ascending by offset.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByOffset(pub std::collections::BTreeMap<u64, u64>);

/// Words for the allowed values of `record_processing_ms_by_offset`.
const BY_OFFSET_RANGE: &str = "an object from offset (0–1000000000000, plain decimal digits) to milliseconds (0.001–600000, at most 3 decimals), at most 1000 entries";

impl KeyValue for ByOffset {
    fn read(spec: &KeySpec, value: &Value) -> Result<Self, ScenarioError> {
        let Value::Object(map) = value else { return Err(spec.refuse(value)) };
        if map.len() > MAX_LIST {
            return Err(spec.refuse(value));
        }
        let duration = KeySpec { kind: KeyKind::Millis { min_us: 1, max_us: 600_000 * US_PER_MS }, ..*spec };
        // Inserted one by one (collecting would sort first, a sort of its own in the page).
        let mut by_offset = std::collections::BTreeMap::new();
        for (offset, ms) in map {
            let at = |message: String| {
                ScenarioError::at(&format!("{}.{}", spec.name, crate::keys::shorten(offset)), message)
            };
            // An offset is its plain decimal text, so that no two keys name one offset
            // (`"1"` and `"01"`): no sign, no leading zero, no spaces.
            let offset: u64 = offset
                .parse()
                .ok()
                .filter(|o: &u64| *o <= MAX_OFFSET && o.to_string() == *offset)
                .ok_or_else(|| {
                    at(format!(
                        "must name an offset from 0 to {MAX_OFFSET} in plain decimal digits, with no sign or \
                         leading zero (\"7\", not \"07\" or \"+7\")"
                    ))
                })?;
            let us = u64::read(&duration, ms).map_err(|e| at(e.message))?;
            by_offset.insert(offset, us);
        }
        Ok(ByOffset(by_offset))
    }
    fn write(&self, _: &KeySpec) -> Value {
        let mut map = Map::new();
        for (offset, us) in &self.0 {
            map.insert(offset.to_string(), crate::keys::millis_value(*us));
        }
        Value::Object(map)
    }
}

named_enum! {
    /// `partition.assignment.strategy` of the classic protocol (model.md §10.2).
    Assignor {
        /// `RangeAssignor`: contiguous ranges; eager.
        Range = "range", "range (eager)",
        /// `RoundRobinAssignor`: partition i to the (i mod M)-th member; eager.
        RoundRobin = "roundrobin", "round robin (eager)",
        /// `CooperativeStickyAssignor`: members keep what they can; incremental.
        CooperativeSticky = "cooperative-sticky", "cooperative sticky (incremental)",
    }
}

named_enum! {
    /// What the application's `onPartitionsRevoked` does (model.md §10.5).
    OnRevoke {
        /// Nothing: what was processed since the last commit is replayed by the next owner.
        Nothing = "nothing", "nothing",
        /// `commitSync()` of each revoked partition's durable frontier.
        CommitSync = "commit_sync", "commitSync() of what was processed",
        /// Wait until the worker pool has nothing in flight, at most `on_revoke_drain_ms`, then
        /// `commitSync()` as `commit_sync`: work done after that is the next owner's to repeat.
        Drain = "drain", "wait for the pool (up to a time limit), then commitSync()",
    }
}

/// Looks a key up in [`KEYS`].
pub fn key_spec(name: &str) -> Option<&'static KeySpec> {
    KEYS.iter().find(|k| k.name == name)
}

/// The crash instant key of the JSON edge: not part of a [`Scenario`] but of an [`Input`].
pub const CRASH_AT_KEY: KeySpec = KeySpec {
    name: "crash_at_ms",
    kind: KeyKind::Millis { min_us: 1, max_us: DAY_MS * US_PER_MS },
    unit: "ms",
};

/// The one-line meaning of [`CRASH_AT_KEY`] (`--help`).
pub const CRASH_AT_HELP: &str = "the crash instant to read, in (0, horizon_ms]; events at that exact \
                                 instant do not happen (default 8200, or horizon_ms if shorter)";

/// The crash instant read when none is given: 8.2 s (model.md §6), or the horizon if shorter.
pub const DEFAULT_CRASH_AT_US: u64 = 8_200 * US_PER_MS;

impl Scenario {
    /// Reads a scenario from JSON text (model.md §6): an object whose missing keys take the
    /// defaults. Errors name the key and its allowed range on unknown keys, wrong types and
    /// out-of-range values, and on scenarios estimated above [`MAX_EVENTS`] events.
    /// `crash_at_ms` is not a scenario key: read it with [`Input::from_json`].
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        Scenario::from_value(&parse_json(text)?)
    }

    /// As [`Scenario::from_json`], from a parsed JSON value.
    pub fn from_value(value: &Value) -> Result<Scenario, ScenarioError> {
        Scenario::from_map(json_object(value, "a scenario", r#"{"strategy": "commit_sync_batch"}"#)?, None)
    }

    /// Reads every key of `map` but `skip` (the crash instant of an [`Input`]).
    fn from_map(map: &Map<String, Value>, skip: Option<&str>) -> Result<Scenario, ScenarioError> {
        let mut scenario = Scenario::default();
        for (key, value) in map {
            if Some(key.as_str()) != skip {
                scenario.set_key(key, value)?;
            }
        }
        scenario.validate()?;
        Ok(scenario)
    }

    /// Whether any processing attempt may throw (model.md §12).
    pub fn record_failures_possible(&self) -> bool {
        !self.record_failures.is_empty() || self.record_failure_per_mille > 0
    }

    /// The strategy the loop really runs once the client is taken into account (model.md §8.4).
    pub fn effective_strategy(&self) -> Strategy {
        self.client.effective(self.strategy)
    }

    /// Checks every range of model.md §5, the rules that involve several keys, and the bound
    /// on the estimated events: [`MAX_SUMMARY_EVENTS`] for a consumer group without group
    /// events (whose result JSON can be computed up to it), else [`MAX_EVENTS`]; a run that
    /// keeps its lines and marks ([`crate::simulate`]) checks [`MAX_EVENTS`] too
    /// ([`Scenario::check_events`]).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.check_ranges()?;
        #[cfg(not(feature = "group"))]
        self.refuse_groups()?;
        if let Some(close) = self.close_at_us.filter(|&at| at > self.horizon_us) {
            return Err(ScenarioError::at(
                "close_at_ms",
                format!(
                    "must be in (0, horizon_ms] = (0, {}] (got {})",
                    format_millis(self.horizon_us),
                    format_millis(close)
                ),
            ));
        }
        let refuse = |key: &str, message: &str| Err(ScenarioError::at(key, message));
        if self.worker_pool && self.strategy == Strategy::Transactional {
            return refuse(
                "worker_pool",
                "must be false with strategy \"transactional\": a transaction spans the loop's batch, \
                 so the model has no pool for it",
            );
        }
        self.validate_client()?;
        if self.client.is_java() && self.strategy == Strategy::StoreOffsetsAfterProcessing {
            return refuse(
                "strategy",
                "\"store_offsets_after_processing\" needs client \"librdkafka\": the Java client has no offset store",
            );
        }
        if self.script.is_some() && self.worker_pool {
            return refuse("script", "a scripted consumer has no worker pool: set worker_pool to false");
        }
        if self.downtime_us.is_some() && self.close_at_us.is_none() && self.script.is_none() {
            return refuse("downtime_ms", "needs close_at_ms: the consumer goes down when it closes");
        }
        if self.log_start_offset > self.log_end_offset {
            return refuse("log_start_offset", "must not be above log_end_offset");
        }
        if matches!(self.on_error, OnError::Release | OnError::Reject) && !self.share_group() {
            return refuse(
                "on_error",
                "\"release\" and \"reject\" are share-group acknowledgements (consumption: share_group)",
            );
        }
        if self.script.is_some() && self.record_failures_possible() {
            let key = if self.record_failures.is_empty() {
                "record_failure_probability"
            } else {
                "record_failures"
            };
            return refuse(key, "failures apply to a loop, not a script: set script to null");
        }
        if self.strategy == Strategy::Transactional
            && matches!(self.on_error, OnError::SeekToFailed | OnError::Stop)
        {
            return refuse(
                "on_error",
                "\"seek_to_failed\" and \"stop\" are modelled for loops without transactions",
            );
        }
        if self.on_error == OnError::RetryBatch {
            self.validate_retry_batch()?;
        }
        if self.worker_pool && matches!(self.on_error, OnError::SeekToFailed | OnError::Stop) {
            return refuse(
                "on_error",
                "\"seek_to_failed\" and \"stop\" need the loop to process the records itself: set worker_pool to false",
            );
        }
        if !self.worker_pool
            && (self.pool_commit != PoolCommit::HandedOut || self.ordering != Ordering::Batch)
        {
            let key = if self.pool_commit != PoolCommit::HandedOut { "pool_commit" } else { "ordering" };
            return refuse(key, "applies to a worker pool: set worker_pool to true");
        }
        if self.on_revoke == OnRevoke::Drain {
            if !self.worker_pool {
                return refuse(
                    "on_revoke",
                    "\"drain\" waits for a worker pool's work in flight: set worker_pool to true",
                );
            }
            if !matches!(self.client, Client::JavaClassic | Client::JavaConsumerProtocol) {
                return refuse(
                    "on_revoke",
                    "\"drain\" is modelled for the Java clients java_classic and java_consumer_protocol",
                );
            }
        }
        if self.commit_revoked_partitions {
            self.validate_commit_revoked()?;
        }
        if self.broker_version != BrokerVersion::Kafka4_3 && !(self.consumer_protocol() && self.group_mode())
        {
            return refuse(
                "broker_version",
                "is read under the consumer protocol (java_consumer_protocol, librdkafka_consumer_protocol) in a group only (else leave it at \"4.3\")",
            );
        }
        if self.retry_backoff_max_us < self.retry_backoff_us {
            return refuse("retry.backoff.max.ms", "must not be below retry.backoff.ms");
        }
        self.validate_group()?;
        self.check_events(self.events_bound())
    }

    /// The bound on the estimated events of this scenario's result JSON:
    /// [`MAX_SUMMARY_EVENTS`] for a consumer group without group events, else [`MAX_EVENTS`].
    pub fn events_bound(&self) -> u64 {
        if self.group_mode() && self.group_events.is_empty() {
            MAX_SUMMARY_EVENTS
        } else {
            MAX_EVENTS
        }
    }

    /// Refuses the scenario if its estimated events pass `bound`, with the estimate and the
    /// bound in the message.
    pub fn check_events(&self, bound: u64) -> Result<(), ScenarioError> {
        let events = self.estimated_events();
        if events > bound {
            let summary = if bound < self.events_bound() {
                format!(
                    " (the result JSON of `offset-window run` takes up to {}: a consumer group without group events keeps no lines)",
                    self.events_bound()
                )
            } else {
                String::new()
            };
            return Err(ScenarioError::whole(format!(
                "this scenario needs about {events} simulation events; the limit is {bound}{summary}. \
                 Shorten horizon_ms, or raise record_processing_ms or max.poll.records"
            )));
        }
        Ok(())
    }

    /// Whether this is a consumer group (model.md §10): several members or partitions, or
    /// group events. Otherwise the one-consumer model of §§1–9 runs exactly. Always false
    /// without the `group` feature, whose [`Scenario::validate`] refuses a group.
    pub fn group_mode(&self) -> bool {
        cfg!(feature = "group")
            && !self.share_group()
            && (self.members > 1 || self.partitions > 1 || !self.group_events.is_empty())
    }

    /// `on_error: retry_batch` is a Spring batch listener's error handler (model.md §12.3): a
    /// Java client, one consumer processing its polls itself, acknowledging per batch.
    fn validate_retry_batch(&self) -> Result<(), ScenarioError> {
        let refuse = |key: &str, why: &str| {
            Err(ScenarioError::at(key, format!("with on_error \"retry_batch\": {why}")))
        };
        if !self.client.is_java() {
            return refuse("client", "Spring Kafka runs a Java client");
        }
        if !matches!(self.strategy, Strategy::CommitSyncBatch | Strategy::CommitAsyncBatch) {
            return refuse("strategy", "use commit_sync_batch or commit_async_batch (AckMode BATCH)");
        }
        if self.worker_pool {
            return refuse("worker_pool", "the listener runs on the consumer's thread");
        }
        if self.share_group() {
            return refuse("consumption", "a share group has no batch listener's retries");
        }
        if !self.group_mode() {
            return Ok(());
        }
        // In a group (model.md §12.3): the error handler's paused polls under the classic
        // protocol, the container's revocation committing nothing of a batch in retry.
        if self.client != Client::JavaClassic {
            return refuse("client", "in a group, modelled for java_classic (the classic protocol) only");
        }
        if self.on_revoke != OnRevoke::Nothing {
            return refuse(
                "on_revoke",
                "leave it \"nothing\": Spring's container commits its pending acknowledgements at a revocation, and a batch listener's are committed at each batch's end",
            );
        }
        Ok(())
    }

    /// The key that makes this a consumer group or a share group, for a refusal of what is
    /// modelled for one consumer only; `None` for one consumer.
    fn group_key(&self) -> Option<&'static str> {
        Some(match () {
            _ if self.share_group() => "consumption",
            _ if !self.group_mode() => return None,
            _ if self.members > 1 => "members",
            _ if self.partitions > 1 => "partitions",
            _ => "group_events",
        })
    }

    /// Why the chosen client and strategy do not read `key`, when they do not: the page shows
    /// such a field as not read, the command line notes it for a scenario file that sets it
    /// (model.md §8.14). `max.poll.records`: sarama and kafka-go hand one message per call,
    /// a KafkaJS batch is what one fetch brought. `auto.commit.interval.ms`: read only by a
    /// strategy whose commits the client times (`Strategy::is_auto` of what the loop runs).
    /// The error handlers' keys (model.md §12.3): each read only by the `on_error` that has it.
    pub fn unread(&self, key: &str) -> Option<&'static str> {
        match key {
            "max.poll.records" => match self.client {
                Client::Sarama => Some("sarama hands out one message at a time"),
                Client::KafkaGo => Some("kafka-go hands out one message at a time"),
                Client::Kafkajs => Some("a KafkaJS batch is one fetch (maxBytesPerPartition)"),
                _ => None,
            },
            "auto.commit.interval.ms" if !self.share_group() => {
                let effective = self.client.effective(self.strategy);
                if effective.is_auto() {
                    None
                } else if self.client == Client::Kafkajs {
                    Some("KafkaJS commits after each batch (autoCommitInterval unset)")
                } else if effective == Strategy::ReadMessage {
                    Some("ReadMessage commits each message (CommitInterval 0)")
                } else {
                    Some("the application commits itself; no auto-commit timer runs")
                }
            }
            "share.acquire.mode" | "fetch.max.bytes" if !self.share_group() => {
                Some("read only by a share group (consumption share_group)")
            }
            "error_retries" if self.on_error != OnError::Retry => Some("read only with on_error \"retry\""),
            "error_retry_backoff_ms" if !matches!(self.on_error, OnError::Retry | OnError::RetryBatch) => {
                Some("read only with on_error \"retry\" or \"retry_batch\"")
            }
            "max_deliveries" | "dead_letter"
                if !matches!(self.on_error, OnError::SeekToFailed | OnError::RetryBatch) =>
            {
                Some("read only with on_error \"seek_to_failed\" or \"retry_batch\"")
            }
            _ => None,
        }
    }

    /// Whether the members form a share group (model.md §11). Always false without the
    /// `group` feature, whose [`Scenario::validate`] refuses a share group.
    pub fn share_group(&self) -> bool {
        cfg!(feature = "group") && self.consumption == Consumption::ShareGroup
    }

    /// Without the `group` feature (the one-consumer page's build): refuses what would make
    /// a consumer group or a share group, naming the key.
    #[cfg(not(feature = "group"))]
    fn refuse_groups(&self) -> Result<(), ScenarioError> {
        const WHY: &str = "this build of the simulator runs one consumer; consumer groups and share groups \
                           (docs/model.md §10, §11) are on the group page and in the command-line runner";
        let refuse = |key: &str, must: &str| Err(ScenarioError::at(key, format!("{must} here: {WHY}")));
        if self.consumption == Consumption::ShareGroup {
            return refuse("consumption", "must be \"consumer_group\"");
        }
        if self.members > 1 {
            return refuse("members", &format!("must be 1 (got {})", self.members));
        }
        if self.partitions > 1 {
            return refuse("partitions", &format!("must be 1 (got {})", self.partitions));
        }
        if !self.group_events.is_empty() {
            return refuse("group_events", "must be empty");
        }
        Ok(())
    }

    /// Whether the members use the consumer protocol (KIP-848, `group.protocol=consumer`)
    /// rather than the classic one (model.md §10.2, §10.6).
    pub fn consumer_protocol(&self) -> bool {
        matches!(
            self.client,
            Client::JavaConsumerProtocol
                | Client::JavaConsumerProtocolPreFix
                | Client::JavaConsumerProtocol4_2_0
                | Client::LibrdkafkaConsumerProtocol
        )
    }

    /// Every member that ever exists: those present at t = 0 and those a `join` event adds
    /// (N of `consumer-N`, so the count is the highest N).
    pub fn member_count(&self) -> u32 {
        let joined =
            self.group_events.iter().filter(|e| e.kind == GroupEventKind::Join).map(|e| e.member as u32);
        joined.max().unwrap_or(0).max(self.members)
    }

    /// The rules of model.md §11 that involve several keys.
    /// `commit_revoked_partitions` (model.md §10.5): the whole-map commits of a Java
    /// application with a worker pool, in a group.
    fn validate_commit_revoked(&self) -> Result<(), ScenarioError> {
        let refuse = |message: &str| Err(ScenarioError::at("commit_revoked_partitions", message));
        if !self.worker_pool {
            return refuse("applies to a worker pool's commits: set worker_pool to true");
        }
        if !self.client.is_java() {
            return refuse("is modelled for the Java clients only");
        }
        if !matches!(self.strategy, Strategy::CommitSyncBatch | Strategy::CommitAsyncBatch) {
            return refuse(
                "needs commits of the application's offsets after each hand-off: set strategy to \"commit_sync_batch\" or \"commit_async_batch\"",
            );
        }
        if !self.group_mode() {
            return refuse("applies to a consumer group: give it more members, partitions or group events");
        }
        Ok(())
    }

    fn validate_share(&self) -> Result<(), ScenarioError> {
        let refuse = |key: &str, message: &str| Err(ScenarioError::at(key, message));
        let strategies = [
            Strategy::AutoCommit,
            Strategy::CommitSyncBatch,
            Strategy::CommitAsyncBatch,
            Strategy::CommitSyncRecord,
        ];
        if !strategies.contains(&self.strategy) {
            return refuse(
                "strategy",
                "a share group acknowledges with its next poll (auto_commit), commit_sync_batch, \
                 commit_async_batch or commit_sync_record",
            );
        }
        if self.worker_pool {
            return refuse(
                "worker_pool",
                "the model's share consumers process their records themselves: set worker_pool to false",
            );
        }
        if self.client != Client::JavaClassic {
            return refuse(
                "client",
                "share groups are modelled for the Java KafkaShareConsumer: set client to java_classic",
            );
        }
        match self.on_error {
            OnError::SeekToFailed | OnError::Stop => {
                return refuse("on_error", "a share group has no position to seek or partition to stop: use log_and_continue, retry, release or reject")
            }
            OnError::Release | OnError::Reject if self.share_acknowledgement_mode == ShareAcknowledgementMode::Implicit => {
                return refuse("on_error", "release and reject are acknowledgements: set share.acknowledgement.mode to explicit")
            }
            _ => {}
        }
        if self.share_renew_every_us.is_some()
            && self.share_acknowledgement_mode == ShareAcknowledgementMode::Implicit
        {
            return refuse(
                "share_renew_every_ms",
                "RENEW is an explicit acknowledgement: set share.acknowledgement.mode to explicit, or leave it empty",
            );
        }
        Ok(())
    }

    /// The rules of model.md §10 that involve several keys.
    fn validate_group(&self) -> Result<(), ScenarioError> {
        if !self.share_group() && self.share_renew_every_us.is_some() {
            return Err(ScenarioError::at(
                "share_renew_every_ms",
                "renewing acquisition locks is for share groups: set consumption to share_group, or leave it empty",
            ));
        }
        if self.share_group() {
            self.validate_share()?;
        } else if !self.group_mode() {
            return Ok(());
        }
        let refuse = |key: &str, message: String| Err(ScenarioError::at(key, message));
        for key in ["close_at_ms", "downtime_ms", "script"] {
            if self.get(key) != Some(Value::Null) {
                return refuse(
                    key,
                    "must be empty in a consumer or share group (several members or partitions, group_events, \
                     or consumption share_group): closes and restarts come from group_events"
                        .to_string(),
                );
            }
        }
        let mut joined: Vec<u16> = Vec::new();
        for (i, event) in self.group_events.iter().enumerate() {
            let here = |field: &str| format!("group_events[{i}].{field}");
            if event.at_us > self.horizon_us {
                return refuse(
                    &here("at_ms"),
                    format!(
                        "must be within horizon_ms = {} (got {})",
                        format_millis(self.horizon_us),
                        format_millis(event.at_us)
                    ),
                );
            }
            match event.kind {
                GroupEventKind::Join => {
                    if event.member as u32 <= self.members || joined.contains(&event.member) {
                        return refuse(
                            &here("member"),
                            format!(
                                "a join adds a new member: N must be above members = {} and used once (got {})",
                                self.members, event.member
                            ),
                        );
                    }
                    joined.push(event.member);
                }
                GroupEventKind::Deploy => {}
                _ => {
                    let known = event.member as u32 <= self.members
                        || self
                            .group_events
                            .iter()
                            .any(|e| e.kind == GroupEventKind::Join && e.member == event.member);
                    if !known {
                        return refuse(
                            &here("member"),
                            format!(
                                "must name a member: 1 to members = {}, or one a join event adds (got {})",
                                self.members, event.member
                            ),
                        );
                    }
                }
            }
        }
        if self.member_count() > MAX_MEMBERS {
            return refuse(
                "group_events",
                format!("at most {MAX_MEMBERS} members in all (members plus joins)"),
            );
        }
        Ok(())
    }

    /// The log end offset at instant `at_us`: `log_end_offset` plus what `produce_rate_per_s`
    /// appended since t = 0 (model.md §8.9).
    pub fn log_end_at(&self, at_us: u64) -> u64 {
        // ⌊rate_milli · t / 10^9⌋ in 64 bits (no 128-bit division in the page): with
        // t = q · 10^9 + r it is rate_milli · q + ⌊rate_milli · r / 10^9⌋, and the key's range
        // (rate_milli ≤ 10^9) keeps rate_milli · r below 10^18.
        let rate = self.produce_rate_milli_per_s;
        let (q, r) = (at_us / 1_000_000_000, at_us % 1_000_000_000);
        let produced = rate.saturating_mul(q).saturating_add(rate.saturating_mul(r) / 1_000_000_000);
        // Produced records reach the log a producer batch at a time (model.md §11.2).
        let batch = u64::from(self.records_per_producer_batch.max(1));
        self.log_end_offset.saturating_add(produced / batch * batch)
    }

    /// The end (exclusive) of the producer batch holding `offset` (model.md §11.2): the
    /// backlog below `log_end_offset` is in batches of `records_per_producer_batch` from
    /// offset 0, its last one ending at `log_end_offset`; produced records are in batches of
    /// that many from `log_end_offset`.
    #[cfg(feature = "group")]
    pub(crate) fn producer_batch_end(&self, offset: u64) -> u64 {
        let batch = u64::from(self.records_per_producer_batch.max(1));
        let backlog = self.log_end_offset;
        if offset < backlog {
            (offset / batch + 1).saturating_mul(batch).min(backlog)
        } else {
            backlog.saturating_add(((offset - backlog) / batch + 1).saturating_mul(batch))
        }
    }

    /// Where `auto.offset.reset` resolves at `now_us` (model.md §8.9): the log start
    /// (`earliest`) or the log end then (`latest`).
    pub(crate) fn reset_offset(&self, now_us: u64) -> u64 {
        match self.auto_offset_reset {
            OffsetReset::Earliest => self.log_start_offset,
            OffsetReset::Latest => self.log_end_at(now_us),
        }
    }

    /// Where a consumer starting at `now_us` from the committed offset `committed` begins
    /// (model.md §8.9): that offset, or — when there is none, or it is below the log start, so
    /// that the fetch would be answered OFFSET_OUT_OF_RANGE — where `auto.offset.reset` resolves.
    pub(crate) fn restart_offset(&self, committed: Option<u64>, now_us: u64) -> u64 {
        match committed {
            Some(offset) if offset >= self.log_start_offset => offset,
            _ => self.reset_offset(now_us),
        }
    }

    /// Whether a restart offset follows the log end (model.md §8.9): `latest` with no usable
    /// committed offset (none, or below the log start).
    pub(crate) fn restart_follows_log_end(&self, committed: Option<u64>) -> bool {
        self.auto_offset_reset == OffsetReset::Latest && committed.is_none_or(|c| c < self.log_start_offset)
    }

    /// Records one call hands the application (model.md §8.14): sarama's claim channel and
    /// kafka-go's `ReadMessage` / `FetchMessage` give one message; a KafkaJS batch is what one
    /// fetch brought of the partition (`maxBytesPerPartition`, 1 MiB like
    /// `max.partition.fetch.bytes`); franz-go's `PollRecords(ctx, max.poll.records)` and the
    /// others, `max.poll.records`.
    pub(crate) fn records_per_poll(&self) -> u64 {
        match self.client {
            Client::Sarama | Client::KafkaGo => 1,
            Client::Kafkajs => self.fetch_chunk_records(),
            _ => self.max_poll_records as u64,
        }
    }

    /// franz-go's default autocommit commits the head: what the polls *before* the latest one
    /// returned (`undirtyUncommitted` at the start of `PollRecords`; model.md §8.14).
    pub(crate) fn commits_previous_polls(&self) -> bool {
        self.client == Client::FranzGo && self.strategy == Strategy::AutoCommit
    }

    /// KafkaJS commits what it resolved — the messages whose `eachMessage` returned, or that
    /// `eachBatch` passed to `resolveOffset` — after each batch and at `disconnect()` (model.md
    /// §8.14). `each_batch` (auto-resolve) resolves a batch only when `eachBatch` returns, and
    /// that is committed at once (`Runner.handleBatch` → `autoCommitOffsets`): its close finds
    /// nothing more to commit.
    pub(crate) fn commits_resolved(&self) -> bool {
        self.client == Client::Kafkajs && self.strategy != Strategy::EachBatch
    }

    /// sarama with its workers marking messages as they finish (model.md §8.14, sarama#1287):
    /// one consumer on one partition, `MarkMessage` (or a raw `MarkOffset`, `commit_value:
    /// record_offset`) + AutoCommit.
    fn sarama_marks_from_a_pool(&self) -> bool {
        self.client == Client::Sarama
            && matches!(self.strategy, Strategy::AutoCommit | Strategy::MarkMessage)
            && !self.group_mode()
            && !self.share_group()
    }

    /// The rules of model.md §8.14 that involve the client: each library's strategies, and what
    /// the model has of it so far (one consumer, its own loop).
    fn validate_client(&self) -> Result<(), ScenarioError> {
        let refuse = |key: &str, message: String| Err(ScenarioError::at(key, message));
        match strategies(self.client) {
            Some(allowed) if !allowed.contains(&self.strategy) => {
                let names: Vec<_> = allowed.iter().map(|k| format!("\"{}\"", k.name())).collect();
                return refuse(
                    "strategy",
                    format!(
                        "client \"{}\" offers {} (got \"{}\")",
                        self.client.name(),
                        names.join(", "),
                        self.strategy.name()
                    ),
                );
            }
            None if LIBRARY_STRATEGIES.contains(&self.strategy) => {
                let owner = [Client::Sarama, Client::FranzGo, Client::KafkaGo, Client::Kafkajs]
                    .into_iter()
                    .find(|&c| strategies(c).is_some_and(|a| a.contains(&self.strategy)))
                    .map_or("", |c| c.name());
                return refuse("strategy", format!("\"{}\" needs client \"{owner}\"", self.strategy.name()));
            }
            _ => {}
        }
        if strategies(self.client).is_some() {
            let why = format!(
                "the model runs client \"{}\" as one consumer with its own loop, sarama, kafka-go and KafkaJS also in an eager group, franz-go in a cooperative one (docs/model.md §8.14)",
                self.client.name()
            );
            if self.worker_pool && !self.sarama_marks_from_a_pool() {
                let message = match self.client {
                    Client::Sarama => {
                        "must be false but with \"mark_message\" on one consumer (docs/model.md §8.14)".into()
                    }
                    _ => format!("must be false: {why}"),
                };
                return refuse("worker_pool", message);
            }
            if self.worker_pool && self.pool_commit == PoolCommit::HandedOut {
                // model.md §8.14: sarama keeps the highest mark (`offset_manager.go`,
                // `partitionOffsetManager.MarkOffset`); the workers mark what they finished.
                return refuse(
                    "pool_commit",
                    "sarama keeps the highest mark: \"highest_completed\" or \"contiguous_completed\" (docs/model.md §8.14)".into(),
                );
            }
            if self.script.is_some() {
                return refuse("script", format!("must be null: {why}"));
            }
            if matches!(self.client, Client::Sarama | Client::KafkaGo | Client::Kafkajs | Client::FranzGo)
                && self.group_mode()
                && !self.share_group()
            {
                // model.md §8.14: sarama and kafka-go in a classic group with an eager balance
                // strategy (kafka-go's `RangeGroupBalancer`, `RoundRobinGroupBalancer`); KafkaJS
                // with its one built-in assigner, round robin (eager); franz-go with its default
                // balancer, cooperative-sticky.
                let (fits, want) = match self.client {
                    Client::Kafkajs => (self.assignment_strategy == Assignor::RoundRobin, "roundrobin"),
                    Client::FranzGo => {
                        (self.assignment_strategy == Assignor::CooperativeSticky, "cooperative-sticky")
                    }
                    _ => (self.assignment_strategy != Assignor::CooperativeSticky, "eager"),
                };
                if !fits {
                    return refuse("partition.assignment.strategy", format!("must be {want}: {why}"));
                }
                if self.on_revoke != OnRevoke::Nothing {
                    return refuse("on_revoke", format!("must be \"nothing\": {why}"));
                }
                if self.strategy == Strategy::EachBatch {
                    // KafkaJS heartbeats only from its runner; an eachBatch that never calls
                    // heartbeat() sends none while a batch runs (model.md §8.14).
                    return refuse(
                        "strategy",
                        "\"each_batch\" is modelled for one consumer: in a group KafkaJS sends no heartbeat while it runs (docs/model.md §8.14)".into(),
                    );
                }
                if self.static_membership {
                    return refuse("group.instance.id", format!("must be false: {why}"));
                }
                if self.group_events.iter().any(|e| e.kind == GroupEventKind::Hang) {
                    return refuse("group_events", format!("no \"hang\": {why}"));
                }
                return Ok(());
            }
            if let Some(key) = self.group_key() {
                return refuse(key, format!("must describe one consumer on one partition: {why}"));
            }
        }
        Ok(())
    }

    /// Records of one partition one fetch brings, the chunk a group member hands out before
    /// it turns to its next partition: ⌊`max.partition.fetch.bytes` / `record_size_bytes`⌋,
    /// at least one (a fetch returns at least one batch, KIP-74; model.md §10.1).
    pub fn fetch_chunk_records(&self) -> u64 {
        if crate::broken::on("one_partition_per_poll") {
            return 1; // a test-only broken rule (crate::broken)
        }
        (self.max_partition_fetch_bytes / self.record_size_bytes).max(1)
    }

    /// The earliest instant at or after which the log end has reached `offset`; `None` when
    /// it never does (model.md §8.9: ⌊rate · t⌋ records produced by t).
    pub fn log_end_reaches_at(&self, offset: u64) -> Option<u64> {
        let needed = offset.checked_sub(self.log_end_offset).filter(|&n| n > 0);
        let Some(needed) = needed else { return Some(0) };
        if self.produce_rate_milli_per_s == 0 {
            return None;
        }
        // Smallest t with rate_milli · t / 10^9 ≥ needed: ⌈needed · 10^9 / rate_milli⌉, in 64 bits
        // as a · 10^9 + ⌈b · 10^9 / rate_milli⌉ with needed = a · rate_milli + b (b < rate_milli
        // ≤ 10^9); `None` past u64.
        let rate = self.produce_rate_milli_per_s;
        let (a, b) = (needed / rate, needed % rate);
        a.checked_mul(1_000_000_000)?.checked_add(b.checked_mul(1_000_000_000)?.div_ceil(rate))
    }

    /// An upper estimate of the records `poll()` hands out within the horizon.
    pub(crate) fn estimated_records(&self) -> u64 {
        let threads =
            if self.worker_pool { self.pool_threads as u64 } else { 1 } * self.member_count() as u64;
        let mpr = self.max_poll_records as u64;
        // Jitter can make records shorter: at least 1 µs, at most p·(1 − j) shorter.
        let fastest_us = match self.record_processing_jitter {
            Jitter::None => self.record_processing_us,
            Jitter::Uniform => {
                (self.record_processing_us * (100 - self.record_processing_jitter_pct) / 100).max(1)
            }
            Jitter::Exponential => (self.record_processing_us / 64).max(1),
        };
        // Records of record_processing_ms_by_offset may be shorter still (each counted as
        // taking no time at all, a few times over for redeliveries).
        let listed = self.record_processing_by_offset_us.0.len() as u64 * 4 * self.member_count() as u64;
        let processed = threads.saturating_mul(self.horizon_us / fastest_us + 1).saturating_add(listed);
        let available = self
            .log_end_at(self.horizon_us)
            .saturating_sub(self.log_start_offset)
            .saturating_mul(self.partitions as u64);
        processed
            .saturating_add(mpr.saturating_mul(self.pool_max_in_flight_batches as u64 + 1))
            .min(available.saturating_mul(2).saturating_add(mpr))
    }

    /// How many records' worth of per-record vectors (run counts, lines, profile, marks) a
    /// run reserves up front: [`Self::estimated_records`], capped at 2^24 so that an
    /// overestimate never reserves more than a run could use.
    pub(crate) fn records_to_reserve(&self) -> usize {
        self.estimated_records().min(1 << 24) as usize
    }

    /// An upper estimate of the events a run of this scenario processes: record
    /// completions, polls and commits within the horizon.
    pub fn estimated_events(&self) -> u64 {
        let mpr = self.max_poll_records as u64;
        let handed_out = self.estimated_records();
        let polls = handed_out / mpr + self.horizon_us / self.fetch_max_wait_us + 2;
        let background = self.horizon_us / self.auto_commit_interval_us + 1;
        let commits = match self.strategy {
            Strategy::CommitSyncRecord => handed_out,
            Strategy::CommitSyncEveryN => handed_out / self.commit_every_records as u64 + polls,
            _ => polls + background,
        };
        let retries =
            (self.commit_failures.len() as u64 + commits * self.commit_failure_per_mille / 1_000) * 64;
        let script = self.script.as_ref().map_or(0, |s| s.len() as u64);
        // Heartbeats, session checks and rebalance round trips of every member.
        let group = if self.group_mode() {
            let beats =
                self.horizon_us / self.heartbeat_interval_us.min(self.consumer_heartbeat_interval_us) + 2;
            (beats + 8 * (self.group_events.len() as u64 + 1)) * self.member_count() as u64 * 4
        } else {
            0
        };
        handed_out
            .saturating_mul(2)
            .saturating_add(polls.saturating_mul(3))
            .saturating_add(commits.saturating_mul(3))
            .saturating_add(retries)
            .saturating_add(script)
            .saturating_add(group)
    }
}

/// What `offset-window run` reads: a [`Scenario`] and the crash instant to read its run at.
/// The JSON is one object, the scenario's keys plus `crash_at_ms`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// The scenario to simulate.
    pub scenario: Scenario,
    /// The crash instant to read, µs, in (0, horizon].
    pub crash_at_us: u64,
}

impl Input {
    /// Reads a scenario and its crash instant from JSON text. `crash_at_ms` defaults to
    /// 8200 (or the horizon when that is shorter); errors as [`Scenario::from_json`], and
    /// for a crash instant outside (0, horizon_ms].
    pub fn from_json(text: &str) -> Result<Input, ScenarioError> {
        Input::from_value(&parse_json(text)?)
    }

    /// As [`Input::from_json`], from a parsed JSON value.
    pub fn from_value(value: &Value) -> Result<Input, ScenarioError> {
        let map = json_object(value, "a scenario", r#"{"strategy": "commit_sync_batch"}"#)?;
        let scenario = Scenario::from_map(map, Some(CRASH_AT_KEY.name))?;
        let crash = map.get(CRASH_AT_KEY.name);
        if crash.is_some() && scenario.group_mode() {
            return Err(ScenarioError::at(
                CRASH_AT_KEY.name,
                "is not read in a consumer group: crashes come from group_events (the damage is reported as a \
                 function of the first event's instant)",
            ));
        }
        let crash_at_us = match crash {
            None => DEFAULT_CRASH_AT_US.min(scenario.horizon_us),
            Some(value) => {
                let us = u64::read(&CRASH_AT_KEY, value)?;
                if us > scenario.horizon_us {
                    return Err(ScenarioError::at(
                        CRASH_AT_KEY.name,
                        format!(
                            "must be in (0, horizon_ms] = (0, {}] (got {})",
                            format_millis(scenario.horizon_us),
                            format_millis(us)
                        ),
                    ));
                }
                us
            }
        };
        Ok(Input { scenario, crash_at_us })
    }

    /// The JSON form: the scenario's keys that differ from the defaults, plus `crash_at_ms`.
    pub fn to_json_diff(&self) -> Value {
        let mut value = self.scenario.to_json_diff();
        if let Value::Object(map) = &mut value {
            map.insert(CRASH_AT_KEY.name.into(), crate::keys::millis_value(self.crash_at_us));
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_object_is_the_defaults() {
        assert_eq!(Scenario::from_json("{}").unwrap(), Scenario::default());
        assert_eq!(Input::from_json("{}").unwrap().crash_at_us, 8_200_000);
        assert_eq!(Input::from_json(r#"{"horizon_ms": 2000}"#).unwrap().crash_at_us, 2_000_000);
    }

    #[test]
    fn canonical_json_round_trips() {
        let s = Scenario {
            record_processing_us: 1_001,
            strategy: Strategy::CommitSyncEveryN,
            close_at_us: Some(3_000_000),
            script: Some(vec![ScriptStep::Poll, ScriptStep::Sleep(1_500)]),
            ..Scenario::default()
        };
        let json = s.to_json_value();
        assert_eq!(json["record_processing_ms"].to_string(), "1.001");
        assert_eq!(json["script"].to_string(), r#"["poll","sleep 1.5"]"#);
        assert_eq!(Scenario::from_value(&json).unwrap(), s);
        assert_eq!(Scenario::from_value(&s.to_json_diff()).unwrap(), s);
    }

    #[test]
    fn every_key_is_in_the_table_once() {
        let defaults = Scenario::default();
        for (i, spec) in KEYS.iter().enumerate() {
            assert!(KEYS[..i].iter().all(|k| k.name != spec.name), "{} twice", spec.name);
            assert!(defaults.get(spec.name).is_some(), "{}", spec.name);
        }
        assert_eq!(defaults.to_json_value().as_object().unwrap().len(), KEYS.len());
    }

    #[test]
    fn bad_input_names_the_key_and_the_range() {
        let err = |text: &str| Input::from_json(text).unwrap_err().to_string();
        assert_eq!(
            err(r#"{"max.poll.records": 0}"#),
            "max.poll.records: must be a whole number from 1 to 100000 (got 0)"
        );
        assert_eq!(
            err(r#"{"max.poll.records": "5"}"#),
            "max.poll.records: must be a whole number from 1 to 100000 (got \"5\")"
        );
        assert_eq!(
            err(r#"{"max.poll.records": null}"#),
            "max.poll.records: must be a whole number from 1 to 100000 (got no value)"
        );
        assert_eq!(
            err(r#"{"record_processing_ms": -1}"#),
            "record_processing_ms: must be a number of milliseconds from 0.001 to 600000 (at most 3 decimals) (got -1)"
        );
        assert!(err(r#"{"maxpollrecords": 5}"#)
            .starts_with("maxpollrecords: unknown key; the keys are max.poll.records,"));
        assert_eq!(
            err(r#"{"record_processing_ms": 0.0001}"#),
            "record_processing_ms: `0.0001` has more than 3 decimals (the model counts whole µs)"
        );
        assert_eq!(
            err(r#"{"crash_at_ms": 13000}"#),
            "crash_at_ms: must be in (0, horizon_ms] = (0, 12000] (got 13000)"
        );
        assert_eq!(err(r#"{"crash_at_ms": -0}"#), "crash_at_ms: must be a number of milliseconds from 0.001 to 86400000 (at most 3 decimals) (got -0)");
        assert!(err(r#"{"strategy": "sometimes"}"#).starts_with("strategy: must be one of \"auto_commit\""));
        assert!(err(r#"{"worker_pool": true, "strategy": "transactional"}"#)
            .starts_with("worker_pool: must be false"));
        assert!(err("[1]").starts_with("a scenario must be a JSON object"));
        assert!(err("{").starts_with("not valid JSON"));
        assert_eq!(Input::from_json(r#"{"log_start_offset": -0}"#).unwrap().scenario.log_start_offset, 0);
    }

    #[test]
    fn huge_scenarios_are_refused_before_running() {
        let err = Scenario::from_json(
            r#"{"record_processing_ms": 0.001, "horizon_ms": 86400000, "log_end_offset": 1000000000000}"#,
        )
        .unwrap_err();
        assert!(err.message.contains("the limit is 5000000"), "{err}");
        let million = Scenario {
            max_poll_records: 500,
            record_processing_us: 1_000,
            horizon_us: 1_000_000 * US_PER_MS,
            log_end_offset: 10_000_000,
            ..Scenario::default()
        };
        assert_eq!(million.validate(), Ok(()));
    }

    /// Issue 28's S-C, 64 members on 1,024 partitions for a day: its result JSON is within
    /// its bound; a run that keeps its lines and marks, or one with a group event (which the
    /// sweep runs again), is not.
    #[cfg(feature = "group")]
    #[test]
    fn a_day_of_a_steady_group_fits_only_the_result_jsons_bound() {
        let s_c = Scenario {
            members: 64,
            partitions: 1024,
            horizon_us: 86_400_000 * US_PER_MS,
            ..Scenario::default()
        };
        assert_eq!(s_c.validate(), Ok(()));
        assert_eq!((s_c.estimated_events(), s_c.events_bound()), (96_937_879, MAX_SUMMARY_EVENTS));
        let err = crate::simulate(&s_c).unwrap_err().message;
        assert!(
            err.contains("about 96937879 simulation events; the limit is 5000000 (the result JSON"),
            "{err}"
        );
        let crash = crate::events::GroupEvent::new(1_000_000, 2, crate::events::GroupEventKind::Crash);
        let with_event = Scenario { group_events: vec![crash], ..s_c };
        let err = with_event.validate().unwrap_err().message;
        assert!(err.contains("the limit is 5000000. Shorten"), "{err}");
    }

    #[test]
    fn the_log_end_is_reached_at_the_first_instant_its_floor_gets_there() {
        let s = Scenario { log_end_offset: 10, produce_rate_milli_per_s: 500, ..Scenario::default() };
        assert_eq!(s.log_end_reaches_at(10), Some(0));
        assert_eq!(s.log_end_reaches_at(11), Some(2_000_000));
        assert_eq!(s.log_end_at(1_999_999), 10);
        assert_eq!(s.log_end_at(2_000_000), 11);
        assert_eq!(Scenario::default().log_end_reaches_at(100_001), None);
    }

    /// The 64-bit arithmetic of the log end gives what 128-bit arithmetic gives, over the
    /// whole range of rates, instants and offsets.
    #[test]
    fn the_log_end_needs_no_128_bit_division() {
        let mut x = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for i in 0..200_000 {
            let rate = match i % 4 {
                0 => 1 + next(1_000),
                1 => 1_000_000_000,
                _ => 1 + next(1_000_000_000),
            };
            let s = Scenario {
                log_end_offset: next(1_000_000),
                produce_rate_milli_per_s: rate,
                ..Scenario::default()
            };
            let at = if i % 3 == 0 { next(u64::MAX) } else { next(86_400_000_001) };
            let wide = (rate as u128 * at as u128 / 1_000_000_000).min(u64::MAX as u128) as u64;
            assert_eq!(s.log_end_at(at), s.log_end_offset.saturating_add(wide), "rate {rate}, at {at}");
            let offset =
                s.log_end_offset + 1 + next(if i % 5 == 0 { u64::MAX / 2 } else { 1_000_000_000_000 });
            let needed = (offset - s.log_end_offset) as u128;
            let t = u64::try_from((needed * 1_000_000_000).div_ceil(rate as u128)).ok();
            assert_eq!(s.log_end_reaches_at(offset), t, "rate {rate}, offset {offset}");
        }
    }
}
