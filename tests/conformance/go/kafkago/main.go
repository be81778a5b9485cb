// The kafka-go (github.com/segmentio/kafka-go v0.4.51) twin of rdk_consumer.py: one Reader in a
// group, the harness's log lines; each message returned is logged as a poll of 1 record.
// Strategies (model client "kafka_go"):
//
//	read_message                     ReadMessage with CommitInterval 0 (the default): it commits the
//	                                 message synchronously before returning it
//	fetch_message_commit_messages    FetchMessage, process, CommitMessages(msg)
//
// With `member` in the config (group.py) it runs as one member of a group: groupMember below.
// Usage: kafkago CONFIG.json
package main

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"

	h "offsetwindow/conformance/harness"
)

func main() {
	cfg := h.Load()
	if m := h.LoadMember(); m.Member > 0 {
		groupMember(cfg, m)
		return
	}
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

// groupMember is one Reader among several in a group (group.py), the kafka-go twin of
// ConformanceConsumer.GroupMember with the same log lines, times in ms since the case's epoch.
// kafka-go has no rebalance callbacks: the lines come from the Reader's Logger, which the
// library calls with its own format strings — "Joined group %s as member %s in generation %d"
// (ConsumerGroup.nextGeneration), "subscribed to topics and partitions: %+v" (Reader.subscribe,
// with the offsets each partition reader starts from: the committed offsets of the generation's
// OffsetFetch, FirstOffset (-2) where none) → assigned <t> <generation> p:committed…;
// "stopped commit for group %s" (the generation's commit loop ended after its last commit)
// → revoked <t> <generation> p…. The application: until G (the go file) it reads nothing; then
// ReadMessage (read_message: it commits before it returns) or FetchMessage, process, and
// CommitMessages (fetch_message_commit_messages): poll <t> <p> <offset> 1, done <t> <p> <offset>,
// commit <sent> <returned> <offset>.
func groupMember(cfg *h.Config, m *h.Member) {
	var mu sync.Mutex
	gen := int64(-1)
	var owned []int
	logger := kafka.LoggerFunc(func(format string, args ...interface{}) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case strings.HasPrefix(format, "Joined group") && len(args) == 3:
			gen = reflect.ValueOf(args[2]).Int()
		case strings.HasPrefix(format, "subscribed to topics and partitions") && len(args) == 1:
			owned = owned[:0]
			start := map[int]int64{}
			it := reflect.ValueOf(args[0]).MapRange()
			for it.Next() {
				p := int(it.Key().FieldByName("partition").Int())
				owned = append(owned, p)
				start[p] = it.Value().Int()
			}
			sort.Ints(owned)
			line := fmt.Sprintf("assigned %s %d", h.GT(), gen)
			for _, p := range owned {
				c := "none"
				if start[p] >= 0 {
					c = fmt.Sprint(start[p])
				}
				line += fmt.Sprintf(" %d:%s", p, c)
			}
			h.Log("%s", line)
		case strings.HasPrefix(format, "stopped commit for group"):
			line := fmt.Sprintf("revoked %s %d", h.GT(), gen)
			for _, p := range owned {
				line += fmt.Sprintf(" %d", p)
			}
			h.Log("%s", line)
		}
	})
	balancers := []kafka.GroupBalancer{kafka.RangeGroupBalancer{}}
	if m.Assign == "roundrobin" {
		balancers = []kafka.GroupBalancer{kafka.RoundRobinGroupBalancer{}}
	}
	h.Log("client kafka-go v0.4.51 classic member %d", m.Member)
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers: []string{cfg.Bootstrap},
		GroupID: cfg.Group,
		Topic:   cfg.Topic,
		// Member ids are client.id + "-" + UUID: range orders the members by them.
		Dialer:            &kafka.Dialer{ClientID: fmt.Sprintf("consumer-%d", m.Member), Timeout: 10 * time.Second, DualStack: true},
		GroupBalancers:    balancers,
		StartOffset:       kafka.FirstOffset,
		CommitInterval:    0,
		MaxWait:           100 * time.Millisecond,
		SessionTimeout:    time.Duration(cfg.SessionTimeoutMs) * time.Millisecond,
		HeartbeatInterval: time.Duration(cfg.HeartbeatMs) * time.Millisecond,
		Logger:            logger,
	})
	for !h.GoDue() {
		time.Sleep(2 * time.Millisecond)
	}
	h.Log("go %s", h.GT())
	ctx := context.Background()
	for {
		var msg kafka.Message
		var err error
		if cfg.Strategy == "read_message" || cfg.Strategy == "auto_commit" {
			msg, err = r.ReadMessage(ctx)
		} else {
			msg, err = r.FetchMessage(ctx)
		}
		if err != nil {
			h.Log("error %s %v", h.GT(), err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		h.Log("poll %s %d %d 1", h.GT(), msg.Partition, msg.Offset)
		h.Sleep()
		h.Log("done %s %d %d", h.GT(), msg.Partition, msg.Offset)
		if cfg.Strategy == "fetch_message_commit_messages" {
			sent := h.GT()
			if err := r.CommitMessages(ctx, msg); err != nil {
				h.Log("commit_failed %s %v", h.GT(), err)
			}
			h.Log("commit %s %s %d", sent, h.GT(), msg.Offset+1)
		}
	}
}
