//! The inputs of one simulation: [`Scenario`], read from JSON with the keys and defaults of
//! SPEC §6 (and §8's extensions) and validated against the ranges of SPEC §5.
//!
//! Times are held in integer microseconds (`*_us`). In JSON they are milliseconds with at
//! most three decimals (`*_ms`, Kafka's `*.ms` properties), converted exactly from their
//! decimal text by [`parse_millis`]: `1.001` is 1001 µs, `1.0001` is an error.
//!
//! Every key is described once, in [`KEYS`]; parsing, validation, `offset-window --help`
//! and the page's controls all read that table.

use serde_json::{Map, Number, Value};
use std::fmt;

/// Microseconds in one millisecond.
pub const US_PER_MS: u64 = 1_000;

/// Scenarios estimated above this many simulation events are refused (SPEC §5), so that no
/// input can hang the page or exhaust memory. The 1,000,000-record benchmark fits.
pub const MAX_EVENTS: u64 = 5_000_000;

/// Declares a fieldless enum whose values have JSON / URL names, with `ALL`, `NAMES`,
/// `name` and `from_name`.
macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name { $($(#[$vmeta])* $variant,)+ }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];
            /// The JSON / URL names of [`Self::ALL`], in the same order.
            pub const NAMES: &'static [&'static str] = &[$($text,)+];

            /// The JSON / URL name.
            pub fn name(self) -> &'static str {
                Self::NAMES[self as usize]
            }

            /// Parses a JSON / URL name; `None` when it names no value.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::NAMES.iter().position(|n| *n == name).map(|i| Self::ALL[i])
            }
        }
    };
}

named_enum! {
    /// How the application commits offsets: the table of SPEC §3, plus the two
    /// offset-store strategies of §8.2–8.3.
    Strategy {
        /// `enable.auto.commit=true`: at `poll()` entry, when `auto.commit.interval.ms` has
        /// expired, an asynchronous commit of the position (Java
        /// `ConsumerCoordinator.maybeAutoCommitOffsetsAsync`, committing
        /// `SubscriptionState.allConsumed()`). Never blocks the loop. Under the `librdkafka`
        /// and `java_consumer_protocol_pre_fix` clients it means [`Strategy::AutoCommitBackground`].
        AutoCommit = "auto_commit",
        /// `commitSync()` of the position after the last record of each batch.
        CommitSyncBatch = "commit_sync_batch",
        /// `commitSync(offset + 1)` after every record.
        CommitSyncRecord = "commit_sync_record",
        /// `commitSync(offset + 1)` each time a counter of processed records (never reset by
        /// `poll()`) reaches `commit_every_records`.
        CommitSyncEveryN = "commit_sync_every_n",
        /// `commitAsync()` of the position after each batch; the loop does not wait.
        CommitAsyncBatch = "commit_async_batch",
        /// A transactional producer: `beginTransaction`, outputs, `sendOffsetsToTransaction`,
        /// `commitTransaction`: outputs and offsets land together, one blocking round trip.
        Transactional = "transactional",
        /// SPEC §8.2: a timer commits the position at every multiple of
        /// `auto.commit.interval.ms`, polling or not (librdkafka's default
        /// `enable.auto.offset.store=true`; Java `AsyncKafkaConsumer` before KAFKA-18641).
        AutoCommitBackground = "auto_commit_background",
        /// SPEC §8.3: the same timer commits the offset the application stored after
        /// processing each record in order (librdkafka `enable.auto.offset.store=false` +
        /// `rd_kafka_offsets_store`).
        StoreOffsetsAfterProcessing = "store_offsets_after_processing",
    }
}

impl Strategy {
    /// A short label in the client's API words, for menus and tables.
    pub fn label(self) -> &'static str {
        match self {
            Strategy::AutoCommit => "enable.auto.commit (auto-commit in poll)",
            Strategy::CommitSyncBatch => "commitSync() after each batch",
            Strategy::CommitSyncRecord => "commitSync() after each record",
            Strategy::CommitSyncEveryN => "commitSync() every N records",
            Strategy::CommitAsyncBatch => "commitAsync() after each batch",
            Strategy::Transactional => "transactions (sendOffsetsToTransaction)",
            Strategy::AutoCommitBackground => "auto-commit on a background timer",
            Strategy::StoreOffsetsAfterProcessing => "store_offsets() after processing + auto-commit",
        }
    }

    /// Whether the client (not the application) decides when to commit.
    pub fn is_auto(self) -> bool {
        matches!(
            self,
            Strategy::AutoCommit | Strategy::AutoCommitBackground | Strategy::StoreOffsetsAfterProcessing
        )
    }
}

named_enum! {
    /// Which real client's behaviour the model follows (SPEC §8.4).
    Client {
        /// The Java `KafkaConsumer` with `group.protocol=classic` (the default): auto-commit
        /// runs inside `poll()` (`ConsumerCoordinator.maybeAutoCommitOffsetsAsync`).
        JavaClassic = "java_classic",
        /// The Java `AsyncKafkaConsumer` (`group.protocol=consumer`, KIP-848) after
        /// KAFKA-18641 moved the auto-commit back to the application's `poll()`: as classic.
        JavaConsumerProtocol = "java_consumer_protocol",
        /// The same consumer before KAFKA-18641: its background thread's timer commits the
        /// position whether or not the application polls (`auto_commit` acts as §8.2).
        JavaConsumerProtocolPreFix = "java_consumer_protocol_pre_fix",
        /// librdkafka (and the Python, Go, .NET clients on it): `enable.auto.commit` is a
        /// background timer committing the stored offsets (`auto_commit` acts as §8.2).
        Librdkafka = "librdkafka",
    }
}

