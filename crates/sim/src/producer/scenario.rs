//! The inputs of one producer simulation (model.md §9): [`ProducerScenario`], read from JSON with
//! the producer's own property names, checked against their ranges and against the Java
//! client's idempotence rules (`ProducerConfig.postProcessAndValidateIdempotenceConfigs`).
//!
//! Times are integer microseconds (`*_us`); JSON holds milliseconds with at most three
//! decimals, read exactly by [`crate::keys::parse_millis`].

use crate::keys::{
    format_millis, json_object, millis_value, parse_json, scenario_keys, shorten, shown, KeyKind, KeySpec,
    KeyValue, ScenarioError, US_PER_MS,
};
use serde_json::{Map, Value};

/// Scenarios whose simulation would process more than this many events are stopped and
/// refused, so that no input can hang the page.
pub const MAX_PRODUCER_EVENTS: u64 = 2_000_000;

/// `delivery.timeout.ms` when left unset: 120000 ms (Java `ProducerConfig`).
pub const DEFAULT_DELIVERY_TIMEOUT_US: u64 = 120_000 * US_PER_MS;

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

/// A fault the reader places on the time axis (model.md §9).
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

const MS: u64 = US_PER_MS;

/// `acks` as the Java client reads the property (`ProducerConfig.parseAcks`): `"all"` is
/// `-1`; otherwise a number (or its text) of `-1`, `0` or `1`.
impl KeyValue for Acks {
    fn read(spec: &KeySpec, value: &Value) -> Result<Self, ScenarioError> {
        Acks::from_value(value).ok_or_else(|| spec.refuse(value))
    }
    fn write(&self, _: &KeySpec) -> Value {
        self.name().into()
    }
}

impl KeyValue for Vec<Fault> {
    fn read(spec: &KeySpec, value: &Value) -> Result<Self, ScenarioError> {
        match value {
            Value::Array(items) if items.len() <= MAX_FAULTS => {
                items.iter().enumerate().map(|(i, v)| parse_fault(i, v)).collect()
            }
            other => Err(spec.refuse(other)),
        }
    }
    fn write(&self, _: &KeySpec) -> Value {
        Value::Array(self.iter().map(Fault::to_json_value).collect())
    }
}

