"""Differential conformance suite: the same scenario through a real Kafka consumer on a real Apache
Kafka 4.3.1 broker and through `offset-window run`; compare committed offset, lost and duplicated
(model.md §5) and the other numbers the model predicts.

Run through run.sh (which prepares .cache/). Usage: run.py [--only NAME[,NAME…]] [--keep]

Kills and closes are triggered by the consumer's own progress, not by the wall clock: the driver
waits until the consumer logs its N-th finished record (`done`), waits `delay` ms more and sends
SIGKILL (or the consumer closes itself `delay` ms after that record). The model is asked about
the corresponding instant: the model's time of the N-th finished record plus the same delay. Drift
before the trigger (a loaded machine, slow sleeps, commit round trips) therefore shifts both
sides together and does not change the verdict.
"""

import argparse
import base64
import contextlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CACHE = os.path.join(HERE, ".cache")
LIB = os.path.join(CACHE, "lib")
sys.path.insert(0, os.path.join(CACHE, "py"))

from confluent_kafka import Consumer, Producer, TopicPartition, libversion  # noqa: E402
from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry,  # noqa: E402
                                   ConfigResource, NewTopic)

import group  # noqa: E402  (the consumer-group cases, issue 14)
import share  # noqa: E402  (the share-group cases, issue 15)
import txn  # noqa: E402  (transactions in the log, issue 31)
import eos  # noqa: E402  (exactly-once pipelines, issue 32)
import random_cases  # noqa: E402  (random cases, issue 26)

# run.sh builds the CLI into .cache/target: the shared target/ can hold another checkout's build.
MODEL = os.environ.get("OFFSET_WINDOW", os.path.join(CACHE, "target", "debug", "offset-window"))
KAFKA_VERSION = "4.3.1"
RDK = "librdkafka %s (confluent-kafka 2.16.1)" % libversion()[0]

# Every `client` value the model offers, and the real client that plays it.
CLIENTS = {
    "java_classic": dict(jar="431", protocol="classic",
                         label="kafka-clients 4.3.1, group.protocol=classic"),
    "java_consumer_protocol": dict(jar="431", protocol="consumer",
                                   label="kafka-clients 4.3.1, group.protocol=consumer"),
    "java_consumer_protocol_pre_fix": dict(jar="392", protocol="consumer",
                                           label="kafka-clients 3.9.2, group.protocol=consumer (before KAFKA-18641)"),
    # Issue 30 (model.md §10.6): the last release without KAFKA-20332's fix (apache/kafka#21897).
    "java_consumer_protocol_4_2_0": dict(jar="420", protocol="consumer",
                                         label="kafka-clients 4.2.0, group.protocol=consumer (before KAFKA-20332's fix)"),
    "librdkafka": dict(jar=None, protocol="classic", label=RDK),
    # Issue 30 (model.md §10.6): librdkafka on the consumer protocol (KIP-848).
    "librdkafka_consumer_protocol": dict(jar=None, protocol="consumer", label=RDK + ", group.protocol=consumer"),
    # Issue 29: the other clients people run (go/, node/; README "Other clients").
    "librdkafka_before_1_9": dict(jar=None, protocol="classic", label=RDK + ", as librdkafka_before_1_9 (the fix "
                                  "of PR #3774 shows: 2.16 does not replay)"),
    "sarama": dict(jar=None, prog=[os.path.join(CACHE, "bin", "sarama")], protocol="classic",
                   label="sarama v1.61.1 (github.com/IBM/sarama), Config.Version 4.0.0"),
    "franz_go": dict(jar=None, prog=[os.path.join(CACHE, "bin", "franz")], protocol="classic",
                     label="franz-go v1.22.3 (github.com/twmb/franz-go/pkg/kgo)"),
    "kafka_go": dict(jar=None, prog=[os.path.join(CACHE, "bin", "kafkago")], protocol="classic",
                     label="kafka-go v0.4.51 (github.com/segmentio/kafka-go)"),
    "kafkajs": dict(jar=None, prog=["node", os.path.join(HERE, "node", "consumer.js")], protocol="classic",
                    label="KafkaJS 2.2.4 (npm kafkajs) on Node %s" % "20"),
}

TIME_KEYS = ("record_processing_ms", "auto.commit.interval.ms", "crash_at_ms", "close_at_ms", "horizon_ms",
             "max.poll.interval.ms")
DEFAULT_TIMES = {"record_processing_ms": 200, "auto.commit.interval.ms": 5000, "crash_at_ms": 8200,
                 "horizon_ms": 12000}


def scaled(factor, **extra):
    """Overrides that stretch every time key of the base scenario by `factor` (counts stay the
    same, so lost / duplicated / committed stay the reference numbers (model.md §7)), then `extra`."""
    return {"__scale__": factor, **extra}


# One row per conformance case.
#   file     the scenario in scenarios/ the case starts from
#   over     what the real run changes (time stretched where a quiet stretch needs room)
#   client   the model's `client` value; the real client is CLIENTS[client]
#   after    the trigger: the consumer's N-th finished record (its `done` log line)
#   delay    ms after the trigger: the kill (crash cases) or the close (close cases)
#   mode     crash (default) | close | script
# The model runs on exactly the derived scenario, with crash_at_ms / close_at_ms = the model's
# instant of the N-th finished record + delay. Each delay sits in the middle of a quiet stretch
# of both the model and the real client (no record finishes, no poll, no commit near it).
CASES = [
    dict(name="R1", file="r01-defaults.json", client="java_classic", over=scaled(3), after=40, delay=300,
         note="R1 (model.md §7): auto-commit inside poll()"),
    dict(name="R2", file="r02-commit-sync-batch.json", client="java_classic", over=scaled(3), after=40, delay=300,
         note="R2 (model.md §7): commitSync() after each batch"),
    dict(name="R6", file="r06-pool-auto-commit.json", client="java_classic", over=scaled(3), after=25, delay=300,
         note="R6 (model.md §7): worker pool + auto-commit"),
    dict(name="R7", file="r07-pool-commit-sync.json", client="java_classic", over=scaled(3), after=25, delay=300,
         note="R7 (model.md §7): worker pool + commitSync() after the hand-off"),
    dict(name="R8", file="r08-transactional.json", client="java_classic", over=scaled(3), after=44, delay=300,
         note="R8 (model.md §7) + 8.10: transactions; outputs read after the killed producer's transaction is aborted",
         also_read_uncommitted=True),
    # Seed 000's defaults under group.protocol=consumer, before and after KAFKA-18641. Both are
    # known disagreements (README): `known` lists the real values seen besides the model's.
    dict(name="kip848-defaults", file="r01-defaults.json", client="java_consumer_protocol",
         over={"client": "java_consumer_protocol"}, after=40, delay=200,
         known=dict(why="kafka-clients 4.2+ races the poll's auto-commit against handing out that poll's "
                        "batch (AsyncKafkaConsumer.collectFetch does not wait for the AsyncPollEvent): "
                        "docs/model.md §8.4",
                    real={"committed": [30], "duplicated": [10]}),
         note="seed 000 defaults, group.protocol=consumer, after KAFKA-18641"),
    dict(name="kip848-pre-fix-defaults", file="r01-defaults.json", client="java_consumer_protocol_pre_fix",
         over={"client": "java_consumer_protocol_pre_fix"}, after=40, delay=200,
         note="seed 000 defaults, group.protocol=consumer, before KAFKA-18641: the timer fires just before the 5 s poll"),
    dict(name="kip848-long-record", file="s8-librdkafka-background.json", client="java_consumer_protocol",
         over={"client": "java_consumer_protocol", "record_processing_ms": 6000, "auto.commit.interval.ms": 10000},
         after=1, delay=5000, heartbeat_ms=100,
         note="KIP-848 after KAFKA-18641: nothing commits between polls"),
    dict(name="kip848-pre-fix-long-record", file="s8-librdkafka-background.json",
         client="java_consumer_protocol_pre_fix",
         over={"client": "java_consumer_protocol_pre_fix", "record_processing_ms": 6000,
               "auto.commit.interval.ms": 10000},
         after=1, delay=5000, heartbeat_ms=100,
         note="KIP-848 before KAFKA-18641 (model.md §8.2): the background timer commits the record in progress"),
    # Issue 25, rule 1 (model.md §8.4): kafka-clients 3.9.2 looks at its background auto-commit
    # timer only when its network thread wakes (a poll, a heartbeat, at least every 5 s). Polls
    # every 2.22 s (5 × 444 ms), interval 3.7 s: commits at the 4.44 s and 8.88 s polls, so at
    # 8.2 s orders-0 is committed 10 (8 repeated). The rule before (every multiple of the
    # interval) committed 20 at 7.4 s (2 lost). Each poll's commit races the hand-out of that
    # poll's batch, as in 4.2+ (model.md §8.4): the 4.44 s poll may commit 15 (3 repeated), the
    # known other outcome. (At 11.77 s, as before session 19, the 8.88 s poll's race decided the
    # verdict: a CI run committed 25.)
    dict(name="kip848-pre-fix-wakeups", file="r01-defaults.json", client="java_consumer_protocol_pre_fix",
         over={"client": "java_consumer_protocol_pre_fix", "record_processing_ms": 444,
               "auto.commit.interval.ms": 3700},
         after=18, delay=208,
         known=dict(why="kafka-clients 3.9.2 races the poll's auto-commit against handing out that poll's "
                        "batch (AsyncKafkaConsumer.poll does not wait for its PollEvent): docs/model.md §8.4",
                    real={"committed": [15], "duplicated": [3]}),
         note="KIP-848 before KAFKA-18641 (model.md §8.4): the background timer is checked only at "
              "network-thread wake-ups"),
    # Issue 25, rule 9 (model.md §8.3): librdkafka's timer with store_offsets() after processing
    # and a pool storing 1 + the highest offset done. Record 1 is done at 0.1 s, record 0 runs to
    # 2 s; the timer commits 2 (≈ 0.84 s: it runs from the consumer's creation) and the kill at
    # 1.5 s loses record 0. The rule before judged "changed" on the durable frontier and sent
    # nothing (committed none, nothing lost).
    dict(name="rdk-pool-store-highest", file="s8-librdkafka-store-after-processing.json", client="librdkafka",
         over={"worker_pool": True, "pool_threads": 2, "ordering": "unordered", "pool_commit": "highest_completed",
               "log_end_offset": 2, "max.poll.records": 5, "record_processing_ms": 100,
               "record_processing_ms_by_offset": {"0": 2000}, "auto.commit.interval.ms": 1000},
         after=1, delay=1400,
         note="model.md §8.3, §12: librdkafka's timer commits the pool's stored highest offset + 1"),
    dict(name="rdk-background", file="s8-librdkafka-background.json", client="librdkafka", over={},
         after=1, delay=2500, note="model.md §8.2: librdkafka background auto-commit"),
    dict(name="rdk-store-after", file="s8-librdkafka-store-after-processing.json", client="librdkafka", over={},
         after=1, delay=2500, note="model.md §8.3: store_offsets() after processing"),
    dict(name="book-lab-java", file="s8-book-lab-script.json", client="java_classic", over={}, mode="script",
         admin_reads=True, note="seed 002 lab as the book ran it: committed read with AdminClient"),
    dict(name="book-lab-rdk", file="s8-book-lab-script.json", client="librdkafka", over={"client": "librdkafka"},
         mode="script", note="seed 002 lab under librdkafka"),
    dict(name="close-java", file="s8-close-commits-unprocessed.json", client="java_classic",
         # 100 records × 20 ms leave no quiet stretch for close(): 10 × 400 ms do.
         over={"max.poll.records": 10, "record_processing_ms": 400, "auto.commit.interval.ms": 2000},
         mode="close", after=14, delay=200,
         note="model.md §8.6: close() with auto-commit commits the unprocessed position"),
    dict(name="eviction-java", file="s8-poll-interval-livelock.json", client="java_classic",
         over={"max.poll.records": 10, "record_processing_ms": 600, "max.poll.interval.ms": 5000},
         after=15, delay=300,
         note="model.md §8.7: evicted by max.poll.interval.ms, commitSync throws CommitFailedException, the batch repeats"),
    dict(name="async-retry-java", file="r01-defaults.json", client="java_classic",
         over=scaled(3, strategy="commit_async_batch", commit_failures=[2], retry_async_in_callback=True),
         after=12, delay=300,
         note="model.md §8.8 as amended: a failed commitAsync retried from its callback, which runs in the next "
              "commitAsync(), not when the response arrives"),
    dict(name="async-retry-java-later", file="r01-defaults.json", client="java_classic",
         over=scaled(3, strategy="commit_async_batch", commit_failures=[2], retry_async_in_callback=True),
         after=18, delay=300,
         note="model.md §8.8 as amended: the retry goes out before the newer commit and lands first"),
    dict(name="per-record-java", file="s8-next-offset-commit.json", client="java_classic",
         over={"record_processing_ms": 500}, after=8, delay=250,
         note="commitSync(offset + 1) after each record"),
    dict(name="off-by-one-java", file="s8-off-by-one-commit.json", client="java_classic",
         over={"record_processing_ms": 500}, after=8, delay=250,
         note="model.md §8.5: commitSync(record.offset()) after each record"),
    # Issue 16 (model.md §12.5, §12.6): a record-at-a-time pool (2 threads, unordered) with one slow
    # record (offset 3: 9 s; the others 600 ms) commits after each hand-off what pool_commit says.
    # Record 10 is done at 5.4 s; the kill at + 300 ms falls while 3 is still running (until 9.6 s:
    # the other thread's sleeps may drift seconds behind before 3 finishes).
    dict(name="pool-contiguous-java", file="s12-pool-contiguous-completed.json", client="java_classic",
         over={"pool_threads": 2, "strategy": "commit_sync_batch", "record_processing_ms": 600,
               "record_processing_ms_by_offset": {"3": 9000}},
         after=10, delay=300,
         note="model.md §12.6 pool_commit contiguous_completed: the commit waits at 3, the record still running: "
              "nothing lost, the records done above it repeated"),
    dict(name="pool-highest-java", file="s12-pool-highest-completed-skips-unfinished.json", client="java_classic",
         over={"pool_threads": 2, "strategy": "commit_sync_batch", "record_processing_ms": 600,
               "record_processing_ms_by_offset": {"3": 9000}},
         after=10, delay=300,
         note="model.md §12.6 pool_commit highest_completed: the commit passes 3 while it runs: a crash loses it"),
    # Issue 29 (model.md §8.14): the other clients, one consumer each. `full=True`: only in the whole
    # suite (run.sh --all); the others (one per client) run in CI. Timers (sarama's AutoCommit
    # ticker, franz-go's autocommit loop) start before the first records: the Go consumers hold
    # T0 until the timer's phase (creation or session start + k · interval), and each kill or
    # close sits ≥ 200 ms from every tick and every record.
    dict(name="sarama-kill", file="clients-sarama-mark-message.json", client="sarama", over={},
         after=8, delay=200,
         note="model.md §8.14: sarama MarkMessage after processing, AutoCommit every 1 s commits the marks"),
    dict(name="sarama-close", file="clients-sarama-mark-message.json", client="sarama", over={}, mode="close",
         after=8, delay=200, full=True,
         note="model.md §8.14: sarama Close() (the session's release) flushes the marks: nothing lost or repeated"),
    dict(name="sarama-commit-record", file="clients-sarama-mark-message.json", client="sarama",
         over={"strategy": "commit_sync_record"}, after=8, delay=320, full=True,
         note="model.md §8.14: sarama MarkMessage + session.Commit() after each message, AutoCommit off"),
    # sarama#1287 (model.md §8.14, "Marks out of order"): three worker goroutines mark raw offsets
    # as they finish; the topic starts at 0 (the file's log starts at 1, the report's numbers), so
    # 0 is marked too. 0, 1 and 3 are done by 0.4 s, 2 takes 5 s; the 1 s tick commits the highest
    # mark, 3; the kill at 1.5 s (record 3 + 1100 ms, 500 ms after the tick) loses 2, repeats 3.
    dict(name="sarama-1287-raw-mark-offset", file="clients-sarama-1287-raw-mark-offset.json", client="sarama",
         over={"log_start_offset": 0}, after=3, delay=1100, full=True,
         note="sarama#1287: raw MarkOffset from workers; the highest mark (3) is committed with 2 unfinished"),
    dict(name="sarama-1287-mark-message", file="clients-sarama-1287-raw-mark-offset.json", client="sarama",
         over={"log_start_offset": 0, "commit_value": "next_offset"}, after=3, delay=1100, full=True,
         note="sarama#1287 with MarkMessage from workers: the highest mark is 4, 2 unfinished: lost 1, nothing repeated"),
    # The kill comes 600 ms before the timer's 6 s tick (record 13 + 200 ms): at record 14 + 200 ms
    # it was 200 ms before it, and a loaded run (load average 16) drifted 276 ms past it.
    dict(name="franz-go-kill", file="clients-franz-go-autocommit-previous-poll.json", client="franz_go", over={},
         after=13, delay=200,
         note="model.md §8.14: franz-go's default autocommit commits the previous polls, not the latest"),
    dict(name="franz-go-greedy-kill", file="clients-franz-go-autocommit-previous-poll.json", client="franz_go",
         over={"strategy": "greedy_auto_commit"}, after=8, delay=200, full=True,
         note="model.md §8.14: franz-go GreedyAutoCommit commits the latest poll too: the kill loses 8 and 9"),
    dict(name="franz-go-close", file="clients-franz-go-autocommit-previous-poll.json", client="franz_go", over={},
         mode="close", after=8, delay=200, full=True,
         note="model.md §8.14: franz-go Close(): the default OnPartitionsRevoked commits the head (5), not the "
              "batch in hand"),
    dict(name="franz-go-marks-kill", file="clients-franz-go-autocommit-previous-poll.json", client="franz_go",
         over={"strategy": "auto_commit_marks"}, after=8, delay=200, full=True,
         note="model.md §8.14: franz-go AutoCommitMarks + MarkCommitRecords after processing"),
    dict(name="kafka-go-kill", file="clients-kafka-go-84-read-message-loses-record.json", client="kafka_go", over={},
         after=8, delay=200,
         note="kafka-go#84, model.md §8.14: ReadMessage commits before it returns: the record in progress is lost"),
    dict(name="kafka-go-fetch-commit-kill", file="clients-kafka-go-84-read-message-loses-record.json", client="kafka_go",
         over={"strategy": "fetch_message_commit_messages"}, after=8, delay=200, full=True,
         note="model.md §8.14: kafka-go FetchMessage + CommitMessages after processing: nothing lost"),
    dict(name="kafka-go-close", file="clients-kafka-go-84-read-message-loses-record.json", client="kafka_go", over={},
         mode="close", after=8, delay=200, full=True,
         note="model.md §8.14: kafka-go Close() with ReadMessage: the message in hand was committed already"),
    dict(name="kafkajs-kill", file="clients-kafkajs-each-message.json", client="kafkajs", over={},
         after=8, delay=200,
         note="model.md §8.14: KafkaJS eachMessage + autoCommit commits after the batch: a kill mid-batch repeats it"),
    dict(name="kafkajs-close", file="clients-kafkajs-each-message.json", client="kafkajs", over={}, mode="close",
         after=8, delay=200, full=True,
         note="model.md §8.14: KafkaJS: eachMessage throws at the close, the resolved offsets are committed, "
              "disconnect() leaves"),
    dict(name="kafkajs-after-batch", file="clients-kafkajs-each-message.json", client="kafkajs", over={},
         after=12, delay=200, full=True,
         note="model.md §8.14: KafkaJS commits the batch once it is done"),
    # KafkaJS eachBatch (model.md §8.14): with auto-resolve the batch is resolved only when
    # eachBatch returns; with resolveOffset after each message, what is done is resolved.
    dict(name="kafkajs-each-batch-kill", file="clients-kafkajs-each-message.json", client="kafkajs",
         over={"strategy": "each_batch"}, after=8, delay=200, full=True,
         note="model.md §8.14: KafkaJS eachBatch (auto-resolve): a kill mid-batch commits nothing and repeats it"),
    dict(name="kafkajs-each-batch-close", file="clients-kafkajs-each-message.json", client="kafkajs",
         over={"strategy": "each_batch"}, mode="close", after=8, delay=200,
         note="model.md §8.14: KafkaJS eachBatch (auto-resolve) cut by the close: nothing of the batch is resolved, "
              "nothing committed, the 8 done are repeated"),
    dict(name="kafkajs-each-batch-resolve-offset-close", file="clients-kafkajs-each-batch-resolve-offset.json",
         client="kafkajs", over={}, mode="close", after=8, delay=200, full=True,
         note="model.md §8.14: KafkaJS eachBatch + resolveOffset: disconnect() mid-batch commits the 8 resolved"),
    dict(name="kafkajs-each-batch-resolve-offset-kill", file="clients-kafkajs-each-batch-resolve-offset.json",
         client="kafkajs", over={}, after=8, delay=200, full=True,
         note="model.md §8.14: KafkaJS eachBatch + resolveOffset: resolved offsets wait for the batch's end; "
              "a kill mid-batch repeats the 8"),
    dict(name="rdk-before-1-9-background", file="s8-librdkafka-background.json", client="librdkafka_before_1_9",
         over={"client": "librdkafka_before_1_9"}, after=1, delay=2500,
         note="model.md §8.14: one consumer, librdkafka_before_1_9 is librdkafka (run by librdkafka 2.16)"),
    dict(name="rdk-before-1-9-store-after", file="s8-librdkafka-store-after-processing.json",
         client="librdkafka_before_1_9", over={"client": "librdkafka_before_1_9"}, after=1, delay=2500, full=True,
         note="model.md §8.14: store_offsets() after processing, one consumer: as librdkafka (run by librdkafka 2.16)"),
    dict(name="book-lab-rdk-before-1-9", file="s8-book-lab-script.json", client="librdkafka_before_1_9",
         over={"client": "librdkafka_before_1_9"}, mode="script", full=True,
         note="seed 002 lab under librdkafka_before_1_9: one consumer, as librdkafka (run by librdkafka 2.16)"),
]

