//! Spring Boot's `spring.kafka.*` (Spring Boot 3.x `KafkaProperties`) and Spring Kafka's
//! listener container (3.x `ContainerProperties`): relaxed binding (`ack-mode`, `ackMode`,
//! `ACK_MODE` are one property), Spring's own defaults where a property is absent (the
//! container turns auto-commit off unless it is set, and commits with `AckMode.BATCH`),
//! profiles and `${…}` placeholders reported as not evaluated.

use crate::kafka::{self, Commit};
use crate::parse::Prop;
use crate::{Ctx, Dialect, ImportError};
use serde_json::Value;
use std::collections::BTreeSet;

const SPRING: &str = "Spring Kafka 3.x (ContainerProperties)";
const BOOT: &str = "Spring Boot 3.x (KafkaProperties)";

/// A name in Spring Boot's canonical form for comparison: lower case, without `-` and `_`
/// (relaxed binding: `ack-mode`, `ackMode`, `ACK_MODE` and `ack_mode` are one property).
pub fn relaxed(name: &str) -> String {
    name.chars().filter(|c| *c != '-' && *c != '_').flat_map(char::to_lowercase).collect()
}

/// A property whose value holds `${…}`: the placeholder's name and default, if any.
fn placeholder(value: &str) -> Option<(String, Option<String>)> {
    let start = value.find("${")?;
    let inner = &value[start + 2..value[start..].find('}').map_or(value.len(), |e| start + e)];
    Some(match inner.split_once(':') {
        Some((name, default)) => (name.to_string(), Some(default.to_string())),
        None => (inner.to_string(), None),
    })
}

/// A Spring Boot `Duration` (`1s`, `500ms`, `PT1S`, a bare number of ms) in ms as decimal
/// text, or `None` when it is none of those.
pub fn duration_ms(text: &str) -> Option<String> {
    let t = text.trim();
    let upper = t.to_ascii_uppercase();
    if let Some(iso) = upper.strip_prefix("PT") {
        let (num, unit) = iso.split_at(iso.find(|c: char| c.is_ascii_alphabetic())?);
        let factor = match unit {
            "S" => 1_000.0,
            "M" => 60_000.0,
            "H" => 3_600_000.0,
            _ => return None,
        };
        return num.parse::<f64>().ok().map(|n| trim_ms(n * factor));
    }
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let factor = match unit.to_ascii_lowercase().as_str() {
        "" | "ms" => 1.0,
        "us" => 0.001,
        "s" => 1_000.0,
        "m" => 60_000.0,
        "h" => 3_600_000.0,
        "d" => 86_400_000.0,
        _ => return None,
    };
    if unit.is_empty() || factor == 1.0 {
        return num.trim().parse::<f64>().ok().map(|_| num.trim().to_string());
    }
    num.trim().parse::<f64>().ok().map(|n| trim_ms(n * factor))
}

