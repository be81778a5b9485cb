"""Consumer-group cases of the conformance suite (issue 14, docs/model.md §10): several real
consumer processes in one group on the suite's Apache Kafka broker, against `offset-window run`
on the group scenario they ran.

How a group case runs (README "Group cases"):

* **formation** — the initial members start together and subscribe; each pauses what it is
  assigned until the driver sees the expected initial assignment (model.md §10.2) held by every
  member, in one generation for classic groups. The driver then writes the common start instant
  G = the last assignment + `go_after_ms` (default 500) to a file; every member sleeps until G,
  resumes its partitions and polls. The model's group starts at t = 0 = G, assigned, with no
  round trips (§10.4). All processes log on CLOCK_MONOTONIC (Java `System.nanoTime`, Python
  `time.monotonic_ns`), in ms since the case's epoch, so their logs line up.
* **events** — each event of the case is triggered by a member's own logged progress, as the
  one-consumer cases' kills are: member m's N-th finished record (`done`) or its first
  assignment of partition p after G (`assigned`), plus a delay. `crash`: SIGKILL. `shutdown`:
  SIGTERM, whose shutdown hook calls `wakeup()` (or, `abrupt`, interrupts the record in progress
  and calls `close()` at once). `join` and the restart of a shutdown member: a standby process
  started with the case (client created, metadata and coordinator looked up) subscribes at the
  instant the driver writes to its start file (a restart: `close()`'s return + restart_after_ms).
  The model gets the same events at the model's instant of the same trigger (the N-th
  finished record of an undisturbed member: `N × record time`, found by run.py's bisection;
  an assignment: the model's handover of that partition to that member) plus the same delay.
* **end** — every member still alive is SIGKILLed at its own trigger (in a quiet stretch:
  mid-record), and the model gets a crash of each at the corresponding instant, with the
  horizon 1 ms after the last: the model hands each partition over "to nobody" at the horizon
  with its committed offset (§10.7), which the broker is asked for (1 s and 2 s after the
  last kill, until two reads agree).
* **verdict** — the handovers in order, per partition: from, to, the committed offset the new
  owner starts from (the real one logs it in `onPartitionsAssigned`), lost and duplicated at
  each (§10.7, computed from every member's `done` lines the same way), the final committed
  offsets and per-partition totals; for classic groups the number of rebalances (generations
  after G). Instants (handovers' at_ms, stalled_ms) are printed beside each other, never
  compared: they are wall-clock sensitive.
"""

import json
import os
import signal
import subprocess
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import NewTopic  # noqa: E402

ASSIGNORS = {"range", "roundrobin", "cooperative-sticky"}


class FormationMismatch(RuntimeError):
    """The group settled on another assignment than the model's initial one: under load a member's
    JoinGroup came after the first member's join had completed (the broker's
    group.initial.rebalance.delay.ms is 0), so the group formed in two rounds, and a sticky
    assignor kept the first round's partitions. Not an experiment: the case runs again on a new
    topic and group."""


class Ctx:
    """What run.py lends the group cases: the model, the clients, paths."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


# ---------------------------------------------------------------- the scenario

def base_scenario(case):
    sc = dict(case["scenario"])
    sc.setdefault("client", case["client"])
    # The suite's broker starts a group's first join at once (run.py: group.initial.rebalance.delay.ms=0).
    sc.setdefault("group.initial.rebalance.delay.ms", 0)
    # A new group (its own group id) whose members read from the start of the log, as the real
    # members do (auto.offset.reset=earliest; docs/model.md §1).
    sc.setdefault("new_group", True)
    sc.setdefault("auto.offset.reset", "earliest")
    return sc


def single_member(sc):
    """The one-consumer scenario an undisturbed member of `sc` runs (model.md §10: a group whose
    members each hold one partition and meet no event runs each partition as §§1–9)."""
    drop = ("partitions", "members", "group_events", "group.instance.id", "session.timeout.ms",
            "heartbeat.interval.ms", "group.consumer.heartbeat.interval.ms", "on_revoke", "on_revoke_drain_ms",
            "group.initial.rebalance.delay.ms", "partition.assignment.strategy")
    return {k: v for k, v in sc.items() if k not in drop}


def model_handover_at(ctx, sc, member, partition, k=1):
    """The model's instant (µs) of the k-th handover of `partition` to `member` after t = 0."""
    s = dict(sc)
    s["horizon_ms"] = max(s.get("horizon_ms", 60000), 120000)
    g = ctx.model(s)["group"]
    for h in g["handovers"]:
        if h["to"] == member and h["partition"] == partition:
            k -= 1
            if k == 0:
                return int(round(h["at_ms"] * 1000))
    raise RuntimeError("the model never hands orders-%d to consumer-%d: %s" % (partition, member,
                                                                               json.dumps(g["handovers"])))


