"""Random conformance cases (issue 26; README "Random cases"): scenarios nobody picked, drawn
from a seed, in exactly the shape of run.py's CASES (family single, records), GROUP_CASES
(group) and SHARE_CASES (share), so the harness runs them unchanged.

    draw(seed, family, h) -> (case, rejected draws)

`h` lends the harness's model (run.py's `Harness`): the model's own timeline (`--format marks`),
its trigger instants (the same bisection the harness uses) and the derived scenarios. A draw is
kept only when

* **quiet** — every trigger (kill, close, SIGTERM, join, final kill) sits ≥ QUIET_MS from every
  model event of the member it concerns, on both sides (heartbeats, and what `close()` itself
  does after it starts — its commit, `onPartitionsRevoked`, the leave — are not neighbours:
  the harness caused them);
* **timers clear of polls** — (`timer_clash`) no model event that changes what a timer would
  commit sits where the drift of a real run could move it across the timer:
  - a timer checked inside `poll()` (Java auto-commit): no poll of the member in
    [D − lead − drift(D), D) for any deadline D of the model's chain (deadline = interval from
    the start or from the member's latest assignment, reset at the poll that fires); `lead` is
    how much earlier the real timer starts (the join comes before the first records: 300 ms
    one consumer, 600 ms in a group whose members wait 500 ms for G) until the member's first
    new assignment, then 0;
  - a background timer (librdkafka, kafka-clients 3.9.2, store-after-processing): no poll
    (the position is what it commits; for store-after-processing, no finished record) in
    [tick − lead − drift, tick + lag + drift], ticks at k · interval from the member's start;
    lag 500 ms for librdkafka groups (the harness puts G 500 ms before the timer's phase,
    group.py `go_phase`); lead 600 ms for 3.9.2 in a group;
  - drift(t) = 100 ms + 2 % of t (a few ms per batch seen, more on a loaded machine).
  librdkafka's phase from the consumer's creation (one consumer) is issue 25 rule 4, a known
  model departure: the rule does not hide it.
* **expiries clear of polls** — (`expiry_clash`) no survivor's poll within a heartbeat interval
  + drift(E) of a session expiry E: the heartbeats' phases are measured once for all members.
* **joins clear of polls** — (`join_clash`) no member's poll within drift of the heartbeat that
  tells it of a new member (it joins the round at its next poll: a poll on the other side moves
  the round by a batch).
* **formation as the model's** — no cooperative-sticky group of more than two members, or of
  more partitions than members (the broker's initial rebalance delay is 0: they form in one
  round or in several, as the load decides); two members start consumer-1 first.
* **no fetch-order race** — (`eager_order_race`) no librdkafka member that an eager round gives
  back a partition it held together with one it did not: which it hands out first is a race.
* **no SyncGroup race** — (`sync_race`) no Java classic member that sends SyncGroup from a failed
  `commitSync()` and polls at once: whether that poll completes the round is a race.
* **answers clear of polls** — (`answer_clash`) no librdkafka cooperative member whose SyncGroup
  answer comes within drift of one of its polls that returns records: the answer's rebalance
  callback runs in the application's next poll, so a poll on the other side moves the round by
  a batch (seed 8195: the model's answer 5 ms before a poll, the real one after it).
* **events as the model's** — (`event_race`) no kafka-clients 4.3 member whose poll submits no
  AsyncPollEvent while a reconciliation or an auto-commit waits (the model's poll_event_skipped):
  the real poll submits one anyway when the previous one completed inside its own poll, a race.
* **placement as the model's** — no consumer-protocol group of three members in which one
  leaves (a crash, a shutdown, a deploy): the uniform assignor hands its partition to a survivor
  in the order of their random member ids.
* **scaled** — record times under 410 ms leave no quiet stretch (200 ms each side of a
  mid-record trigger, plus commit round trips): every time key is multiplied by ⌈410 / p⌉,
  as the suite's "× 3" cases do (the counts stay the same).

Rejected draws are drawn again from the same generator (at most 300 tries, 100 for groups), so a seed always
gives the same case.
"""

import json
import math
import random

FAMILIES = ("single", "records", "group", "share", "libraries")
FAMILY_WEIGHTS = (30, 10, 50, 10, 10)
CLIENTS = ("java_classic", "java_consumer_protocol", "java_consumer_protocol_pre_fix", "librdkafka")
QUIET_MS = 200.0
MIN_RECORD_MS = 410
# Marks that are no neighbour of a trigger: heartbeats (the real clients do not log them) and
# what the event itself sets off.
NOT_NEIGHBOURS = {"heartbeat", "poll_event_skipped", "started", "crashed", "restarted", "shutdown_requested", "session_expired",
                  "hang_started", "offsets_expired"}
CLOSE_CAUSED = {"close_called", "closed", "commit_sent", "commit_landed", "revoked", "commit_failed"}


class Rejected(Exception):
    pass


def drift(t_ms):
    return 100.0 + 0.02 * t_ms


def scale_factor(p):
    return max(1, math.ceil(MIN_RECORD_MS / p))


# ---------------------------------------------------------------- draws

def draw(seed, family, h, tries=None):
    rng = random.Random(seed)
    fam = family or rng.choices(FAMILIES, weights=FAMILY_WEIGHTS)[0]
    tries = tries or (100 if fam == "group" else 300)
    reasons = []
    for attempt in range(tries):
        case = GENERATORS[fam](rng)
        case["name"] = "random-%s-%d" % (fam, seed)
        case["random"] = {"seed": seed, "family": fam}
        try:
            CHECKS[fam](case, h)
        except Rejected as e:
            reasons.append(str(e))
            continue
        except RuntimeError as e:  # the model refused the draw (a key out of range, an event on a down member)
            reasons.append("model: %s" % str(e)[:120])
            continue
        case["random"]["rejected"] = attempt
        return case, reasons
    raise RuntimeError("seed %d: no acceptable %s draw in %d tries (last: %s)" % (seed, fam, tries, reasons[-3:]))


