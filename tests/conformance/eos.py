"""Exactly-once pipelines (issue 32): a consume-transform-produce service or a Kafka Streams
application between an input topic and an output topic, one instance killed and restarted,
downstream readers counting each input's output, on the suite's Apache Kafka 4.3.1 broker. Each
case is a scenario in tests/conformance/eos/ written in the format `offset-window pipeline FILE`
reads (input, service, events, readers, horizon).

How an eos case runs (README "Exactly-once pipelines"):

* **processes** — `java/EosConformance.java` (kafka-clients and kafka-streams 4.3.1), one JVM
  each: the input producer (`mode=input`: record i of every partition, value "p:i" = its
  partition:offset, at i / rate_per_s on the scenario clock), one per service instance
  (`mode=ctp`: KafkaConsumer read_committed + transactional KafkaProducer, or `mode=streams`: source
  → mapValues → sink), one per downstream reader (`mode=read`: every output partition assigned from
  the beginning, no group). Every process logs on CLOCK_MONOTONIC in ms since the case's epoch.
* **t = 0** — every reader ready, every instance holding one partition (its own `assigned` line),
  the input producer ready; then the go file: t = 0 is 500 ms later.
* **kill** — the crash event's instance is given `die_at_ms` = the event's `at_ms`: a CTP instance
  stops in the first transaction it would commit at or after that instant, once its outputs are
  acknowledged and `sendOffsetsToTransaction` has returned (the offsets pending in the group), logs
  `dying` and waits; a Streams instance blocks its stream thread in mapValues on the first record
  it processes at or after it and logs `dying`. The driver SIGKILLs it DYING_HOLD_MS after that line
  (a quiet stretch: the process does nothing meanwhile; Streams' producer sends what it lingered
  on). The kill is tied to the process's own progress, not to a wall-clock instant.
* **at the kill** — a `mode=committed` process connected before t = 0 reads the group's committed
  input offsets right after the kill (the last committed transaction, or ALO commit).
* **restart** — `restart_after_ms` after the kill the same instance starts again (a new member of
  the group; a CTP instance with the same transactional.id or a new one, as the case says; a
  Streams instance with its own state.dir again: no persistent store, so a new process id and a new
  transactional.id).
* **end** — a state: the read_committed reader has seen the output of every input record, at the
  latest `horizon_ms`; then SETTLE_S more, then the group's committed input offsets, twice 1 s apart.
* **verdict** — per reader the count of outputs per input (once, twice, more, never) against what
  Kafka's rules predict from the run's own logs: read_committed under EOS sees every input once;
  read_uncommitted sees each input 1 + as many times as aborted transactions held it (the killed
  one — CTP: its `proc` lines; Streams: committed-at-kill … last processed by the killed instance —
  and any an instance aborted itself, its `abort` line);
  at_least_once: both readers see twice exactly committed-at-kill … last processed. The input
  partition's stall (kill → its first record processed after the kill) must end after the
  coordinator's timed-out rollback (`Completed rollback of ongoing transaction ... due to timeout`,
  broker log) when nobody aborts it sooner, within RELEASE_MARGIN_MS; the final committed offsets
  are the input's log end.
* **the model** — when `offset-window pipeline --help` succeeds, the case also runs `offset-window
  pipeline` on the case's scenario with its crash placed where the real instance died
  (run_aligned_model: the same partitions, transaction and phase of it, the real restart's instant,
  Streams' commit phase read from the run) and compares it (compare_model): counts exactly, the
  timed-out abort and the stall's end within windows from the mechanism (README "Exactly-once
  pipelines"); otherwise it prints `model: skipped, no offset-window pipeline`.
"""

import collections
import json
import os
import signal
import subprocess
import time
import uuid

import group
import txn

# The coordinator's timed-out abort, then the markers, then the new owner's OffsetFetch retry
# (UNSTABLE_OFFSET_COMMIT is retried after retry.backoff.ms) and its first record processed; room
# for a loaded machine.
RELEASE_MARGIN_MS = 1500.0
# The broker's wall-clock log lines mapped onto CLOCK_MONOTONIC: a few ms either way.
CLOCK_SLACK_MS = 20.0
# A process that logged `dying` is SIGKILLed this long after that line: it is blocked meanwhile
# (a quiet stretch ≥ 200 ms, the suite's rule), and a Streams producer sends what lingered
# (Kafka Streams' producer default linger.ms is 100).
DYING_HOLD_MS = 300.0
# A new owner with nothing to wait for (no open transaction with pending offsets) processes its
# partition's first record within this long of its assignment.
FREE_START_MS = 1500.0
# A produce request's round trip on a loaded machine: the first send → its acknowledgement took
# 8–280 ms in the txn cases (README, "Transactions in the log").
SEND_MS = 300.0
# Kafka Streams' producer lingers this long (StreamsConfig.PRODUCER_DEFAULT_OVERRIDES linger.ms).
STREAMS_LINGER_MS = 100.0
READY_TIMEOUT_S = 120
SETTLE_S = 3.0
BROKER_SCAN_MS = 1000  # run.py's server.properties


class Proc:
    def __init__(self, name, role, log, popen, stop_file=None, instance=None):
        self.name, self.role, self.log, self.p, self.stop_file = name, role, log, popen, stop_file
        self.instance = instance
        self.killed_at = None


def base_scenario(case):
    return json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "eos", case["file"])))


def java_cmd(ctx, args, extra=()):
    cp = os.pathsep.join([os.path.join(ctx.CACHE, "classes", "streams431"), os.path.join(ctx.LIB, "streams431", "*")])
    return ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"] + list(extra) + ["-cp", cp, "EosConformance"] + \
        ["%s=%s" % kv for kv in args.items()]


# The instances log ConsumerCoordinator at INFO with wall-clock stamps: its "The following partitions
# still have unstable offsets" line is each OffsetFetch answered UNSTABLE_OFFSET_COMMIT (retried).
INSTANCE_JVM = ("-Dorg.slf4j.simpleLogger.log.org.apache.kafka.clients.consumer.internals.ConsumerCoordinator=info",
                "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd HH:mm:ss.SSS")
