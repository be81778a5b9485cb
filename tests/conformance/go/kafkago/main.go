// The kafka-go (github.com/segmentio/kafka-go v0.4.51) twin of rdk_consumer.py: one Reader in a
// group, the harness's log lines; each message returned is logged as a poll of 1 record.
// Strategies (model client "kafka_go"):
//
//	read_message                     ReadMessage with CommitInterval 0 (the default): it commits the
//	                                 message synchronously before returning it
//	fetch_message_commit_messages    FetchMessage, process, CommitMessages(msg)
//
// Usage: kafkago CONFIG.json
package main

import (
	"context"
	"time"

	"github.com/segmentio/kafka-go"

	h "offsetwindow/conformance/harness"
)

func main() {
	cfg := h.Load()
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers:           []string{cfg.Bootstrap},
		GroupID:           cfg.Group,
		Topic:             cfg.Topic,
		StartOffset:       kafka.FirstOffset,
		CommitInterval:    0,
		MaxWait:           100 * time.Millisecond,
		SessionTimeout:    time.Duration(cfg.SessionTimeoutMs) * time.Millisecond,
		HeartbeatInterval: time.Duration(cfg.HeartbeatMs) * time.Millisecond,
	})
	h.Log("subscribed")
	ctx := context.Background()
	read := func() kafka.Message {
		var m kafka.Message
		var err error
		if cfg.Strategy == "read_message" {
			m, err = r.ReadMessage(ctx)
		} else {
			m, err = r.FetchMessage(ctx)
		}
		if err != nil {
			panic(err)
		}
		return m
	}
	m := read()
	h.StartAt(time.Now())
	for {
		h.Log("poll %s %d 1", h.Now(), m.Offset)
		if !h.Process() {
			break
		}
		h.Done(m.Offset)
		if cfg.Strategy == "fetch_message_commit_messages" {
			sent := h.Now()
			if err := r.CommitMessages(ctx, m); err != nil {
				h.Log("commit_failed %s %v", h.Now(), err)
			}
			h.Log("commit %s %s %d", sent, h.Now(), m.Offset+1)
		}
		if h.CloseDue() {
			break
		}
		m = read()
	}
	h.Log("close_begin %s", h.Now())
	r.Close()
	h.Log("close_end %s", h.Now())
}