# Consumer-group cases (issue 14, model.md §10; group.py says how they run). Each starts from a
# group scenario (`scenario`), with the expected initial assignment (`initial`), the events
# triggered by a member's own progress (`after`: ("done", member, N) = its N-th finished record
# after G, ("assigned", member, p) = its first assignment of partition p after G; `delay` ms
# later) and the final SIGKILL of every member still alive (`final`), each in a quiet stretch
# (after an assignment: + 300 ms, as the new owner's first poll comes 50–150 ms after its
# onPartitionsAssigned and its first record 400 ms after that poll).
# group-pool-drain-runs-out's other outcome (the revoking poll waited for its fetch): the real values
# seen for each label that then differs from the model.
KNOWN_POOL_DRAIN_22 = {"orders-1 handovers (from,to,committed,lost,dup)": [[[1, 2, 22, 0, 3], [2, None, 22, 0, 0]]],
                       "orders-0 handovers (from,to,committed,lost,dup)": [[[1, None, 45, 0, 0]]],
                       "orders-1.committed": [22], "orders-0.committed": [45]}

GROUP_CASES = [
    dict(name="group-eager-kill", kind="group", client="java_classic", file="g1-crash-waits-out-the-session.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 2000,
                   "heartbeat.interval.ms": 100},
         initial={1: [0], 2: [1]},
         events=[dict(kind="crash", member=2, after=("done", 2, 22), delay=200)],
         final=[dict(member=1, after=("assigned", 1, 1), delay=300)],
         note="G1 (model.md §10.7) with 400 ms records and a 2 s session: SIGKILL of consumer-2; after its "
              "session expires consumer-1 joins in its next poll (eager: onJoinPrepare commits orders-0) and "
              "takes orders-1 from its committed offset, repeating what consumer-2 had done past it"),
    dict(name="group-auto-commit-from-assignment", kind="group", client="java_classic",
         file="g1-crash-waits-out-the-session.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 500, "session.timeout.ms": 2000,
                   "heartbeat.interval.ms": 100},
         initial={1: [0], 2: [1]}, go_after_ms=2500,
         events=[dict(kind="crash", member=2, after=("done", 2, 7), delay=250)],
         final=[dict(member=1, after=("assigned", 1, 1), delay=300)],
         note="issue 25, rule 4 (model.md §10.4): the members were assigned 2.5 s before t = 0 and the "
              "auto-commit deadline counts from onJoinComplete, so the poll at 2.5 s commits 5 on orders-1 "
              "and the crash repeats 2 (counted from t = 0: nothing committed, 7 repeated)"),
    dict(name="group-rdk-kill", kind="group", client="librdkafka", file="g1-crash-waits-out-the-session.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 2000,
                   "heartbeat.interval.ms": 100},
         initial={1: [0], 2: [1]},
         events=[dict(kind="crash", member=2, after=("done", 2, 22), delay=200)],
         final=[dict(member=1, after=("assigned", 1, 1), delay=300)],
         compare_rebalances=False,
         # librdkafka's fetcher otherwise waits up to fetch.wait.max.ms (500) before the first fetch
         # after resume(), while its background auto-commit timer runs on the wall clock.
         client_props={"fetch.wait.max.ms": 10, "fetch.error.backoff.ms": 10},
         go_phase=(2, 5000, -500),
         note="G1 under librdkafka (model.md §8.2, §10.5): the background auto-commit of what was handed out; "
              "SIGKILL of consumer-2; consumer-1 takes orders-1 after the session expires"),
    # Issue 29 (model.md §8.14): librdkafka_before_1_9 in a group where no partition comes back to
    # a member that stored for it: as librdkafka (no stale store), run by librdkafka 2.16.
    dict(name="group-rdk-before-1-9-kill", kind="group", client="librdkafka_before_1_9",
         file="g1-crash-waits-out-the-session.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 2000,
                   "heartbeat.interval.ms": 100},
         initial={1: [0], 2: [1]},
         events=[dict(kind="crash", member=2, after=("done", 2, 22), delay=200)],
         final=[dict(member=1, after=("assigned", 1, 1), delay=300)],
         compare_rebalances=False, full=True,
         client_props={"fetch.wait.max.ms": 10, "fetch.error.backoff.ms": 10},
         go_phase=(2, 5000, -500),
         note="group-rdk-kill as librdkafka_before_1_9 (model.md §8.14): orders-1 goes to consumer-1, which never "
              "held it: no stale store, the same counts as librdkafka"),
    # Issue 29 (model.md §8.14): librdkafka's offset store across a reassignment, the mechanism of
    # confluent-kafka-dotnet#1672 as librdkafka 2.16 runs it. consumer-1 holds both partitions
    # and runs a pool (two batches in flight, store_offsets() as each record finishes; its loop
    # polls only when the pool has room, so the rebalances are served at the model's poll
    # instants). consumer-2 joins 200 ms after consumer-1's record 11 (orders-0 5 done, orders-1
    # 5-9 waiting in the pool): consumer-1 learns at a heartbeat (1 s) and revokes both at its
    # next poll, 1.4 s on, with orders-1 5-9 still to do; its pool finishes them and stores them
    # for a partition it no longer holds: librdkafka 2.16 refuses every one (`store_refused`
    # … _STATE). consumer-2 is shut down mid-record (its close at its next poll commits what it
    # stored, 20); orders-1 comes back to consumer-1, whose close, 200 ms into its record 36,
    # commits orders-0 only: orders-1 stays at 20 (librdkafka_before_1_9: the stale 10). No
    # timer tick decides a committed offset (every one is a revocation's or a close's), so the
    # timers' phase does not matter. The model's member polls its partitions in turn, 5 records
    # a fetch (5120 bytes of 1 KiB records). librdkafka starts each Fetch request at the next
    # partition (p0 p1, then p1 p0: with both in every response its queue ran p0 p1 p1 p0); a
    # response of one produced batch (5 records of 250 bytes, ≈ 1.4 KB, above fetch.max.bytes
    # 1000, which the broker still returns whole as the first: KIP-74) makes the queue alternate.
    dict(name="group-rdk-store-refused-after-revoke", kind="group", client="librdkafka",
         file="group-rdk-store-refused-after-revoke.json",
         scenario={"partitions": 2, "members": 1, "record_processing_ms": 400, "session.timeout.ms": 10000,
                   "heartbeat.interval.ms": 1000, "strategy": "store_offsets_after_processing",
                   "worker_pool": True, "pool_max_in_flight_batches": 2, "max.partition.fetch.bytes": 5120,
                   "horizon_ms": 20000},
         initial={1: [0, 1]},
         events=[dict(kind="join", member=2, after=("done", 1, 11), delay=200),
                 dict(kind="shutdown", member=2, after=("member_done", 2, 10), delay=200),
                 dict(kind="shutdown", member=1, after=("member_done", 1, 36), delay=200)],
         final=[], compare_rebalances=False, full=True, dones_at_poll="fifo", stale_stores=True,
         value_bytes=250,
         client_props={"fetch.wait.max.ms": 10, "fetch.error.backoff.ms": 10, "message.max.bytes": 1000,
                       "fetch.max.bytes": 1000, "max.partition.fetch.bytes": 1000},
         note="librdkafka's offset store across a reassignment (model.md §8.14, PR #3774): a pool finishes "
              "orders-1's records after the revocation and stores them; 2.16 refuses the stores, and when "
              "orders-1 comes back, consumer-1's close commits nothing there: the committed offset stays"),
    # Issue 30 (model.md §10.6): librdkafka 2.16 on the consumer protocol (KIP-848). consumer-1
    # holds orders-0 and orders-1 (the fetch settings of group-rdk-store-refused-after-revoke make
    # its queue alternate, five records a poll); consumer-2 joins 200 ms after consumer-1's record
    # 11 (orders-0 5, the first of its third batch). consumer-1's heartbeat (the group's 200 ms)
    # brings a target without orders-1; its next consume(), after the batch, serves the revoke:
    # the unassign commits orders-1's stored offset, 5, and the assign and the acknowledgement
    # follow; consumer-2 gets orders-1 from 5. A 60 s auto-commit interval leaves every other
    # committed offset where it is, so no timer phase matters: the kills (consumer-2 200 ms after
    # its 8th record, consumer-1 200 ms after its 26th) repeat what each did past 5 and 0.
    dict(name="group-rdk-kip848-join-moves-a-partition", kind="group", client="librdkafka_consumer_protocol",
         file="group-rdk-kip848-join-moves-a-partition.json",
         scenario={"partitions": 2, "members": 1, "record_processing_ms": 400, "session.timeout.ms": 4000,
                   "group.consumer.heartbeat.interval.ms": 200, "strategy": "auto_commit",
                   "auto.commit.interval.ms": 60000, "max.partition.fetch.bytes": 5120, "horizon_ms": 20000},
         group_configs={"consumer.heartbeat.interval.ms": 200, "consumer.session.timeout.ms": 4000},
         initial={1: [0, 1]},
         events=[dict(kind="join", member=2, after=("done", 1, 11), delay=200)],
         final=[dict(member=2, after=("member_done", 2, 8), delay=200),
                dict(member=1, after=("member_done", 1, 26), delay=200)],
         compare_rebalances=False, value_bytes=250,
         client_props={"fetch.wait.max.ms": 10, "fetch.error.backoff.ms": 10, "message.max.bytes": 1000,
                       "fetch.max.bytes": 1000, "max.partition.fetch.bytes": 1000},
         note="librdkafka on the consumer protocol (model.md §10.6): no commit before the reconciliation; the "
              "revoke's unassign commits the moved partition's stored offset, and the new owner starts there"),
    # Issue 29 (model.md §8.14): sarama v1.61.1 in an eager group (go/sarama, `member` mode). G sits
    # 200 ms before a tick of the sessions' AutoCommit tickers (which start with each session's
    # Setup): the real ticks fall at 0.2 s, 1.2 s, … of the model's time, the model's at 1 s, 2 s, …;
    # the last tick before the kill (8.2 s real, 8 s model) commits 20 on both sides.
    dict(name="group-sarama-kill", kind="group", client="sarama", file="g1-crash-waits-out-the-session.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 2000,
                   "heartbeat.interval.ms": 100, "strategy": "mark_message", "auto.commit.interval.ms": 1000},
         initial={1: [0], 2: [1]},
         events=[dict(kind="crash", member=2, after=("done", 2, 21), delay=200)],
         final=[dict(member=1, after=("assigned", 1, 1), delay=300)],
         go_phase=(2, 1000, -200),
         note="G1 under sarama (model.md §8.14): MarkMessage, AutoCommit every 1 s; SIGKILL of consumer-2 with "
              "orders-1 committed 20 and 21 done; after its session expires consumer-1's heartbeat ends its "
              "session, the record in hand finishes, the release flushes orders-0's marks, and consumer-1 takes "
              "both partitions: orders-1 repeats 1"),
    # Issue 29 (model.md §8.14): franz-go v1.22.3 in a cooperative group (go/franz, `member` mode).
    # Its autocommit loop starts at NewClient: G sits 100 ms before a tick of consumer-1's (the two
    # members are created together), so the real ticks fall 100 ms after the model's (5 s, 10 s),
    # none of them within 200 ms of a record or between the rebalance and the final kill.
    # consumer-2 closes in the middle of a poll of 5 (records 20, 21 done, 22 cut): Close() leaves
    # after its revoke commits the heads — 20, the start of the poll in hand; consumer-1 learns at
    # its heartbeat, commits its own heads, rejoins beside its application and takes orders-1 from
    # 20: records 20 and 21 run twice.
    dict(name="group-franz-go-close", kind="group", client="franz_go", file="g1-crash-waits-out-the-session.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 2000,
                   "heartbeat.interval.ms": 100, "strategy": "auto_commit",
                   "partition.assignment.strategy": "cooperative-sticky"},
         initial={1: [0], 2: [1]}, any_initial_order=True,
         events=[dict(kind="shutdown", member=2, shutdown_mode="abrupt", after=("done", 2, 22), delay=200)],
         final=[dict(member=1, after=("assigned", 1, 1), delay=300)],
         compare_rebalances=False, go_phase=(1, 5000, -100),
         note="G1's shape under franz-go (model.md §8.14): consumer-2's Close() mid-poll commits the heads (20, "
              "not the poll in hand); consumer-1 rebalances beside its application and takes orders-1 from 20: "
              "2 records run twice"),
    # The same with AutoCommitMarks + MarkCommitRecords: a rebalance with marks outstanding —
    # Close()'s revoke commits the marks (22), nothing runs twice.
    dict(name="group-franz-go-close-marks", kind="group", client="franz_go",
         file="g1-crash-waits-out-the-session.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 2000,
                   "heartbeat.interval.ms": 100, "strategy": "auto_commit_marks",
                   "partition.assignment.strategy": "cooperative-sticky"},
         initial={1: [0], 2: [1]}, any_initial_order=True,
         events=[dict(kind="shutdown", member=2, shutdown_mode="abrupt", after=("done", 2, 22), delay=200)],
         final=[dict(member=1, after=("assigned", 1, 1), delay=300)],
         compare_rebalances=False, full=True, go_phase=(1, 5000, -100),
         note="group-franz-go-close with AutoCommitMarks (model.md §8.14): Close() commits the marks, 22: "
              "nothing runs twice"),
    # Issue 29 (model.md §8.14): KafkaJS 2.2.4 in a group (node/consumer.js, `member` mode). Its
    # runner heartbeats after each message (1 s apart here), the model's every 100 ms: the
    # session of 2.5 s puts the real expiry (consumer-2's last message + 2.5 s) and the model's
    # (its crash + 2.4–2.5 s) in the same record of consumer-1, 300–500 ms from its ends, so
    # the members may run up to 300 ms out of phase (a loaded run had them 260 ms apart, when
    # records of 400 ms and a 2.2 s session left 200 ms). G 1.5 s after the assignment: each
    # member's first batch is in hand by then (its first message waits for G).
    dict(name="group-kafkajs-kill", kind="group", client="kafkajs", file="g1-crash-waits-out-the-session.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 1000, "session.timeout.ms": 2500,
                   "heartbeat.interval.ms": 100, "strategy": "each_message",
                   "partition.assignment.strategy": "roundrobin"},
         initial={1: [0], 2: [1]},
         events=[dict(kind="crash", member=2, after=("done", 2, 21), delay=200)],
         final=[dict(member=1, after=("assigned", 1, 1), delay=300)],
         compare_rebalances=False, go_after_ms=1500,
         note="G1 under KafkaJS (model.md §8.14): eachMessage commits after each batch, a batch being the "
              "partition's whole backlog; SIGKILL of consumer-2 mid-batch (nothing committed); consumer-1's "
              "heartbeat after a message meets the rebalance, commits what it resolved, drops its batch and "
              "takes both: orders-1 repeats all 21"),
    # Issue 29 (model.md §8.14): kafka-go v0.4.51 in an eager group (go/kafkago, `member` mode),
    # FetchMessage + CommitMessages. consumer-1's heartbeat after consumer-2's session expires ends
    # its generation mid-record (the rebalance lands 90–110 ms inside record 26 on either side); the
    # Reader rejoins and subscribes in the background from the committed 26, and record 26's commit
    # goes out with the new generation after that OffsetFetch: 26 is handed out again. The final
    # kill 200 ms after record 26 is done, mid-record whichever partition the Reader's channel gives
    # next (its partition readers interleave; the model's member takes orders-0 first): nothing
    # committed moves. A done counts for the ownership that handed it out (`dones_at_poll`).
    dict(name="group-kafka-go-kill", kind="group", client="kafka_go", file="group-kafka-go-kill.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 2000,
                   "heartbeat.interval.ms": 100, "strategy": "fetch_message_commit_messages"},
         initial={1: [0], 2: [1]},
         events=[dict(kind="crash", member=2, after=("done", 2, 21), delay=200)],
         final=[dict(member=1, after=("done", 1, 27), delay=200)],
         dones_at_poll=True,
         note="G1 under kafka-go (model.md §8.14): FetchMessage, CommitMessages after each message; SIGKILL of "
              "consumer-2 (orders-1 committed 21); consumer-1's heartbeat ends its generation mid-record, it "
              "rejoins at once and takes both; its record's commit goes out with the new generation after the "
              "OffsetFetch, so orders-0 starts from 26 and repeats the record in hand"),
    dict(name="group-kafkajs-each-batch-kill", kind="group", client="kafkajs",
         file="g1-crash-waits-out-the-session.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 1000, "session.timeout.ms": 2500,
                   "heartbeat.interval.ms": 100, "strategy": "each_batch_resolve_offset",
                   "partition.assignment.strategy": "roundrobin"},
         initial={1: [0], 2: [1]},
         events=[dict(kind="crash", member=2, after=("done", 2, 21), delay=200)],
         final=[dict(member=1, after=("assigned", 1, 1), delay=300)],
         compare_rebalances=False, go_after_ms=1500, full=True,
         note="group-kafkajs-kill with eachBatch + resolveOffset + heartbeat() after each message (model.md "
              "§8.14): the application's heartbeat meets the rebalance and commits what is resolved, as eachMessage"),
    # Heartbeats every 1 s here: a leave lands just after a poll instant, and consumer-1 must learn
    # of it mid-batch (model: at its next heartbeat; real: its heartbeat thread, phase G − 500 ms).
    dict(name="group-eager-shutdown", kind="group", client="java_classic", file="g2-shutdown-with-wakeup.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 10000,
                   "heartbeat.interval.ms": 1000},
         initial={1: [0], 2: [1]},
         events=[dict(kind="shutdown", member=2, after=("done", 2, 22), delay=200)],
         final=[dict(member=1, after=("assigned", 1, 1), delay=300)],
         note="G2 (model.md §10.3, §10.7): SIGTERM → wakeup(); consumer-2 finishes its batch, poll() throws, "
              "close() commits its position and leaves; consumer-1 takes orders-1 at the rebalance: nothing lost "
              "or repeated"),
    dict(name="group-eager-shutdown-abrupt", kind="group", client="java_classic", file="g2-shutdown-abrupt.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 10000,
                   "heartbeat.interval.ms": 1000},
         initial={1: [0], 2: [1]},
         events=[dict(kind="shutdown", shutdown_mode="abrupt", member=2, after=("done", 2, 20), delay=200)],
         final=[dict(member=1, after=("assigned", 1, 1), delay=300)],
         note="G2 abrupt (model.md §8.6, §10.3): SIGTERM → close() at once, mid-record: it commits the position "
              "of the batch in hand; consumer-1 takes orders-1 from there: the unprocessed records are lost"),
    dict(name="group-eager-shutdown-sync", kind="group", client="java_classic", file="g2-shutdown-with-wakeup.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 10000,
                   "heartbeat.interval.ms": 1000, "strategy": "commit_sync_batch"},
         initial={1: [0], 2: [1]},
         events=[dict(kind="shutdown", member=2, after=("done", 2, 22), delay=200)],
         final=[dict(member=1, after=("assigned", 1, 1), delay=300)],
         note="G2 with commitSync after each batch (model.md §10.3): wakeup() during the batch; the commitSync() "
              "after it sends its commit, then throws WakeupException; close() waits for it before leaving"),
    dict(name="group-static-restart", kind="group", client="java_classic", file="g3-static-member-restarts.json",
         scenario={"partitions": 2, "members": 2, "group.instance.id": True, "record_processing_ms": 400,
                   "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000},
         initial={1: [0], 2: [1]},
         events=[dict(kind="shutdown", member=2, after=("done", 2, 22), delay=200, restart_after_ms=3985)],
         final=[dict(member=2, after=("assigned", 2, 1), delay=300),
                dict(member=1, after=("done", 1, 36), delay=200)],
         note="G3 static (KIP-345, model.md §10.3): consumer-2 (group.instance.id consumer-2) closes without "
              "leaving and a new process with its id is back within the session: no rebalance, orders-1 returns "
              "to it from the committed offset, consumer-1 never stops"),
    dict(name="group-cooperative-join", kind="group", client="java_classic", file="group-scale-out.json",
         scenario={"partitions": 2, "members": 1, "partition.assignment.strategy": "cooperative-sticky",
                   "record_processing_ms": 400, "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000},
         initial={1: [0, 1]},
         events=[dict(kind="join", member=2, after=("done", 1, 15), delay=100)],
         final=[dict(member=2, after=("assigned", 2, 1), delay=300),
                dict(member=1, after=("assigned", 2, 1), delay=250)],
         known=dict(why="kafka-clients 4.3.1 takes one step of the two join rounds per poll (model.md §10.5), and "
                        "its timing is sometimes one poll earlier or later than the model's (README 'Known "
                        "disagreements')",
                    # consumer-1's last commit is onJoinPrepare's in the poll after its revocation
                    # (35; 40 when it learned of the join one poll later, 30 when the first round
                    # completed a poll earlier, session 15); consumer-2 gets orders-1 two polls
                    # after that (the model's 10 records past 35), one when the commit lands within
                    # its poll (5), three when a round takes one poll more (15).
                    real={"orders-0 handovers (from,to,committed,lost,dup)": [[[1, None, c, 0, d]] for c in (30, 35, 40) for d in (5, 10, 15)],
                          "orders-1 handovers (from,to,committed,lost,dup)": [[[1, 2, 0, 0, 0], [2, None, 0, 0, 0]]],
                          "orders-0.committed": [30, 35, 40], "orders-0.duplicated": [5, 10, 15],
                          "orders-1.committed": [0]}),
         note="scale-out under cooperative-sticky (model.md §10.5): consumer-2 joins; consumer-1 keeps "
              "processing, revokes orders-1 after the first round and rejoins; the second round hands it over"),
    # Issue 28 (model.md §10.5, "What a cooperative scale-out repeats"): the KEDA-like scale-out's
    # duplicates in miniature. consumer-1 holds both partitions; a fetch brings four five-record
    # batches of a partition (250-byte values, max.partition.fetch.bytes 6000: 20 records, four
    # polls), so every poll finds records buffered, as polls of 100 from 1 MiB chunks do. consumer-2
    # joins while orders-1 is in turn; consumer-1 commits in the poll that starts its rejoin
    # (onJoinPrepare), takes one step of the join per poll while it hands out orders-1's chunk, and
    # revokes orders-1 in onJoinComplete with no commit: consumer-2 takes orders-1 from the earlier
    # commit and repeats what consumer-1 processed of it since (the model: 15).
    dict(name="group-cooperative-join-repeats-the-moved-partition", kind="group", client="java_classic",
         file="group-keda-scale-out-and-in.json",
         scenario={"partitions": 2, "members": 1, "partition.assignment.strategy": "cooperative-sticky",
                   "record_processing_ms": 400, "max.poll.records": 5, "max.partition.fetch.bytes": 20480,
                   "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000},
         value_bytes=250, client_props={"max.partition.fetch.bytes": 6000},
         initial={1: [0, 1]},
         events=[dict(kind="join", member=2, after=("done", 1, 21), delay=300)],
         # consumer-1 dies in orders-0's next chunk, after its rejoin's commit (20) and before the
         # second round completes (its timing differs by a poll: the real rejoin commit can land
         # inside the revoking poll); consumer-2 takes both when consumer-1's session expires.
         final=[dict(member=1, after=("done", 1, 43), delay=200),
                dict(member=2, after=("assigned", 2, 1), delay=300)],
         full=True,
         known=dict(why="the real revoking poll found no records buffered and took the whole second round "
                        "inside it (a response wakes a poll that waits for a fetch, and the loop takes the next "
                        "step), so orders-0 stays with consumer-1; the model's second round takes two more polls "
                        "and consumer-1 dies in it (model.md §10.5, 'What a cooperative scale-out repeats')",
                    # orders-1, the rule under test, agrees exactly (committed 5, 15 repeated); only
                    # whether orders-0 passes to consumer-2 before the end differs, not its counts.
                    real={"orders-0 handovers (from,to,committed,lost,dup)": [[[1, None, 20, 0, 3]]]}),
         note="cooperative scale-out with the moved partition in turn (model.md §10.5): consumer-1's rejoin "
              "commit comes three polls before it revokes orders-1 with no commit, so consumer-2 repeats what "
              "consumer-1 processed of orders-1 in between"),
    dict(name="group-kip848-crash", kind="group", client="java_consumer_protocol",
         file="g1-crash-waits-out-the-session.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 4000,
                   "group.consumer.heartbeat.interval.ms": 200, "strategy": "commit_sync_batch"},
         group_configs={"consumer.heartbeat.interval.ms": 200, "consumer.session.timeout.ms": 4000},
         initial={1: [0], 2: [1]},
         events=[dict(kind="crash", member=2, after=("done", 2, 22), delay=200)],
         final=[dict(member=1, after=("done", 1, 36), delay=200)],
         compare_rebalances=False, any_initial_order=True,
         note="G1 under the consumer protocol (KIP-848, model.md §10.6), commitSync after each batch: SIGKILL of "
              "consumer-2; its session (the group's consumer.session.timeout.ms) expires and consumer-1 receives "
              "orders-1 at its next heartbeat, from the committed offset"),
    dict(name="group-kip848-leave", kind="group", client="java_consumer_protocol", file="g2-shutdown-with-wakeup.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 10000,
                   "group.consumer.heartbeat.interval.ms": 1000, "strategy": "commit_sync_batch"},
         group_configs={"consumer.heartbeat.interval.ms": 1000, "consumer.session.timeout.ms": 10000},
         initial={1: [0], 2: [1]},
         events=[dict(kind="shutdown", member=2, after=("done", 2, 22), delay=200)],
         final=[dict(member=1, after=("done", 1, 31), delay=200)],
         compare_rebalances=False, any_initial_order=True,
         note="G2 under the consumer protocol (KIP-848, model.md §10.6): consumer-2 closes and leaves (epoch -1); "
              "consumer-1 receives orders-1 at its next heartbeat"),
    # Issue 25, rule 3 (model.md §1, §8.2): a new group, and a partition librdkafka holds but
    # never consumes. consumer-1 (range: orders-0 and orders-1) hands out orders-0's fetched
    # records only; it dies, and consumer-2 takes both: orders-1 has no committed offset
    # (librdkafka commits only offsets stored since it took a partition). The rule before (every
    # group starts committed at the log start) said 0. With earliest the counts agree either way;
    # with Kafka's default latest the new owner would skip orders-1's backlog.
    dict(name="group-rdk-never-consumed", kind="group", client="librdkafka", file="g1-crash-waits-out-the-session.json",
         scenario={"partitions": 3, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 2000,
                   "heartbeat.interval.ms": 100},
         initial={1: [0, 1], 2: [2]},
         events=[dict(kind="crash", member=1, after=("done", 1, 22), delay=200)],
         final=[dict(member=2, after=("assigned", 2, 1), delay=300)],
         compare_rebalances=False,
         client_props={"fetch.wait.max.ms": 10, "fetch.error.backoff.ms": 10},
         go_phase=(1, 5000, -500),
         note="a new group under librdkafka (model.md §8.2): a partition held but never consumed keeps no "
              "committed offset"),
    # Issue 30 (model.md §10.5 `on_revoke: drain`, §10.6): a drain budget running out under the
    # consumer protocol. consumer-1 holds both partitions and hands each poll's five records to a
    # pool of two threads (at most four batches in flight; commitSync of the contiguous frontier
    # after each hand-off; onPartitionsRevoked waits at most 750 ms for the pool, then commits what
    # it finished). consumer-2 joins; consumer-1's first poll after the target arrived has nothing
    # buffered (orders-1's chunk was handed out to its last record, so no prefetch went out): it
    # runs onPartitionsRevoked before the records it fetches (kafka-clients 4.3.1,
    # `AsyncKafkaConsumer.poll`), drains, commits orders-1 at 22 with 3 of its records still in the
    # pool, and acknowledges at once after onPartitionsAssigned a poll later. The pool's records
    # count for the ownership that handed them out (`dones_at_poll="fifo"`). consumer-2 is killed
    # 200 ms after it got orders-1, before its pool finishes a record: what its commits carry later
    # depends on when its polls find room and fetched records (in one run its third poll came
    # 480 ms late, after a record, and committed 23; in another a hand-off raced the other
    # thread's record by 1–5 ms: 27 or 28), which is not this case's question.
    dict(name="group-pool-drain-runs-out-kip848", kind="group", client="java_consumer_protocol",
         file="group-scale-out.json",
         scenario={"partitions": 2, "members": 1, "worker_pool": True, "pool_threads": 2,
                   "pool_max_in_flight_batches": 4, "pool_commit": "contiguous_completed",
                   "strategy": "commit_sync_batch", "record_processing_ms": 300, "max.poll.records": 5,
                   "max.partition.fetch.bytes": 5120, "session.timeout.ms": 10000,
                   "group.consumer.heartbeat.interval.ms": 500, "on_revoke": "drain", "on_revoke_drain_ms": 750},
         group_configs={"consumer.heartbeat.interval.ms": 500, "consumer.session.timeout.ms": 10000},
         client_props={"max.partition.fetch.bytes": 200, "retry.backoff.ms": 5},
         initial={1: [0, 1]},
         events=[dict(kind="join", member=2, after=("done", 1, 32), delay=150)],
         final=[dict(member=1, after=("member_done", 1, 70), delay=150),
                dict(member=2, after=("assigned", 2, 1), delay=200)],
         dones_at_poll="fifo", full=True,
         note="a drain on revoke under the consumer protocol (model.md §10.5, §10.6): the first poll after the "
              "target has nothing buffered and runs onPartitionsRevoked before its records; the drain waits "
              "750 ms for the pool, then commits what it finished"),
    # Issue 30 (model.md §10.5 `on_revoke: drain`): the same drain under the classic protocol
    # (cooperative-sticky). consumer-1's poll that sends JoinGroup returns orders-0's chunk; the
    # failed commitSync after it (RebalanceInProgressException) reads the JoinGroup response if it
    # has come and sends SyncGroup; the next poll returns orders-1's chunk, buffered by the same
    # fetch; the revocation waits for the poll after, when the pool has room, and the drain
    # commits orders-1 at 27. When orders-1's chunk is not buffered at that next poll, the poll
    # waits for its fetch, the SyncGroup response wakes it and it revokes at once: 22 (the known
    # outcome; the model fetches at once, model.md §10.5). consumer-2 is killed 200 ms after it
    # got orders-1, as in the -kip848 case.
    dict(name="group-pool-drain-runs-out", kind="group", client="java_classic",
         file="group-scale-out.json",
         scenario={"partitions": 2, "members": 1, "partition.assignment.strategy": "cooperative-sticky",
                   "worker_pool": True, "pool_threads": 2, "pool_max_in_flight_batches": 4,
                   "pool_commit": "contiguous_completed", "strategy": "commit_sync_batch",
                   "record_processing_ms": 300, "max.poll.records": 5, "max.partition.fetch.bytes": 5120,
                   "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000, "on_revoke": "drain",
                   "on_revoke_drain_ms": 750},
         client_props={"max.partition.fetch.bytes": 200, "retry.backoff.ms": 5},
         initial={1: [0, 1]},
         events=[dict(kind="join", member=2, after=("done", 1, 32), delay=150)],
         final=[dict(member=1, after=("member_done", 1, 70), delay=150),
                dict(member=2, after=("assigned", 2, 1), delay=200)],
         dones_at_poll="fifo", full=True,
         known=dict(why="the poll after the one that sent JoinGroup found orders-1's next chunk not yet "
                        "fetched, waited for it, and the SyncGroup response woke it: it revoked at once and "
                        "the drain committed 22 (a poll waiting for its fetch is not modelled, model.md §10.5)",
                    real=KNOWN_POOL_DRAIN_22),
         note="a drain on revoke under the classic protocol (model.md §10.5): the revocation comes at the poll "
              "after the one that returns orders-1's chunk; the drain waits 750 ms for the pool, then commits "
              "what it finished"),
    # Issue 25 (model.md §10.1): across an incremental assignment a member keeps draining the
    # partition it was on (the fetch buffer keeps its chunk). consumer-1 dies; consumer-2, on
    # orders-1, receives orders-0 and goes on with orders-1's fetched records: orders-0 is not
    # handed out before the kill (duplicated 0). The rule before (the turn back at the lowest
    # partition) had consumer-2 process orders-0 from its next poll (3 repeated at the kill).
    # Issue 30 (model.md §10.6, KAFKA-20332): kafka-clients 4.2.0 with auto-commit. consumer-1
    # closes and consumer-2 takes orders-0 too (8 s poll), still handing out orders-1's fetched
    # chunk; consumer-3 joins at 10.6 s and consumer-2 must give orders-1 up. Its 12 s poll, all
    # positions looked up, does not wait for the reconciliation check before it returns buffered
    # records: it returns orders-1 30-34 and the commit before the revocation carries 35 (the
    # model's order, the application thread first); the kill in that batch loses the three not
    # done. Six runs: three so; in the other three the commit carried 30 while the poll still
    # returned 30-34 (the background thread took allConsumed() between the application thread's
    # fetchable check and its position update), so consumer-3 repeats the two done — the
    # `race` outcome. With consumer-3 joining at 8.6 s the reconciling poll is the one after
    # orders-0's assignment: it waits for the positions stage, which follows the check, and
    # orders-1 is paused first (three runs of three; the model agrees).
    dict(name="group-kip848-4-2-0-poll-returns-a-revoked-partition", kind="group",
         client="java_consumer_protocol_4_2_0", file="group-kip848-4-2-0-poll-returns-a-revoked-partition.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 4000,
                   "group.consumer.heartbeat.interval.ms": 200, "strategy": "auto_commit"},
         group_configs={"consumer.heartbeat.interval.ms": 200, "consumer.session.timeout.ms": 4000},
         initial={1: [0], 2: [1]},
         events=[dict(kind="shutdown", member=1, after=("done", 1, 6), delay=200),
                 dict(kind="join", member=3, after=("done", 2, 26), delay=200)],
         final=[dict(member=2, after=("member_done", 2, 32), delay=200),
                dict(member=3, after=("assigned", 3, 1), delay=300)],
         compare_rebalances=False, any_initial_order=True, full=True,
         race=dict(why="kafka-clients 4.2.0's background thread took the commit's allConsumed() before the poll's "
                       "position update: orders-1 30-34 returned, 30 committed, the two done repeated",
                   real={"orders-1 handovers (from,to,committed,lost,dup)": [[[2, 3, 30, 0, 2], [3, None, 30, 0, 0]]],
                         "orders-1.committed": [30], "orders-1.lost": [0], "orders-1.duplicated": [2]}),
         note="KAFKA-20332 (kafka-clients 4.2.0, model.md §10.6): the poll that starts a reconciliation returns "
              "records of the partition it revokes and the commit before the revocation covers them"),
    # The same with kafka-clients 4.3.1 (KAFKA-20332's fix): the 12 s poll waits for the check,
    # orders-1 is paused and committed at 30 before anything is returned; the poll fetches
    # orders-0, and consumer-3 takes orders-1 from 30 at the acknowledgement.
    dict(name="group-kip848-revoked-partition-paused-first", kind="group", client="java_consumer_protocol",
         file="group-kip848-4-2-0-poll-returns-a-revoked-partition.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 4000,
                   "group.consumer.heartbeat.interval.ms": 200, "strategy": "auto_commit"},
         group_configs={"consumer.heartbeat.interval.ms": 200, "consumer.session.timeout.ms": 4000},
         initial={1: [0], 2: [1]},
         events=[dict(kind="shutdown", member=1, after=("done", 1, 6), delay=200),
                 dict(kind="join", member=3, after=("done", 2, 26), delay=200)],
         final=[dict(member=2, after=("member_done", 2, 32), delay=200),
                dict(member=3, after=("assigned", 3, 1), delay=300)],
         compare_rebalances=False, any_initial_order=True, full=True,
         note="KAFKA-20332's fix (kafka-clients 4.3.1, model.md §10.6): the poll that starts a reconciliation "
              "waits for its check; nothing of the revoked partition is returned"),
    dict(name="group-kip848-keeps-its-partition", kind="group", client="java_consumer_protocol",
         file="g1-crash-waits-out-the-session.json",
         scenario={"partitions": 2, "members": 2, "record_processing_ms": 400, "session.timeout.ms": 4000,
                   "group.consumer.heartbeat.interval.ms": 200, "strategy": "commit_sync_batch"},
         group_configs={"consumer.heartbeat.interval.ms": 200, "consumer.session.timeout.ms": 4000},
         initial={1: [0], 2: [1]},
         events=[dict(kind="crash", member=1, after=("done", 1, 22), delay=200)],
         # consumer-2's own progress (it never leaves orders-1), not the handover, which the real
         # client takes in up to a poll later (README, group-kip848-crash).
         final=[dict(member=2, after=("done", 2, 40), delay=200)],
         compare_rebalances=False, any_initial_order=True,
         note="KIP-848 incremental assignment (model.md §10.1): consumer-2 keeps handing out orders-1's "
              "fetched chunk; the added orders-0 waits"),
    # Issue 25 (model.md §10.5): a cooperative member's own rejoin. consumer-2 dies mid-batch;
    # consumer-3 joins; consumer-1 learns at a heartbeat, sends JoinGroup in its next poll and keeps
    # processing while the round waits for consumer-2's session to expire. Until it reads its
    # SyncGroup response it is not STABLE: its commitSync() calls fail at once
    # (RebalanceInProgressException, nothing sent). consumer-3 joins just after consumer-1's 4 s
    # poll, so consumer-1 sends JoinGroup in its 6 s poll whatever its heartbeats' phase: the 6 s
    # commit lands, the 8 s one fails. The rule before (it was sent and stored) gives orders-0
    # committed 20, 0 repeated at the kill; the rule now 15 and 5.
    dict(name="group-cooperative-rejoin-commit", kind="group", client="java_classic",
         file="group-scale-out.json",
         scenario={"partitions": 2, "members": 2, "partition.assignment.strategy": "cooperative-sticky",
                   "strategy": "commit_sync_batch", "record_processing_ms": 400, "session.timeout.ms": 10000,
                   "heartbeat.interval.ms": 1000},
         initial={1: [0], 2: [1]}, any_initial_order=True,
         events=[dict(kind="crash", member=2, after=("done", 2, 8), delay=200),
                 dict(kind="join", member=3, after=("done", 1, 10), delay=300)],
         final=[dict(member=1, after=("done", 1, 20), delay=200),
                dict(member=3, after=("done", 1, 20), delay=250)],
         note="cooperative rejoin (model.md §10.5): consumer-1's commitSync() between its JoinGroup and its "
              "SyncGroup response fails with RebalanceInProgressException and sends nothing"),
    # Issue 25 (model.md §10.5): no auto-commit while a cooperative member rejoins, and a member
    # awaiting its JoinGroup stays in the group. consumer-3 joins at 3.8 s; consumer-2 dies at 5.4 s
    # without joining the round (its session, refreshed by its heartbeats, runs to ≈ 15 s). The rules
    # before: consumer-3's own session ran out at ≈ 13.8 s (orders-1 never reached it) and
    # consumer-1 auto-committed in every poll of its rejoin (orders-0 committed 30 at the end); now
    # consumer-3 takes orders-1 once consumer-2 expires and orders-0 stays at 15 until the join ends.
    dict(name="group-cooperative-join-waits", kind="group", client="java_classic",
         file="group-scale-out.json",
         scenario={"partitions": 2, "members": 2, "partition.assignment.strategy": "cooperative-sticky",
                   "record_processing_ms": 400, "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000},
         initial={1: [0], 2: [1]}, leader_first=True,
         events=[dict(kind="join", member=3, after=("done", 1, 9), delay=200),
                 dict(kind="crash", member=2, after=("done", 2, 13), delay=200)],
         final=[dict(member=3, after=("assigned", 3, 1), delay=300),
                dict(member=1, after=("assigned", 3, 1), delay=250)],
         note="cooperative join waiting for a dead member (model.md §10.5): consumer-1 sends no auto-commit "
              "from its rejoin until onJoinComplete; consumer-3, awaiting its JoinGroup response, is not "
              "expired"),
    # Random seed 2029 (model.md §10.5): consumer-1 (two records of 1.5 s a poll) joins the round
    # consumer-2 started in its 15 s poll, which completes it, and would read the answer only at
    # its next poll, 3 s on; with no heartbeats meanwhile its 2 s session runs out and consumer-2
    # takes all five partitions at ≈ 17 s. Both are killed 0.3 s later, mid-record, before
    # consumer-1's next poll (what that poll returns races its SyncGroup's answer). With the rule
    # before (heartbeats went on) orders-0 never reached consumer-2.
    dict(name="group-cooperative-leader-expires", kind="group", client="java_classic",
         file="group-scale-out.json",
         scenario={"partitions": 5, "members": 1, "partition.assignment.strategy": "cooperative-sticky",
                   "strategy": "commit_sync_batch", "record_processing_ms": 1500, "max.poll.records": 2,
                   "session.timeout.ms": 2000, "heartbeat.interval.ms": 500},
         initial={1: [0, 1, 2, 3, 4]},
         events=[dict(kind="join", member=2, after=("done", 1, 8), delay=340)],
         final=[dict(member=2, after=("assigned", 2, 0), delay=300),
                dict(member=1, after=("assigned", 2, 0), delay=350)],
         note="a cooperative leader busy with a batch when its JoinGroup is answered (model.md §10.5): no "
              "heartbeats until its next poll reads the answer, so its session expires and the joiner takes "
              "every partition"),
]
CASES += GROUP_CASES

