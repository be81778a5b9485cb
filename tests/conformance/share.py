"""Share-group cases of the conformance suite (issue 15, docs/model.md §11): real
`KafkaShareConsumer`s (kafka-clients 4.3.1, `java/ShareConformanceConsumer.java`) on the suite's
Apache Kafka 4.3.1 broker, against `offset-window run` on the share-group scenario they ran.

How a share case runs (README "Share-group cases"):

* **group configs** — before any member joins, the driver sets the share group's own configs
  (`share.auto.offset.reset` earliest, as the model's default; a case may set
  `share.record.lock.duration.ms` or `share.delivery.count.limit`). The broker keeps its
  defaults (`group.share.record.lock.duration.ms` 30000, minimum 15000; delivery count limit 5).
* **producer** — the backlog is written before any member joins, one record per producer batch,
  or `records_per_producer_batch` records per batch (librdkafka `batch.num.messages`, a long
  `linger.ms` and a flush after each batch; model.md §11.2).
* **consumer-1** polls with the case's `share.acquire.mode`, `record_limit` unless set (the
  model's default: at most `max.poll.records` per fetch; Kafka's default `batch_optimized`
  takes whole producer batches),
  processes each record by sleeping, and logs each poll's records with their delivery counts.
* **event** — as the one-consumer kills: triggered by consumer-1's own N-th finished record
  plus a delay that puts it mid-record. `crash`: SIGKILL. `hang`: consumer-1 itself stops
  `delay` ms into the record after its N-th (it sleeps `hang_ms`, holding its records), then
  finishes the record and goes on. consumer-2 (a second process) is started at the event: it
  takes what consumer-1 left. The model gets the same event at the model's instant of the N-th
  finished record + delay, and consumer-2's join 1 ms later (when it joins changes no count:
  only which member processes what, and when).
* **end** — the driver waits for the state, not for a time: every offset ended on the broker's
  side as far as the clients can tell (each offset done — or, for records that fail every
  time, delivered `group.share.delivery.count.limit` times — and the last acknowledgement
  answered), then 2 s more in which nothing may be delivered, then asks every member still
  alive to stop: it exits without `close()` (an implicit `close()` would release its last
  batch, §11.4). (Admin `listShareGroupOffsets` is not used: it reads the persisted share
  state, whose start offset lagged one acknowledgement behind.)
* **verdict** — counts, never instants: which offsets were delivered again and with which
  delivery counts, deliveries, redeliveries, records processed per member, what a crash of the
  whole group at the event would repeat (`duplicated`) and what ended unprocessed (`lost`),
  RELEASEs that landed, and nothing delivered in the 2 s after the end; for a case with
  `poll_sizes`, the records of each of consumer-1's polls (the model's `Poll` marks) and each
  failing offset's deliveries (its `ShareAcquired` marks). The model's
  redelivered offsets are read from its result: a crashed member's records are the window at the crash instant
  (`at_crash.committed` = the start offset … `at_crash.position` = the window's end, §11.1).
"""

import json
import os
import signal
import subprocess
import time

from confluent_kafka import Producer  # noqa: E402

# How long the driver waits for the end state of a case (a loaded machine is slow; a case that
# needs a lock to expire waits for it: the lock duration is added).
END_TIMEOUT_S = 120


class Proc:
    def __init__(self, name, log, popen, stop_file):
        self.name, self.log, self.p, self.stop_file = name, log, popen, stop_file


def base_scenario(case):
    sc = {"consumption": "share_group"}
    sc.update(case["scenario"])
    return sc


def read_log(path):
    try:
        return [line.split() for line in open(path).read().splitlines() if line.strip()]
    except FileNotFoundError:
        return []


def now_ms(epoch_ns):
    return (time.monotonic_ns() - epoch_ns) / 1e6


