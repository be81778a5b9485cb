// The sarama (github.com/IBM/sarama v1.61.1) twin of rdk_consumer.py: one ConsumerGroup member on
// one partition, the harness's log lines (harness package). Strategies (model client "sarama"):
//
//	mark_message          MarkMessage(msg) after processing; Consumer.Offsets.AutoCommit (Enable,
//	                      Interval = auto.commit.interval.ms) commits the marks; Close() flushes them
//	commit_sync_record    MarkMessage(msg) + session.Commit() after each message, AutoCommit off
//
// With worker_pool, mark_message runs sarama#1287's application: consumePool.
//
// sarama has no poll(): each message read from claim.Messages() is logged as a poll of 1 record.
// The offset manager's ticker starts with the session (newConsumerGroupSession, before Setup): the
// first message is held until Setup + k·Interval so that T0 sits on the ticker's phase.
// With `member` in the config (group.py) it runs as one member of a group: groupMember below.
// Usage: sarama CONFIG.json
package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/IBM/sarama"

	h "offsetwindow/conformance/harness"
)

type handler struct {
	cfg     *h.Config
	setupAt time.Time
	started bool
	closing chan struct{}
}

func (x *handler) Setup(sarama.ConsumerGroupSession) error {
	if x.setupAt.IsZero() {
		x.setupAt = time.Now()
	}
	return nil
}

func (x *handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (x *handler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	if x.cfg.WorkerPool {
		return x.consumePool(sess, claim)
	}
	for msg := range claim.Messages() {
		if !x.started {
			x.started = true
			h.StartAt(h.Phase(x.setupAt, h.Ms(x.cfg.AutoCommitMs)))
		}
		h.Log("poll %s %d 1", h.Now(), msg.Offset)
		if !h.Process() {
			return x.close()
		}
		h.Done(msg.Offset)
		sess.MarkMessage(msg, "")
		if x.cfg.Strategy == "commit_sync_record" {
			sent := h.Now()
			sess.Commit()
			h.Log("commit %s %s %d", sent, h.Now(), msg.Offset+1)
		}
		if h.CloseDue() {
			return x.close()
		}
	}
	return nil
}

// consumePool is sarama#1287's application (model.md §8.14, "Marks out of order"): the claim's
// loop hands each message to pool_threads worker goroutines (ordering unordered; at most
// pool_max_in_flight_batches messages in flight, as the model's loop waits), and each worker marks
// when its message is done: pool_commit highest_completed marks the message itself,
// contiguous_completed the lowest offset not yet done; commit_value record_offset passes the raw
// offset to MarkOffset (MarkMessage would pass offset + 1). The offset manager keeps the highest
// mark (offset_manager.go, partitionOffsetManager.MarkOffset) and the AutoCommit ticker commits
// it. Crash cases only (no planned close).
func (x *handler) consumePool(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	if x.cfg.Ordering != "unordered" || x.cfg.PoolCommit == "handed_out" || x.cfg.CloseAfter != nil {
		panic("sarama pools: ordering unordered, pool_commit highest_completed or contiguous_completed, crash cases")
	}
	inFlight := max(1, x.cfg.PoolMaxInFlight)
	work := make(chan *sarama.ConsumerMessage, inFlight)
	slots := make(chan struct{}, inFlight)
	var mu sync.Mutex
	done := map[int64]bool{}
	first := int64(-1)
	for range max(1, x.cfg.PoolThreads) {
		go func() {
			for msg := range work {
				time.Sleep(h.RecordTime(msg.Offset))
				mu.Lock()
				h.Done(msg.Offset)
				done[msg.Offset] = true
				mark := msg.Offset + 1
				if x.cfg.PoolCommit == "contiguous_completed" {
					for mark = first; done[mark]; mark++ {
					}
				}
				if x.cfg.CommitValue == "record_offset" {
					mark-- // a raw MarkOffset(topic, partition, msg.Offset)
				}
				sess.MarkOffset(msg.Topic, msg.Partition, mark, "")
				h.Log("mark %s %d", h.Now(), mark)
				mu.Unlock()
				<-slots
			}
		}()
	}
	for msg := range claim.Messages() {
		if !x.started {
			x.started = true
			h.StartAt(h.Phase(x.setupAt, h.Ms(x.cfg.AutoCommitMs)))
		}
		slots <- struct{}{}
		mu.Lock()
		if first < 0 {
			first = msg.Offset
		}
		h.Log("poll %s %d 1", h.Now(), msg.Offset)
		mu.Unlock()
		work <- msg
	}
	close(work)
	return nil
}

// close ends the session at the planned close: the claim returns (its record unmarked), the
// session's release flushes the marks, then main calls Close().
func (x *handler) close() error {
	h.Log("close_begin %s", h.Now())
	close(x.closing)
	return nil
}

func main() {
	cfg := h.Load()
	if m := h.LoadMember(); m.Member > 0 {
		groupMember(cfg, m)
		return
	}
	c := sarama.NewConfig()
	c.Version = sarama.V4_0_0_0 // KIP-896: Kafka 4 serves only the newer protocol versions
	c.ClientID = "sarama-conformance"
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	c.Consumer.Offsets.AutoCommit.Enable = cfg.Strategy == "mark_message"
	c.Consumer.Offsets.AutoCommit.Interval = h.Ms(cfg.AutoCommitMs)
	c.Consumer.Group.Session.Timeout = time.Duration(cfg.SessionTimeoutMs) * time.Millisecond
	c.Consumer.Group.Heartbeat.Interval = time.Duration(cfg.HeartbeatMs) * time.Millisecond
	c.Consumer.Fetch.Default = 1 << 20
	c.Consumer.MaxWaitTime = 100 * time.Millisecond
	group, err := sarama.NewConsumerGroup([]string{cfg.Bootstrap}, cfg.Group, c)
	if err != nil {
		panic(err)
	}
	h.Log("subscribed")
	x := &handler{cfg: cfg, closing: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-x.closing
		cancel()
	}()
	for ctx.Err() == nil {
		if err := group.Consume(ctx, []string{cfg.Topic}, x); err != nil && ctx.Err() == nil {
			h.Log("error %s %v", h.Now(), err)
			time.Sleep(100 * time.Millisecond)
		}
	}
	// The session ended (the claim returned, context canceled): its release ran offsets.Close(),
	// which flushes the marks when AutoCommit is on. Close() then leaves the group.
	if err := group.Close(); err != nil {
		h.Log("error %s %v", h.Now(), err)
	}
	h.Log("close_end %s", h.Now())
}

// member is one ConsumerGroup member among several (group.py), the sarama twin of
// ConformanceConsumer.GroupMember with the same log lines, times in ms since the case's epoch:
// created <t> (each session's Setup: its offset manager's AutoCommit ticker has just started,
// newConsumerGroupSession → newOffsetManagerFromClient), assigned <t> <generation> p:committed…
// (Setup; the committed offsets read by an admin client), revoked <t> <generation> p… (Cleanup,
// before the session's release flushes the marks), go <t>, poll <t> <p> <offset> 1,
// done <t> <p> <offset>, commit <sent> <returned> <offset>. Until G (the go file) each claim
// hands out nothing (the Java and librdkafka members pause their partitions). ConsumeClaim returns
// as soon as the session's context is done — the message in hand is finished and marked, a message
// read after that is dropped unmarked — as sarama asks of a handler (a range over
// claim.Messages() would go on through the claim's buffered messages, up to ChannelBufferSize).
type member struct {
	cfg   *h.Config
	admin sarama.ClusterAdmin
	group string
	topic string
	goOn  sync.Once
	going chan struct{}
}

func (x *member) Setup(sess sarama.ConsumerGroupSession) error {
	at := h.GT()
	h.Log("created %s", at)
	parts := sess.Claims()[x.topic]
	line := fmt.Sprintf("assigned %s %d", at, sess.GenerationID())
	if len(parts) > 0 {
		resp, err := x.admin.ListConsumerGroupOffsets(x.group, map[string][]int32{x.topic: parts})
		if err != nil {
			return err
		}
		for _, p := range sortedParts(parts) {
			c := "none"
			if b := resp.GetBlock(x.topic, p); b != nil && b.Offset >= 0 {
				c = fmt.Sprint(b.Offset)
			}
			line += fmt.Sprintf(" %d:%s", p, c)
		}
	}
	h.Log("%s", line)
	return nil
}

func (x *member) Cleanup(sess sarama.ConsumerGroupSession) error {
	line := fmt.Sprintf("revoked %s %d", h.GT(), sess.GenerationID())
	for _, p := range sortedParts(sess.Claims()[x.topic]) {
		line += fmt.Sprintf(" %d", p)
	}
	h.Log("%s", line)
	return nil
}

func (x *member) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for {
		select {
		case <-x.going:
		case <-sess.Context().Done():
			return nil
		case <-time.After(2 * time.Millisecond):
			if h.GoDue() {
				x.goOn.Do(func() {
					h.Log("go %s", h.GT())
					close(x.going)
				})
			}
			continue
		}
		break
	}
	p := claim.Partition()
	for {
		select {
		case <-sess.Context().Done():
			return nil
		case msg, ok := <-claim.Messages():
			if !ok || sess.Context().Err() != nil {
				return nil
			}
			h.Log("poll %s %d %d 1", h.GT(), p, msg.Offset)
			h.Sleep()
			h.Log("done %s %d %d", h.GT(), p, msg.Offset)
			sess.MarkMessage(msg, "")
			if x.cfg.Strategy == "commit_sync_record" {
				sent := h.GT()
				sess.Commit()
				h.Log("commit %s %s %d", sent, h.GT(), msg.Offset+1)
			}
		}
	}
}

