//! Import of the sample files (`samples/`, written from each library's documentation): the
//! properties that must be applied and the key each sets, the defaults applied for what a file
//! leaves out, and one error naming file, line and property for a bad value.

use offset_window_import::{import, Dialect, Import, ImportError, Options, Source, Status};
use serde_json::{json, Value};

fn sample(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/samples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn read_with(names: &[&str], options: &Options) -> Result<Import, ImportError> {
    let texts: Vec<(String, String)> = names.iter().map(|n| (n.to_string(), sample(n))).collect();
    let sources: Vec<Source> = texts.iter().map(|(name, text)| Source { name, text }).collect();
    import(&sources, options)
}

fn read(names: &[&str]) -> Import {
    read_with(names, &Options::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The key `property` (as written in its file) was applied to, and its value.
fn applied(i: &Import, property: &str) -> (String, Value) {
    let e = i
        .account
        .iter()
        .find(|e| e.property == property)
        .unwrap_or_else(|| panic!("{property} not in {:#?}", i.account));
    match &e.status {
        Status::Applied { key, value } => (key.clone(), value.clone()),
        other => panic!("{property}: {other:?}"),
    }
}

fn key(i: &Import, key: &str) -> Value {
    i.parsed.get(key).unwrap()
}

fn defaulted(i: &Import, property: &str) -> bool {
    i.defaults.iter().any(|d| d.property == property)
}

#[test]
fn java_auto_commit_applies_its_three_settings() {
    let i = read(&["java-auto-commit.properties"]);
    assert_eq!(i.client, Dialect::Java);
    assert_eq!(applied(&i, "enable.auto.commit"), ("strategy".into(), json!("auto_commit")));
    assert_eq!(applied(&i, "auto.commit.interval.ms"), ("auto.commit.interval.ms".into(), json!(1000)));
    assert_eq!(applied(&i, "max.poll.records"), ("max.poll.records".into(), json!(500)));
    assert_eq!(applied(&i, "partition.assignment.strategy").1, json!("cooperative-sticky"));
    assert_eq!(applied(&i, "auto.offset.reset").1, json!("earliest"));
    assert_eq!(key(&i, "strategy"), json!("auto_commit"));
    // Every property of the file is in the account, each line once.
    assert_eq!(i.account.len(), 15, "{:#?}", i.account);
    let status = |p: &str| &i.account.iter().find(|e| e.property == p).unwrap().status;
    assert!(matches!(status("bootstrap.servers"), Status::Irrelevant { .. }));
    assert!(matches!(status("sasl.mechanism"), Status::Irrelevant { .. }));
    assert!(matches!(status("isolation.level"), Status::NotModelled { .. }));
    assert!(matches!(status("fetch.min.bytes"), Status::NotModelled { .. }));
    assert_eq!(i.account.iter().find(|e| e.property == "max.poll.records").unwrap().line, 12);
}

#[test]
fn java_defaults_are_the_clients_not_the_simulators() {
    let i = read(&["java-defaults.properties"]);
    assert_eq!(key(&i, "max.poll.records"), json!(500));
    assert_eq!(key(&i, "strategy"), json!("auto_commit"));
    assert_eq!(key(&i, "auto.commit.interval.ms"), json!(5000));
    for p in ["max.poll.records", "enable.auto.commit", "auto.commit.interval.ms", "session.timeout.ms"] {
        assert!(defaulted(&i, p), "{p} in {:#?}", i.defaults);
    }
    // A horizon long enough for 500 records of 200 ms (100 s a batch).
    assert_eq!(key(&i, "horizon_ms"), json!(300000));
}

#[test]
fn java_manual_commit_is_not_guessed() {
    let e = read_with(&["java-manual-commit.properties"], &Options::default()).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line, e.property.as_deref()),
        ("java-manual-commit.properties", 5, Some("enable.auto.commit"))
    );
    assert!(e.message.contains("--set strategy="), "{e}");
    let options =
        Options { set: vec![("strategy".into(), "commit_sync_batch".into())], ..Options::default() };
    let i = read_with(&["java-manual-commit.properties"], &options).unwrap();
    assert_eq!((key(&i, "strategy"), key(&i, "max.poll.records")), (json!("commit_sync_batch"), json!(100)));
}

/// A Spring Boot file's bad value names the property as the file writes it (and the Kafka
/// property it sets).
#[test]
fn a_bad_spring_value_names_the_property_as_written() {
    let text = "spring:\n  kafka:\n    consumer:\n      max-poll-records: lots\n";
    let e = import(&[Source { name: "application.yml", text }], &Options::default()).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line, e.property.as_deref()),
        ("application.yml", 4, Some("spring.kafka.consumer.max-poll-records (max.poll.records)"))
    );
    assert_eq!(e.to_string().lines().count(), 1, "one error: {e}");
}

