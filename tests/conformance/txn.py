"""Transactions in the log (issue 31): real transactional producers and `read_committed` /
`read_uncommitted` readers on the suite's Apache Kafka 4.3.1 broker, driven from a scenario in
tests/conformance/txn/ written in the format `offset-window transactions FILE` reads.

How a txn case runs (README "Transactions in the log"):

* **processes** — one per producer of the scenario (`java/TxnConformance.java mode=produce`,
  kafka-clients 4.3.1; a transactional one runs `initTransactions()` and a warm-up transaction on
  another topic first) and one per reader, each in its own group: `java_classic` readers are
  `TxnConformance mode=read` (classic protocol, auto-commit off, `commit` = `position` or
  `last_record_plus_one`), `librdkafka` readers `txn_rdk.py` (`commit` = `auto_commit` or
  `last_record_plus_one`), `kafka_go` readers `go/kafkagotxn` (kafka-go v0.4.51's Reader;
  `commit` = `last_record_plus_one`, FetchMessage + CommitMessages, or `auto_commit`, ReadMessage
  with CommitInterval 0), `consumption: share_group` readers (the scenario's `share_readers`) `ShareConformanceConsumer`
  (the group's `share.isolation.level` set as a group config). Every process logs on
  CLOCK_MONOTONIC in ms since the case's epoch.
* **t = 0** — when every producer is ready and every reader has its assignment, the driver writes
  the go file: t = 0 is 500 ms later; the producers play their plans on that clock.
* **kill** — a transaction that ends `producer_dies` is SIGKILLed by the driver when its producer
  logs `dying` (every record acknowledged): the trigger is the producer's own progress.
* **open** — for a case whose `expect` has `during`, a describe process connected before t = 0
  reads the log end and the last stable offset once every producer is done or killed (the
  transaction still open); each reader's position at that instant comes from its log. The read
  must precede the coordinator's rollback.
* **end** — waited for as a state: every producer done (or killed) and every reader's position at
  the log end the case expects (a share reader: every offset it expects handed), or the
  scenario's `horizon_ms` after t = 0 at the latest; then 2.5 s more (librdkafka's auto-commit
  timer, 1 s in these scenarios, fires twice), then the committed offsets and the log end offset
  are read as `kafka-consumer-groups.sh --describe` reads them (`TxnConformance mode=describe`:
  Admin `listConsumerGroupOffsets` and `listOffsets(latest)`, LAG = log end − committed), twice
  1 s apart: the two reads must agree (the lag stays).
* **verdict** — the real values against the ones the issue and Kafka's source predict (the case's
  `expect`): the log end offset and the last stable offset, the offsets that hold markers (those
  below the log end no producer's record was acknowledged at), per reader the offsets handed to the
  application, the committed offset and LAG (and, `during`, the log end, the last stable offset
  and the positions while the transaction was open); for a killed producer the release
  instant of every `read_committed` reader (its first record past the open transaction's first
  offset) relative to that transaction's start: at least `transaction.timeout.ms` after the first
  record's send, at most timeout + scan interval + RELEASE_MARGIN_MS after its acknowledgement.
  When the model's `offset-window transactions` command is present (OFFSET_WINDOW or PATH), the
  same scenario runs through it and its `readers[].committed`, `readers[].lag`, the offsets of
  `readers[].handed` / `share_readers[].handed`, `log_end_offset` and release instant are
  compared too; otherwise that part is skipped with a printed note.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid

from share import now_ms, read_log  # noqa: F401, E402  (also eos.py's, through this module)

# The timed-out abort comes from the coordinator's scan (TransactionCoordinator.startup schedules
# abortTimedOutTransactions every transaction.abort.timed.out.transaction.cleanup.interval.ms),
# then the abort markers are written and a waiting read_committed fetch returns. Room for that
# write, the fetch and a loaded machine's scheduling beyond [start + timeout, + interval].
RELEASE_MARGIN_MS = 1500.0
# The broker's transaction start is in whole ms (time.milliseconds()); our clock is CLOCK_MONOTONIC.
CLOCK_SLACK_MS = 5.0
# The model's release: its scan finds the transaction in [start + timeout, + interval], the abort
# marker is written (allowed this much) and the reader's next poll (poll_interval_ms) hands it out.
MODEL_MARKER_WRITE_MS = 100.0
READY_TIMEOUT_S = 120
SETTLE_S = 2.5


class Proc:
    def __init__(self, name, role, log, popen, stop_file=None):
        self.name, self.role, self.log, self.p, self.stop_file = name, role, log, popen, stop_file
        self.killed_at = None


def base_scenario(case):
    return json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "txn", case["file"])))


def readers(sc):
    """The scenario's readers, its share readers among them (`consumption: share_group`, run by
    ShareConformanceConsumer), in the order the harness starts them."""
    return sc.get("readers", []) + [dict(r, consumption="share_group", client="java_classic")
                                     for r in sc.get("share_readers", [])]


def java_cmd(ctx, args):
    cp = os.pathsep.join([os.path.join(ctx.CACHE, "classes", "431"), os.path.join(ctx.LIB, "client431", "*")])
    return ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", cp, "TxnConformance"] + \
        ["%s=%s" % kv for kv in args.items()]


def start_producer(ctx, sc, i, p, broker, workdir, topic, epoch_ns):
    name = "producer-%d" % i
    log = os.path.join(workdir, name + ".log")
    args = {"mode": "produce", "bootstrap": broker.addr, "topic": topic, "warm_topic": topic + "-warm",
            "log": log, "epoch_ns": epoch_ns, "go_file": os.path.join(workdir, "go")}
    if p.get("transactional.id"):
        # A transactional.id of its own per attempt: the coordinator keeps an id's state.
        args["txn_id"] = "%s-%s" % (p["transactional.id"], os.path.basename(workdir))
        args["transaction.timeout.ms"] = p.get("transaction.timeout.ms", 60000)
        args["transactions"] = ";".join(
            "%s:%s:%s:%s%s" % (t["begin_ms"], t["records"], t.get("record_interval_ms", 0), t["end"],
                               ":%s" % t["end_ms"] if t.get("end_ms") is not None else "")
            for t in p["transactions"])
    else:
        args["records_at_ms"] = ",".join(str(x) for x in p["records_at_ms"])
    errf = open(os.path.join(workdir, name + ".stderr"), "w")
    return Proc(name, "producer", log, subprocess.Popen(java_cmd(ctx, args), stdout=errf, stderr=errf))


def is_share(r):
    return r.get("consumption") == "share_group"


def isolation(r):
    return r.get("share.isolation.level", "read_uncommitted") if is_share(r) else r["isolation.level"]


def start_reader(ctx, r, broker, workdir, topic, group, epoch_ns):
    name = r["name"]
    log = os.path.join(workdir, "reader-%s.log" % name)
    stop = os.path.join(workdir, "reader-%s.stop" % name)
    errf = open(os.path.join(workdir, "reader-%s.stderr" % name), "w")
    if is_share(r):
        # A share group's isolation is the group's config, not the consumer's (KafkaShareConsumer
        # javadoc, GroupConfig.SHARE_ISOLATION_LEVEL_CONFIG); earliest as the model's default; a
        # short heartbeat so that the assignment comes within a second.
        broker.set_group_config(group, "share.auto.offset.reset", "earliest")
        broker.set_group_config(group, "share.isolation.level", isolation(r))
        broker.set_group_config(group, "share.heartbeat.interval.ms", 500)
        args = {"bootstrap": broker.addr, "topic": topic, "group": group, "log": log, "epoch_ns": epoch_ns,
                "client_id": name, "stop_file": stop, "max.poll.records": 5, "record_processing_ms": 0,
                "share.acknowledgement.mode": "implicit", "strategy": "auto_commit", "renew_every_ms": 0}
        cp = os.pathsep.join([os.path.join(ctx.CACHE, "classes", "431"), os.path.join(ctx.LIB, "client431", "*")])
        cmd = ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
               "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", cp, "ShareConformanceConsumer"] + \
            ["%s=%s" % kv for kv in args.items()]
    elif r["client"] == "java_classic":
        args = {"mode": "read", "bootstrap": broker.addr, "topic": topic, "group": group, "log": log,
                "epoch_ns": epoch_ns, "stop_file": stop, "isolation": r["isolation.level"],
                "commit": r["commit"], "poll_interval_ms": r.get("poll_interval_ms", 100)}
        cmd = java_cmd(ctx, args)
    elif r["client"] == "librdkafka":
        cfg = {"bootstrap": broker.addr, "topic": topic, "group": group, "log": log, "epoch_ns": epoch_ns,
               "stop_file": stop, "isolation": r["isolation.level"], "commit": r["commit"],
               "poll_interval_ms": r.get("poll_interval_ms", 100),
               # The timer that commits what was stored: the scenario's interval for auto_commit;
               # a reader storing after processing (last_record_plus_one, which the model
               # commits at each poll and so does not read the key) commits on a 1 s timer here,
               # so its end value is there well before the case reads it.
               "auto.commit.interval.ms": r.get("auto.commit.interval.ms", 1000)}
        cfgf = os.path.join(workdir, "reader-%s.json" % name)
        json.dump(cfg, open(cfgf, "w"))
        cmd = [sys.executable, os.path.join(ctx.HERE, "txn_rdk.py"), cfgf]
    elif r["client"] == "kafka_go":
        # go/kafkagotxn (kafka-go v0.4.51's Reader): `commit` = last_record_plus_one
        # (FetchMessage + CommitMessages) or auto_commit (ReadMessage, CommitInterval 0).
        cfg = {"bootstrap": broker.addr, "topic": topic, "group": group, "log": log, "epoch_ns": epoch_ns,
               "stop_file": stop, "isolation": r["isolation.level"], "commit": r["commit"],
               "poll_interval_ms": r.get("poll_interval_ms", 100)}
        cfgf = os.path.join(workdir, "reader-%s.json" % name)
        json.dump(cfg, open(cfgf, "w"))
        cmd = [os.path.join(ctx.CACHE, "bin", "kafkagotxn"), cfgf]
    else:
        raise RuntimeError("txn cases have no real %s reader" % r["client"])
    env = dict(os.environ, PYTHONPATH=os.path.join(ctx.CACHE, "py"))
    return Proc(name, "reader", log, subprocess.Popen(cmd, stdout=errf, stderr=errf, env=env), stop)


def handed(lines):
    """The offsets handed to the application, in order: `poll t n pos p o ...` (TxnConformance,
    txn_rdk.py) or `poll t n o:d ...` (ShareConformanceConsumer)."""
    out = []
    for w in lines:
        if w[0] == "poll":
            out += [int(x.split(":")[0]) for x in (w[5:] if len(w) > 3 and w[3] == "pos" else w[3:])]
    return out


def at_end(r, lines, case):
    """The reader reached the end the case expects: its position at the log end, or (a share
    consumer has none) every offset it is expected to be handed."""
    if is_share(r):
        return set(case["expect"]["readers"].get(r["name"], {}).get("handed", [])) <= set(handed(lines))
    return (reader_position(lines) or -1) >= case["expect"]["log_end_offset"]


def reader_position(lines):
    """The last position a reader logged; None before it has one (librdkafka's position() is
    OFFSET_INVALID, -1001, until it hands out its first message)."""
    pos = None
    for w in lines:
        if w[0] == "assigned":
            pos = int(w[3])
        elif w[0] == "poll" and w[3] == "pos":
            pos = int(w[4])
    return None if pos is None or pos < 0 else pos


def parse_reads(log):
    reads = {}
    for w in read_log(log):
        if w[0] == "offsets":
            reads.setdefault(None, []).append((int(w[3]), int(w[4])))
            reads.setdefault("at", []).append(float(w[1]))
        elif w[0] == "describe":
            reads.setdefault(w[3], []).append(tuple(None if x == "none" else int(x) for x in w[4:6]))
    return reads


def describe(ctx, broker, topic, groups, workdir, epoch_ns):
    """kafka-consumer-groups.sh --describe's numbers, twice 1 s apart: {group: [(committed, lag), ...]}
    and, under the key None, [(log end, last stable offset), ...]."""
    log = os.path.join(workdir, "describe.log")
    args = {"mode": "describe", "bootstrap": broker.addr, "topic": topic, "groups": ",".join(groups),
            "log": log, "epoch_ns": epoch_ns, "reads": 2, "read_gap_ms": 1000}
    out = subprocess.run(java_cmd(ctx, args), capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError("describe failed: " + (out.stdout + out.stderr)[-500:])
    reads = parse_reads(log)
    reads.pop("at")
    return reads


# ---------------------------------------------------------------- one case

def run_txn_case(ctx, case, broker, workdir, attempt):
    sc = base_scenario(case)
    tag = "%s-%d-%s" % (case["name"], attempt, uuid.uuid4().hex[:6])
    topic = "t-" + tag
    broker.create_topic(topic)
    broker.create_topic(topic + "-warm")
    epoch_ns = time.monotonic_ns()
    groups = {r["name"]: "g-%s-%s" % (tag, r["name"]) for r in readers(sc)}
    procs = []
    try:
        for i, p in enumerate(sc["producers"]):
            procs.append(start_producer(ctx, sc, i, p, broker, workdir, topic, epoch_ns))
        for r in readers(sc):
            procs.append(start_reader(ctx, r, broker, workdir, topic, groups[r["name"]], epoch_ns))
        during = None
        if case["expect"].get("during"):
            # One read while the killed producer's transaction is open, once every producer is
            # done or killed (the driver writes its trigger file then).
            log = os.path.join(workdir, "during.log")
            args = {"mode": "describe", "bootstrap": broker.addr, "topic": topic, "groups": "", "log": log,
                    "epoch_ns": epoch_ns, "reads": 1, "trigger_file": os.path.join(workdir, "during")}
            errf = open(os.path.join(workdir, "during.stderr"), "w")
            during = Proc("during", "watcher", log, subprocess.Popen(java_cmd(ctx, args), stdout=errf, stderr=errf))
            procs.append(during)
        deadline = time.time() + READY_TIMEOUT_S
        while True:
            ready = [any(w[0] in ("ready", "assigned", "start") for w in read_log(p.log)) for p in procs]
            if all(ready):
                break
            for p in procs:
                if p.p.poll() is not None:
                    raise RuntimeError("%s exited before it was ready" % p.name)
            if time.time() > deadline:
                raise RuntimeError("not ready within %d s: %s" % (
                    READY_TIMEOUT_S, [p.name for p, ok in zip(procs, ready) if not ok]))
            time.sleep(0.01)
        shares = [groups[r["name"]] for r in readers(sc) if is_share(r)]
        if shares:
            args = {"mode": "share_ready", "bootstrap": broker.addr, "groups": ",".join(shares),
                    "epoch_ns": epoch_ns, "log": os.path.join(workdir, "share-ready.log")}
            out = subprocess.run(java_cmd(ctx, args), capture_output=True, text=True, timeout=READY_TIMEOUT_S)
            if out.returncode != 0:
                raise RuntimeError("share_ready failed: " + (out.stdout + out.stderr)[-500:])
        go = now_ms(epoch_ns) + 500.0
        # The broker logs on the wall clock: this pair maps its lines onto the case's clock.
        wall_minus_mono = time.time() * 1000.0 - now_ms(epoch_ns)
        with open(os.path.join(workdir, "go.tmp"), "w") as f:
            f.write("%.3f." % go)
        os.rename(os.path.join(workdir, "go.tmp"), os.path.join(workdir, "go"))
        # Until the state the case waits for, or the horizon.
        horizon = go + sc["horizon_ms"]
        reached_ms = None
        while now_ms(epoch_ns) < horizon:
            for p in procs:
                if p.role != "producer" or p.killed_at is not None or p.p.poll() is not None:
                    continue
                if any(w[0] == "dying" for w in read_log(p.log)):
                    p.p.send_signal(signal.SIGKILL)
                    p.killed_at = now_ms(epoch_ns) - go
                    p.p.wait()
            for p in procs:
                if p.role == "reader" and p.p.poll() is not None:
                    raise RuntimeError("reader %s exited" % p.name)
                if p.role == "watcher" and p.p.poll() not in (None, 0):
                    raise RuntimeError("the read during the open transaction failed (exit %d)" % p.p.returncode)
                if p.role == "producer" and p.killed_at is None and p.p.poll() not in (None, 0):
                    raise RuntimeError("%s failed (exit %d)" % (p.name, p.p.returncode))
            done = all(p.p.poll() is not None for p in procs if p.role == "producer")
            if during is not None and done and not os.path.exists(os.path.join(workdir, "during")):
                with open(os.path.join(workdir, "during.tmp"), "w") as f:
                    f.write("%.3f." % now_ms(epoch_ns))
                os.rename(os.path.join(workdir, "during.tmp"), os.path.join(workdir, "during"))
            ended = all(at_end(r, read_log(p.log), case) for r, p in
                        zip(readers(sc), [p for p in procs if p.role == "reader"]))
            if done and ended and (during is None or during.p.poll() is not None):
                reached_ms = round(now_ms(epoch_ns) - go, 1)
                break
            time.sleep(0.005)
        time.sleep(SETTLE_S)
        reads = describe(ctx, broker, topic, [groups[r["name"]] for r in readers(sc) if not is_share(r)],
                         workdir, epoch_ns)
        described_ms = now_ms(epoch_ns) - go
    finally:
        for p in procs:
            if p.stop_file:
                open(p.stop_file, "w").close()
        for p in procs:
            try:
                p.p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.p.kill()
                p.p.wait()
    logs = {p.name: read_log(p.log) for p in procs if p.role != "watcher"}
    real = analyse(sc, case, procs, logs, go, reads, groups)
    rollbacks = broker_rollbacks(broker.log.name, os.path.basename(workdir), wall_minus_mono + go)
    if rollbacks:
        real["coordinator's timed-out rollback at (info)"] = rollbacks
    if case["expect"].get("during"):
        during_reads(case, sc, real, logs, go, parse_reads(os.path.join(workdir, "during.log")), rollbacks)
    real["state reached at (info)"] = reached_ms
    real["described at (info)"] = round(described_ms, 1)
    m = run_model(ctx, sc, workdir)
    info = {"logs": logs, "go": go, "model": m}
    return sc, m, real, info


def broker_rollbacks(path, suffix, shift_ms):
    """The instants (ms after t = 0) the coordinator logged "Completed rollback of ongoing transaction
    for transactionalId X due to timeout" for this attempt's ids (TransactionCoordinator.
    onEndTransactionComplete: its PrepareAbort is in the transaction log, the markers go out next)."""
    out = []
    for line in open(path, errors="replace"):
        if "Completed rollback of ongoing transaction" in line and suffix in line and line.startswith("["):
            stamp = line[1:line.index("]")]
            t = time.mktime(time.strptime(stamp.split(",")[0], "%Y-%m-%d %H:%M:%S")) * 1000.0 + int(stamp.split(",")[1])
            out.append(round(t - shift_ms, 1))
    return out


def during_reads(case, sc, real, logs, go, reads, rollbacks):
    """The read while the transaction was open: log end, last stable offset and each reader's
    position at that instant (the last position it logged before it)."""
    if not reads.get("at"):
        raise RuntimeError("the read during the open transaction did not happen")
    at = reads["at"][0] - go
    if rollbacks and rollbacks[0] <= at:
        raise RuntimeError("the read during the open transaction came at %.1f ms, after the coordinator's "
                           "rollback at %.1f ms: no experiment" % (at, rollbacks[0]))
    end, lso = reads[None][0]
    d = {"at_ms": round(at, 1), "log_end_offset": end, "last_stable_offset": lso, "positions": {}}
    for r in readers(sc):
        if not is_share(r):
            d["positions"][r["name"]] = reader_position([w for w in logs[r["name"]] if float(w[1]) - go <= at])
    real["during"] = d


def analyse(sc, case, procs, logs, go, reads, groups):
    """The real side, on the scenario's clock (ms after t = 0)."""
    real = {"readers": {}}
    data, stuck, release_from = set(), None, None
    for i, p in enumerate(sc["producers"]):
        lines = logs["producer-%d" % i]
        acks = [(int(w[2]), int(w[3]), int(w[4]), float(w[1]) - go) for w in lines if w[0] == "ack"]
        data.update(a[2] for a in acks)
        for k, t in enumerate(p.get("transactions", [])):
            if t["end"] == "producer_dies":
                first = min((a for a in acks if a[0] == k), key=lambda a: a[1])
                sent = next(float(w[1]) - go for w in lines if w[0] == "send" and int(w[2]) == k and int(w[3]) == 0)
                stuck = min(a[2] for a in acks if a[0] == k)
                release_from = (sent, first[3], t, p.get("transaction.timeout.ms", 60000))
                killed = next(x.killed_at for x in procs if x.name == "producer-%d" % i)
                real["killed producer (info)"] = dict(first_send_ms=round(sent, 1), first_ack_ms=round(first[3], 1),
                                                      killed_ms=round(killed, 1) if killed is not None else None,
                                                      stuck_offset=stuck)
    finals = {g: rs[-1] for g, rs in reads.items()}
    # The lag that stays: the two reads, 1 s apart, must agree.
    real["reads 1 s apart agree"] = all(len(set(rs)) == 1 for rs in reads.values())
    if not real["reads 1 s apart agree"]:
        real["reads (info)"] = {str(g): rs for g, rs in reads.items()}
    real["log_end_offset"], real["last_stable_offset"] = finals.pop(None)
    real["markers"] = sorted(set(range(real["log_end_offset"])) - data)
    real["releases"] = {}
    for r in readers(sc):
        lines = logs[r["name"]]
        first_past = None
        for w in lines:
            if w[0] == "poll" and stuck is not None and first_past is None and any(o > stuck for o in handed([w])):
                first_past = float(w[1]) - go
        # A share group commits no offset: its reader has no committed offset or LAG.
        c, lag = finals[groups[r["name"]]] if not is_share(r) else (None, None)
        real["readers"][r["name"]] = {"handed": handed(lines), "position": reader_position(lines), "committed": c,
                                      "lag": lag}
        if release_from and isolation(r) == "read_committed":
            sent, acked, t, timeout = release_from
            real["releases"][r["name"]] = None if first_past is None else dict(
                at_ms=round(first_past, 1), after_first_send_ms=round(first_past - sent, 1),
                after_first_ack_ms=round(first_past - acked, 1))
    return real