# Share-group cases (issue 15, model.md §11; share.py says how they run): KafkaShareConsumer
# (kafka-clients 4.3.1). `scenario` is the model's share-group scenario the real members run
# (log_end_offset records, all produced before consumer-1 starts); `event` is consumer-1's crash or
# hang at its N-th finished record + delay (mid-record), after which consumer-2 starts.
SHARE_CASES = [
    dict(name="share-crash-implicit", kind="share", client="java_classic", file="share-crash-releases-at-once.json",
         scenario={"members": 1, "record_processing_ms": 500, "log_end_offset": 15, "horizon_ms": 30000},
         event=dict(kind="crash", after=8, delay=250),
         note="model.md §11.4: SIGKILL of a share consumer mid-batch in implicit mode; its acquired batch is "
              "released at once and a second consumer gets it again (delivery 2), repeating the records done"),
    dict(name="share-release-archived", kind="share", client="java_classic",
         file="s11-s2-release-until-archived.json",
         scenario={"share.acknowledgement.mode": "explicit", "record_failures": [0], "on_error": "release",
                   "record_processing_ms": 200, "log_end_offset": 40, "horizon_ms": 60000,
                   "crash_at_ms": 60000},
         note="S2 (model.md §11.2, §11.4): explicit mode, offset 0 RELEASEd at every delivery until "
              "group.share.delivery.count.limit (5) archives it: never delivered again, lost 1; its 4th and 5th "
              "deliveries come alone (Kafka's delivery throttling), with new records still left"),
    dict(name="share-hang-lock-expires", kind="share", client="java_classic",
         file="share-hang-waits-for-the-lock.json",
         scenario={"members": 1, "record_processing_ms": 500, "log_end_offset": 30, "horizon_ms": 60000,
                   "group.share.record.lock.duration.ms": 15000},
         group_configs={"share.record.lock.duration.ms": 15000},
         event=dict(kind="hang", after=8, delay=250, hang_ms=25000),
         note="model.md §11.4: consumer-1 stops polling mid-batch for 25 s; its records stay locked until "
              "the 15 s lock (the broker's minimum) expires, then consumer-2 gets them (delivery 2); "
              "consumer-1 wakes, finishes them and its acknowledgements are refused"),
    dict(name="share-renew-keeps-the-lock", kind="share", client="java_classic",
         file="share-renew-keeps-the-lock.json",
         scenario={"members": 1, "share.acknowledgement.mode": "explicit", "max.poll.records": 1,
                   "record_processing_ms": 20000, "log_end_offset": 1, "horizon_ms": 60000,
                   "group.share.record.lock.duration.ms": 15000, "share_renew_every_ms": 7000},
         group_configs={"share.record.lock.duration.ms": 15000},
         note="model.md §11.3 (KIP-1222): one 20 s record against the 15 s lock, acknowledged with RENEW every "
              "7 s (at 7 and 14 s): each renewal starts the lock over, so the record is delivered once and "
              "accepted at 20 s, 5 s past the lock's duration"),
    dict(name="share-renew-next-record", kind="share", client="java_classic",
         file="share-renew-keeps-the-lock.json",
         scenario={"members": 1, "share.acknowledgement.mode": "explicit", "max.poll.records": 1,
                   "record_processing_ms": 20000, "log_end_offset": 2, "horizon_ms": 90000,
                   "group.share.record.lock.duration.ms": 15000, "share_renew_every_ms": 7000},
         group_configs={"share.record.lock.duration.ms": 15000},
         note="model.md §11.3 (KIP-1222): two 20 s records against the 15 s lock, renewed every 7 s: a renewal's "
              "ShareFetch takes record 1 before the application has it, its lock runs out, and the fetch the next "
              "renewal left waiting takes it back at once (delivery 2); record 1 is processed twice"),
    # Issue 30 (model.md §11.2, KIP-1206): producer batches of 8, max.poll.records 5, under each
    # share.acquire.mode; compared: the records of every poll (`poll_sizes`). Whole suite only.
    dict(name="share-acquire-batch-optimized", kind="share", client="java_classic",
         file="s11-s5-batch-optimized-whole-producer-batches.json",
         scenario={"members": 1, "records_per_producer_batch": 8, "share.acquire.mode": "batch_optimized",
                   "record_processing_ms": 50, "log_end_offset": 40, "horizon_ms": 30000},
         poll_sizes=True, full=True,
         note="model.md §11.2: batch_optimized (Kafka's default) reads on to the end of the producer batch "
              "holding the 5th record: each poll returns a whole batch of 8, five polls"),
    dict(name="share-acquire-record-limit", kind="share", client="java_classic",
         file="s11-s5-batch-optimized-whole-producer-batches.json",
         scenario={"members": 1, "records_per_producer_batch": 8, "share.acquire.mode": "record_limit",
                   "record_processing_ms": 50, "log_end_offset": 40, "horizon_ms": 30000},
         poll_sizes=True, full=True,
         note="model.md §11.2: record_limit acquires 5 of the batch of 8 (the other 3 stay available in the "
              "in-flight batch) and the next fetch takes those 3 and 2 new: eight polls of 5"),
    dict(name="share-acquire-throttled-batch", kind="share", client="java_classic",
         file="s11-s5-batch-optimized-whole-producer-batches.json",
         scenario={"members": 1, "records_per_producer_batch": 8, "share.acquire.mode": "batch_optimized",
                   "max.poll.records": 8, "share.acknowledgement.mode": "explicit",
                   "record_failures": [0, 1, 2, 3, 4, 5, 6, 7], "on_error": "release",
                   "record_processing_ms": 50, "log_end_offset": 8, "horizon_ms": 30000},
         poll_sizes=True, full=True,
         note="model.md §11.2 (SharePartition.acquireSubsetBatchRecords): one producer batch of 8 that fails and "
              "is RELEASEd every time: delivered whole 3 times, then halved (8 >> 1 = 4: 0-3, then 4-7), "
              "then each record's last delivery alone; all 8 archived"),
    # Issue 30 (model.md §11.2): the byte limit of a ShareFetch (whole suite only: a loaded machine
    # can make the first poll take records of the next fetch too). share.py writes each record (a
    # value of 1-2 bytes, no key) as its own producer batch, about 70 bytes on the log; 300 bytes
    # hold four of them (a fifth would need 350), so polls of 4 where max.poll.records is 5.
    dict(name="share-fetch-max-bytes", kind="share", client="java_classic",
         file="share-fetch-max-bytes-bounds-a-poll.json",
         scenario={"members": 1, "fetch.max.bytes": 300, "record_size_bytes": 70,
                   "record_processing_ms": 50, "log_end_offset": 40, "horizon_ms": 30000},
         poll_sizes=True, full=True,
         note="model.md §11.2: fetch.max.bytes is the ShareFetch's MaxBytes; the broker reads whole producer "
              "batches within it: four 70-byte records a poll, ten polls (whole suite only: on a loaded "
              "machine the first poll once took 5, then 3 - it came after the next fetch had arrived)"),
    # The same with fetch.max.bytes 1: the first batch of a read comes whatever its size
    # (ReplicaManager.readFromLog, minOneMessage): a record a poll.
    dict(name="share-fetch-max-bytes-one-batch", kind="share", client="java_classic",
         file="share-fetch-max-bytes-bounds-a-poll.json",
         scenario={"members": 1, "fetch.max.bytes": 1, "record_size_bytes": 70,
                   "record_processing_ms": 50, "log_end_offset": 40, "horizon_ms": 30000},
         poll_sizes=True, full=True,
         note="model.md §11.2: a ShareFetch whose MaxBytes no batch fits still reads the first batch whole: "
              "forty polls of one record (whole suite only: as share-fetch-max-bytes, a first poll of 2 "
              "once, under load)"),
    dict(name="share-throttle-two-failing", kind="share", client="java_classic",
         file="s11-s2-release-until-archived.json",
         scenario={"share.acknowledgement.mode": "explicit", "record_failures": [0, 1], "on_error": "release",
                   "record_processing_ms": 50, "log_end_offset": 10, "horizon_ms": 30000},
         poll_sizes=True, full=True,
         note="model.md §11.2: record_limit, one record per producer batch; 0 and 1 fail every time in the "
              "in-flight batch 0-4 of the first fetch: their 4th deliveries come together (5 >> 1 = 2), the 5th "
              "alone"),
]
CASES += SHARE_CASES

