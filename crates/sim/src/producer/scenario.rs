//! The inputs of one producer simulation (SPEC §9): [`ProducerScenario`], read from JSON with
//! the producer's own property names, checked against their ranges and against the Java
//! client's idempotence rules (`ProducerConfig.postProcessAndValidateIdempotenceConfigs`).
//!
//! Times are integer microseconds (`*_us`); JSON holds milliseconds with at most three
//! decimals, read exactly by [`crate::scenario::parse_millis`].

use crate::scenario::{format_millis, json_object, parse_json, parse_millis, ScenarioError, US_PER_MS};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Scenarios whose simulation would process more than this many events are stopped and
/// refused, so that no input can hang the page.
pub const MAX_PRODUCER_EVENTS: u64 = 2_000_000;

/// Most faults one scenario may place.
pub const MAX_FAULTS: usize = 64;

/// The Java client's limit on requests in flight with idempotence
/// (`ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_FOR_IDEMPOTENCE`), which is also
/// the number of batches the broker remembers per producer
/// (`ProducerStateEntry.NUM_BATCHES_TO_RETAIN`).
pub const MAX_IN_FLIGHT_FOR_IDEMPOTENCE: u32 = 5;

/// `acks`: how many replicas must have a batch before the leader answers (Java
/// `ProducerConfig.ACKS_CONFIG`). JSON: `"all"` (or `"-1"`, `-1`), `"1"`, `"0"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Acks {
    /// `acks=all`: the leader answers once every in-sync replica has the batch.
    All,
    /// `acks=1`: the leader answers once it has written the batch itself.
    Leader,
    /// `acks=0`: no answer; the client counts a batch done once it is sent.
    None,
}

impl Acks {
    /// The JSON / Kafka name: `"all"`, `"1"` or `"0"`.
    pub fn name(self) -> &'static str {
        match self {
            Acks::All => "all",
            Acks::Leader => "1",
            Acks::None => "0",
        }
    }

    /// Reads a JSON value the way Java `ProducerConfig.parseAcks` reads the property:
    /// `"all"` is `-1`; otherwise a number of `-1`, `0` or `1`.
    fn from_value(value: &Value) -> Option<Acks> {
        let text = match value {
            Value::String(s) => s.trim().to_ascii_lowercase(),
            Value::Number(n) => n.to_string(),
            _ => return None,
        };
        match text.as_str() {
            "all" | "-1" => Some(Acks::All),
            "1" => Some(Acks::Leader),
            "0" => Some(Acks::None),
            _ => None,
        }
    }
}

/// A fault the reader places on the time axis (SPEC §9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FaultKind {
    /// The `attempt`-th request carrying `batch` never reaches the leader.
    RequestLost,
    /// The leader handles the `attempt`-th request carrying `batch`, but its answer never
    /// reaches the client, which retries after `request.timeout.ms`.
    AckLost,
    /// At `at`, the leader fails and a follower takes over. Requests and answers on the
    /// wire are lost and the client's connection drops (it retries what was in flight);
    /// the new leader rebuilt its producer state from the log and its snapshot
    /// (`ProducerStateManager` snapshots), so deduplication continues.
    LeaderFailover,
    /// At `at`, the producer process restarts: a new producer id, and the application
    /// sends again every batch not yet acknowledged.
    ProducerRestart,
    /// At `at`, a zombie — an earlier instance with the same producer id and an older
    /// epoch — delivers its copy of `batch` (fenced: `INVALID_PRODUCER_EPOCH`).
    Zombie,
    /// At `at`, a copy of `batch`'s first request, held up in the network, reaches the
    /// leader (a duplicate, or `OUT_OF_ORDER_SEQUENCE_NUMBER` when older than the five
    /// batches the leader remembers).
    OldDuplicate,
}

impl FaultKind {
    /// Every fault kind.
    pub const ALL: [FaultKind; 6] = [
        FaultKind::RequestLost,
        FaultKind::AckLost,
        FaultKind::LeaderFailover,
        FaultKind::ProducerRestart,
        FaultKind::Zombie,
        FaultKind::OldDuplicate,
    ];

