// A kafka-go (github.com/segmentio/kafka-go v0.4.51) reader for the txn cases (txn.py, issue 31):
// one kafka.NewReader in a group of its own, ReaderConfig.IsolationLevel from the scenario, the
// log lines of txn_rdk.py and TxnConformance mode=read on the case's clock (CLOCK_MONOTONIC ms
// since epoch_ns):
//
//	assigned <t> position <p>     the group gave it the partition (p: the start offset kafka-go
//	                              logs, -2 = FirstOffset when nothing is committed)
//	poll <t> <n> pos <p> <o>...   the messages handed since the last poll line; an offset whose
//	                              record looks like a control record is written <o>:commit or
//	                              <o>:abort (key = version 0 + type 1 / 0, 4 bytes; value 6 bytes)
//	msg <t> <o> key=<hex> value=<hex> headers=<n>   every message handed, raw
//	commit <t> <offset>           CommitMessages returned (last_record_plus_one)
//	stop <t>
//
// kafka-go gives the application no position: p is the last offset handed + 1. Commit styles
// (model.md §13.4, the model's client kafka_go): last_record_plus_one = FetchMessage, then
// CommitMessages of the poll's messages (CommitInterval 0: synchronous, offset + 1 of the last);
// auto_commit = ReadMessage with CommitInterval 0, which commits each message's offset + 1 before
// returning it. Messages are fetched in a goroutine; every poll_interval_ms the main loop takes
// what came. It exits without Close(), as the other txn readers do.
//
// Usage: kafkagotxn CONFIG.json   (written by txn.py)
package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/segmentio/kafka-go"
)

type config struct {
	Bootstrap      string `json:"bootstrap"`
	Topic          string `json:"topic"`
	Group          string `json:"group"`
	Log            string `json:"log"`
	EpochNs        int64  `json:"epoch_ns"`
	StopFile       string `json:"stop_file"`
	Isolation      string `json:"isolation"`
	Commit         string `json:"commit"`
	PollIntervalMs int    `json:"poll_interval_ms"`
}

var (
	cfg  config
	logf *os.File
)

func monotonicNs() int64 {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		panic(e)
	}
	return ts.Nano()
}

func now() string { return fmt.Sprintf("%.1f", float64(monotonicNs()-cfg.EpochNs)/1e6) }

func logLine(format string, a ...any) { fmt.Fprintf(logf, format+"\n", a...) }

// control names a record that has a control record's shape (Kafka's ControlRecordType: key
// int16 version 0, int16 type, 0 abort / 1 commit; EndTransactionMarker value: int16 version,
// int32 coordinator epoch), "" otherwise. The data records of the txn cases have a null key.
func control(m kafka.Message) string {
	k := m.Key
	if len(k) != 4 || k[0] != 0 || k[1] != 0 || k[2] != 0 || len(m.Value) != 6 {
		return ""
	}
	switch k[3] {
	case 0:
		return "abort"
	case 1:
		return "commit"
	}
	return ""
}

func main() {
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		panic(err)
	}
	if logf, err = os.OpenFile(cfg.Log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
		panic(err)
	}
	if cfg.Commit != "last_record_plus_one" && cfg.Commit != "auto_commit" {
		panic("kafkagotxn: commit " + cfg.Commit + " is not a kafka-go reader's")
	}
	iso := kafka.ReadUncommitted
	if cfg.Isolation == "read_committed" {
		iso = kafka.ReadCommitted
	}
	poll := time.Duration(cfg.PollIntervalMs) * time.Millisecond
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers:        []string{cfg.Bootstrap},
		GroupID:        cfg.Group,
		Topic:          cfg.Topic,
		StartOffset:    kafka.FirstOffset,
		IsolationLevel: iso,
		CommitInterval: 0,
		MaxWait:        poll,
		// The assignment: Reader.subscribe logs "subscribed to topics and partitions: map[...]"
		// once the group handed it the partitions (reader.go).
		// kafka-go waits JoinGroupBackoff (default 5 s) after a failed join: on a fresh broker the
		// first FindCoordinator fails while __consumer_offsets is created. Only the retry's wait.
		JoinGroupBackoff: 100 * time.Millisecond,
		// Every line kafka-go logs goes to stderr (reader-NAME.stderr), with the case's clock.
		ErrorLogger: kafka.LoggerFunc(func(f string, a ...any) {
			fmt.Fprintf(os.Stderr, "%s error: %s\n", now(), strings.TrimSuffix(fmt.Sprintf(f, a...), "\n"))
		}),
		Logger: kafka.LoggerFunc(func(f string, a ...any) {
			fmt.Fprintf(os.Stderr, "%s %s\n", now(), strings.TrimSuffix(fmt.Sprintf(f, a...), "\n"))
			if strings.HasPrefix(f, "subscribed to topics and partitions") {
				start := int64(-1)
				if len(a) == 1 {
					// map[{topic:T partition:0}:-2]: the key type is unexported, read the text.
					s := fmt.Sprintf("%v", a[0])
					if i := strings.LastIndex(s, ":"); i >= 0 {
						fmt.Sscanf(strings.TrimSuffix(s[i+1:], "]"), "%d", &start)
					}
				}
				logLine("assigned %s position %d", now(), start)
			}
		}),
	})
	ctx := context.Background()
	msgs := make(chan kafka.Message, 1000)
	go func() {
		for {
			var m kafka.Message
			var err error
			if cfg.Commit == "auto_commit" {
				m, err = r.ReadMessage(ctx)
			} else {
				m, err = r.FetchMessage(ctx)
			}
			if err != nil {
				logLine("error %s %v", now(), err)
				return
			}
			msgs <- m
		}
	}()
	pos := int64(-1)
	for {
		if _, err := os.Stat(cfg.StopFile); err == nil {
			break
		}
		time.Sleep(poll)
		var got []kafka.Message
	drain:
		for {
			select {
			case m := <-msgs:
				got = append(got, m)
			default:
				break drain
			}
		}
		if len(got) == 0 {
			continue
		}
		var sb strings.Builder
		for _, m := range got {
			if c := control(m); c != "" {
				fmt.Fprintf(&sb, " %d:%s", m.Offset, c)
			} else {
				fmt.Fprintf(&sb, " %d", m.Offset)
			}
			pos = m.Offset + 1
		}
		t := now()
		for _, m := range got {
			logLine("msg %s %d key=%s value=%s headers=%d", t, m.Offset, hex.EncodeToString(m.Key),
				hex.EncodeToString(m.Value), len(m.Headers))
		}
		logLine("poll %s %d pos %d%s", t, len(got), pos, sb.String())
		if cfg.Commit == "last_record_plus_one" {
			if err := r.CommitMessages(ctx, got...); err != nil {
				logLine("commit_failed %s %v", now(), err)
			} else {
				logLine("commit %s %d", now(), got[len(got)-1].Offset+1)
			}
		}
	}
	logLine("stop %s", now())
	os.Exit(0)
}
