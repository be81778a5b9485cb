//! model.md §8 and §10: the rules the random cases against Apache Kafka 4.3.1 and a reading
//! of the client sources settled (issue "The group as the real clients run it"), each with a
//! case where the rule before and the rule now give different counts.
#![cfg(feature = "group")]

use offset_window_sim::report::GroupReport;
use offset_window_sim::{simulate, Run, Scenario};

fn run(json: &str) -> Run {
    simulate(&Scenario::from_json(json).unwrap_or_else(|e| panic!("{e}"))).unwrap_or_else(|e| panic!("{e}"))
}

fn group(run: &Run) -> &GroupReport {
    run.group.as_ref().expect("a group run")
}

/// (partition, committed, lost, duplicated) of every handover.
fn handovers(run: &Run) -> Vec<(u32, Option<u64>, u64, u64)> {
    group(run).handovers.iter().map(|h| (h.partition as u32, h.committed, h.lost, h.duplicated)).collect()
}

/// model.md §1, §8.2: a group that has never committed (`new_group`). consumer-1 holds
/// orders-0 and orders-1 of a topic produced to at 10 records a second per partition; its
/// first poll finds orders-0 empty and orders-1's fetched chunk keeps the turn (§10.1), so it
/// never consumes orders-0. It crashes at 8.2 s; consumer-2 takes orders-0 at 51 s. librdkafka
/// committed nothing for orders-0 (no offset was stored there:
/// `rd_kafka_topic_partition_list_set_offsets` leaves it out), so `auto.offset.reset=latest`
/// skips the 515 records produced by then. The Java client's first auto-commit covered
/// orders-0's position (`allConsumed`), and an existing group had committed the log start:
/// nothing lost.
#[test]
fn a_new_group_keeps_no_offset_where_librdkafka_never_consumed() {
    let scenario = |client: &str, new_group: bool| {
        format!(
            r#"{{"client": "{client}", "new_group": {new_group}, "log_end_offset": 0, "produce_rate_per_s": 10,
            "members": 2, "partitions": 3, "horizon_ms": 60000,
            "group_events": [{{"at_ms": 8200, "member": 1, "kind": "crash"}}]}}"#
        )
    };
    let new = run(&scenario("librdkafka", true));
    assert_eq!(handovers(&new)[0], (0, None, 515, 0));
    assert_eq!(group(&new).lost(), 515);
    for (client, new_group) in [("librdkafka", false), ("java_classic", true), ("java_classic", false)] {
        let other = run(&scenario(client, new_group));
        assert_eq!(handovers(&other)[0], (0, Some(0), 0, 0), "{client} new_group {new_group}");
        assert_eq!(group(&other).lost(), 0);
    }
}

/// model.md §8.3, §12: librdkafka's timer with `store_offsets_after_processing` and a pool
/// committing `highest_completed` sends the value that setting makes, judged changed on that
/// value (sarama-cluster#148's shape): two records, the second done first; the 1 s timer
/// commits 2 while record 0 still runs, and a crash at 1.5 s loses it — as
/// `auto_commit_background` already did. Before, the timer compared the durable frontier (0,
/// unchanged) and sent nothing.
#[test]
fn the_stored_offset_timer_sends_what_the_pool_commits() {
    for strategy in ["store_offsets_after_processing", "auto_commit_background"] {
        let run = run(&format!(
            r#"{{"client": "librdkafka", "strategy": "{strategy}", "worker_pool": true, "pool_threads": 2,
            "ordering": "unordered", "pool_commit": "highest_completed", "log_end_offset": 2,
            "record_processing_ms": 100, "record_processing_ms_by_offset": {{"0": 2000}},
            "auto.commit.interval.ms": 1000}}"#
        ));
        let at = run.summary_at(1_500_000).at_crash.expect("one consumer");
        assert_eq!((at.committed, at.lost, at.duplicated), (Some(2), 1, 0), "{strategy}");
    }
}