#[test]
fn a_bad_value_names_file_line_and_property() {
    let e = read_with(&["java-bad-value.properties"], &Options::default()).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line, e.property.as_deref()),
        ("java-bad-value.properties", 4, Some("max.poll.records"))
    );
    assert!(e.message.contains("a whole number from 1 to 100000"), "{e}");
    assert_eq!(e.to_string().lines().count(), 1, "one error: {e}");
    assert!(e.to_string().starts_with("java-bad-value.properties:4: max.poll.records: "), "{e}");
}

#[test]
fn spring_record_gives_commit_sync_record_and_500() {
    let i = read(&["spring-record.yml"]);
    assert_eq!(i.client, Dialect::Spring);
    assert_eq!(
        applied(&i, "spring.kafka.listener.ack-mode"),
        ("strategy".into(), json!("commit_sync_record"))
    );
    assert_eq!(
        applied(&i, "spring.kafka.consumer.max-poll-records (max.poll.records)"),
        ("max.poll.records".into(), json!(500))
    );
    assert_eq!(applied(&i, "session.timeout.ms").1, json!(30000));
    assert_eq!(key(&i, "strategy"), json!("commit_sync_record"));
    assert_eq!(key(&i, "max.poll.records"), json!(500));
    // Not Kafka, or not the consumer's: irrelevant, each named.
    let server = i.account.iter().find(|e| e.property == "server.port").unwrap();
    assert!(matches!(server.status, Status::Irrelevant { .. }));
    assert!(i.notes.iter().any(|n| n.contains("error handler is a bean")));
}

#[test]
fn spring_without_an_ack_mode_is_batch_not_auto_commit() {
    let i = read(&["spring-default.yml"]);
    assert_eq!(key(&i, "strategy"), json!("commit_sync_batch"));
    assert_eq!(key(&i, "max.poll.records"), json!(500));
    assert!(defaulted(&i, "spring.kafka.listener.ack-mode") && defaulted(&i, "enable.auto.commit"));
    assert!(defaulted(&i, "max.poll.records"));
    // A placeholder with a default: not evaluated, named, its default used.
    let e = i.account.iter().find(|e| e.property == "spring.kafka.bootstrap-servers").unwrap();
    assert!(
        matches!(&e.status, Status::NotEvaluated { used, .. } if used.contains("localhost:9092")),
        "{e:?}"
    );
    // Duration: 2s.
    assert_eq!(key(&i, "auto.commit.interval.ms"), json!(2000));
    // Retry topics: not modelled.
    let retry = i.account.iter().find(|e| e.property == "spring.kafka.retry.topic.attempts").unwrap();
    assert!(matches!(retry.status, Status::NotModelled { .. }));
}

#[test]
fn spring_committing_both_ways_is_reported_not_guessed() {
    let e = read_with(&["spring-both-ways.yml"], &Options::default()).unwrap_err();
    assert_eq!((e.line, e.property.as_deref()), (9, Some("spring.kafka.listener.ack-mode")));
    assert!(e.message.contains("both ways"), "{e}");
}

#[test]
fn spring_relaxed_binding_and_placeholders() {
    let i = read(&["spring-relaxed.properties"]);
    assert_eq!(key(&i, "strategy"), json!("commit_sync_count"));
    assert_eq!(key(&i, "commit_every_records"), json!(20));
    assert_eq!(key(&i, "max.poll.records"), json!(50), "the placeholder's default");
    assert_eq!(key(&i, "max.poll.interval.ms"), json!(600000));
    let profiles = i.account.iter().find(|e| e.property == "spring.profiles.active").unwrap();
    assert!(matches!(profiles.status, Status::NotEvaluated { .. }));
}

