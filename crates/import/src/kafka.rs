//! The Java client's properties (`org.apache.kafka.clients.consumer.ConsumerConfig`,
//! kafka-clients 4.x) and librdkafka's (`CONFIGURATION.md`, librdkafka 2.x), each property
//! applied to a scenario key, named as irrelevant to commits, or named as not modelled.
//!
//! Defaults for what a file leaves out are the client's own: Java's `max.poll.records` 500,
//! `enable.auto.commit` true, `auto.commit.interval.ms` 5000; librdkafka's
//! `enable.auto.commit` true, `enable.auto.offset.store` true, `auto.commit.interval.ms` 5000.

use crate::parse::Prop;
use crate::{Ctx, Dialect, ImportError};
use serde_json::Value;
use std::collections::BTreeSet;

const JAVA: &str = "the Java client (ConsumerConfig, kafka-clients 4.x)";
const RDK: &str = "librdkafka 2.x (CONFIGURATION.md)";

/// Properties only librdkafka has: a properties file holding one is librdkafka's.
pub fn librdkafka_only(name: &str) -> bool {
    matches!(
        name,
        "enable.auto.offset.store"
            | "metadata.broker.list"
            | "fetch.wait.max.ms"
            | "fetch.message.max.bytes"
            | "queued.min.messages"
            | "queued.max.messages.kbytes"
            | "enable.partition.eof"
            | "statistics.interval.ms"
            | "api.version.request"
            | "auto.commit.enable"
            | "debug"
            | "coordinator.query.interval.ms"
            | "fetch.error.backoff.ms"
            | "offset.store.method"
            | "socket.keepalive.enable"
            | "log_level"
    )
}