def model_instant(ctx, sc, trigger, cache):
    """The model's instant (µs) of a trigger: ("done", m, N) — the N-th finished record of an
    undisturbed member (the one-consumer model's), ("assigned", m, p) — the handover of p to m."""
    kind = trigger[0]
    if kind == "done":
        key = ("done", trigger[2])
        if key not in cache:
            cache[key] = ctx.model_done_instant(single_member(sc), trigger[2])
        return cache[key]
    if kind == "assigned":
        return model_handover_at(ctx, sc, trigger[1], trigger[2], trigger[3] if len(trigger) > 3 else 1)
    if kind == "member_done":
        # The N-th finished record of member m in the group's own run of the events so far (a
        # member whose work changed with the events: its own records, not the undisturbed ones).
        s = dict(sc)
        s["horizon_ms"] = max(s.get("horizon_ms", 60000), 120000)
        done = sorted(float(mk["at_ms"]) for mk in ctx.model_marks(s)["marks"]
                      if mk["member"] == trigger[1] and mk["kind"] == "record_durable")
        if len(done) < trigger[2]:
            raise RuntimeError("the model's consumer-%d finishes %d records, not %d" % (trigger[1], len(done),
                                                                                     trigger[2]))
        return int(round(done[trigger[2] - 1] * 1000))
    if kind == "close_end":
        # When member m's close() returned (the model's Closed mark), in the run of the events so far.
        s = dict(sc)
        s["horizon_ms"] = max(s.get("horizon_ms", 60000), 120000)
        for mk in ctx.model_marks(s)["marks"]:
            if mk["kind"] == "closed" and mk["member"] == trigger[1]:
                return int(round(float(mk["at_ms"]) * 1000))
        raise RuntimeError("the model never closes consumer-%d" % trigger[1])
    raise ValueError(trigger)


def model_events(ctx, case, sc, allow_no_final=False):
    """The case's events and final kills as model group_events, at the model's instants of their
    triggers + delay. Returns (scenario, per-event model instants in µs)."""
    sc = dict(sc)
    sc["group_events"] = []
    cache, instants = {}, []
    for ev in case["events"]:
        at = model_instant(ctx, sc, ev["after"], cache) + ev["delay"] * 1000
        instants.append(at)
        e = {"at_ms": ctx.ms(at), "member": ev["member"], "kind": ev["kind"]}
        for k in ("shutdown_mode", "restart_after_ms"):
            if k in ev:
                e[k] = ev[k]
        sc["group_events"] = sc["group_events"] + [e]
    # The final kills in the order they come: each one's trigger in the run that has the earlier
    # ones (a kill hands its partitions to the members still alive, as on the broker).
    finals, kills, left = [None] * len(case["final"]), [], list(range(len(case["final"])))
    while left:
        s = dict(sc, group_events=sc["group_events"] + kills)
        at = {i: model_instant(ctx, s, case["final"][i]["after"], cache) + case["final"][i]["delay"] * 1000
              for i in left}
        first = min(left, key=lambda i: (at[i], i))
        finals[first] = at[first]
        kills.append({"at_ms": ctx.ms(at[first]), "member": case["final"][first]["member"], "kind": "crash"})
        left.remove(first)
    for fk, at in zip(case["final"], finals):
        sc["group_events"] = sc["group_events"] + [{"at_ms": ctx.ms(at), "member": fk["member"], "kind": "crash"}]
        instants.append(at)
    if finals or not allow_no_final:
        sc["horizon_ms"] = ctx.ms(max(finals) + 1000)
    return sc, instants


# ---------------------------------------------------------------- the real group

def produce(broker, topic, partitions, n, value_bytes=6):
    """n records per partition in batches of exactly 5 (batch.num.messages), values of one width
    (`value_bytes`: a case that sizes its fetches by the batch makes them wider)."""
    p = Producer({"bootstrap.servers": broker.addr, "linger.ms": 500, "batch.num.messages": 5, "log_level": 0})
    for part in range(partitions):
        for i in range(n):
            p.produce(topic, value=(b"%06d" % i).ljust(value_bytes, b"."), partition=part)
    p.flush(30)
    probe = Consumer({"bootstrap.servers": broker.addr, "group.id": "probe"})
    for part in range(partitions):
        lo, hi = probe.get_watermark_offsets(TopicPartition(topic, part), timeout=30)
        if hi != n:
            raise RuntimeError("%s-%d has end offset %d after producing %d" % (topic, part, hi, n))
    probe.close()


def committed(broker, group, topic, partitions):
    c = Consumer({"bootstrap.servers": broker.addr, "group.id": group, "enable.auto.commit": False})
    try:
        offs = c.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=30)
    finally:
        c.close()
    return [None if o.offset < 0 else o.offset for o in offs]


def settled_committed(broker, group, topic, partitions, end_time):
    reads = []
    for at in (1.0, 2.0, 3.0, 4.0, 6.0, 8.0):
        time.sleep(max(0.0, end_time + at - time.time()))
        reads.append(committed(broker, group, topic, partitions))
        if len(reads) >= 2 and reads[-1] == reads[-2]:
            break
    return reads[-1], reads


class Proc:
    """One member process: member N, its log, its Popen."""

    def __init__(self, member, name, log, proc, start_file=None):
        self.member, self.name, self.log, self.proc, self.start_file = member, name, log, proc, start_file

    def lines(self):
        try:
            return [ln.split() for ln in open(self.log).read().splitlines() if ln.strip()]
        except FileNotFoundError:
            return []