# Probes of one coordinator rule the model follows (issue 30, model.md §10.5,
# `commit_revoked_partitions`): java/RevokedPartitionCommit.java — consumer-2 takes partition 1
# from consumer-1 and commits 30 there; consumer-1 then commits 10 for it. The model's side is
# the rule itself: the coordinator checks the generation (classic) or the current member epoch
# (KIP-848), not who owns the partition, so the commit lands and the offset goes back to 10. Then
# a zombie's TxnOffsetCommit with consumer-1's group metadata from before the rebalance: refused
# under classic (old generation); under KIP-848 refused only for the partition that moved.
PROBE_CASES = [
    dict(name="coordinator-takes-a-revoked-partition-commit", kind="probe", client="java_classic",
         protocol="classic", file="group-pool-commits-a-revoked-partition.json",
         model={"revoked_commit": "accepted", "committed_by_owner": 30, "committed_after": 10,
                "zombie_moved": "CommitFailedException", "zombie_kept": "CommitFailedException",
                "committed_after_zombie": "-1,10"},
         note="model.md §10.5: a classic group takes a commit of the current generation for a partition the "
              "member gave up (ClassicGroup.validateOffsetCommit); §10.6: a TxnOffsetCommit with the generation "
              "from before the rebalance is refused (ILLEGAL_GENERATION)"),
    dict(name="coordinator-takes-a-revoked-partition-commit-kip848", kind="probe", client="java_consumer_protocol",
         protocol="consumer", file="group-pool-commits-a-revoked-partition.json",
         model={"revoked_commit": "accepted", "committed_by_owner": 30, "committed_after": 10,
                "zombie_moved": "CommitFailedException", "zombie_kept": "accepted",
                "committed_after_zombie": "7,10"},
         note="model.md §10.5: a consumer group (KIP-848, 4.3.1) takes a commit with the member's current epoch "
              "for a partition it gave up (ConsumerGroup.validateOffsetCommit); §10.6 (KIP-1251): with the epoch "
              "from before the rebalance, a TxnOffsetCommit is refused for the partition that moved "
              "(STALE_MEMBER_EPOCH, answered ILLEGAL_GENERATION) and taken for the one kept"),
    # go/epochprobe: two members played with raw ConsumerGroupHeartbeat requests (A alone at e1,
    # B joins, A acknowledges the revocation and reaches e2, later B leaves and A takes the moved
    # partition back at e3); a group-less client sends raw OffsetCommit requests with A's member id
    # and the epoch under test, and reads the offsets back (kept,moved). 113 = STALE_MEMBER_EPOCH.
    # e1 is 2 (a new consumer group starts at epoch 1, ModernGroup's constructor; the first join
    # bumps it) or 3 when the coordinator learns of the new topic after A's join (seen once, after
    # the Java probes): A got epoch 2 with no partition, then 3 with both. Not compared.
    dict(name="coordinator-member-epoch-commits-kip848", kind="probe", client="raw_kmsg",
         label="raw ConsumerGroupHeartbeat / OffsetCommit (franz-go v1.22.3 kmsg)",
         protocol="consumer", program="epochprobe", file="group-pool-commits-a-revoked-partition.json",
         model={"e2_minus_e1": 1, "e3_minus_e2": 1, "epoch_a_pending_is_e1": "true",
                "pending_e1_moved": 0, "pending_e1_moved_committed": "-1,10",
                "pending_e1_minus_1_moved": 113, "pending_e1_minus_1_moved_committed": "-1,10",
                "old_e1_kept": 0, "old_e1_kept_committed": "11,10",
                "old_e1_moved": 113, "old_e1_moved_committed": "11,10",
                "current_e2_moved": 0, "current_e2_moved_committed": "11,13",
                "current_e2_kept": 0, "current_e2_kept_committed": "14,13",
                "newer_e2_plus_1_kept": 113, "newer_e2_plus_1_kept_committed": "14,13",
                "older_e1_minus_1_kept": 113, "older_e1_minus_1_kept_committed": "14,13",
                "old_e1_both": "113,113", "old_e1_both_committed": "14,13",
                "old_e2_moved_regained": 113, "old_e2_moved_regained_committed": "14,13",
                "old_e2_kept": 0, "old_e2_kept_committed": "20,13",
                "current_e3_both": "0,0", "current_e3_both_committed": "21,22"},
         note="model.md §10.6 (KIP-848 with KIP-1251, 4.3.1): OffsetCommit with the member's current epoch is "
              "taken for any partition; an older epoch only for a partition the member still holds (assigned or "
              "pending revocation) whose assignment epoch is <= it (ConsumerGroup.validateOffsetCommit, "
              "createAssignmentEpochValidator), else STALE_MEMBER_EPOCH, and one refused partition refuses the "
              "whole request; a newer epoch is refused"),
]
CASES += PROBE_CASES