def _times(rng, lo=100, hi=1000):
    return rng.randrange(lo, hi + 1, 10)


def gen_single(rng, records=False):
    client = rng.choice(CLIENTS)
    java = client != "librdkafka"
    p = _times(rng)
    mpr = rng.randint(1, 10)
    interval = rng.randrange(500, 6001, 100)
    over = {"client": client, "record_processing_ms": p, "max.poll.records": mpr, "auto.commit.interval.ms": interval}
    case = {"kind": "single", "file": "r01-defaults.json", "client": client, "over": over}
    if records:
        # Issue 16's shapes: a record-at-a-time pool committing what completed, or per-record commits.
        if rng.random() < 0.7:
            client = "java_classic"
            over.update(client=client, strategy="commit_sync_batch", worker_pool=True, ordering="unordered",
                        pool_threads=rng.randint(2, 4), pool_max_in_flight_batches=rng.randint(1, 3),
                        pool_commit=rng.choice(["handed_out", "contiguous_completed", "highest_completed"]))
            slow = rng.sample(range(0, 3 * mpr + 2), rng.randint(1, 2))
            over["record_processing_ms_by_offset"] = {str(o): rng.randrange(2000, 9001, 100) for o in sorted(slow)}
        else:
            over["strategy"] = "commit_sync_record"
            if java:
                over["commit_value"] = rng.choice(["next_offset", "record_offset"])
        case["client"] = client
        mode = "crash"
    else:
        mode = rng.choices(["crash", "close", "script"], weights=(70, 18 if java else 0, 12))[0]
        if java:
            strategies = ["auto_commit", "commit_sync_batch", "commit_sync_record", "commit_async_batch"]
            if client == "java_classic" and mode == "crash":
                strategies.append("transactional")
        else:
            strategies = ["auto_commit", "store_offsets_after_processing", "commit_sync_batch", "commit_sync_record"]
        if mode == "script":
            strategies = ["auto_commit", "commit_sync_batch"]
        over["strategy"] = rng.choice(strategies)
        s = over["strategy"]
        if java and mode == "crash" and s in ("auto_commit", "commit_sync_batch") and rng.random() < 0.3:
            over.update(worker_pool=True, pool_threads=rng.randint(1, 3), pool_max_in_flight_batches=rng.randint(1, 3))
        if java and mode != "script" and s in ("commit_sync_batch", "commit_async_batch", "commit_sync_record") \
                and not over.get("worker_pool") and rng.random() < 0.3:
            failing = [rng.randint(1, 4)]
            # Only commitAsync: the harness's failure (metadata over the broker's limit) is not
            # retriable, so a failed commitSync throws out of the real loop where the model's is
            # retried (random seed 3008). The draw is kept, so the seeds' other draws stay.
            if s == "commit_async_batch":
                over["commit_failures"] = failing
                over["retry_async_in_callback"] = rng.random() < 0.6
        if java and s == "commit_sync_record" and rng.random() < 0.3:
            over["commit_value"] = "record_offset"
        if client == "java_classic" and mode == "crash" and s == "commit_sync_batch" and not over.get("worker_pool") \
                and not over.get("commit_failures") and rng.random() < 0.15:
            over["max.poll.interval.ms"] = int(mpr * p * rng.uniform(0.55, 0.85))
        if mode == "script":
            over["log_end_offset"] = 30
            over["auto.offset.reset"] = "earliest"
            steps = ["poll"]
            for _ in range(rng.randint(2, 5)):
                steps.append(rng.choice(["process %d" % rng.randint(1, mpr), "sleep %d" % rng.randrange(200, 3001, 100),
                                         "commit_sync", "commit_async", "poll"]))
            steps.append("close")
            over["script"] = steps
            # Long sleeps put close() past the default 12 s horizon (seed 10172: no at_close).
            over["horizon_ms"] = 120000
    case["mode"] = mode
    # Scale: record times under 410 ms leave no quiet stretch.
    k = scale_factor(over["record_processing_ms"])
    if k > 1:
        for key in ("record_processing_ms", "auto.commit.interval.ms", "max.poll.interval.ms"):
            if key in over:
                over[key] = over[key] * k
        if "record_processing_ms_by_offset" in over:
            over["record_processing_ms_by_offset"] = {o: v * k for o, v in over["record_processing_ms_by_offset"].items()}
        if "script" in over:
            over["script"] = ["sleep %d" % (int(st.split()[1]) * k) if st.startswith("sleep") else st
                              for st in over["script"]]
        case["scaled"] = k
    if mode != "script":
        p = over["record_processing_ms"]
        case["after"] = rng.randint(2, max(3, min(40, int(20000 / p))))
        case["delay"] = int(round(p * rng.uniform(0.35, 0.65) / 10.0)) * 10
    case["note"] = "random %s case" % ("records" if records else "single")
    return case


def gen_records(rng):
    return gen_single(rng, records=True)


# Issue 29's clients (model.md §8.14), one consumer each, with the strategies their harnesses run
# (tests/conformance/go, node): each library's own names, as the scenario files use them.
LIBRARY_STRATEGIES = {
    "sarama": ("mark_message", "commit_sync_record"),
    "franz_go": ("auto_commit", "greedy_auto_commit", "auto_commit_marks", "commit_sync_batch"),
    "kafka_go": ("read_message", "fetch_message_commit_messages"),
    "kafkajs": ("each_message",),
}


