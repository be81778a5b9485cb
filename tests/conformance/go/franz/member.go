package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	h "offsetwindow/conformance/harness"
)

// groupMember is one franz-go member among several (group.py), the franz-go twin of
// ConformanceConsumer.GroupMember with the same log lines, times in ms since the case's epoch:
// created <t> (NewClient: the group's management and its autocommit loop start, manage →
// loopCommit), assigned <t> <generation> p:committed… (OnPartitionsAssigned, called with what a
// cooperative session adds; the committed offsets read by a second client), go <t>,
// poll <t> <p> <offset> <n> (one line per partition a PollRecords returned),
// done <t> <p> <offset>, revoked <t> <generation> p… (what a session's revoke gives up, read off
// franz-go's own log: an OnPartitionsRevoked of ours would replace the default revoke, whose
// commit is the rule measured), abrupt <t> (SIGTERM), close_begin <t>, close_end <t>. The balancer is
// franz-go's default, cooperative-sticky; the default OnPartitionsRevoked stays in place (a
// revocation commits the heads, model.md §8.14). Nothing is polled before G (the go file). With
// shutdown_mode abrupt, SIGTERM calls Close() at once (it leaves the group after its revoke's
// commit) and the record in progress is never logged done.
func groupMember(cfg *h.Config, m *h.Member) {
	if cfg.Strategy != "auto_commit" && cfg.Strategy != "greedy_auto_commit" && cfg.Strategy != "auto_commit_marks" {
		panic("a franz-go group member runs the autocommit strategies only: " + cfg.Strategy)
	}
	opts := append(options(cfg), kgo.ClientID(fmt.Sprintf("consumer-%d", m.Member)))
	admin, err := kgo.NewClient(kgo.SeedBrokers(cfg.Bootstrap))
	if err != nil {
		panic(err)
	}
	var cl *kgo.Client
	opts = append(opts, kgo.WithLogger(revokeLogger{func() int32 {
		_, generation := cl.GroupMetadata()
		return generation
	}}))
	opts = append(opts, kgo.OnPartitionsAssigned(func(ctx context.Context, cl *kgo.Client, added map[string][]int32) {
		parts := append([]int32(nil), added[cfg.Topic]...)
		sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
		_, generation := cl.GroupMetadata()
		line := fmt.Sprintf("assigned %s %d", h.GT(), generation)
		committed := fetchCommitted(admin, cfg.Group, cfg.Topic, parts)
		for _, p := range parts {
			line += fmt.Sprintf(" %d:%s", p, committed[p])
		}
		h.Log("%s", line)
	}))
	h.Log("client franz-go v1.22.3 classic member %d", m.Member)
	h.Log("created %s", h.GT())
	cl, err = kgo.NewClient(opts...)
	if err != nil {
		panic(err)
	}
	var closing atomic.Bool
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	go func() {
		<-sigs
		h.Log("abrupt %s", h.GT())
		closing.Store(true)
		h.Log("close_begin %s", h.GT())
		cl.Close()
		h.Log("close_end %s", h.GT())
		os.Exit(0)
	}()
	for !h.GoDue() {
		time.Sleep(2 * time.Millisecond)
	}
	h.Log("go %s", h.GT())
	ctx := context.Background()
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		recs := cl.PollRecords(pctx, cfg.MaxPollRecords).Records()
		cancel()
		for i := 0; i < len(recs); {
			j := i
			for j < len(recs) && recs[j].Partition == recs[i].Partition {
				j++
			}
			h.Log("poll %s %d %d %d", h.GT(), recs[i].Partition, recs[i].Offset, j-i)
			i = j
		}
		for _, r := range recs {
			h.Sleep()
			if closing.Load() {
				select {} // Close() is under way: the record in progress never lands
			}
			h.Log("done %s %d %d", h.GT(), r.Partition, r.Offset)
			if cfg.Strategy == "auto_commit_marks" {
				cl.MarkCommitRecords(r)
			}
		}
	}
}

// fetchCommitted reads the group's committed offsets of parts ("none" where there is none) with
// an OffsetFetch from a client outside the group.
func fetchCommitted(admin *kgo.Client, group, topic string, parts []int32) map[int32]string {
	out := map[int32]string{}
	for _, p := range parts {
		out[p] = "none"
	}
	req := kmsg.NewPtrOffsetFetchRequest()
	rg := kmsg.NewOffsetFetchRequestGroup()
	rg.Group = group
	rt := kmsg.NewOffsetFetchRequestGroupTopic()
	rt.Topic = topic
	rt.Partitions = parts
	rg.Topics = append(rg.Topics, rt)
	req.Groups = append(req.Groups, rg)
	resp, err := req.RequestWith(context.Background(), admin)
	if err != nil {
		h.Log("error %s offset fetch: %v", h.GT(), err)
		return out
	}
	for _, g := range resp.Groups {
		for _, t := range g.Topics {
			for _, p := range t.Partitions {
				if p.Offset >= 0 {
					out[p.Partition] = fmt.Sprint(p.Offset)
				}
			}
		}
	}
	return out
}

// revokeLogger writes a revoked line when franz-go logs that a session's revoke calls
// onRevoke with partitions lost ("calling onRevoke at the end of a session", `revoke`).
type revokeLogger struct{ generation func() int32 }

func (revokeLogger) Level() kgo.LogLevel { return kgo.LogLevelInfo }

func (l revokeLogger) Log(_ kgo.LogLevel, msg string, keyvals ...any) {
	if msg != "calling onRevoke at the end of a session" {
		return
	}
	for i := 0; i+1 < len(keyvals); i += 2 {
		if keyvals[i] != "lost" {
			continue
		}
		// mtps.String: topic[p p …], one topic here.
		text := fmt.Sprint(keyvals[i+1])
		if a, b := strings.IndexByte(text, '['), strings.IndexByte(text, ']'); a >= 0 && b > a {
			line := fmt.Sprintf("revoked %s %d", h.GT(), l.generation())
			for _, p := range strings.Fields(text[a+1 : b]) {
				line += " " + p
			}
			h.Log("%s", line)
		}
	}
}
