//! The clients and how the application commits: which real client the model follows
//! ([`Client`], model.md §8.4) and the commit strategies ([`Strategy`], §3, §8.2–8.3, §8.14).
//! Besides Java and librdkafka 2.x (issue 29): sarama, franz-go, kafka-go, KafkaJS and
//! librdkafka before 1.9 — which strategies each offers and what each one runs as in the
//! engine. Each rule was read in the source of the version measured
//! (`tests/conformance/go/`, `tests/conformance/node/`); the rules that read a whole
//! scenario (records per call, what a commit carries, the client's refusals) are
//! [`crate::Scenario`]'s.

use crate::keys::named_enum;

named_enum! {
    /// How the application commits offsets (model.md §3, and the offset-store strategies of
    /// §8.2–8.3).
    Strategy {
        /// `enable.auto.commit=true`: at `poll()` entry, when `auto.commit.interval.ms` has
        /// expired, an asynchronous commit of the position (Java
        /// `ConsumerCoordinator.maybeAutoCommitOffsetsAsync`, committing
        /// `SubscriptionState.allConsumed()`). Never blocks the loop. Under the `librdkafka`
        /// and `java_consumer_protocol_pre_fix` clients it means [`Strategy::AutoCommitBackground`].
        AutoCommit = "auto_commit", "enable.auto.commit (auto-commit in poll)",
        /// `commitSync()` of the position after the last record of each batch.
        CommitSyncBatch = "commit_sync_batch", "commitSync() after each batch",
        /// `commitSync(offset + 1)` after every record.
        CommitSyncRecord = "commit_sync_record", "commitSync() after each record",
        /// `commitSync(offset + 1)` each time a counter of processed records (never reset by
        /// `poll()`) reaches `commit_every_records`.
        CommitSyncEveryN = "commit_sync_every_n", "commitSync() every N records",
        /// `commitAsync()` of the position after each batch; the loop does not wait.
        CommitAsyncBatch = "commit_async_batch", "commitAsync() after each batch",
        /// A transactional producer: `beginTransaction`, outputs, `sendOffsetsToTransaction`,
        /// `commitTransaction`: outputs and offsets land together, one blocking round trip.
        Transactional = "transactional", "transactions (sendOffsetsToTransaction)",
        /// model.md §8.2: a timer commits the position at every multiple of
        /// `auto.commit.interval.ms`, polling or not (librdkafka's default
        /// `enable.auto.offset.store=true`; Java `AsyncKafkaConsumer` before KAFKA-18641).
        AutoCommitBackground = "auto_commit_background", "auto-commit on a background timer",
        /// model.md §8.3: the same timer commits the offset the application stored after
        /// processing each record in order (librdkafka `enable.auto.offset.store=false` +
        /// `rd_kafka_offsets_store`).
        StoreOffsetsAfterProcessing = "store_offsets_after_processing", "store_offsets() after processing + auto-commit",
        /// model.md §12: once a whole poll's records are handled, `commitSync()` of the
        /// position if `commit_every_records` records were processed since the last commit
        /// (Spring Kafka `AckMode.COUNT`: `ackCount` is checked after the batch).
        CommitSyncCount = "commit_sync_count", "commitSync() after the batch once N records are done (Spring COUNT)",
        /// model.md §12: once a whole poll's records are handled, `commitSync()` of the
        /// position if `commit_every_ms` has passed since the last commit (Spring Kafka
        /// `AckMode.TIME`, `ackTime`).
        CommitSyncTime = "commit_sync_time", "commitSync() after the batch once T ms have passed (Spring TIME)",
        /// model.md §8.14 (client `sarama`): `MarkMessage(msg)` after processing; the
        /// `Consumer.Offsets.AutoCommit` ticker (every `auto.commit.interval.ms`) and
        /// `Close()` commit the highest mark.
        MarkMessage = "mark_message", "sarama MarkMessage after processing + AutoCommit",
        /// model.md §8.14 (client `franz_go`): `AutoCommitMarks()` + `MarkCommitRecords` after
        /// processing; the autocommit loop and `Close()` commit the marks.
        AutoCommitMarks = "auto_commit_marks", "franz-go AutoCommitMarks + MarkCommitRecords after processing",
        /// model.md §8.14 (client `franz_go`): `GreedyAutoCommit()`: the autocommit loop
        /// commits everything polled, the latest poll too.
        GreedyAutoCommit = "greedy_auto_commit", "franz-go GreedyAutoCommit (the latest poll too)",
        /// model.md §8.14 (client `kafka_go`): `ReadMessage` with `CommitInterval` 0 (the
        /// default) commits each message synchronously before returning it.
        ReadMessage = "read_message", "kafka-go ReadMessage (commits before it returns)",
        /// model.md §8.14 (client `kafka_go`): `FetchMessage`, process, `CommitMessages(msg)`.
        FetchMessageCommitMessages = "fetch_message_commit_messages", "kafka-go FetchMessage + CommitMessages after processing",
        /// model.md §8.14 (client `kafkajs`): `run({ eachMessage })` with `autoCommit`: each
        /// message is resolved when `eachMessage` returns, the resolved offsets are committed
        /// after every batch and by `disconnect()`.
        EachMessage = "each_message", "KafkaJS eachMessage with autoCommit (after each batch)",
        /// model.md §8.14 (client `kafkajs`): `run({ eachBatch })` with `eachBatchAutoResolve`
        /// (the default): `Runner.processEachBatch` resolves `batch.lastOffset()` only once
        /// `eachBatch` returns, and `handleBatch` commits it (`autoCommitOffsets`). Nothing of a
        /// batch cut short — a crash, `disconnect()` — is resolved, so nothing of it is committed.
        EachBatch = "each_batch", "KafkaJS eachBatch (the batch resolved when it returns)",
        /// model.md §8.14 (client `kafkajs`): `eachBatchAutoResolve: false`, the loop calls
        /// `resolveOffset(message.offset)` and `await heartbeat()` after each message: what
        /// `eachMessage` does (the resolved offsets committed after the batch, by
        /// `disconnect()`, and by a heartbeat that meets a rebalance, `Runner.heartbeat`).
        EachBatchResolveOffset = "each_batch_resolve_offset", "KafkaJS eachBatch with resolveOffset + heartbeat() after each message",
    }
}