def start_member(ctx, sc, broker, workdir, topic, group, epoch_ns, name, extra=None):
    log = os.path.join(workdir, "%s.log" % name)
    errf = open(os.path.join(workdir, "%s.stderr" % name), "w")
    stop_file = os.path.join(workdir, "%s.stop" % name)
    args = {
        "bootstrap": broker.addr, "topic": topic, "group": group, "log": log, "epoch_ns": epoch_ns,
        "client_id": name, "stop_file": stop_file,
        "max.poll.records": sc.get("max.poll.records", 5),
        "record_processing_ms": sc.get("record_processing_ms", 200),
        "share.acknowledgement.mode": sc.get("share.acknowledgement.mode", "implicit"),
        "strategy": sc.get("strategy", "auto_commit"),
        "renew_every_ms": sc.get("share_renew_every_ms") or 0,
        "share.acquire.mode": sc.get("share.acquire.mode", "record_limit"),
        # docs/model.md §11.2: the ShareFetch's MaxBytes (the model's records are
        # record_size_bytes each; the case picks it to match the records share.py produces).
        "fetch.max.bytes": sc.get("fetch.max.bytes", 52428800),
    }
    on_error = sc.get("on_error")
    if sc.get("record_failures"):
        if on_error not in ("release", "reject"):
            raise RuntimeError("share cases fail records with on_error release or reject only")
        args[on_error] = ",".join(str(o) for o in sc["record_failures"])
    args.update(extra or {})
    cp = os.pathsep.join([os.path.join(ctx.CACHE, "classes", "431"), os.path.join(ctx.LIB, "client431", "*")])
    cmd = ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
           "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", cp, "ShareConformanceConsumer"]
    cmd += ["%s=%s" % kv for kv in args.items()]
    return Proc(name, log, subprocess.Popen(cmd, stdout=errf, stderr=errf), stop_file)


def polls(lines):
    """[(t, [(offset, delivery), ...])] from `poll t n o:d ...` lines."""
    out = []
    for w in lines:
        if w[0] == "poll":
            out.append((float(w[1]), [tuple(int(x) for x in r.split(":")) for r in w[3:]]))
    return out


def done(lines):
    return [int(w[2]) for w in lines if w[0] == "done"]


def nth_done(lines, n):
    k = 0
    for w in lines:
        if w[0] == "done":
            k += 1
            if k == n:
                return float(w[1])
    return None