# ---------------------------------------------------------------- the model

def model_command(ctx, command="transactions"):
    """The model's CLI when it has `command` (`transactions`; eos.py: `pipeline`), else None (and
    why)."""
    for cand in (ctx.MODEL, shutil.which("offset-window")):
        if not cand or not os.path.exists(cand):
            continue
        out = subprocess.run([cand, command, "--help"], capture_output=True, text=True)
        if out.returncode == 0:
            return cand, None
    return None, "no `offset-window %s` (tried %s and PATH)" % (command, os.path.relpath(ctx.MODEL, ctx.ROOT))


def run_model(ctx, sc, workdir, command="transactions"):
    """The model's result for `sc` by `offset-window COMMAND`, or {"absent": why} without it."""
    cmd, why = model_command(ctx, command)
    if cmd is None:
        return {"absent": why}
    path = os.path.join(workdir, "scenario.json")
    json.dump(sc, open(path, "w"), indent=1)
    out = subprocess.run([cmd, command, path], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("offset-window %s failed: %s" % (command, out.stderr.strip()))
    return json.loads(out.stdout)


def model_release(m, name, stuck):
    """The model's release instant of reader (or share reader) `name`: the instant it was handed
    its first record past `stuck` (`handed[].at_ms`, model.md §13), None if never."""
    r = next((x for x in m.get("readers", []) + m.get("share_readers", []) if x["name"] == name), {})
    return next((h["at_ms"] for h in r.get("handed", []) if h["offset"] > stuck), None)


# ---------------------------------------------------------------- the verdict

def window_pair(label, lo, hi, value):
    """A pair that agrees when value lies in [lo, hi]."""
    want = "in [%.0f, %.0f]" % (lo, hi)
    return (label, want, want if value is not None and lo <= value <= hi else value)


def compare(case, sc, m, real):
    ex = case["expect"]
    pairs = [("log_end_offset", ex["log_end_offset"], real["log_end_offset"]),
             ("last_stable_offset", ex.get("last_stable_offset", ex["log_end_offset"]), real["last_stable_offset"]),
             ("markers", ex["markers"], real["markers"]),
             ("reads 1 s apart agree", True, real["reads 1 s apart agree"])]
    if ex.get("during"):
        d = real["during"]
        for k in ("log_end_offset", "last_stable_offset"):
            pairs.append(("open: %s" % k, ex["during"][k], d[k]))
        for name, want in sorted(ex["during"].get("positions", {}).items()):
            pairs.append(("open: %s position" % name, want, d["positions"].get(name)))
    for name, want in ex["readers"].items():
        got = real["readers"][name]
        for k in ("handed", "committed", "lag"):
            if k in want:
                pairs.append(("%s %s" % (name, k), want[k], got[k]))
    interval = sc["transaction.abort.timed.out.transaction.cleanup.interval.ms"]
    timeout = next((p["transaction.timeout.ms"] for p in sc["producers"]
                    if any(t["end"] == "producer_dies" for t in p.get("transactions", []))), None)
    for name, rel in sorted(real["releases"].items()):
        # Not before the transaction could have started (its first send) + the timeout; not after
        # its first acknowledgement (by then the coordinator had started it) + timeout + interval.
        pairs.append(window_pair("%s release − first send" % name, timeout - CLOCK_SLACK_MS, float("inf"),
                                 rel and rel["after_first_send_ms"]))
        pairs.append(window_pair("%s release − first ack" % name, -float("inf"),
                                 timeout + interval + RELEASE_MARGIN_MS, rel and rel["after_first_ack_ms"]))
    if m and "absent" not in m:
        mr = {r.get("name"): r for r in m.get("readers", [])}
        pairs.append(("model log_end_offset", m.get("log_end_offset"), real["log_end_offset"]))
        for name, got in real["readers"].items():
            # The offsets handed, markers among them for kafka-go (model.md §13.3: `handed[]`).
            mh = next((x for x in m.get("readers", []) + m.get("share_readers", []) if x["name"] == name), {})
            pairs.append(("model %s handed" % name, [h["offset"] for h in mh.get("handed", [])], got["handed"]))
            for k in ("committed", "lag"):
                pairs.append(("model %s %s" % (name, k), mr.get(name, {}).get(k), got[k]))
        stuck = (real.get("killed producer (info)") or {}).get("stuck_offset")
        for name, rel in sorted(real["releases"].items()):
            t = next(t for p in sc["producers"] for t in p.get("transactions", []) if t["end"] == "producer_dies")
            mrel = model_release(m, name, stuck)
            poll = next(r.get("poll_interval_ms", 100) for r in readers(sc) if r["name"] == name)
            # The model's own instant, on the model's start (the first record added at begin_ms):
            # within [timeout, timeout + interval] plus its marker write and the reader's next
            # poll; the real one is checked above on the real start.
            pairs.append(window_pair("model %s release − start" % name, timeout,
                                     timeout + interval + MODEL_MARKER_WRITE_MS + poll,
                                     None if mrel is None else mrel - t["begin_ms"]))
    return pairs


def summary(pairs, side, model_side=False):
    """The verdict line's values: the expected ones (side 1) or the real ones (side 2); with
    model_side, the pairs against the model instead."""
    short = [p for p in pairs if p[0].startswith("model ") == model_side]
    return " ".join("%s=%s" % (p[0].replace("model ", "").replace(" ", "_"), json.dumps(p[side]).replace(" ", ""))
                    for p in short if p[0].replace("model ", "") in ("log_end_offset", "markers")
                    or p[0].endswith(("committed", "lag")))


def describe_events(case, sc):
    parts = []
    for p in sc["producers"]:
        if p.get("transactional.id"):
            parts.append("%s: %s" % (p["transactional.id"], ", ".join(
                "%d records at %sms %s" % (t["records"], t["begin_ms"], t["end"].replace("_", " "))
                for t in p["transactions"])))
        else:
            parts.append("plain: records at %s ms" % ",".join(str(x) for x in p["records_at_ms"]))
    return "; ".join(parts) + "; %d readers" % len(readers(sc))


def notes(case, sc, m, real, pairs):
    """Lines printed after the verdict, pass or fail: the measured instants and the model's side."""
    out = []
    if real.get("releases"):
        out.append("  release (ms after the killed transaction's first send / first ack): " + "; ".join(
            "%s %s / %s" % (n, r and r["after_first_send_ms"], r and r["after_first_ack_ms"])
            for n, r in sorted(real["releases"].items())))
    if real.get("during"):
        d = real["during"]
        out.append("  while the transaction was open (read at %s ms): log end %s, last stable offset %s, positions %s"
                   % (d["at_ms"], d["log_end_offset"], d["last_stable_offset"], json.dumps(d["positions"])))
    extra = {k[:-7]: v for k, v in real.items() if k.endswith("(info)")}
    if extra:
        out.append("  real, not compared: " + "; ".join("%s %s" % (k, json.dumps(v)) for k, v in extra.items()))
    out.append("  real readers: " + "; ".join("%s handed %s position %s committed %s lag %s" % (
        n, ",".join(str(o) for o in r["handed"]), r["position"], r["committed"], r["lag"])
        for n, r in real["readers"].items()))
    if m and "absent" in m:
        out.append("  model: skipped, %s; the real values were compared with the case's expected values only"
                   % m["absent"])
    elif m:
        out.append("  model (offset-window transactions): %s | real: %s" % (
            summary(pairs, 1, True), summary(pairs, 2, True)))
        windows = [p for p in pairs if p[0].startswith("model ") and p[0].endswith("start")]
        if windows:
            out.append("  model's release − start (its own window %s): %s" % (windows[0][1], "; ".join(
                "%s %s" % (p[0].split()[1], "in the window" if p[1] == p[2] else p[2]) for p in windows)))
    return out


def timelines(case, sc, m, real, workdir, info):
    out = ["  timelines (real, ms after the case's epoch; t = 0 at %.1f ms):" % info.get("go", 0.0)]
    for name, lines in sorted(info.get("logs", {}).items()):
        for w in lines[-40:]:
            out.append("    %s: %s" % (name, " ".join(w)))
    if m and "absent" not in m:
        out.append("  model: %s" % json.dumps(m)[:3000])
    return out
