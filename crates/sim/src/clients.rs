//! The clients besides Java and librdkafka 2.x (model.md §8.14, issue 29): sarama, franz-go,
//! kafka-go, KafkaJS and librdkafka before 1.9 — which strategies each offers, what each one
//! runs as in the engine, how many records one call hands out. Each rule was read in the
//! source of the version measured (`tests/conformance/go/`, `tests/conformance/node/`).

use crate::scenario::{Client, Scenario, ScenarioError, Strategy};

/// The strategies a client offers, in its users' words; `None`: the Java and librdkafka
/// clients, which offer every strategy but the library-specific ones below. Every library
/// offers `auto_commit`, its own default way of committing by itself: sarama's AutoCommit of
/// `MarkMessage` marks, franz-go's autocommit, kafka-go's `ReadMessage` (`CommitInterval` 0),
/// KafkaJS's `eachMessage` with `autoCommit`.
pub(crate) fn strategies(client: Client) -> Option<&'static [Strategy]> {
    match client {
        // MarkMessage + AutoCommit; MarkMessage + session.Commit() after each message.
        Client::Sarama => Some(&[Strategy::AutoCommit, Strategy::MarkMessage, Strategy::CommitSyncRecord]),
        // Autocommit (default), GreedyAutoCommit, AutoCommitMarks; DisableAutoCommit +
        // CommitUncommittedOffsets after each poll, or CommitRecords after each record.
        Client::FranzGo => Some(&[
            Strategy::AutoCommit,
            Strategy::GreedyAutoCommit,
            Strategy::AutoCommitMarks,
            Strategy::CommitSyncBatch,
            Strategy::CommitSyncRecord,
        ]),
        Client::KafkaGo => {
            Some(&[Strategy::AutoCommit, Strategy::ReadMessage, Strategy::FetchMessageCommitMessages])
        }
        Client::Kafkajs => Some(&[Strategy::AutoCommit, Strategy::EachMessage]),
        _ => None,
    }
}

/// The strategies only some library offers.
const LIBRARY_STRATEGIES: &[Strategy] = &[
    Strategy::MarkMessage,
    Strategy::AutoCommitMarks,
    Strategy::GreedyAutoCommit,
    Strategy::ReadMessage,
    Strategy::FetchMessageCommitMessages,
    Strategy::EachMessage,
];

/// One line on which real client and version behaves so.
pub(crate) fn note(client: Client) -> &'static str {
    match client {
        Client::Sarama => "sarama v1.61.1: MarkMessage marks offset + 1, the highest mark wins; the AutoCommit ticker (1 s by default) and Close() commit the marks",
        Client::FranzGo => "franz-go v1.22.3: autocommit every 5 s of what the previous polls returned; Close() commits the same",
        Client::KafkaGo => "kafka-go v0.4.51: ReadMessage commits each message before returning it (CommitInterval 0)",
        Client::Kafkajs => "KafkaJS 2.2.4: eachMessage resolves each message; the resolved offsets are committed after each batch and by disconnect()",
        Client::LibrdkafkaBefore1_9 => "librdkafka before 1.9.0: as 2.x, but a stored offset survives a reassignment (fixed by PR #3774)",
        _ => "",
    }
}

/// The engine's strategy for a library strategy (model.md §8.14): a mark after processing is
/// an offset store after processing (§8.3), a greedy autocommit or franz-go's autocommit is a
/// background timer (§8.2; franz-go's commits the previous polls, `engine/member.rs`
/// `client_commit_offsets`), `FetchMessage` + `CommitMessages` is a commit per record, and
/// `eachMessage` commits after each batch what it resolved.
pub(crate) fn effective(client: Client, strategy: Strategy) -> Strategy {
    match (client, strategy) {
        (Client::LibrdkafkaBefore1_9 | Client::FranzGo, Strategy::AutoCommit) => {
            Strategy::AutoCommitBackground
        }
        (Client::Sarama, Strategy::AutoCommit) | (_, Strategy::MarkMessage | Strategy::AutoCommitMarks) => {
            Strategy::StoreOffsetsAfterProcessing
        }
        (Client::KafkaGo, Strategy::AutoCommit) => Strategy::ReadMessage,
        (Client::Kafkajs, Strategy::AutoCommit) => Strategy::CommitSyncBatch,
        (_, Strategy::GreedyAutoCommit) => Strategy::AutoCommitBackground,
        (_, Strategy::FetchMessageCommitMessages) => Strategy::CommitSyncRecord,
        (_, Strategy::EachMessage) => Strategy::CommitSyncBatch,
        _ => strategy,
    }
}

