//! The inputs of one simulation: [`Scenario`], read from JSON with the keys and defaults of
//! SPEC §6 and validated against the ranges of SPEC §5.
//!
//! Times are held in integer microseconds (`*_us`). In JSON they are milliseconds with at
//! most three decimals (`*_ms`, Kafka's `*.ms` properties), converted exactly from their
//! decimal text by [`parse_millis`]: `1.001` is 1001 µs, `1.0001` is an error.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Microseconds in one millisecond.
pub const US_PER_MS: u64 = 1_000;

/// Scenarios estimated above this many simulation events are refused (SPEC §5), so that no
/// input can hang the page or exhaust memory. The 1,000,000-record benchmark fits.
pub const MAX_EVENTS: u64 = 5_000_000;

/// How the application commits offsets: the rows of the table in SPEC §3.
///
/// JSON names are the `snake_case` variant names (`"auto_commit"`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// `enable.auto.commit=true`: at `poll()` entry, when `auto.commit.interval.ms` has
    /// expired, an asynchronous commit of the position (Java
    /// `ConsumerCoordinator.maybeAutoCommitOffsetsAsync`, committing
    /// `SubscriptionState.allConsumed()`). Never blocks the loop.
    AutoCommit,
    /// `commitSync()` of the position after the last record of each batch.
    CommitSyncBatch,
    /// `commitSync(offset + 1)` after every record.
    CommitSyncRecord,
    /// `commitSync(offset + 1)` each time a counter of processed records (never reset by
    /// `poll()`) reaches `commit_every_records`.
    CommitSyncEveryN,
    /// `commitAsync()` of the position after each batch; the loop does not wait.
    CommitAsyncBatch,
    /// A transactional producer: `beginTransaction`, outputs, `sendOffsetsToTransaction`,
    /// `commitTransaction`: outputs and offsets land together, one blocking round trip.
    Transactional,
}

impl Strategy {
    /// Every strategy, in the order of SPEC §3.
    pub const ALL: [Strategy; 6] = [
        Strategy::AutoCommit,
        Strategy::CommitSyncBatch,
        Strategy::CommitSyncRecord,
        Strategy::CommitSyncEveryN,
        Strategy::CommitAsyncBatch,
        Strategy::Transactional,
    ];

    /// The JSON / URL name, e.g. `"commit_sync_batch"`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::AutoCommit => "auto_commit",
            Strategy::CommitSyncBatch => "commit_sync_batch",
            Strategy::CommitSyncRecord => "commit_sync_record",
            Strategy::CommitSyncEveryN => "commit_sync_every_n",
            Strategy::CommitAsyncBatch => "commit_async_batch",
            Strategy::Transactional => "transactional",
        }
    }

    /// Parses a JSON / URL name; `None` when it names no strategy.
    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }

    /// A short label in the client's API words, for menus and tables.
    pub fn label(self) -> &'static str {
        match self {
            Strategy::AutoCommit => "enable.auto.commit (auto-commit in poll)",
            Strategy::CommitSyncBatch => "commitSync() after each batch",
            Strategy::CommitSyncRecord => "commitSync() after each record",
            Strategy::CommitSyncEveryN => "commitSync() every N records",
            Strategy::CommitAsyncBatch => "commitAsync() after each batch",
            Strategy::Transactional => "transactions (sendOffsetsToTransaction)",
        }
    }
}

/// One simulation's inputs (SPEC §6). Build one with [`Scenario::default`] and struct
/// update syntax, or read one from JSON with [`Scenario::from_json`]; check it with
/// [`Scenario::validate`] (the simulator does so before running).
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
    /// The partition's log end offset (LOG-END-OFFSET); polls stop returning records there.
    pub log_end_offset: u64,
    /// `fetch.max.wait.ms`, in µs: how long a `poll()` waits when no record is left.
    pub fetch_max_wait_us: u64,
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
        }
    }
}

/// What kind of value a scenario key holds, with its allowed range and default.
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
    /// `true` or `false`.
    Flag,
    /// One of [`Strategy::ALL`] by name.
    Strategy,
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