impl Client {
    /// One line on which real client and version behaves so.
    pub fn note(self) -> &'static str {
        match self {
            Client::JavaClassic => "Java KafkaConsumer, group.protocol=classic (the default in Kafka 4.x): auto-commit only inside poll()",
            Client::JavaConsumerProtocol => "Java AsyncKafkaConsumer, group.protocol=consumer, with KAFKA-18641: auto-commit back inside poll()",
            Client::JavaConsumerProtocolPreFix => "Java AsyncKafkaConsumer, group.protocol=consumer, before KAFKA-18641: background timer commits the position",
            Client::Librdkafka => "librdkafka 2.x (confluent-kafka-python, -go, -dotnet): background timer commits offsets stored at hand-out",
        }
    }

    /// The strategy the loop really runs: `auto_commit` is a background timer under the
    /// clients that have one (SPEC §8.4).
    pub fn effective(self, strategy: Strategy) -> Strategy {
        match (self, strategy) {
            (Client::JavaConsumerProtocolPreFix | Client::Librdkafka, Strategy::AutoCommit) => {
                Strategy::AutoCommitBackground
            }
            _ => strategy,
        }
    }

    /// Whether this is one of the Java clients (which have no offset store).
    pub fn is_java(self) -> bool {
        self != Client::Librdkafka
    }
}

named_enum! {
    /// What a manual commit sends (SPEC §8.5).
    CommitValue {
        /// The next offset to read, `offset + 1` (correct).
        NextOffset = "next_offset",
        /// The processed record's own offset (the classic off-by-one): every restart
        /// re-delivers the last processed record.
        RecordOffset = "record_offset",
    }
}

named_enum! {
    /// `auto.offset.reset`: where a group with no committed offset starts (SPEC §8.9).
    OffsetReset {
        /// The log end: records produced while the group had no offset are skipped.
        Latest = "latest",
        /// `log_start_offset`: everything still in the log is replayed.
        Earliest = "earliest",
    }
}

named_enum! {
    /// `isolation.level` of the reader of the transactional output (SPEC §8.10).
    IsolationLevel {
        /// Aborted outputs are hidden: output is durable when its transaction commits.
        ReadCommitted = "read_committed",
        /// Kafka's default: output is visible the instant the record is processed.
        ReadUncommitted = "read_uncommitted",
    }
}

named_enum! {
    /// Random variation of per-record processing time (SPEC §8.12).
    Jitter {
        /// Every record takes exactly `record_processing_ms`.
        None = "none",
        /// Uniform within ± `record_processing_jitter_pct` %.
        Uniform = "uniform",
        /// Exponential with mean `record_processing_ms`.
        Exponential = "exponential",
    }
}