def wait_for(procs, pred, what, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = pred()
        if v is not None:
            return v
        for p in procs:
            if p.p.poll() is not None:
                v = pred()
                if v is not None:
                    return v
                raise RuntimeError("%s exited before %s" % (p.name, what))
        time.sleep(0.005)
    raise RuntimeError("no %s within %d s" % (what, timeout))


def produce(broker, topic, n, per_batch=1):
    # One record per request: each record its own producer batch. With `per_batch` > 1 (the
    # scenario's records_per_producer_batch), batches of that many: nothing leaves before the
    # flush (linger.ms 10 s), and a batch holds at most `batch.num.messages`; the last may be
    # shorter (model.md §11.2: the backlog's last batch ends at the log end).
    if per_batch == 1:
        p = Producer({"bootstrap.servers": broker.addr, "linger.ms": 0, "log_level": 0})
    else:
        p = Producer({"bootstrap.servers": broker.addr, "linger.ms": 10000, "batch.num.messages": per_batch,
                      "log_level": 0})
    for i in range(n):
        p.produce(topic, value=str(i).encode())
        if (i + 1) % per_batch == 0 or i == n - 1:
            p.flush(30)


# ---------------------------------------------------------------- the model side

def processed_by(ctx, sc, t_us):
    s = dict(sc, horizon_ms=ctx.ms(t_us), crash_at_ms=ctx.ms(t_us))
    s.pop("group_events", None)
    return ctx.model(s)["share"]["processed"]


def model_done_instant(ctx, sc, n):
    """The model's instant (µs) of consumer-1's n-th finished record (undisturbed)."""
    lo, hi = 0, 1000
    while processed_by(ctx, sc, hi) < n:
        lo, hi = hi, hi * 2
        if hi > 86_400_000_000:
            raise RuntimeError("the model never finishes record %d" % n)
    while hi - lo > 1:  # invariant: processed(lo) < n <= processed(hi)
        mid = (lo + hi) // 2
        if processed_by(ctx, sc, mid) >= n:
            hi = mid
        else:
            lo = mid
    return hi


def model_view(sc, m, kind):
    s = m["share"]
    a = m["at_crash"]
    v = {
        "deliveries": s["deliveries"], "redeliveries": s["redeliveries"], "processed": s["processed"],
        "processed_by_member": s["processed_by_member"], "released": s["released"],
        "archived": s["archived"], "lost": s["at_crash"]["lost"],
    }
    if sc.get("share_renew_every_ms"):
        v["renewed"] = s["renewed"]
    if kind in ("crash", "hang"):
        # `released` counts the broker's releases too (a crash releases at once, §11.4): the
        # real side sees those only as redeliveries, compared below.
        del v["released"]
        # The real side counts as lost what was never done by the end: the records archived
        # after failing (a crash or hang of a share consumer loses nothing itself, §11.4).
        if sc.get("record_failures"):
            v["lost"] = s["archived"]
        # The crashed / hung member's records are the window at the event (§11.1, §11.4): each is
        # delivered once more. duplicated: a crash of the whole group at that instant (§11.5).
        v["redelivered (offset:delivery)"] = ["%d:2" % o for o in range(a["committed"], a["position"])]
        v["duplicated"] = s["at_crash"]["duplicated"]
        if kind == "hang":
            v["locks_expired"] = s["locks_expired"]
    return v


# ---------------------------------------------------------------- one case

def run_share_case(ctx, case, broker, workdir, attempt):
    sc = base_scenario(case)
    kind = case["event"]["kind"] if case.get("event") else "none"
    n_records = sc["log_end_offset"]
    info = {}
    if kind in ("crash", "hang"):
        ev = case["event"]
        t_trig = model_done_instant(ctx, sc, ev["after"])
        at_us = t_trig + ev["delay"] * 1000
        info["model_trigger_ms"] = t_trig / 1000.0
        gev = {"at_ms": ctx.ms(at_us), "member": 1, "kind": kind}
        if kind == "hang":
            gev["duration_ms"] = ev["hang_ms"]
        sc["group_events"] = [gev, {"at_ms": ctx.ms(at_us + 1000), "member": 2, "kind": "join"}]
        sc["crash_at_ms"] = ctx.ms(at_us)
    m = ctx.model(sc)

    tag = "%s-%d-%s" % (case["name"].lower(), attempt, os.urandom(3).hex())
    topic, group = "orders-" + tag, "sg-" + tag
    broker.create_topic(topic)
    broker.set_group_config(group, "share.auto.offset.reset", "earliest")
    for k, v in case.get("group_configs", {}).items():
        broker.set_group_config(group, k, v)
    produce(broker, topic, n_records, sc.get("records_per_producer_batch", 1))
    if case.get("poll_sizes"):
        # model.md §11.2: the records each of the model's polls returned (its Poll marks).
        marks = ctx.model_marks(sc)["marks"]
        m["poll sizes (consumer-1)"] = [k["records"] for k in marks
                                        if k["kind"] == "poll" and k["member"] == 1 and k["records"] > 0]
        # Each offset's deliveries, in order (its ShareAcquired marks), for the failing offsets.
        m["deliveries by offset"] = {}
        for k in marks:
            if k["kind"] == "share_acquired":
                m["deliveries by offset"].setdefault(k["offset"], []).append(k["delivery"])

    epoch = time.monotonic_ns()
    real = {}
    procs = []
    try:
        extra = {}
        if kind == "hang":
            extra = {"hang_after": case["event"]["after"], "hang_delay_ms": case["event"]["delay"],
                     "hang_ms": case["event"]["hang_ms"]}
        c1 = start_member(ctx, sc, broker, workdir, topic, group, epoch, "consumer-1", extra)
        procs.append(c1)
        if kind in ("crash", "hang"):
            ev = case["event"]
            trig = wait_for(procs, lambda: nth_done(read_log(c1.log), ev["after"]),
                            "consumer-1's record %d" % ev["after"], 90)
            planned = trig + ev["delay"]
            if kind == "crash":
                time.sleep(max(0.0, (planned - now_ms(epoch)) / 1000.0))
                c1.p.send_signal(signal.SIGKILL)
                sent = now_ms(epoch)
                c1.p.wait()
                real["event_at_ms"] = round(sent, 1)
            else:
                sent = wait_for(procs, lambda: next((float(w[1]) for w in read_log(c1.log) if w[0] == "hang"), None),
                                "consumer-1's hang", 30)
                real["event_at_ms"] = sent
            real["trigger_ms"] = trig
            # The margin: from the event's window (planned … done) to consumer-1's nearest own event.
            ts = [float(w[1]) for w in read_log(c1.log) if w[0] in ("poll", "done", "fail", "idle")]
            lo, hi = planned, max(planned, sent)
            real["margin_ms"] = round(min([0.0 if lo <= t <= hi else min(abs(t - lo), abs(t - hi))
                                           for t in ts] or [float("inf")]), 1)
            procs.append(start_member(ctx, sc, broker, workdir, topic, group, epoch, "consumer-2"))

        limit = sc.get("group.share.delivery.count.limit", 5)
        failing = set(sc.get("record_failures", []))
        alive = [p for p in procs if p.p.poll() is None]

        def finished():
            # Every offset processed or, failing every time, delivered `limit` times; and the
            # last acknowledgement of each live member answered (ackcb after its last record).
            ls = {p.name: read_log(p.log) for p in procs}
            all_done = set()
            seen = {}
            for lines in ls.values():
                all_done |= set(done(lines))
                for _, recs in polls(lines):
                    for o, d in recs:
                        seen[o] = max(seen.get(o, 0), d)
            if not all(o in all_done or (o in failing and seen.get(o, 0) >= limit) for o in range(n_records)):
                return None
            for p in alive:
                lines = ls[p.name]
                last_rec = max((i for i, w in enumerate(lines) if w[0] in ("done", "fail")), default=-1)
                if last_rec >= 0 and not any(w[0] == "ackcb" for w in lines[last_rec + 1:]):
                    return None
            return now_ms(epoch)

        timeout = END_TIMEOUT_S + case["event"].get("hang_ms", 0) / 1000.0 if case.get("event") else END_TIMEOUT_S
        end = wait_for(alive, finished, "the end state (every offset ended)", timeout)
        # Nothing more may be delivered: 2 s of quiet (the poll loop runs every 100 ms).
        def delivered():
            return sum(len(recs) for p in procs for _, recs in polls(read_log(p.log)))
        before = delivered()
        time.sleep(2.0)
        after = delivered()
        real["polls_after_end"] = after - before
        real["deliveries after the end"] = after - before
        real["end_ms"] = round(end, 1)
        for p in alive:
            open(p.stop_file, "w").close()
        for p in alive:
            try:
                p.p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.p.kill()
                p.p.wait()
    finally:
        for p in procs:
            if p.p.poll() is None:
                p.p.kill()
                p.p.wait()

    logs = {p.name: read_log(p.log) for p in procs}
    real.update(analyse(sc, kind, logs, real))
    if sc.get("share_renew_every_ms"):
        # RENEWs that renewed a lock: the broker's "Renewing acquisition lock" lines for this
        # group (log4j2.properties: kafka.server.share.SharePartition at DEBUG). A RENEW of a
        # record already acknowledged is answered without error and renews nothing ("already
        # archived"), so the members' own `renew` lines count RENEWs sent, not renewals.
        with open(broker.log.name) as f:
            real["renewed"] = sum(1 for line in f
                                  if "Renewing acquisition lock for " + group + "-" in line)
    info["logs"] = logs
    return sc, m, real, [], info


def analyse(sc, kind, logs, real):
    names = sorted(logs)
    all_polls = {n: polls(logs[n]) for n in names}
    deliveries = [(o, d) for n in names for _, recs in all_polls[n] for o, d in recs]
    v = {
        "deliveries": len(deliveries),
        "redeliveries": sum(1 for _, d in deliveries if d > 1),
        "processed": sum(len(done(logs[n])) for n in names),
        "processed_by_member": [len(done(logs[n])) for n in names],
        # RELEASEs the application sent whose acknowledgement landed (ackcb ok with the offset).
        "released": released(logs),
        "archived": 0,
        "lost": 0,
    }
    if sc.get("share_renew_every_ms"):
        # RENEWs sent (each `renew` line names the records it renewed); replaced by the broker's
        # count of renewals (run_share_case) when the broker log is there.
        v["renewed"] = sum(int(w[2]) for n in names for w in logs[n] if w[0] == "renew")
    limit = sc.get("group.share.delivery.count.limit", 5)
    ever_done = set(o for n in names for o in done(logs[n]))
    for o in sorted(set(o for o, _ in deliveries)):
        ds = sorted(d for oo, d in deliveries if oo == o)
        if o not in ever_done:
            # Ended without a run: archived when it had its last delivery and nothing at all was
            # delivered in the 2 s of polling after the end state.
            if ds and ds[-1] >= limit and real.get("polls_after_end", 0) == 0:
                v["archived"] += 1
            v["lost"] += 1
    # The records of each poll of consumer-1 that returned some (compared when the case asks).
    v["poll sizes (consumer-1)"] = [len(recs) for _, recs in all_polls.get("consumer-1", []) if recs]
    if kind in ("crash", "hang"):
        v["redelivered (offset:delivery)"] = ["%d:%d" % od for od in sorted(set((o, d) for o, d in deliveries if d > 1))]
        d1 = set(done(logs["consumer-1"]))
        if kind == "crash":
            v["duplicated"] = len(d1 & set(done(logs["consumer-2"])))
        else:
            # Done by consumer-1 before the hang and done again by consumer-2 (a crash of the
            # whole group at the hang would repeat them).
            at = real.get("event_at_ms", float("inf"))
            before = set(int(w[2]) for w in logs["consumer-1"] if w[0] == "done" and float(w[1]) < at)
            v["duplicated"] = len(before & set(done(logs["consumer-2"])))
            v["locks_expired"] = sum(1 for o, d in deliveries if d > 1)  # redelivered after the lock ran out
    fails = {}
    for n in names:
        for _, recs in all_polls[n]:
            for o, d in recs:
                if o in sc.get("record_failures", []):
                    fails.setdefault(o, []).append(d)
    for o, ds in fails.items():
        v["offset %d deliveries" % o] = ds
        # Not compared (the model's result has no per-poll view; crates/sim/tests/share.rs checks
        # the rule): how many records came in each poll that delivered it.
        v["offset %d poll sizes (info)" % o] = [len(recs) for n in names for _, recs in all_polls[n]
                                                 if any(oo == o for oo, _ in recs)]
    return v


def released(logs):
    n = 0
    for lines in logs.values():
        pending = []
        for w in lines:
            if w[0] == "ack" and w[3].upper() == "RELEASE":
                pending.append(int(w[2]))
            elif w[0] == "ackcb" and w[2] == "ok":
                offs = set(int(x) for x in w[3:])
                n += sum(1 for o in pending if o in offs)
                pending = [o for o in pending if o not in offs]
    return n


def compare(case, sc, m, real):
    kind = case["event"]["kind"] if case.get("event") else "none"
    mv = model_view(sc, m, kind)
    # The model's redeliveries are the event's window (each once more, listed in
    # "redelivered (offset:delivery)") and the failing record's (one failure drawn or named).
    window = len(mv.get("redelivered (offset:delivery)", []))
    for o in sc.get("record_failures", []):
        if o >= sc["log_end_offset"]:
            mv["offset %d deliveries" % o] = None  # past the log end: never delivered
            continue
        if "deliveries by offset" in m:
            # Several failing offsets: each one's own deliveries, from the model's marks.
            mv["offset %d deliveries" % o] = m["deliveries by offset"].get(o)
            continue
        again = m["share"]["redeliveries"] - window
        mv["offset %d deliveries" % o] = list(range(1, 2 + again))
        if "redelivered (offset:delivery)" in mv:
            mv["redelivered (offset:delivery)"] = sorted(
                mv["redelivered (offset:delivery)"] + ["%d:%d" % (o, d) for d in range(2, 2 + again)],
                key=lambda od: tuple(int(x) for x in od.split(":")))
    mv["deliveries after the end"] = 0
    if "poll sizes (consumer-1)" in m:
        mv["poll sizes (consumer-1)"] = m["poll sizes (consumer-1)"]
    return [(k, mv[k], real.get(k)) for k in sorted(mv)]


def summary(pairs, side):
    return " ".join("%s=%s" % (p[0].replace(" ", "_"), json.dumps(p[side]).replace(" ", "")) for p in pairs)


def describe_events(case, sc):
    ev = case.get("event")
    if not ev:
        return "to the end of the log (%d records)" % sc["log_end_offset"]
    g = sc.get("group_events", [{}])[0]
    return "%s of consumer-1 at %sms (record %d + %dms), consumer-2 after it" % (
        ev["kind"], g.get("at_ms"), ev["after"], ev["delay"])


def timelines(case, sc, m, real, workdir, info):
    out = ["  timelines (real, ms after the case's epoch; the model's event at %s ms, its trigger %s ms):" % (
        sc.get("crash_at_ms"), info.get("model_trigger_ms"))]
    for name, lines in sorted(info.get("logs", {}).items()):
        for w in lines[-40:]:
            out.append("    %s: %s" % (name, " ".join(w)))
    return out