UNSTABLE = "still have unstable offsets"


def unstable_fetches(path, shift_ms):
    """The instants (ms after t = 0) an instance's OffsetFetch was answered UNSTABLE_OFFSET_COMMIT."""
    out = []
    for line in open(path, errors="replace"):
        if UNSTABLE in line and line[:4].isdigit():
            t = time.mktime(time.strptime(line[:19], "%Y-%m-%d %H:%M:%S")) * 1000.0 + int(line[20:23])
            out.append(round(t - shift_ms, 1))
    return out


def spawn(ctx, name, role, workdir, args, stop=True, instance=None, extra=()):
    log = os.path.join(workdir, name + ".log")
    args = dict(args, log=log)
    stop_file = os.path.join(workdir, name + ".stop") if stop else None
    if stop_file:
        args["stop_file"] = stop_file
    errf = open(os.path.join(workdir, name + ".stderr"), "w")
    return Proc(name, role, log, subprocess.Popen(java_cmd(ctx, args, extra), stdout=errf, stderr=errf),
                stop_file, instance)


def instance_args(case, sc, i, restart, tag, topics, broker, workdir, epoch_ns):
    s = sc["service"]
    args = {"bootstrap": broker.addr, "topic": topics[0], "out_topic": topics[1], "group": "g-" + tag,
            "client_id": "instance-%d" % i, "epoch_ns": epoch_ns, "go_file": os.path.join(workdir, "go"),
            "commit.interval.ms": s.get("commit.interval.ms", 100), "record_processing_ms": s.get("record_processing_ms", 0),
            "max.poll.records": s.get("max.poll.records", 500), "session.timeout.ms": s["session.timeout.ms"],
            # The client's default ratio (45000 / 3000 would be 15; Kafka's docs ask for ≤ 1/3).
            "heartbeat.interval.ms": min(3000, s["session.timeout.ms"] // 3)}
    if s["kind"] == "consume_transform_produce":
        args["mode"] = "ctp"
        # EosConformance runs transaction_age (the default) or transaction_records (model.md §14.2).
        args["commit_rule"] = s.get("commit_rule", "transaction_age")
        if args["commit_rule"] not in ("transaction_age", "transaction_records"):
            raise RuntimeError("EosConformance's loop has no commit_rule %s" % args["commit_rule"])
        args["commit_records"] = s.get("commit_records", 1)
        args["transaction.timeout.ms"] = s.get("transaction.timeout.ms", 60000)
        same = case.get("restart_transactional_id", "same") == "same"
        args["txn_id"] = "tx-%s-i%d%s" % (tag, i, "" if not restart or same else "-r%d" % restart)
    else:
        args["mode"] = "streams"
        args["processing.guarantee"] = s["processing.guarantee"]
        args["state_dir"] = os.path.join(workdir, "state-%d" % i)
        if s["processing.guarantee"] != "at_least_once" and "transaction.timeout.ms" in s:
            args["transaction.timeout.ms"] = s["transaction.timeout.ms"]
    if not restart:
        for e in sc.get("events", []):
            if e["kind"] == "crash" and e["instance"] == i:
                args["die_at_ms"] = e["at_ms"]
                if s["kind"] == "consume_transform_produce":
                    args["die_point"] = case.get("die_point", "after_offsets")
    return args


def last_assigned(lines, before=None):
    got = None
    for w in lines:
        if before is not None and float(w[1]) > before:
            break
        if w[0] == "assigned":
            got = [] if w[2] == "-" else [int(x) for x in w[2].split(",")]
    return got


def parse_pairs(s):
    return {} if s == "-" else {int(k): int(v) for k, v in (x.split("=") for x in s.split(","))}


# ---------------------------------------------------------------- one case

def run_eos_case(ctx, case, broker, workdir, attempt):
    sc = base_scenario(case)
    if sc["transaction.abort.timed.out.transaction.cleanup.interval.ms"] != BROKER_SCAN_MS:
        raise RuntimeError("the scenario's scan interval must be the broker's (%d ms)" % BROKER_SCAN_MS)
    tag = "%s-%d-%s" % (case["name"], attempt, uuid.uuid4().hex[:6])
    parts = sc["input"]["partitions"]
    topics = ("eos-in-" + tag, "eos-out-" + tag)
    from confluent_kafka.admin import NewTopic
    fs = broker.admin().create_topics([NewTopic(t, parts, 1) for t in topics])
    for f in fs.values():
        f.result(30)
    epoch_ns = time.monotonic_ns()
    procs = []
    restarts = []  # (due instant on the case clock, instance, count)
    try:
        for r in sc["readers"]:
            procs.append(spawn(ctx, "reader-" + r["name"], "reader", workdir, {
                "mode": "read", "bootstrap": broker.addr, "topic": topics[1], "partitions": parts,
                "isolation": r["isolation.level"], "epoch_ns": epoch_ns}))
        procs.append(spawn(ctx, "input", "input", workdir, {
            "mode": "input", "bootstrap": broker.addr, "topic": topics[0], "partitions": parts,
            "records_per_partition": sc["input"]["records_per_partition"], "rate_per_s": sc["input"]["rate_per_s"],
            "epoch_ns": epoch_ns, "go_file": os.path.join(workdir, "go")}, stop=False))
        procs.append(spawn(ctx, "at-kill", "watcher", workdir, {
            "mode": "committed", "bootstrap": broker.addr, "topic": topics[0], "group": "g-" + tag,
            "epoch_ns": epoch_ns, "trigger_file": os.path.join(workdir, "killed")}, stop=False))
        # The instances one after the other: each holds a partition before the next joins (the
        # cooperative assignor then moves one partition, and the group is settled at t = 0).
        n = sc["service"]["instances"]
        deadline = time.time() + READY_TIMEOUT_S
        for i in range(n):
            procs.append(spawn(ctx, "instance-%d" % i, "instance", workdir,
                               instance_args(case, sc, i, 0, tag, topics, broker, workdir, epoch_ns), instance=i,
                               extra=INSTANCE_JVM))
            while last_assigned(txn.read_log(procs[-1].log)) in (None, []):
                check_alive(procs)
                if time.time() > deadline:
                    raise RuntimeError("instance %d not assigned within %d s" % (i, READY_TIMEOUT_S))
                time.sleep(0.02)
        # Settled: every instance one share of the partitions (the last assigned lines), every
        # other process ready.
        while True:
            check_alive(procs)
            shares = [last_assigned(txn.read_log(p.log)) for p in procs if p.role == "instance"]
            ready = all(any(w[0] == "ready" for w in txn.read_log(p.log)) for p in procs
                        if p.role in ("reader", "input", "watcher"))
            if ready and all(s and len(s) == parts // n for s in shares) and \
                    sorted(x for s in shares for x in s) == list(range(parts)):
                break
            if time.time() > deadline:
                raise RuntimeError("the group did not settle within %d s: %s" % (READY_TIMEOUT_S, shares))
            time.sleep(0.02)
        go = txn.now_ms(epoch_ns) + 500.0
        wall_minus_mono = time.time() * 1000.0 - txn.now_ms(epoch_ns)
        write_trigger(workdir, "go", go)
        horizon = go + sc["horizon_ms"]
        every = {"%d:%d" % (p, i) for p in range(parts) for i in range(sc["input"]["records_per_partition"])}
        rc = next(p for p, r in zip(procs, sc["readers"]) if r["isolation.level"] == "read_committed")
        reached_ms = None
        while txn.now_ms(epoch_ns) < horizon:
            t = txn.now_ms(epoch_ns)
            for p in list(procs):
                if p.role != "instance" or p.killed_at is not None or p.p.poll() is not None:
                    continue
                dying = [w for w in txn.read_log(p.log) if w[0] == "dying"]
                if dying and t >= float(dying[0][1]) + DYING_HOLD_MS:
                    p.p.send_signal(signal.SIGKILL)
                    p.p.wait()
                    p.killed_at = txn.now_ms(epoch_ns) - go
                    write_trigger(workdir, "killed", txn.now_ms(epoch_ns))
                    ev = next(e for e in sc["events"] if e["kind"] == "crash" and e["instance"] == p.instance)
                    if ev.get("restart_after_ms") is not None:
                        restarts.append([go + p.killed_at + ev["restart_after_ms"], p.instance, 1])
            for rs in restarts:
                if rs[2] and t >= rs[0]:
                    i, k = rs[1], rs[2]
                    procs.append(spawn(ctx, "instance-%d.r%d" % (i, k), "instance", workdir,
                                       instance_args(case, sc, i, k, tag, topics, broker, workdir, epoch_ns),
                                       instance=i, extra=INSTANCE_JVM))
                    procs[-1].restarted_at = t - go
                    rs[2] = 0
            check_alive(procs)
            seen = {w[4] for w in txn.read_log(rc.log) if w[0] == "rec"}
            if every <= seen and not any(rs[2] for rs in restarts):
                reached_ms = round(txn.now_ms(epoch_ns) - go, 1)
                break
            time.sleep(0.01)
        time.sleep(SETTLE_S)
        final = committed_reads(ctx, broker, topics[0], "g-" + tag, workdir, epoch_ns)
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
    logs = {p.name: txn.read_log(p.log) for p in procs}
    rollbacks = txn.broker_rollbacks(broker.log.name, tag, wall_minus_mono + go)
    real = analyse(case, sc, procs, logs, go, final, rollbacks, every)
    real["state reached at (info)"] = reached_ms
    real["unstable_offset_fetches"] = {p.name: unstable_fetches(os.path.join(workdir, p.name + ".stderr"),
                                                                wall_minus_mono + go)
                                       for p in procs if p.role == "instance"}
    if real.get("killed") and not real["open_set"]:
        # The kill came right after a commit: nothing to abort, no experiment (run.py runs it again).
        raise group.FormationMismatch("the killed instance had processed nothing since its last commit")
    m = run_aligned_model(ctx, case, sc, real, workdir)
    return sc, m, real, {"logs": logs, "go": go, "model": m}


def write_trigger(workdir, name, value):
    with open(os.path.join(workdir, name + ".tmp"), "w") as f:
        f.write("%.3f." % value)
    os.rename(os.path.join(workdir, name + ".tmp"), os.path.join(workdir, name))


def check_alive(procs):
    for p in procs:
        if p.killed_at is None and p.p.poll() not in (None, 0) and p.role != "input":
            raise RuntimeError("%s exited (%d)" % (p.name, p.p.returncode))
        if p.role == "input" and p.p.poll() not in (None, 0):
            raise RuntimeError("the input producer failed (%d)" % p.p.returncode)


def committed_reads(ctx, broker, topic, group, workdir, epoch_ns):
    log = os.path.join(workdir, "final.log")
    args = {"mode": "committed", "bootstrap": broker.addr, "topic": topic, "group": group, "log": log,
            "epoch_ns": epoch_ns, "reads": 2, "read_gap_ms": 1000}
    out = subprocess.run(java_cmd(ctx, args), capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError("committed read failed: " + (out.stdout + out.stderr)[-500:])
    return [parse_pairs(w[3]) for w in txn.read_log(log) if w[0] == "committed"]


def seen_counts(values, every):
    c = collections.Counter(v for v in values if v in every)
    counts = {"once": 0, "twice": 0, "more": 0, "never": 0}
    for v in every:
        counts[{0: "never", 1: "once", 2: "twice"}.get(c[v], "more")] += 1
    return counts, {v for v in every if c[v] == 2}, {v for v in every if c[v] > 2}


def analyse(case, sc, procs, logs, go, final, rollbacks, every):
    """The real side, on the scenario's clock (ms after t = 0)."""
    s = sc["service"]
    real = {"readers": {}}
    for r in sc["readers"]:
        vals = [w[4] for w in logs["reader-" + r["name"]] if w[0] == "rec"]
        counts, twice, more = seen_counts(vals, every)
        c = collections.Counter(v for v in vals if v in every)
        real["readers"][r["name"]] = dict(seen=counts, twice=sorted(twice), more=sorted(more), total=len(vals),
                                          counts={v: c[v] for v in sorted(every) if c[v] != 1})
    victim = next(p for p in procs if p.killed_at is not None) if any(p.killed_at is not None for p in procs) else None
    real["killed"] = None
    if victim is None:
        return real
    vl = logs[victim.name]
    dying = next(w for w in vl if w[0] == "dying")
    killed_abs = victim.killed_at + go
    vparts = last_assigned(vl)
    k = int(dying[2])
    # What the killed instance processed and did not commit.
    at_kill = next((parse_pairs(w[3]) for w in logs["at-kill"] if w[0] == "committed"), None)
    if s["kind"] == "consume_transform_produce":
        open_set = {"%s:%s" % (w[3], w[4]) for w in vl if w[0] == "proc" and int(w[2]) == k}
        begin = next(float(w[1]) - go for w in vl if w[0] == "begin" and int(w[2]) == k)
        first_send = min(float(w[1]) - go for w in vl if w[0] == "proc" and int(w[2]) == k)
    else:
        last = {}
        for w in vl:
            if w[0] == "proc":
                last[int(w[3])] = max(last.get(int(w[3]), -1), int(w[4]))
        # The dying record blocked in mapValues: its output never reached the producer.
        open_set = {"%d:%d" % (p, o) for p, hi in last.items() if p in vparts
                    for o in range((at_kill or {}).get(p, 0), hi)}
        begin = None
        # The killed transaction's first output: the first record processed past the last commit.
        first_send = min((float(w[1]) - go for w in vl if w[0] == "proc" and "%s:%s" % (w[3], w[4]) in open_set),
                         default=None)
    # Other aborts (a failed commit): their records are repeated under read_uncommitted too.
    aborted_other = set()
    other_aborts = collections.Counter()  # input → how many aborted transactions (not the killed one) held it
    for p in procs:
        if p.role != "instance":
            continue
        ks = {int(w[2]) for w in logs[p.name] if w[0] == "abort"}
        for w in logs[p.name]:
            if w[0] == "proc" and int(w[2]) in ks:
                aborted_other.add("%s:%s" % (w[3], w[4]))
                other_aborts["%s:%s" % (w[3], w[4])] += 1
    # Processings per input (every instance's `proc` lines). A Streams instance logs `proc` for the
    # record it then blocks on (`dying`): its output never reached the producer, so it counts as
    # processed as little as the model's record in progress at a crash.
    procd = [w for p in procs if p.role == "instance" for w in logs[p.name] if w[0] == "proc"]
    dying_record = None
    if s["kind"] == "kafka_streams":
        before = [w for w in vl[:vl.index(dying)] if w[0] == "proc"]
        dying_record = before and "%s:%s" % (before[-1][3], before[-1][4])
    values = ["%s:%s" % (w[3], w[4]) for w in procd]
    if dying_record:
        values.remove(dying_record)
    real["processed"] = seen_counts(values, every)[0]
    cp = collections.Counter(values)
    real["processed counts"] = {v: cp[v] for v in sorted(every) if cp[v] != 1}
    real["killed"] = dict(instance=victim.instance, dying_ms=round(float(dying[1]) - go, 1),
                          killed_ms=round(victim.killed_at, 1), partitions=vparts, committed_at_kill=at_kill,
                          uncommitted_inputs=len(open_set), open_transaction_begin_ms=begin and round(begin, 1),
                          other_aborted_inputs=len(aborted_other), dying_record=dying_record,
                          first_output_ms=first_send and round(first_send, 1))
    real["open_set"] = sorted(open_set | aborted_other)
    real["killed_inputs"] = sorted(open_set)
    real["aborted_other"] = sorted(aborted_other)
    real["other_aborts"] = dict(sorted(other_aborts.items()))
    real["aborted_transactions"] = sum(1 for p in procs if p.role == "instance" for w in logs[p.name] if w[0] == "abort")
    # The stall of each of the killed instance's partitions: kill → first record processed after it.
    stalls = {}
    for part in vparts:
        firsts, assigned = [], []
        for p in procs:
            if p.role != "instance" or p is victim:
                continue
            lines = logs[p.name]
            firsts += [float(w[1]) for w in lines if w[0] == "proc" and int(w[3]) == part and float(w[1]) > killed_abs]
            assigned += [float(w[1]) for w in lines if w[0] == "assigned" and w[2] != "-" and float(w[1]) > killed_abs
                         and part in [int(x) for x in w[2].split(",")]]
        # The read_committed reader's first record of that output partition after the kill: the
        # output's last stable offset moved past the killed transaction's first output.
        # The killed transaction's first output on the partition: the first offset a
        # read_uncommitted reader was handed an uncommitted input's output at.
        rc = next(r["name"] for r in sc["readers"] if r["isolation.level"] == "read_committed")
        ru = next((r["name"] for r in sc["readers"] if r["isolation.level"] == "read_uncommitted"), None)
        stuck = min((int(w[3]) for w in logs.get("reader-%s" % ru, []) if w[0] == "rec" and int(w[2]) == part
                     and w[4] in open_set), default=None)
        rel = [float(w[1]) for w in logs["reader-" + rc] if w[0] == "rec" and int(w[2]) == part
               and stuck is not None and int(w[3]) > stuck]
        stalls[part] = dict(from_ms=round(victim.killed_at, 1), to_ms=firsts and round(min(firsts) - go, 1),
                            assigned_ms=assigned and round(min(assigned) - go, 1),
                            output_stuck_offset=stuck, output_released_ms=rel and round(min(rel) - go, 1))
    real["stalls"] = stalls
    restarted = [p for p in procs if p.role == "instance" and p.instance == victim.instance and p is not victim]
    if restarted:
        rl = logs[restarted[0].name]
        init = next((w for w in rl if w[0] == "init"), None)
        real["restart"] = dict(started_ms=round(restarted[0].restarted_at, 1),
                               init_returned_ms=init and round(float(init[2]) - go, 1))
    real["timed_out_rollbacks"] = [r for r in rollbacks if r > victim.killed_at - 1000]
    real["input_committed"] = final[-1] if final else None
    real["committed reads agree"] = len(final) == 2 and final[0] == final[1]
    return real


# ---------------------------------------------------------------- the model

# The model's commit of a consume-transform-produce transaction: flush() for MODEL_FLUSH_MS, then
# sendOffsetsToTransaction, EndTxn MODEL_WINDOW_MS later (model.md §14.1 `flush_ms`,
# `offsets_to_end_txn_ms`). Their length changes no count as long as the instance is free again
# before the next record (40 ms apart, 5 ms each here); they give the model's crash an instant in
# the phase the real instance died in (before or after sendOffsetsToTransaction returned).
MODEL_FLUSH_MS = 4.0
MODEL_WINDOW_MS = 4.0
# Kafka Streams' commit timer phase is searched in these steps: a commit must fall between two
# records' ends, which are 40 ms apart here.
PHASE_STEP_MS = 5.0


def model_scenario(case, sc):
    """The case's scenario as the model reads it: a consume-transform-produce case's restart with
    a new transactional.id (run.py's `restart_transactional_id`) is the model's
    `service.restart_keeps_transactional.id: false`; its loop is EosConformance's (`commit_rule`
    transaction_age unless the scenario says transaction_records; the flush and the offsets→EndTxn
    window above); every instance heartbeats as instance_args makes the real ones."""
    sc = json.loads(json.dumps(sc))
    if sc["service"]["kind"] == "consume_transform_produce":
        sc["service"]["restart_keeps_transactional.id"] = case.get("restart_transactional_id", "same") == "same"
        sc["service"].setdefault("commit_rule", "transaction_age")
        if sc["service"]["processing.guarantee"] == "exactly_once_v2":
            sc["service"]["flush_ms"] = MODEL_FLUSH_MS
            sc["service"]["offsets_to_end_txn_ms"] = MODEL_WINDOW_MS
    # instance_args gives every real instance this heartbeat.interval.ms.
    sc["service"].setdefault("heartbeat.interval.ms", min(3000, sc["service"]["session.timeout.ms"] // 3))
    return sc


def committed_at(m, p, t):
    """The model's committed offset of input partition p at instant t (None: nothing yet)."""
    c = next((x for x in m.get("input_committed", []) if x["partition"] == p), {"steps": []})
    return next((st["offset"] for st in reversed(c["steps"]) if st["at_ms"] <= t), None)


def run_aligned_model(ctx, case, sc, real, workdir):
    """The model on the case's scenario with its crash where the real instance died (README
    "Exactly-once pipelines", the model): on the same partitions, in the same transaction and the
    same phase of it, restarted at the real restart's instant; a Kafka Streams case with the commit
    timer phase whose last commit before the crash is the real one's. Returns the model's result
    with `alignment` (how it was placed), or {"absent": why}."""
    cmd, why = txn.model_command(ctx, "pipeline")
    if cmd is None:
        return {"absent": why}
    k = real.get("killed")
    msc = model_scenario(case, sc)
    if not k:
        return txn.run_model(ctx, msc, workdir, "pipeline")
    s = msc["service"]
    n, parts = s["instances"], msc["input"]["partitions"]
    q = parts // n
    vparts = k["partitions"]
    # The model's range assignment gives instance i partitions i·q … (i+1)·q − 1; the real
    # cooperative-sticky assignment gave the killed instance its own share (either half).
    mi = vparts[0] // q
    if vparts != list(range(mi * q, (mi + 1) * q)):
        raise RuntimeError("the killed instance held %s: not one model instance's share" % vparts)
    ev = next(e for e in msc["events"] if e["kind"] == "crash")
    # The model's own timeline without the crash: each input's output instant (= its end).
    base = json.loads(json.dumps(msc))
    base["events"] = []
    mb = txn.run_model(ctx, base, workdir, "pipeline")
    out_at = {"%d:%d" % (e["input_partition"], e["input_offset"]): e["at_ms"] for e in mb["output_log"]
              if e["kind"] == "data"}
    proc_ms = s.get("record_processing_ms", 1)
    streams = s["kind"] == "kafka_streams"
    if not streams:
        # The killed transaction's last record ended, then the flush, then the offsets: the real
        # instance died after flush() (before_offsets) or after sendOffsetsToTransaction returned.
        last_end = max(out_at[x] for x in real["killed_inputs"])
        before = case.get("die_point") == "before_offsets"
        crash = last_end + (MODEL_FLUSH_MS / 2 if before else MODEL_FLUSH_MS + MODEL_WINDOW_MS / 2)
        how = "the killed transaction's last record ends at %s ms; crash %s" % (
            last_end, "in its flush()" if before else "between sendOffsetsToTransaction and EndTxn")
    else:
        # The record the real instance blocked on: the model's crash halfway through it.
        d = k["dying_record"]
        crash = out_at[d] - proc_ms + proc_ms / 2.0
        how = "record %s runs %s–%s ms; crash halfway" % (d, out_at[d] - proc_ms, out_at[d])
    crash = round(crash, 3)
    # The restarted process joins the group once its consumer exists: after initTransactions()
    # (CTP; Streams logs `init` as it starts), which took up to 5 s on a loaded machine.
    rs = real.get("restart", {})
    restart = rs.get("init_returned_ms") if rs.get("init_returned_ms") is not None else rs.get("started_ms")
    event = {"at_ms": crash, "instance": mi, "kind": "crash",
             "restart_after_ms": None if restart is None else round(max(0.0, restart - crash), 3)}
    msc["events"] = [event]
    align = {"crash_at_ms": crash, "instance": mi, "restart_after_ms": event["restart_after_ms"], "placed": how}
    if streams:
        # The real commit timer runs from the stream thread's start (before t = 0) and advances at
        # every check, commit or not; its phase is read from the run: the one whose last commit
        # before the crash leaves the real committed offsets at the kill.
        want = {p: (k["committed_at_kill"] or {}).get(p) for p in vparts}
        interval = s["commit.interval.ms"]
        phase, m = 0.0, None
        while phase < interval:
            s["commit_phase_ms"] = phase
            m = txn.run_model(ctx, msc, workdir, "pipeline")
            if {p: committed_at(m, p, crash) for p in vparts} == want:
                break
            phase += PHASE_STEP_MS
        else:
            s["commit_phase_ms"] = 0.0
            m = txn.run_model(ctx, msc, workdir, "pipeline")
            align["phase"] = "none of 0–%s ms leaves %s committed at the crash" % (interval, want)
        align["commit_phase_ms"] = s["commit_phase_ms"]
    else:
        m = txn.run_model(ctx, msc, workdir, "pipeline")
    m["alignment"] = align
    return m


# ---------------------------------------------------------------- the verdict

def compare(case, sc, m, real):
    s = sc["service"]
    eos = s["processing.guarantee"] == "exactly_once_v2"
    every_n = sc["input"]["partitions"] * sc["input"]["records_per_partition"]
    pairs = []
    k = real.get("killed")
    pairs.append(("killed mid-transaction", True, k is not None))
    if k is None:
        return pairs
    open_set = set(real["open_set"])
    pairs.append(("inputs processed and not committed at the kill > 0", True, len(open_set) > 0))
    killed_set = set(real["killed_inputs"])
    other = real.get("other_aborts", {})
    for r in sc["readers"]:
        got = real["readers"][r["name"]]
        repeated = r["isolation.level"] == "read_uncommitted" or not eos
        # Each input once, plus once per aborted (EOS) or uncommitted (ALO) processing a reader of
        # this isolation sees: the killed transaction's, and any transaction an instance aborted.
        want_counts = {} if not repeated else {
            v: 1 + (v in killed_set) + other.get(v, 0) for v in sorted(killed_set | set(other))}
        pairs.append(("%s seen" % r["name"], counts_seen(want_counts, every_n), got["seen"]))
        if repeated:
            pairs.append(("%s counts per input = 1 + the aborted or uncommitted processings" % r["name"], True,
                          got["counts"] == want_counts))
    n = sc["input"]["records_per_partition"]
    pairs.append(("input_committed", {str(p): n for p in range(sc["input"]["partitions"])},
                  real["input_committed"] and {str(p): o for p, o in real["input_committed"].items()}))
    pairs.append(("committed reads 1 s apart agree", True, real["committed reads agree"]))
    timeout = s.get("transaction.timeout.ms", 60000)
    # Who aborts the killed transaction: the restarted instance's initTransactions() (same
    # transactional.id) or the coordinator's scan after transaction.timeout.ms (a new id; Kafka
    # Streams: a stateless instance's process id, and so its transactional.id, is new at each start).
    waits_for_timeout = eos and (s["kind"] == "kafka_streams" or case.get("restart_transactional_id") == "new")
    # Whether the input partition waits for that abort: only a transaction that had sent its offsets
    # (TxnOffsetCommit) leaves them pending, and OffsetFetch with requireStable answers
    # UNSTABLE_OFFSET_COMMIT only then (OffsetMetadataManager.fetchOffsets / replay). The CTP
    # instance dies after sendOffsetsToTransaction; Kafka Streams calls it only inside its commit
    # (StreamsProducer.commitTransaction), so a kill between commits leaves no pending offsets.
    input_waits = waits_for_timeout and s["kind"] == "consume_transform_produce" and \
        case.get("die_point", "after_offsets") == "after_offsets"
    rb = real["timed_out_rollbacks"]
    uf = real.get("unstable_offset_fetches", {})
    n_unstable = sum(len(v) for v in uf.values())
    if input_waits:
        # The new owner's OffsetFetch (requireStable) was answered UNSTABLE_OFFSET_COMMIT, and
        # retried, until the rollback.
        pairs.append(("OffsetFetch answered UNSTABLE_OFFSET_COMMIT", True, n_unstable > 0))
        last = max((t for v in uf.values() for t in v), default=None)
        if rb and last is not None:
            # Still answered until about the rollback (the consumer retries every ≈ 65 ms here; the
            # broker logs the rollback before the markers clear the pending offsets).
            pairs.append(txn.window_pair("the last UNSTABLE_OFFSET_COMMIT − rollback", -1000.0, RELEASE_MARGIN_MS,
                                         round(last - rb[0], 1)))
    else:
        pairs.append(("OffsetFetch answered UNSTABLE_OFFSET_COMMIT (times)", [], [t for v in uf.values() for t in v]))
    if waits_for_timeout:
        pairs.append(("the coordinator's timed-out rollback", "one", "one" if len(rb) == 1 else rb))
    else:
        pairs.append(("no timed-out rollback", [], rb))
    for part, st in sorted(real["stalls"].items()):
        to, assigned = st["to_ms"], st["assigned_ms"]
        pairs.append(("p%d processed again after the kill" % part, True, bool(to)))
        if not to:
            continue
        if waits_for_timeout and len(rb) == 1:
            rel = st["output_released_ms"]
            pairs.append(txn.window_pair("p%d read_committed release − rollback" % part, -CLOCK_SLACK_MS,
                                         RELEASE_MARGIN_MS, round(rel - rb[0], 1) if rel else None))
        if input_waits and len(rb) == 1:
            # The new owner was assigned before the abort and still waited for it (OffsetFetch with
            # requireStable answered UNSTABLE_OFFSET_COMMIT while the offsets were pending).
            pairs.append(("p%d assigned before the rollback" % part, True, bool(assigned) and assigned < rb[0]))
            pairs.append(txn.window_pair("p%d first record − rollback" % part, -CLOCK_SLACK_MS, RELEASE_MARGIN_MS,
                                         round(to - rb[0], 1)))
        if waits_for_timeout and len(rb) == 1 and k["open_transaction_begin_ms"] is not None:
            pairs.append(txn.window_pair("rollback − the killed transaction's begin", timeout - CLOCK_SLACK_MS,
                                         timeout + BROKER_SCAN_MS + RELEASE_MARGIN_MS,
                                         round(rb[0] - k["open_transaction_begin_ms"], 1)))
        if not input_waits:
            pairs.append(txn.window_pair("p%d first record − assigned" % part, -CLOCK_SLACK_MS, FREE_START_MS,
                                         round(to - assigned, 1) if assigned else None))
            if eos and s["kind"] == "consume_transform_produce" and case.get("restart_transactional_id") == "same" \
                    and real.get("restart", {}).get("init_returned_ms") is not None \
                    and k["open_transaction_begin_ms"] is not None:
                # Same transactional.id: the restarted instance's initTransactions() aborted the open
                # transaction (InitProducerId bumps the epoch), long before its timeout could.
                pairs.append(("initTransactions() returned before the transaction's timeout", True,
                              real["restart"]["init_returned_ms"] < k["open_transaction_begin_ms"] + timeout))
    if m and "absent" not in m:
        pairs += compare_model(case, sc, m, real)
    return pairs


def counts_seen(counts, every_n):
    """once/twice/more/never over every_n inputs from the counts that are not 1."""
    out = {"once": every_n - len(counts), "twice": 0, "more": 0, "never": 0}
    for c in counts.values():
        out[{0: "never", 1: "once", 2: "twice"}.get(c, "more")] += 1
    return out


def without(counts, sub):
    """Per-input counts (those ≠ 1) minus sub's."""
    out = {}
    for v in sorted(set(counts) | set(sub)):
        c = counts.get(v, 1) - sub.get(v, 0)
        if c != 1:
            out[v] = c
    return out


def by_count(m_reader, c):
    """The inputs ("p:o") whose output a model reader was handed c times."""
    return sorted("%d:%d" % (b["partition"], o) for b in m_reader.get("by_input", [])
                  for o, x in enumerate(b["counts"]) if x == c)


def compare_model(case, sc, m, real):
    """The model (placed as run_aligned_model says) against the real run: counts exactly, instants
    within what the model cannot know (README "Exactly-once pipelines", the model)."""
    s = sc["service"]
    k = real["killed"]
    al = m.get("alignment", {})
    pairs = [("model placed", "aligned", al.get("phase", "aligned"))]
    # A surviving instance's transaction aborted on CommitFailedException (a TxnOffsetCommit sent
    # with the generation of consumer.groupMetadata() while the group had moved on: the
    # cooperative member keeps processing through the rebalance) is a race the model does not
    # have: counted apart (a known disagreement), and its inputs counted once on the real side.
    other = real.get("other_aborts", {})
    pairs.append(("model transactions aborted by CommitFailedException", 0, real.get("aborted_transactions", 0)))
    eos = s["processing.guarantee"] == "exactly_once_v2"
    every_n = sc["input"]["partitions"] * sc["input"]["records_per_partition"]
    mr = {r["name"]: r for r in m.get("readers", [])}
    for r in sc["readers"]:
        got = real["readers"][r["name"]]
        # The aborted transactions' repeats, which only readers seeing aborted outputs count.
        sees_aborted = r["isolation.level"] == "read_uncommitted" or not eos
        counts = without(got["counts"], other if sees_aborted else {})
        pairs.append(("model %s seen" % r["name"], mr[r["name"]]["seen"], counts_seen(counts, every_n)))
        pairs.append(("model %s twice" % r["name"], by_count(mr[r["name"]], 2),
                      sorted(v for v, c in counts.items() if c == 2)))
    pairs.append(("model processed", m["processed"], counts_seen(without(real["processed counts"], other), every_n)))
    vparts = k["partitions"]
    crash = al["crash_at_ms"]
    pairs.append(("model committed at the kill", {p: committed_at(m, p, crash) for p in vparts},
                  {p: (k["committed_at_kill"] or {}).get(p) for p in vparts}))
    pairs.append(("model input_committed", {str(x["partition"]): x["last"] for x in m["input_committed"]},
                  real["input_committed"] and {str(p): o for p, o in real["input_committed"].items()}))
    aborts = [a for a in m.get("timed_out_aborts", []) if a["instance"] == al["instance"]]
    rb = real["timed_out_rollbacks"]
    pairs.append(("model timed-out aborts", len(aborts), len(rb)))
    unstable = any(st["reason"] == "unstable_offset_commit" for x in m["input_stalls"] if x["partition"] in vparts
                   for st in x["stalls"])
    pairs.append(("model UNSTABLE_OFFSET_COMMIT", unstable,
                  sum(len(v) for v in real.get("unstable_offset_fetches", {}).values()) > 0))
    interval = sc["transaction.abort.timed.out.transaction.cleanup.interval.ms"]
    hb = min(3000, s["session.timeout.ms"] // 3)  # instance_args' heartbeat.interval.ms
    linger = STREAMS_LINGER_MS if s["kind"] == "kafka_streams" else 0.0
    start_diff = None
    values = real.setdefault("model window values", {})
    if aborts and k.get("first_output_ms") is not None:
        # The real transaction starts on the coordinator when its first output arrives: after
        # its `proc` line (send() returned), within the producer's linger and one produce round trip.
        start_diff = k["first_output_ms"] - aborts[0]["started_at_ms"]
    if aborts and len(rb) == 1 and start_diff is not None:
        # Each side's scan aborts strictly after start + transaction.timeout.ms, at its own phase
        # (the broker's runs from its start): up to one scan interval apart either way.
        pairs.append(txn.window_pair("model timed-out abort: real − model", start_diff - interval - CLOCK_SLACK_MS,
                                     start_diff + linger + SEND_MS + interval + CLOCK_SLACK_MS,
                                     round(rb[0] - aborts[0]["aborted_at_ms"], 1)))
        values["timed-out abort: real − model"] = round(rb[0] - aborts[0]["aborted_at_ms"], 1)
    for part in vparts:
        st = real["stalls"].get(part, {})
        mst = next((x["stalls"] for x in m["input_stalls"] if x["partition"] == part), [])
        mend = max((x["to_ms"] for x in mst if x["to_ms"] is not None and x["to_ms"] >= crash), default=None)
        rend = st.get("to_ms")
        value = round(rend - mend, 1) if rend and mend is not None else None
        if unstable:
            if start_diff is None:
                continue
            # Both end at their side's abort; the real new owner's OffsetFetch retry and first
            # record come within RELEASE_MARGIN_MS of it.
            lo = start_diff - interval - CLOCK_SLACK_MS
            hi = start_diff + linger + SEND_MS + interval + RELEASE_MARGIN_MS
        else:
            # Both end when the dead member's session expires: session.timeout.ms after its last
            # heartbeat. The model's heartbeats run from 0 ms and stop at its crash; the real ones
            # from the join (unknown phase) until the SIGKILL (`killed_ms`); the real new owner
            # then starts within FREE_START_MS.
            kd = k["killed_ms"] - crash
            lo, hi = kd - hb - CLOCK_SLACK_MS, kd + hb + FREE_START_MS
        pairs.append(txn.window_pair("model p%d stall end: real − model" % part, lo, hi, value))
        values["p%d stall end: real − model" % part] = value
    return pairs


def summary(pairs, side, model_side=False):
    short = [p for p in pairs if p[0].startswith("model ") == model_side and p[0].endswith(" seen")
             and isinstance(p[side], dict)]
    return " ".join("%s=%s" % (p[0].replace("model ", "").replace(" seen", ""),
                               "/".join(str((p[side] or {}).get(x, "-")) for x in ("once", "twice", "more", "never")))
                    for p in short)


def describe_events(case, sc):
    s = sc["service"]
    ev = "; ".join("instance %d crash %sms, restart +%sms" % (e["instance"], e["at_ms"], e.get("restart_after_ms"))
                   for e in sc.get("events", []))
    extra = ""
    if s["kind"] == "consume_transform_produce":
        extra = ", killed %s sendOffsetsToTransaction, restarted with the %s transactional.id" % (
            "before" if case.get("die_point") == "before_offsets" else "after",
            case.get("restart_transactional_id", "same"))
    commits = "commit_records %s" % s["commit_records"] if s.get("commit_rule") == "transaction_records" else \
        "commit.interval.ms %s" % s.get("commit.interval.ms", 100)
    return "%s %s x%d, %s; %s%s" % (s["kind"], s["processing.guarantee"], s["instances"], commits, ev, extra)


def notes(case, sc, m, real, pairs):
    out = []
    k = real.get("killed")
    if k:
        out.append("  killed: " + json.dumps(k))
        for part, st in sorted(real.get("stalls", {}).items()):
            out.append("  p%d stall: from %s ms (kill) to %s ms (first record processed after it; %s ms), "
                       "assigned to its new owner at %s ms" % (
                           part, st["from_ms"], st["to_ms"], st["to_ms"] and round(st["to_ms"] - st["from_ms"], 1),
                           st["assigned_ms"]))
            if sc["service"]["processing.guarantee"] == "exactly_once_v2":
                out.append("  p%d output: the killed transaction's first output at offset %s; the read_committed reader's "
                           "first record past it at %s ms" % (part, st.get("output_stuck_offset"),
                                                              st.get("output_released_ms")))
        uf = {n: (len(v), v[:1] + v[-1:]) for n, v in real.get("unstable_offset_fetches", {}).items() if v}
        out.append("  UNSTABLE_OFFSET_COMMIT answers (count, first and last ms): %s" % (json.dumps(uf) if uf else "none"))
        out.append("  timed-out rollbacks at %s ms; restart %s; input committed %s" % (
            real.get("timed_out_rollbacks"), json.dumps(real.get("restart")), json.dumps(real.get("input_committed"))))
    out.append("  readers: " + "; ".join("%s once/twice/more/never %s (%d records)" % (
        n, "/".join(str(r["seen"][x]) for x in ("once", "twice", "more", "never")), r["total"])
        for n, r in real.get("readers", {}).items()))
    if real.get("state reached at (info)") is not None:
        out.append("  every input seen by the read_committed reader at %s ms" % real["state reached at (info)"])
    if m and "absent" in m:
        out.append("  model: skipped, %s; the real values were compared with Kafka's rules only" % m["absent"])
    elif m:
        mr = {r.get("name"): r.get("seen") for r in m.get("readers", [])}
        out.append("  model (offset-window pipeline, compared) once/twice/more/never: %s | real: %s" % (
            " ".join("%s=%s" % (n, "/".join(str((v or {}).get(x, "-")) for x in ("once", "twice", "more", "never")))
                     for n, v in mr.items()), summary(pairs, 2)))
        out.append("  model placed: %s; windowed values (ms): %s" % (json.dumps(m.get("alignment")),
                                                                json.dumps(real.get("model window values"))))
        mp = [p for p in pairs if p[0].startswith("model ")]
        out.append("  model vs real: %d agree%s" % (sum(p[1] == p[2] for p in mp), "".join(
            "; %s %s (model/window %s)" % (p[0][6:], "agrees" if p[1] == p[2] else "DIFFERS: real %s" % json.dumps(p[2]),
                                           json.dumps(p[1]))
            for p in mp if p[0].endswith(("real − model", "processed", "at the kill", "aborts")))))
        out.append("  model input stalls: %s; timed-out aborts: %s" % (
            "; ".join("p%d %s" % (x["partition"], ", ".join("%s %s–%s" % (st["reason"], st["from_ms"], st["to_ms"])
                                                             for st in x["stalls"])) for x in m.get("input_stalls", [])),
            json.dumps(m.get("timed_out_aborts"))))
    return out


def timelines(case, sc, m, real, workdir, info):
    out = ["  timelines (real, ms after the case's epoch; t = 0 at %.1f ms):" % info.get("go", 0.0)]
    for name, lines in sorted(info.get("logs", {}).items()):
        keep = [w for w in lines if w[0] not in ("proc", "rec")] + \
            [w for w in lines if w[0] in ("proc", "rec")][-15:]
        for w in keep[-60:]:
            out.append("    %s: %s" % (name, " ".join(w)))
    if m and "absent" not in m:
        out.append("  model: %s" % json.dumps(m)[:3000])
    return out
