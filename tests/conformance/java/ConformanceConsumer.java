// A real Apache Kafka Java consumer (kafka-clients; compiled separately against 4.3.1 and
// 3.9.2, so only API both have) that does what one conformance scenario says: poll, process
// (= sleep record_processing_ms per record), commit by the strategy, hand batches to a worker
// pool when asked, close when asked, or run a model.md §8.11 script. group.protocol is classic or
// consumer (KIP-848). It writes every event to its own log (one line each, written straight to
// the file so that a SIGKILL loses nothing already logged); the driver kills it after a logged
// event of its choosing (run.py: the trigger).
//
// Arguments: key=value pairs (see run.py, which builds them from the scenario).
// Log lines (t = milliseconds since T0, T0 = the instant the first poll returned records):
//   T0 <epoch seconds>           poll <t> <first offset> <count>     done <t> <offset>
//   commit <t sent> <t returned> <offset or "position"> [inject]   txn <t begin> <t end> <offset>
//   commit_failed <t> <exception>   (commitSync threw: e.g. CommitFailedException after an eviction)
//   callback <t> <offset> ok|<exception>    retry <t> <offset>    (commitAsync callbacks, model.md §8.8)
//   step <i> <t> position <p> committed <c|none>                   close_begin <t> / close_end <t>
//   client <version> <group.protocol>   error <text>
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.AppInfoParser;

public final class ConformanceConsumer {
    private static FileOutputStream log;
    private static long t0Nanos = -1;
    private static final Map<String, String> args = new HashMap<>();
    // model.md §8.8 fault injection: the commit requests (numbered from 1 in send order, retries
    // included) listed in commit_failures carry metadata longer than the broker's
    // offset.metadata.max.bytes (4096): the broker answers OFFSET_METADATA_TOO_LARGE and stores
    // nothing, a real failed round trip.
    private static int commitsSent = 0;
    private static final Set<Integer> failing = new java.util.HashSet<>();
    private static final String TOO_LARGE = "x".repeat(5000);
    private static KafkaConsumer<String, String> consumerRef;
    private static TopicPartition tpRef;
    private static boolean retryInCallback;

    /** The metadata of the next commit request: empty, or too large when it is to fail. */
    private static String nextCommitMetadata() {
        commitsSent++;
        return failing.contains(commitsSent) ? TOO_LARGE : "";
    }

    private static final OffsetCommitCallback CALLBACK = new OffsetCommitCallback() {
        @Override
        public void onComplete(Map<TopicPartition, OffsetAndMetadata> offsets, Exception e) {
            // Runs on the application thread inside poll() / commitAsync() / commitSync().
            long off = offsets == null || offsets.get(tpRef) == null ? -1 : offsets.get(tpRef).offset();
            log("callback " + now() + " " + off + " " + (e == null ? "ok" : e.getClass().getSimpleName()));
            if (e != null && retryInCallback && off >= 0) {
                log("retry " + now() + " " + off);
                commitAsync(off);
            }
        }
    };

    private static void commitAsync(long offset) {
        String meta = nextCommitMetadata();
        String sent = now();
        consumerRef.commitAsync(Map.of(tpRef, new OffsetAndMetadata(offset, meta)), CALLBACK);
        log("commit " + sent + " " + now() + " " + offset + (meta.isEmpty() ? "" : " inject"));
    }

    /** commitSync of `offset`; false when it threw CommitFailedException (model.md §8.7: evicted). */
    private static void commitSync(long offset) {
        String meta = nextCommitMetadata();
        String sent = now();
        try {
            consumerRef.commitSync(Map.of(tpRef, new OffsetAndMetadata(offset, meta)));
            log("commit " + sent + " " + now() + " " + offset + (meta.isEmpty() ? "" : " inject"));
        } catch (CommitFailedException e) {
            log("commit_failed " + now() + " " + e.getClass().getSimpleName());
        }
    }

