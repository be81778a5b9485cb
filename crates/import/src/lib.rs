//! Reads a Kafka consumer's own configuration into an `offset-window` scenario (issue 33,
//! "Your own consumer"), with an account of every property read.
//!
//! # What this crate promises
//!
//! 1. **Pure.** Text in ([`Source`]: a file's name and its text), [`Import`] out: no I/O, no
//!    clock, no environment; a page built for wasm32 uses it as the command-line runner does.
//! 2. **Nothing silent.** Every property of every file appears in [`Import::account`]:
//!    applied (to which scenario key), irrelevant to commits, not modelled (with what that
//!    means for the result), or not evaluated (a Spring profile, a `${…}` placeholder: named,
//!    with the value used). Every default the import relied on for a property the file left
//!    out is in [`Import::defaults`] — the client's or framework's own default (Kafka's
//!    `max.poll.records` 500, Spring Kafka's auto-commit off and `AckMode.BATCH`, …), never
//!    the simulator's teaching defaults.
//! 3. **Nothing guessed.** A combination the model has no strategy for, or a commit made in
//!    the application's own code that no file shows, is an [`ImportError`] saying what to
//!    pass (`--set strategy=…`); a value the model refuses names the file, the line, the
//!    property and the allowed range.
//! 4. **Deterministic.** The same files give the same bytes: properties are kept in file
//!    order, maps are `BTreeMap`s.
//!
//! # What it reads
//!
//! * Java client properties (`ConsumerConfig`, kafka-clients 4.x): [`kafka`].
//! * Spring Boot `application.yml` / `application.properties` (`spring.kafka.*`, relaxed
//!   binding, Spring Kafka's container defaults): [`spring`].
//! * librdkafka / confluent-kafka configuration (a properties file or a config dict's JSON),
//!   and the settings of sarama, franz-go, kafka-go and KafkaJS as JSON in their own names:
//!   [`kafka`], [`golibs`].
//! * `kafka-consumer-groups.sh --describe`, `--describe --members --verbose` and
//!   `kafka-topics.sh --describe`: partitions, members, backlog ([`describe`]).
//!
//! Measured facts ([`Measured`]: records per second, processing time per record as a mean or
//! as percentiles) go in as such; [`Measured`] documents how percentiles map onto the model's
//! jitter (docs/model.md §8.12).

#![forbid(unsafe_code)]

pub mod describe;
pub mod golibs;
pub mod kafka;
pub mod parse;
pub mod spring;

use offset_window_sim::scenario::{key_spec, KeyKind};
use offset_window_sim::Scenario;
use parse::{Kind, Prop};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt;

/// One input file: its name (as the account names it) and its text.
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    /// The file's name.
    pub name: &'a str,
    /// Its whole text.
    pub text: &'a str,
}

/// Whose configuration a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// The Java client's `ConsumerConfig` properties.
    Java,
    /// Spring Boot's `spring.kafka.*` (Spring Kafka's listener container).
    Spring,
    /// librdkafka (confluent-kafka-python, -go, -dotnet).
    Librdkafka,
    /// sarama's `Config` (`Consumer.Offsets.AutoCommit.Interval`, …).
    Sarama,
    /// franz-go's `kgo` options (`AutoCommitInterval`, `DisableAutoCommit`, …).
    FranzGo,
    /// kafka-go's `ReaderConfig` (`CommitInterval`, `StartOffset`, …).
    KafkaGo,
    /// KafkaJS's consumer and `run` settings (`autoCommit`, `sessionTimeout`, …).
    Kafkajs,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 7] = [
        Dialect::Java,
        Dialect::Spring,
        Dialect::Librdkafka,
        Dialect::Sarama,
        Dialect::FranzGo,
        Dialect::KafkaGo,
        Dialect::Kafkajs,
    ];

    /// Its name on the command line (`--client`).
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Java => "java",
            Dialect::Spring => "spring",
            Dialect::Librdkafka => "librdkafka",
            Dialect::Sarama => "sarama",
            Dialect::FranzGo => "franz-go",
            Dialect::KafkaGo => "kafka-go",
            Dialect::Kafkajs => "kafkajs",
        }
    }

    /// The dialect named `name`.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::ALL.into_iter().find(|d| d.name() == name)
    }
}