def start_member(ctx, case, sc, broker, workdir, topic, group, epoch_ns, member, name, go_file=None,
                 start_file=None):
    client = ctx.CLIENTS[case["client"]]
    log = os.path.join(workdir, "%s.log" % name)
    errf = open(os.path.join(workdir, "%s.stderr" % name), "w")
    modes = {e.get("shutdown_mode", "wakeup") for e in case["events"] if e["kind"] == "shutdown"}
    if case.get("any_initial_order") and len(modes) == 1:
        # The processes may be relabelled to the model's members once the group has formed
        # (the SIGTERM then goes to another process than this one): every member gets the mode.
        mode = modes.pop()
    else:
        mode = next((e.get("shutdown_mode", "wakeup") for e in case["events"]
                     if e["member"] == member and e["kind"] == "shutdown"), "wakeup")
    args = {
        "member": member, "bootstrap": broker.addr, "topic": topic, "group": group, "log": log,
        "epoch_ns": epoch_ns,
        "max.poll.records": sc.get("max.poll.records", 5),
        "auto.commit.interval.ms": sc.get("auto.commit.interval.ms", 5000),
        "record_processing_ms": sc.get("record_processing_ms", 200),
        "strategy": sc.get("strategy", "auto_commit"),
        "session.timeout.ms": sc.get("session.timeout.ms", 45000),
        "heartbeat.interval.ms": sc.get("heartbeat.interval.ms", 3000),
        "max.poll.interval.ms": sc.get("max.poll.interval.ms", 300000),
        "assignor": sc.get("partition.assignment.strategy", "range"),
        "on_revoke": sc.get("on_revoke", "nothing"),
        "shutdown_mode": mode,
    }
    if sc.get("worker_pool") and case["client"].startswith("librdkafka"):
        # rdk_consumer.py's group pool: store_offsets() after each record as it finishes, the
        # background timer commits (model.md §4, §8.3, §8.14).
        if sc.get("strategy") != "store_offsets_after_processing" or sc.get("pool_commit", "handed_out") != "handed_out" \
                or sc.get("ordering", "batch") != "batch":
            raise ValueError("a librdkafka group member's pool runs store_offsets_after_processing, ordering batch")
        args.update({"worker_pool": "true", "pool_threads": sc.get("pool_threads", 1),
                     "pool_max_in_flight_batches": sc.get("pool_max_in_flight_batches", 3)})
    elif sc.get("worker_pool"):
        # ConformanceConsumer.Pool: batches handed to a pool, commitSync of the contiguous
        # frontier after each hand-off (the one pool the group harness runs).
        if sc.get("pool_commit") != "contiguous_completed" or sc.get("strategy") != "commit_sync_batch":
            raise ValueError("a group member's pool runs pool_commit contiguous_completed with commit_sync_batch")
        args.update({"worker_pool": "true", "pool_threads": sc.get("pool_threads", 1),
                     "pool_max_in_flight_batches": sc.get("pool_max_in_flight_batches", 3),
                     "on_revoke_drain_ms": sc.get("on_revoke_drain_ms", 20000)})
    if sc.get("group.instance.id"):
        args["instance_id"] = "consumer-%d" % member
    if go_file:
        args["go_file"] = go_file
    if start_file:
        args["start_file"] = start_file
    for k, v in case.get("client_props", {}).items():
        args["kafka." + k] = v
    if not client["jar"] and client["protocol"] == "consumer":
        args["group.protocol"] = "consumer"  # rdk_consumer.py, librdkafka_consumer_protocol
    if client["jar"]:
        args["group.protocol"] = client["protocol"]
        cp = os.pathsep.join([os.path.join(ctx.CACHE, "classes", client["jar"]),
                              os.path.join(ctx.LIB, "client" + client["jar"], "*")])
        level = os.environ.get("GROUP_DEBUG")
        debug = ["-Dorg.slf4j.simpleLogger.log.org.apache.kafka.clients.consumer.internals=debug",
                 "-Dorg.slf4j.simpleLogger.showDateTime=true",
                 "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS"] if level else []
        if level == "trace":  # which poll() submits an AsyncPollEvent (model.md §10.6)
            debug.append("-Dorg.slf4j.simpleLogger.log.org.apache.kafka.clients.consumer.internals."
                         "AsyncKafkaConsumer=trace")
        cmd = ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
               "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"] + debug + ["-cp", cp, "ConformanceConsumer"]
        cmd += ["%s=%s" % kv for kv in args.items()]
    else:
        cfgf = os.path.join(workdir, "%s.json" % name)
        json.dump(args, open(cfgf, "w"))
        # The Go members (issue 29; go/*/main.go with `member` in the config) write the same lines.
        cmd = (client.get("prog") or [sys.executable, os.path.join(ctx.HERE, "rdk_consumer.py")]) + [cfgf]
    env = dict(os.environ, PYTHONPATH=os.path.join(ctx.CACHE, "py"))
    return Proc(member, name, log, subprocess.Popen(cmd, stdout=errf, stderr=errf, env=env), start_file)


def now_ms(epoch_ns):
    return (time.monotonic_ns() - epoch_ns) / 1e6


def write_instant(path, at_ms):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d;" % int(at_ms * 1e6))
    os.rename(tmp, path)