    /// The JSON name, e.g. `"ack_lost"`.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::RequestLost => "request_lost",
            FaultKind::AckLost => "ack_lost",
            FaultKind::LeaderFailover => "leader_failover",
            FaultKind::ProducerRestart => "producer_restart",
            FaultKind::Zombie => "zombie",
            FaultKind::OldDuplicate => "old_duplicate",
        }
    }

    /// Parses a JSON name; `None` when it names no fault.
    pub fn from_name(name: &str) -> Option<FaultKind> {
        FaultKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether the fault takes `at_ms` (and `batch`): `(needs at_ms, needs batch)`.
    fn fields(self) -> (bool, bool) {
        match self {
            FaultKind::RequestLost | FaultKind::AckLost => (false, true),
            FaultKind::LeaderFailover | FaultKind::ProducerRestart => (true, false),
            FaultKind::Zombie | FaultKind::OldDuplicate => (true, true),
        }
    }
}

/// One placed fault. JSON: `{"kind": "ack_lost", "batch": 1}` (`attempt` optional, default
/// 1), `{"kind": "producer_restart", "at_ms": 20000}`, `{"kind": "zombie", "at_ms": 50,
/// "batch": 2}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fault {
    /// What goes wrong.
    pub kind: FaultKind,
    /// When, µs (leader failover, producer restart, zombie, old duplicate).
    pub at_us: Option<u64>,
    /// The batch it hits, counted from 1 (request lost, ack lost, zombie, old duplicate).
    pub batch: Option<u32>,
    /// For request lost / ack lost: which send of the batch, counted from 1.
    pub attempt: u32,
}

impl Fault {
    /// The canonical JSON form, which [`ProducerScenario::from_value`] reads back.
    pub fn to_json_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("kind".into(), self.kind.name().into());
        if let Some(at_us) = self.at_us {
            map.insert("at_ms".into(), millis_value(at_us));
        }
        if let Some(batch) = self.batch {
            map.insert("batch".into(), batch.into());
        }
        if matches!(self.kind, FaultKind::RequestLost | FaultKind::AckLost) {
            map.insert("attempt".into(), self.attempt.into());
        }
        Value::Object(map)
    }
}

/// One producer simulation's inputs (SPEC §9): the producer's settings (Kafka's own
/// property names in JSON), the records the application sends, the network, and the
/// faults. Build one with [`ProducerScenario::default`] and struct update syntax or read
/// one with [`ProducerScenario::from_json`]; [`ProducerScenario::validate`] checks it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProducerScenario {
    /// `enable.idempotence` (Java default true since Kafka 3.0).
    pub enable_idempotence: bool,
    /// Whether `enable.idempotence` was set explicitly: then a conflicting `acks` or
    /// `retries` is refused instead of silently turning idempotence off (Java
    /// `userConfiguredIdempotence`).
    pub idempotence_explicit: bool,
    /// `acks`.
    pub acks: Acks,
    /// `max.in.flight.requests.per.connection` (1–100; at most 5 with idempotence).
    pub max_in_flight_requests: u32,
    /// `retries`: resends of one batch before it fails (0–2147483647, Java's default the max).
    pub retries: u32,
    /// `request.timeout.ms`, µs: how long the client waits for an answer before retrying.
    pub request_timeout_us: u64,
    /// `delivery.timeout.ms`, µs: from a batch's creation to its failure if unacknowledged.
    pub delivery_timeout_us: u64,
    /// Whether `delivery.timeout.ms` was set explicitly (an inconsistent explicit value is
    /// refused; the default is raised to `linger.ms + request.timeout.ms`, as Java
    /// `KafkaProducer.configureDeliveryTimeout` does).
    pub delivery_timeout_explicit: bool,
    /// `batch.size`, counted in records here (Kafka counts bytes).
    pub batch_size_records: u32,
    /// `linger.ms`, µs: how long a batch waits for more records once created.
    pub linger_us: u64,
    /// `retry.backoff.ms`, µs: the first wait before resending.
    pub retry_backoff_us: u64,
    /// `retry.backoff.max.ms`, µs: the backoff doubles per attempt up to this (no jitter in
    /// the model; Java adds ±20 %).
    pub retry_backoff_max_us: u64,
    /// Records the application sends, ids `0..records`.
    pub records: u32,
    /// The application calls `send()` for record i at i × this, µs (0: all at t = 0).
    pub send_interval_us: u64,
    /// One-way network delay between the producer and the leader, µs.
    pub network_latency_us: u64,
    /// The faults, in the order given.
    pub faults: Vec<Fault>,
}

