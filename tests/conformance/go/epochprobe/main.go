// A probe of the broker's OffsetCommit rule for member epochs under the consumer protocol
// (KIP-848, with KIP-1251's per-partition check in 4.3; run.py's "probe" cases, model.md §10.6).
// Two members of a new consumer group are played with raw ConsumerGroupHeartbeat requests (kmsg),
// so the program decides when member A acknowledges a revocation; the commits come from a third,
// group-less client as raw OffsetCommit requests carrying A's member id and a chosen epoch.
//
//	A joins alone and owns both partitions (epoch e1). B joins; A is told to give one up ("moved")
//	and keeps the other ("kept"); while A still reports the moved partition it stays at e1. A then
//	acknowledges and reaches e2; B gets the moved partition. Later B leaves and A takes the moved
//	partition back at e3.
//
// Every commit prints `<step> <error code per partition>` and `<step>_committed <kept>,<moved>`
// (read back with OffsetFetch, -1 when nothing is committed). Other lines: the epochs, the
// assignments and the OffsetCommit version the broker took.
// Usage: epochprobe BOOTSTRAP TOPIC GROUP
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var (
	ctx            = context.Background()
	topic, group   string
	topicID        [16]byte
	printedVersion bool
)

func fail(format string, args ...any) {
	fmt.Printf("error "+format+"\n", args...)
	os.Exit(1)
}

func client(bootstrap, id string) *kgo.Client {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ClientID(id))
	if err != nil {
		fail("client %s: %v", id, err)
	}
	return cl
}

// A member id as the Java client makes one (Uuid.randomUuid().toString(): 22 base64url characters).
func memberID() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		fail("rand: %v", err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

type member struct {
	name     string
	cl       *kgo.Client
	id       string
	epoch    int32
	assigned []int32 // the partitions the last assignment in a response gave it
}

// heartbeat sends one ConsumerGroupHeartbeat reporting `owned` as the partitions the member holds
// (nil: a join, epoch 0, nothing owned).
func (m *member) heartbeat(owned []int32) {
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group = group
	req.MemberID = m.id
	req.MemberEpoch = m.epoch
	if m.epoch == 0 {
		req.RebalanceTimeoutMillis = 60000
		req.SubscribedTopicNames = []string{topic}
		req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	} else {
		t := kmsg.NewConsumerGroupHeartbeatRequestTopic()
		t.TopicID = topicID
		t.Partitions = append([]int32{}, owned...)
		req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{t}
	}
	var resp *kmsg.ConsumerGroupHeartbeatResponse
	var err error
	// A new broker creates __consumer_offsets at the first group request: until its coordinator
	// is loaded the answer is COORDINATOR_NOT_AVAILABLE (15) or COORDINATOR_LOAD_IN_PROGRESS (14),
	// NOT_COORDINATOR (16) while it moves; franz-go returns some of them as errors. Retry 30 s.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		resp, err = req.RequestWith(ctx, m.cl)
		retriable := err != nil || resp.ErrorCode == 14 || resp.ErrorCode == 15 || resp.ErrorCode == 16
		if err != nil {
			fmt.Fprintf(os.Stderr, "heartbeat %s epoch %d: %v\n", m.name, m.epoch, err)
		} else {
			fmt.Fprintf(os.Stderr, "heartbeat %s epoch %d: error %d epoch %d assignment %v\n", m.name, m.epoch,
				resp.ErrorCode, resp.MemberEpoch, resp.Assignment != nil)
		}
		if !retriable || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		fail("heartbeat %s: %v", m.name, err)
	}
	if resp.ErrorCode != 0 {
		msg := ""
		if resp.ErrorMessage != nil {
			msg = *resp.ErrorMessage
		}
		fail("heartbeat %s: error %d %s", m.name, resp.ErrorCode, msg)
	}
	m.epoch = resp.MemberEpoch
	if resp.Assignment != nil {
		m.assigned = nil
		for _, t := range resp.Assignment.Topics {
			if t.TopicID == topicID {
				m.assigned = append(m.assigned, t.Partitions...)
			}
		}
		sort.Slice(m.assigned, func(i, j int) bool { return m.assigned[i] < m.assigned[j] })
	}
}

func (m *member) leave() {
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group = group
	req.MemberID = m.id
	req.MemberEpoch = -1
	if _, err := req.RequestWith(ctx, m.cl); err != nil {
		fail("leave %s: %v", m.name, err)
	}
}