/// One step of a scripted consumer (SPEC §8.11).
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
    /// `close()` (SPEC §8.6).
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
                .ok_or_else(|| format!("`process N` takes N from 1 to 1000000 (got `{n}`)")),
            ["sleep", ms] => parse_millis(ms)
                .ok()
                .filter(|us| *us <= 86_400_000 * US_PER_MS)
                .map(ScriptStep::Sleep)
                .ok_or_else(|| format!("`sleep MS` takes 0 to 86400000 ms with at most 3 decimals (got `{ms}`)")),
            ["commit_sync"] => Ok(ScriptStep::CommitSync),
            ["commit_async"] => Ok(ScriptStep::CommitAsync),
            ["close"] => Ok(ScriptStep::Close),
            ["crash"] => Ok(ScriptStep::Crash),
            _ => Err(format!(
                "`{text}` is not a step; the steps are poll, process N, sleep MS, commit_sync, commit_async, close, crash"
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

/// One simulation's inputs (SPEC §6 and §8). Build one with [`Scenario::default`] and
/// struct update syntax, or read one from JSON with [`Scenario::from_json`]; check it with
/// [`Scenario::validate`] (the simulator does so before running). Every §8 field's default
/// switches its feature off, leaving the model of §§1–7.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scenario {
    /// `max.poll.records`: records one `poll()` returns while the backlog lasts (1–100000).
    pub max_poll_records: u32,
    /// `auto.commit.interval.ms`, in µs: the auto-commit timer (1 ms – 1 h).
    pub auto_commit_interval_us: u64,
    /// Processing time of one record, in µs (1 µs – 600 s).
    pub record_processing_us: u64,
    /// One OffsetCommit (or `commitTransaction`) round trip, in µs (0 – 60 s).
    pub commit_latency_us: u64,
    /// How the application commits.
    pub strategy: Strategy,
    /// For [`Strategy::CommitSyncEveryN`]: records between commits (1–1000000).
    pub commit_every_records: u32,
    /// Hand each batch to a worker pool and poll again (SPEC §4).
    pub worker_pool: bool,
    /// Batches in flight in the pool before the loop waits (1–64).
    pub pool_max_in_flight_batches: u32,
    /// Worker threads of the pool (1–64).
    pub pool_threads: u32,
    /// The crash instant, in µs, in (0, `horizon_us`].
    pub crash_at_us: u64,
    /// Simulated time shown, in µs (1 ms – 24 h).
    pub horizon_us: u64,
    /// The partition's log end offset at t = 0 (LOG-END-OFFSET); polls stop returning
    /// records there.
    pub log_end_offset: u64,
    /// `fetch.max.wait.ms`, in µs: how long a `poll()` waits when no record is left.
    pub fetch_max_wait_us: u64,
    /// Which real client's behaviour to follow (SPEC §8.4).
    pub client: Client,
    /// What manual commits send (SPEC §8.5).
    pub commit_value: CommitValue,
    /// Graceful `close()` at this instant, µs (SPEC §8.6); `None`: the consumer runs on.
    pub close_at_us: Option<u64>,
    /// At close, let the pool finish its queued batches before `close()` (SPEC §8.6).
    pub drain_pool_on_close: bool,
    /// `max.poll.interval.ms`, in µs (SPEC §8.7).
    pub max_poll_interval_us: u64,
    /// Commit requests that fail, by number counted from 1 in send order (SPEC §8.8).
    pub commit_failures: Vec<u64>,
    /// Probability, in thousandths, that any commit request fails (seeded, SPEC §8.8).
    pub commit_failure_per_mille: u64,
    /// The application re-sends a failed `commitAsync` from its callback (SPEC §8.8).
    pub retry_async_in_callback: bool,
    /// `retry.backoff.ms`, in µs: first wait before a failed commit is retried.
    pub retry_backoff_us: u64,
    /// `retry.backoff.max.ms`, in µs: cap of the doubling backoff.
    pub retry_backoff_max_us: u64,
    /// `default.api.timeout.ms`, in µs: how long `commitSync` retries (SPEC §8.8).
    pub default_api_timeout_us: u64,
    /// After `close()`, the consumer is down this long, then restarts (SPEC §8.9), µs.
    pub downtime_us: Option<u64>,
    /// `offsets.retention.minutes`: an empty group's committed offsets expire after this.
    pub offsets_retention_minutes: u64,
    /// `auto.offset.reset`: where a group without committed offset starts.
    pub auto_offset_reset: OffsetReset,
    /// Records produced to the partition per 1000 s (the JSON `produce_rate_per_s` × 1000).
    pub produce_rate_milli_per_s: u64,
    /// The log start offset (what `earliest` means; retention deletes older records).
    pub log_start_offset: u64,
    /// `isolation.level` of the transactional output's reader (SPEC §8.10).
    pub isolation_level: IsolationLevel,
    /// A scripted consumer replacing the steady loop (SPEC §8.11).
    pub script: Option<Vec<ScriptStep>>,
    /// Processing-time jitter (SPEC §8.12).
    pub record_processing_jitter: Jitter,
    /// Half-width of uniform jitter, percent of `record_processing_ms` (0–100).
    pub record_processing_jitter_pct: u64,
    /// Seed of the jitter (`seed`) and commit-failure (`seed + 1`) generators.
    pub seed: u64,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            max_poll_records: 5,
            auto_commit_interval_us: 5_000 * US_PER_MS,
            record_processing_us: 200 * US_PER_MS,
            commit_latency_us: 5 * US_PER_MS,
            strategy: Strategy::AutoCommit,
            commit_every_records: 10,
            worker_pool: false,
            pool_max_in_flight_batches: 3,
            pool_threads: 1,
            crash_at_us: 8_200 * US_PER_MS,
            horizon_us: 12_000 * US_PER_MS,
            log_end_offset: 100_000,
            fetch_max_wait_us: 500 * US_PER_MS,
            client: Client::JavaClassic,
            commit_value: CommitValue::NextOffset,
            close_at_us: None,
            drain_pool_on_close: false,
            max_poll_interval_us: 300_000 * US_PER_MS,
            commit_failures: Vec::new(),
            commit_failure_per_mille: 0,
            retry_async_in_callback: false,
            retry_backoff_us: 100 * US_PER_MS,
            retry_backoff_max_us: 1_000 * US_PER_MS,
            default_api_timeout_us: 60_000 * US_PER_MS,
            downtime_us: None,
            offsets_retention_minutes: 10_080,
            auto_offset_reset: OffsetReset::Latest,
            produce_rate_milli_per_s: 0,
            log_start_offset: 0,
            isolation_level: IsolationLevel::ReadCommitted,
            script: None,
            record_processing_jitter: Jitter::None,
            record_processing_jitter_pct: 50,
            seed: 0,
        }
    }
}

/// What kind of value a scenario key holds, with its allowed range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// A whole number in `min..=max`.
    Count {
        /// Smallest allowed value.
        min: u64,
        /// Largest allowed value.
        max: u64,
    },
    /// Milliseconds with at most three decimals, held in µs, in `min_us..=max_us`.
    Millis {
        /// Smallest allowed value, µs.
        min_us: u64,
        /// Largest allowed value, µs.
        max_us: u64,
    },
    /// As [`KeyKind::Millis`], or `null` for "never" (the feature is off).
    OptionalMillis {
        /// Smallest allowed value, µs.
        min_us: u64,
        /// Largest allowed value, µs.
        max_us: u64,
    },
    /// A decimal with at most three decimals, held in thousandths, in `0..=max_thousandths`.
    Thousandths {
        /// Largest allowed value, in thousandths.
        max_thousandths: u64,
    },
    /// `true` or `false`.
    Flag,
    /// One of these names.
    Choice(&'static [&'static str]),
    /// A list of whole numbers in `min..=max` (at most 1000).
    CountList {
        /// Smallest allowed value.
        min: u64,
        /// Largest allowed value.
        max: u64,
    },
    /// `null` or a list of script steps (SPEC §8.11).
    Script,
}

