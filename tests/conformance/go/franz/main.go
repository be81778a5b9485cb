// The franz-go (github.com/twmb/franz-go v1.22.3) twin of rdk_consumer.py: one group member, the
// harness's log lines. PollRecords(ctx, max.poll.records) plays poll(). Strategies (model client
// "franz_go"):
//
//	auto_commit                  the default autocommit every AutoCommitInterval
//	                             (= auto.commit.interval.ms) of what the *previous* polls returned
//	greedy_auto_commit           GreedyAutoCommit(): also the latest poll
//	auto_commit_marks            AutoCommitMarks() + MarkCommitRecords(r) after processing
//	commit_sync_batch            DisableAutoCommit() + CommitUncommittedOffsets after each poll
//
// Close() leaves the group; with autocommit its default OnPartitionsRevoked commits
// synchronously what autocommit would (defaultRevoke → getUncommitted(false)). The autocommit
// loop starts with the group's management (NewClient → manage → loopCommit): T0 is held until
// creation + k·interval, on the ticker's phase.
// With `member` in the config (group.py) it runs as one member of a group: groupMember (member.go).
// Usage: franz CONFIG.json
package main

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	h "offsetwindow/conformance/harness"
)

func main() {
	cfg := h.Load()
	if m := h.LoadMember(); m.Member > 0 {
		groupMember(cfg, m)
		return
	}
	opts := options(cfg)
	created := time.Now()
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		panic(err)
	}
	h.Log("subscribed")
	ctx := context.Background()
	max := cfg.MaxPollRecords
	var recs []*kgo.Record
	for len(recs) == 0 {
		recs = cl.PollRecords(ctx, max).Records()
	}
	h.StartAt(h.Phase(created, h.Ms(cfg.AutoCommitMs)))
	for {
		if len(recs) > 0 {
			h.Log("poll %s %d %d", h.Now(), recs[0].Offset, len(recs))
		} else {
			h.Log("poll %s -1 0", h.Now())
		}
		for _, r := range recs {
			if !h.Process() {
				closeClient(cl)
				return
			}
			h.Done(r.Offset)
			if cfg.Strategy == "auto_commit_marks" {
				cl.MarkCommitRecords(r)
			}
		}
		if cfg.Strategy == "commit_sync_batch" && len(recs) > 0 {
			sent := h.Now()
			if err := cl.CommitUncommittedOffsets(ctx); err != nil {
				h.Log("commit_failed %s %v", h.Now(), err)
			}
			h.Log("commit %s %s position", sent, h.Now())
		}
		if h.CloseDue() {
			closeClient(cl)
			return
		}
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		recs = cl.PollRecords(pctx, max).Records()
		cancel()
	}
}

func closeClient(cl *kgo.Client) {
	h.Log("close_begin %s", h.Now())
	cl.Close()
	h.Log("close_end %s", h.Now())
}

// options are the client's options for cfg: the group, the topic from its start, the timers,
// and the strategy's autocommit mode.
func options(cfg *h.Config) []kgo.Opt {
	opts := []kgo.Opt{
		kgo.SeedBrokers(cfg.Bootstrap),
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(cfg.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.AutoCommitInterval(h.Ms(cfg.AutoCommitMs)),
		kgo.SessionTimeout(time.Duration(cfg.SessionTimeoutMs) * time.Millisecond),
		kgo.HeartbeatInterval(time.Duration(cfg.HeartbeatMs) * time.Millisecond),
		kgo.FetchMaxWait(100 * time.Millisecond),
	}
	switch cfg.Strategy {
	case "greedy_auto_commit":
		opts = append(opts, kgo.GreedyAutoCommit())
	case "auto_commit_marks":
		opts = append(opts, kgo.AutoCommitMarks())
	case "commit_sync_batch":
		opts = append(opts, kgo.DisableAutoCommit())
	}
	return opts
}