// until heartbeats every 100 ms (each step sends what `step` sends) until `done`, at most 30 s.
func until(what string, step func(), done func() bool) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		step()
		if done() {
			return
		}
		if time.Now().After(deadline) {
			fail("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func parts(ps []int32) string {
	if len(ps) == 0 {
		return "-"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, ",")
}

func same(a []int32, b ...int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

type probe struct {
	cl          *kgo.Client
	a           *member
	kept, moved int32
}

// commit sends one OffsetCommit with A's member id and `epoch`, one entry per partition in the
// order given, and prints the error codes, then the committed offsets read back.
func (p *probe) commit(step string, epoch int32, offsets ...[2]int64) {
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group = group
	req.MemberID = p.a.id
	req.Generation = epoch
	t := kmsg.NewOffsetCommitRequestTopic()
	t.Topic = topic
	t.TopicID = topicID
	for _, o := range offsets {
		pp := kmsg.NewOffsetCommitRequestTopicPartition()
		pp.Partition = int32(o[0])
		pp.Offset = o[1]
		t.Partitions = append(t.Partitions, pp)
	}
	req.Topics = []kmsg.OffsetCommitRequestTopic{t}
	resp, err := req.RequestWith(ctx, p.cl)
	if err != nil {
		fail("commit %s: %v", step, err)
	}
	if !printedVersion {
		fmt.Printf("offset_commit_version %d\n", resp.Version)
		printedVersion = true
	}
	codes := map[int32]int16{}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			codes[rp.Partition] = rp.ErrorCode
		}
	}
	s := make([]string, len(offsets))
	for i, o := range offsets {
		c, ok := codes[int32(o[0])]
		if !ok {
			fail("commit %s: no answer for partition %d", step, o[0])
		}
		s[i] = fmt.Sprint(c)
	}
	fmt.Printf("%s %s\n", step, strings.Join(s, ","))
	fmt.Printf("%s_committed %s\n", step, p.committed())
}

// committed reads the group's committed offsets (OffsetFetch without a member: an admin's read)
// as "<kept>,<moved>", -1 where there is none.
func (p *probe) committed() string {
	req := kmsg.NewPtrOffsetFetchRequest()
	g := kmsg.NewOffsetFetchRequestGroup()
	g.Group = group
	gt := kmsg.NewOffsetFetchRequestGroupTopic()
	gt.Topic = topic
	gt.TopicID = topicID
	gt.Partitions = []int32{0, 1}
	g.Topics = []kmsg.OffsetFetchRequestGroupTopic{gt}
	req.Groups = []kmsg.OffsetFetchRequestGroup{g}
	resp, err := req.RequestWith(ctx, p.cl)
	if err != nil {
		fail("offset fetch: %v", err)
	}
	got := map[int32]int64{0: -1, 1: -1}
	for _, rg := range resp.Groups {
		if rg.ErrorCode != 0 {
			fail("offset fetch: group error %d", rg.ErrorCode)
		}
		for _, rt := range rg.Topics {
			for _, rp := range rt.Partitions {
				if rp.ErrorCode != 0 {
					fail("offset fetch: partition %d error %d", rp.Partition, rp.ErrorCode)
				}
				got[rp.Partition] = rp.Offset
			}
		}
	}
	return fmt.Sprintf("%d,%d", got[p.kept], got[p.moved])
}