/// One key of the scenario JSON: its name, kind, unit and a one-line meaning. The table
/// [`KEYS`] drives parsing, `offset-window --help` and the page's controls alike.
#[derive(Clone, Copy, Debug)]
pub struct KeySpec {
    /// The JSON key, Kafka's own property name where there is one.
    pub name: &'static str,
    /// Value kind and range.
    pub kind: KeyKind,
    /// Unit as shown to people (`"ms"`, `"records"`, …; empty for flags and names).
    pub unit: &'static str,
    /// One-line meaning.
    pub help: &'static str,
}

const fn key(name: &'static str, kind: KeyKind, unit: &'static str, help: &'static str) -> KeySpec {
    KeySpec { name, kind, unit, help }
}

const fn millis(min_ms: u64, max_ms: u64) -> KeyKind {
    KeyKind::Millis { min_us: min_ms * US_PER_MS, max_us: max_ms * US_PER_MS }
}

/// Every scenario key: SPEC §6's first, then §8's. `crash_at_ms` and `close_at_ms` are
/// further limited to (0, `horizon_ms`] once both are known.
pub const KEYS: &[KeySpec] = &[
    key("max.poll.records", KeyKind::Count { min: 1, max: 100_000 }, "records", "records one poll() returns while the backlog lasts"),
    key("auto.commit.interval.ms", millis(1, 3_600_000), "ms", "auto-commit timer (checked only inside poll() by the Java classic client)"),
    key("record_processing_ms", KeyKind::Millis { min_us: 1, max_us: 600_000 * US_PER_MS }, "ms", "processing time of one record"),
    key("commit_latency_ms", millis(0, 60_000), "ms", "one OffsetCommit (or commitTransaction) round trip"),
    key("strategy", KeyKind::Choice(Strategy::NAMES), "", "how the application commits (see the strategies below)"),
    key("commit_every_records", KeyKind::Count { min: 1, max: 1_000_000 }, "records", "records between commits, for commit_sync_every_n"),
    key("worker_pool", KeyKind::Flag, "", "hand each batch to a worker pool and poll again at once"),
    key("pool_max_in_flight_batches", KeyKind::Count { min: 1, max: 64 }, "batches", "batches in the pool before the loop waits to poll"),
    key("pool_threads", KeyKind::Count { min: 1, max: 64 }, "threads", "worker threads of the pool"),
    key("crash_at_ms", KeyKind::Millis { min_us: 1, max_us: 86_400_000 * US_PER_MS }, "ms", "the crash instant, in (0, horizon_ms]; events at that exact instant do not happen"),
    key("horizon_ms", millis(1, 86_400_000), "ms", "simulated time shown"),
    key("log_end_offset", KeyKind::Count { min: 0, max: 1_000_000_000_000 }, "offset", "the partition's LOG-END-OFFSET at t = 0; polls return nothing past it"),
    key("fetch.max.wait.ms", millis(1, 300_000), "ms", "how long a poll() waits when no record is left"),
    key("client", KeyKind::Choice(Client::NAMES), "", "whose behaviour to follow: what auto_commit means, what close() commits"),
    key("commit_value", KeyKind::Choice(CommitValue::NAMES), "", "manual commits send offset + 1 (next_offset) or the record's own offset"),
    key("close_at_ms", KeyKind::OptionalMillis { min_us: 1, max_us: 86_400_000 * US_PER_MS }, "ms", "graceful close() at this instant (null: never)"),
    key("drain_pool_on_close", KeyKind::Flag, "", "let the pool finish its queued batches before close()"),
    key("max.poll.interval.ms", millis(1, 86_400_000), "ms", "a member that does not poll for this long is evicted from the group"),
    key("commit_failures", KeyKind::CountList { min: 1, max: 1_000_000_000 }, "commit numbers", "commit requests that fail, numbered from 1 in send order"),
    key("commit_failure_probability", KeyKind::Thousandths { max_thousandths: 1_000 }, "", "chance that any commit request fails (seeded)"),
    key("retry_async_in_callback", KeyKind::Flag, "", "the application re-sends a failed commitAsync from its callback"),
    key("retry.backoff.ms", millis(1, 60_000), "ms", "first wait before a failed commit is retried (then doubling)"),
    key("retry.backoff.max.ms", millis(1, 600_000), "ms", "cap of the doubling retry backoff"),
    key("default.api.timeout.ms", millis(0, 3_600_000), "ms", "how long commitSync retries before TimeoutException"),
    key("downtime_ms", KeyKind::OptionalMillis { min_us: 0, max_us: 86_400_000 * US_PER_MS }, "ms", "after close(), the consumer is down this long, then restarts (null: never restarts)"),
    key("offsets.retention.minutes", KeyKind::Count { min: 1, max: 10_000_000 }, "min", "an empty group's committed offsets are deleted after this"),
    key("auto.offset.reset", KeyKind::Choice(OffsetReset::NAMES), "", "where a group without committed offset starts"),
    key("produce_rate_per_s", KeyKind::Thousandths { max_thousandths: 1_000_000_000 }, "records/s", "records appended to the partition per second (0: a fixed backlog)"),
    key("log_start_offset", KeyKind::Count { min: 0, max: 10_000_000 }, "offset", "the log start: where auto.offset.reset=earliest starts"),
    key("isolation.level", KeyKind::Choice(IsolationLevel::NAMES), "", "the output reader's isolation level (transactional only)"),
    key("script", KeyKind::Script, "", "null, or steps replacing the loop: poll, process N, sleep MS, commit_sync, commit_async, close, crash"),
    key("record_processing_jitter", KeyKind::Choice(Jitter::NAMES), "", "random variation of record_processing_ms"),
    key("record_processing_jitter_pct", KeyKind::Count { min: 0, max: 100 }, "%", "half-width of uniform jitter"),
    key("seed", KeyKind::Count { min: 0, max: u64::MAX - 1 }, "", "seed of the jitter and commit-failure generators"),
];

