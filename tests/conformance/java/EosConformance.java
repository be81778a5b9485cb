import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The Java side of the exactly-once pipeline cases (eos.py, issue 32): kafka-clients and
 * kafka-streams 4.3.1. Every line is logged on CLOCK_MONOTONIC in ms since the case's epoch
 * (epoch_ns, Python's time.monotonic_ns()); the scenario's t = 0 is the go file's value.
 *
 * mode=input  the input producer (idempotent, not transactional): record i of partition p, value
 *   "p:i", at t = i * 1000 / rate_per_s on the scenario clock, for every partition (the topic is new,
 *   so record i sits at offset i: the value is the input's partition:offset). Logs
 *     ready t | go t go_ms | end t n (every record acknowledged)
 *
 * mode=ctp  one instance of the consume-transform-produce service: a KafkaConsumer (classic
 *   protocol, CooperativeStickyAssignor, isolation.level=read_committed, enable.auto.commit=false)
 *   and a transactional KafkaProducer (transactional.id = txn_id). initTransactions() first, then
 *   the loop: poll(100 ms); each record: beginTransaction() if none is open, sleep
 *   record_processing_ms, send one output (same partition of the output topic, value = the input
 *   value); once the open transaction is commit.interval.ms old (commit_rule=transaction_age, checked
 *   after every record and every poll) or holds commit_records records (transaction_records,
 *   checked after every record; or a poll returned nothing and it is commit.interval.ms old): flush(),
 *   sendOffsetsToTransaction(next offsets, consumer.groupMetadata()), commitTransaction(). onPartitionsRevoked commits the open transaction first. A failed commit
 *   (KafkaException) aborts and seeks back to the committed offsets. With die_at_ms (the
 *   scenario's crash instant), the first transaction whose commit comes at or after it stops after
 *   sendOffsetsToTransaction() returned (outputs acknowledged, offsets pending in the group:
 *   mid-transaction), logs `dying` and waits for the driver's SIGKILL; with die_point=before_offsets
 *   it stops after flush(), before sendOffsetsToTransaction (outputs only, no offsets pending). Logs
 *     init t0 t1                  initTransactions() called, returned
 *     assigned t p,p | revoked t p,p
 *     begin t k                   beginTransaction() of this process's transaction k
 *     proc t k p o                record p:o processed, its output sent in transaction k
 *     offsets t k p=o,p=o         sendOffsetsToTransaction returned (TxnOffsetCommit done)
 *     commit t0 t1 k | abort t k exception message
 *     dying t k                   waits for SIGKILL
 *
 * mode=streams  one Kafka Streams instance: source(input) -> mapValues -> sink(output, the input's
 *   partition: a StreamPartitioner reads it from the value), one stream
 *   thread, its own state.dir, processing.guarantee from the scenario; the consumer's session.timeout
 *   and max.poll.records from the scenario. The mapValues step sleeps record_processing_ms and logs
 *   `proc t -1 p o` (the value is "p:o"); with die_at_ms the first record processed at or after it
 *   logs `dying t -1` and blocks the stream thread (no commit can follow) until the SIGKILL. Logs
 *   `assigned t p,p` at each RUNNING state (its active tasks' input partitions).
 *
 * mode=read  a downstream reader: assign() every partition of the output topic from the beginning
 *   (no group), isolation.level from the scenario; logs `rec t p o value` for each record and
 *   `pos t p=o,p=o` when its positions change (the log end under read_uncommitted, the last stable
 *   offset under read_committed).
 *
 * mode=committed  the service group's committed offsets on the input topic (Admin
 *   listConsumerGroupOffsets), `committed t read p=o,p=o`; with trigger_file, connected first
 *   (`ready`), then read once the driver writes it.
 *
 * Arguments: key=value.
 */
public class EosConformance {
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

    static Map<String, String> a = new HashMap<>();

    public static void main(String[] argv) throws Exception {
        for (String kv : argv) {
            int i = kv.indexOf('=');
            a.put(kv.substring(0, i), kv.substring(i + 1));
        }
        epochNs = Long.parseLong(a.getOrDefault("epoch_ns", Long.toString(System.nanoTime())));
        log = new PrintWriter(new FileWriter(a.get("log"), true));
        switch (a.get("mode")) {
            case "input": input(); break;
            case "ctp": ctp(); break;
            case "streams": streams(); break;
            case "read": read(); break;
            case "committed": committed(); break;
            default: throw new IllegalArgumentException("mode " + a.get("mode"));
        }
        log.flush();
        Runtime.getRuntime().halt(0);
    }

    static double waitFile(String file) throws IOException, InterruptedException {
        Path p = Path.of(file);
        while (true) {
            if (Files.exists(p)) {
                String s = Files.readString(p).trim();
                if (s.endsWith(".")) return Double.parseDouble(s.substring(0, s.length() - 1));
            }
            Thread.sleep(2);
        }
    }

    static String parts(Collection<TopicPartition> tps) {
        TreeSet<Integer> s = new TreeSet<>();
        for (TopicPartition tp : tps) s.add(tp.partition());
        StringBuilder sb = new StringBuilder();
        for (int p : s) sb.append(sb.length() == 0 ? "" : ",").append(p);
        return sb.length() == 0 ? "-" : sb.toString();
    }

    static void input() throws Exception {
        String topic = a.get("topic");
        int partitions = Integer.parseInt(a.get("partitions"));
        int n = Integer.parseInt(a.get("records_per_partition"));
        double rate = Double.parseDouble(a.get("rate_per_s"));
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"));
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        KafkaProducer<String, String> producer = new KafkaProducer<>(pp);
        producer.partitionsFor(topic);
        log("ready " + now());
        double go = waitFile(a.get("go_file"));
        log("go " + now() + " " + go);
        List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            sleepUntil(go + i * 1000.0 / rate);
            for (int p = 0; p < partitions; p++)
                sent.add(producer.send(new ProducerRecord<>(topic, p, null, p + ":" + i)));
        }
        for (var f : sent) f.get();
        log("end " + now() + " " + sent.size());
        producer.close(Duration.ofSeconds(10));
    }

    static void ctp() throws Exception {
        String in = a.get("topic"), out = a.get("out_topic");
        long interval = Long.parseLong(a.get("commit.interval.ms"));
        // commit_rule transaction_age: commit once the open transaction is commit.interval.ms old;
        // transaction_records: once it holds commit_records records, or after an empty poll.
        final boolean byRecords = a.getOrDefault("commit_rule", "transaction_age").equals("transaction_records");
        final long commitRecords = Long.parseLong(a.getOrDefault("commit_records", "1"));
        long procMs = Long.parseLong(a.getOrDefault("record_processing_ms", "0"));
        final double[] dieAt = {Double.parseDouble(a.getOrDefault("die_at_ms", "-1"))};
        Path stop = Path.of(a.get("stop_file"));
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"));
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, a.get("group"));
        cp.put(ConsumerConfig.CLIENT_ID_CONFIG, a.get("client_id"));
        cp.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        cp.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, a.get("max.poll.records"));
        cp.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, a.get("session.timeout.ms"));
        cp.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, a.get("heartbeat.interval.ms"));
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"));
        pp.put(ProducerConfig.CLIENT_ID_CONFIG, a.get("client_id") + "-producer");
        pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, a.get("txn_id"));
        pp.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, a.get("transaction.timeout.ms"));
        pp.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        KafkaProducer<String, String> producer = new KafkaProducer<>(pp);
        String t0 = now();
        producer.initTransactions();
        log("init " + t0 + " " + now());
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp);
        Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();
        // [open, k, beganAt, records]
        final double[] txn = {0, -1, 0, 0};
        // die_point: after_offsets (the default: between sendOffsetsToTransaction and
        // commitTransaction, the offsets pending in the group) or before_offsets (outputs only).
        final boolean dieBeforeOffsets = a.getOrDefault("die_point", "after_offsets").equals("before_offsets");
        Runnable commit = () -> {
            producer.flush();
            if (dieBeforeOffsets && dieAt[0] >= 0 && nowMs() >= dieAt[0]) {
                log("dying " + now() + " " + (long) txn[1]);
                try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }
            }
            producer.sendOffsetsToTransaction(pending, consumer.groupMetadata());
            StringBuilder sb = new StringBuilder();
            for (var e : pending.entrySet())
                sb.append(sb.length() == 0 ? "" : ",").append(e.getKey().partition()).append("=").append(e.getValue().offset());
            log("offsets " + now() + " " + (long) txn[1] + " " + sb);
            if (dieAt[0] >= 0 && nowMs() >= dieAt[0]) {
                log("dying " + now() + " " + (long) txn[1]);
                try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }
            }
            String c0 = now();
            producer.commitTransaction();
            log("commit " + c0 + " " + now() + " " + (long) txn[1]);
            txn[0] = 0;
            txn[3] = 0;
            pending.clear();
        };
        consumer.subscribe(List.of(in), new ConsumerRebalanceListener() {
            public void onPartitionsRevoked(Collection<TopicPartition> tps) {
                if (txn[0] == 1) commit.run();
                log("revoked " + now() + " " + parts(tps));
            }
            public void onPartitionsAssigned(Collection<TopicPartition> tps) {
                log("assigned " + now() + " " + parts(consumer.assignment()));
            }
        });
        // Join before t = 0 (the driver waits for every instance's assignment); no input exists yet.
        while (!Files.exists(Path.of(a.get("go_file")))) {
            ConsumerRecords<String, String> early = consumer.poll(Duration.ofMillis(50));
            if (early.count() > 0) throw new IllegalStateException("records before t = 0");
        }
        double go = waitFile(a.get("go_file"));
        dieAt[0] = dieAt[0] < 0 ? -1 : go + dieAt[0];
        log("go " + now() + " " + go);
        while (!Files.exists(stop)) {
            try {
                ConsumerRecords<String, String> recs = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<String, String> r : recs) {
                    if (txn[0] == 0) {
                        producer.beginTransaction();
                        txn[0] = 1;
                        txn[1] += 1;
                        txn[2] = nowMs();
                        log("begin " + now() + " " + (long) txn[1]);
                    }
                    if (procMs > 0) Thread.sleep(procMs);
                    producer.send(new ProducerRecord<>(out, r.partition(), null, r.value()));
                    pending.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                    log("proc " + now() + " " + (long) txn[1] + " " + r.partition() + " " + r.offset());
                    txn[3] += 1;
                    if (byRecords ? txn[3] >= commitRecords : nowMs() - txn[2] >= interval) commit.run();
                }
                if (txn[0] == 1 && (!byRecords || recs.isEmpty()) && nowMs() - txn[2] >= interval) commit.run();
            } catch (ProducerFencedException e) {
                log("fenced " + now() + " " + e);
                break;
            } catch (KafkaException e) {
                log("abort " + now() + " " + (long) txn[1] + " " + e.getClass().getSimpleName() + " "
                        + String.valueOf(e.getMessage()).replaceAll("\\s+", " "));
                if (txn[0] == 1) producer.abortTransaction();
                txn[0] = 0;
                txn[3] = 0;
                pending.clear();
                for (var e2 : consumer.committed(consumer.assignment()).entrySet()) {
                    if (e2.getValue() != null) consumer.seek(e2.getKey(), e2.getValue().offset());
                    else consumer.seekToBeginning(List.of(e2.getKey()));
                }
            }
        }
        log("stop " + now());
    }

    static void streams() throws Exception {
        double dieAt = Double.parseDouble(a.getOrDefault("die_at_ms", "-1"));
        long procMs = Long.parseLong(a.getOrDefault("record_processing_ms", "0"));
        Path stop = Path.of(a.get("stop_file"));
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, a.get("group"));
        p.put(StreamsConfig.CLIENT_ID_CONFIG, a.get("client_id"));
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"));
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, a.get("processing.guarantee"));
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.STATE_DIR_CONFIG, a.get("state_dir"));
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, a.get("commit.interval.ms"));
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), a.get("session.timeout.ms"));
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), a.get("heartbeat.interval.ms"));
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), a.get("max.poll.records"));
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        if (a.containsKey("transaction.timeout.ms"))
            p.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), a.get("transaction.timeout.ms"));
        final double[] die = {dieAt};
        final double[] goAt = {Double.NaN};
        StreamsBuilder b = new StreamsBuilder();
        b.stream(a.get("topic"), Consumed.with(Serdes.String(), Serdes.String()))
                .mapValues(v -> {
                    try {
                        if (procMs > 0) Thread.sleep(procMs);
                        String[] po = v.split(":");
                        log("proc " + now() + " -1 " + po[0] + " " + po[1]);
                        if (die[0] >= 0 && !Double.isNaN(goAt[0]) && nowMs() >= goAt[0] + die[0]) {
                            // After this record's output would be handed to the producer: block the
                            // stream thread here (no commit can come) until the SIGKILL.
                            log("dying " + now() + " -1");
                            Thread.sleep(Long.MAX_VALUE);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return v;
                })
                // The output on the input's partition (the value is "p:o"), as the CTP service sends it.
                .to(a.get("out_topic"), Produced.with(Serdes.String(), Serdes.String()).withStreamPartitioner(
                        (topic, key, value, n) -> java.util.Optional.of(Set.of(Integer.parseInt(value.split(":")[0])))));
        KafkaStreams ks = new KafkaStreams(b.build(), p);
        ks.setStateListener((newState, oldState) -> {
            if (newState == KafkaStreams.State.RUNNING) {
                List<TopicPartition> tps = new ArrayList<>();
                for (ThreadMetadata tm : ks.metadataForLocalThreads())
                    for (TaskMetadata task : tm.activeTasks()) tps.addAll(task.topicPartitions());
                log("assigned " + now() + " " + parts(tps));
            } else {
                log("state " + now() + " " + newState);
            }
        });
        log("init " + now() + " " + now());
        ks.start();
        goAt[0] = waitFile(a.get("go_file"));
        log("go " + now() + " " + goAt[0]);
        while (!Files.exists(stop)) Thread.sleep(20);
        log("stop " + now());
    }

    static void read() throws Exception {
        String topic = a.get("topic");
        int partitions = Integer.parseInt(a.get("partitions"));
        Path stop = Path.of(a.get("stop_file"));
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"));
        cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, a.get("isolation"));
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp);
        List<TopicPartition> tps = new ArrayList<>();
        for (int i = 0; i < partitions; i++) tps.add(new TopicPartition(topic, i));
        consumer.assign(tps);
        consumer.seekToBeginning(tps);
        for (TopicPartition tp : tps) consumer.position(tp);
        log("ready " + now());
        String last = "";
        while (!Files.exists(stop)) {
            ConsumerRecords<String, String> recs = consumer.poll(Duration.ofMillis(100));
            for (ConsumerRecord<String, String> r : recs)
                log("rec " + now() + " " + r.partition() + " " + r.offset() + " " + r.value());
            StringBuilder sb = new StringBuilder();
            for (TopicPartition tp : tps) sb.append(sb.length() == 0 ? "" : ",").append(tp.partition()).append("=").append(consumer.position(tp));
            if (!sb.toString().equals(last)) log("pos " + now() + " " + sb);
            last = sb.toString();
        }
        log("stop " + now());
    }

    static void committed() throws Exception {
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"));
        int reads = Integer.parseInt(a.getOrDefault("reads", "1"));
        long gap = Long.parseLong(a.getOrDefault("read_gap_ms", "1000"));
        try (Admin admin = Admin.create(ap)) {
            if (a.containsKey("trigger_file")) {
                admin.listConsumerGroupOffsets(a.get("group")).partitionsToOffsetAndMetadata().get();
                log("ready " + now());
                waitFile(a.get("trigger_file"));
            }
            for (int r = 0; r < reads; r++) {
                if (r > 0) Thread.sleep(gap);
                Map<TopicPartition, OffsetAndMetadata> m =
                        admin.listConsumerGroupOffsets(a.get("group")).partitionsToOffsetAndMetadata().get();
                StringBuilder sb = new StringBuilder();
                for (var e : new java.util.TreeMap<Integer, Long>() {{
                    for (var x : m.entrySet()) if (x.getKey().topic().equals(a.get("topic")) && x.getValue() != null)
                        put(x.getKey().partition(), x.getValue().offset());
                }}.entrySet())
                    sb.append(sb.length() == 0 ? "" : ",").append(e.getKey()).append("=").append(e.getValue());
                log("committed " + now() + " " + r + " " + (sb.length() == 0 ? "-" : sb));
            }
        }
    }
}