scenario_keys! {
    /// One producer simulation's inputs (model.md §9): the producer's settings (Kafka's own
    /// property names in JSON), the records the application sends, the network, and the
    /// faults. Build one with [`ProducerScenario::default`] and struct update syntax or read
    /// one with [`ProducerScenario::from_json`]; [`ProducerScenario::validate`] checks it.
    pub struct ProducerScenario, table PRODUCER_KEYS, help PRODUCER_KEY_HELP {
        /// `enable.idempotence`; `None`: left at the Java default (true since Kafka 3.0), which
        /// a weaker `acks` or `retries` 0 silently turns off. Set explicitly, a conflicting
        /// `acks` or `retries` is refused instead (Java `userConfiguredIdempotence`).
        enable_idempotence: Option<bool> = None,
            key "enable.idempotence", KeyKind::OptionalFlag, "",
            "stamp batches with producer id, epoch and sequence so the leader drops repeats (empty: the client's default, true)";
        /// `acks`.
        acks: Acks = Acks::All,
            key "acks", KeyKind::Choice(&["all", "1", "0"]), "",
            "replicas that must have a batch before the leader answers (idempotence needs all)";
        /// `max.in.flight.requests.per.connection` (at most 5 with idempotence).
        max_in_flight_requests: u32 = 5,
            key "max.in.flight.requests.per.connection", KeyKind::Count { min: 1, max: 100 }, "requests",
            "requests sent and not yet answered (at most 5 with idempotence)";
        /// `retries`: resends of one batch before it fails (Java's default is the maximum).
        retries: u32 = i32::MAX as u32,
            key "retries", KeyKind::Count { min: 0, max: i32::MAX as u64 }, "resends",
            "resends of one batch before it fails";
        /// `request.timeout.ms`, µs: how long the client waits for an answer before retrying.
        request_timeout_us: u64 = 30_000 * MS,
            key "request.timeout.ms", KeyKind::Millis { min_us: MS, max_us: 3_600_000 * MS }, "ms",
            "wait for an answer before resending";
        /// `delivery.timeout.ms`, µs: from a batch's creation to its failure if
        /// unacknowledged; `None`: the default, 120000 ms raised to `linger.ms +
        /// request.timeout.ms` as Java `KafkaProducer.configureDeliveryTimeout` does. An
        /// explicit value below that sum is refused.
        delivery_timeout_us: Option<u64> = None,
            key "delivery.timeout.ms", KeyKind::OptionalMillis { min_us: MS, max_us: 86_400_000 * MS }, "ms",
            "from a batch's creation until it fails if still unacknowledged (empty: 120000, or linger.ms + request.timeout.ms if larger)";
        /// `batch.size`, counted in records here (Kafka counts bytes).
        batch_size_records: u32 = 5,
            key "batch.size", KeyKind::Count { min: 1, max: 10_000 }, "records",
            "records per batch (Kafka counts bytes; the model counts records)";
        /// `linger.ms`, µs: how long a batch waits for more records once created.
        linger_us: u64 = 5 * MS,
            key "linger.ms", KeyKind::Millis { min_us: 0, max_us: 60_000 * MS }, "ms",
            "how long a batch waits for more records once created";
        /// `retry.backoff.ms`, µs: the first wait before resending.
        retry_backoff_us: u64 = 100 * MS,
            key "retry.backoff.ms", KeyKind::Millis { min_us: 0, max_us: 60_000 * MS }, "ms",
            "wait before the first resend; doubles per attempt";
        /// `retry.backoff.max.ms`, µs: the backoff doubles per attempt up to this (no jitter
        /// in the model; Java adds ±20 %).
        retry_backoff_max_us: u64 = 1_000 * MS,
            key "retry.backoff.max.ms", KeyKind::Millis { min_us: 0, max_us: 60_000 * MS }, "ms",
            "largest wait between resends";
        /// Records the application sends, ids `0..records`.
        records: u32 = 20,
            key "records", KeyKind::Count { min: 1, max: 100_000 }, "records",
            "records the application sends (ids 0, 1, …)";
        /// The application calls `send()` for record i at i × this, µs (0: all at t = 0).
        send_interval_us: u64 = 0,
            key "send_interval_ms", KeyKind::Millis { min_us: 0, max_us: 60_000 * MS }, "ms",
            "the application sends record i at i × this (0: all at once)";
        /// One-way network delay between the producer and the leader, µs.
        network_latency_us: u64 = 5 * MS,
            key "network_latency_ms", KeyKind::Millis { min_us: 0, max_us: 60_000 * MS }, "ms",
            "one-way delay between producer and leader";
        /// The faults, in the order given.
        faults: Vec<Fault> = Vec::new(),
            key "faults", KeyKind::Structured(FAULTS_RANGE), "",
            "faults on the time axis: [{\"kind\": \"ack_lost\", \"batch\": 1}, {\"kind\": \"producer_restart\", \"at_ms\": 20000}, …]";
    }
}

/// The faults key's allowed values, in words.
const FAULTS_RANGE: &str =
    "a list of at most 64 faults, each an object with a kind from \"request_lost\", \"ack_lost\", \
     \"leader_failover\", \"producer_restart\", \"zombie\", \"old_duplicate\"";

/// Looks a key up in [`PRODUCER_KEYS`].
pub fn producer_key_spec(name: &str) -> Option<&'static KeySpec> {
    PRODUCER_KEYS.iter().find(|k| k.name == name)
}

fn err_at(key: &str, message: impl Into<String>) -> ScenarioError {
    ScenarioError::at(key, message)
}

fn count_spec(key: &'static str, min: u64, max: u64) -> KeySpec {
    KeySpec { name: key, kind: KeyKind::Count { min, max }, unit: "" }
}

fn parse_count(key: &str, min: u64, max: u64, value: &Value) -> Result<u64, ScenarioError> {
    u64::read(&count_spec("", min, max), value).map_err(|e| ScenarioError::at(key, e.message))
}

