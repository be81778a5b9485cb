import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One share-group member for the conformance suite (share.py, docs/model.md §11): a
 * KafkaShareConsumer (kafka-clients 4.3.1) that polls, processes each record by sleeping
 * record_processing_ms, acknowledges (implicit: the next poll does it; explicit: ACCEPT, or
 * RELEASE / REJECT for the offsets that "throw") and logs every event on CLOCK_MONOTONIC in ms
 * since the case's epoch (epoch_ns, Python's time.monotonic_ns()):
 *
 *   start t                       the consumer is created and subscribed
 *   poll t n o:d o:d ...          a poll returned n records (offset:deliveryCount)
 *   done t offset                 a record was processed successfully (a completed run)
 *   fail t offset                 a record "threw" (it is in release= or reject=)
 *   ack t offset TYPE             explicit acknowledge(record, TYPE)
 *   ackcb t ok|error o o ...      AcknowledgementCommitCallback: acknowledgements that landed
 *   commit t0 t1                  commitSync() after the batch (strategy=commit_sync_batch)
 *   idle t                        the first poll that returned nothing after records
 *   hang t ms                     the loop stops polling (hang_after=N done + hang_delay_ms)
 *   renew t n o o ...             renew_every_ms: acknowledge(record, RENEW) for the batch's n records
 *                                 not yet acknowledged, then polls send them (model.md §11.3)
 *   renewpoll t n o o ...         those polls returned the n renewed records again
 *
 * The driver kills it (SIGKILL) or creates its stop file: it then exits without close() (implicit close() would release the last batch, model.md §11.4).
 * Arguments: key=value.
 */
public class ShareConformanceConsumer {
    static long epochNs;
    static PrintWriter log;

    static synchronized void log(String s) {
        log.println(s);
        log.flush();
    }

    static String now() {
        return String.format("%.1f", (System.nanoTime() - epochNs) / 1e6);
    }

    static Set<Long> offsets(String s) {
        Set<Long> out = new HashSet<>();
        if (s != null && !s.isEmpty()) {
            for (String p : s.split(",")) out.add(Long.parseLong(p.trim()));
        }
        return out;
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String kv : argv) {
            int i = kv.indexOf('=');
            a.put(kv.substring(0, i), kv.substring(i + 1));
        }
        epochNs = Long.parseLong(a.get("epoch_ns"));
        log = new PrintWriter(new FileWriter(a.get("log"), true));
        String topic = a.get("topic");
        String group = a.get("group");
        boolean explicit = "explicit".equals(a.getOrDefault("share.acknowledgement.mode", "implicit"));
        long processMs = Long.parseLong(a.getOrDefault("record_processing_ms", "200"));
        Set<Long> release = offsets(a.get("release"));
        Set<Long> reject = offsets(a.get("reject"));
        boolean commitSync = "commit_sync_batch".equals(a.getOrDefault("strategy", "auto_commit"));
        int hangAfter = Integer.parseInt(a.getOrDefault("hang_after", "0"));
        long hangDelayMs = Long.parseLong(a.getOrDefault("hang_delay_ms", "0"));
        long hangMs = Long.parseLong(a.getOrDefault("hang_ms", "0"));
        long renewMs = Long.parseLong(a.getOrDefault("renew_every_ms", "0"));
        java.io.File stopFile = new java.io.File(a.get("stop_file"));

        Properties p = new Properties();
        p.put("bootstrap.servers", a.get("bootstrap"));
        p.put("group.id", group);
        p.put("client.id", a.getOrDefault("client_id", "share-consumer"));
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        p.put("max.poll.records", a.getOrDefault("max.poll.records", "5"));
        // docs/model.md §11.2: the model's default acquisition is record_limit (at most
        // max.poll.records a fetch); a case may ask for Kafka's default, batch_optimized.
        p.put("share.acquire.mode", a.getOrDefault("share.acquire.mode", "record_limit"));
        p.put("share.acknowledgement.mode", explicit ? "explicit" : "implicit");
        // docs/model.md §11.2: sent as the ShareFetch's MaxBytes (Kafka's default 50 MiB).
        p.put("fetch.max.bytes", a.getOrDefault("fetch.max.bytes", "52428800"));

        KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p);
        c.setAcknowledgementCommitCallback((offs, ex) -> {
            StringBuilder sb = new StringBuilder("ackcb " + now() + (ex == null ? " ok" : " error:" + ex.getClass().getSimpleName()));
            offs.values().forEach(set -> set.stream().sorted().forEach(o -> sb.append(' ').append(o)));
            log(sb.toString());
        });
        c.subscribe(List.of(topic));
        log("start " + now());
        int done = 0;
        boolean hung = false;
        boolean idle = false;
        while (!stopFile.exists()) {
            ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(100));
            if (recs.isEmpty()) {
                if (!idle) log("idle " + now());
                idle = true;
                continue;
            }
            idle = false;
            StringBuilder sb = new StringBuilder("poll " + now() + " " + recs.count());
            List<ConsumerRecord<String, String>> list = new ArrayList<>();
            for (ConsumerRecord<String, String> r : recs) {
                list.add(r);
                sb.append(' ').append(r.offset()).append(':').append(r.deliveryCount().orElse((short) -1));
            }
            log(sb.toString());
            // renew_every_ms: every renewMs from this poll while the batch is in hand, the loop
            // renews the records not yet acknowledged and polls (KafkaShareConsumer's documented
            // renewal loop, with the processing as sleeps between those polls).
            long nextRenewNs = System.nanoTime() + renewMs * 1_000_000L;
            for (int i = 0; i < list.size(); i++) {
                ConsumerRecord<String, String> r = list.get(i);
                long t0 = System.nanoTime();
                while (renewMs > 0 && explicit && nextRenewNs < t0 + processMs * 1_000_000L) {
                    sleepUntil(nextRenewNs);
                    StringBuilder rb = new StringBuilder(" " + (list.size() - i));
                    for (ConsumerRecord<String, String> rr : list.subList(i, list.size())) {
                        c.acknowledge(rr, AcknowledgeType.RENEW);
                        rb.append(' ').append(rr.offset());
                    }
                    log("renew " + now() + rb);
                    // The renewed records are acknowledged again only once a poll has returned them
                    // ("The record cannot be acknowledged" before): poll until they come back.
                    // From then on the application acknowledges the records that poll returned.
                    Map<Long, ConsumerRecord<String, String>> back = new HashMap<>();
                    long giveUp = System.nanoTime() + 5_000_000_000L;
                    while (back.size() < list.size() - i && System.nanoTime() < giveUp) {
                        for (ConsumerRecord<String, String> rr : c.poll(Duration.ofMillis(20))) back.put(rr.offset(), rr);
                    }
                    StringBuilder ab = new StringBuilder("renewpoll " + now() + " " + back.size());
                    for (int k = i; k < list.size(); k++) {
                        ConsumerRecord<String, String> rr = back.get(list.get(k).offset());
                        if (rr != null) {
                            list.set(k, rr);
                            ab.append(' ').append(rr.offset()).append(':').append(rr.deliveryCount().orElse((short) -1));
                        }
                    }
                    log(ab.toString());
                    r = list.get(i);
                    nextRenewNs += renewMs * 1_000_000L;
                }
                if (!hung && hangAfter > 0 && done == hangAfter) {
                    // The hang: hang_delay_ms into the record after the hang_after-th, the loop stops
                    // for hang_ms (its records stay acquired until their locks expire), then
                    // finishes the record and goes on.
                    sleepUntil(t0 + hangDelayMs * 1_000_000L);
                    hung = true;
                    log("hang " + now() + " " + hangMs);
                    Thread.sleep(hangMs);
                    log("wake " + now());
                }
                sleepUntil(t0 + processMs * 1_000_000L);
                boolean fails = release.contains(r.offset()) || reject.contains(r.offset());
                if (fails) {
                    log("fail " + now() + " " + r.offset());
                } else {
                    done++;
                    log("done " + now() + " " + r.offset());
                }
                if (explicit) {
                    AcknowledgeType t = !fails ? AcknowledgeType.ACCEPT
                            : release.contains(r.offset()) ? AcknowledgeType.RELEASE : AcknowledgeType.REJECT;
                    c.acknowledge(r, t);
                    log("ack " + now() + " " + r.offset() + " " + t);
                }
            }
            if (commitSync) {
                String s = now();
                c.commitSync();
                log("commit " + s + " " + now());
            }
        }
        // Stopped by the driver: exit without close().
        log("exit " + now());
        log.close();
        Runtime.getRuntime().halt(0);
    }

    static void sleepUntil(long deadlineNs) throws InterruptedException {
        long left;
        while ((left = deadlineNs - System.nanoTime()) > 0) {
            Thread.sleep(left / 1_000_000L, (int) (left % 1_000_000L));
        }
    }
}