impl Default for ProducerScenario {
    fn default() -> Self {
        ProducerScenario {
            enable_idempotence: true,
            idempotence_explicit: false,
            acks: Acks::All,
            max_in_flight_requests: 5,
            retries: i32::MAX as u32,
            request_timeout_us: 30_000 * US_PER_MS,
            delivery_timeout_us: 120_000 * US_PER_MS,
            delivery_timeout_explicit: false,
            batch_size_records: 5,
            linger_us: 5 * US_PER_MS,
            retry_backoff_us: 100 * US_PER_MS,
            retry_backoff_max_us: 1_000 * US_PER_MS,
            records: 20,
            send_interval_us: 0,
            network_latency_us: 5 * US_PER_MS,
            faults: Vec::new(),
        }
    }
}

/// What kind of value a producer scenario key holds, with its allowed range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProducerKeyKind {
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
    /// `"all"`, `"1"` or `"0"` ([`Acks`]).
    Acks,
    /// A list of at most [`MAX_FAULTS`] [`Fault`] objects.
    Faults,
}

/// One key of the producer scenario JSON. The table [`PRODUCER_KEYS`] drives parsing and
/// `offset-window produce --help`.
#[derive(Clone, Copy, Debug)]
pub struct ProducerKeySpec {
    /// The JSON key, Kafka's own property name where there is one.
    pub name: &'static str,
    /// Value kind and range.
    pub kind: ProducerKeyKind,
    /// Unit as shown to people.
    pub unit: &'static str,
    /// One-line meaning.
    pub help: &'static str,
}

const MS: u64 = US_PER_MS;

/// Every producer scenario key.
pub const PRODUCER_KEYS: &[ProducerKeySpec] = &[
    ProducerKeySpec {
        name: "enable.idempotence",
        kind: ProducerKeyKind::Flag,
        unit: "",
        help: "stamp batches with producer id, epoch and sequence so the leader drops repeats",
    },
    ProducerKeySpec {
        name: "acks",
        kind: ProducerKeyKind::Acks,
        unit: "",
        help: "replicas that must have a batch before the leader answers (idempotence needs all)",
    },
    ProducerKeySpec {
        name: "max.in.flight.requests.per.connection",
        kind: ProducerKeyKind::Count { min: 1, max: 100 },
        unit: "requests",
        help: "requests sent and not yet answered (at most 5 with idempotence)",
    },
    ProducerKeySpec {
        name: "retries",
        kind: ProducerKeyKind::Count { min: 0, max: i32::MAX as u64 },
        unit: "resends",
        help: "resends of one batch before it fails",
    },
    ProducerKeySpec {
        name: "request.timeout.ms",
        kind: ProducerKeyKind::Millis { min_us: MS, max_us: 3_600_000 * MS },
        unit: "ms",
        help: "wait for an answer before resending",
    },
    ProducerKeySpec {
        name: "delivery.timeout.ms",
        kind: ProducerKeyKind::Millis { min_us: MS, max_us: 86_400_000 * MS },
        unit: "ms",
        help: "from a batch's creation until it fails if still unacknowledged",
    },
    ProducerKeySpec {
        name: "batch.size",
        kind: ProducerKeyKind::Count { min: 1, max: 10_000 },
        unit: "records",
        help: "records per batch (Kafka counts bytes; the model counts records)",
    },
    ProducerKeySpec {
        name: "linger.ms",
        kind: ProducerKeyKind::Millis { min_us: 0, max_us: 60_000 * MS },
        unit: "ms",
        help: "how long a batch waits for more records once created",
    },
    ProducerKeySpec {
        name: "retry.backoff.ms",
        kind: ProducerKeyKind::Millis { min_us: 0, max_us: 60_000 * MS },
        unit: "ms",
        help: "wait before the first resend; doubles per attempt",
    },
    ProducerKeySpec {
        name: "retry.backoff.max.ms",
        kind: ProducerKeyKind::Millis { min_us: 0, max_us: 60_000 * MS },
        unit: "ms",
        help: "largest wait between resends",
    },
    ProducerKeySpec {
        name: "records",
        kind: ProducerKeyKind::Count { min: 1, max: 100_000 },
        unit: "records",
        help: "records the application sends (ids 0, 1, …)",
    },
    ProducerKeySpec {
        name: "send_interval_ms",
        kind: ProducerKeyKind::Millis { min_us: 0, max_us: 60_000 * MS },
        unit: "ms",
        help: "the application sends record i at i × this (0: all at once)",
    },
    ProducerKeySpec {
        name: "network_latency_ms",
        kind: ProducerKeyKind::Millis { min_us: 0, max_us: 60_000 * MS },
        unit: "ms",
        help: "one-way delay between producer and leader",
    },
    ProducerKeySpec {
        name: "faults",
        kind: ProducerKeyKind::Faults,
        unit: "",
        help: "faults on the time axis: [{\"kind\": \"ack_lost\", \"batch\": 1}, {\"kind\": \"producer_restart\", \"at_ms\": 20000}, …]",
    },
];