/// Records one call hands the application (model.md §8.14): sarama's claim channel and
/// kafka-go's `ReadMessage` / `FetchMessage` give one message; a KafkaJS batch is what one
/// fetch brought of the partition (`maxBytesPerPartition`, 1 MiB like
/// `max.partition.fetch.bytes`); franz-go's `PollRecords(ctx, max.poll.records)` and the
/// others, `max.poll.records`.
pub(crate) fn records_per_poll(s: &Scenario) -> u64 {
    match s.client {
        Client::Sarama | Client::KafkaGo => 1,
        Client::Kafkajs => s.fetch_chunk_records(),
        _ => s.max_poll_records as u64,
    }
}

/// franz-go's default autocommit commits the head: what the polls *before* the latest one
/// returned (`undirtyUncommitted` at the start of `PollRecords`; model.md §8.14).
pub(crate) fn commits_previous_polls(s: &Scenario) -> bool {
    s.client == Client::FranzGo && s.strategy == Strategy::AutoCommit
}

/// KafkaJS commits what it resolved — the messages whose `eachMessage` returned — after each
/// batch and at `disconnect()` (model.md §8.14).
pub(crate) fn commits_resolved(s: &Scenario) -> bool {
    s.client == Client::Kafkajs
}

/// The rules of model.md §8.14 that involve the client: each library's strategies, and what
/// the model has of it so far (one consumer, its own loop).
pub(crate) fn validate(s: &Scenario) -> Result<(), ScenarioError> {
    let refuse = |key: &str, message: String| Err(ScenarioError::at(key, message));
    match strategies(s.client) {
        Some(allowed) if !allowed.contains(&s.strategy) => {
            let names: Vec<_> = allowed.iter().map(|k| format!("\"{}\"", k.name())).collect();
            return refuse(
                "strategy",
                format!(
                    "client \"{}\" offers {} (got \"{}\")",
                    s.client.name(),
                    names.join(", "),
                    s.strategy.name()
                ),
            );
        }
        None if LIBRARY_STRATEGIES.contains(&s.strategy) => {
            let owner = [Client::Sarama, Client::FranzGo, Client::KafkaGo, Client::Kafkajs]
                .into_iter()
                .find(|&c| strategies(c).is_some_and(|a| a.contains(&s.strategy)))
                .map_or("", |c| c.name());
            return refuse("strategy", format!("\"{}\" needs client \"{owner}\"", s.strategy.name()));
        }
        _ => {}
    }
    if s.client == Client::LibrdkafkaBefore1_9 && (s.group_mode() || s.share_group()) {
        return refuse(
            "client",
            "\"librdkafka_before_1_9\" is modelled for one consumer so far (docs/model.md §8.14): use \"librdkafka\" in a group".to_string(),
        );
    }
    if strategies(s.client).is_some() {
        let why = format!(
            "the model runs client \"{}\" as one consumer with its own loop (docs/model.md §8.14)",
            s.client.name()
        );
        if s.worker_pool {
            return refuse("worker_pool", format!("must be false: {why}"));
        }
        if s.script.is_some() {
            return refuse("script", format!("must be null: {why}"));
        }
        if s.group_mode() || s.share_group() {
            let key = match () {
                _ if s.share_group() => "consumption",
                _ if s.members > 1 => "members",
                _ if s.partitions > 1 => "partitions",
                _ => "group_events",
            };
            return refuse(key, format!("must describe one consumer on one partition: {why}"));
        }
    }
    Ok(())
}