def owned_now(lines, after=None):
    """What a member holds according to its own log (assigned adds, revoked and lost remove),
    and the instant and generation of its latest assignment."""
    owned, last_t, gen = set(), None, None
    for w in lines:
        if w[0] == "assigned":
            if after is not None and float(w[1]) < after:
                pass
            owned |= {int(x.split(":")[0]) for x in w[3:]}
            last_t, gen = float(w[1]), int(w[2])
        elif w[0] in ("revoked", "lost"):
            start = 3 if w[0] == "revoked" else 2
            owned -= {int(x) for x in w[start:]}
    return owned, last_t, gen


def trigger_time(procs, trig, G):
    """The real instant (ms since the epoch) of a trigger, from the member's own log, or None."""
    kind, member = trig[0], trig[1]
    lines = [w for p in procs if p.member == member for w in p.lines()]
    if kind in ("done", "member_done"):
        k = 0
        for w in lines:
            if w[0] == "done" and float(w[1]) >= G:
                k += 1
                if k == trig[2]:
                    return float(w[1])
        return None
    if kind == "assigned":
        k = trig[3] if len(trig) > 3 else 1  # the k-th assignment of the partition to the member
        for w in lines:
            if w[0] == "assigned" and float(w[1]) > G and any(int(x.split(":")[0]) == trig[2] for x in w[3:]):
                k -= 1
                if k == 0:
                    return float(w[1])
        return None
    if kind == "close_end":
        return next((float(w[1]) for w in lines if w[0] == "close_end"), None)
    raise ValueError(trig)


def event_instants(lines):
    ts = []
    for w in lines:
        # (`committed` lines are left out: they carry the instant a commit's response was handled.)
        if w[0] in ("poll", "done", "assigned", "revoked", "lost", "close_begin", "close_end", "commit_failed",
                    "go", "start", "created"):
            ts.append(float(w[1]))
        elif w[0] in ("commit", "revoke_commit", "commit_woken"):
            ts += [float(w[1]), float(w[2])]
    return ts