/// Looks a key up in [`PRODUCER_KEYS`].
pub fn producer_key_spec(name: &str) -> Option<&'static ProducerKeySpec> {
    PRODUCER_KEYS.iter().find(|k| k.name == name)
}

fn err_at(key: &str, message: impl Into<String>) -> ScenarioError {
    ScenarioError { key: Some(key.to_string()), message: message.into() }
}

fn millis_value(us: u64) -> Value {
    Value::Number(format_millis(us).parse::<Number>().expect("decimal text"))
}

/// The allowed values of a key, as words.
pub fn describe_producer_range(kind: ProducerKeyKind) -> String {
    match kind {
        ProducerKeyKind::Count { min, max } => format!("a whole number from {min} to {max}"),
        ProducerKeyKind::Millis { min_us, max_us } => format!(
            "a number of milliseconds from {} to {} (at most 3 decimals)",
            format_millis(min_us),
            format_millis(max_us)
        ),
        ProducerKeyKind::Flag => "true or false".to_string(),
        ProducerKeyKind::Acks => "one of \"all\", \"1\", \"0\"".to_string(),
        ProducerKeyKind::Faults => {
            let names: Vec<_> = FaultKind::ALL.iter().map(|k| format!("\"{}\"", k.name())).collect();
            format!("a list of at most {MAX_FAULTS} faults, each with a kind from {}", names.join(", "))
        }
    }
}

fn parse_count(key: &str, min: u64, max: u64, value: &Value) -> Result<u64, ScenarioError> {
    let kind = ProducerKeyKind::Count { min, max };
    match value {
        Value::Number(n) => match n.as_u64() {
            Some(v) if (min..=max).contains(&v) => Ok(v),
            _ => Err(err_at(key, format!("must be {} (got {n})", describe_producer_range(kind)))),
        },
        other => Err(err_at(key, format!("must be {} (got {other})", describe_producer_range(kind)))),
    }
}

fn parse_ms(key: &str, min_us: u64, max_us: u64, value: &Value) -> Result<u64, ScenarioError> {
    let kind = ProducerKeyKind::Millis { min_us, max_us };
    let wrong = |got: &dyn fmt::Display| {
        err_at(key, format!("must be {} (got {got})", describe_producer_range(kind)))
    };
    match value {
        Value::Number(n) => {
            let us = parse_millis(&n.to_string()).map_err(|e| err_at(key, e))?;
            if (min_us..=max_us).contains(&us) {
                Ok(us)
            } else {
                Err(wrong(n))
            }
        }
        other => Err(wrong(other)),
    }
}