    private static synchronized void log(String line) {
        try {
            log.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    private static String now() {
        return String.format("%.3f", (System.nanoTime() - t0Nanos) / 1e6);
    }

    private static String arg(String key, String dflt) {
        return args.getOrDefault(key, dflt);
    }

    private static long num(String key, long dflt) {
        return Long.parseLong(arg(key, Long.toString(dflt)));
    }

    /** Sleeps `ms`; false (after sleeping up to the deadline) if the close deadline cuts it. */
    private static boolean sleepUnlessClose(double ms, long closeDeadlineNanos) throws InterruptedException {
        long end = System.nanoTime() + (long) (ms * 1e6);
        if (closeDeadlineNanos >= 0 && end > closeDeadlineNanos) {
            long left = closeDeadlineNanos - System.nanoTime();
            if (left > 0) Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
            return false;
        }
        long left = end - System.nanoTime();
        if (left > 0) Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
        return true;
    }

    public static void main(String[] argv) throws Exception {
        for (String a : argv) {
            int i = a.indexOf('=');
            args.put(a.substring(0, i), a.substring(i + 1));
        }
        log = new FileOutputStream(arg("log", "consumer.log"), true);
        if (!arg("member", "").isEmpty()) {
            GroupMember.run();
            return;
        }
        String topic = arg("topic", "in");
        TopicPartition tp = new TopicPartition(topic, 0);
        String strategy = arg("strategy", "auto_commit");
        boolean transactional = strategy.equals("transactional");
        int maxPoll = (int) num("max.poll.records", 5);
        double procMs = Double.parseDouble(arg("record_processing_ms", "200"));
        boolean recordOffset = arg("commit_value", "next_offset").equals("record_offset");

        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, arg("bootstrap", "127.0.0.1:9092"));
        p.put(ConsumerConfig.GROUP_ID_CONFIG, arg("group", "g"));
        String protocol = arg("group.protocol", "classic");
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, Boolean.toString(strategy.equals("auto_commit")));
        p.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, arg("auto.commit.interval.ms", "5000"));
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(maxPoll));
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        if (protocol.equals("classic")) { // the consumer protocol takes both from the broker (group configs)
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, arg("session.timeout.ms", "6000"));
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, arg("heartbeat.interval.ms", "200"));
        }
        p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, arg("max.poll.interval.ms", "300000"));
        for (String n : arg("commit_failures", "").split(",")) {
            if (!n.isEmpty()) failing.add(Integer.parseInt(n));
        }
        retryInCallback = arg("retry_async_in_callback", "false").equals("true");
        tpRef = tp;
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());

        KafkaProducer<String, String> producer = null;
        String outTopic = arg("out_topic", "out");
        if (transactional) {
            Properties pp = new Properties();
            pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, arg("bootstrap", "127.0.0.1:9092"));
            pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, arg("txn_id", "txn"));
            pp.put(ProducerConfig.LINGER_MS_CONFIG, "0");
            pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            producer = new KafkaProducer<>(pp);
            producer.initTransactions();
            // Warm-up transaction (ORACLE.md: the first one costs ≈ 175 ms more): output-topic
            // metadata and a first TxnOffsetCommit, to another group so ours stays untouched.
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(outTopic, "warmup"));
            producer.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(0)),
                    new ConsumerGroupMetadata(arg("group", "g") + "-warmup"));
            producer.commitTransaction();
            log("warmup_done");
        }

        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p);
        consumerRef = consumer;
        log("client " + AppInfoParser.getVersion() + " " + protocol);
        consumer.subscribe(List.of(topic));
        log("subscribed");

        String script = arg("script", "");
        if (!script.isEmpty()) {
            runScript(consumer, tp, script.split(";"), procMs);
            return;
        }

        boolean pool = arg("worker_pool", "false").equals("true");
        ConsumerRecords<String, String> records = firstPoll(consumer);
        // A graceful close is triggered by the consumer's own progress (as the driver's kills are):
        // close_delay_ms after record close_after is done, cutting the record then in progress.
        long closeAfter = num("close_after", -1);
        long closeDelayNanos = (long) (Double.parseDouble(arg("close_delay_ms", "0")) * 1e6);
        long closeDeadline = -1;

        if (pool && arg("ordering", "batch").equals("unordered")) {
            recordPool(consumer, tp, records, procMs, strategy);
            return;
        }

        if (pool) {
            int threads = (int) num("pool_threads", 1);
            Semaphore slots = new Semaphore((int) num("pool_max_in_flight_batches", 3));
            ExecutorService workers = Executors.newFixedThreadPool(threads);
            slots.acquire();
            while (true) {
                logPoll(records);
                List<ConsumerRecord<String, String>> batch = new ArrayList<>();
                records.forEach(batch::add);
                if (!batch.isEmpty()) {
                    workers.submit(() -> {
                        try {
                            for (ConsumerRecord<String, String> r : batch) {
                                sleepUnlessClose(procMs, -1);
                                log("done " + now() + " " + r.offset());
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } finally {
                            slots.release();
                        }
                    });
                } else {
                    slots.release();
                }
                if (strategy.equals("commit_sync_batch")) {
                    String sent = now();
                    consumer.commitSync();
                    log("commit " + sent + " " + now() + " position");
                } else if (!strategy.equals("auto_commit")) {
                    throw new IllegalArgumentException("pool with " + strategy + " is not implemented here");
                }
                slots.acquire();
                records = consumer.poll(Duration.ofMillis(1000));
            }
        }

        while (true) {
            logPoll(records);
            if (transactional) producer.beginTransaction();
            String txnBegin = now();
            for (ConsumerRecord<String, String> r : records) {
                if (!sleepUnlessClose(procMs, closeDeadline)) {
                    close(consumer);
                    return;
                }
                // The side effect: in transactional mode the output record, sent and acknowledged
                // (in the log, visible to read_uncommitted) before the record counts as done.
                if (transactional) producer.send(new ProducerRecord<>(outTopic, Long.toString(r.offset()))).get();
                log("done " + now() + " " + r.offset());
                if (r.offset() == closeAfter && closeDeadline < 0) closeDeadline = System.nanoTime() + closeDelayNanos;
                if (strategy.equals("commit_sync_record")) {
                    commitSync(recordOffset ? r.offset() : r.offset() + 1);
                }
            }
            switch (strategy) {
                case "commit_sync_batch":
                    if (!records.isEmpty()) commitSync(consumer.position(tp));
                    break;
                case "commit_async_batch":
                    if (!records.isEmpty()) commitAsync(consumer.position(tp));
                    break;
                case "transactional": {
                    long pos = consumer.position(tp);
                    producer.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(pos)), consumer.groupMetadata());
                    producer.commitTransaction();
                    log("txn " + txnBegin + " " + now() + " " + pos);
                    break;
                }
                default:
                    break;
            }
            if (closeDeadline >= 0 && System.nanoTime() >= closeDeadline) {
                close(consumer);
                return;
            }
            records = consumer.poll(Duration.ofMillis(1000));
        }
    }

    /**
     * model.md §12.5, §12.6: a pool whose threads take one record at a time, any record on any
     * thread (`ordering: unordered`, the Confluent Parallel Consumer's UNORDERED), in hand-off
     * order; a hand-off is in flight until all its records are done (at most
     * pool_max_in_flight_batches); after each hand-off the loop commits (commitSync) what
     * `pool_commit` says: contiguous_completed = the lowest offset not yet done since the
     * partition was taken, highest_completed = 1 + the highest offset done, handed_out = the
     * position. record_processing_ms_by_offset ("3:6000,...") gives single records their own time.
     */
    private static void recordPool(KafkaConsumer<String, String> consumer, TopicPartition tp,
                                   ConsumerRecords<String, String> records, double procMs, String strategy)
            throws Exception {
        int threads = (int) num("pool_threads", 1);
        String poolCommit = arg("pool_commit", "handed_out");
        if (!strategy.equals("commit_sync_batch")) {
            throw new IllegalArgumentException("the record pool implements commit_sync_batch only");
        }
        Map<Long, Double> byOffset = new HashMap<>();
        for (String kv : arg("record_processing_ms_by_offset", "").split(",")) {
            if (kv.isEmpty()) continue;
            String[] p = kv.split(":");
            byOffset.put(Long.parseLong(p[0]), Double.parseDouble(p[1]));
        }
        Semaphore slots = new Semaphore((int) num("pool_max_in_flight_batches", 3));
        java.util.concurrent.LinkedBlockingQueue<Object[]> queue = new java.util.concurrent.LinkedBlockingQueue<>();
        java.util.concurrent.ConcurrentSkipListSet<Long> completed = new java.util.concurrent.ConcurrentSkipListSet<>();
        long[] highest = {-1};
        long[] from = {-1};
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    while (true) {
                        Object[] item = queue.take();
                        long offset = (Long) item[0];
                        java.util.concurrent.atomic.AtomicInteger left = (java.util.concurrent.atomic.AtomicInteger) item[1];
                        sleepUnlessClose(byOffset.getOrDefault(offset, procMs), -1);
                        synchronized (completed) {
                            completed.add(offset);
                            highest[0] = Math.max(highest[0], offset);
                        }
                        log("done " + now() + " " + offset);
                        if (left.decrementAndGet() == 0) slots.release();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            t.setDaemon(true);
            t.start();
        }
        slots.acquire();
        while (true) {
            logPoll(records);
            if (records.isEmpty()) {
                slots.release();
            } else {
                java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger(records.count());
                for (ConsumerRecord<String, String> r : records) {
                    if (from[0] < 0) from[0] = r.offset();
                    queue.add(new Object[] {r.offset(), left});
                }
                long value;
                synchronized (completed) {
                    switch (poolCommit) {
                        case "contiguous_completed": {
                            long c = from[0];
                            while (completed.contains(c)) c++;
                            value = c;
                            break;
                        }
                        case "highest_completed":
                            value = highest[0] < 0 ? from[0] : highest[0] + 1;
                            break;
                        default:
                            value = consumer.position(tp);
                    }
                }
                commitSync(value);
            }
            slots.acquire();
            records = consumer.poll(Duration.ofMillis(1000));
        }
    }

    private static ConsumerRecords<String, String> firstPoll(KafkaConsumer<String, String> consumer) {
        while (true) {
            ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
            if (!records.isEmpty()) {
                t0Nanos = System.nanoTime();
                Instant t0 = Instant.now();
                log("T0 " + t0.getEpochSecond() + "." + String.format("%09d", t0.getNano()));
                return records;
            }
        }
    }

    private static void logPoll(ConsumerRecords<String, String> records) {
        long first = -1;
        int count = 0;
        for (ConsumerRecord<String, String> r : records) {
            if (first < 0) first = r.offset();
            count++;
        }
        log("poll " + now() + " " + first + " " + count);
    }

    private static void close(KafkaConsumer<String, String> consumer) {
        log("close_begin " + now());
        consumer.close();
        log("close_end " + now());
    }

    /** model.md §8.11: poll, process N, sleep MS, commit_sync, commit_async, close, crash. */
    private static void runScript(KafkaConsumer<String, String> consumer, TopicPartition tp, String[] steps,
                                  double procMs) throws Exception {
        Admin admin = null;
        if (arg("script_committed", "consumer").equals("admin")) {
            Properties ap = new Properties();
            ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, arg("bootstrap", "127.0.0.1:9092"));
            admin = Admin.create(ap);
        }
        List<ConsumerRecord<String, String>> batch = new ArrayList<>();
        int next = 0;
        for (int i = 0; i < steps.length; i++) {
            String[] s = steps[i].trim().split(" ");
            switch (s[0]) {
                case "poll": {
                    ConsumerRecords<String, String> records = t0Nanos < 0 ? firstPoll(consumer)
                            : consumer.poll(Duration.ofMillis(1000));
                    logPoll(records);
                    // `process N` takes the next records handed out and not yet processed,
                    // from earlier polls first (model.md §8.11).
                    batch = new ArrayList<>(batch.subList(next, batch.size()));
                    records.forEach(batch::add);
                    next = 0;
                    break;
                }
                case "process": {
                    int n = Integer.parseInt(s[1]);
                    for (int k = 0; k < n && next < batch.size(); k++, next++) {
                        sleepUnlessClose(procMs, -1);
                        log("done " + now() + " " + batch.get(next).offset());
                    }
                    break;
                }
                case "sleep":
                    Thread.sleep(Long.parseLong(s[1]));
                    break;
                case "commit_sync":
                    consumer.commitSync();
                    break;
                case "commit_async":
                    consumer.commitAsync();
                    break;
                case "close":
                    close(consumer);
                    log("step " + i + " " + now() + " closed");
                    return;
                case "crash":
                    log("step " + i + " " + now() + " crash");
                    Runtime.getRuntime().halt(137);
                    return;
                default:
                    throw new IllegalArgumentException("unknown step " + steps[i]);
            }
            String committed;
            if (admin != null) {
                committed = adminCommitted(admin, tp);
            } else {
                Map<TopicPartition, OffsetAndMetadata> c = consumer.committed(Set.of(tp), Duration.ofSeconds(5));
                OffsetAndMetadata om = c.get(tp);
                committed = om == null ? "none" : Long.toString(om.offset());
            }
            log("step " + i + " " + now() + " position " + consumer.position(tp) + " committed " + committed);
        }
        consumer.close();
    }

    /**
     * The committed offset as seed 002's lab read it: AdminClient.listConsumerGroupOffsets from
     * outside the consumer, read again every 200 ms (at most 5 s) until two reads agree, since
     * an asynchronous commit becomes visible a little later.
     */
    private static String adminCommitted(Admin admin, TopicPartition tp) throws Exception {
        String last = null;
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            Map<TopicPartition, OffsetAndMetadata> m = admin.listConsumerGroupOffsets(arg("group", "g"))
                    .partitionsToOffsetAndMetadata().get();
            OffsetAndMetadata om = m.get(tp);
            String v = om == null ? "none" : Long.toString(om.offset());
            if (v.equals(last) || System.nanoTime() > deadline) return v;
            last = v;
            Thread.sleep(200);
        }
    }

    // ------------------------------------------------------------------ a group member (model.md §10)

    /**
     * One member of a consumer group among several (run.py group cases; the driver starts one
     * process per member). Times are milliseconds since the driver's epoch `epoch_ns` on
     * CLOCK_MONOTONIC (System.nanoTime on Linux), which the driver and every member share, so
     * the members' logs line up.
     *
     * Arguments (besides the ones above): member=N (client.id consumer-N), instance_id (static
     * membership: group.instance.id), assignor (range | roundrobin | cooperative-sticky, classic
     * only), on_revoke (nothing | commit_sync), shutdown_mode (wakeup | abrupt: what SIGTERM
     * does), go_file (the initial members pause what they are assigned until the driver writes
     * the common start instant G there), start_file (a standby process: pre-warmed, it
     * subscribes at the instant the driver writes there: a joining member or a restart),
     * kafka.<property>=value (any other consumer property).
     *
     * Log lines (t = ms since the epoch):
     *   client <version> <protocol> member <N>      ready <t>      start <t>      go <t>
     *   assigned <t> <generation> [<p>:<committed|none> ...]   (onPartitionsAssigned, its added partitions)
     *   revoked <t> <generation> [<p> ...]    lost <t> [<p> ...]
     *   poll <t> <p> <first offset> <count>  (one line per partition in the batch; "poll t - - 0": empty)
     *   done <t> <p> <offset>
     *   committed <t> <p>:<offset> ...      (ConsumerInterceptor.onCommit: any commit that succeeded, auto-commits included)
     *   commit <t sent> <t returned> position   commit_failed <t> <exception>
     *   commit_woken <t sent> <t thrown> position  (commitSync() threw WakeupException: its commit went out)
     *   revoke_commit <t sent> <t returned> <p>:<offset> ...   (on_revoke: commit_sync)
     *   wakeup <t> | abrupt <t>  (SIGTERM arrived)    close_begin <t>    close_end <t>    error <t> <text>
     */
    static final class GroupMember {
        static long epochNanos;
        static KafkaConsumer<String, String> consumer;
        static volatile boolean going;
        static volatile boolean abrupt;
        static boolean consumerProtocol;
        static final Map<TopicPartition, Long> next = new HashMap<>();

        static String t() {
            return String.format("%.3f", (System.nanoTime() - epochNanos) / 1e6);
        }

        static void sleepUntil(long atNanosSinceEpoch) throws InterruptedException {
            while (true) {
                long left = epochNanos + atNanosSinceEpoch - System.nanoTime();
                if (left <= 0) return;
                Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
            }
        }

        /** The instant (ns since the epoch) the driver wrote to `path`, or -1 while there is none. */
        static long readInstant(String path) {
            try {
                String s = new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(path)),
                        StandardCharsets.UTF_8).trim();
                return s.endsWith(";") ? Long.parseLong(s.substring(0, s.length() - 1)) : -1;
            } catch (IOException | NumberFormatException e) {
                return -1;
            }
        }

        static String parts(java.util.Collection<TopicPartition> ps) {
            StringBuilder b = new StringBuilder();
            new java.util.TreeSet<>(ps.stream().map(TopicPartition::partition).collect(java.util.stream.Collectors.toList()))
                    .forEach(p -> b.append(' ').append(p));
            return b.toString();
        }

        static int generation() {
            try {
                return consumer.groupMetadata().generationId();
            } catch (RuntimeException e) {
                return -1;
            }
        }

        static final org.apache.kafka.clients.consumer.ConsumerRebalanceListener LISTENER =
                new org.apache.kafka.clients.consumer.ConsumerRebalanceListener() {
            @Override
            public void onPartitionsAssigned(java.util.Collection<TopicPartition> partitions) {
                String at = t();
                StringBuilder b = new StringBuilder("assigned " + at + " " + generation());
                // Where each added partition starts: its committed offset. The classic client's
                // position() here runs the OffsetFetch the next poll would run anyway; the
                // consumer protocol's callback asks committed() (one round trip).
                java.util.List<TopicPartition> sorted = new ArrayList<>(partitions);
                sorted.sort(java.util.Comparator.comparingInt(TopicPartition::partition));
                Map<TopicPartition, OffsetAndMetadata> committed = consumerProtocol && !sorted.isEmpty()
                        ? consumer.committed(new java.util.HashSet<>(sorted), Duration.ofSeconds(10)) : null;
                for (TopicPartition p : sorted) {
                    String c;
                    if (committed != null) {
                        OffsetAndMetadata om = committed.get(p);
                        c = om == null ? "none" : Long.toString(om.offset());
                    } else {
                        c = Long.toString(consumer.position(p, Duration.ofSeconds(10)));
                    }
                    b.append(' ').append(p.partition()).append(':').append(c);
                    if (Pool.on() && !c.equals("none")) Pool.take(p, Long.parseLong(c));
                }
                log(b.toString());
                if (!going && !partitions.isEmpty()) consumer.pause(partitions);
            }

            @Override
            public void onPartitionsRevoked(java.util.Collection<TopicPartition> partitions) {
                log("revoked " + t() + " " + generation() + parts(partitions));
                String onRevoke = arg("on_revoke", "nothing");
                if (onRevoke.equals("drain") && !partitions.isEmpty()) Pool.drain((long) num("on_revoke_drain_ms", 20000));
                if (!onRevoke.equals("nothing") && !partitions.isEmpty()) {
                    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                    for (TopicPartition p : partitions) {
                        Long n = Pool.on() ? Pool.frontier(p) : next.get(p);
                        if (n != null) offsets.put(p, new OffsetAndMetadata(n));
                    }
                    if (!offsets.isEmpty()) {
                        String sent = t();
                        try {
                            consumer.commitSync(offsets);
                            CommitLog.explicitCommitLanded(offsets);
                            StringBuilder b = new StringBuilder("revoke_commit " + sent + " " + t());
                            offsets.forEach((p, o) -> b.append(' ').append(p.partition()).append(':').append(o.offset()));
                            log(b.toString());
                        } catch (RuntimeException e) {
                            log("commit_failed " + t() + " " + e.getClass().getSimpleName());
                        }
                    }
                }
                if (Pool.on()) Pool.forget(partitions);
            }

            @Override
            public void onPartitionsLost(java.util.Collection<TopicPartition> partitions) {
                log("lost " + t() + parts(partitions));
            }
        };

        public static void run() throws Exception {
            epochNanos = Long.parseLong(arg("epoch_ns", "0"));
            String topic = arg("topic", "in");
            String protocol = arg("group.protocol", "classic");
            consumerProtocol = protocol.equals("consumer");
            String strategy = arg("strategy", "auto_commit");
            double procMs = Double.parseDouble(arg("record_processing_ms", "200"));
            String member = arg("member", "1");

            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, arg("bootstrap", "127.0.0.1:9092"));
            p.put(ConsumerConfig.GROUP_ID_CONFIG, arg("group", "g"));
            p.put(ConsumerConfig.CLIENT_ID_CONFIG, "consumer-" + member);
            p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, Boolean.toString(strategy.equals("auto_commit")));
            p.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, arg("auto.commit.interval.ms", "5000"));
            p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, arg("max.poll.records", "5"));
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, arg("max.poll.interval.ms", "300000"));
            if (!consumerProtocol) {
                p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, arg("session.timeout.ms", "45000"));
                p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, arg("heartbeat.interval.ms", "3000"));
                String assignor = arg("assignor", "range");
                p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                        assignor.equals("roundrobin") ? org.apache.kafka.clients.consumer.RoundRobinAssignor.class.getName()
                        : assignor.equals("cooperative-sticky") ? org.apache.kafka.clients.consumer.CooperativeStickyAssignor.class.getName()
                        : org.apache.kafka.clients.consumer.RangeAssignor.class.getName());
            }
            if (!arg("instance_id", "").isEmpty()) p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, arg("instance_id", ""));
            p.put(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, CommitLog.class.getName());
            p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            for (Map.Entry<String, String> e : args.entrySet()) {
                if (e.getKey().startsWith("kafka.")) p.put(e.getKey().substring(6), e.getValue());
            }

            warmUp(p, topic);
            consumer = new KafkaConsumer<>(p);
            log("created " + t());
            log("client " + AppInfoParser.getVersion() + " " + protocol + " member " + member);
            Thread main = Thread.currentThread();
            String mode = arg("shutdown_mode", "wakeup");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                // SIGTERM: a shutdown hook as applications write it (model.md §10.3).
                if (mode.equals("abrupt")) {
                    log("abrupt " + t());
                    abrupt = true;
                    main.interrupt();
                } else {
                    log("wakeup " + t());
                    consumer.wakeup();
                }
                try {
                    main.join(30000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));

            String startFile = arg("start_file", "");
            going = !startFile.isEmpty();
            if (going) {
                // A standby process (a member that joins later, or a restart): metadata and the
                // coordinator are looked up now, so that the join at the start instant costs only
                // the group's own round trips.
                consumer.partitionsFor(topic);
                consumer.committed(Set.of(new TopicPartition(topic, 0)), Duration.ofSeconds(10));
                log("ready " + t());
                long at;
                while ((at = readInstant(startFile)) < 0) Thread.sleep(2);
                sleepUntil(at);
                log("start " + t());
            }
            consumer.subscribe(List.of(topic), LISTENER);
            String goFile = arg("go_file", "");
            try {
                while (!going) {
                    consumer.poll(Duration.ofMillis(10));
                    long g = readInstant(goFile);
                    if (g >= 0) {
                        sleepUntil(g);
                        consumer.resume(consumer.assignment());
                        going = true;
                        log("go " + t());
                    }
                }
                if (Pool.on()) Pool.loop(procMs);
                else loop(strategy, procMs);
            } catch (org.apache.kafka.common.errors.WakeupException e) {
                // wakeup() before the loop started: close below
            }
            Thread.interrupted();
            log("close_begin " + t());
            consumer.close();
            log("close_end " + t());
        }

        /**
         * Loads and compiles the fetch path before the group's clock starts: a consumer without a
         * group reads a few records of the topic (otherwise the first poll after G costs ≈ 150 ms).
         */
        static void warmUp(Properties groupProps, String topic) {
            Properties w = new Properties();
            w.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, groupProps.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
            w.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            w.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, groupProps.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG));
            w.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            w.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            try (KafkaConsumer<String, String> c = new KafkaConsumer<>(w)) {
                TopicPartition tp = new TopicPartition(topic, 0);
                c.assign(List.of(tp));
                c.seekToBeginning(List.of(tp));
                long deadline = System.nanoTime() + 10_000_000_000L;
                int n = 0;
                while (n < 10 && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                        n += r.value().length() > 0 ? 1 : 0;
                        String.format("%.3f %d %d", 1.0, r.partition(), r.offset());
                    }
                }
            }
        }

        static void loop(String strategy, double procMs) {
            while (true) {
                ConsumerRecords<String, String> records;
                try {
                    records = consumer.poll(Duration.ofMillis(1000));
                } catch (org.apache.kafka.common.errors.WakeupException e) {
                    return;
                } catch (org.apache.kafka.common.errors.InterruptException e) {
                    return; // abrupt: SIGTERM while inside poll()
                }
                String at = t();
                if (records.isEmpty()) {
                    log("poll " + at + " - - 0");
                } else {
                    for (TopicPartition tp : records.partitions()) {
                        List<ConsumerRecord<String, String>> rs = records.records(tp);
                        log("poll " + at + " " + tp.partition() + " " + rs.get(0).offset() + " " + rs.size());
                    }
                }
                for (ConsumerRecord<String, String> r : records) {
                    try {
                        Thread.sleep((long) procMs, (int) ((procMs - (long) procMs) * 1e6));
                    } catch (InterruptedException e) {
                        return; // abrupt: close() now, the record in progress is not done
                    }
                    log("done " + t() + " " + r.partition() + " " + r.offset());
                    next.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
                }
                if (abrupt) return;
                if (strategy.equals("commit_sync_batch") && !records.isEmpty()) {
                    String sent = t();
                    try {
                        consumer.commitSync();
                        log("commit " + sent + " " + t() + " position");
                    } catch (org.apache.kafka.common.errors.WakeupException e) {
                        // Thrown after the OffsetCommit went out (model.md §10.8): logged, then close().
                        log("commit_woken " + sent + " " + t() + " position");
                        return;
                    } catch (RuntimeException e) {
                        log("commit_failed " + t() + " " + e.getClass().getSimpleName());
                    }
                }
            }
        }
    }

    /**
     * A group member with a worker pool (model.md §4, §12.6; `worker_pool`, `pool_threads`,
     * `pool_max_in_flight_batches`, `pool_commit` contiguous_completed, strategy
     * commit_sync_batch): the loop waits until fewer than the most batches are in flight, polls,
     * hands each partition's records to the pool as one batch (a thread runs a batch's records in
     * order; the oldest waiting batch goes first) and commits, for every assigned partition, the
     * lowest offset not yet done since it took the partition. `on_revoke` drain: the callback
     * waits until no batch is in flight, at most `on_revoke_drain_ms`, then commits the revoked
     * partitions' frontiers (model.md §10.5). Log lines as GroupMember's; `done` comes from the
     * pool's threads.
     */
    static final class Pool {
        static ExecutorService workers;
        static int inFlight;
        static final Map<TopicPartition, Long> frontier = new HashMap<>();
        static final Map<TopicPartition, java.util.TreeSet<Long>> doneAbove = new HashMap<>();

        static boolean on() {
            return arg("worker_pool", "false").equals("true");
        }

        static synchronized void take(TopicPartition p, long position) {
            frontier.put(p, position);
            doneAbove.put(p, new java.util.TreeSet<>());
        }

        static synchronized Long frontier(TopicPartition p) {
            return frontier.get(p);
        }

        static synchronized void forget(java.util.Collection<TopicPartition> ps) {
            for (TopicPartition p : ps) {
                frontier.remove(p);
                doneAbove.remove(p);
            }
        }

        static synchronized void done(TopicPartition p, long offset) {
            Long f = frontier.get(p);
            if (f == null || offset < f) return;
            java.util.TreeSet<Long> above = doneAbove.get(p);
            above.add(offset);
            while (above.remove(f)) f++;
            frontier.put(p, f);
        }

        static synchronized void batchDone() {
            inFlight--;
            Pool.class.notifyAll();
        }

        /** Waits while a batch is in flight, at most `budgetMs`. */
        static synchronized void drain(long budgetMs) {
            long deadline = System.nanoTime() + budgetMs * 1_000_000L;
            try {
                while (inFlight > 0) {
                    long left = (deadline - System.nanoTime()) / 1_000_000L;
                    if (left <= 0) return;
                    Pool.class.wait(left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        static synchronized void awaitRoom(int most) throws InterruptedException {
            while (inFlight >= most) Pool.class.wait();
        }

        static void loop(double procMs) {
            KafkaConsumer<String, String> consumer = GroupMember.consumer;
            int most = (int) num("pool_max_in_flight_batches", 3);
            workers = Executors.newFixedThreadPool((int) num("pool_threads", 1));
            while (true) {
                ConsumerRecords<String, String> records;
                try {
                    awaitRoom(most);
                    records = consumer.poll(Duration.ofMillis(1000));
                } catch (org.apache.kafka.common.errors.WakeupException
                         | org.apache.kafka.common.errors.InterruptException | InterruptedException e) {
                    return;
                }
                String at = GroupMember.t();
                if (records.isEmpty()) {
                    log("poll " + at + " - - 0");
                    continue;
                }
                for (TopicPartition tp : records.partitions()) {
                    List<ConsumerRecord<String, String>> rs = records.records(tp);
                    log("poll " + at + " " + tp.partition() + " " + rs.get(0).offset() + " " + rs.size());
                    synchronized (Pool.class) {
                        // No committed offset when it was assigned: it starts at the first record.
                        if (!frontier.containsKey(tp)) take(tp, rs.get(0).offset());
                        inFlight++;
                    }
                    workers.submit(() -> {
                        for (ConsumerRecord<String, String> r : rs) {
                            try {
                                Thread.sleep((long) procMs, (int) ((procMs - (long) procMs) * 1e6));
                            } catch (InterruptedException e) {
                                return;
                            }
                            log("done " + GroupMember.t() + " " + r.partition() + " " + r.offset());
                            done(tp, r.offset());
                        }
                        batchDone();
                    });
                }
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (TopicPartition p : consumer.assignment()) {
                    Long f = frontier(p);
                    if (f != null) offsets.put(p, new OffsetAndMetadata(f));
                }
                String sent = GroupMember.t();
                try {
                    consumer.commitSync(offsets);
                    CommitLog.explicitCommitLanded(offsets);
                    log("commit " + sent + " " + GroupMember.t() + " pool");
                } catch (org.apache.kafka.common.errors.WakeupException e) {
                    log("commit_woken " + sent + " " + GroupMember.t() + " pool");
                    return;
                } catch (RuntimeException e) {
                    log("commit_failed " + GroupMember.t() + " " + e.getClass().getSimpleName());
                }
            }
        }
    }

    /** Logs every successful commit the consumer makes (auto-commits included). */
    public static final class CommitLog implements org.apache.kafka.clients.consumer.ConsumerInterceptor<String, String> {
        @Override
        public ConsumerRecords<String, String> onConsume(ConsumerRecords<String, String> records) {
            return records;
        }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
            // kafka-clients 4.3.1's AsyncKafkaConsumer passes null for a commitSync(Map): its
            // callers log those commits themselves (explicitCommitLanded).
            if (offsets != null) logCommitted(offsets);
        }

        static void logCommitted(Map<TopicPartition, OffsetAndMetadata> offsets) {
            StringBuilder b = new StringBuilder("committed " + GroupMember.t());
            new java.util.TreeMap<Integer, Long>(offsets.entrySet().stream().collect(java.util.stream.Collectors.toMap(
                    e -> e.getKey().partition(), e -> e.getValue().offset())))
                    .forEach((p, o) -> b.append(' ').append(p).append(':').append(o));
            log(b.toString());
        }

        /** A commitSync(Map) returned: logged here when the interceptor was given null for it. */
        static void explicitCommitLanded(Map<TopicPartition, OffsetAndMetadata> offsets) {
            if (arg("group.protocol", "classic").equals("consumer")) logCommitted(offsets);
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }
}