def gen_libraries(rng):
    client = rng.choice(sorted(LIBRARY_STRATEGIES))
    p = _times(rng, MIN_RECORD_MS, 1000)
    over = {"client": client, "strategy": rng.choice(LIBRARY_STRATEGIES[client]), "record_processing_ms": p,
            "auto.commit.interval.ms": rng.randrange(500, 6001, 100)}
    if client == "franz_go":
        over["max.poll.records"] = rng.randint(1, 10)
    case = {"kind": "single", "file": "r01-defaults.json", "client": client, "over": over,
            "mode": rng.choices(["crash", "close"], weights=(75, 25))[0]}
    last = 40
    if client == "kafkajs":
        # A KafkaJS batch is what one fetch brought (1 MiB of the harness's small records: the
        # whole backlog); the model takes max.partition.fetch.bytes / record_size_bytes records, so
        # the backlog stays under one chunk.
        over["log_end_offset"] = last = rng.randint(10, 30)
    case["after"] = rng.randint(2, max(3, min(last, int(20000 / p))))
    case["delay"] = int(round(p * rng.uniform(0.35, 0.65) / 10.0)) * 10
    case["note"] = "random %s case (%s)" % (client, over["strategy"])
    return case


def gen_group(rng):
    client = rng.choices(CLIENTS, weights=(50, 15, 8, 27))[0]
    cp = client.startswith("java_consumer")
    java = client != "librdkafka"
    M = rng.choice([2, 2, 3])
    P = M if cp else rng.randint(M, 6)
    p = rng.randrange(500, 901, 50)
    sc = {"partitions": P, "members": M, "record_processing_ms": p, "max.poll.records": rng.randint(1, 6),
          "strategy": rng.choice(["auto_commit", "commit_sync_batch"]),
          "auto.commit.interval.ms": rng.randrange(1000, 6001, 100)}
    case = {"kind": "group", "client": client, "file": "(random)", "scenario": sc,
            "trigger_timeout_s": 0}  # triggers due within 90 s of the formation
    if cp:
        session = rng.choice([4000, 6000, 10000])
        hb = rng.choice([200, 500, 1000])
        sc["session.timeout.ms"] = session
        sc["group.consumer.heartbeat.interval.ms"] = hb
        case["group_configs"] = {"consumer.heartbeat.interval.ms": hb, "consumer.session.timeout.ms": session}
        case["compare_rebalances"] = False
        case["any_initial_order"] = True
        assignor = None
    else:
        assignor = rng.choices(["range", "roundrobin", "cooperative-sticky"], weights=(1, 1, 3))[0]
        sc["partition.assignment.strategy"] = assignor
        session = rng.choice([2000, 4000, 10000])
        sc["session.timeout.ms"] = session
        sc["heartbeat.interval.ms"] = rng.choice([h for h in (100, 500, 1000) if h * 3 <= session])
        if not java:
            case["compare_rebalances"] = False
            case["client_props"] = {"fetch.wait.max.ms": 10, "fetch.error.backoff.ms": 10}
        if client == "java_classic" and rng.random() < 0.2:
            sc["on_revoke"] = "commit_sync"
        if java and P > M and rng.random() < (0.8 if assignor == "cooperative-sticky" else 0.4):
            # Chunks of one producer batch (5 records, group.py produces batches of exactly 5, about
            # 130 bytes with the harness's six-byte values): 200 bytes a partition is one whole
            # batch of every partition in a fetch; the model's chunk is max.partition.fetch.bytes /
            # record_size_bytes records (model.md §10.1). (A limit of 1 byte returns a batch only for
            # the first partition of each fetch, KIP-74, so a member's first partition starved the
            # others: seed 8158 handed out orders-0 alone, where the chunks take turns.)
            sc["max.partition.fetch.bytes"] = 5 * 1024
            case.setdefault("client_props", {})["max.partition.fetch.bytes"] = 200
            # A real poll that reaches its chunk's end goes on into the next partition's buffered
            # chunk; the model's poll stays with one partition (model.md §10.1's simplification):
            # polls of a whole chunk or of one record never straddle two (seed 8162's redraw, 2 × 4
            # partitions, six records a poll: the real polls took five and one).
            sc["max.poll.records"] = 5 if sc["max.poll.records"] > 2 else 1
    # Initial assignment (model.md §10.2): range = contiguous ranges; roundrobin and
    # cooperative-sticky / uniform from scratch = round robin.
    if assignor == "range":
        q, r = divmod(P, M)
        initial, at = {}, 0
        for m in range(1, M + 1):
            n = q + (1 if m <= r else 0)
            initial[m] = list(range(at, at + n))
            at += n
    else:
        initial = {m: [i for i in range(P) if i % M == m - 1] for m in range(1, M + 1)}
    case["initial"] = initial
    # Cooperative groups move partitions between live members only when one joins or restarts.
    kind = rng.choices(["crash", "shutdown", "join", "deploy"],
                       weights=(1, 1, 3, 2) if assignor == "cooperative-sticky" else (1, 2, 1, 1))[0]
    victim = rng.randint(1, M)
    n = rng.randint(5, 25)
    d = min(max(210, int(round(p * rng.uniform(0.35, 0.65) / 10.0)) * 10), p - 210)
    events = []
    if kind == "crash":
        events.append(dict(kind="crash", member=victim, after=("done", victim, n), delay=d))
    elif kind == "shutdown":
        ev = dict(kind="shutdown", member=victim, after=("done", victim, n), delay=d)
        if rng.random() < 0.3:
            ev["shutdown_mode"] = "abrupt"
        if java and rng.random() < 0.5:
            ev["restart_after_ms"] = rng.randrange(1000, 5001, 10) + 0.5
            if client == "java_classic" and rng.random() < 0.6:
                sc["group.instance.id"] = True
        events.append(ev)
    elif kind == "join":
        events.append(dict(kind="join", member=M + 1, after=("done", 1, n), delay=d))
    else:  # deploy: a rolling restart, member by member, each after the previous close() returned
        restart = rng.randrange(1000, 4001, 10) + 0.5
        step = rng.randrange(500, 3001, 10) + 0.5
        events.append(dict(kind="shutdown", member=1, after=("done", 1, n), delay=d, restart_after_ms=restart))
        for m in range(2, M + 1):
            events.append(dict(kind="shutdown", member=m, after=("close_end", m - 1), delay=step,
                               restart_after_ms=restart))
        case["deploy"] = True
        if not java:  # the librdkafka member has no restart path in the harness: one shutdown
            events = [dict(kind="shutdown", member=1, after=("done", 1, n), delay=d)]
            case.pop("deploy")
    if assignor == "cooperative-sticky" and kind == "join" and rng.random() < 0.8:
        # Scale-out from one member holding everything (the named group-cooperative-join's
        # shape), auto-commit rarer than the join's polls: the revoked partition was consumed
        # since the last commit (the round's JoinGroup commits, its SyncGroup answer comes polls
        # later). The other cooperative joins are mostly refused by the formation rule.
        sc["members"], case["initial"] = 1, {1: list(range(P))}
        sc["strategy"] = "auto_commit"
        sc["auto.commit.interval.ms"] = max(sc["auto.commit.interval.ms"], 10000)
        events = [dict(kind="join", member=2, after=("done", 1, n), delay=d)]
    case["events"] = events
    if not java and sc["strategy"] == "auto_commit":
        # After the scale-out draw's interval (seed 12011 put G on the interval before it).
        case["go_phase"] = (1, sc["auto.commit.interval.ms"], -500)
    if assignor == "cooperative-sticky" and sc["members"] > 1:
        case["leader_first"] = True  # consumer-1 holds everything, then consumer-2 joins (check_group)
        if not java:
            # librdkafka's sticky assignor gives the joiner the holder's lowest partition
            # (model.md §10.2): the process that ends up with orders-0 plays consumer-1 (seeds
            # 12034, 12040, 12109, 12115 formed {1: [1], 2: [0]} and stopped there).
            case["any_initial_order"] = True
    case["note"] = "random group case (%s, %s)" % (client, kind)
    return case