fn parse_fault(index: usize, value: &Value) -> Result<Fault, ScenarioError> {
    let here = format!("faults[{index}]");
    let Value::Object(map) = value else {
        return Err(err_at(
            &here,
            format!("must be an object such as {{\"kind\": \"ack_lost\", \"batch\": 1}} (got {value})"),
        ));
    };
    let kind = match map.get("kind") {
        Some(Value::String(s)) => FaultKind::from_name(s),
        _ => None,
    }
    .ok_or_else(|| {
        let names: Vec<_> = FaultKind::ALL.iter().map(|k| format!("\"{}\"", k.name())).collect();
        let got = map.get("kind").map_or("nothing".to_string(), Value::to_string);
        err_at(&format!("{here}.kind"), format!("must be one of {} (got {got})", names.join(", ")))
    })?;
    let (needs_at, needs_batch) = kind.fields();
    let mut fault = Fault { kind, at_us: None, batch: None, attempt: 1 };
    for (field, v) in map {
        let key = format!("{here}.{field}");
        match field.as_str() {
            "kind" => {}
            "at_ms" if needs_at => fault.at_us = Some(parse_ms(&key, 0, 86_400_000 * MS, v)?),
            "batch" if needs_batch => fault.batch = Some(parse_count(&key, 1, 100_000, v)? as u32),
            "attempt" if matches!(kind, FaultKind::RequestLost | FaultKind::AckLost) => {
                fault.attempt = parse_count(&key, 1, 1_000, v)? as u32;
            }
            _ => {
                let mut allowed = vec!["kind"];
                if needs_at {
                    allowed.push("at_ms");
                }
                if needs_batch {
                    allowed.push("batch");
                }
                if matches!(kind, FaultKind::RequestLost | FaultKind::AckLost) {
                    allowed.push("attempt");
                }
                return Err(err_at(
                    &key,
                    format!(
                        "unknown field for a {} fault; its fields are {}",
                        kind.name(),
                        allowed.join(", ")
                    ),
                ));
            }
        }
    }
    if needs_at && fault.at_us.is_none() {
        return Err(err_at(&format!("{here}.at_ms"), format!("a {} fault needs at_ms", kind.name())));
    }
    if needs_batch && fault.batch.is_none() {
        return Err(err_at(
            &format!("{here}.batch"),
            format!("a {} fault needs batch (counted from 1)", kind.name()),
        ));
    }
    Ok(fault)
}

impl ProducerScenario {
    /// Reads a producer scenario from JSON text: an object whose missing keys take the
    /// defaults. Errors name the key and its allowed range on unknown keys, wrong types and
    /// out-of-range values, and the setting at fault when the Java client would refuse the
    /// combination ([`ProducerScenario::validate`]).
    pub fn from_json(text: &str) -> Result<ProducerScenario, ScenarioError> {
        ProducerScenario::from_value(&parse_json(text)?)
    }

