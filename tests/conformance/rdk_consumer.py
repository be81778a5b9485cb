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

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

cfg = json.load(open(sys.argv[1]))
log_fd = os.open(cfg["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
t0 = None


def group_member():
    """One member of a consumer group among several (run.py group cases, group.py): the librdkafka
    twin of ConformanceConsumer.GroupMember, same log lines. Times are ms since the driver's
    epoch on CLOCK_MONOTONIC. librdkafka has no wakeup(): SIGTERM sets a flag the loop checks
    before its next consume() (the batch in hand finishes), or, `abrupt`, interrupts the record in
    progress; then close() (which commits the stored offsets and leaves)."""
    import signal

    epoch = int(cfg["epoch_ns"])

    def t():
        return "%.3f" % ((time.monotonic_ns() - epoch) / 1e6)

    def sleep_until(at_ns):
        while True:
            left = epoch + at_ns - time.monotonic_ns()
            if left <= 0:
                return
            time.sleep(left / 1e9)

    def read_instant(path):
        try:
            s = open(path).read().strip()
        except OSError:
            return None
        return int(s[:-1]) if s.endswith(";") else None

    strategy = cfg["strategy"]
    if strategy == "auto_commit":
        strategy = "auto_commit_background"  # model.md §8.4: under librdkafka auto_commit is §8.2
    auto = strategy in ("auto_commit_background", "store_offsets_after_processing")
    conf = {
        "bootstrap.servers": cfg["bootstrap"], "group.id": cfg["group"], "client.id": "consumer-%s" % cfg["member"],
        "enable.auto.commit": auto, "auto.commit.interval.ms": int(cfg["auto.commit.interval.ms"]),
        "enable.auto.offset.store": strategy != "store_offsets_after_processing",
        "auto.offset.reset": "earliest",
        "session.timeout.ms": int(cfg["session.timeout.ms"]),
        "heartbeat.interval.ms": int(cfg["heartbeat.interval.ms"]),
        "max.poll.interval.ms": int(cfg["max.poll.interval.ms"]),
        "partition.assignment.strategy": cfg["assignor"],
    }
    if cfg.get("instance_id"):
        conf["group.instance.id"] = cfg["instance_id"]
    consumer_protocol = cfg.get("group.protocol") == "consumer"
    if consumer_protocol:
        # KIP-848 (model client librdkafka_consumer_protocol, model.md §10.6): the session, the
        # heartbeat interval and the assignor are the broker's; librdkafka refuses them here
        # (rd_kafka_conf_finalize). Its rebalances are incremental.
        conf["group.protocol"] = "consumer"
        for k in ("session.timeout.ms", "heartbeat.interval.ms", "partition.assignment.strategy"):
            del conf[k]
    for k, v in cfg.items():
        if k.startswith("kafka."):
            conf[k[6:]] = v
    state = {"going": bool(cfg.get("start_file")), "stop": False}
    max_poll = int(cfg["max.poll.records"])
    proc_s = float(cfg["record_processing_ms"]) / 1000.0
    topic = cfg["topic"]
    if os.environ.get("RDK_DEBUG"):
        conf["debug"] = os.environ["RDK_DEBUG"]  # e.g. RDK_DEBUG=cgrp,topic,fetch: its log on stderr
    if cfg.get("start_file"):
        # A member that joins later is created when it starts, as the model's is: its timers
        # (auto-commit, the main thread's 1 s wake-up, model.md §10.4) count from then. A
        # throwaway consumer warms the library and the broker's metadata up first.
        warm = Consumer(dict(conf, **{"client.id": "warm-up-%s" % cfg["member"]}))
        warm.list_topics(topic, timeout=10)
        warm.committed([TopicPartition(topic, 0)], timeout=10)
        warm.close()
        log("ready " + t())
        while True:
            at = read_instant(cfg["start_file"])
            if at is not None:
                break
            time.sleep(0.002)
        sleep_until(at)
        log("start " + t())
    consumer = Consumer(conf)
    # librdkafka's auto-commit timer starts here (rd_kafka_cgrp_new), not at an assignment.
    log("created " + t())
    log("client %s %s member %s" % (__import__("confluent_kafka").libversion()[0],
                                    "consumer" if consumer_protocol else "classic", cfg["member"]))

    class Abrupt(Exception):
        pass

    def on_term(signum, frame):
        if cfg.get("shutdown_mode", "wakeup") == "abrupt":
            log("abrupt " + t())
            raise Abrupt()
        log("wakeup " + t())
        state["stop"] = True

    signal.signal(signal.SIGTERM, on_term)

    def on_assign(c, partitions):
        at = t()
        parts = sorted(partitions, key=lambda p: p.partition)
        desc, com = "", {}
        if parts:
            com = {p.partition: p.offset for p in c.committed(parts, timeout=10)}
            desc = "".join(" %d:%s" % (p.partition, "none" if com[p.partition] < 0 else com[p.partition])
                           for p in parts)
        log("assigned %s -1%s" % (at, desc))
        # Start where the committed offset says (the log starts at 0): librdkafka then needs no
        # offset lookup when the partition is resumed.
        start = [TopicPartition(topic, p.partition, com[p.partition] if com[p.partition] >= 0 else 0) for p in parts]
        if cfg["assignor"] == "cooperative-sticky" or consumer_protocol:
            c.incremental_assign(start)
        else:
            c.assign(start)
        if not state["going"] and parts:
            c.pause(partitions)

    def on_revoke(c, partitions):
        log("revoked %s -1%s" % (t(), "".join(" %d" % p.partition for p in sorted(partitions, key=lambda p: p.partition))))

    def on_lost(c, partitions):
        log("lost %s%s" % (t(), "".join(" %d" % p.partition for p in sorted(partitions, key=lambda p: p.partition))))

    consumer.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)
    if cfg.get("worker_pool"):
        group_pool(consumer, state, t, sleep_until, read_instant, Abrupt)
        return
    try:
        wait_for_go(consumer, state, max_poll, t, sleep_until, read_instant)
        while not state["stop"]:
            msgs = [m for m in consumer.consume(num_messages=max_poll, timeout=1.0) if not m.error()]
            at = t()
            if not msgs:
                log("poll %s - - 0" % at)
            seen = []
            for m in msgs:
                if m.partition() not in seen:
                    seen.append(m.partition())
            for p in seen:
                mine = [m for m in msgs if m.partition() == p]
                log("poll %s %d %d %d" % (at, p, mine[0].offset(), len(mine)))
            for m in msgs:
                time.sleep(proc_s)
                log("done %s %d %d" % (t(), m.partition(), m.offset()))
                if strategy == "store_offsets_after_processing":
                    consumer.store_offsets(message=m)
            if strategy == "commit_sync_batch" and msgs:
                sent = t()
                consumer.commit(asynchronous=False)
                log("commit %s %s position" % (sent, t()))
    except Abrupt:
        pass
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    log("close_begin " + t())
    consumer.close()
    log("close_end " + t())


def wait_for_go(consumer, state, max_poll, t, sleep_until, read_instant):
    """Until G (the go file): poll the paused partitions (serving the group), then resume them
    at G and log `go`."""
    while not state["going"]:
        consumer.consume(num_messages=max_poll, timeout=0.01)
        g = read_instant(cfg.get("go_file", ""))
        if g is not None:
            sleep_until(g)
            consumer.resume(consumer.assignment())
            state["going"] = True
            log("go " + t())


def group_pool(consumer, state, t, sleep_until, read_instant, Abrupt):
    """A group member's worker pool (model.md §4) with store_offsets() after processing (§8.3):
    the poll thread waits until fewer than `pool_max_in_flight_batches` batches are in flight, then
    calls consume(max.poll.records) and hands the batch to `pool_threads` threads, which process
    each batch's records in order. It does not call consume() while the pool is full, so a
    rebalance is served (on_revoke / on_assign) only at the model's poll instants. A thread keeps
    working on a batch of a partition revoked meanwhile and stores its records as they finish —
    the race of confluent-kafka-dotnet#1672 (model.md §8.14): librdkafka 2.x refuses a store for a
    partition not assigned (RD_KAFKA_RESP_ERR__STATE, logged `store_refused`), 1.8.2 kept it.
    The poll thread does the storing between consume() calls (store_offsets() waits while another
    thread is inside consume()). At a shutdown the records in the pool are dropped, as the model's
    pool drops them at close() (drain_pool_on_close false): no `done` after `close_begin`."""
    import queue
    import threading

    if cfg["strategy"] != "store_offsets_after_processing":
        raise SystemExit("rdk_consumer.py group pools: store_offsets_after_processing only")
    K = int(cfg.get("pool_max_in_flight_batches", 3))
    max_poll = int(cfg["max.poll.records"])
    proc_s = float(cfg["record_processing_ms"]) / 1000.0
    work, stores, lock = queue.Queue(), queue.Queue(), threading.Lock()
    pool = {"in_flight": 0, "closing": False}

    def worker():
        while True:
            batch = work.get()
            for m in batch:
                time.sleep(proc_s)
                if pool["closing"]:
                    return
                log("done %s %d %d" % (t(), m.partition(), m.offset()))
                stores.put(m)
            with lock:
                pool["in_flight"] -= 1

    def store_pending():
        while not stores.empty():
            m = stores.get()
            try:
                consumer.store_offsets(message=m)  # m.offset() + 1, with its leader epoch
                log("stored %s %d %d" % (t(), m.partition(), m.offset() + 1))
            except KafkaException as e:
                log("store_refused %s %d %d %s" % (t(), m.partition(), m.offset() + 1, e.args[0].name()))

    for _ in range(int(cfg.get("pool_threads", 1))):
        threading.Thread(target=worker, daemon=True).start()
    try:
        wait_for_go(consumer, state, max_poll, t, sleep_until, read_instant)
        while True:
            store_pending()
            with lock:
                room = pool["in_flight"] < K
            if not room:
                time.sleep(0.001)
                continue
            if state["stop"]:  # the wake-up meets the loop at its next poll (model.md §4)
                break
            msgs = [m for m in consumer.consume(num_messages=max_poll, timeout=0.02) if not m.error()]
            if not msgs:
                continue
            at = t()
            seen = []
            for m in msgs:
                if m.partition() not in seen:
                    seen.append(m.partition())
            for p in seen:
                mine = [m for m in msgs if m.partition() == p]
                log("poll %s %d %d %d" % (at, p, mine[0].offset(), len(mine)))
            with lock:
                pool["in_flight"] += 1
            work.put(msgs)
    except Abrupt:
        pass
    import signal
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    pool["closing"] = True
    store_pending()
    log("close_begin " + t())
    consumer.close()
    log("close_end " + t())


def log(line):
    os.write(log_fd, (line + "\n").encode())


def now():
    return "%.3f" % ((time.monotonic() - t0) * 1000.0)


if cfg.get("member"):
    group_member()
    sys.exit(0)

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
if os.environ.get("RDK_DEBUG"):
    conf["debug"] = os.environ["RDK_DEBUG"]  # e.g. RDK_DEBUG=cgrp,topic: librdkafka's log on stderr
topic = cfg["topic"]
tp = TopicPartition(topic, 0)
max_poll = int(cfg["max.poll.records"])
proc_s = float(cfg["record_processing_ms"]) / 1000.0

consumer = Consumer(conf)
created = time.monotonic()  # rd_kafka_cgrp_new starts the auto-commit timer here (model.md §8.2)
consumer.subscribe([topic])
log("subscribed")


def first_poll():
    global t0
    while True:
        msgs = [m for m in consumer.consume(num_messages=max_poll, timeout=0.1) if not m.error()]
        if msgs:
            t0 = time.monotonic()
            log("T0 %.9f" % time.time())
            log("created_before_start %.3f" % ((t0 - created) * 1000.0))
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
            got = first_poll() if t0 is None else poll()
            log_poll(got)
            # `process N` takes the next records handed out and not yet processed, from earlier
            # polls first (model.md §8.11).
            batch, nxt = batch[nxt:] + got, 0
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
            try:
                consumer.commit(asynchronous=False)
            except KafkaException as e:
                # commit() with nothing stored since the last commit fails with _NO_OFFSET
                # (rd_kafka_commit): the application catches it and goes on, as the model's
                # script does (docs/model.md §8.11).
                if e.args[0].code() != KafkaError._NO_OFFSET:
                    raise
                log("commit_failed %s no_offset" % now())
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

def run_pool():
    """A record-at-a-time worker pool (ordering unordered, model.md §12.5): `pool_threads`
    threads take the handed-out records one by one; as each record is done the application
    stores, with store_offsets(), what `pool_commit` says — highest_completed: 1 + the highest
    offset done; contiguous_completed: the lowest offset not yet done — and librdkafka's
    background timer commits the stored offset (§8.3). The poll thread does the storing, between
    consume() calls of 20 ms (confluent-kafka-python's store_offsets() waits while another thread
    is inside consume())."""
    import queue
    import threading

    if cfg.get("ordering") != "unordered" or strategy != "store_offsets_after_processing":
        raise SystemExit("rdk_consumer.py pools: ordering unordered with store_offsets_after_processing only")
    by_offset = {int(k): float(v) / 1000.0 for k, v in cfg.get("record_processing_ms_by_offset", {}).items()}
    work, stores, lock, done = queue.Queue(), queue.Queue(), threading.Lock(), {}

    def worker():
        while True:
            m = work.get()
            time.sleep(by_offset.get(m.offset(), proc_s))
            with lock:
                log("done %s %d" % (now(), m.offset()))
                done[m.offset()] = m
                if cfg.get("pool_commit") == "highest_completed":
                    stores.put(done[max(done)])
                elif first_offset in done:
                    nxt = first_offset
                    while nxt + 1 in done:
                        nxt += 1
                    stores.put(done[nxt])

    def store_pending():
        while not stores.empty():
            m = stores.get()
            consumer.store_offsets(message=m)  # stores m.offset() + 1, with its leader epoch
            log("stored %s %d" % (now(), m.offset() + 1))

    for _ in range(int(cfg.get("pool_threads", 1))):
        threading.Thread(target=worker, daemon=True).start()
    msgs = first_poll()
    first_offset = msgs[0].offset()
    while True:
        log_poll(msgs)
        for m in msgs:
            work.put(m)
        msgs = []
        while not msgs:
            store_pending()
            msgs = [m for m in consumer.consume(num_messages=max_poll, timeout=0.02) if not m.error()]


if cfg.get("worker_pool"):
    run_pool()
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