# Transactions in the log (issue 31; txn.py says how they run): the scenario in txn/ is the
# `offset-window transactions` input; `expect` holds what the issue and Kafka's source predict
# (README "Transactions in the log"): the log end offset, the offsets of the markers, per reader
# the offsets handed to the application, the committed offset and LAG as
# kafka-consumer-groups.sh computes it (log end − committed).
TXN_CASES = [
    dict(name="txn-lag-after-commit", kind="txn", client="java_classic", file="lag-after-commit.json",
         expect=dict(log_end_offset=6, markers=[5], readers={
             "java-position": dict(handed=[0, 1, 2, 3, 4], committed=6, lag=0),
             "java-last-plus-one": dict(handed=[0, 1, 2, 3, 4], committed=5, lag=1),
             "rdk-auto": dict(handed=[0, 1, 2, 3, 4], committed=6, lag=0),
             "rdk-store": dict(handed=[0, 1, 2, 3, 4], committed=5, lag=1),
             # model.md §13.3: kafka-go's Reader hands the commit marker as a message and commits past it.
             "kgo-store": dict(handed=[0, 1, 2, 3, 4, 5], committed=6, lag=0),
             "kgo-auto": dict(handed=[0, 1, 2, 3, 4, 5], committed=6, lag=0)}),
         note="issue 31: 5 records in one transaction, its commit marker at offset 5; the Java consumer's "
              "position steps over the marker (CompletedFetch.nextFetchedRecord), librdkafka's auto offset store "
              "too (rd_kafka_q_serve_rkmessages stores a control message's offset + 1): LAG 0; a commit of the "
              "last record + 1 (Spring's container, store_offsets(msg)) sits at the marker: LAG 1 for ever"),
    dict(name="txn-killed-producer", kind="txn", client="java_classic", file="killed-producer.json", full=True,
         expect=dict(log_end_offset=6, markers=[5], readers={
             "java-position": dict(handed=[3, 4], committed=6, lag=0),
             "java-last-plus-one": dict(handed=[3, 4], committed=5, lag=1),
             "rdk-auto": dict(handed=[3, 4], committed=6, lag=0),
             "java-uncommitted": dict(handed=[0, 1, 2, 3, 4], committed=6, lag=0)},
             # Read once every producer is done or killed (≈ 2 s), before the abort (≥ 4 s): the
             # last stable offset is the open transaction's first offset, read_committed stalls there.
             during=dict(log_end_offset=5, last_stable_offset=0, positions={
                 "java-position": 0, "java-last-plus-one": 0, "rdk-auto": None, "java-uncommitted": 5})),
         note="issue 31: a producer SIGKILLed with 3 records in an open transaction (transaction.timeout.ms 3000); "
              "plain records after it; read_committed readers stop at its first offset until the coordinator's "
              "scan (every 1 s) aborts it, never see its records; a read_uncommitted reader does"),
    dict(name="txn-aborted", kind="txn", client="java_classic", file="aborted.json", full=True,
         expect=dict(log_end_offset=7, markers=[3, 6], readers={
             "java-position": dict(handed=[4, 5], committed=7, lag=0),
             "java-last-plus-one": dict(handed=[4, 5], committed=6, lag=1),
             "rdk-auto": dict(handed=[4, 5], committed=7, lag=0),
             "java-uncommitted": dict(handed=[0, 1, 2, 4, 5], committed=7, lag=0),
             "rdk-uncommitted": dict(handed=[0, 1, 2, 4, 5], committed=7, lag=0),
             # model.md §13.3: kafka-go's Reader hands both markers, and the aborted records under
             # read_committed too.
             "kgo-store": dict(handed=[0, 1, 2, 3, 4, 5, 6], committed=7, lag=0),
             "kgo-auto": dict(handed=[0, 1, 2, 3, 4, 5, 6], committed=7, lag=0),
             "kgo-uncommitted": dict(handed=[0, 1, 2, 3, 4, 5, 6], committed=7, lag=0)}),
         note="issue 31: abortTransaction() after 3 records (abort marker at 3), then a committed transaction of 2 "
              "(commit marker at 6): read_committed never hands 0-2, read_uncommitted does; the log end counts "
              "both markers"),
    dict(name="txn-share-read-committed", kind="txn", client="java_classic", file="share-read-committed.json",
         full=True,
         expect=dict(log_end_offset=6, markers=[5], readers={
             "share-committed": dict(handed=[3, 4]),
             "share-uncommitted": dict(handed=[0, 1, 2, 3, 4]),
             "java-position": dict(handed=[3, 4], committed=6, lag=0)},
             during=dict(log_end_offset=5, last_stable_offset=0, positions={"java-position": 0})),
         note="issue 31: txn-killed-producer read by share groups (KafkaShareConsumer 4.3.1): with the group config "
              "share.isolation.level=read_committed the group stops at the open transaction until its timed-out "
              "abort and never delivers its records; read_uncommitted (the default) delivers them at once"),
]
CASES += TXN_CASES

# Exactly-once pipelines (issue 32; eos.py says how they run): the scenario in eos/ is the
# `offset-window pipeline` input; the expected values come from Kafka's rules applied to the run's
# own logs (README "Exactly-once pipelines"). `restart_transactional_id` (CTP only, not in the
# scenario format): the restarted instance's transactional.id, the same one (its
# initTransactions() aborts the killed transaction at once) or a new one (the transaction waits for
# transaction.timeout.ms and the coordinator's scan).
EOS_LABEL = "kafka-clients 4.3.1 (classic, cooperative-sticky) + transactional producer"
EOS_CASES = [
    dict(name="eos-ctp-killed-mid-transaction", kind="eos", client="java_classic", label=EOS_LABEL,
         known={"real": {"model transactions aborted by CommitFailedException": [1, 2, 3]},
                "why": "a surviving instance's transaction open across the rebalance's generation bump is aborted on "
                       "CommitFailedException (its TxnOffsetCommit carries the generation of consumer.groupMetadata(), "
                       "updated only when the member completes the join) and re-processed: its inputs are seen twice "
                       "by read_uncommitted; the model's rebalance has no such window"},
         file="ctp-killed-mid-transaction.json", restart_transactional_id="new",
         note="issue 32: a consume-transform-produce instance SIGKILLed between sendOffsetsToTransaction and "
              "commitTransaction, restarted with a new transactional.id: read_committed sees every input once, "
              "read_uncommitted sees the killed transaction's inputs twice; the input partition stalls until the "
              "coordinator's timed-out rollback (UNSTABLE_OFFSET_COMMIT for the new owner's OffsetFetch)"),
    dict(name="eos-ctp-killed-same-txn-id", kind="eos", client="java_classic", label=EOS_LABEL,
         known={"real": {"model transactions aborted by CommitFailedException": [1, 2, 3]},
                "why": "a surviving instance's transaction open across the rebalance's generation bump is aborted on "
                       "CommitFailedException (its TxnOffsetCommit carries the generation of consumer.groupMetadata(), "
                       "updated only when the member completes the join) and re-processed: its inputs are seen twice "
                       "by read_uncommitted; the model's rebalance has no such window"},
         file="ctp-killed-mid-transaction.json", restart_transactional_id="same", full=True,
         note="issue 32: the same kill, the instance restarted with its own transactional.id: its "
              "initTransactions() aborts the open transaction at once; the stall is the rebalance's (the dead "
              "member's session timeout)"),
    dict(name="eos-ctp-killed-before-offsets", kind="eos", client="java_classic", label=EOS_LABEL,
         known={"real": {"model transactions aborted by CommitFailedException": [1, 2, 3]},
                "why": "a surviving instance's transaction open across the rebalance's generation bump is aborted on "
                       "CommitFailedException (its TxnOffsetCommit carries the generation of consumer.groupMetadata(), "
                       "updated only when the member completes the join) and re-processed: its inputs are seen twice "
                       "by read_uncommitted; the model's rebalance has no such window"},
         file="ctp-killed-mid-transaction.json", restart_transactional_id="new", die_point="before_offsets", full=True,
         note="issue 32: the same kill one step earlier, after the outputs and before sendOffsetsToTransaction, restarted "
              "with a new transactional.id: no offsets pending, so the new owner reads the committed offset at once "
              "(no UNSTABLE_OFFSET_COMMIT) and re-processes; only the output's read_committed readers wait for the "
              "timed-out rollback"),
    dict(name="eos-streams-eos-v2-kill", kind="eos", client="java_classic",
         label="kafka-streams 4.3.1, exactly_once_v2, one stream thread", file="streams-eos-v2-kill.json",
         note="issue 32: a Kafka Streams instance (exactly_once_v2, commit.interval.ms 1000, not the 100 default, so "
              "that the killed transaction holds outputs) SIGKILLed between commits and restarted (a new process id, "
              "so a new transactional.id): read_committed sees every input once; read_uncommitted sees twice what "
              "it processed after its last commit; the input partition does not wait for the abort (no offsets "
              "pending), the output's read_committed readers do (its last stable offset) until the timed-out rollback"),
    dict(name="eos-streams-alo-kill", kind="eos", client="java_classic", full=True,
         label="kafka-streams 4.3.1, at_least_once, one stream thread", file="streams-alo-kill.json",
         note="issue 32: the same kill under at_least_once (commit.interval.ms 1000, not the 30000 default): "
              "both readers see twice what the instance processed after its last commit"),
]
CASES += EOS_CASES