/// What the user measured of their own consumer.
///
/// Processing time per record as percentiles maps onto the model's jitter
/// (docs/model.md §8.12) so: with p50 and p99 given, uniform jitter of mean p50 and
/// half-width j·p50 has p99 = p50·(1 + 0.98·j), so j = (p99/p50 − 1)/0.98 (whole percent,
/// rounded up) while that is at most 100 %; a wider spread is taken as exponential with the
/// same median (mean = p50 / ln 2, whose p99 is mean · ln 100 ≈ 6.64 · p50) and the account
/// says which p99 the model then has. A mean alone sets `record_processing_ms` with no jitter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Measured {
    /// Records produced to the topic per second (`produce_rate_per_s`).
    pub records_per_s: Option<String>,
    /// Mean processing time of one record, ms.
    pub processing_ms: Option<String>,
    /// Median processing time of one record, ms.
    pub processing_p50_ms: Option<String>,
    /// 99th percentile of the processing time of one record, ms.
    pub processing_p99_ms: Option<String>,
}

/// How the import is asked to read the files.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Whose configuration the files are, when their names do not tell.
    pub client: Option<Dialect>,
    /// Scenario keys set by hand after the files (`--set key=value`), e.g. how the
    /// application commits in its own code.
    pub set: Vec<(String, String)>,
    /// What the user measured.
    pub measured: Measured,
}

/// What became of one property.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Status {
    /// It set a scenario key.
    Applied {
        /// The scenario key.
        key: String,
        /// The key's value.
        value: Value,
    },
    /// It does not change when offsets are committed or what a crash repeats or loses.
    Irrelevant {
        /// Why.
        why: String,
    },
    /// It may matter, and the model has no key for it.
    NotModelled {
        /// What that means for the result.
        means: String,
    },
    /// Not evaluated (a Spring profile, a `${…}` placeholder).
    NotEvaluated {
        /// What was not evaluated.
        why: String,
        /// The value used instead.
        used: String,
    },
}

/// One property of one file and what became of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entry {
    /// The file.
    pub file: String,
    /// Its line (from 1; 0 for what the command line gave).
    pub line: u32,
    /// The property as written.
    pub property: String,
    /// Its value as written.
    pub value: String,
    /// What became of it.
    #[serde(flatten)]
    pub status: Status,
}

/// A default the import applied for a property the files leave out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DefaultApplied {
    /// The property (in its client's or framework's words).
    pub property: String,
    /// Its default there.
    pub value: String,
    /// Whose default it is, and where that is written.
    pub whose: String,
    /// The scenario key it set, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// The scenario read from the files, with its account.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Import {
    /// The scenario, keys that differ from the model's defaults only (`offset-window run`'s input).
    pub scenario: Value,
    /// Whose configuration was read.
    pub client: Dialect,
    /// Every property of every file.
    pub account: Vec<Entry>,
    /// The defaults applied for what the files leave out.
    pub defaults: Vec<DefaultApplied>,
    /// What else the reader should know (what the import chose, and why).
    pub notes: Vec<String>,
    /// The scenario itself.
    #[serde(skip)]
    pub parsed: Scenario,
}

