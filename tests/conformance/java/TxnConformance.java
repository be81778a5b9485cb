import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Java side of the "transactions in the log" cases (txn.py, issue 31), kafka-clients 4.3.1.
 * One program, three roles (mode=...); every line is logged on CLOCK_MONOTONIC in ms since the
 * case's epoch (epoch_ns, Python's time.monotonic_ns()), so producers, readers and the driver
 * share one clock.
 *
 * mode=produce  one producer of the scenario. Transactional (txn_id set): initTransactions() and a
 *   warm-up transaction on warm_topic (the first transaction costs more, ORACLE.md) before `ready`;
 *   plain: a metadata fetch before `ready`. Then it waits for the driver's go file (the scenario's
 *   t = 0 in ms since the epoch) and plays its plan on the scenario's clock:
 *     transactions=begin:records:interval:end[:end_ms];...   end = commit | abort | producer_dies
 *     records_at_ms=1500,3500                                a plain (non-transactional) producer
 *   It logs
 *     ready t | go t go_ms
 *     begin t k                      beginTransaction() of transaction k (0-based)
 *     send t k i                     send() of record i of transaction k (plain: k = -1)
 *     ack t k i offset               its acknowledgement (the broker appended it at offset)
 *     commit t0 t1 k | abort t0 t1 k commitTransaction() / abortTransaction() called, returned
 *     dying t k                      every record of k acknowledged; it now waits to be SIGKILLed
 *     end t                          the plan is done (then it exits)
 *
 * mode=read  one reader (a classic-protocol consumer of its own group, auto-commit off):
 *   isolation=read_committed|read_uncommitted, commit=position (commitSync() of the position after
 *   every poll that moved it) | last_record_plus_one (commitSync(last record + 1) after every poll
 *   that returned records: Spring's container) | none. Polls poll(poll_interval_ms) until its stop
 *   file appears, then halts without close(). Logs
 *     assigned t position p          its assignment came and its starting position
 *     poll t n pos p o o ...         a poll that returned records or moved the position
 *     commit t0 t1 offset            commitSync() returned
 *
 * mode=describe  what `kafka-consumer-groups.sh --describe` shows (kafka-tools OffsetsUtils.
 *   getLogEndOffsets: Admin listOffsets(latest) with default ListOffsetsOptions, read_uncommitted:
 *   the high watermark; LAG = log end − committed): for each group of groups=a,b,...
 *     offsets t read log_end lso              (lso: listOffsets(latest) with read_committed)
 *     describe t read group committed lag     (none: no committed offset)
 *   `reads` times, read_gap_ms apart; with trigger_file, connected first (`ready`), then once the
 *   driver writes that file (as the go file).
 *
 * mode=share_ready  waits until each share group of groups=a,b,... has a member with a partition
 *   assigned (Admin describeShareGroups): `share_assigned t group` for each (a share consumer has no
 *   assignment callback; the driver's t = 0 comes after these lines).
 *
 * Arguments: key=value.
 */
public class TxnConformance {
    static long epochNs;
    static PrintWriter log;

    static synchronized void log(String s) {
        log.println(s);
        log.flush();
    }

    static double nowMs() {
        return (System.nanoTime() - epochNs) / 1e6;
    }

    static String now() {
        return String.format("%.1f", nowMs());
    }

    static void sleepUntil(double tMs) throws InterruptedException {
        double d = tMs - nowMs();
        if (d > 0) Thread.sleep((long) Math.ceil(d));
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String kv : argv) {
            int i = kv.indexOf('=');
            a.put(kv.substring(0, i), kv.substring(i + 1));
        }
        epochNs = Long.parseLong(a.getOrDefault("epoch_ns", Long.toString(System.nanoTime())));
        if (a.containsKey("log")) log = new PrintWriter(new FileWriter(a.get("log"), true));
        else log = new PrintWriter(System.out, true);
        switch (a.get("mode")) {
            case "produce": produce(a); break;
            case "read": read(a); break;
            case "describe": describe(a); break;
            case "share_ready": shareReady(a); break;
            default: throw new IllegalArgumentException("mode " + a.get("mode"));
        }
        log.flush();
        Runtime.getRuntime().halt(0);
    }

    static double waitGo(String goFile) throws IOException, InterruptedException {
        Path p = Path.of(goFile);
        while (true) {
            if (Files.exists(p)) {
                String s = Files.readString(p).trim();
                if (s.endsWith(".")) return Double.parseDouble(s.substring(0, s.length() - 1));
            }
            Thread.sleep(2);
        }
    }

    static void produce(Map<String, String> a) throws Exception {
        String topic = a.get("topic");
        String txnId = a.getOrDefault("txn_id", "");
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"));
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        if (!txnId.isEmpty()) {
            pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
            pp.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, a.getOrDefault("transaction.timeout.ms", "60000"));
        }
        KafkaProducer<String, String> producer = new KafkaProducer<>(pp);
        producer.partitionsFor(topic);
        if (!txnId.isEmpty()) {
            producer.initTransactions();
            // Warm-up on another topic: coordinator lookup, the first AddPartitions, class loading.
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(a.get("warm_topic"), "warm")).get();
            producer.commitTransaction();
        }
        log("ready " + now());
        double go = waitGo(a.get("go_file"));
        log("go " + now() + " " + go);
        String label = txnId.isEmpty() ? "plain" : txnId;
        if (txnId.isEmpty()) {
            String[] at = a.getOrDefault("records_at_ms", "").split(",");
            for (int i = 0; i < at.length; i++) {
                if (at[i].isEmpty()) continue;
                sleepUntil(go + Double.parseDouble(at[i]));
                log("send " + now() + " -1 " + i);
                RecordMetadata md = producer.send(new ProducerRecord<>(topic, label + ":" + i)).get();
                log("ack " + now() + " -1 " + i + " " + md.offset());
            }
        } else {
            String[] txns = a.getOrDefault("transactions", "").split(";");
            for (int k = 0; k < txns.length; k++) {
                String[] f = txns[k].split(":");
                double begin = Double.parseDouble(f[0]);
                int records = Integer.parseInt(f[1]);
                double interval = Double.parseDouble(f[2]);
                String end = f[3];
                sleepUntil(go + begin);
                producer.beginTransaction();
                log("begin " + now() + " " + k);
                List<Future<RecordMetadata>> sent = new ArrayList<>();
                for (int i = 0; i < records; i++) {
                    sleepUntil(go + begin + i * interval);
                    final int kk = k, ii = i;
                    log("send " + now() + " " + k + " " + i);
                    sent.add(producer.send(new ProducerRecord<>(topic, label + ":" + k + ":" + i), (md, e) -> {
                        if (e == null) log("ack " + now() + " " + kk + " " + ii + " " + md.offset());
                        else log("error " + now() + " " + kk + " " + ii + " " + e);
                    }));
                }
                for (Future<RecordMetadata> s : sent) s.get();
                if (end.equals("producer_dies")) {
                    log("dying " + now() + " " + k);
                    Thread.sleep(Long.MAX_VALUE);
                }
                if (f.length > 4) sleepUntil(go + Double.parseDouble(f[4]));
                String t0 = now();
                if (end.equals("commit")) producer.commitTransaction();
                else producer.abortTransaction();
                log(end + " " + t0 + " " + now() + " " + k);
            }
        }
        log("end " + now());
        producer.close(Duration.ofSeconds(10));
    }

    static void read(Map<String, String> a) throws Exception {
        String topic = a.get("topic");
        String commit = a.getOrDefault("commit", "position");
        long pollMs = Long.parseLong(a.getOrDefault("poll_interval_ms", "100"));
        Path stop = Path.of(a.get("stop_file"));
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"));
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, a.get("group"));
        cp.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, a.getOrDefault("isolation", "read_committed"));
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp);
        TopicPartition tp = new TopicPartition(topic, 0);
        consumer.subscribe(Collections.singletonList(topic));
        long position = -1, committed = -1;
        while (!Files.exists(stop)) {
            ConsumerRecords<String, String> recs = consumer.poll(Duration.ofMillis(pollMs));
            if (!consumer.assignment().contains(tp)) continue;
            long pos = consumer.position(tp);
            if (position < 0) {
                // Nothing is committed at the assignment (a new group): commit only what polls move.
                log("assigned " + now() + " position " + pos);
                committed = pos;
            }
            if (recs.count() > 0 || pos != position) {
                StringBuilder sb = new StringBuilder("poll " + now() + " " + recs.count() + " pos " + pos);
                for (ConsumerRecord<String, String> r : recs) sb.append(" ").append(r.offset());
                log(sb.toString());
            }
            position = pos;
            if (commit.equals("position") && pos != committed) {
                String t0 = now();
                consumer.commitSync();
                committed = pos;
                log("commit " + t0 + " " + now() + " " + pos);
            } else if (commit.equals("last_record_plus_one") && recs.count() > 0) {
                ConsumerRecord<String, String> last = null;
                for (ConsumerRecord<String, String> r : recs) last = r;
                String t0 = now();
                consumer.commitSync(Map.of(tp, new OffsetAndMetadata(last.offset() + 1)));
                log("commit " + t0 + " " + now() + " " + (last.offset() + 1));
            }
        }
        log("stop " + now());
    }

    static void shareReady(Map<String, String> a) throws Exception {
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"));
        List<String> left = new ArrayList<>(List.of(a.get("groups").split(",")));
        try (Admin admin = Admin.create(ap)) {
            while (!left.isEmpty()) {
                for (var e : admin.describeShareGroups(new ArrayList<>(left)).all().get().entrySet()) {
                    boolean assigned = e.getValue().members().stream()
                            .anyMatch(m -> !m.assignment().topicPartitions().isEmpty());
                    if (assigned) {
                        log("share_assigned " + now() + " " + e.getKey());
                        left.remove(e.getKey());
                    }
                }
                Thread.sleep(50);
            }
        }
    }

    static void describe(Map<String, String> a) throws Exception {
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"));
        TopicPartition tp = new TopicPartition(a.get("topic"), 0);
        int reads = Integer.parseInt(a.getOrDefault("reads", "2"));
        long gap = Long.parseLong(a.getOrDefault("read_gap_ms", "1000"));
        try (Admin admin = Admin.create(ap)) {
            if (a.containsKey("trigger_file")) {
                // A read at an instant of the driver's choosing: connected and warm before `ready`.
                admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get();
                log("ready " + now());
                waitGo(a.get("trigger_file"));
            }
            for (int r = 0; r < reads; r++) {
                if (r > 0) Thread.sleep(gap);
                long end = admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions())
                        .partitionResult(tp).get().offset();
                long lso = admin.listOffsets(Map.of(tp, OffsetSpec.latest()),
                        new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).partitionResult(tp).get().offset();
                log("offsets " + now() + " " + r + " " + end + " " + lso);
                for (String g : a.get("groups").split(",")) {
                    if (g.isEmpty()) continue;
                    OffsetAndMetadata om = admin.listConsumerGroupOffsets(g).partitionsToOffsetAndMetadata()
                            .get().get(tp);
                    String c = om == null ? "none" : Long.toString(om.offset());
                    String lag = om == null ? "none" : Long.toString(end - om.offset());
                    log("describe " + now() + " " + r + " " + g + " " + c + " " + lag);
                }
            }
        }
    }
}