def run_probe(case, broker, workdir):
    """Runs a probe case: its program's `key value` lines are the real side. `program`: the Java
    RevokedPartitionCommit (default) or a Go binary in .cache/bin (`go/<program>`)."""
    tag = "%s-%d" % (case["name"], int(time.time() * 1000))
    program = case.get("program", "RevokedPartitionCommit")
    if program == "RevokedPartitionCommit":
        cp = os.pathsep.join([os.path.join(CACHE, "classes", "431"), os.path.join(LIB, "client431", "*")])
        argv = ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", cp, "RevokedPartitionCommit",
                broker.addr, case["protocol"], "orders-" + tag, "g-" + tag]
    else:
        argv = [os.path.join(CACHE, "bin", program), broker.addr, "orders-" + tag, "g-" + tag]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=240)
    with open(os.path.join(workdir, "consumer.log"), "w") as f:
        f.write(out.stdout + out.stderr)
    real = {}
    for line in out.stdout.splitlines():
        key, _, value = line.partition(" ")
        real[key] = int(value) if value.lstrip("-").isdigit() else value
    reached = real.get("done") == 1 if program != "RevokedPartitionCommit" else \
        real.get("assignment") == "consumer-1 0 consumer-2 1"
    if out.returncode != 0 or not reached:
        raise RuntimeError("the probe did not reach its assignment (exit %d): %s" % (out.returncode, out.stdout[-500:]))
    pairs = [(k, v, real.get(k)) for k, v in case["model"].items()]
    return {}, case["model"], real, pairs


def derive(case):
    base = json.load(open(os.path.join(ROOT, "scenarios", case["file"])))["scenario"]
    sc = dict(base)
    over = dict(case["over"])
    factor = over.pop("__scale__", 1)
    if factor != 1:
        for k in TIME_KEYS:
            v = sc.get(k, DEFAULT_TIMES.get(k))
            if v is not None:
                sc[k] = v * factor
    sc.update(over)
    for k in ("crash_at_ms", "close_at_ms"):
        sc.pop(k, None)
    sc.setdefault("client", case["client"])
    # Every case runs a new group (its own group id) whose consumers read from the start of the
    # log (ConformanceConsumer, rdk_consumer: auto.offset.reset=earliest): so does the model.
    sc.setdefault("new_group", True)
    sc.setdefault("auto.offset.reset", "earliest")
    return sc


def model(sc, fmt="json"):
    out = subprocess.run([MODEL, "run", "--format", fmt, "-"], input=json.dumps(sc), capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("offset-window run failed: " + out.stderr.strip() + " on " + json.dumps(sc))
    return json.loads(out.stdout)


def model_marks(sc):
    """The result plus every mark of the model's timeline (the CLI's hidden `--format marks`)."""
    return model(sc, "marks")


def ms(us):
    """Microseconds as the model's millisecond input (exact decimal text, at most 3 decimals)."""
    return us // 1000 if us % 1000 == 0 else us / 1000.0


def completed_runs(sc, t_us):
    """Records finished before the crash instant t (model.md §5: committed − lost + duplicated =
    Σ k(o), the completed runs). For transactions the read_uncommitted view counts a record at
    its completion (model.md §8.10)."""
    s = dict(sc, crash_at_ms=ms(t_us), horizon_ms=max(ms(t_us), sc.get("horizon_ms", 12000)))
    s.pop("close_at_ms", None)
    if s.get("strategy") == "transactional":
        s["isolation.level"] = "read_uncommitted"
    a = model(s)["at_crash"]
    # A new group before its first commit restarts where auto.offset.reset resolves: the log
    # start, as every case reads with earliest (derive).
    c = a["committed"] if a["committed"] is not None else sc.get("log_start_offset", 0)
    return c - a["lost"] + a["duplicated"]


def model_done_instant(sc, n):
    """The model's instant (µs) of the n-th finished record: the first t with n runs before t + 1 µs."""
    lo, hi = 0, 1000
    while completed_runs(sc, hi + 1) < n:
        lo, hi = hi, hi * 2
        if hi > 86_400_000_000:
            raise RuntimeError("the model never finishes record %d" % n)
    while hi - lo > 1:  # invariant: runs(lo + 1) < n <= runs(hi + 1)
        mid = (lo + hi) // 2
        if completed_runs(sc, mid + 1) >= n:
            hi = mid
        else:
            lo = mid
    return hi


def model_at(sc, t_us):
    s = dict(sc, crash_at_ms=ms(t_us), horizon_ms=max(ms(t_us), sc.get("horizon_ms", 12000)))
    s.pop("close_at_ms", None)
    return model(s)["at_crash"]


# ---------------------------------------------------------------- broker

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


BROKER_PROPERTIES = """\
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:{cport}
listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{cport}
advertised.listeners=PLAINTEXT://127.0.0.1:{port}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs={data}
num.partitions=1
auto.create.topics.enable=false
offsets.topic.num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
# Lower bounds only, so that a case may set short sessions and heartbeats for its own group
# (classic: the client's session.timeout.ms; consumer / share groups: the group configs
# consumer.heartbeat.interval.ms, share.heartbeat.interval.ms, ...). The broker's defaults stay.
group.min.session.timeout.ms=500
group.consumer.min.session.timeout.ms=1000
group.consumer.min.heartbeat.interval.ms=50
group.share.min.session.timeout.ms=1000
group.share.min.heartbeat.interval.ms=50
# Issue 31 (txn cases): the coordinator looks for timed-out transactions every second instead of
# every 10 s, as Kafka's own tests do, so that a producer killed mid-transaction is aborted within
# seconds. transaction.max.timeout.ms keeps its default (900000); a producer's
# transaction.timeout.ms has no lower bound but > 0 (TransactionStateManager.validateTransactionTimeoutMs).
transaction.abort.timed.out.transaction.cleanup.interval.ms=1000
"""


class Broker:
    """One Apache Kafka node (KRaft, broker + controller in one JVM) for the whole suite run, data
    in a temporary directory; the cases use their own topics and groups."""

    def __init__(self, workdir):
        self.dir = workdir
        self.port, cport = free_port(), free_port()
        self.addr = "127.0.0.1:%d" % self.port
        props = os.path.join(workdir, "server.properties")
        with open(props, "w") as f:
            f.write(BROKER_PROPERTIES.format(port=self.port, cport=cport, data=os.path.join(workdir, "data")))
        cp = os.path.join(LIB, "broker", "*")
        java = ["java", "-Xms256m", "-Xmx768m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-Dlog4j2.configurationFile=" + os.path.join(HERE, "log4j2.properties"), "-cp", cp]
        # A cluster id starting with '-' reads as an option to kafka-storage (one in 64 draws);
        # Kafka's own Uuid.randomUuid() skips those too.
        cluster = "-"
        while cluster.startswith("-"):
            cluster = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        self.log = open(os.path.join(workdir, "broker.log"), "w")
        subprocess.run(java + ["kafka.tools.StorageTool", "format", "--standalone", "-t", cluster, "-c", props],
                       stdout=self.log, stderr=self.log, check=True)
        self.proc = subprocess.Popen(java + ["kafka.Kafka", props], stdout=self.log, stderr=self.log)
        deadline = time.time() + 90
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the broker exited; see %s" % self.log.name)
            if "Kafka Server started" in open(self.log.name).read():
                return
            time.sleep(0.1)
        raise RuntimeError("the broker did not start within 90 s; see %s" % self.log.name)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()

    def admin(self):
        # One client for the run: a temporary AdminClient can be destroyed before its futures resolve.
        if getattr(self, "_admin", None) is None:
            self._admin = AdminClient({"bootstrap.servers": self.addr, "log_level": 0})
        return self._admin

    def create_topic(self, name):
        self.admin().create_topics([NewTopic(name, 1, 1)])[name].result(30)

    def set_group_config(self, group, key, value):
        r = ConfigResource(ConfigResource.Type.GROUP, group, incremental_configs=[
            ConfigEntry(key, str(value), incremental_operation=AlterConfigOpType.SET)])
        for f in self.admin().incremental_alter_configs([r]).values():
            f.result(30)

    def produce(self, topic, n):
        p = Producer({"bootstrap.servers": self.addr, "linger.ms": 5, "log_level": 0})
        for i in range(n):
            p.produce(topic, value=str(i).encode())
        p.flush(30)
        probe = Consumer({"bootstrap.servers": self.addr, "group.id": "probe"})
        lo, hi = probe.get_watermark_offsets(TopicPartition(topic, 0), timeout=30)
        probe.close()
        if hi != n:
            raise RuntimeError("topic %s has end offset %d after producing %d" % (topic, hi, n))

    def committed(self, group, topic):
        c = Consumer({"bootstrap.servers": self.addr, "group.id": group, "enable.auto.commit": False})
        try:
            off = c.committed([TopicPartition(topic, 0)], timeout=30)[0].offset
        finally:
            c.close()
        return None if off < 0 else off

    def settled_committed(self, group, topic, end_time):
        """Read at +1 s and +2 s after `end_time`; keep reading until two reads agree."""
        reads = []
        for at in (1.0, 2.0, 3.0, 4.0, 6.0, 8.0):
            time.sleep(max(0.0, end_time + at - time.time()))
            reads.append(self.committed(group, topic))
            if len(reads) >= 2 and reads[-1] == reads[-2]:
                break
        return reads[-1], reads

    def read_all(self, topic, isolation, group):
        c = Consumer({"bootstrap.servers": self.addr, "group.id": group, "isolation.level": isolation,
                      "enable.auto.commit": False})
        c.assign([TopicPartition(topic, 0, 0)])
        values, idle_until = [], time.time() + 2.0
        while time.time() < idle_until:
            for m in c.consume(num_messages=100, timeout=0.2):
                if not m.error():
                    values.append(m.value().decode())
                    idle_until = time.time() + 1.0
        c.close()
        return values


# ---------------------------------------------------------------- real consumer

def start_consumer(case, sc, broker, workdir, topic, group):
    logf = os.path.join(workdir, "consumer.log")
    errf = open(os.path.join(workdir, "consumer.stderr"), "w")
    client = CLIENTS[case["client"]]
    strategy = sc.get("strategy", "auto_commit")
    settings = {
        "bootstrap": broker.addr, "topic": topic, "group": group, "log": logf,
        "max.poll.records": sc.get("max.poll.records", 5),
        "auto.commit.interval.ms": sc.get("auto.commit.interval.ms", 5000),
        "record_processing_ms": sc.get("record_processing_ms", 200),
        "strategy": strategy,
        "session.timeout.ms": 6000, "heartbeat.interval.ms": 200,
    }
    if client["jar"]:
        args = dict(settings)
        args.update({"group.protocol": client["protocol"],
                     "worker_pool": str(sc.get("worker_pool", False)).lower(),
                     "pool_threads": sc.get("pool_threads", 1),
                     "pool_max_in_flight_batches": sc.get("pool_max_in_flight_batches", 3),
                     "commit_value": sc.get("commit_value", "next_offset"),
                     "max.poll.interval.ms": sc.get("max.poll.interval.ms", 300000),
                     "commit_failures": ",".join(str(n) for n in sc.get("commit_failures", [])),
                     "retry_async_in_callback": str(sc.get("retry_async_in_callback", False)).lower(),
                     "ordering": sc.get("ordering", "batch"), "pool_commit": sc.get("pool_commit", "handed_out"),
                     "record_processing_ms_by_offset": ",".join("%s:%s" % kv for kv in
                                                                 sc.get("record_processing_ms_by_offset", {}).items()),
                     "out_topic": topic + "-out", "txn_id": group + "-txn"})
        if case.get("mode") == "close":
            args["close_after"] = case["after"] - 1  # offsets from 0, in order: the N-th record is offset N - 1
            args["close_delay_ms"] = case["delay"]
        if sc.get("script"):
            args["script"] = ";".join(sc["script"])
            if case.get("admin_reads"):
                args["script_committed"] = "admin"
        cp = os.pathsep.join([os.path.join(CACHE, "classes", client["jar"]), os.path.join(LIB, "client" + client["jar"], "*")])
        cmd = ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
               "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", cp, "ConformanceConsumer"]
        cmd += ["%s=%s" % kv for kv in args.items()]
    else:
        cfg = dict(settings)
        cfg["script"] = sc.get("script")
        if sc.get("worker_pool"):
            cfg.update({"worker_pool": True, "pool_threads": sc.get("pool_threads", 1),
                        "pool_max_in_flight_batches": sc.get("pool_max_in_flight_batches", 3),
                        "ordering": sc.get("ordering", "batch"), "pool_commit": sc.get("pool_commit", "handed_out"),
                        "commit_value": sc.get("commit_value", "next_offset"),
                        "record_processing_ms_by_offset": sc.get("record_processing_ms_by_offset", {})})
        if case.get("mode") == "close":
            cfg["close_after"] = case["after"] - 1  # as for the Java consumer
            cfg["close_delay_ms"] = case["delay"]
        cfgf = os.path.join(workdir, "consumer.json")
        json.dump(cfg, open(cfgf, "w"))
        cmd = client.get("prog", [sys.executable, os.path.join(HERE, "rdk_consumer.py")]) + [cfgf]
    env = dict(os.environ, PYTHONPATH=os.path.join(CACHE, "py"))
    return subprocess.Popen(cmd, stdout=errf, stderr=errf, env=env), logf


def read_log(path):
    try:
        return [line.split() for line in open(path).read().splitlines() if line.strip()]
    except FileNotFoundError:
        return []


def wait_for(proc, logf, pred, what, timeout):
    """Polls the consumer's log every 2 ms until pred(lines) gives a value."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = pred(read_log(logf))
        if v is not None:
            return v
        if proc.poll() is not None:
            v = pred(read_log(logf))
            if v is not None:
                return v
            raise RuntimeError("the consumer exited before %s" % what)
        time.sleep(0.002)
    raise RuntimeError("no %s within %d s" % (what, timeout))


def nth_done(lines, n):
    k = 0
    for w in lines:
        if w[0] == "done":
            k += 1
            if k == n:
                return float(w[1])
    return None


def event_times(lines):
    """Instants (ms after T0) at which the client's state changed, from its own log."""
    ts = []
    for w in lines:
        if w[0] in ("poll", "done", "close_begin", "close_end", "commit_failed", "callback", "retry"):
            ts.append(float(w[1]))
        elif w[0] in ("commit", "txn"):
            ts += [float(w[1]), float(w[2])]
    return ts


def tally(runs_by_offset, committed, position):
    """model.md §5 with k(o) = completed runs of offset o. `committed` None (the group has no
    offset) stays null, as the model's new group reports it (model.md §8.9)."""
    c = committed or 0
    lost = sum(1 for o in range(c) if runs_by_offset.get(o, 0) == 0)
    dup = sum(max(0, k - 1) for o, k in runs_by_offset.items() if o < c)
    dup += sum(k for o, k in runs_by_offset.items() if o >= c)
    durable = 0
    while runs_by_offset.get(durable, 0) > 0:
        durable += 1
    return {"position": position, "durable": durable, "committed": committed, "lost": lost, "duplicated": dup,
            "reread": max(0, position - c)}


def count_runs(values):
    runs = {}
    for v in values:
        if v.isdigit():
            runs[int(v)] = runs.get(int(v), 0) + 1
    return runs