/// Why the files were refused: the file, the line and the property when there is one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImportError {
    /// The file.
    pub file: String,
    /// Its line, from 1 (0: the file as a whole, or the command line).
    pub line: u32,
    /// The property at fault.
    pub property: Option<String>,
    /// What was wrong and what is allowed.
    pub message: String,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, &self.property) {
            (0, Some(p)) => write!(f, "{}: {p}: {}", self.file, self.message),
            (0, None) => write!(f, "{}: {}", self.file, self.message),
            (line, Some(p)) => write!(f, "{}:{line}: {p}: {}", self.file, self.message),
            (line, None) => write!(f, "{}:{line}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for ImportError {}

/// The scenario under construction and its account.
pub(crate) struct Ctx {
    pub scenario: Scenario,
    pub account: Vec<Entry>,
    pub defaults: Vec<DefaultApplied>,
    pub notes: Vec<String>,
    /// Keys set from the files (a default never overrides them).
    pub set: BTreeSet<&'static str>,
}

/// A property's text as the JSON value of scenario key `key` (numbers as numbers, flags as
/// booleans; anything else as a string, which the core's message then quotes).
pub(crate) fn value_for(key: &str, text: &str) -> Value {
    let text = text.trim();
    match key_spec(key).map(|s| s.kind) {
        Some(KeyKind::Flag | KeyKind::OptionalFlag) => match text.to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::String(text.to_string()),
        },
        Some(
            KeyKind::Count { .. }
            | KeyKind::Millis { .. }
            | KeyKind::OptionalMillis { .. }
            | KeyKind::Thousandths { .. },
        ) => serde_json::from_str::<Value>(text)
            .ok()
            .filter(Value::is_number)
            .unwrap_or_else(|| Value::String(text.to_string())),
        _ => Value::String(text.to_string()),
    }
}

impl Ctx {
    fn new() -> Self {
        Ctx {
            scenario: Scenario::default(),
            account: Vec::new(),
            defaults: Vec::new(),
            notes: Vec::new(),
            set: BTreeSet::new(),
        }
    }

    fn entry(&mut self, prop: &Prop, status: Status) {
        self.account.push(Entry {
            file: prop.file.clone(),
            line: prop.line,
            property: prop.name.clone(),
            value: prop.value.clone(),
            status,
        });
    }

    /// Sets scenario key `key` to `value` from `prop`; the core's refusal names the file,
    /// the line and the property.
    pub fn apply(&mut self, prop: &Prop, key: &'static str, value: Value) -> Result<(), ImportError> {
        self.scenario.set_key(key, &value).map_err(|e| ImportError {
            file: prop.file.clone(),
            line: prop.line,
            property: Some(prop.name.clone()),
            message: format!("{} (scenario key {key}: {})", shown_value(&prop.value), e.message),
        })?;
        self.set.insert(key);
        // A later file (or `--set`) overrides what an earlier one applied: the earlier entry
        // says by what.
        let by = format!("overridden by {}:{} {}", prop.file, prop.line, prop.name);
        for e in &mut self.account {
            if matches!(&e.status, Status::Applied { key: k, .. } if k == key) {
                e.status = Status::Irrelevant { why: by.clone() };
            }
        }
        self.entry(prop, Status::Applied { key: key.to_string(), value });
        Ok(())
    }

    /// `prop` as the text of scenario key `key`.
    pub fn apply_text(&mut self, prop: &Prop, key: &'static str, text: &str) -> Result<(), ImportError> {
        self.apply(prop, key, value_for(key, text))
    }

    /// `prop` does not bear on commits.
    pub fn irrelevant(&mut self, prop: &Prop, why: impl Into<String>) {
        self.entry(prop, Status::Irrelevant { why: why.into() });
    }

    /// `prop` may matter, and the model has no key for it.
    pub fn not_modelled(&mut self, prop: &Prop, means: impl Into<String>) {
        self.entry(prop, Status::NotModelled { means: means.into() });
    }

    /// `prop` was not evaluated.
    pub fn not_evaluated(&mut self, prop: &Prop, why: impl Into<String>, used: impl Into<String>) {
        self.entry(prop, Status::NotEvaluated { why: why.into(), used: used.into() });
    }

    /// The client's or framework's default for `property`, applied to `key` unless a file
    /// set it; listed either way it is used.
    pub fn default(&mut self, property: &str, key: Option<&'static str>, text: &str, whose: &str) {
        if key.is_some_and(|k| self.set.contains(k)) {
            return;
        }
        if let Some(k) = key {
            // The defaults of real clients are within the model's ranges; one that is not
            // is named in a note instead of refused.
            if let Err(e) = self.scenario.set_key(k, &value_for(k, text)) {
                self.notes.push(format!("{whose}'s default {property}={text} does not fit the model: {e}"));
                return;
            }
            self.set.insert(k);
        }
        self.defaults.push(DefaultApplied {
            property: property.to_string(),
            value: text.to_string(),
            whose: whose.to_string(),
            key: key.map(str::to_string),
        });
    }
}

/// A value as an error quotes it, cut to 60 characters.
fn shown_value(text: &str) -> String {
    offset_window_sim::keys::shorten(&format!("“{text}”"))
}

/// A configuration file's properties and whose they are.
struct Config {
    dialect: Dialect,
    props: Vec<Prop>,
}

/// Whose configuration `props` (from a file of `kind`) are, by their names.
fn dialect_of(kind: Kind, props: &[Prop]) -> Dialect {
    if props.iter().any(|p| spring::relaxed(&p.name).starts_with("spring.")) {
        return Dialect::Spring;
    }
    if kind == Kind::Json {
        return golibs::dialect_of(props).unwrap_or(Dialect::Librdkafka);
    }
    if props.iter().any(|p| kafka::librdkafka_only(&p.name)) {
        Dialect::Librdkafka
    } else {
        Dialect::Java
    }
}

/// Reads `sources` into one scenario with its account. Configuration files (at most one
/// client's) and the tools' output may come in any order; a later configuration file's
/// property overrides an earlier one's (both are in the account).
pub fn import(sources: &[Source], options: &Options) -> Result<Import, ImportError> {
    let mut ctx = Ctx::new();
    let mut configs: Vec<Config> = Vec::new();
    let mut tools: Vec<(Kind, Source)> = Vec::new();
    for source in sources {
        let kind = parse::kind(source.name, source.text);
        let props = match kind {
            Kind::Properties => parse::properties(source.name, source.text)?,
            Kind::Yaml => parse::yaml(source.name, source.text)?,
            Kind::Json => parse::json(source.name, source.text)?,
            _ => {
                tools.push((kind, *source));
                continue;
            }
        };
        let dialect = options.client.unwrap_or_else(|| dialect_of(kind, &props));
        configs.push(Config { dialect, props });
    }
    let dialects: BTreeSet<Dialect> = configs.iter().map(|c| c.dialect).collect();
    if dialects.len() > 1 {
        let names: Vec<&str> = dialects.iter().map(|d| d.name()).collect();
        return Err(ImportError {
            file: configs.iter().map(|c| c.props.first().map_or("", |p| p.file.as_str())).collect::<Vec<_>>().join(", "),
            line: 0,
            property: None,
            message: format!(
                "these files are the configurations of different clients ({}): import one consumer's at a time",
                names.join(", ")
            ),
        });
    }
    let dialect = dialects.into_iter().next();
    let props: Vec<Prop> = configs.into_iter().flat_map(|c| c.props).collect();
    // The tools' output first (kafka-topics.sh's partition count before the groups'): the
    // partitions and members decide whether this is a group.
    tools.sort_by_key(|(kind, _)| *kind != Kind::TopicsDescribe);
    for (kind, source) in &tools {
        describe::read(&mut ctx, *kind, source)?;
    }
    let dialect = match dialect {
        Some(d) => d,
        None if !tools.is_empty() => options.client.unwrap_or(Dialect::Java),
        None => {
            return Err(ImportError {
                file: String::new(),
                line: 0,
                property: None,
                message: "no file to import".to_string(),
            })
        }
    };
    let overridden: BTreeSet<&str> = options.set.iter().map(|(k, _)| k.as_str()).collect();
    match dialect {
        Dialect::Java | Dialect::Librdkafka => kafka::read(&mut ctx, dialect, &props, &overridden)?,
        Dialect::Spring => spring::read(&mut ctx, &props, &overridden)?,
        Dialect::Sarama | Dialect::FranzGo | Dialect::KafkaGo | Dialect::Kafkajs => {
            golibs::read(&mut ctx, dialect, &props, &overridden)?
        }
    }
    measured(&mut ctx, &options.measured)?;
    for (key, text) in &options.set {
        let prop = Prop {
            file: "--set".to_string(),
            line: 0,
            name: key.clone(),
            value: text.clone(),
            profile: None,
        };
        let Some(spec) = key_spec(key) else {
            return Err(ImportError {
                file: "--set".to_string(),
                line: 0,
                property: Some(key.clone()),
                message: "no such scenario key (offset-window --help lists them)".to_string(),
            });
        };
        let value = match spec.kind {
            KeyKind::Structured(_) | KeyKind::CountList { .. } => {
                serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone()))
            }
            _ => value_for(spec.name, text),
        };
        ctx.apply(&prop, spec.name, value)?;
    }
    unused_by_the_strategy(&mut ctx);
    horizon(&mut ctx);
    ctx.scenario.validate().map_err(|e| {
        // The key at fault, traced back to the property that set it.
        let from = e.key.as_deref().and_then(|k| {
            ctx.account.iter().rev().find(|a| matches!(&a.status, Status::Applied { key, .. } if key == k))
        });
        match from {
            Some(a) => ImportError {
                file: a.file.clone(),
                line: a.line,
                property: Some(a.property.clone()),
                message: format!("{} ({e})", shown_value(&a.value)),
            },
            None => ImportError {
                file: sources.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
                line: 0,
                property: e.key.clone(),
                message: format!("the model refuses the scenario these files make: {e}"),
            },
        }
    })?;
    Ok(Import {
        scenario: ctx.scenario.to_json_diff(),
        client: dialect,
        account: ctx.account,
        defaults: ctx.defaults,
        notes: ctx.notes,
        parsed: ctx.scenario,
    })
}