fn parse_ms(key: &str, min_us: u64, max_us: u64, value: &Value) -> Result<u64, ScenarioError> {
    let spec = KeySpec { name: "", kind: KeyKind::Millis { min_us, max_us }, unit: "" };
    u64::read(&spec, value).map_err(|e| ScenarioError::at(key, e.message))
}

fn parse_fault(index: usize, value: &Value) -> Result<Fault, ScenarioError> {
    let here = format!("faults[{index}]");
    let Value::Object(map) = value else {
        return Err(err_at(
            &here,
            format!(
                "must be an object such as {{\"kind\": \"ack_lost\", \"batch\": 1}} (got {})",
                shown(value)
            ),
        ));
    };
    let kind = match map.get("kind") {
        Some(Value::String(s)) => FaultKind::from_name(s),
        _ => None,
    }
    .ok_or_else(|| {
        let names: Vec<_> = FaultKind::ALL.iter().map(|k| format!("\"{}\"", k.name())).collect();
        let got = map.get("kind").map_or("nothing".to_string(), shown);
        err_at(&format!("{here}.kind"), format!("must be one of {} (got {got})", names.join(", ")))
    })?;
    let (needs_at, needs_batch) = kind.fields();
    let mut fault = Fault { kind, at_us: None, batch: None, attempt: 1 };
    for (field, v) in map {
        // A field name is input: echoed cut short.
        let key = format!("{here}.{}", shorten(field));
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
            scenario.set_key(key, value)?;
        }
        scenario.validate()?;
        Ok(scenario)
    }

    /// Batches the application's records fill: ⌈records / batch.size⌉ when every batch
    /// fills before `linger.ms` passes; more when `send_interval_ms` and `linger.ms` cut
    /// them short.
    pub fn batch_count(&self) -> u32 {
        plan_batches(self).len() as u32
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
        self.check_ranges()?;
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
        let explicit = self.enable_idempotence.is_some();
        if self.enable_idempotence != Some(false) {
            if self.retries == 0 && explicit {
                return Err(err_at(
                    "retries",
                    "Must set retries to non-zero when using the idempotent producer.",
                ));
            }
            if self.acks != Acks::All && explicit {
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
        let floor_us = self.linger_us.saturating_add(self.request_timeout_us);
        if let Some(delivery_timeout_us) = self.delivery_timeout_us.filter(|&t| t < floor_us) {
            return Err(err_at(
                "delivery.timeout.ms",
                format!(
                    "delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms \
                     (got {} < {} + {})",
                    format_millis(delivery_timeout_us),
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
        if let Some(on) = self.enable_idempotence {
            return (on, None);
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

    /// `delivery.timeout.ms` as the client uses it: the value set, or the default 120000 ms
    /// raised to `linger.ms + request.timeout.ms` (Java `configureDeliveryTimeout`).
    pub fn effective_delivery_timeout_us(&self) -> u64 {
        self.delivery_timeout_us.unwrap_or_else(|| {
            DEFAULT_DELIVERY_TIMEOUT_US.max(self.linger_us.saturating_add(self.request_timeout_us))
        })
    }
}

/// One batch as the accumulator closes it: records `first_record..first_record + count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlannedBatch {
    pub(crate) first_record: u32,
    pub(crate) count: u32,
    pub(crate) created_us: u64,
    pub(crate) ready_us: u64,
}

/// Cuts the application's records into batches as Java `RecordAccumulator` does: a batch is
/// created by the first record that finds no open batch, and is ready to send once it holds
/// `batch.size` records or `linger.ms` has passed since its creation (a record arriving at
/// that very instant still joins it).
pub(crate) fn plan_batches(s: &ProducerScenario) -> Vec<PlannedBatch> {
    let arrival = |r: u32| r as u64 * s.send_interval_us;
    let mut batches = Vec::new();
    let mut r = 0;
    while r < s.records {
        let created_us = arrival(r);
        let deadline_us = created_us + s.linger_us;
        let mut count = 1;
        while count < s.batch_size_records && r + count < s.records && arrival(r + count) <= deadline_us {
            count += 1;
        }
        let ready_us = if count == s.batch_size_records { arrival(r + count - 1) } else { deadline_us };
        batches.push(PlannedBatch { first_record: r, count, created_us, ready_us });
        r += count;
    }
    batches
}