/// Every scenario key, in the order of SPEC §6. `crash_at_ms` is further limited to
/// (0, `horizon_ms`] once both are known.
pub const KEYS: &[KeySpec] = &[
    KeySpec {
        name: "max.poll.records",
        kind: KeyKind::Count { min: 1, max: 100_000 },
        unit: "records",
        help: "records one poll() returns while the backlog lasts",
    },
    KeySpec {
        name: "auto.commit.interval.ms",
        kind: KeyKind::Millis { min_us: US_PER_MS, max_us: 3_600_000 * US_PER_MS },
        unit: "ms",
        help: "auto-commit timer, checked only inside poll()",
    },
    KeySpec {
        name: "record_processing_ms",
        kind: KeyKind::Millis { min_us: 1, max_us: 600_000 * US_PER_MS },
        unit: "ms",
        help: "processing time of one record",
    },
    KeySpec {
        name: "commit_latency_ms",
        kind: KeyKind::Millis { min_us: 0, max_us: 60_000 * US_PER_MS },
        unit: "ms",
        help: "one OffsetCommit (or commitTransaction) round trip",
    },
    KeySpec {
        name: "strategy",
        kind: KeyKind::Strategy,
        unit: "",
        help: "how the application commits (see the strategies below)",
    },
    KeySpec {
        name: "commit_every_records",
        kind: KeyKind::Count { min: 1, max: 1_000_000 },
        unit: "records",
        help: "records between commits, for commit_sync_every_n",
    },
    KeySpec {
        name: "worker_pool",
        kind: KeyKind::Flag,
        unit: "",
        help: "hand each batch to a worker pool and poll again at once",
    },
    KeySpec {
        name: "pool_max_in_flight_batches",
        kind: KeyKind::Count { min: 1, max: 64 },
        unit: "batches",
        help: "batches in the pool before the loop waits to poll",
    },
    KeySpec {
        name: "pool_threads",
        kind: KeyKind::Count { min: 1, max: 64 },
        unit: "threads",
        help: "worker threads of the pool",
    },
    KeySpec {
        name: "crash_at_ms",
        kind: KeyKind::Millis { min_us: 1, max_us: 86_400_000 * US_PER_MS },
        unit: "ms",
        help: "the crash instant, in (0, horizon_ms]; events at that exact instant do not happen",
    },
    KeySpec {
        name: "horizon_ms",
        kind: KeyKind::Millis { min_us: US_PER_MS, max_us: 86_400_000 * US_PER_MS },
        unit: "ms",
        help: "simulated time shown",
    },
    KeySpec {
        name: "log_end_offset",
        kind: KeyKind::Count { min: 0, max: 1_000_000_000_000 },
        unit: "offset",
        help: "the partition's LOG-END-OFFSET; polls return nothing past it",
    },
    KeySpec {
        name: "fetch.max.wait.ms",
        kind: KeyKind::Millis { min_us: US_PER_MS, max_us: 300_000 * US_PER_MS },
        unit: "ms",
        help: "how long a poll() waits when no record is left",
    },
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

fn describe_range(kind: KeyKind) -> String {
    match kind {
        KeyKind::Count { min, max } => format!("a whole number from {min} to {max}"),
        KeyKind::Millis { min_us, max_us } => format!(
            "a number of milliseconds from {} to {} (at most 3 decimals)",
            format_millis(min_us),
            format_millis(max_us)
        ),
        KeyKind::Flag => "true or false".to_string(),
        KeyKind::Strategy => {
            let names: Vec<_> = Strategy::ALL.iter().map(|s| format!("\"{}\"", s.name())).collect();
            format!("one of {}", names.join(", "))
        }
    }
}

/// A value read for one key, before it is stored in the scenario.
enum Parsed {
    Int(u64),
    Flag(bool),
    Strategy(Strategy),
}

fn parse_value(spec: &KeySpec, value: &Value) -> Result<Parsed, ScenarioError> {
    let wrong = |got: &dyn fmt::Display| {
        ScenarioError::at(spec.name, format!("must be {} (got {got})", describe_range(spec.kind)))
    };
    match (spec.kind, value) {
        (KeyKind::Count { min, max }, Value::Number(n)) => match n.as_u64() {
            Some(v) if (min..=max).contains(&v) => Ok(Parsed::Int(v)),
            _ => Err(wrong(n)),
        },
        (KeyKind::Millis { min_us, max_us }, Value::Number(n)) => {
            let us = parse_millis(&n.to_string()).map_err(|e| ScenarioError::at(spec.name, e))?;
            if (min_us..=max_us).contains(&us) {
                Ok(Parsed::Int(us))
            } else {
                Err(wrong(n))
            }
        }
        (KeyKind::Flag, Value::Bool(b)) => Ok(Parsed::Flag(*b)),
        (KeyKind::Strategy, Value::String(s)) => {
            Strategy::from_name(s).map(Parsed::Strategy).ok_or_else(|| wrong(&format!("\"{s}\"")))
        }
        (_, other) => Err(wrong(other)),
    }
}

impl Scenario {
    /// Reads a scenario from JSON text (SPEC §6): an object whose missing keys take the
    /// defaults. Errors name the key and its allowed range on unknown keys, wrong types and
    /// out-of-range values, and on scenarios estimated above [`MAX_EVENTS`] events.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| ScenarioError { key: None, message: format!("not valid JSON: {e}") })?;
        Scenario::from_value(&value)
    }

    /// As [`Scenario::from_json`], from a parsed JSON value.
    pub fn from_value(value: &Value) -> Result<Scenario, ScenarioError> {
        let Value::Object(map) = value else {
            return Err(ScenarioError {
                key: None,
                message: "a scenario must be a JSON object, e.g. {\"strategy\": \"commit_sync_batch\"}"
                    .to_string(),
            });
        };
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
        let int = |p: &Parsed| match p {
            Parsed::Int(v) => *v,
            _ => unreachable!("the key table gives {key} a numeric kind"),
        };
        let parsed = parse_value(spec, value)?;
        match key {
            "max.poll.records" => self.max_poll_records = int(&parsed) as u32,
            "auto.commit.interval.ms" => self.auto_commit_interval_us = int(&parsed),
            "record_processing_ms" => self.record_processing_us = int(&parsed),
            "commit_latency_ms" => self.commit_latency_us = int(&parsed),
            "commit_every_records" => self.commit_every_records = int(&parsed) as u32,
            "pool_max_in_flight_batches" => self.pool_max_in_flight_batches = int(&parsed) as u32,
            "pool_threads" => self.pool_threads = int(&parsed) as u32,
            "crash_at_ms" => self.crash_at_us = int(&parsed),
            "horizon_ms" => self.horizon_us = int(&parsed),
            "log_end_offset" => self.log_end_offset = int(&parsed),
            "fetch.max.wait.ms" => self.fetch_max_wait_us = int(&parsed),
            "worker_pool" => match parsed {
                Parsed::Flag(b) => self.worker_pool = b,
                _ => unreachable!(),
            },
            "strategy" => match parsed {
                Parsed::Strategy(s) => self.strategy = s,
                _ => unreachable!(),
            },
            _ => unreachable!("every key of KEYS is handled above"),
        }
        Ok(())
    }

    /// The value of one key as JSON (milliseconds as exact decimals); `None` for an unknown key.
    pub fn get(&self, key: &str) -> Option<Value> {
        let ms = |us: u64| Value::Number(format_millis(us).parse::<Number>().expect("decimal text"));
        Some(match key {
            "max.poll.records" => self.max_poll_records.into(),
            "auto.commit.interval.ms" => ms(self.auto_commit_interval_us),
            "record_processing_ms" => ms(self.record_processing_us),
            "commit_latency_ms" => ms(self.commit_latency_us),
            "strategy" => self.strategy.name().into(),
            "commit_every_records" => self.commit_every_records.into(),
            "worker_pool" => self.worker_pool.into(),
            "pool_max_in_flight_batches" => self.pool_max_in_flight_batches.into(),
            "pool_threads" => self.pool_threads.into(),
            "crash_at_ms" => ms(self.crash_at_us),
            "horizon_ms" => ms(self.horizon_us),
            "log_end_offset" => self.log_end_offset.into(),
            "fetch.max.wait.ms" => ms(self.fetch_max_wait_us),
            _ => return None,
        })
    }

    /// Every key with its value, in the order of [`KEYS`]: the canonical JSON form, which
    /// [`Scenario::from_value`] reads back to an equal scenario.
    pub fn to_json_value(&self) -> Value {
        let map: Map<String, Value> = KEYS
            .iter()
            .map(|k| (k.name.to_string(), self.get(k.name).expect("every key of KEYS has a value")))
            .collect();
        Value::Object(map)
    }

    /// Checks every range of SPEC §5, the rules that involve several keys
    /// (`crash_at_ms` ≤ `horizon_ms`; no worker pool with `transactional`), and the
    /// [`MAX_EVENTS`] bound.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        for spec in KEYS {
            let value = self.get(spec.name).expect("every key of KEYS has a value");
            parse_value(spec, &value)?;
        }
        if self.crash_at_us > self.horizon_us {
            return Err(ScenarioError::at(
                "crash_at_ms",
                format!(
                    "must be in (0, horizon_ms] = (0, {}] (got {})",
                    format_millis(self.horizon_us),
                    format_millis(self.crash_at_us)
                ),
            ));
        }
        if self.worker_pool && self.strategy == Strategy::Transactional {
            return Err(ScenarioError::at(
                "worker_pool",
                "must be false with strategy \"transactional\": a transaction spans the loop's \
                 batch, so the model has no pool for it",
            ));
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

    /// An upper estimate of the events a run of this scenario processes: record
    /// completions, polls and commits within the horizon.
    pub fn estimated_events(&self) -> u64 {
        let threads = if self.worker_pool { self.pool_threads as u64 } else { 1 };
        let mpr = self.max_poll_records as u64;
        let processed = threads.saturating_mul(self.horizon_us / self.record_processing_us + 1);
        let handed_out = processed
            .saturating_add(mpr.saturating_mul(self.pool_max_in_flight_batches as u64 + 1))
            .min(self.log_end_offset);
        let polls = handed_out / mpr + self.horizon_us / self.fetch_max_wait_us + 2;
        let commits = match self.strategy {
            Strategy::CommitSyncRecord => handed_out,
            Strategy::CommitSyncEveryN => handed_out / self.commit_every_records as u64 + polls,
            _ => polls,
        };
        // Each record: one completion (+ a loop wake in a synchronous loop); each poll and
        // commit: a few events (send, land, wake).
        handed_out
            .saturating_mul(2)
            .saturating_add(polls.saturating_mul(2))
            .saturating_add(commits.saturating_mul(3))
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