def run_group_case(ctx, case, broker, workdir, attempt):
    sc0 = base_scenario(case)
    sc, model_at = model_events(ctx, case, sc0, allow_no_final=not case["final"])
    m = ctx.model(sc)
    P, M = sc["partitions"], sc["members"]
    tag = "%s-%d-%s" % (case["name"].lower(), attempt, os.urandom(3).hex())
    topic, group = "orders-" + tag, "g-" + tag
    broker.admin().create_topics([NewTopic(topic, P, 1)])[topic].result(30)
    for k, v in case.get("group_configs", {}).items():
        broker.set_group_config(group, k, v)
    produce(broker, topic, P, case.get("records", 300), case.get("value_bytes", 6))

    epoch_ns = time.monotonic_ns()
    go_file = os.path.join(workdir, "go")
    procs = []
    real = {"events": []}
    try:
        for n in range(1, M + 1):
            procs.append(start_member(ctx, case, sc, broker, workdir, topic, group, epoch_ns, n,
                                      "member-%d" % n, go_file=go_file))
            if n == 1 and case.get("leader_first"):
                # The coordinator's leader is the first member to join; when it leaves, Kafka picks
                # the next one in the HashMap order of random member ids (ClassicGroup.remove), the
                # model the lowest (model.md §10.5). A case whose counts hang on who leads starts
                # consumer-1 alone, so that it leads, and the others once it holds its partitions.
                wait_line(procs[0], "assigned", 60)
        # Standby processes: members that join later, and the restart of a member that shuts down.
        standby = {}
        for i, ev in enumerate(case["events"]):
            if ev["kind"] == "join" or ev.get("restart_after_ms") is not None:
                name = "member-%d" % ev["member"] if ev["kind"] == "join" else "member-%d-restart" % ev["member"]
                sf = os.path.join(workdir, "start-%d" % i)
                standby[i] = start_member(ctx, case, sc, broker, workdir, topic, group, epoch_ns, ev["member"],
                                          name, start_file=sf)
                procs.append(standby[i])
        initial = {int(k): set(v) for k, v in case["initial"].items()}

        # Formation: everyone holds its expected partitions (one generation for classic groups).
        deadline = time.time() + 90
        settled_other = None  # (when, what) a complete assignment other than the expected was first seen
        while True:
            state = {p.member: owned_now(p.lines()) for p in procs[:M]}
            gens = {s[2] for s in state.values()}
            held = sorted(sorted(s[0]) for s in state.values())
            complete = all(s[1] is not None for s in state.values()) and len(gens) == 1 \
                and sum(len(h) for h in held) == P
            if complete and held != sorted(sorted(v) for v in initial.values()):
                if settled_other is None or settled_other[1] != held:
                    settled_other = (time.time(), held)
                elif time.time() - settled_other[0] > 5:
                    raise FormationMismatch("the group formed as %s, expected %s" % (
                        {n: sorted(s[0]) for n, s in state.items()}, {n: sorted(v) for n, v in initial.items()}))
            else:
                settled_other = None
            if all(s[1] is not None for s in state.values()) and held == sorted(sorted(v) for v in initial.values()) \
                    and (ctx.CLIENTS[case["client"]]["protocol"] == "consumer" or len(gens) == 1):
                # The model orders members by N. The consumer protocol's uniform assignor walks
                # members in the order of their random ids (model.md §10.2), so there the process
                # that holds consumer-N's partitions plays consumer-N.
                relabel = {p.member: next(n for n, v in initial.items() if v == state[p.member][0])
                           for p in procs[:M]}
                if any(k != v for k, v in relabel.items()):
                    if not case.get("any_initial_order"):
                        raise RuntimeError("initial assignment %s, expected %s" % (
                            {n: sorted(s[0]) for n, s in state.items()}, {n: sorted(v) for n, v in initial.items()}))
                    for p in procs[:M]:
                        p.member = relabel[p.member]
                    real["relabelled"] = {"process consumer-%d" % k: "model consumer-%d" % v for k, v in relabel.items()}
                    with open(os.path.join(workdir, "relabel.json"), "w") as f:
                        json.dump({str(k): v for k, v in relabel.items()}, f)
                state = {p.member: owned_now(p.lines()) for p in procs[:M]}
                break
            for p in procs:
                if p.proc.poll() is not None:
                    raise RuntimeError("%s exited during the group's formation" % p.name)
            if time.time() > deadline:
                raise RuntimeError("no formation within 90 s: %s" % {n: sorted(s[0]) for n, s in state.items()})
            time.sleep(0.005)
        last_assign = max(s[1] for s in state.values())
        G = max(last_assign + case.get("go_after_ms", 500), now_ms(epoch_ns) + 100)
        if case.get("go_phase"):
            # A client whose timer runs from the consumer's creation (librdkafka's auto-commit,
            # rd_kafka_cgrp_new): G on that timer's phase, as the model starts it at t = 0.
            # `offset` moves G ahead of the timer (its commits then fall |offset| ms after the
            # model's, mid-batch, so that the client's lag after resume() moves none across a poll).
            member, period, offset = case["go_phase"]
            # The latest `created` line: librdkafka logs one (the process's), sarama one per session
            # (its offset manager's ticker starts with each session; model.md §8.14).
            created = [float(w[1]) for p in procs[:M] if p.member == member for w in p.lines() if w[0] == "created"][-1]
            G = created + offset + period * max(1, -(-(G - created - offset) // period))
        write_instant(go_file, G)
        real["G"] = round(G, 3)
        # The members' assignments came this long before t = 0 (G): their heartbeats count
        # from then (issue 25, rule 4; model.md §10.4).
        real["assigned_before_start_ms"] = round(G - last_assign, 3)
        real["formation_ms"] = round(G - min(s[1] for s in state.values()), 1)
        for ready in standby.values():
            wait_line(ready, "ready", 60)

        # Events, then the final kills, each at its trigger + delay.
        todo = [("event", i, ev) for i, ev in enumerate(case["events"])] + \
               [("final", i, fk) for i, fk in enumerate(case["final"])]
        pending_restart = {}
        windows = []
        while todo or pending_restart:
            progressed = False
            ready = []
            for item in todo:
                t = trigger_time(procs, item[2]["after"], G)
                if t is not None:
                    ready.append((t + item[2]["delay"], t, item))
            # Those due first go first (the driver sleeps until each one's instant).
            for at, t, item in sorted(ready, key=lambda r: r[0]):
                what, i, ev = item
                target = [p for p in procs if p.member == ev["member"] and p.proc.poll() is None and
                          (p.start_file is None or "start" in [w[0] for w in p.lines()])]
                kind = "crash" if what == "final" else ev["kind"]
                if kind == "join":
                    write_instant(standby[i].start_file, at)
                    rec = {"what": "join", "member": ev["member"], "trigger_ms": round(t - G, 3),
                           "at_ms": round(at - G, 3)}
                else:
                    if not target:
                        raise RuntimeError("consumer-%d is not running at its %s" % (ev["member"], kind))
                    proc = target[-1]
                    time.sleep(max(0.0, (epoch_ns + at * 1e6 - time.monotonic_ns()) / 1e9))
                    proc.proc.send_signal(signal.SIGKILL if kind == "crash" else signal.SIGTERM)
                    sent = now_ms(epoch_ns)
                    rec = {"what": "final kill" if what == "final" else kind, "member": ev["member"],
                           "process": proc.name, "trigger_ms": round(t - G, 3), "at_ms": round(at - G, 3),
                           "sent_ms": round(sent - G, 3)}
                    if kind == "shutdown":
                        # The shutdown happens when the member's SIGTERM handler runs (a JVM starts
                        # its shutdown hooks tens of ms after the signal, more on a loaded machine).
                        wait_line(proc, "abrupt" if ev.get("shutdown_mode") == "abrupt" else "wakeup", 30,
                                  allow_exit=True)
                        handled = next((float(w[1]) for w in proc.lines() if w[0] in ("abrupt", "wakeup")), sent)
                        rec["handled_ms"] = round(handled - G, 3)
                        sent = max(sent, handled)
                    # The margin (computed when the case is over, from the whole log): the distance
                    # from the window [planned instant, signal sent or handled] to the member's
                    # nearest own event.
                    windows.append((rec, proc, at, max(at, sent)))
                    if kind == "shutdown" and ev.get("restart_after_ms") is not None:
                        pending_restart[i] = (proc, ev)
                real["events"].append(rec)
                todo.remove(item)
                progressed = True
            for i, (proc, ev) in list(pending_restart.items()):
                ce = next((float(w[1]) for w in proc.lines() if w[0] == "close_end"), None)
                if ce is not None:
                    at = ce + ev["restart_after_ms"]
                    write_instant(standby[i].start_file, at)
                    real["events"].append({"what": "restart", "member": ev["member"], "close_end_ms": round(ce - G, 3),
                                           "at_ms": round(at - G, 3)})
                    del pending_restart[i]
                    progressed = True
            if not progressed:
                for p in procs:
                    if p.proc.poll() is not None and p.proc.returncode not in (0, -9, 143, -15) and todo:
                        raise RuntimeError("%s exited with %s" % (p.name, p.proc.returncode))
                if time.time() > deadline + case.get("trigger_timeout_s", 240):
                    raise RuntimeError("triggers never came: %s" % [t[2]["after"] for t in todo])
                time.sleep(0.002)
        end = time.time()
        for p in procs:
            if p.proc.poll() is None and p.start_file and "start" not in [w[0] for w in p.lines()]:
                p.proc.kill()  # a standby never used
            p.proc.wait(timeout=60)
    finally:
        for p in procs:
            if p.proc.poll() is None:
                p.proc.kill()
                p.proc.wait()
    for rec, proc, lo, hi in windows:
        # The loop's own steps. What a shutdown then does — close_begin and everything close()
        # runs after it: its commit, onPartitionsRevoked and its commit — follows from it and is
        # no neighbour (counting the revocation's commit refused agreeing closes, issue 26).
        lines = proc.lines()
        cb = next((i for i, w in enumerate(lines) if w[0] == "close_begin"), len(lines))
        own = event_instants([w for w in lines[:cb] if w[0] in ("poll", "done", "commit", "commit_failed",
                                                                "commit_woken", "revoke_commit")])
        rec["margin_ms"] = round(min([0.0 if lo <= x <= hi else min(abs(x - lo), abs(x - hi))
                                      for x in own] or [float("inf")]), 1)
    final, reads = settled_committed(broker, group, topic, P, end)
    real["committed_reads"] = reads
    if real.get("assigned_before_start_ms") is not None:
        # The model again, with the phase the formation measured. A librdkafka member's first
        # records come about 500 ms after resume() at G (its first fetch after the pause); the
        # model's t = 0 is its first records, so its heartbeats, counted from the assignment,
        # start that much earlier still (issue 25, rule 4).
        if case["client"].startswith("librdkafka"):
            firsts = [next((float(w[1]) for w in p.lines() if w[0] == "poll" and w[2] != "-" and float(w[1]) >= G),
                           None) for p in procs[:M]]
            firsts = [f for f in firsts if f is not None]
            if firsts:
                real["first_records_after_go_ms"] = round(min(firsts) - G, 1)
                real["assigned_before_start_ms"] = round(real["assigned_before_start_ms"] + min(firsts) - G, 3)
                # The auto-commit timer and the main thread's 1 s wake-up count from the
                # consumer's creation (model.md §8.2, §10.4): measured, not assumed 500 ms ahead
                # of the first records (seed 12011: they came 780 ms after G, and the real tick
                # fell 280 ms from the model's). The members at t = 0 were created together.
                member = case["go_phase"][0] if case.get("go_phase") else procs[0].member
                created = next(float(w[1]) for p in procs[:M] if p.member == member for w in p.lines()
                               if w[0] == "created")
                real["created_before_start_ms"] = round(min(firsts) - created, 3)
                sc0 = dict(sc0, **{"consumer_created_before_start_ms":
                                   ctx.ms(int(round(real["created_before_start_ms"] * 1000)))})
        sc0 = dict(sc0, **{"assigned_before_start_ms": ctx.ms(int(round(real["assigned_before_start_ms"] * 1000)))})
        sc, model_at = model_events(ctx, case, sc0, allow_no_final=not case["final"])
        m = ctx.model(sc)
    real.update(analyse(case, sc, procs, G, final))
    if case.get("stale_stores"):
        # Stores for a partition the member no longer holds (model.md §8.14): the model's records
        # a member finishes under store_offsets_after_processing between its revocation of the
        # partition and its next assignment of it; the real member's `store_refused` lines (and
        # any `stored` line for a partition it does not hold: 1.8.2 would have kept those).
        held, n = {int(k): set(v) for k, v in case["initial"].items()}, 0
        for mk in ctx.model_marks(sc)["marks"]:
            h = held.setdefault(mk["member"], set())
            if mk["kind"] == "assigned":
                h.add(mk["partition"])
            elif mk["kind"] in ("revoked", "lost", "closed"):
                h.discard(mk["partition"])
            elif mk["kind"] == "record_durable" and mk["partition"] not in h:
                n += 1
        real["model_stale_stores"] = n
        refused = kept = 0
        for p in procs:
            owned = set()
            for w in p.lines():
                if w[0] == "assigned":
                    owned |= {int(x.split(":")[0]) for x in w[3:]}
                elif w[0] in ("revoked", "lost"):
                    owned -= {int(x) for x in w[(3 if w[0] == "revoked" else 2):]}
                elif w[0] == "store_refused":
                    refused += 1
                elif w[0] == "stored" and int(w[2]) not in owned:
                    kept += 1
        real["stale_stores"] = refused + kept
        real["stale_stores_refused"] = refused
    real["margin_ms"] = min([e["margin_ms"] for e in real["events"] if "margin_ms" in e] or [float("inf")])
    return sc, m, real, procs, {"model_at_us": model_at}


def wait_line(proc, word, timeout, allow_exit=False):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if any(w[0] == word for w in proc.lines()):
            return
        if proc.proc.poll() is not None:
            if allow_exit:
                return
            raise RuntimeError("%s exited before logging %s" % (proc.name, word))
        time.sleep(0.01)
    raise RuntimeError("%s did not log %s within %d s" % (proc.name, word, timeout))


# ---------------------------------------------------------------- the real group's numbers

def analyse(case, sc, procs, G, final):
    """Handovers with their committed offset, lost and duplicated (model.md §10.7), rebalances."""
    P = sc["partitions"]

    def at(p):
        # A record counts at the instant it was handed out with `dones_at_poll` (a client whose
        # assignment changes while a record is in hand, kafka-go: model.md §8.14), as the model
        # counts it for the ownership that handed it out; else when it was done.
        # `dones_at_poll="fifo"` (a pool, whose batches may hold several records and whose records
        # may be handed out again before the first run of them is done): each done takes the
        # oldest poll of its record not yet taken (the pool's threads keep the batches' order).
        fifo = case.get("dones_at_poll") == "fifo"
        polled, pending, out = {}, {}, []
        for w in p.lines():
            if len(w) > 3 and w[0] == "poll":
                polled[(w[2], w[3])] = float(w[1])
                if fifo and w[2] != "-":
                    for i in range(int(w[4])):
                        pending.setdefault((w[2], str(int(w[3]) + i)), []).append(float(w[1]))
            if len(w) > 1 and w[0] in ("assigned", "done", "revoked", "lost"):
                t = float(w[1])
                if w[0] == "done" and fifo:
                    q = pending.get((w[2], w[3]))
                    t = q.pop(0) if q else t
                elif w[0] == "done" and case.get("dones_at_poll"):
                    t = polled.get((w[2], w[3]), t)
                out.append((t, p.member, w))
        return out

    lines = sorted((x for p in procs for x in at(p)), key=lambda x: x[0])
    owner = {}
    for p in procs:
        for w in p.lines():
            if w[0] == "assigned" and float(w[1]) <= G:
                pass
    init = {int(k): v for k, v in case["initial"].items()}
    for mbr, parts in init.items():
        for part in parts:
            owner[part] = mbr
    runs = {part: {} for part in range(P)}      # offset -> completed runs so far
    counted_lost = {part: set() for part in range(P)}
    since = {part: [] for part in range(P)}     # offsets completed by the current ownership
    handovers, gens = [], set()

    def handover(t, part, to, c):
        c0 = c or 0
        lost = 0
        for o in range(c0):
            if runs[part].get(o, 0) == 0 and o not in counted_lost[part]:
                counted_lost[part].add(o)
                lost += 1
        dup = sum(1 for o in since[part] if o >= c0)
        handovers.append({"at_ms": round(t - G, 3), "partition": part, "from": owner.get(part), "to": to,
                          "committed": c, "lost": lost, "duplicated": dup})
        since[part] = []
        owner[part] = to

    for t, mbr, w in lines:
        if t <= G:
            continue
        if w[0] == "assigned":
            gens.add(int(w[2]))
            for x in w[3:]:
                part, c = x.split(":")
                handover(t, int(part), mbr, None if c == "none" else int(c))
        elif w[0] == "done":
            part, o = int(w[2]), int(w[3])
            runs[part][o] = runs[part].get(o, 0) + 1
            since[part].append(o)
    end = max((float(w[1]) for p in procs for w in p.lines() if len(w) > 1 and w[0] not in
               ("client", "ready")), default=G) + 1
    for part in range(P):
        handover(end, part, None, final[part])
    base_gen = max((int(w[2]) for p in procs for w in p.lines() if w[0] == "assigned" and float(w[1]) <= G),
                   default=0)
    totals = [{"partition": part, "lost": sum(h["lost"] for h in handovers if h["partition"] == part),
               "duplicated": sum(h["duplicated"] for h in handovers if h["partition"] == part),
               "committed": final[part]} for part in range(P)]
    return {"handovers": handovers, "partitions": totals,
            "rebalances": len({g for g in gens if g > base_gen}), "generations": sorted(gens)}


# ---------------------------------------------------------------- verdict and report

def model_view(sc, m):
    g = m["group"]
    hs = [dict(h) for h in g["handovers"]]
    if sc.get("client", "java_classic") == "java_classic":
        # A classic member logs position() in onPartitionsAssigned, which for a partition with no
        # committed offset is where auto.offset.reset resolved it (earliest: the log start); and a
        # cooperative formation may already have committed the log start (the first member's
        # onJoinPrepare before the second arrived). For the Java client "none" and "the log start"
        # are the same start (its commits cover every assigned partition, docs/model.md §8.2).
        for h in hs:
            if h["committed"] is None:
                h["committed"] = sc.get("log_start_offset", 0)
    final = {h["partition"]: h["committed"] for h in hs if h["to"] is None}
    parts = [{"partition": p["partition"], "lost": p["lost"], "duplicated": p["duplicated"],
              "committed": final.get(p["partition"])} for p in g["partitions"]]
    return hs, parts, g["rebalances"]


def strip(hs):
    return [(h["partition"], h["from"], h["to"], h["committed"], h["lost"], h["duplicated"]) for h in hs]


def compare(case, sc, m, real):
    """Pairs (label, model, real) that must be equal."""
    mh, mp, mreb = model_view(sc, m)
    if sc.get("client", "java_classic") == "java_classic":
        # The same reading of "none" on the real side (model_view).
        start = sc.get("log_start_offset", 0)
        real = dict(real, handovers=[dict(h, committed=start if h["committed"] is None else h["committed"])
                                     for h in real["handovers"]],
                    partitions=[dict(p, committed=start if p["committed"] is None else p["committed"])
                                for p in real["partitions"]])
    pairs = []
    for part in range(sc["partitions"]):
        mm = [h for h in strip(mh) if h[0] == part]
        rr = [h for h in strip(real["handovers"]) if h[0] == part]
        pairs.append(("orders-%d handovers (from,to,committed,lost,dup)" % part,
                      [list(h[1:]) for h in mm], [list(h[1:]) for h in rr]))
    for a, b in zip(mp, real["partitions"]):
        for f in ("committed", "lost", "duplicated"):
            pairs.append(("orders-%d.%s" % (a["partition"], f), a[f], b[f]))
    if case.get("compare_rebalances", True):
        pairs.append(("rebalances", mreb, real["rebalances"]))
    if case.get("stale_stores"):
        # The model's stores after the revocation, all refused under `librdkafka` (2.x).
        pairs.append(("stores after the revocation", real["model_stale_stores"], real["stale_stores"]))
        if sc.get("client") == "librdkafka":
            pairs.append(("of them refused (_STATE)", real["model_stale_stores"], real["stale_stores_refused"]))
    return pairs


def summary(pairs, side):
    keep = [p for p in pairs if "handovers" not in p[0]]
    return " ".join("%s=%s" % (p[0], json.dumps(p[side]).replace(" ", "")) for p in keep)


def describe_events(case, sc):
    out = []
    for e in sc.get("group_events", []):
        d = "%s consumer-%d %sms" % (e["kind"], e["member"], e["at_ms"])
        if e.get("shutdown_mode"):
            d += " " + e["shutdown_mode"]
        if e.get("restart_after_ms") is not None:
            d += " restart +%sms" % e["restart_after_ms"]
        out.append(d)
    return ", ".join(out) or "no events"


def describe_real_event(e):
    d = "%s consumer-%d at %.1f" % (e["what"], e["member"], e["at_ms"])
    if "trigger_ms" in e:
        d += " (trigger %.1f)" % e["trigger_ms"]
    if "sent_ms" in e:
        d += " sent %+.1f" % (e["sent_ms"] - e["at_ms"])
    if "handled_ms" in e:
        d += " handled %+.1f" % (e["handled_ms"] - e["at_ms"])
    if "margin_ms" in e:
        d += " margin %.1f" % e["margin_ms"]
    if "close_end_ms" in e:
        d += " (close returned %.1f)" % e["close_end_ms"]
    return d


def timelines(case, sc, m, real, workdir):
    """Both timelines: every real member's log (instants relative to G, the model's t = 0) and
    the model's handovers."""
    procs = [Proc(int(f.split("-")[1].split(".")[0]), f[:-4], os.path.join(workdir, f), None)
             for f in sorted(os.listdir(workdir)) if f.startswith("member-") and f.endswith(".log")]
    if real.get("relabelled"):
        out_relabel = ["  (processes relabelled to the model's members: %s)" % json.dumps(real["relabelled"])]
    else:
        out_relabel = []
    out = out_relabel + ["  model handovers (at_ms partition from→to committed lost dup) | real handovers:"]
    m = m or {"group": {"handovers": [], "rebalances": None, "partitions": [], "members": []}}
    mh = m["group"]["handovers"]
    rh = real.get("handovers", [])
    for i in range(max(len(mh), len(rh))):
        a = mh[i] if i < len(mh) else None
        b = rh[i] if i < len(rh) else None

        def f(h):
            return "" if h is None else "%9s orders-%s %s→%s c=%s lost %s dup %s" % (
                h.get("at_ms"), h.get("partition"), h.get("from"), h.get("to"), h.get("committed"), h.get("lost"),
                h.get("duplicated"))
        out.append("    %-52s | %s" % (f(a), f(b)))
    out.append("  model: rebalances %d, partitions %s, members %s" % (
        m["group"]["rebalances"], json.dumps(m["group"]["partitions"]), json.dumps(m["group"]["members"])))
    G = real.get("G", 0.0)
    out.append("  real members' logs (ms after G = model t; polls and dones of long stretches elided):")
    for p in procs:
        lines = p.lines()
        out.append("    %s:" % p.name)
        shown = []
        for w in lines:
            if len(w) > 1 and w[0] not in ("client",):
                try:
                    t = float(w[1]) - G
                except ValueError:
                    shown.append(" ".join(w))
                    continue
                rest = w[2:]
                if w[0] in ("commit", "revoke_commit", "commit_woken"):
                    rest = ["→%.3f" % (float(w[2]) - G)] + w[3:]
                shown.append("%-9s %10.3f %s" % (w[0], t, " ".join(rest)))
        if len(shown) > 70:
            shown = shown[:15] + ["... (%d lines)" % (len(shown) - 60)] + shown[-45:]
        out += ["      " + s for s in shown]
    return out
