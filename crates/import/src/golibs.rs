//! The settings of sarama, franz-go, kafka-go and KafkaJS, written as JSON in each library's
//! own names (a Go `Config` / `ReaderConfig` field path, a franz-go option, a KafkaJS
//! `consumer()` / `run()` key). The model has a `client` value for each (docs/model.md
//! §8.14) and runs it as one consumer on one partition, and in a group (franz-go with its
//! default balancer, cooperative-sticky); what it has no key for is named as not modelled.

use crate::parse::Prop;
use crate::{Ctx, Dialect, ImportError};
use serde_json::Value;
use std::collections::BTreeSet;

const FRANZ: &[&str] = &[
    "DisableAutoCommit",
    "AutoCommitInterval",
    "AutoCommitMarks",
    "GreedyAutoCommit",
    "AutoCommitCallback",
    "BlockRebalanceOnPoll",
    "ConsumeResetOffset",
    "FetchMaxPartitionBytes",
    "FetchMaxBytes",
    "FetchMaxWait",
    "FetchMinBytes",
    "Balancers",
    "InstanceID",
    "OnPartitionsRevoked",
    "OnPartitionsAssigned",
    "OnPartitionsLost",
    "ConsumerGroup",
    "ConsumeTopics",
    "SeedBrokers",
    "SessionTimeout",
    "HeartbeatInterval",
    "RebalanceTimeout",
    "RequireStableFetchOffsets",
];
const KAFKA_GO: &[&str] = &[
    "CommitInterval",
    "GroupBalancers",
    "StartOffset",
    "GroupID",
    "GroupTopics",
    "Brokers",
    "Topic",
    "Partition",
    "MinBytes",
    "MaxBytes",
    "MaxWait",
    "ReadBatchTimeout",
    "ReadLagInterval",
    "QueueCapacity",
    "PartitionWatchInterval",
    "WatchPartitionChanges",
    "RetentionTime",
    "IsolationLevel",
    "MaxAttempts",
    "SessionTimeout",
    "HeartbeatInterval",
    "RebalanceTimeout",
    "JoinGroupBackoff",
];
const KAFKAJS: &[&str] = &[
    "groupId",
    "autoCommit",
    "autoCommitInterval",
    "autoCommitThreshold",
    "eachBatchAutoResolve",
    "partitionsConsumedConcurrently",
    "sessionTimeout",
    "heartbeatInterval",
    "rebalanceTimeout",
    "maxBytesPerPartition",
    "maxBytes",
    "minBytes",
    "maxWaitTimeInMs",
    "readUncommitted",
    "allowAutoTopicCreation",
    "partitionAssigners",
    "fromBeginning",
    "metadataMaxAge",
    "maxInFlightRequests",
    "retry",
    "brokers",
    "clientId",
    "topics",
    "topic",
];

/// Whose settings a JSON object's names are: sarama's `Consumer.…` paths, or the names only
/// franz-go, kafka-go or KafkaJS use.
pub fn dialect_of(props: &[Prop]) -> Option<Dialect> {
    let has = |list: &[&str], only: &[&str]| {
        props.iter().any(|p| list.contains(&p.name.as_str()) && only.contains(&p.name.as_str()))
    };
    if props
        .iter()
        .any(|p| p.name.starts_with("Consumer.") || p.name.starts_with("Net.") || p.name == "Version")
    {
        return Some(Dialect::Sarama);
    }
    if has(KAFKAJS, KAFKAJS) {
        return Some(Dialect::Kafkajs);
    }
    let franz_only: Vec<&str> = FRANZ.iter().copied().filter(|n| !KAFKA_GO.contains(n)).collect();
    let kgo_only: Vec<&str> = KAFKA_GO.iter().copied().filter(|n| !FRANZ.contains(n)).collect();
    if has(FRANZ, &franz_only) {
        return Some(Dialect::FranzGo);
    }
    if has(KAFKA_GO, &kgo_only) {
        return Some(Dialect::KafkaGo);
    }
    None
}

/// A Go `time.Duration` as written (`1s`, `500ms`, `1m30s`) or a number of nanoseconds, in
/// ms as decimal text.
pub fn go_duration_ms(text: &str) -> Option<String> {
    let t = text.trim();
    if let Ok(ns) = t.parse::<u64>() {
        return Some(crate::spring::duration_ms(&format!("{}us", ns as f64 / 1000.0)).unwrap_or_default());
    }
    let mut total_us: f64 = 0.0;
    let mut rest = t;
    while !rest.is_empty() {
        let split = rest.find(|c: char| c.is_ascii_alphabetic() || c == 'µ')?;
        let (num, tail) = rest.split_at(split);
        let unit_end = tail.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(tail.len());
        let (unit, next) = tail.split_at(unit_end);
        let n: f64 = num.parse().ok()?;
        total_us += n * match unit {
            "ns" => 0.001,
            "us" | "µs" => 1.0,
            "ms" => 1_000.0,
            "s" => 1_000_000.0,
            "m" => 60_000_000.0,
            "h" => 3_600_000_000.0,
            _ => return None,
        };
        rest = next;
    }
    let ms = format!("{:.3}", total_us.round() / 1000.0);
    Some(ms.trim_end_matches('0').trim_end_matches('.').to_string())
}