/// Properties applied to keys the chosen strategy never reads are said to be irrelevant
/// (the key keeps its value, which changes nothing): `auto.commit.interval.ms` without
/// auto-commit, `commit_every_records` / `commit_every_ms` outside Spring's COUNT / TIME.
fn unused_by_the_strategy(ctx: &mut Ctx) {
    use offset_window_sim::Strategy::*;
    let strategy = ctx.scenario.strategy;
    let auto = matches!(
        strategy,
        AutoCommit
            | AutoCommitBackground
            | StoreOffsetsAfterProcessing
            | MarkMessage
            | AutoCommitMarks
            | GreedyAutoCommit
    );
    for e in &mut ctx.account {
        let Status::Applied { key, .. } = &e.status else { continue };
        let why = match key.as_str() {
            "auto.commit.interval.ms" if !auto => {
                format!("auto-commit is off (strategy {}): the interval is not used", strategy.name())
            }
            "commit_every_records" if !matches!(strategy, CommitSyncCount | CommitSyncEveryN) => {
                format!("used with a count of records between commits; the strategy is {}", strategy.name())
            }
            "commit_every_ms" if strategy != CommitSyncTime => {
                format!("used with AckMode TIME; the strategy is {}", strategy.name())
            }
            _ => continue,
        };
        e.status = Status::Irrelevant { why };
    }
}

