import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;

/**
 * A probe of one coordinator rule (model.md §10.5, `commit_revoked_partitions`; run.py's
 * "probe" cases): consumer-1 holds both partitions of a new topic, consumer-2 joins and takes
 * partition 1, consumer-2 commits 30 there, then consumer-1 commits 10 for partition 1, which it
 * no longer owns. Prints whether that commit was accepted and the committed offset after it.
 * Then a transactional producer commits offsets with consumer-1's group metadata from before
 * the rebalance (a zombie's TxnOffsetCommit, its old generation / member epoch): 11 for
 * partition 1, which moved, and 7 for partition 0, which consumer-1 kept.
 * Usage: RevokedPartitionCommit BOOTSTRAP classic|consumer TOPIC GROUP
 */
public final class RevokedPartitionCommit {
    static KafkaConsumer<String, String> consumer(String bootstrap, String group, String protocol, String id) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", group);
        p.put("client.id", id);
        p.put("group.protocol", protocol);
        if (protocol.equals("classic")) p.put("partition.assignment.strategy", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
        p.put("enable.auto.commit", "false");
        p.put("auto.offset.reset", "earliest");
        p.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        p.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        return new KafkaConsumer<>(p);
    }

    static String parts(Set<TopicPartition> ps) {
        return ps.stream().map(p -> Integer.toString(p.partition())).sorted().reduce((x, y) -> x + "," + y).orElse("-");
    }

    static long committed(Admin admin, String group, TopicPartition p) throws Exception {
        OffsetAndMetadata o = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().get(p);
        return o == null ? -1 : o.offset();
    }

    /** One transaction that only commits `offsets` with `metadata`: "accepted", or the error. */
    static String zombieCommit(KafkaProducer<String, String> producer, Map<TopicPartition, OffsetAndMetadata> offsets,
                               ConsumerGroupMetadata metadata) {
        producer.beginTransaction();
        try {
            producer.sendOffsetsToTransaction(offsets, metadata);
            producer.commitTransaction();
            return "accepted";
        } catch (Exception e) {
            producer.abortTransaction();
            return e.getClass().getSimpleName();
        }
    }

    public static void main(String[] a) throws Exception {
        String bootstrap = a[0], protocol = a[1], topic = a[2], group = a[3];
        Properties ap = new Properties();
        ap.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(ap)) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
            TopicPartition p0 = new TopicPartition(topic, 0), p1 = new TopicPartition(topic, 1);
            KafkaConsumer<String, String> c1 = consumer(bootstrap, group, protocol, "consumer-1");
            KafkaConsumer<String, String> c2 = consumer(bootstrap, group, protocol, "consumer-2");
            c1.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 60000;
            while (c1.assignment().size() < 2 && System.currentTimeMillis() < deadline) c1.poll(Duration.ofMillis(100));
            c1.commitSync(Map.of(p1, new OffsetAndMetadata(5)));
            ConsumerGroupMetadata before = c1.groupMetadata();
            c2.subscribe(List.of(topic));
            deadline = System.currentTimeMillis() + 60000;
            while (!(c1.assignment().equals(Set.of(p0)) && c2.assignment().equals(Set.of(p1)))
                   && System.currentTimeMillis() < deadline) {
                c1.poll(Duration.ofMillis(100));
                c2.poll(Duration.ofMillis(100));
            }
            // More polls, so that both have completed the round (acknowledged it under KIP-848).
            for (int i = 0; i < 30; i++) {
                c1.poll(Duration.ofMillis(100));
                c2.poll(Duration.ofMillis(100));
            }
            System.out.println("assignment consumer-1 " + parts(c1.assignment()) + " consumer-2 " + parts(c2.assignment()));
            c2.commitSync(Map.of(p1, new OffsetAndMetadata(30)));
            System.out.println("committed_by_owner " + committed(admin, group, p1));
            try {
                c1.commitSync(Map.of(p1, new OffsetAndMetadata(10)));
                System.out.println("revoked_commit accepted");
            } catch (Exception e) {
                System.out.println("revoked_commit " + e.getClass().getSimpleName());
            }
            System.out.println("committed_after " + committed(admin, group, p1));
            Properties pp = new Properties();
            pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, group + "-zombie");
            pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, "org.apache.kafka.common.serialization.StringSerializer");
            pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, "org.apache.kafka.common.serialization.StringSerializer");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
                producer.initTransactions();
                System.out.println("zombie_moved " + zombieCommit(producer, Map.of(p1, new OffsetAndMetadata(11)), before));
                System.out.println("zombie_kept " + zombieCommit(producer, Map.of(p0, new OffsetAndMetadata(7)), before));
            }
            System.out.println("committed_after_zombie " + committed(admin, group, p0) + "," + committed(admin, group, p1));
            c1.close();
            c2.close();
        }
    }
}