fn refuse(prop: &Prop, message: String) -> ImportError {
    ImportError { file: prop.file.clone(), line: prop.line, property: Some(prop.name.clone()), message }
}

fn flag(prop: &Prop) -> Result<bool, ImportError> {
    match prop.value.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(refuse(prop, format!("must be true or false (got “{}”)", prop.value))),
    }
}

fn millis(prop: &Prop, go: bool) -> Result<String, ImportError> {
    let ms = if go {
        go_duration_ms(&prop.value)
    } else {
        prop.value.trim().parse::<f64>().ok().map(|_| prop.value.trim().to_string())
    };
    ms.ok_or_else(|| {
        refuse(
            prop,
            format!(
                "must be {} (got “{}”)",
                if go { "a Go duration such as 1s or 500ms" } else { "a number of milliseconds" },
                prop.value
            ),
        )
    })
}

const SINGLE: &str = "the model runs this library as one consumer on one partition (docs/model.md §8.14): group settings are read, not modelled";

/// Reads one library's settings.
pub(crate) fn read(
    ctx: &mut Ctx,
    dialect: Dialect,
    props: &[Prop],
    overridden: &BTreeSet<&str>,
) -> Result<(), ImportError> {
    let client = match dialect {
        Dialect::Sarama => "sarama",
        Dialect::FranzGo => "franz_go",
        Dialect::KafkaGo => "kafka_go",
        _ => "kafkajs",
    };
    let whose = match dialect {
        Dialect::Sarama => "sarama v1.61.1 (NewConfig, config.go)",
        Dialect::FranzGo => "franz-go v1.22.3 (kgo, config.go)",
        Dialect::KafkaGo => "kafka-go v0.4.51 (ReaderConfig, reader.go)",
        _ => "KafkaJS 2.2.4 (consumer/index.js)",
    };
    ctx.default("client", Some("client"), client, &format!("the files' settings are {}'s", dialect.name()));
    // The commit mode: a strategy, or a refusal naming the property.
    let mut strategy: Option<(String, Prop)> = None;
    let mut manual: Option<Prop> = None;
    for prop in props {
        let go = dialect != Dialect::Kafkajs;
        match (dialect, prop.name.as_str()) {
            (Dialect::Sarama, "Consumer.Offsets.AutoCommit.Enable") => {
                if flag(prop)? {
                    strategy = Some(("mark_message".into(), prop.clone()));
                } else {
                    manual = Some(prop.clone());
                }
            }
            (Dialect::Sarama, "Consumer.Offsets.AutoCommit.Interval") | (Dialect::FranzGo, "AutoCommitInterval") => {
                ctx.apply_text(prop, "auto.commit.interval.ms", &millis(prop, go)?)?
            }
            (Dialect::Sarama, "Consumer.Offsets.Initial") | (Dialect::KafkaGo, "StartOffset") => {
                let model = match prop.value.trim() {
                    "-1" | "OffsetNewest" | "LastOffset" => "latest",
                    "-2" | "OffsetOldest" | "FirstOffset" => "earliest",
                    _ => return Err(refuse(prop, format!("must be -1 (newest) or -2 (oldest) (got “{}”)", prop.value))),
                };
                ctx.apply(prop, "auto.offset.reset", Value::String(model.into()))?
            }
            (Dialect::FranzGo, "DisableAutoCommit") => {
                if flag(prop)? {
                    manual = Some(prop.clone());
                } else {
                    ctx.irrelevant(prop, "false: autocommit stays on (the default)");
                }
            }
            (Dialect::FranzGo, "AutoCommitMarks") if flag(prop)? => strategy = Some(("auto_commit_marks".into(), prop.clone())),
            (Dialect::FranzGo, "GreedyAutoCommit") if flag(prop)? => strategy = Some(("greedy_auto_commit".into(), prop.clone())),
            (Dialect::FranzGo, "AutoCommitMarks" | "GreedyAutoCommit") => ctx.irrelevant(prop, "false: the default autocommit"),
            (Dialect::KafkaGo, "CommitInterval") => {
                let ms = millis(prop, true)?;
                if ms != "0" {
                    return Err(refuse(
                        prop,
                        format!(
                            "{}: a CommitInterval ticker (asynchronous commits, kafka-go#1179) is not modelled; the \
                             model has kafka-go's synchronous commits (CommitInterval 0) only",
                            prop.value
                        ),
                    ));
                }
                ctx.irrelevant(prop, "0: synchronous commits (the default), as the model runs them");
            }
            (Dialect::Kafkajs, "autoCommit") => {
                if flag(prop)? {
                    strategy = Some(("each_message".into(), prop.clone()));
                } else {
                    manual = Some(prop.clone());
                }
            }
            (Dialect::Kafkajs, "autoCommitInterval" | "autoCommitThreshold") if prop.value != "null" => {
                return Err(refuse(
                    prop,
                    format!(
                        "{}: KafkaJS then also commits during a batch (autoCommitOffsetsIfNecessary), which the model \
                         has no strategy for; it models the default (null): commits after each batch",
                        prop.value
                    ),
                ))
            }
            (Dialect::Kafkajs, "eachBatchAutoResolve") => ctx.not_modelled(
                prop,
                "a run({ eachBatch }) option; whether the handler is eachBatch the file does not show: --set \
                 strategy=each_batch (auto-resolve) or each_batch_resolve_offset (resolveOffset after each message)",
            ),
            (Dialect::Kafkajs, "maxBytesPerPartition") | (Dialect::FranzGo, "FetchMaxPartitionBytes") => {
                ctx.apply_text(prop, "max.partition.fetch.bytes", &prop.value)?
            }
            (Dialect::Kafkajs, "fromBeginning") => {
                let model = if flag(prop)? { "earliest" } else { "latest" };
                ctx.apply(prop, "auto.offset.reset", Value::String(model.into()))?
            }
            (Dialect::Kafkajs, "groupId" | "clientId" | "brokers" | "topics" | "topic")
            | (Dialect::KafkaGo, "GroupID" | "GroupTopics" | "Brokers" | "Topic")
            | (Dialect::FranzGo, "ConsumerGroup" | "ConsumeTopics" | "SeedBrokers") => {
                ctx.irrelevant(prop, "names the group, topic or brokers")
            }
            (_, name) if name.starts_with("Net.") || name == "Version" || name == "ClientID" => {
                ctx.irrelevant(prop, "how the client connects")
            }
            _ => ctx.not_modelled(prop, SINGLE),
        }
    }
    if overridden.contains("strategy") {
        return Ok(());
    }
    if let Some(p) = manual {
        return Err(refuse(
            &p,
            format!(
                "{}: the application commits in its own code, which this file does not show; say how with --set \
                 strategy=… ({})",
                p.value,
                match dialect {
                    Dialect::Sarama => "commit_sync_record: MarkMessage + session.Commit() after each message",
                    Dialect::FranzGo => "commit_sync_batch: CommitUncommittedOffsets after each poll, or commit_sync_record",
                    _ => "commit_sync_batch or commit_sync_record",
                }
            ),
        ));
    }
    let (default_strategy, default_note) = match dialect {
        Dialect::Sarama => ("mark_message", "AutoCommit.Enable true: the ticker commits what MarkMessage marked — assumed: your handler marks each message after processing it"),
        Dialect::FranzGo => ("auto_commit", "autocommit every AutoCommitInterval of what the previous polls returned"),
        Dialect::KafkaGo => ("auto_commit", "ReadMessage commits each message before returning it (CommitInterval 0) — assumed: FetchMessage + CommitMessages is --set strategy=fetch_message_commit_messages"),
        _ => ("each_message", "run({ eachMessage }) with autoCommit: the resolved offsets are committed after each batch"),
    };
    match strategy {
        Some((s, p)) => ctx.apply(&p, "strategy", Value::String(s))?,
        None => ctx.default(
            "commit mode",
            Some("strategy"),
            default_strategy,
            &format!("{whose}: {default_note}"),
        ),
    }
    match dialect {
        Dialect::Sarama => {
            ctx.default(
                "Consumer.Offsets.AutoCommit.Interval",
                Some("auto.commit.interval.ms"),
                "1000",
                whose,
            );
            ctx.default(
                "Consumer.Offsets.Initial",
                Some("auto.offset.reset"),
                "latest",
                &format!("{whose}: OffsetNewest"),
            );
        }
        Dialect::FranzGo => {
            ctx.default("AutoCommitInterval", Some("auto.commit.interval.ms"), "5000", whose);
            ctx.default("FetchMaxPartitionBytes", Some("max.partition.fetch.bytes"), "1048576", whose);
            ctx.default(
                "ConsumeResetOffset",
                Some("auto.offset.reset"),
                "earliest",
                &format!("{whose}: NewOffset().AtStart()"),
            );
            ctx.default(
                "PollRecords(ctx, n)",
                Some("max.poll.records"),
                "1024",
                "franz-go: n is in your code (PollFetches: everything fetched, one 1 MiB chunk of 1 KiB records); --set max.poll.records=N",
            );
        }
        Dialect::KafkaGo => {
            ctx.default(
                "StartOffset",
                Some("auto.offset.reset"),
                "earliest",
                &format!("{whose}: FirstOffset"),
            );
        }
        _ => {
            ctx.default("maxBytesPerPartition", Some("max.partition.fetch.bytes"), "1048576", whose);
            ctx.default("fromBeginning", Some("auto.offset.reset"), "latest", &format!("{whose}: false"));
        }
    }
    Ok(())
}