impl Strategy {
    /// Whether the client (not the application) decides when to commit.
    pub fn is_auto(self) -> bool {
        matches!(
            self,
            Strategy::AutoCommit | Strategy::AutoCommitBackground | Strategy::StoreOffsetsAfterProcessing
        )
    }
}

named_enum! {
    /// Which real client's behaviour the model follows (model.md §8.4).
    Client {
        /// The Java `KafkaConsumer` with `group.protocol=classic` (the default): auto-commit
        /// runs inside `poll()` (`ConsumerCoordinator.maybeAutoCommitOffsetsAsync`).
        JavaClassic = "java_classic", "Java client, classic protocol",
        /// The Java `AsyncKafkaConsumer` (`group.protocol=consumer`, KIP-848) after
        /// KAFKA-18641 moved the auto-commit back to the application's `poll()`: as classic.
        JavaConsumerProtocol = "java_consumer_protocol", "Java client, consumer protocol (KIP-848, Kafka 4.0+)",
        /// The same consumer before KAFKA-18641 (kafka-clients 3.9): its background thread's
        /// timer commits the position whether or not the application polls.
        JavaConsumerProtocolPreFix = "java_consumer_protocol_pre_fix", "Java client, consumer protocol before the fix (3.9)",
        /// librdkafka (and the Python, Go, .NET clients on it): `enable.auto.commit` is a
        /// background timer committing the stored offsets (`auto_commit` acts as §8.2).
        Librdkafka = "librdkafka", "librdkafka (Python, Go, .NET clients)",
        /// sarama v1.61.1 (`github.com/IBM/sarama`, model.md §8.14): one message at a time,
        /// marks committed by a background ticker and at `Close()`.
        Sarama = "sarama", "sarama (Go) v1.61.1",
        /// franz-go v1.22.3 (`github.com/twmb/franz-go`, model.md §8.14): autocommit of what
        /// the previous polls returned.
        FranzGo = "franz_go", "franz-go (Go) v1.22.3",
        /// kafka-go v0.4.51 (`github.com/segmentio/kafka-go`, model.md §8.14): one message at a
        /// time, `ReadMessage` or `FetchMessage` + `CommitMessages`.
        KafkaGo = "kafka_go", "kafka-go (Go) v0.4.51",
        /// KafkaJS 2.2.4 (npm `kafkajs`, model.md §8.14): `eachMessage`, commits after each batch.
        Kafkajs = "kafkajs", "KafkaJS (Node) 2.2.4",
        /// librdkafka before 1.9.0 (model.md §8.14): as `librdkafka`, but a stored offset
        /// survives a reassignment (fixed by librdkafka PR #3774).
        LibrdkafkaBefore1_9 = "librdkafka_before_1_9", "librdkafka before 1.9 (stale offset store)",
        /// kafka-clients 4.2.0 with `group.protocol=consumer`: as `java_consumer_protocol` but
        /// without the fix of KAFKA-20332 (apache/kafka#21897, first in 4.2.1 and 4.3.0): without
        /// auto-commit its background thread reconciles a revocation as soon as a heartbeat
        /// brings it, and a `poll()` does not wait for its own reconciliation check before it
        /// returns buffered records (model.md §10.6).
        JavaConsumerProtocol4_2_0 = "java_consumer_protocol_4_2_0", "Java client, consumer protocol, 4.2.0",
        /// librdkafka 2.x with `group.protocol=consumer` (KIP-848; read in 2.15.0, the suite
        /// runs 2.16): as `librdkafka` for commits and the offset store; a target is reconciled
        /// as a cooperative incremental rebalance, one at a time (model.md §10.6).
        LibrdkafkaConsumerProtocol = "librdkafka_consumer_protocol", "librdkafka, consumer protocol (KIP-848)",
    }
}

