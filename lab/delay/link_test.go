package main

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

var t0 = time.Unix(1_700_000_000, 0)

func ms(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Millisecond))) }

func schedule(t *testing.T, text string) *Schedule {
	t.Helper()
	s, err := ParseSchedule(strings.NewReader(text), "test")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func pkt(n int) []byte { return make([]byte, n) }

func TestParseScheduleRefusesWhatMahimahiRefuses(t *testing.T) {
	for text, want := range map[string]string{
		"":         "no timestamps",
		"0\n0\n":   "last timestamp is 0",
		"5\n3\n":   "must not decrease",
		"1\n\n2\n": "empty line",
		"1\nx\n":   "whole number",
		"1 2.5\n":  "whole number",
		"-1\n5\n":  "whole number",
	} {
		if _, err := ParseSchedule(strings.NewReader(text), "t"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error with %q", text, err, want)
		}
	}
	s := schedule(t, "0\n0\n3\r\n10\n")
	if s.Period() != 10 || len(s.Ms) != 4 {
		t.Fatalf("got %v", s.Ms)
	}
}

func TestCountAndOffsetLoop(t *testing.T) {
	s := schedule(t, "0\n4\n10\n") // opportunities at 0, 4, 10 | 10, 14, 20 | 20, 24, 30 …
	cases := map[float64]int64{-1: 0, 0: 1, 3.9: 1, 4: 2, 9.99: 2, 10: 4, 13: 4, 14: 5, 20: 7, 29: 8, 30: 10}
	for e, want := range cases {
		if got := s.CountUpTo(e); got != want {
			t.Errorf("CountUpTo(%v) = %d, want %d", e, got, want)
		}
	}
	for j, want := range []int64{0, 4, 10, 10, 14, 20, 20, 24, 30} {
		if got := s.OffsetOf(int64(j)); got != want {
			t.Errorf("OffsetOf(%d) = %d, want %d", j, got, want)
		}
	}
	// Consistent: the (j+1)-th opportunity is counted once its time has come.
	for j := int64(0); j < 30; j++ {
		if c := s.CountUpTo(float64(s.OffsetOf(j))); c < j+1 {
			t.Errorf("opportunity %d at %d ms: count %d", j, s.OffsetOf(j), c)
		}
	}
}

// One opportunity per ms = 12 Mbit/s: a saturated link releases exactly one 1500-byte packet per ms,
// at the opportunities' times, and the backlog drains at that pace.
func TestSaturatedLinkReleasesAtTheOpportunities(t *testing.T) {
	l := NewLink(schedule(t, "1\n"), t0, 0)
	var out []Release
	for i := 0; i < 10; i++ {
		out, _ = l.Enqueue(pkt(1500), ms(0.5), out)
	}
	if len(out) != 0 || l.Backlog() != 15000 {
		t.Fatalf("released %d, backlog %d", len(out), l.Backlog())
	}
	out = l.Advance(ms(4.5), nil)
	if len(out) != 4 {
		t.Fatalf("by 4.5 ms: %d released, want 4", len(out))
	}
	for i, r := range out {
		if want := ms(float64(i + 1)); !r.At.Equal(want) {
			t.Errorf("release %d at %v, want %v", i, r.At.Sub(t0), want.Sub(t0))
		}
		if want := time.Duration((float64(i) + 0.5) * float64(time.Millisecond)); r.Sojourn != want {
			t.Errorf("sojourn %v, want %v", r.Sojourn, want)
		}
	}
	if w := DrainWait(l.Schedule(), l.Start(), ms(4.5), l.Backlog()); w != 5500*time.Microsecond {
		t.Errorf("drain wait %v, want 5.5 ms (6 packets left, the last at 10 ms)", w)
	}
	out = l.Advance(ms(100), nil)
	if len(out) != 6 || l.ReleasedBytes != 15000 || l.Busy() {
		t.Fatalf("released %d, bytes %d", len(out), l.ReleasedBytes)
	}
}

// Opportunities that find the queue empty are lost; a packet arriving at an opportunity's instant
// does not use it (mahimahi runs the link up to now before it enqueues).
func TestUnusedOpportunitiesAreLost(t *testing.T) {
	l := NewLink(schedule(t, "10\n"), t0, 0) // one opportunity every 10 ms
	out, _ := l.Enqueue(pkt(100), ms(50), nil)
	if len(out) != 0 {
		t.Fatal("a packet arriving at 50 ms left at 50 ms")
	}
	out = l.Advance(ms(59.9), nil)
	if len(out) != 0 {
		t.Fatal("left before the next opportunity")
	}
	out = l.Advance(ms(60), nil)
	if len(out) != 1 || !out[0].At.Equal(ms(60)) {
		t.Fatalf("got %v", out)
	}
	if cap := l.CapacityBytes(ms(60)); cap != 6*1500 || l.UsedOppBytes != 100 {
		t.Errorf("capacity %d used %d", cap, l.UsedOppBytes)
	}
}

// Bytes, not packets: an opportunity carries 1500 bytes across packet boundaries, and a packet
// bigger than what is left stays in transit until a later opportunity carries its last byte.
func TestOpportunityBytesCarryAcrossPackets(t *testing.T) {
	l := NewLink(schedule(t, "1\n"), t0, 0)
	for i := 0; i < 6; i++ {
		l.Enqueue(pkt(1000), ms(0), nil)
	}
	out := l.Advance(ms(1), nil)
	if len(out) != 1 || l.Backlog() != 4500 {
		t.Fatalf("after 1 opportunity: %d released, backlog %d (want 1, 4500)", len(out), l.Backlog())
	}
	out = l.Advance(ms(2), nil)
	if len(out) != 2 || !out[1].At.Equal(ms(2)) {
		t.Fatalf("after 2 opportunities: %d more released (want 2)", len(out))
	}
	out = l.Advance(ms(4), nil)
	if len(out) != 3 || l.Busy() {
		t.Fatalf("after 4 opportunities: %d more released (want 3)", len(out))
	}
}

// Drop-tail on bytes: a packet is queued if the queue, without the packet in transit, stays within the limit.
func TestDropTailOnBytes(t *testing.T) {
	l := NewLink(schedule(t, "1000\n"), t0, 4000)
	for i := 0; i < 5; i++ {
		l.Enqueue(pkt(1500), ms(0), nil)
	}
	if l.Drops != 3 || l.DropBytes != 4500 || l.Backlog() != 3000 {
		t.Fatalf("drops %d (%d B), backlog %d", l.Drops, l.DropBytes, l.Backlog())
	}
	// 1000 B more fit (4000 exactly); then one more byte does not.
	if _, ok := l.Enqueue(pkt(1000), ms(0), nil); !ok {
		t.Fatal("a packet filling the queue exactly was dropped")
	}
	if _, ok := l.Enqueue(pkt(1), ms(0), nil); ok {
		t.Fatal("a packet beyond the limit was queued")
	}
	// The packet in transit no longer counts: after the first opportunity 1500 B fit again.
	l2 := NewLink(schedule(t, "1\n"), t0, 3000)
	l2.Enqueue(pkt(1500), ms(0), nil)
	l2.Enqueue(pkt(1500), ms(0), nil)
	out, ok := l2.Enqueue(pkt(1500), ms(1), nil)
	if !ok || len(out) != 1 {
		t.Fatalf("queued %v, released %d", ok, len(out))
	}
}

// A trace shorter than the session loops, and its rate steps show at sub-second scale: a trace of
// 100 ms at 12 Mbit/s (one opportunity per ms) then 100 ms at 1.2 Mbit/s (one per 10 ms), period
// 200 ms. A saturated link releases 100 packets in the first 100 ms and 10 in the next, every pass.
func TestLoopedStepTraceAtSubSecondScale(t *testing.T) {
	var b strings.Builder
	for m := 1; m <= 100; m++ {
		b.WriteString(itoa(m) + "\n")
	}
	for m := 110; m <= 200; m += 10 {
		b.WriteString(itoa(m) + "\n")
	}
	s := schedule(t, b.String())
	l := NewLink(s, t0, 0)
	for i := 0; i < 2000; i++ {
		l.Enqueue(pkt(1500), ms(0), nil)
	}
	perWindow := []int{}
	for w := 1; w <= 8; w++ {
		out := l.Advance(ms(float64(w*100)), nil)
		perWindow = append(perWindow, len(out))
	}
	want := []int{100, 10, 100, 10, 100, 10, 100, 10}
	for i := range want {
		if perWindow[i] != want[i] {
			t.Fatalf("packets per 100 ms window: %v, want %v", perWindow, want)
		}
	}
	if c := l.CapacityBytes(ms(800)); c != uint64(4*110*1500) {
		t.Errorf("capacity over 4 passes %d", c)
	}
}

// A long idle gap is skipped without walking every lost opportunity, and the link resumes in phase.
func TestIdleSkipKeepsPhase(t *testing.T) {
	l := NewLink(schedule(t, "0\n5\n"), t0, 0) // 0, 5 | 5, 10 | 10, 15 …: two at each multiple of 5 ms but 0
	out, _ := l.Enqueue(pkt(3000), ms(1_000_000.2), nil)
	if len(out) != 0 {
		t.Fatal("released on arrival")
	}
	out = l.Advance(ms(1_000_005), nil)
	if len(out) != 1 || !out[0].At.Equal(ms(1_000_005)) {
		t.Fatalf("a 3000-byte packet should leave at the next instant with two opportunities: %v", out)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// The packet path allocates nothing once the ring has grown: the delay line runs without a collector.
func TestLinkDoesNotAllocatePerPacket(t *testing.T) {
	l := NewLink(schedule(t, "1\n"), t0, 0)
	buf := pkt(1500)
	out := make([]Release, 0, 16)
	now := 0.0
	for i := 0; i < 100; i++ { // grow the ring first
		out, _ = l.Enqueue(buf, ms(now), out[:0])
	}
	allocs := testing.AllocsPerRun(1000, func() {
		now += 1
		out, _ = l.Enqueue(buf, ms(now), out[:0])
		out = l.Advance(ms(now+0.5), out[:0])
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per packet", allocs)
	}
}

// Between traces the link runs at a constant rate; a switch keeps what waits and restarts the clock.
func TestConstantScheduleAndSwitch(t *testing.T) {
	s := ConstantSchedule(40)
	if len(s.Ms) != 400 || s.Period() != 120 {
		t.Fatalf("40 Mbit/s: %d opportunities per %d ms", len(s.Ms), s.Period())
	}
	if c := s.CountUpTo(12_000) - s.CountUpTo(0); c != 40_000 { // 12 s × 40 Mbit/s = 60 MB = 40 000 × 1500 B
		t.Fatalf("count over 12 s: %d", c)
	}
	l := NewLink(s, t0, 0)
	for i := 0; i < 5; i++ {
		l.Enqueue(pkt(1500), ms(0), nil)
	}
	l.Switch(schedule(t, "10\n"), ms(0.5))
	if l.Backlog() != 7500 || l.ReleasedBytes != 0 {
		t.Fatalf("backlog %d released %d after the switch", l.Backlog(), l.ReleasedBytes)
	}
	out := l.Advance(ms(30.5), nil)
	if len(out) != 3 || !out[0].At.Equal(ms(10.5)) {
		t.Fatalf("after the switch: %d released, first at %v", len(out), out[0].At.Sub(t0))
	}
}