/// Measured facts: records per second and processing time (mean, or percentiles mapped onto
/// the jitter as [`Measured`] says).
fn measured(ctx: &mut Ctx, m: &Measured) -> Result<(), ImportError> {
    let prop = |name: &str, value: &str| Prop {
        file: "measured".to_string(),
        line: 0,
        name: name.to_string(),
        value: value.to_string(),
        profile: None,
    };
    if let Some(rate) = &m.records_per_s {
        ctx.apply(
            &prop("--records-per-second", rate),
            "produce_rate_per_s",
            value_for("produce_rate_per_s", rate),
        )?;
    }
    let ms = |name: &str, text: &str| -> Result<u64, ImportError> {
        offset_window_sim::keys::parse_millis(text.trim()).map_err(|e| ImportError {
            file: "measured".to_string(),
            line: 0,
            property: Some(name.to_string()),
            message: format!("must be a number of milliseconds, at most 3 decimals: {e}"),
        })
    };
    match (&m.processing_ms, &m.processing_p50_ms, &m.processing_p99_ms) {
        (Some(mean), None, None) => {
            ctx.apply(&prop("--processing-ms", mean), "record_processing_ms", value_for("record_processing_ms", mean))?;
        }
        (None, Some(p50), p99) => {
            let p50_us = ms("--processing-p50-ms", p50)?;
            let Some(p99) = p99 else {
                ctx.apply(&prop("--processing-p50-ms", p50), "record_processing_ms", value_for("record_processing_ms", p50))?;
                ctx.notes.push("processing time: p50 alone is taken as the mean, with no jitter".to_string());
                return Ok(());
            };
            let p99_us = ms("--processing-p99-ms", p99)?;
            if p99_us < p50_us {
                return Err(ImportError {
                    file: "measured".to_string(),
                    line: 0,
                    property: Some("--processing-p99-ms".to_string()),
                    message: format!("p99 {p99} ms is below p50 {p50} ms"),
                });
            }
            // Uniform: p99 = p50·(1 + 0.98·j), j in whole percent, rounded up.
            let j_pct = ((p99_us - p50_us) as u128 * 100 * 100).div_ceil(98 * p50_us.max(1) as u128);
            let p = prop("--processing-p50-ms", p50);
            let q = prop("--processing-p99-ms", p99);
            if j_pct <= 100 {
                ctx.apply(&p, "record_processing_ms", value_for("record_processing_ms", p50))?;
                ctx.apply(&q, "record_processing_jitter", Value::String("uniform".into()))?;
                ctx.apply(&q, "record_processing_jitter_pct", Value::from(j_pct as u64))?;
                ctx.notes.push(format!(
                    "processing time: p50 {p50} ms and p99 {p99} ms are uniform jitter around {p50} ms, ±{j_pct} % \
                     (p99 = p50 · (1 + 0.98 · j), docs/model.md §8.12)"
                ));
            } else {
                // Exponential with the same median: mean = p50 / ln 2.
                let mean_us = (p50_us as f64 / std::f64::consts::LN_2).round() as u64;
                let mean = offset_window_sim::keys::format_millis(mean_us);
                ctx.apply(&p, "record_processing_ms", value_for("record_processing_ms", &mean))?;
                ctx.apply(&q, "record_processing_jitter", Value::String("exponential".into()))?;
                let model_p99 = offset_window_sim::keys::format_millis((mean_us as f64 * 100f64.ln()).round() as u64);
                ctx.notes.push(format!(
                    "processing time: p99 {p99} ms is more than 1.98 × p50 {p50} ms, wider than uniform jitter \
                     reaches: taken as exponential with the same median (mean {mean} ms = p50 / ln 2), whose p99 \
                     is {model_p99} ms (docs/model.md §8.12)"
                ));
            }
        }
        (None, None, None) => {
            if !ctx.set.contains("record_processing_ms") {
                ctx.notes.push(
                    "processing time per record is not in any file: the model's 200 ms is used; give what you \
                     measured (--processing-ms, or --processing-p50-ms and --processing-p99-ms)"
                        .to_string(),
                );
            }
        }
        _ => {
            return Err(ImportError {
                file: "measured".to_string(),
                line: 0,
                property: Some("--processing-ms".to_string()),
                message: "give the mean (--processing-ms) or percentiles (--processing-p50-ms, --processing-p99-ms), not both"
                    .to_string(),
            })
        }
    }
    Ok(())
}