impl Client {
    /// One line on which real client and version behaves so.
    pub fn note(self) -> &'static str {
        match self {
            Client::JavaClassic => "Java KafkaConsumer, group.protocol=classic (the default in Kafka 4.x): auto-commit only inside poll()",
            Client::JavaConsumerProtocol => "Java AsyncKafkaConsumer, group.protocol=consumer, with KAFKA-18641: auto-commit back inside poll()",
            Client::JavaConsumerProtocolPreFix => "Java AsyncKafkaConsumer, group.protocol=consumer, before KAFKA-18641: background timer commits the position",
            Client::JavaConsumerProtocol4_2_0 => "Java AsyncKafkaConsumer 4.2.0 (before KAFKA-20332's fix): a poll may return records of a partition being revoked",
            Client::Librdkafka => "librdkafka 2.x (confluent-kafka-python, -go, -dotnet): background timer commits offsets stored at hand-out",
            Client::LibrdkafkaConsumerProtocol => "librdkafka 2.x, group.protocol=consumer: as librdkafka, and a revocation commits the removed partitions' stored offsets",
            _ => note(self),
        }
    }

    /// The strategy the loop really runs: `auto_commit` is a background timer under the
    /// clients that have one (model.md §8.4).
    pub fn effective(self, strategy: Strategy) -> Strategy {
        match (self, strategy) {
            (
                Client::JavaConsumerProtocolPreFix | Client::Librdkafka | Client::LibrdkafkaConsumerProtocol,
                Strategy::AutoCommit,
            ) => Strategy::AutoCommitBackground,
            _ => effective(self, strategy),
        }
    }

    /// The strategy in this client's users' words: a library's `auto_commit` is its own
    /// default (sarama `mark_message`, kafka-go `read_message`, KafkaJS `each_message`; franz-go's
    /// autocommit is `auto_commit`); anything else is itself (model.md §8.14).
    pub fn named(self, strategy: Strategy) -> Strategy {
        match (self, strategy) {
            (Client::Sarama, Strategy::AutoCommit) => Strategy::MarkMessage,
            (Client::KafkaGo, Strategy::AutoCommit) => Strategy::ReadMessage,
            (Client::Kafkajs, Strategy::AutoCommit) => Strategy::EachMessage,
            _ => strategy,
        }
    }

    /// Whether this is one of the Java clients (which have no offset store).
    pub fn is_java(self) -> bool {
        matches!(
            self,
            Client::JavaClassic
                | Client::JavaConsumerProtocol
                | Client::JavaConsumerProtocolPreFix
                | Client::JavaConsumerProtocol4_2_0
        )
    }

    /// Whether this is kafka-clients 4.x on the consumer protocol (`java_consumer_protocol`, or
    /// 4.2.0 before KAFKA-20332's fix): auto-commit inside `poll()`, a reconciliation's steps
    /// run on the application thread, one per `poll()` (model.md §10.6).
    pub fn is_kip848_4x(self) -> bool {
        matches!(self, Client::JavaConsumerProtocol | Client::JavaConsumerProtocol4_2_0)
    }

    /// Whether this is librdkafka, before or after 1.9 (model.md §8.2, §8.14).
    pub fn is_librdkafka(self) -> bool {
        matches!(self, Client::Librdkafka | Client::LibrdkafkaBefore1_9 | Client::LibrdkafkaConsumerProtocol)
    }

    /// Whether the client leaves the group when the application stops polling for
    /// `max.poll.interval.ms` (model.md §8.7): the Java clients and librdkafka. sarama,
    /// franz-go, kafka-go and KafkaJS have no such timer (their heartbeats go on while a
    /// message is handled; §8.14).
    pub fn has_max_poll_interval(self) -> bool {
        self.is_java() || self.is_librdkafka()
    }
}

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
        Client::Kafkajs => Some(&[
            Strategy::AutoCommit,
            Strategy::EachMessage,
            Strategy::EachBatch,
            Strategy::EachBatchResolveOffset,
        ]),
        _ => None,
    }
}