    /// As [`ProducerScenario::from_json`], from a parsed JSON value.
    pub fn from_value(value: &Value) -> Result<ProducerScenario, ScenarioError> {
        let map = json_object(value, "a producer scenario", r#"{"enable.idempotence": false}"#)?;
        let mut scenario = ProducerScenario::default();
        for (key, value) in map {
            scenario.set(key, value)?;
        }
        scenario.validate()?;
        Ok(scenario)
    }

    /// Sets one key from a JSON value, checking its type and range. Setting
    /// `enable.idempotence` or `delivery.timeout.ms` marks it as explicit.
    pub fn set(&mut self, key: &str, value: &Value) -> Result<(), ScenarioError> {
        let Some(spec) = producer_key_spec(key) else {
            let known: Vec<_> = PRODUCER_KEYS.iter().map(|k| k.name).collect();
            return Err(err_at(key, format!("unknown key; the keys are {}", known.join(", "))));
        };
        let count = |v: &Value| match spec.kind {
            ProducerKeyKind::Count { min, max } => parse_count(key, min, max, v),
            _ => unreachable!("the key table gives {key} a count"),
        };
        let ms = |v: &Value| match spec.kind {
            ProducerKeyKind::Millis { min_us, max_us } => parse_ms(key, min_us, max_us, v),
            _ => unreachable!("the key table gives {key} milliseconds"),
        };
        match key {
            "enable.idempotence" => match value {
                Value::Bool(b) => {
                    self.enable_idempotence = *b;
                    self.idempotence_explicit = true;
                }
                other => return Err(err_at(key, format!("must be true or false (got {other})"))),
            },
            "acks" => {
                self.acks = Acks::from_value(value).ok_or_else(|| {
                    err_at(key, format!("must be {} (got {value})", describe_producer_range(spec.kind)))
                })?;
            }
            "max.in.flight.requests.per.connection" => self.max_in_flight_requests = count(value)? as u32,
            "retries" => self.retries = count(value)? as u32,
            "request.timeout.ms" => self.request_timeout_us = ms(value)?,
            "delivery.timeout.ms" => {
                self.delivery_timeout_us = ms(value)?;
                self.delivery_timeout_explicit = true;
            }
            "batch.size" => self.batch_size_records = count(value)? as u32,
            "linger.ms" => self.linger_us = ms(value)?,
            "retry.backoff.ms" => self.retry_backoff_us = ms(value)?,
            "retry.backoff.max.ms" => self.retry_backoff_max_us = ms(value)?,
            "records" => self.records = count(value)? as u32,
            "send_interval_ms" => self.send_interval_us = ms(value)?,
            "network_latency_ms" => self.network_latency_us = ms(value)?,
            "faults" => {
                let Value::Array(items) = value else {
                    return Err(err_at(
                        key,
                        format!("must be {} (got {value})", describe_producer_range(spec.kind)),
                    ));
                };
                if items.len() > MAX_FAULTS {
                    return Err(err_at(
                        key,
                        format!(
                            "must be {} (got {} faults)",
                            describe_producer_range(spec.kind),
                            items.len()
                        ),
                    ));
                }
                self.faults =
                    items.iter().enumerate().map(|(i, v)| parse_fault(i, v)).collect::<Result<_, _>>()?;
            }
            _ => unreachable!("every key of PRODUCER_KEYS is handled above"),
        }
        Ok(())
    }

    /// The canonical JSON form: every key with its value, in the order of
    /// [`PRODUCER_KEYS`]. `enable.idempotence` and `delivery.timeout.ms` are written only
    /// when they were set explicitly, so the form reads back to an equal scenario.
    pub fn to_json_value(&self) -> Value {
        let mut map = Map::new();
        for spec in PRODUCER_KEYS {
            let value: Value = match spec.name {
                "enable.idempotence" if self.idempotence_explicit => self.enable_idempotence.into(),
                "enable.idempotence" => continue,
                "acks" => self.acks.name().into(),
                "max.in.flight.requests.per.connection" => self.max_in_flight_requests.into(),
                "retries" => self.retries.into(),
                "request.timeout.ms" => millis_value(self.request_timeout_us),
                "delivery.timeout.ms" if self.delivery_timeout_explicit => {
                    millis_value(self.delivery_timeout_us)
                }
                "delivery.timeout.ms" => continue,
                "batch.size" => self.batch_size_records.into(),
                "linger.ms" => millis_value(self.linger_us),
                "retry.backoff.ms" => millis_value(self.retry_backoff_us),
                "retry.backoff.max.ms" => millis_value(self.retry_backoff_max_us),
                "records" => self.records.into(),
                "send_interval_ms" => millis_value(self.send_interval_us),
                "network_latency_ms" => millis_value(self.network_latency_us),
                "faults" => Value::Array(self.faults.iter().map(Fault::to_json_value).collect()),
                _ => unreachable!("every key of PRODUCER_KEYS is handled above"),
            };
            map.insert(spec.name.to_string(), value);
        }
        Value::Object(map)
    }

    /// Batches the application's records fill: ⌈records / batch.size⌉ when every batch
    /// fills before `linger.ms` passes; more when `send_interval_ms` and `linger.ms` cut
    /// them short.
    pub fn batch_count(&self) -> u32 {
        super::engine::plan_batches(self).len() as u32
    }

    /// Checks every range, each fault's batch against the batches there are, and the
    /// combinations the Java client refuses, with its own messages. Follows Kafka 4.x
    /// `ProducerConfig.postProcessAndValidateIdempotenceConfigs`: with `enable.idempotence`
    /// set explicitly, `retries` 0 or `acks` other than `all` is a `ConfigException`
    /// (left at its default, idempotence is turned off instead: see
    /// [`ProducerScenario::effective_idempotence`]); more than 5 requests in flight is
    /// refused whenever idempotence is on before those checks, default or not. Then Java
    /// `KafkaProducer.configureDeliveryTimeout`: an explicit `delivery.timeout.ms` below
    /// `linger.ms + request.timeout.ms` is refused.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let mut copy = ProducerScenario { faults: Vec::new(), ..self.clone() };
        let canonical = self.to_json_value();
        for spec in PRODUCER_KEYS {
            if let Some(value) = canonical.get(spec.name) {
                if spec.name != "faults" {
                    copy.set(spec.name, value)?;
                }
            }
        }
        if self.faults.len() > MAX_FAULTS {
            return Err(err_at("faults", format!("at most {MAX_FAULTS} faults")));
        }
        let batches = self.batch_count();
        for (i, fault) in self.faults.iter().enumerate() {
            if let Some(batch) = fault.batch {
                if batch == 0 || batch > batches {
                    return Err(err_at(
                        &format!("faults[{i}].batch"),
                        format!("must be a whole number from 1 to {batches}, the batches this scenario sends (got {batch})"),
                    ));
                }
            }
        }
        if self.enable_idempotence {
            if self.retries == 0 && self.idempotence_explicit {
                return Err(err_at(
                    "retries",
                    "Must set retries to non-zero when using the idempotent producer.",
                ));
            }
            if self.acks != Acks::All && self.idempotence_explicit {
                return Err(err_at(
                    "acks",
                    "Must set acks to all in order to use the idempotent producer. Otherwise we cannot \
                     guarantee idempotence.",
                ));
            }
            if self.max_in_flight_requests > MAX_IN_FLIGHT_FOR_IDEMPOTENCE {
                return Err(err_at(
                    "max.in.flight.requests.per.connection",
                    format!(
                        "To use the idempotent producer, max.in.flight.requests.per.connection must be set \
                         to at most 5. Current value is {}.",
                        self.max_in_flight_requests
                    ),
                ));
            }
        }
        if self.delivery_timeout_explicit
            && self.delivery_timeout_us < self.linger_us.saturating_add(self.request_timeout_us)
        {
            return Err(err_at(
                "delivery.timeout.ms",
                format!(
                    "delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms \
                     (got {} < {} + {})",
                    format_millis(self.delivery_timeout_us),
                    format_millis(self.linger_us),
                    format_millis(self.request_timeout_us)
                ),
            ));
        }
        Ok(())
    }