def gen_share(rng):
    p = _times(rng, 100, 800)
    mpr = rng.randint(1, 6)
    n_records = rng.randint(10, 30)
    sc = {"members": 1, "record_processing_ms": p, "max.poll.records": mpr, "log_end_offset": n_records,
          "horizon_ms": 60000, "strategy": rng.choice(["auto_commit", "commit_sync_batch"])}
    case = {"kind": "share", "client": "java_classic", "file": "(random)", "scenario": sc}
    if rng.random() < 0.4:
        sc["share.acknowledgement.mode"] = "explicit"
        if rng.random() < 0.6:
            sc["record_failures"] = [rng.randrange(0, n_records)]
            sc["on_error"] = rng.choice(["release", "reject"])
    kind = rng.choices(["crash", "none", "hang"], weights=(60, 25, 15))[0]
    k = scale_factor(p)
    if k > 1:
        sc["record_processing_ms"] = p * k
        case["scaled"] = k
    p = sc["record_processing_ms"]
    if kind != "none":
        after = rng.randint(2, max(3, n_records - mpr - 1))
        delay = int(round(p * rng.uniform(0.35, 0.65) / 10.0)) * 10
        case["event"] = dict(kind=kind, after=after, delay=delay)
        if kind == "hang":
            sc["group.share.record.lock.duration.ms"] = 15000
            case["group_configs"] = {"share.record.lock.duration.ms": 15000}
            case["event"]["hang_ms"] = 25000
    else:
        sc["crash_at_ms"] = 60000
    case["note"] = "random share case (%s)" % kind
    return case


GENERATORS = {"single": gen_single, "records": gen_records, "group": gen_group, "share": gen_share,
              "libraries": gen_libraries}


# ---------------------------------------------------------------- checks

def neighbours(marks, member, t_ms, exclude_after=None):
    """Distance from t to the member's nearest model event (marks are in ms)."""
    best = float("inf")
    for mk in marks:
        if mk["member"] != member or mk["kind"] in NOT_NEIGHBOURS:
            continue
        at = float(mk["at_ms"])
        if exclude_after is not None and at >= exclude_after and mk["kind"] in CLOSE_CAUSED:
            continue
        best = min(best, abs(at - t_ms))
    return best


def check_quiet(marks, member, t_ms, what, exclude_after=None):
    dist = neighbours(marks, member, t_ms, exclude_after)
    if dist < QUIET_MS:
        near = min((mk for mk in marks if mk["member"] == member and mk["kind"] not in NOT_NEIGHBOURS),
                   key=lambda mk: abs(float(mk["at_ms"]) - t_ms))
        raise Rejected("%s at %.3f ms is %.1f ms from a model event of consumer-%d (%s)" % (
            what, t_ms, dist, member, near["kind"]))


# What a library strategy runs as in the engine (crates/sim/src/clients.rs `effective`): the
# timer it commits by, if any.
EFFECTIVE = {("sarama", "mark_message"): "store_offsets_after_processing",
             ("franz_go", "auto_commit"): "auto_commit_background",
             ("franz_go", "greedy_auto_commit"): "auto_commit_background",
             ("franz_go", "auto_commit_marks"): "store_offsets_after_processing"}