/// The strategies only some library offers.
pub(crate) const LIBRARY_STRATEGIES: &[Strategy] = &[
    Strategy::MarkMessage,
    Strategy::AutoCommitMarks,
    Strategy::GreedyAutoCommit,
    Strategy::ReadMessage,
    Strategy::FetchMessageCommitMessages,
    Strategy::EachMessage,
    Strategy::EachBatch,
    Strategy::EachBatchResolveOffset,
];

/// One line on which real client and version behaves so.
fn note(client: Client) -> &'static str {
    match client {
        Client::Sarama => "sarama v1.61.1: MarkMessage marks offset + 1, the highest mark wins; the AutoCommit ticker (1 s by default) and Close() commit the marks",
        Client::FranzGo => "franz-go v1.22.3: autocommit every 5 s of what the previous polls returned; Close() commits the same",
        Client::KafkaGo => "kafka-go v0.4.51: ReadMessage commits each message before returning it (CommitInterval 0)",
        Client::Kafkajs => "KafkaJS 2.2.4: eachMessage resolves each message, eachBatch its batch when it returns (or each resolveOffset); what was resolved is committed after each batch and by disconnect()",
        Client::LibrdkafkaBefore1_9 => "librdkafka before 1.9.0: as 2.x, but a stored offset survives a reassignment (fixed by PR #3774)",
        _ => "",
    }
}

/// The engine's strategy for a library strategy (model.md §8.14): a mark after processing is
/// an offset store after processing (§8.3), a greedy autocommit or franz-go's autocommit is a
/// background timer (§8.2; franz-go's commits the previous polls, `engine/member.rs`
/// `client_commit_offsets`), `FetchMessage` + `CommitMessages` is a commit per record, and
/// `eachMessage` and `eachBatch` commit after each batch what they resolved (`eachBatch` with
/// auto-resolve the whole batch; what a close commits: `Scenario::commits_resolved`).
fn effective(client: Client, strategy: Strategy) -> Strategy {
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
        (_, Strategy::EachMessage | Strategy::EachBatch | Strategy::EachBatchResolveOffset) => {
            Strategy::CommitSyncBatch
        }
        _ => strategy,
    }
}