    /// Whether the producer runs idempotent, and the note when a default
    /// `enable.idempotence` was turned off by a weaker `acks` or `retries` 0 (Java logs
    /// "Idempotence will be disabled because …" at INFO and carries on).
    pub fn effective_idempotence(&self) -> (bool, Option<String>) {
        if !self.enable_idempotence {
            return (false, None);
        }
        if self.idempotence_explicit {
            return (true, None);
        }
        if self.retries == 0 {
            return (
                false,
                Some("Idempotence is off: enable.idempotence was left at its default and retries is 0, so the \
                      client silently disabled it (Java logs \"Idempotence will be disabled because retries \
                      is set to 0.\")."
                    .to_string()),
            );
        }
        if self.acks != Acks::All {
            return (
                false,
                Some(format!(
                    "Idempotence is off: enable.idempotence was left at its default and acks is {}, not all, so \
                     the client silently disabled it (Java logs \"Idempotence will be disabled because acks is \
                     set to {}, not set to 'all'.\"). Set enable.idempotence=true explicitly to have this \
                     refused instead.",
                    self.acks.name(),
                    self.acks.name()
                )),
            );
        }
        (true, None)
    }

    /// `delivery.timeout.ms` as the client uses it: at least `linger.ms +
    /// request.timeout.ms` when left at its default (Java `configureDeliveryTimeout`).
    pub fn effective_delivery_timeout_us(&self) -> u64 {
        self.delivery_timeout_us.max(self.linger_us.saturating_add(self.request_timeout_us))
    }
}