#[test]
fn spring_profile_documents_are_not_evaluated() {
    let i = read(&["spring-profiles.yml"]);
    assert_eq!(key(&i, "strategy"), json!("commit_sync_batch"));
    let gated: Vec<_> =
        i.account.iter().filter(|e| matches!(e.status, Status::NotEvaluated { .. })).collect();
    assert!(
        gated.iter().any(|e| e.property == "spring.kafka.listener.ack-mode" && e.line == 14),
        "{gated:#?}"
    );
}

#[test]
fn librdkafka_store_after_processing_and_its_defaults() {
    let i = read(&["librdkafka.properties"]);
    assert_eq!(i.client, Dialect::Librdkafka);
    assert_eq!(key(&i, "client"), json!("librdkafka"));
    assert_eq!(key(&i, "strategy"), json!("store_offsets_after_processing"));
    assert_eq!(key(&i, "auto.commit.interval.ms"), json!(1000));
    assert_eq!(key(&i, "session.timeout.ms"), json!(10000));
    let i = read(&["confluent-kafka.json"]);
    assert_eq!(
        (key(&i, "strategy"), key(&i, "auto.commit.interval.ms")),
        (json!("auto_commit"), json!(5000))
    );
    assert_eq!(key(&i, "partition.assignment.strategy"), json!("cooperative-sticky"));
    assert_eq!(applied(&i, "auto.commit.interval.ms").1, json!(5000));
}

#[test]
fn go_and_javascript_clients() {
    let i = read(&["sarama.json"]);
    assert_eq!(i.client, Dialect::Sarama);
    assert_eq!((key(&i, "client"), key(&i, "strategy")), (json!("sarama"), json!("mark_message")));
    assert_eq!(key(&i, "auto.commit.interval.ms"), json!(2000));
    assert_eq!(key(&i, "auto.offset.reset"), json!("earliest"));
    let group = i.account.iter().find(|e| e.property == "Consumer.Group.Rebalance.GroupStrategies").unwrap();
    assert!(matches!(group.status, Status::NotModelled { .. }));
    let i = read(&["kafkajs.json"]);
    assert_eq!((key(&i, "client"), key(&i, "strategy")), (json!("kafkajs"), json!("each_message")));
    assert_eq!(key(&i, "auto.offset.reset"), json!("earliest"));
    // eachBatch is the application's code, not a setting: the account names the two strategies.
    let resolve = i.account.iter().find(|e| e.property == "eachBatchAutoResolve").unwrap();
    assert!(
        matches!(&resolve.status, Status::NotModelled { means } if means.contains("each_batch_resolve_offset")),
        "{:?}",
        resolve.status
    );
}

#[test]
fn the_tools_output_gives_partitions_members_and_backlog() {
    let i = read(&["java-defaults.properties", "consumer-groups-describe.txt"]);
    assert_eq!(
        (key(&i, "partitions"), key(&i, "members"), key(&i, "log_end_offset")),
        (json!(3), json!(2), json!(420))
    );
    let i = read(&["topics-describe.txt", "consumer-groups-members.txt", "java-defaults.properties"]);
    assert_eq!((key(&i, "partitions"), key(&i, "members")), (json!(6), json!(2)));
}

#[test]
fn measured_percentiles_map_onto_jitter() {
    use offset_window_import::Measured;
    let m = |p50: &str, p99: &str| Options {
        measured: Measured {
            processing_p50_ms: Some(p50.into()),
            processing_p99_ms: Some(p99.into()),
            records_per_s: Some("40".into()),
            ..Measured::default()
        },
        ..Options::default()
    };
    let i = read_with(&["java-defaults.properties"], &m("20", "35")).unwrap();
    assert_eq!(key(&i, "record_processing_jitter"), json!("uniform"));
    assert_eq!(key(&i, "record_processing_jitter_pct"), json!(77), "(35/20 − 1)/0.98 = 76.5 %, rounded up");
    assert_eq!(key(&i, "produce_rate_per_s"), json!(40));
    let i = read_with(&["java-defaults.properties"], &m("20", "120")).unwrap();
    assert_eq!(key(&i, "record_processing_jitter"), json!("exponential"));
    assert_eq!(key(&i, "record_processing_ms"), json!(28.854));
}

#[test]
fn the_same_files_give_the_same_bytes() {
    let a = serde_json::to_string(&read(&["spring-record.yml", "consumer-groups-describe.txt"])).unwrap();
    let b = serde_json::to_string(&read(&["spring-record.yml", "consumer-groups-describe.txt"])).unwrap();
    assert_eq!(a, b);
}

