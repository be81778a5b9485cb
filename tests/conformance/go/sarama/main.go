// The sarama (github.com/IBM/sarama v1.61.1) twin of rdk_consumer.py: one ConsumerGroup member on
// one partition, the harness's log lines (harness package). Strategies (model client "sarama"):
//
//	mark_message          MarkMessage(msg) after processing; Consumer.Offsets.AutoCommit (Enable,
//	                      Interval = auto.commit.interval.ms) commits the marks; Close() flushes them
//	commit_sync_record    MarkMessage(msg) + session.Commit() after each message, AutoCommit off
//
// sarama has no poll(): each message read from claim.Messages() is logged as a poll of 1 record.
// The offset manager's ticker starts with the session (newConsumerGroupSession, before Setup): the
// first message is held until Setup + k·Interval so that T0 sits on the ticker's phase.
// Usage: sarama CONFIG.json
package main

import (
	"context"
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

// close ends the session at the planned close: the claim returns (its record unmarked), the
// session's release flushes the marks, then main calls Close().
func (x *handler) close() error {
	h.Log("close_begin %s", h.Now())
	close(x.closing)
	return nil
}

func main() {
	cfg := h.Load()
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
