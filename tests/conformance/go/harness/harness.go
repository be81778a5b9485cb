// Package harness is what the Go conformance consumers share with rdk_consumer.py: the config
// file run.py writes, the log lines it reads (T0 <epoch s>, poll <t> <offset> <n>, done <t>
// <offset>, commit <sent> <returned> <offset>, close_begin <t>, close_end <t>; t = ms since
// T0 on CLOCK_MONOTONIC), the processing sleep and the close trigger (close_delay_ms after record
// close_after is done, cutting the record then in progress).
package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// Config is the JSON file run.py writes (start_consumer).
type Config struct {
	Bootstrap        string      `json:"bootstrap"`
	Topic            string      `json:"topic"`
	Group            string      `json:"group"`
	Log              string      `json:"log"`
	MaxPollRecords   int         `json:"max.poll.records"`
	AutoCommitMs     json.Number `json:"auto.commit.interval.ms"`
	RecordMs         json.Number `json:"record_processing_ms"`
	Strategy         string      `json:"strategy"`
	SessionTimeoutMs int         `json:"session.timeout.ms"`
	HeartbeatMs      int         `json:"heartbeat.interval.ms"`
	CloseAfter       *int64      `json:"close_after"`
	CloseDelayMs     json.Number `json:"close_delay_ms"`
	// A worker pool (model.md §4, §12), as run.py writes it for the Go and Python consumers.
	WorkerPool      bool                   `json:"worker_pool"`
	PoolThreads     int                    `json:"pool_threads"`
	PoolMaxInFlight int                    `json:"pool_max_in_flight_batches"`
	Ordering        string                 `json:"ordering"`
	PoolCommit      string                 `json:"pool_commit"`
	CommitValue     string                 `json:"commit_value"`
	ByOffset        map[string]json.Number `json:"record_processing_ms_by_offset"`
	Extra           json.RawMessage        `json:"-"`
}

var (
	logf  *os.File
	t0    time.Time
	cfg   Config
	raw   []byte    // the config file as Load read it
	close time.Time // zero: no close planned yet
)

// Load reads the config named by os.Args[1] and opens the log.
func Load() *Config {
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	raw = b
	if err := json.Unmarshal(b, &cfg); err != nil {
		panic(err)
	}
	logf, err = os.OpenFile(cfg.Log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		panic(err)
	}
	return &cfg
}

// Ms converts a JSON number of milliseconds.
func Ms(n json.Number) time.Duration {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return 0
	}
	return time.Duration(f * float64(time.Millisecond))
}

// Log writes one line.
func Log(format string, a ...any) {
	fmt.Fprintf(logf, format+"\n", a...)
}

// Now is ms since T0 (Go's time.Since uses the monotonic clock).
func Now() string {
	return fmt.Sprintf("%.3f", float64(time.Since(t0).Nanoseconds())/1e6)
}

// StartAt waits until `at` (a timer's phase, or now) and makes it T0: the first poll returned.
func StartAt(at time.Time) {
	time.Sleep(time.Until(at))
	t0 = time.Now()
	Log("T0 %d.%09d", t0.Unix(), t0.Nanosecond())
}

// Phase is the first instant created + k·interval (k ≥ 1) at least 50 ms from now: where a
// timer started at `created` ticks, so that T0 sits on the model's timer phase (run.py's model
// starts its timers at T0).
func Phase(created time.Time, interval time.Duration) time.Time {
	at := created.Add(interval)
	for time.Until(at) < 50*time.Millisecond {
		at = at.Add(interval)
	}
	return at
}

// Process sleeps record_processing_ms for one record; false when the planned close came first
// (the record in progress is cut, as the Java consumer's close cases do).
func Process() bool {
	d := Ms(cfg.RecordMs)
	if !close.IsZero() && time.Now().Add(d).After(close) {
		time.Sleep(time.Until(close))
		return false
	}
	time.Sleep(d)
	return true
}

// Done logs a finished record and arms the close after record close_after.
func Done(offset int64) {
	Log("done %s %d", Now(), offset)
	if cfg.CloseAfter != nil && *cfg.CloseAfter == offset && close.IsZero() {
		close = time.Now().Add(Ms(cfg.CloseDelayMs))
	}
}

// CloseDue says whether the planned close has come (checked between polls).
func CloseDue() bool {
	return !close.IsZero() && !time.Now().Before(close)
}

// Member is what group.py adds to the config for one member of a group (start_member): its N,
// the case's epoch (CLOCK_MONOTONIC ns) that every member's log counts from, and the go file
// where the driver writes the common start instant G.
type Member struct {
	Member  int    `json:"member"`
	EpochNs int64  `json:"epoch_ns"`
	GoFile  string `json:"go_file"`
	Assign  string `json:"assignor"`
}

var member Member

// LoadMember reads the group fields of the config (Load first); Member 0: one consumer alone.
func LoadMember() *Member {
	if err := json.Unmarshal(raw, &member); err != nil {
		panic(err)
	}
	return &member
}

// monotonicNs is CLOCK_MONOTONIC, the clock group.py and the other members log on.
func monotonicNs() int64 {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		panic(e)
	}
	return ts.Nano()
}

// GT is ms since the case's epoch (group.py's clock), as the group lines carry it.
func GT() string {
	return fmt.Sprintf("%.3f", float64(monotonicNs()-member.EpochNs)/1e6)
}

// readInstant reads an instant (ns since the epoch, "N;") the driver wrote, if it is there.
func readInstant(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	s := strings.TrimSpace(string(b))
	if err != nil || !strings.HasSuffix(s, ";") {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(s, ";"), 10, 64)
	return n, err == nil
}

// GoDue says whether the driver's start instant G has come (it sleeps until G once written).
func GoDue() bool {
	at, ok := readInstant(member.GoFile)
	if !ok {
		return false
	}
	if left := at - (monotonicNs() - member.EpochNs); left > 0 {
		time.Sleep(time.Duration(left))
	}
	return true
}

// Sleep processes one record (record_processing_ms).
func Sleep() {
	time.Sleep(Ms(cfg.RecordMs))
}

// RecordTime is offset's processing time: record_processing_ms_by_offset, else
// record_processing_ms (model.md §12.1).
func RecordTime(offset int64) time.Duration {
	if ms, ok := cfg.ByOffset[strconv.FormatInt(offset, 10)]; ok {
		return Ms(ms)
	}
	return Ms(cfg.RecordMs)
}