func sortedParts(parts []int32) []int32 {
	out := append([]int32(nil), parts...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func groupMember(cfg *h.Config, m *h.Member) {
	c := sarama.NewConfig()
	c.Version = sarama.V4_0_0_0
	c.ClientID = fmt.Sprintf("consumer-%d", m.Member) // member ids are client.id + "-" + UUID
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	c.Consumer.Offsets.AutoCommit.Enable = cfg.Strategy != "commit_sync_record"
	c.Consumer.Offsets.AutoCommit.Interval = h.Ms(cfg.AutoCommitMs)
	c.Consumer.Group.Session.Timeout = time.Duration(cfg.SessionTimeoutMs) * time.Millisecond
	c.Consumer.Group.Heartbeat.Interval = time.Duration(cfg.HeartbeatMs) * time.Millisecond
	c.Consumer.Fetch.Default = 1 << 20
	c.Consumer.MaxWaitTime = 100 * time.Millisecond
	if m.Assign == "roundrobin" {
		c.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyRoundRobin()}
	}
	admin, err := sarama.NewClusterAdmin([]string{cfg.Bootstrap}, c)
	if err != nil {
		panic(err)
	}
	group, err := sarama.NewConsumerGroup([]string{cfg.Bootstrap}, cfg.Group, c)
	if err != nil {
		panic(err)
	}
	h.Log("client sarama v1.61.1 classic member %d", m.Member)
	x := &member{cfg: cfg, admin: admin, group: cfg.Group, topic: cfg.Topic, going: make(chan struct{})}
	for {
		if err := group.Consume(context.Background(), []string{cfg.Topic}, x); err != nil {
			h.Log("error %s %v", h.GT(), err)
			time.Sleep(100 * time.Millisecond)
		}
	}
}