def timer_clash(sc, marks, member, start_ms=0.0, until_ms=None, group=False):
    """The rejection rule for timers (module doc). Raises Rejected."""
    client = sc.get("client", "java_classic")
    strategy = EFFECTIVE.get((client, sc.get("strategy", "auto_commit")), sc.get("strategy", "auto_commit"))
    if strategy not in ("auto_commit", "store_offsets_after_processing", "auto_commit_background"):
        return
    interval = float(sc.get("auto.commit.interval.ms", 5000))
    mine = [mk for mk in marks if mk["member"] == member]
    polls = [float(mk["at_ms"]) for mk in mine if mk["kind"] == "poll"]
    assigned = [float(mk["at_ms"]) for mk in mine if mk["kind"] == "assigned" and float(mk["at_ms"]) > 0]
    until = until_ms if until_ms is not None else (max(polls) if polls else 0.0)
    background = client in ("librdkafka", "java_consumer_protocol_pre_fix") or \
        strategy in ("store_offsets_after_processing", "auto_commit_background")
    if not background:
        lead = 600.0 if group else 300.0
        deadline, ai = start_ms + interval, 0
        for q in polls:
            while ai < len(assigned) and assigned[ai] <= q:
                deadline, lead, ai = assigned[ai] + interval, 0.0, ai + 1
            if q > until:
                break
            if deadline - lead - drift(deadline) <= q < deadline:
                raise Rejected("poll at %.1f ms sits %.1f ms before an auto-commit deadline %.1f (drift could move "
                               "the commit across it)" % (q, deadline - q, deadline))
            if q >= deadline:
                deadline = q + interval
        return
    changes = polls
    if strategy == "store_offsets_after_processing":
        changes = [float(mk["at_ms"]) for mk in mine if mk["kind"] == "record_durable"]
    lead = 600.0 if (group and client == "java_consumer_protocol_pre_fix") else 0.0
    lag = 500.0 if (group and client == "librdkafka") else 0.0
    k = 1
    while start_ms + k * interval <= until + interval:
        tick = start_ms + k * interval
        lo, hi = tick - lead - drift(tick), tick + lag + drift(tick)
        hit = [c for c in changes if lo <= c <= hi]
        if hit:
            raise Rejected("a background tick at %.1f ms has a model event at %.1f ms within its drift window "
                           "[%.1f, %.1f]" % (tick, hit[0], lo, hi))
        k += 1


def expiry_clash(sc, marks):
    """The rejection rule for session expiries (module doc): a crashed member's session expires a
    session timeout after its last heartbeat, and a survivor hears of it at a heartbeat of its
    own, then takes the partitions at its next poll. The model knows the heartbeats' phase only as
    the harness measures it (one `assigned_before_start_ms` for all members; a KIP-848 member
    heartbeats on its own cadence from its own join, librdkafka's from its own timer), so the
    expiry and the hearing may each move by up to a heartbeat interval: no poll of a survivor
    may sit within a heartbeat interval + drift of the model's expiry. Raises Rejected."""
    key = "group.consumer.heartbeat.interval.ms" if sc.get("client", "").startswith("java_consumer_protocol") \
        else "heartbeat.interval.ms"
    hb = float(sc.get(key, 5000 if key.startswith("group.") else 3000))
    down = {}
    for mk in marks:
        if mk["kind"] in ("crashed", "shutdown_requested"):
            down[mk["member"]] = True
        elif mk["kind"] in ("started", "restarted"):
            down[mk["member"]] = False
        if mk["kind"] != "session_expired":
            continue
        if not down.get(mk["member"]):
            # A live member dropped because its JoinGroup response waited for its poll (model.md
            # §10.5): whether that next poll returns the batch in hand depends on whether the
            # SyncGroup's round trip beats the loop's own few milliseconds between its failed
            # commit and the poll.
            raise Rejected("consumer-%d's session runs out while it lives (at %s ms): its next poll races its "
                           "SyncGroup's answer" % (mk["member"], mk["at_ms"]))
        e = float(mk["at_ms"])
        lo, hi = e - hb - drift(e), e + hb + drift(e)
        near = [q for q in marks if q["kind"] == "poll" and q["member"] != mk["member"] and lo <= float(q["at_ms"]) <= hi]
        if near:
            raise Rejected("consumer-%d polls at %s ms, within a heartbeat interval of consumer-%d's session expiry "
                           "at %.1f ms (the heartbeats' phases are not the model's)" % (
                               near[0]["member"], near[0]["at_ms"], mk["member"], e))


def eager_order_race(marks):
    """A librdkafka member that an eager round gives back a partition it held together with one it
    did not hands out either first: which partition's fetch returns first is a race (seed 12004 on
    librdkafka 2.16: orders-2, the one it held, twice, then orders-0 in a third run). The model's
    member starts at the lowest."""
    revoked, rounds = {}, {}
    for mk in marks:
        if mk["kind"] == "revoked":
            revoked.setdefault(mk["member"], set()).add(mk["partition"])
        elif mk["kind"] == "assigned":
            rounds.setdefault((mk["member"], mk["at_ms"]), (set(revoked.pop(mk["member"], set())), set()))[1].add(
                mk["partition"])
    for (member, at), (before, got) in sorted(rounds.items()):
        if len(got) > 1 and got & before and got - before:
            raise Rejected("consumer-%d gets back %s with %s at %s ms: which it hands out first is a race "
                           "under librdkafka" % (member, sorted(got & before), sorted(got - before), at))