/// Looks a key up in [`KEYS`].
pub fn key_spec(name: &str) -> Option<&'static KeySpec> {
    KEYS.iter().find(|k| k.name == name)
}

/// Why a scenario was refused. `key` names the offending JSON key when there is one;
/// `message` says what was wrong and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The JSON key at fault, if the error concerns one key.
    pub key: Option<String>,
    /// What was wrong, including the allowed range.
    pub message: String,
}

impl ScenarioError {
    fn at(key: &str, message: impl Into<String>) -> Self {
        ScenarioError { key: Some(key.to_string()), message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            Some(key) => write!(f, "{key}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Formats µs as milliseconds with up to three decimals and no trailing zeros:
/// `5_000_001` → `"5000.001"`, `8_200_000` → `"8200"`.
pub fn format_millis(us: u64) -> String {
    let (ms, frac) = (us / US_PER_MS, us % US_PER_MS);
    if frac == 0 {
        ms.to_string()
    } else {
        format!("{ms}.{frac:03}").trim_end_matches('0').to_string()
    }
}

/// µs as a JSON-ready f64 of milliseconds. Exact in the sense that it prints as the decimal
/// [`format_millis`] gives (every value below 2^53 µs has at most 16 significant digits).
pub fn millis_f64(us: u64) -> f64 {
    us as f64 / US_PER_MS as f64
}

/// Parses a decimal text of milliseconds (JSON number syntax, an exponent allowed) into
/// µs, exactly. Errors (as a sentence) on a sign, more than three decimals, or a value
/// above `u64::MAX` µs.
pub fn parse_millis(text: &str) -> Result<u64, String> {
    let bad = || format!("`{text}` is not a number of milliseconds with at most 3 decimals");
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i32>().map_err(|_| bad())?),
        None => (text, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int_part.is_empty() || !all_digits(int_part) || !all_digits(frac_part) {
        return Err(bad());
    }
    // value = digits × 10^(exponent − frac_len) ms = digits × 10^(exponent − frac_len + 3) µs
    let digits = format!("{int_part}{frac_part}");
    let digits = digits.trim_start_matches('0');
    let shift = exponent as i64 - frac_part.len() as i64 + 3;
    let (digits, shift) = if shift < 0 {
        // Only trailing zeros may be dropped; anything else is a fourth decimal.
        let drop = (-shift) as usize;
        if digits.len() >= drop && digits[digits.len() - drop..].bytes().all(|b| b == b'0') {
            (&digits[..digits.len() - drop], 0)
        } else if digits.is_empty() {
            ("", 0)
        } else {
            return Err(format!("`{text}` has more than 3 decimals (the model counts whole µs)"));
        }
    } else {
        (digits, shift as u32)
    };
    let too_big = || format!("`{text}` ms is too large");
    let mut us: u64 = if digits.is_empty() { 0 } else { digits.parse().map_err(|_| too_big())? };
    for _ in 0..shift {
        if us == 0 {
            break;
        }
        us = us.checked_mul(10).ok_or_else(too_big)?;
    }
    Ok(us)
}

impl KeyKind {
    /// The allowed values in words, as error messages and `--help` give them.
    pub fn describe(self) -> String {
        describe_range(self)
    }
}

fn describe_range(kind: KeyKind) -> String {
    let ms = |min_us, max_us| {
        format!(
            "a number of milliseconds from {} to {} (at most 3 decimals)",
            format_millis(min_us),
            format_millis(max_us)
        )
    };
    match kind {
        KeyKind::Count { min, max } => format!("a whole number from {min} to {max}"),
        KeyKind::Millis { min_us, max_us } => ms(min_us, max_us),
        KeyKind::OptionalMillis { min_us, max_us } => format!("null or {}", ms(min_us, max_us)),
        KeyKind::Thousandths { max_thousandths } => {
            format!("a number from 0 to {} with at most 3 decimals", format_millis(max_thousandths))
        }
        KeyKind::Flag => "true or false".to_string(),
        KeyKind::Choice(names) => {
            let quoted: Vec<_> = names.iter().map(|n| format!("\"{n}\"")).collect();
            format!("one of {}", quoted.join(", "))
        }
        KeyKind::CountList { min, max } => {
            format!("a list of at most 1000 whole numbers from {min} to {max}")
        }
        KeyKind::Script => "null or a list of steps (strings)".to_string(),
    }
}

/// A value read for one key, before it is stored in the scenario.
enum Parsed {
    Int(u64),
    OptionalInt(Option<u64>),
    Flag(bool),
    Choice(usize),
    List(Vec<u64>),
    Script(Option<Vec<ScriptStep>>),
}

fn parse_value(spec: &KeySpec, value: &Value) -> Result<Parsed, ScenarioError> {
    let wrong = |got: &dyn fmt::Display| {
        ScenarioError::at(spec.name, format!("must be {} (got {got})", describe_range(spec.kind)))
    };
    let decimal = |n: &Number, max: u64| -> Result<u64, ScenarioError> {
        let v = parse_millis(&n.to_string()).map_err(|e| ScenarioError::at(spec.name, e))?;
        if v <= max {
            Ok(v)
        } else {
            Err(wrong(n))
        }
    };
    match (spec.kind, value) {
        (KeyKind::Count { min, max }, Value::Number(n)) => match n.as_u64() {
            Some(v) if (min..=max).contains(&v) => Ok(Parsed::Int(v)),
            _ => Err(wrong(n)),
        },
        (
            KeyKind::Millis { min_us, max_us } | KeyKind::OptionalMillis { min_us, max_us },
            Value::Number(n),
        ) => {
            let us = decimal(n, max_us)?;
            if us < min_us {
                return Err(wrong(n));
            }
            Ok(match spec.kind {
                KeyKind::Millis { .. } => Parsed::Int(us),
                _ => Parsed::OptionalInt(Some(us)),
            })
        }
        (KeyKind::OptionalMillis { .. }, Value::Null) => Ok(Parsed::OptionalInt(None)),
        (KeyKind::Thousandths { max_thousandths }, Value::Number(n)) => {
            Ok(Parsed::Int(decimal(n, max_thousandths)?))
        }
        (KeyKind::Flag, Value::Bool(b)) => Ok(Parsed::Flag(*b)),
        (KeyKind::Choice(names), Value::String(s)) => {
            names.iter().position(|n| n == s).map(Parsed::Choice).ok_or_else(|| wrong(&format!("\"{s}\"")))
        }
        (KeyKind::CountList { min, max }, Value::Array(items)) if items.len() <= 1_000 => items
            .iter()
            .map(|item| match item.as_u64() {
                Some(v) if (min..=max).contains(&v) => Ok(v),
                _ => Err(wrong(item)),
            })
            .collect::<Result<_, _>>()
            .map(Parsed::List),
        (KeyKind::Script, Value::Null) => Ok(Parsed::Script(None)),
        (KeyKind::Script, Value::Array(items)) if items.len() <= 10_000 => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let at = |message: String| ScenarioError::at(&format!("{}[{i}]", spec.name), message);
                match item {
                    Value::String(text) => ScriptStep::parse(text).map_err(at),
                    other => Err(at(format!("must be a string step (got {other})"))),
                }
            })
            .collect::<Result<_, _>>()
            .map(|steps| Parsed::Script(Some(steps))),
        // An emptied field on the page arrives as null: say so in words.
        (_, Value::Null) => Err(wrong(&"no value")),
        (_, other) => Err(wrong(other)),
    }
}

/// Parses JSON text; the error says where the syntax broke.
pub(crate) fn parse_json(text: &str) -> Result<Value, ScenarioError> {
    serde_json::from_str(text)
        .map_err(|e| ScenarioError { key: None, message: format!("not valid JSON: {e}") })
}

/// The object a scenario file must be; `what` and `example` name it in the error.
pub(crate) fn json_object<'a>(
    value: &'a Value,
    what: &str,
    example: &str,
) -> Result<&'a Map<String, Value>, ScenarioError> {
    value.as_object().ok_or_else(|| ScenarioError {
        key: None,
        message: format!("{what} must be a JSON object, e.g. {example}"),
    })
}