func main() {
	if len(os.Args) != 4 {
		fail("usage: epochprobe BOOTSTRAP TOPIC GROUP")
	}
	bootstrap := os.Args[1]
	topic, group = os.Args[2], os.Args[3]
	cl := client(bootstrap, "epochprobe-committer")
	defer cl.Close()

	ct := kmsg.NewPtrCreateTopicsRequest()
	ct.TimeoutMillis = 30000
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic = topic
	rt.NumPartitions = 2
	rt.ReplicationFactor = 1
	ct.Topics = []kmsg.CreateTopicsRequestTopic{rt}
	cresp, err := ct.RequestWith(ctx, cl)
	if err != nil || len(cresp.Topics) != 1 || cresp.Topics[0].ErrorCode != 0 {
		fail("create topic: %v %+v", err, cresp)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		md := kmsg.NewPtrMetadataRequest()
		mt := kmsg.NewMetadataRequestTopic()
		mt.Topic = kmsg.StringPtr(topic)
		md.Topics = []kmsg.MetadataRequestTopic{mt}
		mresp, err := md.RequestWith(ctx, cl)
		if err == nil && len(mresp.Topics) == 1 && mresp.Topics[0].ErrorCode == 0 &&
			len(mresp.Topics[0].Partitions) == 2 && mresp.Topics[0].TopicID != [16]byte{} {
			topicID = mresp.Topics[0].TopicID
			break
		}
		if time.Now().After(deadline) {
			fail("topic metadata: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The group's coordinator first: on a new broker __consumer_offsets is created now and answers
	// COORDINATOR_NOT_AVAILABLE for a moment.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		fc := kmsg.NewPtrFindCoordinatorRequest()
		fc.CoordinatorKeys = []string{group}
		fresp, err := fc.RequestWith(ctx, cl)
		if err == nil && len(fresp.Coordinators) == 1 && fresp.Coordinators[0].ErrorCode == 0 {
			break
		}
		if time.Now().After(deadline) {
			fail("find coordinator: %v", err)
		}
	}

	a := &member{name: "A", cl: client(bootstrap, "epochprobe-a"), id: memberID()}
	b := &member{name: "B", cl: client(bootstrap, "epochprobe-b"), id: memberID()}
	defer a.cl.Close()
	defer b.cl.Close()

	// A alone: it reports what each response assigned it (it reconciles at once). A new consumer
	// group starts at epoch 1 (ModernGroup's constructor) and A's join bumps it: A's first answer
	// is epoch 2 (a_first_epoch). If the coordinator did not know the new topic yet, that answer
	// has no partition and the topic's arrival bumps the group again: e1, the epoch A owns both
	// at, is then 3.
	firstEpoch := int32(-1)
	until("A to own both partitions", func() {
		a.heartbeat(a.assigned)
		if firstEpoch < 0 {
			firstEpoch = a.epoch
			fmt.Printf("a_first_epoch %d %s\n", a.epoch, parts(a.assigned))
		}
	}, func() bool { return a.epoch > 0 && same(a.assigned, 0, 1) })
	e1 := a.epoch
	fmt.Printf("a_alone %s\n", parts(a.assigned))
	fmt.Printf("e1 %d\n", e1)

	// B joins. A keeps reporting both partitions: it has not revoked yet.
	until("A's new target", func() {
		b.heartbeat(b.assigned)
		a.heartbeat([]int32{0, 1})
	}, func() bool { return len(a.assigned) == 1 })
	p := &probe{cl: cl, a: a, kept: a.assigned[0], moved: 1 - a.assigned[0]}
	fmt.Printf("kept %d\n", p.kept)
	fmt.Printf("moved %d\n", p.moved)
	fmt.Printf("epoch_a_pending_revocation %d\n", a.epoch)
	fmt.Printf("epoch_a_pending_is_e1 %v\n", a.epoch == e1)

	// While the moved partition waits for A's revocation, e1 is still A's current epoch.
	p.commit("pending_e1_moved", e1, [2]int64{int64(p.moved), 10})
	// An epoch before the one it was assigned at, for the partition pending revocation.
	p.commit("pending_e1_minus_1_moved", e1-1, [2]int64{int64(p.moved), 9})

	// A acknowledges (reports the kept partition only) and reaches e2; B then gets the moved one.
	until("A's new epoch", func() { a.heartbeat([]int32{p.kept}) }, func() bool { return a.epoch > e1 })
	e2 := a.epoch
	until("B to own the moved partition", func() { b.heartbeat(b.assigned) },
		func() bool { return same(b.assigned, p.moved) && b.epoch >= e2 })
	a.heartbeat([]int32{p.kept})
	if a.epoch != e2 || !same(a.assigned, p.kept) {
		fail("A moved on: epoch %d assigned %s", a.epoch, parts(a.assigned))
	}
	fmt.Printf("e2 %d\n", e2)
	fmt.Printf("e2_minus_e1 %d\n", e2-e1)
	fmt.Printf("b_owns %s\n", parts(b.assigned))
	fmt.Printf("epoch_b %d\n", b.epoch)

	p.commit("old_e1_kept", e1, [2]int64{int64(p.kept), 11})
	p.commit("old_e1_moved", e1, [2]int64{int64(p.moved), 12})
	p.commit("current_e2_moved", e2, [2]int64{int64(p.moved), 13})
	p.commit("current_e2_kept", e2, [2]int64{int64(p.kept), 14})
	p.commit("newer_e2_plus_1_kept", e2+1, [2]int64{int64(p.kept), 15})
	p.commit("older_e1_minus_1_kept", e1-1, [2]int64{int64(p.kept), 16})
	p.commit("old_e1_both", e1, [2]int64{int64(p.kept), 17}, [2]int64{int64(p.moved), 18})

	// B leaves; A takes the moved partition back at a newer epoch e3.
	b.leave()
	until("A to own both partitions again", func() { a.heartbeat(a.assigned) },
		func() bool { return a.epoch > e2 && same(a.assigned, 0, 1) })
	e3 := a.epoch
	fmt.Printf("e3 %d\n", e3)
	fmt.Printf("e3_minus_e2 %d\n", e3-e2)
	fmt.Printf("a_again %s\n", parts(a.assigned))
	p.commit("old_e2_moved_regained", e2, [2]int64{int64(p.moved), 19})
	p.commit("old_e2_kept", e2, [2]int64{int64(p.kept), 20})
	p.commit("current_e3_both", e3, [2]int64{int64(p.kept), 21}, [2]int64{int64(p.moved), 22})
	a.leave()
	fmt.Println("done 1")
}