def sync_race(marks):
    """A Java classic member whose failed `commitSync()` reads its JoinGroup response sends
    SyncGroup (model.md §10.5) and calls `poll()` straight after: whether that poll finds the
    SyncGroup response already in (and completes the round) or returns its buffered records first
    (and completes it a poll later) is a race between the broker's answer and the application's
    next call (seeds 12015, 12062: the round completed in the very next poll in three real runs of
    four, where the model's member takes it a batch later)."""
    failed = {(mk["member"], mk["at_ms"]) for mk in marks
              if mk["kind"] == "commit_failed" and mk.get("reason") == "rebalance_in_progress"}
    polled = {(mk["member"], mk["at_ms"]) for mk in marks if mk["kind"] == "poll" and mk.get("records", 0) > 0}
    for mk in marks:
        key = (mk["member"], mk["at_ms"])
        if mk["kind"] == "sync_sent" and key in failed and key in polled:
            raise Rejected("consumer-%d sends SyncGroup from a failed commit at %s ms and polls at once: whether "
                           "that poll completes the round is a race" % key)


def answer_clash(sc, marks):
    """A librdkafka cooperative member's SyncGroup answer (its `sync_sent` + one round trip)
    pauses its partitions until the rebalance callback, which runs in its next poll (model.md
    §10.4, §10.5): a poll returning records within drift of the answer may fall on either side
    of it on a real machine, and the round moves by a batch. Raises Rejected."""
    rtt = float(sc.get("commit_latency_ms", 5))
    polls = {}
    for q in marks:
        if q["kind"] == "poll":
            polls.setdefault(q["member"], []).append((float(q["at_ms"]), q.get("records", 0)))

    for mk in marks:
        if mk["kind"] != "sync_sent":
            continue
        m, a = mk["member"], float(mk["at_ms"]) + rtt
        # A poll at the answer's own instant is one the answer woke (the member waited): no race.
        near = [t for t, n in polls.get(m, []) if n > 0 and 0.5 <= abs(t - a) <= drift(a)]
        if near:
            raise Rejected("consumer-%d's SyncGroup answer at %.1f ms comes within drift of its poll at %.1f ms: "
                           "which poll runs the rebalance callback is a race" % (m, a, near[0]))


def event_race(marks):
    """A kafka-clients 4.3 poll that submits no AsyncPollEvent while a reconciliation or an
    auto-commit waits for one (the model's poll_event_skipped): the real poll submits one anyway
    when the previous poll's event completed inside that poll, about one poll in five (seed 8203's
    TRACE log), so which poll starts it is a race."""
    for mk in marks:
        if mk["kind"] == "poll_event_skipped":
            raise Rejected("consumer-%d's poll at %.0f ms submits no AsyncPollEvent while a reconciliation or "
                           "an auto-commit waits (a race of the client's threads)" % (mk["member"], float(mk["at_ms"])))


def join_clash(marks):
    """The rejection rule for joins (module doc): a member hears of a new member at its next
    heartbeat and joins the round at its next poll; a poll within drift of that heartbeat may fall
    on either side of it on a real machine, and the round (with every record the member
    processes meanwhile) moves by a whole batch. Raises Rejected."""
    for mk in marks:
        if mk["kind"] != "started" or float(mk["at_ms"]) <= 0:
            continue
        j = float(mk["at_ms"])
        for m in sorted({q["member"] for q in marks if q["member"] != mk["member"]}):
            beats = [float(q["at_ms"]) for q in marks if q["member"] == m and q["kind"] == "heartbeat"
                     and float(q["at_ms"]) >= j]
            if not beats:
                continue
            hb = beats[0]
            lo, hi = hb - drift(hb), hb + drift(hb) + 100.0
            near = [q for q in marks if q["member"] == m and q["kind"] == "poll" and lo <= float(q["at_ms"]) <= hi]
            if near:
                raise Rejected("consumer-%d polls at %s ms, within drift of the heartbeat at %.1f ms that tells it of "
                               "consumer-%d's join" % (m, near[0]["at_ms"], hb, mk["member"]))


def check_single(case, h):
    sc = h.derive(case)
    mode = case["mode"]
    if mode == "script":
        s = dict(sc, horizon_ms=120000)
        res = h.marks(s)
        steps = res.get("script") or []
        if not steps:
            raise Rejected("the script produced no readings")
        until = max(st["ended_at_us"] for st in steps) / 1000.0
        timer_clash(sc, res["marks"], 1, until_ms=until)
        return
    trig_us = h.model_done_instant(sc, case["after"])
    at_ms = trig_us / 1000.0 + case["delay"]
    s = dict(sc, horizon_ms=max(12000, at_ms + 3000), crash_at_ms=h.ms(int(round(at_ms * 1000))))
    res = h.marks(s)
    check_quiet(res["marks"], 1, at_ms, "the %s" % mode)
    timer_clash(sc, res["marks"], 1, until_ms=at_ms)
    if sc.get("max.poll.interval.ms"):
        # An eviction must not sit near the trigger either (the heartbeat thread notices it
        # within a heartbeat interval, 200 ms in the harness).
        for mk in res["marks"]:
            if mk["kind"] in ("evicted", "rejoined") and abs(float(mk["at_ms"]) - at_ms) < QUIET_MS + 200:
                raise Rejected("an eviction at %s ms next to the trigger" % mk["at_ms"])


