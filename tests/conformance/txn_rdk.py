"""A librdkafka reader (confluent-kafka 2.16.1) of the "transactions in the log" cases (txn.py,
issue 31); the twin of `TxnConformance mode=read`, same log lines, on CLOCK_MONOTONIC in ms since
the driver's epoch.

`commit` (the model's names, offset-window transactions):
  auto_commit           librdkafka's defaults: enable.auto.commit with
                        enable.auto.offset.store=true; the background timer commits the stored
                        offsets every auto.commit.interval.ms
  last_record_plus_one  enable.auto.offset.store=false, store_offsets(msg) after each record
                        (the record's offset + 1), the same timer commits what was stored

It consumes with `consume(num_messages, poll_interval_ms)` until its stop file appears, then exits
without close() (close() would commit once more). Logs
  assigned t position p | poll t n pos p o o ... | store t offset

Usage: txn_rdk.py CONFIG.json   (written by txn.py)
"""

import json
import os
import sys
import time

from confluent_kafka import Consumer, TopicPartition

cfg = json.load(open(sys.argv[1]))
epoch = int(cfg["epoch_ns"])
log_fd = os.open(cfg["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)


def t():
    return "%.1f" % ((time.monotonic_ns() - epoch) / 1e6)


def log(s):
    os.write(log_fd, (s + "\n").encode())


commit = cfg["commit"]
if commit not in ("auto_commit", "last_record_plus_one"):
    raise SystemExit("txn_rdk.py: commit %s is not a librdkafka reader's" % commit)
assigned = []
c = Consumer({
    "bootstrap.servers": cfg["bootstrap"], "group.id": cfg["group"], "isolation.level": cfg["isolation"],
    "enable.auto.commit": True, "auto.commit.interval.ms": int(cfg["auto.commit.interval.ms"]),
    "enable.auto.offset.store": commit == "auto_commit", "auto.offset.reset": "earliest", "log_level": 0,
})
c.subscribe([cfg["topic"]], on_assign=lambda cons, parts: assigned.extend(parts))
tp = TopicPartition(cfg["topic"], 0)
position = None
wait_s = float(cfg["poll_interval_ms"]) / 1000.0
while not os.path.exists(cfg["stop_file"]):
    msgs = [m for m in c.consume(num_messages=500, timeout=wait_s) if not m.error()]
    if not assigned:
        continue
    pos = c.position([tp])[0].offset
    if position is None:
        log("assigned %s position %d" % (t(), pos))
    if msgs or pos != position:
        log("poll %s %d pos %d%s" % (t(), len(msgs), pos, "".join(" %d" % m.offset() for m in msgs)))
    position = pos
    if commit == "last_record_plus_one":
        for m in msgs:
            c.store_offsets(message=m)
            log("store %s %d" % (t(), m.offset() + 1))
log("stop %s" % t())
os._exit(0)