/// A horizon long enough for the worst instants: three batches (or auto-commit intervals,
/// whichever is longer), at least the model's 12 s, at most a day; unless a key set it.
fn horizon(ctx: &mut Ctx) {
    if ctx.set.contains("horizon_ms") {
        return;
    }
    let s = &ctx.scenario;
    let batch_us = s.record_processing_us.saturating_mul(u64::from(s.max_poll_records));
    let mut span_us = batch_us.max(s.auto_commit_interval_us);
    if s.strategy == offset_window_sim::Strategy::CommitSyncTime {
        span_us = span_us.max(s.commit_every_us);
    }
    if s.group_mode() {
        // A crashed member's partitions wait out its session.
        span_us = span_us.max(s.session_timeout_us);
    }
    let mut horizon_us = span_us.saturating_mul(3).clamp(12_000_000, 86_400_000_000);
    horizon_us = horizon_us.div_ceil(1_000_000) * 1_000_000;
    let mut trial = s.clone();
    trial.horizon_us = horizon_us;
    // Within the model's event bound: halve until it fits (never below 12 s).
    while trial.horizon_us > 12_000_000 && trial.validate().is_err_and(|e| e.message.contains("events")) {
        trial.horizon_us = (trial.horizon_us / 2).max(12_000_000);
    }
    if trial.horizon_us != s.horizon_us {
        ctx.scenario.horizon_us = trial.horizon_us;
        ctx.notes.push(format!(
            "horizon_ms {}: chosen by the import, three times the longest of one batch ({} ms), the \
             auto-commit interval, the commit interval (TIME) and, in a group, session.timeout.ms, so that \
             the worst instants fall inside it",
            offset_window_sim::keys::format_millis(trial.horizon_us),
            offset_window_sim::keys::format_millis(batch_us)
        ));
    }
}