def check_group(case, h):
    import group as G  # noqa: E402 (run.py puts the harness on the path)
    sc0 = G.base_scenario(case)
    if case["client"] == "librdkafka" and sc0.get("group.instance.id"):
        raise Rejected("static librdkafka members are not run")
    if sc0.get("partition.assignment.strategy") == "cooperative-sticky" and sc0["members"] > 1 \
            and (sc0["partitions"] > sc0["members"] or sc0["members"] > 2):
        # The suite's broker completes a new group's first join at once (its
        # group.initial.rebalance.delay.ms is 0), so members that start together form it in one
        # round or in several, as the machine's load decides, and the sticky assignor keeps what
        # the earlier rounds gave. Two members with a partition each form the model's assignment
        # when consumer-1 starts first (`leader_first`, set by gen_group), and a group that
        # starts from one member (the scale-out draw) forms in one round: only those are run.
        raise Rejected("a cooperative-sticky group of more than two members, or of more partitions than "
                       "members, forms in one round or in several, as the load decides")
    if case["client"].startswith("java_consumer") and sc0["members"] > 2 \
            and any(ev["kind"] != "join" for ev in case["events"]):
        # The broker's uniform assignor gives a partition a member left to one of the survivors
        # in the order of their member ids (random UUIDs), so which survivor takes it is not the
        # model's to predict (seed 8224: consumer-3, the model's consumer-2).
        raise Rejected("under the consumer protocol a partition a member leaves goes to one of two or more "
                       "survivors by their random member ids")
    case["final"] = []
    sc, instants = G.model_events(h.gctx, case, sc0, allow_no_final=True)
    horizon = max(instants) / 1000.0 + 60000 if instants else 60000
    res = h.marks(dict(sc, horizon_ms=horizon))
    marks = res["marks"]
    # Who is alive at the end, and the trigger of each one's final kill.
    alive = set(range(1, sc0["members"] + 1))
    for ev in case["events"]:
        if ev["kind"] == "join":
            alive.add(ev["member"])
        elif ev.get("restart_after_ms") is None:
            alive.discard(ev["member"])
    last_event_ms = max(instants) / 1000.0 if instants else 0.0
    # Past the last event and the group's last rebalance step (+ 1 s), so that no kill lands in
    # the middle of a rebalance.
    settled = max([last_event_ms + 2000] + [float(mk["at_ms"]) + 1000 for mk in marks if mk["kind"] in
                                            ("join_sent", "assignment_received", "assigned", "revoked")])
    finals = []
    # A poll-time auto-commit (Java): the kill comes in the first batch after a poll that fired
    # the timer, where which poll fired it decides what the kill finds committed.
    poll_timer = sc0.get("strategy") == "auto_commit" and case["client"].startswith("java")
    for m in sorted(alive):
        # Each survivor's final kill comes mid-record after its own N-th finished record in the
        # group's run: its own work, not another partition's handover, decides the instant, so a
        # real member that drifted a record against the model's is still killed at the same count.
        done = sorted(float(mk["at_ms"]) for mk in marks if mk["member"] == m and mk["kind"] == "record_durable")
        n = next((i + 1 for i, x in enumerate(done) if x > settled), None)
        if poll_timer:
            polls = {mk["at_ms"] for mk in marks if mk["member"] == m and mk["kind"] == "poll"}
            fired = sorted(float(mk["at_ms"]) for mk in marks if mk["member"] == m and mk["kind"] == "commit_sent"
                           and not mk.get("blocking") and mk["at_ms"] in polls and float(mk["at_ms"]) > settled)
            if fired:
                n = sum(1 for x in done if x <= fired[0]) or n
        if n is None:
            raise Rejected("consumer-%d finishes nothing after the last event" % m)
        finals.append(dict(member=m, after=("member_done", m, n), delay=case["events"][0]["delay"]))
    if not finals:
        raise Rejected("nobody left to read the end state from")
    case["final"] = finals
    sc, instants = G.model_events(h.gctx, case, sc0)
    res = h.marks(sc)
    marks = res["marks"]
    items = case["events"] + [dict(f, kind="crash") for f in finals]
    closes = {}
    for mk in marks:
        if mk["kind"] == "close_called":
            closes.setdefault(mk["member"], []).append(float(mk["at_ms"]))
    for ev, at_us in zip(items, instants):
        at = at_us / 1000.0
        m = ev["member"]
        if ev["kind"] == "join":
            continue  # the joiner has no timeline before it joins
        # What the event itself causes is no neighbour: after a crash, the member's handing over
        # (its revocation marks); after a shutdown, everything close() does.
        after = at if ev["kind"] == "crash" else next((c for c in closes.get(m, []) if c >= at - 0.001), None)
        check_quiet(marks, m, at, "%s of consumer-%d" % (ev["kind"], m), exclude_after=after)
    for m in range(1, sc0["members"] + 1):
        timer_clash(sc, marks, m, group=True, until_ms=max(instants) / 1000.0)
    if case["client"].startswith("librdkafka") and sc0.get("partition.assignment.strategy") in ("range", "roundrobin"):
        eager_order_race(marks)
    if case["client"] == "java_classic":
        sync_race(marks)
    if case["client"].startswith("librdkafka") and sc0.get("partition.assignment.strategy") == "cooperative-sticky":
        answer_clash(sc, [mk for mk in marks if float(mk["at_ms"]) < max(instants) / 1000.0])
    before_finals = [mk for mk in marks if float(mk["at_ms"]) < max(instants) / 1000.0]
    expiry_clash(sc, before_finals)
    join_clash(before_finals)
    event_race(before_finals)
    # A member's kill must not land before its own event (the harness waits for triggers in turn).
    if any(x is None for x in instants):
        raise Rejected("an event has no instant")


def check_share(case, h):
    import share as S  # noqa: E402
    ev = case.get("event")
    if not ev:
        return
    sc = S.base_scenario(case)
    t = S.model_done_instant(h.gctx, sc, ev["after"]) / 1000.0
    at = t + ev["delay"]
    res = h.marks(dict(sc, crash_at_ms=h.ms(int(round(at * 1000)))))
    check_quiet(res["marks"], 1, at, "the %s" % ev["kind"])


CHECKS = {"single": check_single, "records": check_single, "group": check_group, "share": check_share,
          "libraries": check_single}


def describe(case):
    """The case as JSON, ready to paste into run.py's lists (tuples as lists)."""
    keep = {k: v for k, v in case.items() if k not in ("random",)}
    return json.dumps(keep, sort_keys=True)


# ---------------------------------------------------------------- shrinking