def last_position(lines):
    """The position after the last poll that returned records (a poll after an eviction
    restarts from the committed offset, so the last one counts, not the highest)."""
    pos = 0
    for w in lines:
        if w[0] == "poll" and int(w[3]) > 0:
            pos = int(w[2]) + int(w[3])
    return pos


def run_case(case, broker, workdir, attempt):
    sc = derive(case)
    mode = case.get("mode", "crash")
    real, info = {}, {}
    if mode != "script":
        trig_us = model_done_instant(sc, case["after"])
        at_us = trig_us + case["delay"] * 1000
        info["model_trigger_ms"] = trig_us / 1000.0
        key = "close_at_ms" if mode == "close" else "crash_at_ms"
        sc[key] = ms(at_us)
        sc["horizon_ms"] = max(sc.get("horizon_ms", 12000), ms(at_us) + (60000 if mode == "close" else 0))
    m = model(sc)
    tag = "%s-%d-%s" % (case["name"].lower(), attempt, uuid.uuid4().hex[:6])
    topic, group = "orders-" + tag, "g-" + tag
    broker.create_topic(topic)
    if sc.get("strategy") == "transactional":
        broker.create_topic(topic + "-out")
    if case.get("heartbeat_ms"):
        broker.set_group_config(group, "consumer.heartbeat.interval.ms", case["heartbeat_ms"])
    n_records = sc.get("log_end_offset", 100000)
    if n_records > 1000:
        # Enough backlog that every poll before the crash / close is full, plus a few batches.
        at = sc.get("crash_at_ms") or sc.get("close_at_ms")
        # (A pool's threads each finish a record per record time.)
        n_records = int(at / sc.get("record_processing_ms", 200)) * sc.get("pool_threads", 1) + \
            3 * sc.get("max.poll.records", 5) * sc.get("pool_max_in_flight_batches", 3) + 10
    broker.produce(topic, n_records)
    proc, logf = start_consumer(case, sc, broker, workdir, topic, group)
    kill_at = None
    try:
        t0 = wait_for(proc, logf, lambda ls: next((float(w[1]) for w in ls if w[0] == "T0"), None),
                      "its first records", 60)
        if mode == "crash":
            trig = wait_for(proc, logf, lambda ls: nth_done(ls, case["after"]),
                            "record %d finished" % case["after"], 120)
            kill_at = trig + case["delay"]
            time.sleep(max(0.0, t0 + kill_at / 1000.0 - time.time()))
            proc.send_signal(signal.SIGKILL)
            end = time.time()
            real["killed_at_ms"] = round((end - t0) * 1000.0, 1)
            real["trigger_ms"] = trig
            proc.wait()
        else:
            proc.wait(timeout=120)
            end = time.time()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = read_log(logf)
    # The phase the client measured (issue 25, rule 4; model.md §8.2): librdkafka's auto-commit
    # timer runs from the consumer's creation, which comes before its first records (T0). The
    # model is run again with it.
    phase = next((float(w[1]) for w in lines if w[0] == "created_before_start"), None)
    if phase is not None:
        sc["consumer_created_before_start_ms"] = ms(int(round(phase * 1000)))
        info["created_before_start_ms"] = phase
        if mode != "script":
            trig_us = model_done_instant(sc, case["after"])
            at_us = trig_us + case["delay"] * 1000
            info["model_trigger_ms"] = trig_us / 1000.0
            sc["close_at_ms" if mode == "close" else "crash_at_ms"] = ms(at_us)
        m = model(sc)
    txn = sc.get("strategy") == "transactional"
    if txn:
        # A restarted application's initTransactions() fences the killed producer and aborts its
        # open transaction; downstream readers then read the output topic.
        # A marker in a committed transaction after the fence proves the abort: a read_committed
        # reader reaches it only once the killed transaction is no longer open.
        p = Producer({"bootstrap.servers": broker.addr, "transactional.id": group + "-txn", "log_level": 0})
        p.init_transactions(30)
        p.begin_transaction()
        p.produce(topic + "-out", value=b"marker")
        p.commit_transaction(30)
        del p
    committed, reads = broker.settled_committed(group, topic, end)
    real["committed_reads"] = reads
    position = last_position(lines)
    if txn:
        out_rc = broker.read_all(topic + "-out", "read_committed", group + "-rc")
        if "marker" not in out_rc:
            raise RuntimeError("read_committed never reached the marker written after the fence: "
                               "the killed transaction was not aborted")
        real["at"] = tally(count_runs(out_rc), committed, position)
        real["at_uncommitted"] = tally(count_runs(broker.read_all(topic + "-out", "read_uncommitted", group + "-ru")),
                                       committed, position)
    else:
        real["at"] = tally(count_runs([w[2] for w in lines if w[0] == "done"]), committed, position)
    if sc.get("script"):
        # A script starts as a new group (model.md §8.11): no committed offset stays none, not 0
        # (random seed 1006: close() with nothing committed read as 0).
        real["at"]["committed"] = committed
        real["script"] = [None if w[-1] == "none" else int(w[-1]) for w in lines
                          if w[0] == "step" and w[3] == "position"]
        real["script"].append(committed)  # the close step: read from the broker afterwards
    if mode == "crash":
        ts = event_times(lines)
        # The crash happened somewhere between the planned instant and the kill's return: the
        # margin is the distance from that window to the client's nearest own event.
        lo, hi = kill_at, max(kill_at, real["killed_at_ms"])
        real["margin_ms"] = round(min([0.0 if lo <= t <= hi else min(abs(t - lo), abs(t - hi))
                                       for t in ts] or [float("inf")]), 1)
    elif mode == "close":
        begin = next((float(w[1]) for w in lines if w[0] == "close_begin"), None)
        # What close() itself runs (its commit, the callbacks it invokes) is no neighbour.
        cb = next((i for i, w in enumerate(lines) if w[0] == "close_begin"), len(lines))
        ce = next((i for i, w in enumerate(lines) if w[0] == "close_end"), len(lines))
        ts = event_times([w for i, w in enumerate(lines) if not cb <= i <= ce])
        if begin is not None:
            real["close_at_ms"] = begin
            real["margin_ms"] = round(min([abs(t - begin) for t in ts] or [float("inf")]), 1)
    return sc, m, real, lines, info


FIELDS = ("committed", "position", "durable", "lost", "duplicated")

# Every trigger delay sits ≥ 150 ms from the next event of the model and of the client. When the
# client's own log still puts an event closer than this to the crash or close (the kill came very
# late, a sleep overshot), the experiment missed its quiet stretch and says nothing about the
# model: the case runs again, up to ATTEMPTS times, and fails if it never gets a clean one.
MIN_MARGIN_MS = 50.0
ATTEMPTS = 3
# CONFORMANCE_STRICT=1 counts the known disagreements as failures too.
STRICT = os.environ.get("CONFORMANCE_STRICT") == "1"


def compare(case, sc, m, real):
    """Pairs (label, model value, real value) that must be equal."""
    pairs = []
    if sc.get("script"):
        model_steps = [s["committed"] for s in m["script"]]
        pairs.append(("committed after each step", model_steps, real["script"]))
        for f in FIELDS:
            pairs.append(("at_close." + f, m["at_close"][f], real["at"][f]))
    elif sc.get("close_at_ms") is not None:
        for f in FIELDS:
            pairs.append(("at_close." + f, m["at_close"][f], real["at"][f]))
    else:
        for f in FIELDS:
            mv, rv = m["at_crash"][f], real["at"][f]
            if f == "committed" and not str(sc.get("client", "")).startswith("librdkafka"):
                # The Java client's first commit covers every assigned partition, and a crash
                # before any commit restarts where earliest resolves: "none" and the log start
                # are the same start there (docs/model.md §8.2; group.py does the same).
                start = sc.get("log_start_offset", 0)
                mv, rv = (start if mv is None else mv), (start if rv is None else rv)
            pairs.append((f, mv, rv))
        if sc.get("strategy") == "transactional":
            pairs.append(("reread", m["at_crash"]["reread"], real["at"]["reread"]))
            if case.get("also_read_uncommitted"):
                mu = model(dict(sc, **{"isolation.level": "read_uncommitted"}))
                for f in ("committed", "lost", "duplicated"):
                    pairs.append(("read_uncommitted." + f, mu["at_crash"][f], real["at_uncommitted"][f]))
    return pairs


def fmt(pairs, side):
    return " ".join("%s=%s" % (p[0], json.dumps(p[side]).replace(" ", "")) for p in pairs)


def timelines(case, sc, real, lines, info):
    """Both timelines side by side: each line of the client's log, and the model's state at the
    corresponding instant (real instants shifted so that the triggers coincide)."""
    out = []
    shift = 0.0
    if "trigger_ms" in real and "model_trigger_ms" in info:
        shift = info["model_trigger_ms"] - real["trigger_ms"]
    elif sc.get("close_at_ms") is not None and real.get("close_at_ms") is not None:
        shift = sc["close_at_ms"] - real["close_at_ms"]
    out.append("  timelines (model instant = real instant %+.1f ms; model state just after it):" % shift)
    timed = [w for w in lines if len(w) > 1 and w[0] in ("poll", "done", "commit", "commit_failed", "callback",
                                                         "retry", "txn", "close_begin", "close_end", "step")]
    for w in timed[-30:]:
        t = float(w[2] if w[0] == "step" else (w[2] if w[0] in ("commit", "txn") else w[1]))
        tm = t + shift
        desc = ""
        if not sc.get("script") and 0 < tm:
            try:
                a = model_at(sc, int(round(tm * 1000)) + 1)
                desc = "model@%.3f: position %s durable %s committed %s" % (tm, a["position"], a["durable"],
                                                                            a["committed"])
            except Exception as e:  # noqa: BLE001 (a report line, never a verdict)
                desc = "model: %s" % e
        out.append("    real %-42s | %s" % (" ".join(w), desc))
    return out


GCTX = group.Ctx(model=lambda sc: model(sc), model_done_instant=lambda sc, n: model_done_instant(sc, n),
                 model_marks=lambda sc: model_marks(sc), ms=ms, CLIENTS=CLIENTS, CACHE=CACHE, LIB=LIB, HERE=HERE,
                 MODEL=MODEL, ROOT=ROOT)


# ---------------------------------------------------------------- random cases (issue 26)

class Harness:
    """What random_cases.py borrows to check a draw against the model's own timeline."""
    derive = staticmethod(derive)
    marks = staticmethod(model_marks)
    model_done_instant = staticmethod(model_done_instant)
    ms = staticmethod(ms)
    gctx = GCTX


# The CI slice (README "Random cases"): 8 seeds that agreed in every run since their draw (all
# java_classic: no librdkafka or kafka-clients 3.9.2 timers, no consumer-protocol groups).
# (seed, family).
CI_SEEDS = [(2026, "single"), (2003, "single"), (2012, "single"), (2025, "single"), (2001, "records"),
            (2029, "group"), (2077, "group"), (2000, "share")]

# Repeated disagreements that are documented client races, not model departures (README
# "Known disagreements"). Anything else that repeats fails the CI slice.
KNOWN_RANDOM = [
    dict(name="kip848-auto-commit-race",
         why="kafka-clients 4.3.1 races the poll's auto-commit against handing out that poll's batch "
             "(AsyncKafkaConsumer.collectFetch does not wait for the AsyncPollEvent): docs/model.md §8.4",
         match=lambda case, sc: sc.get("client") == "java_consumer_protocol"
         and sc.get("strategy", "auto_commit") == "auto_commit"),
    dict(name="kip848-pre-fix-poll-commit-race",
         why="kafka-clients 3.9.2 races a poll's auto-commit against handing out that poll's batch "
             "(AsyncKafkaConsumer.poll does not wait for its PollEvent): docs/model.md §8.4",
         match=lambda case, sc: sc.get("client") == "java_consumer_protocol_pre_fix"
         and sc.get("strategy", "auto_commit") == "auto_commit"),
]

SHRINK_RUNS = 15
SHRINK_SECONDS = 600
BROKEN_RULES = ("auto_commit_late", "close_commits_nothing", "cooperative_revoke_commits", "one_partition_per_poll")


def known_random(case, sc):
    return next((k for k in KNOWN_RANDOM if k["match"](case, sc)), None)