#[test]
fn a_later_file_or_set_overrides_and_says_so() {
    let options = Options { set: vec![("max.poll.records".into(), "50".into())], ..Options::default() };
    let i = read_with(&["java-auto-commit.properties"], &options).unwrap();
    assert_eq!(key(&i, "max.poll.records"), json!(50));
    let first = i.account.iter().find(|e| e.property == "max.poll.records" && e.line == 12).unwrap();
    assert!(
        matches!(&first.status, Status::Irrelevant { why } if why.starts_with("overridden by --set")),
        "{first:?}"
    );
    // A property nobody documents is named, not dropped.
    let text = "group.id=x\nsome.custom.setting=1\n";
    let i = import(&[Source { name: "c.properties", text }], &Options::default()).unwrap();
    let e = i.account.iter().find(|e| e.property == "some.custom.setting").unwrap();
    assert!(matches!(e.status, Status::NotModelled { .. }));
}

#[test]
fn franz_go_and_kafka_go_settings() {
    let franz = r#"{"ConsumerGroup": "g", "AutoCommitInterval": "2s", "AutoCommitMarks": true, "BlockRebalanceOnPoll": true}"#;
    let i = import(&[Source { name: "kgo.json", text: franz }], &Options::default()).unwrap();
    assert_eq!(i.client, Dialect::FranzGo);
    assert_eq!(
        (key(&i, "strategy"), key(&i, "auto.commit.interval.ms")),
        (json!("auto_commit_marks"), json!(2000))
    );
    let kafka_go = r#"{"GroupID": "g", "Topic": "orders", "StartOffset": -1, "MaxWait": "10s"}"#;
    let i = import(&[Source { name: "reader.json", text: kafka_go }], &Options::default()).unwrap();
    assert_eq!(i.client, Dialect::KafkaGo);
    assert_eq!((key(&i, "client"), key(&i, "auto.offset.reset")), (json!("kafka_go"), json!("latest")));
    // A CommitInterval ticker is not modelled: reported, not guessed.
    let ticker = r#"{"GroupID": "g", "CommitInterval": "1s"}"#;
    let e = import(&[Source { name: "reader.json", text: ticker }], &Options::default()).unwrap_err();
    assert_eq!((e.line, e.property.as_deref()), (1, Some("CommitInterval")));
}

#[test]
fn an_interval_the_strategy_never_reads_is_irrelevant() {
    let i = read(&["spring-default.yml"]);
    let e = i
        .account
        .iter()
        .find(|e| e.property.starts_with("spring.kafka.consumer.auto-commit-interval"))
        .unwrap();
    assert!(matches!(&e.status, Status::Irrelevant { why } if why.contains("auto-commit is off")), "{e:?}");
}

#[test]
fn multi_document_properties_and_yaml_aliases() {
    let i = read(&["spring-multi-document.properties"]);
    assert_eq!(key(&i, "strategy"), json!("commit_sync_record"), "the profile's document is not evaluated");
    let gated = i.account.iter().find(|e| e.line == 7).unwrap();
    assert!(matches!(gated.status, Status::NotEvaluated { .. }), "{gated:?}");
    let i = read(&["spring-anchors.yml"]);
    assert_eq!(key(&i, "max.poll.records"), json!(250));
}

/// librdkafka with `group.protocol=consumer` is the client `librdkafka_consumer_protocol`
/// (docs/model.md §10.6, issue 30); before, the import refused it.
#[test]
fn librdkafka_on_the_consumer_protocol() {
    let text = sample("librdkafka.properties") + "\ngroup.protocol=consumer\n";
    let sources = [Source { name: "librdkafka.properties", text: &text }];
    let i = import(&sources, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(i.client, Dialect::Librdkafka);
    assert_eq!(applied(&i, "group.protocol"), ("client".to_string(), json!("librdkafka_consumer_protocol")));
    assert_eq!(key(&i, "strategy"), json!("store_offsets_after_processing"));
    let text = sample("librdkafka.properties") + "\ngroup.protocol=share\n";
    let sources = [Source { name: "librdkafka.properties", text: &text }];
    let refused = import(&sources, &Options::default()).unwrap_err().to_string();
    assert!(refused.contains("group.protocol"), "{refused}");
}