/// How a property is taken.
enum Rule {
    /// Straight to this scenario key (same name, same unit).
    Key(&'static str),
    /// Handled in code (commit mode, protocol, assignor, …).
    Special,
    /// Irrelevant to commits, and why.
    Irrelevant(&'static str),
    /// Not modelled, and what that means.
    NotModelled(&'static str),
}

const CONNECTION: &str = "how the client connects and authenticates";
const METRICS: &str = "monitoring";

/// The rule of a property both clients share, or of one of `dialect`'s own.
fn rule(dialect: Dialect, name: &str) -> Rule {
    use Rule::*;
    let rdk = dialect == Dialect::Librdkafka;
    match name {
        "enable.auto.commit" | "auto.commit.enable" | "enable.auto.offset.store" | "group.protocol"
        | "group.instance.id" | "partition.assignment.strategy" | "auto.offset.reset" | "isolation.level" => Special,
        "auto.commit.interval.ms" | "max.poll.interval.ms" | "session.timeout.ms" | "heartbeat.interval.ms"
        | "max.partition.fetch.bytes" => Key(leak(name)),
        "max.poll.records" if !rdk => Key("max.poll.records"),
        "fetch.max.wait.ms" if !rdk => Key("fetch.max.wait.ms"),
        "fetch.wait.max.ms" if rdk => Key("fetch.max.wait.ms"),
        "fetch.message.max.bytes" if rdk => Key("max.partition.fetch.bytes"),
        "retry.backoff.ms" | "retry.backoff.max.ms" if !rdk => Key(leak(name)),
        "default.api.timeout.ms" if !rdk => Key("default.api.timeout.ms"),
        "retry.backoff.ms" | "retry.backoff.max.ms" => NotModelled(
            "librdkafka's backoff between retried requests; the model retries a failed commitSync with it only for the Java client",
        ),
        "group.id" => Irrelevant("names the group; the model's group is one group"),
        "client.id" => Irrelevant("names the client in logs and quotas"),
        "bootstrap.servers" | "metadata.broker.list" | "client.dns.lookup" | "security.protocol"
        | "connections.max.idle.ms" | "reconnect.backoff.ms" | "reconnect.backoff.max.ms" | "socket.connection.setup.timeout.ms"
        | "socket.connection.setup.timeout.max.ms" | "send.buffer.bytes" | "receive.buffer.bytes" | "socket.keepalive.enable"
        | "api.version.request" | "broker.address.family" => Irrelevant(CONNECTION),
        "key.deserializer" | "value.deserializer" => Irrelevant("how record bytes become objects"),
        "metrics.num.samples" | "metrics.sample.window.ms" | "metrics.recording.level" | "metric.reporters"
        | "auto.include.jmx.reporter" | "enable.metrics.push" | "statistics.interval.ms" | "debug" | "log_level" => {
            Irrelevant(METRICS)
        }
        "metadata.max.age.ms" | "topic.metadata.refresh.interval.ms" => {
            Irrelevant("how often topic metadata is refreshed (the topic is fixed)")
        }
        "allow.auto.create.topics" | "exclude.internal.topics" => Irrelevant("which topics exist"),
        "check.crcs" => Irrelevant("checks records for corruption"),
        "enable.partition.eof" => Irrelevant("an event at the log end"),
        "client.rack" => NotModelled("fetching from the nearest replica (KIP-392): the model's fetches take no time"),
        "fetch.min.bytes" => NotModelled(
            "a fetch waits for this many bytes: the model's polls hand out records at once while the backlog lasts (docs/model.md §1)",
        ),
        "fetch.max.bytes" => NotModelled(
            "bytes of one fetch over all partitions: the model bounds a consumer's fetch per partition (max.partition.fetch.bytes); it reads fetch.max.bytes for a share group only",
        ),
        "request.timeout.ms" | "socket.timeout.ms" => NotModelled(
            "how long a request may take: the model's commits always land one commit_latency_ms after they are sent, or fail as commit_failures says",
        ),
        "interceptor.classes" => NotModelled(
            "interceptors may commit or change records: the model runs none; if yours commit, the result does not show it",
        ),
        "group.remote.assignor" => NotModelled(
            "the broker's assignor under group.protocol=consumer: the model uses the uniform assignor (docs/model.md §10.2)",
        ),
        "queued.min.messages" | "queued.max.messages.kbytes" => NotModelled(
            "librdkafka's prefetch queue: the model's backlog is always there to fetch; a crash loses nothing of the queue (it is not committed)",
        ),
        "fetch.error.backoff.ms" | "coordinator.query.interval.ms" => NotModelled("recovery from broker errors, which the model has none of"),
        "offset.store.method" => NotModelled("only `broker` is supported by librdkafka 2.x; the model commits to the group coordinator"),
        "metadata.recovery.strategy" | "metadata.recovery.rebootstrap.trigger.ms" | "message.max.bytes"
        | "receive.message.max.bytes" | "broker.version.fallback" | "enable.ssl.certificate.verification" => {
            Irrelevant(CONNECTION)
        }
        "config.providers" => Irrelevant("where property values are read from"),
        "share.acknowledgement.mode" => NotModelled(
            "a share consumer's setting (KIP-932): the import reads a consumer group's consumer; for a share group pass --set consumption=share_group and --set share.acknowledgement.mode=…",
        ),
        "share.acquire.mode" => NotModelled(
            "a share consumer's setting (KIP-1206): the import reads a consumer group's consumer; for a share group pass --set consumption=share_group and --set share.acquire.mode=…",
        ),
        "consume.callback.max.messages" | "fetch.queue.backoff.ms" => NotModelled(
            "how librdkafka's background thread fills its queue: the model's backlog is always there to fetch",
        ),
        "offset_commit_cb" | "rebalance_cb" | "error_cb" | "stats_cb" | "throttle_cb" | "log_cb" | "oauth_cb" => {
            NotModelled("a callback in your code: the model runs none; if it commits, the result does not show it")
        }
        _ if name.starts_with("internal.") => NotModelled("an internal setting of the client: the model does not use it"),
        _ if name.starts_with("ssl.") || name.starts_with("sasl.") || name.starts_with("security.") => Irrelevant(CONNECTION),
        _ if name.starts_with("socket.") || name.starts_with("api.version") || name.starts_with("broker.") => {
            Irrelevant(CONNECTION)
        }
        _ if name.starts_with("topic.metadata.") || name.starts_with("log.") || name.starts_with("log_") => {
            Irrelevant("metadata refresh and logging")
        }
        _ if name.starts_with("metric") => Irrelevant(METRICS),
        _ => NotModelled("not a consumer property the import knows: the model does not use it; check that it does not change how offsets are committed"),
    }
}

/// The `&'static str` of a scenario key spelled as the property (the same name).
fn leak(name: &str) -> &'static str {
    offset_window_sim::scenario::key_spec(name).map_or("", |s| s.name)
}

/// The commit-related facts read, with the property that gave each.
#[derive(Default)]
pub(crate) struct Commit {
    pub auto: Option<(bool, Prop)>,
    pub store: Option<(bool, Prop)>,
}

fn flag(prop: &Prop) -> Result<bool, ImportError> {
    match prop.value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(ImportError {
            file: prop.file.clone(),
            line: prop.line,
            property: Some(prop.name.clone()),
            message: format!("must be true or false (got “{}”)", prop.value),
        }),
    }
}

fn refuse(prop: &Prop, message: String) -> ImportError {
    ImportError { file: prop.file.clone(), line: prop.line, property: Some(prop.name.clone()), message }
}

/// Reads one Kafka property of `dialect` into `ctx` (commit facts into `commit`); the
/// Spring reader calls it for the properties it hands to the Kafka client.
pub(crate) fn property(
    ctx: &mut Ctx,
    dialect: Dialect,
    prop: &Prop,
    commit: &mut Commit,
) -> Result<(), ImportError> {
    let name = prop.name.as_str();
    match rule(dialect, name) {
        Rule::Key(key) => ctx.apply_text(prop, key, &prop.value),
        Rule::Irrelevant(why) => {
            ctx.irrelevant(prop, why);
            Ok(())
        }
        Rule::NotModelled(means) => {
            ctx.not_modelled(prop, means);
            Ok(())
        }
        Rule::Special => match name {
            "enable.auto.commit" | "auto.commit.enable" => {
                commit.auto = Some((flag(prop)?, prop.clone()));
                Ok(())
            }
            "enable.auto.offset.store" => {
                commit.store = Some((flag(prop)?, prop.clone()));
                Ok(())
            }
            "group.protocol" => match (dialect, prop.value.trim().to_ascii_lowercase().as_str()) {
                (Dialect::Librdkafka, "classic") => {
                    ctx.irrelevant(prop, "the classic protocol: the model's librdkafka client speaks it");
                    Ok(())
                }
                (Dialect::Librdkafka, "consumer") => {
                    ctx.notes.push(
                        "group.protocol=consumer: the broker assigns partitions (uniform assignor) and sets the \
                         session and heartbeat interval; librdkafka reconciles as docs/model.md §10.6 says"
                            .to_string(),
                    );
                    ctx.apply(prop, "client", Value::String("librdkafka_consumer_protocol".into()))
                }
                (Dialect::Librdkafka, _) => {
                    Err(refuse(prop, format!("must be “classic” or “consumer” (got “{}”)", prop.value)))
                }
                (_, "classic") => ctx.apply(prop, "client", Value::String("java_classic".into())),
                (_, "consumer") => {
                    ctx.notes.push(
                        "group.protocol=consumer: the broker assigns partitions (uniform assignor); \
                         partition.assignment.strategy is not used"
                            .to_string(),
                    );
                    ctx.notes.push(
                        "group.protocol=consumer is taken as kafka-clients 4.x, with KAFKA-18641's fix; for 3.9 \
                         pass --set client=java_consumer_protocol_pre_fix"
                            .to_string(),
                    );
                    ctx.apply(prop, "client", Value::String("java_consumer_protocol".into()))
                }
                _ => Err(refuse(prop, format!("must be “classic” or “consumer” (got “{}”)", prop.value))),
            },
            "group.instance.id" => {
                let on = !prop.value.trim().is_empty();
                ctx.apply(prop, "group.instance.id", Value::Bool(on))
            }
            "partition.assignment.strategy" => assignor(ctx, prop),
            "auto.offset.reset" => {
                let v = prop.value.trim().to_ascii_lowercase();
                let model = match v.as_str() {
                    "latest" | "largest" | "end" => "latest",
                    "earliest" | "smallest" | "beginning" => "earliest",
                    _ => {
                        return Err(refuse(
                            prop,
                            format!(
                                "the model resolves “latest” or “earliest” only (got “{}”: {})",
                                prop.value,
                                if v == "none" || v == "error" {
                                    "a consumer without a committed offset then fails, which the model does not run"
                                } else {
                                    "not modelled"
                                }
                            ),
                        ))
                    }
                };
                ctx.apply(prop, "auto.offset.reset", Value::String(model.into()))
            }
            "isolation.level" => {
                ctx.not_modelled(
                    prop,
                    "this consumer's own isolation level decides whether it reads records of aborted transactions \
                     in its input, which the model has none of; the model's isolation.level is that of the reader \
                     of the application's output (transactional strategy, docs/model.md §8.10)",
                );
                Ok(())
            }
            _ => Ok(()),
        },
    }
}

/// `partition.assignment.strategy`: a list of assignor classes (Java) or names (librdkafka);
/// the group uses the first one every member supports — with one configuration, the first.
fn assignor(ctx: &mut Ctx, prop: &Prop) -> Result<(), ImportError> {
    let first = prop.value.split(',').map(str::trim).find(|s| !s.is_empty()).unwrap_or("");
    let simple = first.rsplit('.').next().unwrap_or(first);
    let model = match simple {
        "RangeAssignor" | "range" => "range",
        "RoundRobinAssignor" | "roundrobin" => "roundrobin",
        "CooperativeStickyAssignor" | "cooperative-sticky" => "cooperative-sticky",
        _ => {
            return Err(refuse(
                prop,
                format!(
                    "the model has the range, round robin and cooperative sticky assignors (got “{first}”; \
                     StickyAssignor, eager sticky, is not modelled)"
                ),
            ))
        }
    };
    ctx.apply(prop, "partition.assignment.strategy", Value::String(model.into()))
}

/// Reads a Java or librdkafka configuration.
pub(crate) fn read(
    ctx: &mut Ctx,
    dialect: Dialect,
    props: &[Prop],
    overridden: &BTreeSet<&str>,
) -> Result<(), ImportError> {
    let mut commit = Commit::default();
    for prop in props {
        property(ctx, dialect, prop, &mut commit)?;
    }
    if dialect == Dialect::Librdkafka {
        ctx.default("client", Some("client"), "librdkafka", "the files' properties are librdkafka's");
        librdkafka_defaults(ctx);
        return librdkafka_strategy(ctx, &commit, overridden);
    }
    if !props.iter().any(|p| p.name == "group.id") {
        ctx.notes.push(
            "group.id is not in the files: the model runs a consumer group; a consumer without one \
             (assign(), no group) commits nothing, and its enable.auto.commit defaults to false"
                .to_string(),
        );
    }
    java_defaults(ctx, JAVA);
    java_strategy(ctx, &commit, overridden, JAVA)
}

/// The Java client's defaults for what the files leave out.
pub(crate) fn java_defaults(ctx: &mut Ctx, whose: &str) {
    ctx.default("max.poll.records", Some("max.poll.records"), "500", whose);
    ctx.default("auto.commit.interval.ms", Some("auto.commit.interval.ms"), "5000", whose);
    ctx.default("max.poll.interval.ms", Some("max.poll.interval.ms"), "300000", whose);
    ctx.default("session.timeout.ms", Some("session.timeout.ms"), "45000", whose);
    ctx.default("heartbeat.interval.ms", Some("heartbeat.interval.ms"), "3000", whose);
    ctx.default("max.partition.fetch.bytes", Some("max.partition.fetch.bytes"), "1048576", whose);
    ctx.default("fetch.max.wait.ms", Some("fetch.max.wait.ms"), "500", whose);
    ctx.default("auto.offset.reset", Some("auto.offset.reset"), "latest", whose);
    ctx.default(
        "partition.assignment.strategy",
        Some("partition.assignment.strategy"),
        "range",
        &format!("{whose}: [RangeAssignor, CooperativeStickyAssignor], the first"),
    );
    ctx.default("group.protocol", Some("client"), "java_classic", &format!("{whose}: classic"));
    ctx.default("retry.backoff.ms", Some("retry.backoff.ms"), "100", whose);
    ctx.default("retry.backoff.max.ms", Some("retry.backoff.max.ms"), "1000", whose);
    ctx.default("default.api.timeout.ms", Some("default.api.timeout.ms"), "60000", whose);
}

/// The Java client's commit: `enable.auto.commit` (default true) is the auto-commit in
/// `poll()`; without it the application commits in its own code, which no file shows.
pub(crate) fn java_strategy(
    ctx: &mut Ctx,
    commit: &Commit,
    overridden: &BTreeSet<&str>,
    whose: &str,
) -> Result<(), ImportError> {
    match &commit.auto {
        Some((true, prop)) => ctx.apply(prop, "strategy", Value::String("auto_commit".into())),
        None => {
            ctx.default("enable.auto.commit", Some("strategy"), "auto_commit", &format!("{whose}: true"));
            Ok(())
        }
        Some((false, prop)) => {
            ctx.irrelevant(prop, "auto-commit off: the application commits in its own code (the strategy)");
            if overridden.contains("strategy") {
                Ok(())
            } else {
                Err(refuse(
                    prop,
                    "false: the application commits in its own code, which this file does not show; say how with \
                     --set strategy=commit_sync_batch (commitSync() after each poll's records), commit_sync_record, \
                     commit_async_batch, commit_sync_every_n or transactional"
                        .to_string(),
                ))
            }
        }
    }
}

fn librdkafka_defaults(ctx: &mut Ctx) {
    ctx.default("auto.commit.interval.ms", Some("auto.commit.interval.ms"), "5000", RDK);
    ctx.default("max.poll.interval.ms", Some("max.poll.interval.ms"), "300000", RDK);
    ctx.default("session.timeout.ms", Some("session.timeout.ms"), "45000", RDK);
    ctx.default("heartbeat.interval.ms", Some("heartbeat.interval.ms"), "3000", RDK);
    ctx.default("max.partition.fetch.bytes", Some("max.partition.fetch.bytes"), "1048576", RDK);
    ctx.default("fetch.wait.max.ms", Some("fetch.max.wait.ms"), "500", RDK);
    ctx.default("auto.offset.reset", Some("auto.offset.reset"), "latest", &format!("{RDK}: largest"));
    ctx.default(
        "partition.assignment.strategy",
        Some("partition.assignment.strategy"),
        "range",
        &format!("{RDK}: range,roundrobin, the first"),
    );
    ctx.default(
        "rd_kafka_consumer_poll()",
        Some("max.poll.records"),
        "1",
        "librdkafka: one message per rd_kafka_consumer_poll() (confluent-kafka's consume(num_messages=N) is in your code: --set max.poll.records=N)",
    );
}

/// librdkafka's commit: the background timer commits the stored offsets; with
/// `enable.auto.offset.store=false` the application stores them (after processing).
fn librdkafka_strategy(
    ctx: &mut Ctx,
    commit: &Commit,
    overridden: &BTreeSet<&str>,
) -> Result<(), ImportError> {
    let auto = commit.auto.as_ref().is_none_or(|(on, _)| *on);
    let store = commit.store.as_ref().is_none_or(|(on, _)| *on);
    if commit.auto.is_none() {
        ctx.default("enable.auto.commit", None, "true", RDK);
    }
    if commit.store.is_none() {
        ctx.default("enable.auto.offset.store", None, "true", RDK);
    }
    if !auto {
        let prop = &commit.auto.as_ref().expect("auto is false only when a file said so").1;
        ctx.irrelevant(
            prop,
            "auto-commit off: the application calls commit() in its own code (the strategy)",
        );
        if let Some((_, p)) = &commit.store {
            ctx.irrelevant(p, "the offset store matters only to auto-commit and to commit() without offsets");
        }
        if overridden.contains("strategy") {
            return Ok(());
        }
        return Err(refuse(
            prop,
            "false: the application calls commit() in its own code, which this file does not show; say how with \
             --set strategy=commit_sync_batch (commit() after each batch), commit_sync_record or commit_async_batch"
                .to_string(),
        ));
    }
    let (strategy, why) = if store {
        ("auto_commit", "auto-commit on a background timer of the offsets stored as messages are handed out (docs/model.md §8.2)")
    } else {
        (
            "store_offsets_after_processing",
            "the application stores each offset with rd_kafka_offsets_store() / store_offsets() after processing \
             it, and the timer commits them (docs/model.md §8.3) — assumed: where your code stores them is not in \
             the file",
        )
    };
    ctx.notes.push(format!("strategy {strategy}: {why}"));
    let prop =
        commit.store.as_ref().map(|(_, p)| p).or(commit.auto.as_ref().map(|(_, p)| p)).cloned().unwrap_or(
            Prop {
                file: "(librdkafka defaults)".into(),
                line: 0,
                name: "enable.auto.commit".into(),
                value: "true".into(),
                profile: None,
            },
        );
    ctx.apply(&prop, "strategy", Value::String(strategy.into()))?;
    if let (Some((_, a)), Some(_)) = (&commit.auto, &commit.store) {
        ctx.irrelevant(a, "true: with enable.auto.offset.store, sets the strategy (above)");
    }
    Ok(())
}