def shrink_steps(case):
    """Simpler variants of a case, simplest idea first: fewer records per poll, fewer members
    and partitions, fewer events and options, rounder numbers. Each is re-checked by the
    same rules before it runs."""
    out = []
    fam = case["random"]["family"]

    def variant(fn, what):
        c = json.loads(json.dumps(case))
        for k in ("after",):
            if isinstance(case.get(k), tuple):
                c[k] = case[k]
        c["events"] = [dict(e, after=tuple(e["after"])) for e in case.get("events", [])]
        if "final" in c:
            c["final"] = []
        if "initial" in case:
            c["initial"] = {int(k): v for k, v in case["initial"].items()}
        if "go_phase" in case:
            c["go_phase"] = tuple(case["go_phase"])
        if fn(c) is False:
            return
        c["random"] = dict(case["random"], shrunk=what)
        out.append((what, c))

    if fam in ("single", "records"):
        o = lambda c: c["over"]  # noqa: E731
        if case["over"].get("max.poll.records", 5) > 1:
            variant(lambda c: o(c).update({"max.poll.records": max(1, o(c)["max.poll.records"] // 2)}), "fewer records per poll")
            variant(lambda c: o(c).update({"max.poll.records": o(c)["max.poll.records"] - 1}), "one record less per poll")
        for key in ("commit_failures", "retry_async_in_callback", "commit_value", "max.poll.interval.ms"):
            if key in case["over"]:
                variant(lambda c, key=key: o(c).pop(key), "without %s" % key)
        if case["over"].get("worker_pool"):
            if case["over"].get("pool_threads", 1) > 1:
                variant(lambda c: o(c).update({"pool_threads": o(c)["pool_threads"] - 1}), "one pool thread less")
            if case["over"].get("pool_max_in_flight_batches", 3) > 1:
                variant(lambda c: o(c).update({"pool_max_in_flight_batches": o(c)["pool_max_in_flight_batches"] - 1}),
                        "one batch in flight less")
        if case.get("after", 0) > 2:
            variant(lambda c: c.update(after=max(2, c["after"] // 2)), "an earlier trigger")
        for key, unit in (("record_processing_ms", 100), ("auto.commit.interval.ms", 500)):
            v = case["over"].get(key)
            if v and v % unit:
                variant(lambda c, key=key, unit=unit: o(c).update({key: max(unit, int(round(v / unit)) * unit)}),
                        "round %s" % key)
        if case.get("delay") and case["delay"] % 50:
            variant(lambda c: c.update(delay=int(round(c["delay"] / 50.0)) * 50), "round delay")
    elif fam == "group":
        s = lambda c: c["scenario"]  # noqa: E731
        if case["scenario"].get("max.poll.records", 5) > 1:
            variant(lambda c: s(c).update({"max.poll.records": max(1, s(c)["max.poll.records"] // 2)}), "fewer records per poll")
        P, M = case["scenario"]["partitions"], case["scenario"]["members"]

        def reassign(c):
            G_range = s(c).get("partition.assignment.strategy") == "range"
            P2, M2 = s(c)["partitions"], s(c)["members"]
            if G_range:
                q, r = divmod(P2, M2)
                init, at = {}, 0
                for m in range(1, M2 + 1):
                    n = q + (1 if m <= r else 0)
                    init[m] = list(range(at, at + n))
                    at += n
            else:
                init = {m: [i for i in range(P2) if i % M2 == m - 1] for m in range(1, M2 + 1)}
            c["initial"] = init

        if P > M:
            variant(lambda c: (s(c).update(partitions=P - 1), reassign(c)) and None, "one partition less")
        if M > 2:
            def fewer(c):
                if any(e["member"] == M and e["kind"] != "join" for e in c["events"]):
                    return False
                s(c).update(members=M - 1)
                if s(c)["partitions"] < M - 1 or c["client"].startswith("java_consumer"):
                    s(c)["partitions"] = M - 1
                for e in c["events"]:
                    if e["kind"] == "join":
                        e["member"] = M
                        e["after"] = tuple(e["after"])
                reassign(c)
            variant(fewer, "one member less")
        for key in ("on_revoke", "group.instance.id"):
            if key in case["scenario"]:
                variant(lambda c, key=key: s(c).pop(key), "without %s" % key)
        if len(case["events"]) > 1:
            variant(lambda c: c.update(events=c["events"][:1]) or c.pop("deploy", None) and None, "fewer events")
        for i, e in enumerate(case["events"]):
            if e.get("restart_after_ms") is not None and not case.get("deploy"):
                variant(lambda c, i=i: c["events"][i].pop("restart_after_ms"), "no restart")
            if e.get("shutdown_mode"):
                variant(lambda c, i=i: c["events"][i].pop("shutdown_mode"), "wakeup, not abrupt")
        for key, unit in (("record_processing_ms", 100), ("auto.commit.interval.ms", 500)):
            v = case["scenario"].get(key)
            if v and v % unit:
                variant(lambda c, key=key, unit=unit: s(c).update({key: max(unit, int(round(v / unit)) * unit)}),
                        "round %s" % key)
    elif fam == "share":
        s = lambda c: c["scenario"]  # noqa: E731
        if case["scenario"].get("max.poll.records", 5) > 1:
            variant(lambda c: s(c).update({"max.poll.records": max(1, s(c)["max.poll.records"] // 2)}), "fewer records per poll")
        if case["scenario"].get("log_end_offset", 10) > 10:
            variant(lambda c: s(c).update(log_end_offset=max(10, s(c)["log_end_offset"] // 2)), "fewer records")
        v = case["scenario"].get("record_processing_ms")
        if v and v % 100:
            variant(lambda c: s(c).update(record_processing_ms=max(500, int(round(v / 100.0)) * 100)), "round record time")
    return out
