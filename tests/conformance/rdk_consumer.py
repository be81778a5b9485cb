"""A real librdkafka consumer (confluent-kafka-python) that does what one conformance
scenario says; the librdkafka twin of java/ConformanceConsumer.java, same log format.

`consume(num_messages=max.poll.records)` plays the role of poll() (model.md §8.2).
Strategies: auto_commit / auto_commit_background (librdkafka's default: enable.auto.commit
with enable.auto.offset.store=true, the background timer commits what was handed out),
store_offsets_after_processing (enable.auto.offset.store=false + store_offsets() after each
record), commit_sync_batch, commit_sync_record. Or a model.md §8.11 script. The driver kills it
after a `done` line of its choosing (run.py: the trigger).

Usage: rdk_consumer.py CONFIG.json   (written by run.py)
"""

import json
import os
import sys
import time

from confluent_kafka import Consumer, TopicPartition

cfg = json.load(open(sys.argv[1]))
log_fd = os.open(cfg["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
t0 = None


def log(line):
    os.write(log_fd, (line + "\n").encode())


def now():
    return "%.3f" % ((time.monotonic() - t0) * 1000.0)


strategy = cfg["strategy"]
if strategy == "auto_commit":
    strategy = "auto_commit_background"  # model.md §8.4: under librdkafka auto_commit is §8.2
auto = strategy in ("auto_commit_background", "store_offsets_after_processing")
conf = {
    "bootstrap.servers": cfg["bootstrap"],
    "group.id": cfg["group"],
    "enable.auto.commit": auto,
    "auto.commit.interval.ms": int(cfg["auto.commit.interval.ms"]),
    "enable.auto.offset.store": strategy != "store_offsets_after_processing",
    "auto.offset.reset": "earliest",
    "session.timeout.ms": int(cfg.get("session.timeout.ms", 1000)),
    "heartbeat.interval.ms": int(cfg.get("heartbeat.interval.ms", 200)),
}
topic = cfg["topic"]
tp = TopicPartition(topic, 0)
max_poll = int(cfg["max.poll.records"])
proc_s = float(cfg["record_processing_ms"]) / 1000.0

consumer = Consumer(conf)
consumer.subscribe([topic])
log("subscribed")


def first_poll():
    global t0
    while True:
        msgs = [m for m in consumer.consume(num_messages=max_poll, timeout=0.1) if not m.error()]
        if msgs:
            t0 = time.monotonic()
            log("T0 %.9f" % time.time())
            return msgs


def poll():
    msgs = consumer.consume(num_messages=max_poll, timeout=1.0)
    for m in msgs:
        if m.error():
            log("error %s" % m.error())
    return [m for m in msgs if not m.error()]


def log_poll(msgs):
    log("poll %s %d %d" % (now(), msgs[0].offset() if msgs else -1, len(msgs)))


def close():
    log("close_begin %s" % now())
    consumer.close()
    log("close_end %s" % now())


def committed():
    c = consumer.committed([tp], timeout=5)[0].offset
    return "none" if c < 0 else str(c)


def run_script(steps):
    batch, nxt = [], 0
    for i, step in enumerate(steps):
        word = step.split()
        if word[0] == "poll":
            batch = first_poll() if t0 is None else poll()
            nxt = 0
            log_poll(batch)
        elif word[0] == "process":
            for _ in range(int(word[1])):
                if nxt >= len(batch):
                    break
                time.sleep(proc_s)
                log("done %s %d" % (now(), batch[nxt].offset()))
                if strategy == "store_offsets_after_processing":
                    consumer.store_offsets(message=batch[nxt])
                nxt += 1
        elif word[0] == "sleep":
            time.sleep(float(word[1]) / 1000.0)
        elif word[0] == "commit_sync":
            consumer.commit(asynchronous=False)
        elif word[0] == "commit_async":
            consumer.commit(asynchronous=True)
        elif word[0] == "close":
            close()
            log("step %d %s closed" % (i, now()))
            return
        elif word[0] == "crash":
            log("step %d %s crash" % (i, now()))
            os._exit(137)
        else:
            raise SystemExit("unknown step " + step)
        pos = consumer.position([tp])[0].offset
        log("step %d %s position %d committed %s" % (i, now(), pos, committed()))
    consumer.close()


if cfg.get("script"):
    run_script(cfg["script"])
    sys.exit(0)

msgs = first_poll()
while True:
    log_poll(msgs)
    for m in msgs:
        time.sleep(proc_s)
        log("done %s %d" % (now(), m.offset()))
        if strategy == "store_offsets_after_processing":
            consumer.store_offsets(message=m)
        elif strategy == "commit_sync_record":
            sent = now()
            consumer.commit(offsets=[TopicPartition(topic, 0, m.offset() + 1)], asynchronous=False)
            log("commit %s %s %d" % (sent, now(), m.offset() + 1))
    if strategy == "commit_sync_batch" and msgs:
        sent = now()
        consumer.commit(asynchronous=False)
        log("commit %s %s position" % (sent, now()))
    msgs = poll()