def quietly(fn, *args):
    """fn(*args) with its printed report kept, not shown: (result, text)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        r = fn(*args)
    return r, buf.getvalue()


def shrink(case, broker, keep, report):
    """Smaller variants while they still disagree, at most SHRINK_RUNS real runs or
    SHRINK_SECONDS. Returns (smallest case, its report, real runs)."""
    best, best_report, runs, start = case, report, 0, time.time()
    progress = True
    while progress and runs < SHRINK_RUNS and time.time() - start < SHRINK_SECONDS:
        progress = False
        for what, cand in random_cases.shrink_steps(best):
            if runs >= SHRINK_RUNS or time.time() - start >= SHRINK_SECONDS:
                break
            try:
                random_cases.CHECKS[cand["random"]["family"]](cand, Harness)
            except (random_cases.Rejected, RuntimeError) as e:
                print("  shrink: %s — refused by the draw rules (%s)" % (what, str(e)[:100]))
                continue
            (verdict, diffs, sc, err), text = quietly(execute, cand, broker, keep)
            runs += 1
            if verdict == "FAIL" and err is None:
                print("  shrink: %s — still disagrees (%s)" % (what, "; ".join(d[0] for d in diffs)), flush=True)
                best, best_report, progress = cand, text, True
                break
            print("  shrink: %s — %s%s" % (what, "agrees" if verdict == "PASS" else verdict.lower(),
                                          " (%r)" % err if err else ""), flush=True)
    return best, best_report, runs, time.time() - start


def run_random(broker, seeds, keep, do_shrink=True, label="random"):
    """Each (seed, family): draw, run, re-run a disagreement, shrink one that repeats. Returns
    the per-family tallies and the list of repeated disagreements not on the known list."""
    tally = {}
    unknown = []
    for seed, family in seeds:
        case, rejected = random_cases.draw(seed, family, Harness)
        fam = case["random"]["family"]
        t = tally.setdefault(fam, {"cases": 0, "agreed": 0, "disagreed": 0, "known": 0, "unstable": 0, "errors": 0})
        t["cases"] += 1
        print("%s seed %d family %s (%d draws rejected) scenario: %s" % (
            label, seed, fam, len(rejected), random_cases.describe(case)), flush=True)
        (verdict, diffs, sc, err), text = quietly(execute, case, broker, keep)
        print(text, end="", flush=True)
        if verdict == "PASS":
            t["agreed"] += 1
            continue
        if err is not None:
            t["errors"] += 1
            unknown.append((seed, fam, "error: %r" % err))
            continue
        print("  %s seed %d disagrees: running it again" % (label, seed), flush=True)
        (v2, d2, _, err2), text2 = quietly(execute, case, broker, keep)
        if v2 == "PASS" or err2 is not None or d2 != diffs:
            t["unstable"] += 1
            print("  seed %d: the second run %s — not repeated (%s)" % (
                seed, "agreed" if v2 == "PASS" else "gave other values", "; ".join(
                    "%s model %s real %s" % (d[0], json.dumps(d[1]), json.dumps(d[2])) for d in d2) or err2),
                flush=True)
            continue
        kn = known_random(case, sc)
        if kn:
            t["known"] += 1
            print("  KNOWN seed %d: repeated, on the known list (%s): %s" % (seed, kn["name"], kn["why"]), flush=True)
            continue
        t["disagreed"] += 1
        unknown.append((seed, fam, "; ".join("%s model %s real %s" % (d[0], json.dumps(d[1]), json.dumps(d[2]))
                                           for d in diffs)))
        print("  seed %d: the disagreement repeated with the same values" % seed, flush=True)
        if do_shrink:
            best, report, runs, took = shrink(case, broker, keep, text2)
            print("  shrunk seed %d in %d real runs, %.0f s; smallest scenario (ready to become a named case):" % (
                seed, runs, took))
            print("    " + random_cases.describe(best))
            print("  its last run, both timelines:")
            print(report, end="", flush=True)
    return tally, unknown


def print_tally(tally, label):
    tot = {k: sum(t[k] for t in tally.values()) for k in ("cases", "agreed", "disagreed", "known", "unstable",
                                                           "errors")}
    for fam in random_cases.FAMILIES:
        if fam in tally:
            t = tally[fam]
            print("%s %-8s %3d cases: %3d agreed, %d disagreed (repeated), %d known, %d not repeated, %d errors "
                  "(agreement %.0f %%)" % (label, fam, t["cases"], t["agreed"], t["disagreed"], t["known"],
                                           t["unstable"], t["errors"], 100.0 * t["agreed"] / t["cases"]))
    if tot["cases"]:
        print("%s total    %3d cases: %3d agreed (agreement %.1f %%)" % (
            label, tot["cases"], tot["agreed"], 100.0 * tot["agreed"] / tot["cases"]), flush=True)


def model_only(case):
    """The values the verdict compares, from the model alone, computed as the harness does."""
    fam = case["random"]["family"]
    if fam == "group":
        sc0 = group.base_scenario(case)
        sc, _ = group.model_events(GCTX, case, sc0)
        hs, parts, reb = group.model_view(sc, model(sc))
        return {"handovers": group.strip(hs), "partitions": parts, "rebalances": reb}
    if fam == "share":
        sc = share.base_scenario(case)
        kind = case["event"]["kind"] if case.get("event") else "none"
        if kind != "none":
            ev = case["event"]
            at_us = share.model_done_instant(GCTX, sc, ev["after"]) + ev["delay"] * 1000
            gev = {"at_ms": ms(at_us), "member": 1, "kind": kind}
            if kind == "hang":
                gev["duration_ms"] = ev["hang_ms"]
            sc["group_events"] = [gev, {"at_ms": ms(at_us + 1000), "member": 2, "kind": "join"}]
            sc["crash_at_ms"] = ms(at_us)
        return share.model_view(sc, model(sc), kind)
    sc = derive(case)
    mode = case.get("mode", "crash")
    if mode != "script":
        at_us = model_done_instant(sc, case["after"]) + case["delay"] * 1000
        sc["close_at_ms" if mode == "close" else "crash_at_ms"] = ms(at_us)
        sc["horizon_ms"] = max(sc.get("horizon_ms", 12000), ms(at_us) + (60000 if mode == "close" else 0))
    m = model(sc)
    if sc.get("script"):
        return {"script": [x["committed"] for x in m["script"]], "at_close": m["at_close"]}
    return {"at_close": m["at_close"]} if mode == "close" else {"at_crash": m["at_crash"]}


@contextlib.contextmanager
def broken_model(build, rule):
    global MODEL
    saved = MODEL
    MODEL = build
    os.environ["OFFSET_WINDOW_BROKEN"] = rule
    try:
        yield
    finally:
        MODEL = saved
        os.environ.pop("OFFSET_WINDOW_BROKEN", None)


def run_broken(rule, seed, count, family, broker, keep):
    """How many random cases it takes to catch a deliberately broken rule: each case's model
    values from the broken build (its own trigger instants) against the correct build's; the first
    case where they differ is then run on the broker against the broken model (it must fail)."""
    build = os.environ.get("OFFSET_WINDOW_BROKEN_BUILD", os.path.join(CACHE, "target-broken", "debug", "offset-window"))
    if "OFFSET_WINDOW_BROKEN_BUILD" not in os.environ:
        subprocess.run(["cargo", "build", "--quiet", "-p", "offset-window-cli", "--features", "broken-rules",
                        "--target-dir", os.path.join(CACHE, "target-broken")], cwd=ROOT, check=True)
    for i in range(count):
        case, _ = random_cases.draw(seed + i, family, Harness)
        good = model_only(case)
        try:
            with broken_model(build, rule):
                bad = model_only(case)
        except RuntimeError as e:
            print("broken %s: case %d (seed %d): the broken model failed (%s); not a catch" % (
                rule, i + 1, seed + i, str(e)[:120]))
            continue
        if bad != good:
            print("broken %s: caught at case %d of %d (seed %d, family %s)" % (rule, i + 1, count, seed + i,
                                                                              case["random"]["family"]))
            print("  scenario: " + random_cases.describe(case))
            print("  correct model: %s" % json.dumps(good))
            print("  broken model:  %s" % json.dumps(bad), flush=True)
            if broker is not None:
                verdict, _, _, err = execute(case, broker, keep)
                print("  real run against the correct model: %s" % verdict, flush=True)
                with broken_model(build, rule):
                    verdict_b, _, _, err_b = execute(case, broker, keep)
                print("  real run against the broken model: %s%s" % (
                    verdict_b, " (caught)" if verdict_b == "FAIL" and err_b is None else ""), flush=True)
            return i + 1
    print("broken %s: NOT caught in %d cases (seeds %d..%d)" % (rule, count, seed, seed + count - 1))
    return None


def execute(case, broker, keep, quiet=False):
    """Runs one case (up to ATTEMPTS attempts while the margin says no experiment), prints its
    verdict and, on a disagreement, the scenario, both results and both timelines. Returns
    (verdict, the differing pairs, the derived scenario)."""
    a = argparse.Namespace(keep=keep)
    client = case["label"] if "label" in case else CLIENTS[case["client"]]["label"]
    t = time.time()
    for attempt in range(1, ATTEMPTS + 1):
        workdir = tempfile.mkdtemp(prefix="conformance-%s-" % case["name"])
        info = {}
        is_group = case.get("kind") == "group"
        is_share = case.get("kind") == "share"
        is_probe = case.get("kind") == "probe"
        is_txn = case.get("kind") == "txn"
        is_eos = case.get("kind") == "eos"
        try:
            if is_eos:
                sc, m, real, info = eos.run_eos_case(GCTX, case, broker, workdir, attempt)
                pairs, lines = eos.compare(case, sc, m, real), []
            elif is_txn:
                sc, m, real, info = txn.run_txn_case(GCTX, case, broker, workdir, attempt)
                pairs, lines = txn.compare(case, sc, m, real), []
            elif is_probe:
                sc, m, real, pairs = run_probe(case, broker, workdir)
                lines = []
            elif is_share:
                sc, m, real, lines, info = share.run_share_case(GCTX, case, broker, workdir, attempt)
                pairs = share.compare(case, sc, m, real)
            elif is_group:
                sc, m, real, lines, info = group.run_group_case(GCTX, case, broker, workdir, attempt)
                pairs = group.compare(case, sc, m, real)
            else:
                sc, m, real, lines, info = run_case(case, broker, workdir, attempt)
                pairs = compare(case, sc, m, real)
            ok = all(p[1] == p[2] for p in pairs)
            err = None
        except group.FormationMismatch as e:
            if attempt < ATTEMPTS:
                print("  again %s: %s; not an experiment, attempt %d of %d" % (case["name"], e, attempt + 1, ATTEMPTS),
                      flush=True)
                if not a.keep:
                    subprocess.run(["rm", "-rf", workdir])
                continue
            ok, err, pairs, real, m = False, e, [], {}, None
            sc, lines = group.base_scenario(case), []
        except Exception as e:  # a client or broker failure is a failed case, with its reason
            ok, err, pairs, real, m = False, e, [], {}, None
            sc = {} if is_probe else eos.base_scenario(case) if is_eos else txn.base_scenario(case) if is_txn else share.base_scenario(case) if is_share \
                else group.base_scenario(case) if is_group else derive(case)
            lines = [] if is_group or is_txn or is_eos else read_log(os.path.join(workdir, "consumer.log"))
        margin = real.get("margin_ms", float("inf"))
        if err is None and margin < MIN_MARGIN_MS:
            ok = False
            err = RuntimeError("the crash or close came %.1f ms from one of the client's own events "
                               "(needs >= %.0f ms) in %d attempts: no clean experiment"
                               % (margin, MIN_MARGIN_MS, attempt))
            if attempt < ATTEMPTS:
                print("  again %s: the crash or close came %.1f ms from one of the client's own events "
                      "(killed at %s ms); not an experiment, attempt %d of %d" % (
                          case["name"], margin, real.get("killed_at_ms", "-"), attempt + 1, ATTEMPTS),
                      flush=True)
                if not a.keep:
                    subprocess.run(["rm", "-rf", workdir])
                continue
        break
    mode = case.get("mode", "crash")
    if is_eos:
        when = eos.describe_events(case, sc)
    elif is_txn:
        when = txn.describe_events(case, sc)
    elif is_probe:
        when = "group.protocol=%s" % case["protocol"]
    elif is_share:
        when = share.describe_events(case, sc)
    elif is_group:
        when = group.describe_events(case, sc)
    else:
        when = {"crash": "crash %sms (record %s + %sms)" % (sc.get("crash_at_ms"), case.get("after"),
                                                             case.get("delay")),
                "close": "close %sms (record %s + %sms)" % (sc.get("close_at_ms"), case.get("after"),
                                                             case.get("delay")),
                "script": "script"}[mode]
    extra = []
    if "killed_at_ms" in real:
        extra.append("real kill %.1fms after T0, %.1fms after its trigger" % (
            real["killed_at_ms"], real["killed_at_ms"] - real["trigger_ms"]))
    if "margin_ms" in real:
        extra.append("margin %sms" % real["margin_ms"])
    extra.append("%.1fs" % (time.time() - t))
    race = case.get("race")
    if not ok and err is None and race and all(
            rv in race["real"].get(lbl, []) for lbl, mv, rv in pairs if mv != rv):
        # A race the client runs (README "Races"): every pair that differs took the race's other
        # outcome, which the case lists; the model's outcome is the case's own.
        ok = True
        print("  race %s: this run took the other outcome (%s)" % (case["name"], race["why"]), flush=True)
    verdict = "PASS" if ok else "FAIL"
    kn = case.get("known")
    if not ok and err is None and kn and not STRICT and all(
            rv in kn["real"].get(lbl, []) for lbl, mv, rv in pairs if mv != rv):
        verdict = "KNOWN"
    show = (lambda side: eos.summary(pairs, side)) if is_eos else (lambda side: txn.summary(pairs, side)) if is_txn else \
        (lambda side: share.summary(pairs, side)) if is_share else \
        (lambda side: group.summary(pairs, side)) if is_group else (lambda side: fmt(pairs, side))
    print("%s %-27s %s | %s | %s: %s | real: %s | %s" % (
        verdict, case["name"], case["client"], when, "expected" if is_txn or is_eos else "model", show(1), show(2),
        ", ".join(extra)),
        flush=True)
    if is_share and any(k.endswith("(info)") for k in real):
        print("  real, not compared: " + "; ".join("%s %s" % (k[:-7], json.dumps(v))
                                                    for k, v in real.items() if k.endswith("(info)")))
    if is_txn and real:
        for line in txn.notes(case, sc, m, real, pairs):
            print(line, flush=True)
    if is_eos and real:
        for line in eos.notes(case, sc, m, real, pairs):
            print(line, flush=True)
    if is_group and real.get("events"):
        print("  events: " + "; ".join(group.describe_real_event(e) for e in real["events"]), flush=True)
    if ok and case.get("known"):
        print("  note %s: this run agrees with the model (known disagreement: %s)"
              % (case["name"], case["known"]["why"]))
    if not ok:
        if verdict == "KNOWN":
            print("  known disagreement, not counted (%s); README 'Known disagreements'" % case["known"]["why"])
        print("  scenario (%s, derived from %s/%s): %s" % (case["note"], "eos" if is_eos else "txn" if is_txn else "scenarios",
                                                          case["file"], json.dumps(sc)))
        if err is not None:
            print("  error: %r" % (err,))
        for lbl, mv, rv in pairs:
            if mv != rv:
                print("  differs: %s %s %s real %s" % (lbl, "expected" if (is_txn or is_eos) and not lbl.startswith("model ")
                                                       else "model", json.dumps(mv), json.dumps(rv)))
        if real:
            print("  real: %s" % json.dumps(real))
        print("  client: %s; log (%s):" % (client, workdir))
        try:
            if is_eos:
                for line in eos.timelines(case, sc, m, real, workdir, info):
                    print(line)
            elif is_txn:
                for line in txn.timelines(case, sc, m, real, workdir, info):
                    print(line)
            elif is_probe:
                print("  " + open(os.path.join(workdir, "consumer.log")).read().replace("\n", "\n  "))
            elif m is None and (is_group or is_share):
                print("  (no timelines: the case stopped before the group ran)")
            elif is_share:
                for line in share.timelines(case, sc, m, real, workdir, info):
                    print(line)
            elif is_group:
                for line in group.timelines(case, sc, m, real, workdir):
                    print(line)
            else:
                for line in timelines(case, sc, real, lines, info):
                    print(line)
        except Exception as e:  # noqa: BLE001
            print("  (no timelines: %r)" % (e,))
        for errf in sorted(f for f in os.listdir(workdir) if f.endswith(".stderr")):
            tail = [ln for ln in open(os.path.join(workdir, errf)).read().splitlines()
                    if "SLF4J" not in ln][-10:]
            for ln in tail:
                print("    stderr %s: %s" % (errf, ln))
    if (ok or verdict == "KNOWN") and not a.keep:
        subprocess.run(["rm", "-rf", workdir])
    return verdict, [pr for pr in pairs if pr[1] != pr[2]], sc, err


def replayed(path):
    """A case JSON as a random draw printed it, its final kills (and the draw rules' checks) redone
    on the current model: a draw rule that refuses it now is printed, and it runs anyway."""
    text = open(path).read()
    case = json.loads(text[text.index("{"):])
    family = {"group": "group", "share": "share"}.get(case.get("kind"), "single")
    try:
        random_cases.CHECKS[family](case, Harness)
    except random_cases.Rejected as e:
        print("case %s: the draw rules would refuse it now (%s); running it anyway" % (path, e), flush=True)
    return case


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--keep", action="store_true", help="keep each case's work directory")
    ap.add_argument("--all", action="store_true", help="also the cases marked full (the whole suite; CI runs "
                                                       "the others)")
    ap.add_argument("--random", type=int, metavar="SEED", help="random cases from SEED, SEED+1, ... (README)")
    ap.add_argument("--count", type=int, default=10, help="how many random cases")
    ap.add_argument("--family", choices=random_cases.FAMILIES, help="random cases of one family only")
    ap.add_argument("--no-shrink", action="store_true", help="do not shrink repeated disagreements")
    ap.add_argument("--case", action="append", default=[], metavar="FILE",
                    help="run a case JSON as a random draw prints it (the text after 'scenario: '), its "
                         "final kills recomputed on the current model; repeatable")
    ap.add_argument("--ci", action="store_true", help="the CI slice of random seeds only")
    ap.add_argument("--no-random", action="store_true", help="the named cases only, without the CI slice")
    ap.add_argument("--broken", choices=BROKEN_RULES + ("all",),
                    help="count the random cases it takes to catch a deliberately broken rule")
    ap.add_argument("--model-only", action="store_true", help="with --broken: no broker, no real runs")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    cases = [c for c in CASES if c["name"] in only or (not only and (a.all or not c.get("full")))]
    if a.random is not None or a.ci or a.broken or a.case:
        cases = [replayed(f) for f in a.case]
    if a.broken and a.model_only:
        rules = BROKEN_RULES if a.broken == "all" else (a.broken,)
        found = {r: run_broken(r, a.random or 0, a.count, a.family, None, a.keep) for r in rules}
        print("caught: " + ", ".join("%s %s" % (r, "at case %d" % n if n else "never") for r, n in found.items()))
        sys.exit(0 if all(found.values()) else 1)
    start = time.time()
    bdir = tempfile.mkdtemp(prefix="conformance-kafka-")
    broker = Broker(bdir)
    print("model: %s; broker: Apache Kafka %s (KRaft, one node, %s, started in %.1fs)" % (
        os.path.relpath(MODEL, ROOT), KAFKA_VERSION, broker.addr, time.time() - start), flush=True)
    for k, c in CLIENTS.items():
        print("  client %-31s -> %s" % (k, c["label"]))
    passed = failed = known = 0
    try:
        for case in cases:
            verdict, _, _, _ = execute(case, broker, a.keep)
            passed += verdict == "PASS"
            failed += verdict == "FAIL"
            known += verdict == "KNOWN"
        if a.broken:
            rules = BROKEN_RULES if a.broken == "all" else (a.broken,)
            found = {r: run_broken(r, a.random or 0, a.count, a.family, broker, a.keep) for r in rules}
            print("caught: " + ", ".join("%s %s" % (r, "at case %d" % n if n else "never") for r, n in found.items()))
            failed += sum(1 for n in found.values() if not n)
        elif a.random is not None:
            seeds = [(a.random + i, a.family) for i in range(a.count)]
            tally, unknown = run_random(broker, seeds, a.keep, do_shrink=not a.no_shrink)
            print_tally(tally, "random")
            for seed, fam, what in unknown:
                print("random disagreement seed %d (%s): %s" % (seed, fam, what))
        elif a.ci or (not only and not a.no_random and not a.case):
            t = time.time()
            tally, unknown = run_random(broker, CI_SEEDS, a.keep, do_shrink=False, label="ci")
            print_tally(tally, "ci")
            print("ci slice: %d seeds in %.0f s" % (len(CI_SEEDS), time.time() - t))
            for seed, fam, what in unknown:
                print("FAIL ci seed %d (%s): a repeated disagreement not on the known list: %s" % (seed, fam, what))
            failed += len(unknown)
            passed += sum(t["agreed"] + t["unstable"] + t["known"] for t in tally.values())
    finally:
        broker.stop()
        if not a.keep:
            subprocess.run(["rm", "-rf", bdir])
    print("total %.0fs" % (time.time() - start))
    if known:
        print("known disagreements (model fix pending, README): %d" % known)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