fn trim_ms(ms: f64) -> String {
    let text = format!("{ms:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Spring Boot's `spring.kafka.consumer.*` names (relaxed) and the Kafka property each
/// becomes (`KafkaProperties.Consumer.buildProperties`); `true` when the value is a Duration.
fn consumer_property(name: &str) -> Option<(&'static str, bool)> {
    Some(match name {
        "autocommitinterval" => ("auto.commit.interval.ms", true),
        "autooffsetreset" => ("auto.offset.reset", false),
        "bootstrapservers" => ("bootstrap.servers", false),
        "clientid" => ("client.id", false),
        "enableautocommit" => ("enable.auto.commit", false),
        "fetchmaxwait" => ("fetch.max.wait.ms", true),
        "fetchminsize" => ("fetch.min.bytes", false),
        "groupid" => ("group.id", false),
        "heartbeatinterval" => ("heartbeat.interval.ms", true),
        "isolationlevel" => ("isolation.level", false),
        "keydeserializer" => ("key.deserializer", false),
        "valuedeserializer" => ("value.deserializer", false),
        "maxpollrecords" => ("max.poll.records", false),
        "maxpollinterval" => ("max.poll.interval.ms", true),
        "securityprotocol" => ("security.protocol", false),
        _ => return None,
    })
}

/// The listener container's commit settings read.
#[derive(Default)]
struct Listener {
    ack_mode: Option<(String, Prop)>,
    ack_count: Option<Prop>,
    ack_time: Option<Prop>,
    batch: Option<Prop>,
    transactions: Option<Prop>,
}

/// Reads a Spring Boot configuration.
pub(crate) fn read(ctx: &mut Ctx, props: &[Prop], overridden: &BTreeSet<&str>) -> Result<(), ImportError> {
    let mut commit = Commit::default();
    let mut listener = Listener::default();
    for original in props {
        let mut prop = original.clone();
        if let Some(profile) = &prop.profile {
            ctx.not_evaluated(
                &prop,
                format!("in a YAML document for the Spring profile “{profile}”, which the import does not activate"),
                "the value outside that profile, or the default",
            );
            continue;
        }
        let name = relaxed(&prop.name);
        if let Some((var, default)) = placeholder(&prop.value) {
            match default {
                Some(d) => {
                    ctx.not_evaluated(
                        &prop,
                        format!("placeholder ${{{var}}} is not resolved"),
                        format!("its default “{d}”"),
                    );
                    prop.value = d;
                }
                None => {
                    ctx.not_evaluated(
                        &prop,
                        format!("placeholder ${{{var}}} is not resolved and has no default"),
                        "the framework's default, as if the property were absent",
                    );
                    continue;
                }
            }
        }
        if let Some(rest) = name.strip_prefix("spring.kafka.consumer.properties.") {
            // Kafka's own property names, kept as written.
            let kafka_name = original.name.rsplit_once("properties.").map_or(rest, |(_, n)| n).to_string();
            kafka::property(ctx, Dialect::Java, &prop.renamed(&kafka_name), &mut commit)?;
        } else if let Some(rest) = name.strip_prefix("spring.kafka.properties.") {
            let kafka_name = original.name.rsplit_once("properties.").map_or(rest, |(_, n)| n).to_string();
            kafka::property(ctx, Dialect::Java, &prop.renamed(&kafka_name), &mut commit)?;
        } else if let Some(rest) = name.strip_prefix("spring.kafka.consumer.") {
            match consumer_property(rest) {
                Some((kafka_name, is_duration)) => {
                    let mut p = prop.clone();
                    if is_duration {
                        p.value = duration_ms(&prop.value).ok_or_else(|| ImportError {
                            file: prop.file.clone(),
                            line: prop.line,
                            property: Some(prop.name.clone()),
                            message: format!(
                                "must be a duration such as 1000, 1000ms, 1s or PT1S (got “{}”)",
                                prop.value
                            ),
                        })?;
                    }
                    // Applied under the Kafka name Spring Boot gives it; the account keeps
                    // Spring's name as written.
                    let before = ctx.account.len();
                    // A refusal names the property as the file writes it, too.
                    kafka::property(ctx, Dialect::Java, &p.renamed(kafka_name), &mut commit).map_err(
                        |mut e| {
                            if e.property.as_deref() == Some(kafka_name) {
                                e.property = Some(format!("{} ({kafka_name})", prop.name));
                            }
                            e
                        },
                    )?;
                    for e in &mut ctx.account[before..] {
                        e.property = format!("{} ({kafka_name})", prop.name);
                        e.value = prop.value.clone();
                    }
                }
                None if rest.starts_with("ssl.") || rest.starts_with("security.") => {
                    ctx.irrelevant(&prop, "how the client connects and authenticates")
                }
                None => {
                    ctx.not_modelled(&prop, "not a Spring Boot consumer property the import knows: not used")
                }
            }
        } else if let Some(rest) = name.strip_prefix("spring.kafka.listener.") {
            listener_property(ctx, &prop, rest, &mut listener);
        } else if name.starts_with("spring.kafka.retry.topic.") {
            ctx.not_modelled(
                &prop,
                "Spring's non-blocking retries (retry topics): a failed record is committed and re-sent to a retry \
                 topic, which the model does not run; its result is for the main topic's commits only",
            );
        } else if name == "spring.kafka.producer.transactionidprefix" {
            listener.transactions = Some(prop.clone());
        } else if name.starts_with("spring.kafka.producer.") {
            ctx.irrelevant(&prop, "the producer's settings: irrelevant to the consumer's commits");
        } else if name.starts_with("spring.kafka.") {
            ctx.irrelevant(&prop, "not the consumer's or its container's");
        } else if name == "spring.profiles.active" || name == "spring.profiles.include" {
            ctx.not_evaluated(&prop, "profiles are not activated by the import", "no profile");
        } else if name == "spring.config.activate.onprofile" || name == "spring.profiles" {
            ctx.not_evaluated(&prop, "a profile's document is not evaluated", "no profile");
        } else {
            ctx.irrelevant(&prop, "not Kafka");
        }
    }
    let whose = format!("{BOOT}, the Kafka client's own");
    kafka::java_defaults(ctx, &whose);
    ctx.notes.push(
        "the container's error handler is a bean, not a property: the import assumes Spring Kafka's default, \
         DefaultErrorHandler (10 deliveries, then logged and skipped; on_error seek_to_failed); it matters only \
         with records that fail (--set record_failures=[…])"
            .to_string(),
    );
    ctx.default(
        "error handler",
        Some("on_error"),
        "seek_to_failed",
        &format!("{SPRING}: DefaultErrorHandler"),
    );
    strategy(ctx, &commit, &listener, overridden)
}

impl Prop {
    fn renamed(&self, name: &str) -> Prop {
        Prop { name: name.to_string(), ..self.clone() }
    }
}

fn listener_property(ctx: &mut Ctx, prop: &Prop, rest: &str, l: &mut Listener) {
    match rest {
        "ackmode" => l.ack_mode = Some((prop.value.trim().to_ascii_uppercase().replace('-', "_"), prop.clone())),
        "ackcount" => l.ack_count = Some(prop.clone()),
        "acktime" => l.ack_time = Some(prop.clone()),
        "type" => l.batch = Some(prop.clone()),
        "concurrency" => {
            if let Err(e) = ctx.apply_text(prop, "members", &prop.value) {
                ctx.notes.push(e.to_string());
            } else {
                ctx.notes.push(format!(
                    "concurrency {}: {} consumers of one application instance, taken as the group's members; with \
                     several instances pass --set members=N",
                    prop.value, prop.value
                ));
            }
        }
        "asyncacks" => ctx.not_modelled(prop, "out-of-order manual acknowledgements (asyncAcks): the model acknowledges in order"),
        "immediatestop" => ctx.not_modelled(prop, "whether stop() processes the rest of the batch: the model's closes come from close_at_ms or group events"),
        "polltimeout" | "idlebetweenpolls" => {
            ctx.not_modelled(prop, "how long the container waits in or between polls: the model's polls return at once while the backlog lasts")
        }
        _ => ctx.irrelevant(prop, "a container setting that does not change when offsets are committed"),
    }
}

/// The strategy of Spring Kafka's container: with `enable.auto.commit` the Kafka client
/// commits and the container does not; else the `AckMode` (BATCH by default).
fn strategy(
    ctx: &mut Ctx,
    commit: &Commit,
    l: &Listener,
    overridden: &BTreeSet<&str>,
) -> Result<(), ImportError> {
    let refuse = |p: &Prop, message: String| ImportError {
        file: p.file.clone(),
        line: p.line,
        property: Some(p.name.clone()),
        message,
    };
    if let Some(p) = &l.batch {
        match p.value.trim().to_ascii_lowercase().as_str() {
            "batch" => ctx.irrelevant(p, "a batch listener: the container commits at the same points as for a record listener in BATCH or MANUAL"),
            "single" => ctx.irrelevant(p, "a record listener (the default)"),
            _ => return Err(refuse(p, format!("must be “single” or “batch” (got “{}”)", p.value))),
        }
    }
    if overridden.contains("strategy") {
        for p in [&l.ack_count, &l.ack_time].into_iter().flatten() {
            ctx.irrelevant(p, "the strategy is set by --set");
        }
        if let Some((_, p)) = &l.ack_mode {
            ctx.irrelevant(p, "the strategy is set by --set");
        }
        if let Some((_, p)) = &commit.auto {
            ctx.irrelevant(p, "the strategy is set by --set");
        }
        return Ok(());
    }
    if let Some((true, auto)) = &commit.auto {
        if let Some((mode, p)) = &l.ack_mode {
            return Err(refuse(
                p,
                format!(
                    "{mode} with enable.auto.commit=true ({}:{}): the Kafka client auto-commits and the container \
                     commits too, both ways at once; the model has no strategy for that combination",
                    auto.file, auto.line
                ),
            ));
        }
        return ctx.apply(auto, "strategy", Value::String("auto_commit".into()));
    }
    if let Some((false, p)) = &commit.auto {
        ctx.irrelevant(
            p,
            "false: the container commits (the AckMode), as it does when the property is absent",
        );
    } else {
        ctx.default(
            "enable.auto.commit",
            None,
            "false",
            &format!("{SPRING}: the container sets it false unless it is set"),
        );
    }
    if let Some(p) = &l.transactions {
        let batch = l.ack_mode.as_ref().is_none_or(|(m, _)| m == "BATCH");
        if !batch {
            let (mode, q) = l.ack_mode.as_ref().expect("not batch only with an ack mode");
            return Err(refuse(
                q,
                format!(
                    "{mode} with transactions ({} at {}:{}): the model's transactional strategy commits a poll's \
                     batch per transaction; it has none for this",
                    p.name, p.file, p.line
                ),
            ));
        }
        if let Some((_, q)) = &l.ack_mode {
            ctx.irrelevant(
                q,
                "with a transaction manager the container sends the offsets to the transaction",
            );
        }
        return ctx.apply(p, "strategy", Value::String("transactional".into()));
    }
    let (mode, prop) = match &l.ack_mode {
        Some((mode, p)) => (mode.clone(), Some(p)),
        None => {
            ctx.default("spring.kafka.listener.ack-mode", None, "BATCH", SPRING);
            ("BATCH".to_string(), None)
        }
    };
    let strategy = match mode.as_str() {
        "BATCH" => "commit_sync_batch",
        "RECORD" => "commit_sync_record",
        "COUNT" => "commit_sync_count",
        "TIME" => "commit_sync_time",
        "MANUAL" => {
            ctx.notes.push(
                "AckMode MANUAL: taken as BATCH, each record acknowledged (acknowledgements are queued and \
                 committed once the poll's records are handled)"
                    .to_string(),
            );
            "commit_sync_batch"
        }
        "MANUAL_IMMEDIATE" => {
            ctx.notes.push(
                "AckMode MANUAL_IMMEDIATE: taken as RECORD, each record acknowledged (acknowledge() commits at once)"
                    .to_string(),
            );
            "commit_sync_record"
        }
        other => {
            let p = prop.expect("an unknown mode comes from a file");
            return Err(refuse(
                p,
                if other == "COUNT_TIME" {
                    "COUNT_TIME (commit when either the count or the time is reached): the model has COUNT and TIME, \
                     not both at once; it has no strategy for this"
                        .to_string()
                } else {
                    format!(
                        "must be one of RECORD, BATCH, TIME, COUNT, COUNT_TIME, MANUAL, MANUAL_IMMEDIATE (got “{}”)",
                        p.value
                    )
                },
            ));
        }
    };
    let value = Value::String(strategy.into());
    match prop {
        Some(p) => ctx.apply(p, "strategy", value)?,
        None => ctx.default("AckMode", Some("strategy"), strategy, &format!("{SPRING}: AckMode.BATCH")),
    }
    let count_used = mode == "COUNT";
    let time_used = mode == "TIME";
    match &l.ack_count {
        Some(p) if count_used => ctx.apply_text(p, "commit_every_records", &p.value)?,
        Some(p) => ctx.irrelevant(p, format!("used with AckMode COUNT; this container's is {mode}")),
        None if count_used => {
            ctx.default("spring.kafka.listener.ack-count", Some("commit_every_records"), "1", SPRING)
        }
        None => {}
    }
    match &l.ack_time {
        Some(p) if time_used => {
            let ms = duration_ms(&p.value).ok_or_else(|| {
                refuse(p, format!("must be a duration such as 5000, 5000ms, 5s or PT5S (got “{}”)", p.value))
            })?;
            ctx.apply_text(p, "commit_every_ms", &ms)?
        }
        Some(p) => ctx.irrelevant(p, format!("used with AckMode TIME; this container's is {mode}")),
        None if time_used => {
            ctx.default("spring.kafka.listener.ack-time", Some("commit_every_ms"), "5000", SPRING)
        }
        None => {}
    }
    Ok(())
}