impl Scenario {
    /// Reads a scenario from JSON text (SPEC §6): an object whose missing keys take the
    /// defaults. Errors name the key and its allowed range on unknown keys, wrong types and
    /// out-of-range values, and on scenarios estimated above [`MAX_EVENTS`] events.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        Scenario::from_value(&parse_json(text)?)
    }

    /// As [`Scenario::from_json`], from a parsed JSON value.
    pub fn from_value(value: &Value) -> Result<Scenario, ScenarioError> {
        let map = json_object(value, "a scenario", r#"{"strategy": "commit_sync_batch"}"#)?;
        let mut scenario = Scenario::default();
        for (key, value) in map {
            scenario.set(key, value)?;
        }
        scenario.validate()?;
        Ok(scenario)
    }

    /// Sets one key from a JSON value, checking its type and range (but not the checks
    /// that involve several keys: see [`Scenario::validate`]).
    pub fn set(&mut self, key: &str, value: &Value) -> Result<(), ScenarioError> {
        let Some(spec) = key_spec(key) else {
            let known: Vec<_> = KEYS.iter().map(|k| k.name).collect();
            return Err(ScenarioError::at(key, format!("unknown key; the keys are {}", known.join(", "))));
        };
        let parsed = parse_value(spec, value)?;
        let int = || match parsed {
            Parsed::Int(v) => v,
            _ => unreachable!("the key table gives {key} a numeric kind"),
        };
        let choice = || match parsed {
            Parsed::Choice(i) => i,
            _ => unreachable!("the key table gives {key} a choice kind"),
        };
        let flag = || matches!(parsed, Parsed::Flag(true));
        match key {
            "max.poll.records" => self.max_poll_records = int() as u32,
            "auto.commit.interval.ms" => self.auto_commit_interval_us = int(),
            "record_processing_ms" => self.record_processing_us = int(),
            "commit_latency_ms" => self.commit_latency_us = int(),
            "strategy" => self.strategy = Strategy::ALL[choice()],
            "commit_every_records" => self.commit_every_records = int() as u32,
            "worker_pool" => self.worker_pool = flag(),
            "pool_max_in_flight_batches" => self.pool_max_in_flight_batches = int() as u32,
            "pool_threads" => self.pool_threads = int() as u32,
            "crash_at_ms" => self.crash_at_us = int(),
            "horizon_ms" => self.horizon_us = int(),
            "log_end_offset" => self.log_end_offset = int(),
            "fetch.max.wait.ms" => self.fetch_max_wait_us = int(),
            "client" => self.client = Client::ALL[choice()],
            "commit_value" => self.commit_value = CommitValue::ALL[choice()],
            "drain_pool_on_close" => self.drain_pool_on_close = flag(),
            "max.poll.interval.ms" => self.max_poll_interval_us = int(),
            "commit_failure_probability" => self.commit_failure_per_mille = int(),
            "retry_async_in_callback" => self.retry_async_in_callback = flag(),
            "retry.backoff.ms" => self.retry_backoff_us = int(),
            "retry.backoff.max.ms" => self.retry_backoff_max_us = int(),
            "default.api.timeout.ms" => self.default_api_timeout_us = int(),
            "offsets.retention.minutes" => self.offsets_retention_minutes = int(),
            "auto.offset.reset" => self.auto_offset_reset = OffsetReset::ALL[choice()],
            "produce_rate_per_s" => self.produce_rate_milli_per_s = int(),
            "log_start_offset" => self.log_start_offset = int(),
            "isolation.level" => self.isolation_level = IsolationLevel::ALL[choice()],
            "record_processing_jitter" => self.record_processing_jitter = Jitter::ALL[choice()],
            "record_processing_jitter_pct" => self.record_processing_jitter_pct = int(),
            "seed" => self.seed = int(),
            _ => match parsed {
                Parsed::OptionalInt(v) if key == "close_at_ms" => self.close_at_us = v,
                Parsed::OptionalInt(v) if key == "downtime_ms" => self.downtime_us = v,
                Parsed::List(v) if key == "commit_failures" => self.commit_failures = v,
                Parsed::Script(v) if key == "script" => self.script = v,
                _ => unreachable!("every key of KEYS is handled above"),
            },
        }
        Ok(())
    }

    /// The value of one key as JSON (milliseconds as exact decimals); `None` for an unknown key.
    pub fn get(&self, key: &str) -> Option<Value> {
        let decimal = |v: u64| Value::Number(format_millis(v).parse::<Number>().expect("decimal text"));
        let optional = |v: Option<u64>| v.map_or(Value::Null, decimal);
        Some(match key {
            "max.poll.records" => self.max_poll_records.into(),
            "auto.commit.interval.ms" => decimal(self.auto_commit_interval_us),
            "record_processing_ms" => decimal(self.record_processing_us),
            "commit_latency_ms" => decimal(self.commit_latency_us),
            "strategy" => self.strategy.name().into(),
            "commit_every_records" => self.commit_every_records.into(),
            "worker_pool" => self.worker_pool.into(),
            "pool_max_in_flight_batches" => self.pool_max_in_flight_batches.into(),
            "pool_threads" => self.pool_threads.into(),
            "crash_at_ms" => decimal(self.crash_at_us),
            "horizon_ms" => decimal(self.horizon_us),
            "log_end_offset" => self.log_end_offset.into(),
            "fetch.max.wait.ms" => decimal(self.fetch_max_wait_us),
            "client" => self.client.name().into(),
            "commit_value" => self.commit_value.name().into(),
            "close_at_ms" => optional(self.close_at_us),
            "drain_pool_on_close" => self.drain_pool_on_close.into(),
            "max.poll.interval.ms" => decimal(self.max_poll_interval_us),
            "commit_failures" => self.commit_failures.clone().into(),
            "commit_failure_probability" => decimal(self.commit_failure_per_mille),
            "retry_async_in_callback" => self.retry_async_in_callback.into(),
            "retry.backoff.ms" => decimal(self.retry_backoff_us),
            "retry.backoff.max.ms" => decimal(self.retry_backoff_max_us),
            "default.api.timeout.ms" => decimal(self.default_api_timeout_us),
            "downtime_ms" => optional(self.downtime_us),
            "offsets.retention.minutes" => self.offsets_retention_minutes.into(),
            "auto.offset.reset" => self.auto_offset_reset.name().into(),
            "produce_rate_per_s" => decimal(self.produce_rate_milli_per_s),
            "log_start_offset" => self.log_start_offset.into(),
            "isolation.level" => self.isolation_level.name().into(),
            "script" => match &self.script {
                None => Value::Null,
                Some(steps) => steps.iter().map(|s| Value::from(s.text())).collect(),
            },
            "record_processing_jitter" => self.record_processing_jitter.name().into(),
            "record_processing_jitter_pct" => self.record_processing_jitter_pct.into(),
            "seed" => self.seed.into(),
            _ => return None,
        })
    }

    /// Every key with its value: the canonical JSON form, which [`Scenario::from_value`]
    /// reads back to an equal scenario.
    pub fn to_json_value(&self) -> Value {
        let map: Map<String, Value> = KEYS
            .iter()
            .map(|k| (k.name.to_string(), self.get(k.name).expect("every key of KEYS has a value")))
            .collect();
        Value::Object(map)
    }

    /// Only the keys that differ from the defaults: the short JSON form for links and files.
    pub fn to_json_diff(&self) -> Value {
        let defaults = Scenario::default();
        let map: Map<String, Value> = KEYS
            .iter()
            .filter_map(|k| {
                let value = self.get(k.name)?;
                (Some(&value) != defaults.get(k.name).as_ref()).then(|| (k.name.to_string(), value))
            })
            .collect();
        Value::Object(map)
    }

    /// The strategy the loop really runs once the client is taken into account (SPEC §8.4).
    pub fn effective_strategy(&self) -> Strategy {
        self.client.effective(self.strategy)
    }

    /// Checks every range of SPEC §5, the rules that involve several keys, and the
    /// [`MAX_EVENTS`] bound.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        for spec in KEYS {
            let value = self.get(spec.name).expect("every key of KEYS has a value");
            parse_value(spec, &value)?;
        }
        let horizon = format_millis(self.horizon_us);
        for (key, at) in [("crash_at_ms", Some(self.crash_at_us)), ("close_at_ms", self.close_at_us)] {
            if let Some(at) = at.filter(|&at| at > self.horizon_us) {
                return Err(ScenarioError::at(
                    key,
                    format!("must be in (0, horizon_ms] = (0, {horizon}] (got {})", format_millis(at)),
                ));
            }
        }
        let refuse = |key: &str, message: &str| Err(ScenarioError::at(key, message));
        if self.worker_pool && self.strategy == Strategy::Transactional {
            return refuse(
                "worker_pool",
                "must be false with strategy \"transactional\": a transaction spans the loop's batch, \
                 so the model has no pool for it",
            );
        }
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
        if self.retry_backoff_max_us < self.retry_backoff_us {
            return refuse("retry.backoff.max.ms", "must not be below retry.backoff.ms");
        }
        let events = self.estimated_events();
        if events > MAX_EVENTS {
            return Err(ScenarioError {
                key: None,
                message: format!(
                    "this scenario needs about {events} simulation events; the limit is {MAX_EVENTS}. \
                     Shorten horizon_ms, or raise record_processing_ms or max.poll.records"
                ),
            });
        }
        Ok(())
    }

    /// The log end offset at instant `at_us`: `log_end_offset` plus what `produce_rate_per_s`
    /// appended since t = 0.
    pub fn log_end_at(&self, at_us: u64) -> u64 {
        let produced = self.produce_rate_milli_per_s as u128 * at_us as u128 / 1_000_000_000;
        self.log_end_offset.saturating_add(produced.min(u64::MAX as u128) as u64)
    }

    /// An upper estimate of the records `poll()` hands out within the horizon.
    pub(crate) fn estimated_records(&self) -> u64 {
        let threads = if self.worker_pool { self.pool_threads as u64 } else { 1 };
        let mpr = self.max_poll_records as u64;
        // Jitter can make records shorter: at least 1 µs, at most p·(1 − j) shorter.
        let fastest_us = match self.record_processing_jitter {
            Jitter::None => self.record_processing_us,
            Jitter::Uniform => {
                (self.record_processing_us * (100 - self.record_processing_jitter_pct) / 100).max(1)
            }
            Jitter::Exponential => (self.record_processing_us / 64).max(1),
        };
        let processed = threads.saturating_mul(self.horizon_us / fastest_us + 1);
        let available = self.log_end_at(self.horizon_us).saturating_sub(self.log_start_offset);
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
        handed_out
            .saturating_mul(2)
            .saturating_add(polls.saturating_mul(3))
            .saturating_add(commits.saturating_mul(3))
            .saturating_add(retries)
            .saturating_add(script)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millis_are_read_exactly_from_their_decimal_text() {
        assert_eq!(parse_millis("1.001"), Ok(1001));
        assert_eq!(parse_millis("8200"), Ok(8_200_000));
        assert_eq!(parse_millis("0.001"), Ok(1));
        assert_eq!(parse_millis("5e3"), Ok(5_000_000));
        assert_eq!(
            parse_millis("1.5e-3"),
            Err("`1.5e-3` has more than 3 decimals (the model counts whole µs)".into())
        );
        assert_eq!(parse_millis("1.0010"), Ok(1001));
        assert!(parse_millis("1.0001").is_err());
        assert!(parse_millis("-1").is_err());
        assert!(parse_millis("99999999999999999999").is_err());
        assert_eq!(parse_millis("0"), Ok(0));
    }

    #[test]
    fn millis_format_back_to_the_shortest_text() {
        assert_eq!(format_millis(5_000_001), "5000.001");
        assert_eq!(format_millis(8_200_000), "8200");
        assert_eq!(format_millis(1_500), "1.5");
        assert_eq!(millis_f64(5_000_001).to_string(), "5000.001");
    }

    #[test]
    fn empty_object_is_the_defaults() {
        assert_eq!(Scenario::from_json("{}").unwrap(), Scenario::default());
    }

    #[test]
    fn canonical_json_round_trips() {
        let s = Scenario {
            record_processing_us: 1_001,
            strategy: Strategy::CommitSyncEveryN,
            ..Scenario::default()
        };
        let json = s.to_json_value();
        assert_eq!(json["record_processing_ms"].to_string(), "1.001");
        assert_eq!(Scenario::from_value(&json).unwrap(), s);
    }

    #[test]
    fn bad_input_names_the_key_and_the_range() {
        let err = |text: &str| Scenario::from_json(text).unwrap_err().to_string();
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
        assert!(err(r#"{"strategy": "sometimes"}"#).starts_with("strategy: must be one of \"auto_commit\""));
        assert!(err(r#"{"worker_pool": true, "strategy": "transactional"}"#)
            .starts_with("worker_pool: must be false"));
        assert!(err("[1]").starts_with("a scenario must be a JSON object"));
        assert!(err("{").starts_with("not valid JSON"));
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
            crash_at_us: 1_000,
            log_end_offset: 10_000_000,
            ..Scenario::default()
        };
        assert_eq!(million.validate(), Ok(()));
    }
}
