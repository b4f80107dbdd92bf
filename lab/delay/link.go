package main

// A trace-driven link, as mahimahi's mm-link (LinkQueue, src/packet/link_queue.cc) emulates one:
// the trace lists delivery opportunities, one per line, each a millisecond offset at which the
// link may send up to 1500 bytes; several may share a millisecond. The last offset is also the
// period: after it the trace starts again (looped), so an opportunity at the period and one at 0
// of the next pass both happen at that instant. Packets wait in a byte-limited drop-tail queue.
//
// At each opportunity its 1500 bytes go to the packet at the head of the queue, carrying over to
// the next packets while bytes are left (a packet larger than what is left stays "in transit" and
// takes the next opportunity's bytes too); a packet leaves when its last byte has been sent, at
// that opportunity's time. An opportunity that finds the queue empty is lost: the link does not
// save capacity for later. A packet arriving at the instant of an opportunity does not use it
// (mahimahi burns the opportunities up to now before it enqueues). The drop-tail queue accepts a
// packet if the bytes queued after it, not counting the packet in transit, stay within the limit.
//
// Everything here is pure (times are passed in), so it is tested without a TUN device or root.

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// OpportunityBytes is what one delivery opportunity may carry (mahimahi's PACKET_SIZE).
const OpportunityBytes = 1500

// Schedule is a parsed mahimahi trace: opportunity offsets in ms, non-decreasing, the last > 0 and
// equal to the period.
type Schedule struct {
	Ms []int64
}

// Period of one pass, ms.
func (s *Schedule) Period() int64 { return s.Ms[len(s.Ms)-1] }

// ParseSchedule reads a mahimahi trace: one whole number of milliseconds per line. It refuses what
// mahimahi refuses (an empty line, a decreasing timestamp, no timestamps, a last timestamp of 0).
func ParseSchedule(r io.Reader, name string) (*Schedule, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var ms []int64
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			// mahimahi refuses empty lines; a trailing newline at the end of the file is not one.
			return nil, fmt.Errorf("%s:%d: empty line (mahimahi traces have one timestamp per line)", name, line)
		}
		v, err := strconv.ParseInt(text, 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%s:%d: expected a whole number of milliseconds, found %q", name, line, text)
		}
		if n := len(ms); n > 0 && v < ms[n-1] {
			return nil, fmt.Errorf("%s:%d: timestamps must not decrease (%d after %d)", name, line, v, ms[n-1])
		}
		ms = append(ms, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("%s: no timestamps", name)
	}
	if ms[len(ms)-1] == 0 {
		return nil, fmt.Errorf("%s: the last timestamp is 0: a trace must last a nonzero time", name)
	}
	return &Schedule{Ms: ms}, nil
}

// CountUpTo is the number of opportunities at offsets ≤ elapsedMs since the trace started (looped).
func (s *Schedule) CountUpTo(elapsedMs float64) int64 {
	if elapsedMs < 0 {
		return 0
	}
	p := s.Period()
	n := int64(len(s.Ms))
	passes := int64(elapsedMs / float64(p))
	rem := elapsedMs - float64(passes*p)
	// Opportunities of the current pass at offsets ≤ rem.
	k := sort.Search(len(s.Ms), func(i int) bool { return float64(s.Ms[i]) > rem })
	return passes*n + int64(k)
}

// OffsetOf is the time of the j-th opportunity (0-based, looped) since the trace started, ms.
func (s *Schedule) OffsetOf(j int64) int64 {
	n := int64(len(s.Ms))
	return (j/n)*s.Period() + s.Ms[j%n]
}

// Packet in the link: its bytes and when it reached the link.
type linkPacket struct {
	data    []byte
	arrival time.Time
}

// Release is a packet leaving the link: its bytes and the opportunity it left at.
type Release struct {
	Data []byte
	At   time.Time
	// Sojourn in the link (queue and transmission), arrival → release.
	Sojourn time.Duration
}

// Link is one direction's trace-driven queue.
type Link struct {
	sched *Schedule
	start time.Time
	next  int64 // index (looped) of the next opportunity

	queue       packetQueue
	transit     linkPacket
	transitLeft int
	// OnDrop sees every packet the queue drops (nil: none), with the time of the drop.
	OnDrop func(data []byte, at time.Time)
	drop   func(linkPacket, time.Time)

	// Counters since the trace started.
	ReleasedBytes   uint64
	ReleasedPackets uint64
	Drops           uint64
	DropBytes       uint64
	UsedOppBytes    uint64
}

// QueueKind names the link's queue: a drop-tail FIFO of the byte limit, or FQ-CoDel.
type QueueKind string

const (
	QueueFifo    QueueKind = "fifo"
	QueueFqCodel QueueKind = "fq-codel"
)

// NewLink starts a trace at `start` with an empty drop-tail queue of `limitBytes` (0: unlimited).
func NewLink(s *Schedule, start time.Time, limitBytes int) *Link {
	return NewLinkWithQueue(s, start, QueueFifo, limitBytes)
}

// NewLinkWithQueue starts a trace at `start` with an empty queue of that kind; FQ-CoDel's overflow
// limit is `limitBytes` besides its 10 240 packets.
func NewLinkWithQueue(s *Schedule, start time.Time, kind QueueKind, limitBytes int) *Link {
	l := &Link{sched: s, start: start}
	if kind == QueueFqCodel {
		l.queue = newFqCodel(limitBytes)
	} else {
		l.queue = &dropTail{limitBytes: limitBytes}
	}
	l.drop = func(p linkPacket, at time.Time) {
		l.Drops++
		l.DropBytes += uint64(len(p.data))
		if l.OnDrop != nil {
			l.OnDrop(p.data, at)
		}
	}
	return l
}

// Switch to another schedule whose clock starts at `start`: what waits stays queued and leaves at
// the new schedule's opportunities; the counters start again.
func (l *Link) Switch(s *Schedule, start time.Time) {
	l.sched = s
	l.start = start
	l.next = 0
	l.ReleasedBytes, l.ReleasedPackets, l.Drops, l.DropBytes, l.UsedOppBytes = 0, 0, 0, 0, 0
}

// ConstantSchedule is a link of `mbps` as a mahimahi trace: round(mbps × 10) opportunities spread
// evenly over 120 ms (12 Mbit/s is one 1500-byte opportunity per millisecond).
func ConstantSchedule(mbps float64) *Schedule {
	const periodMs = 120
	n := int(mbps*10 + 0.5)
	if n < 1 {
		n = 1
	}
	ms := make([]int64, n)
	for i := range ms {
		ms[i] = int64((i + 1) * periodMs / n)
	}
	ms[n-1] = periodMs
	return &Schedule{Ms: ms}
}

// Start of the trace's clock.
func (l *Link) Start() time.Time { return l.start }

// Schedule the link follows.
func (l *Link) Schedule() *Schedule { return l.sched }

func (l *Link) at(j int64) time.Time {
	return l.start.Add(time.Duration(l.sched.OffsetOf(j)) * time.Millisecond)
}

// NextOpportunity is when the link may next send.
func (l *Link) NextOpportunity() time.Time { return l.at(l.next) }

// Backlog in bytes: queued plus what is left of the packet in transit.
func (l *Link) Backlog() int { return l.queue.bytes() + l.transitLeft }

// Busy says whether packets wait (the link has something to send at its next opportunity).
func (l *Link) Busy() bool { return l.transitLeft > 0 || l.queue.len() > 0 }

// Advance uses every opportunity up to and including `now`, returning the packets that left, in order.
func (l *Link) Advance(now time.Time, out []Release) []Release {
	if !l.Busy() {
		// Nothing waits: the opportunities until now are lost. Skip them at once.
		elapsed := float64(now.Sub(l.start)) / float64(time.Millisecond)
		if c := l.sched.CountUpTo(elapsed); c > l.next {
			l.next = c
		}
		return out
	}
	for {
		t := l.at(l.next)
		if t.After(now) {
			return out
		}
		l.next++
		left := OpportunityBytes
		for left > 0 {
			if l.transitLeft == 0 {
				p, ok := l.queue.dequeue(t, l.drop)
				if !ok {
					break
				}
				l.transit = p
				l.transitLeft = len(p.data)
			}
			n := left
			if l.transitLeft < n {
				n = l.transitLeft
			}
			l.transitLeft -= n
			left -= n
			l.UsedOppBytes += uint64(n)
			if l.transitLeft == 0 {
				p := l.transit
				l.transit = linkPacket{}
				l.ReleasedBytes += uint64(len(p.data))
				l.ReleasedPackets++
				out = append(out, Release{Data: p.data, At: t, Sojourn: t.Sub(p.arrival)})
			}
		}
		if !l.Busy() {
			// Emptied: skip the rest up to now without walking them one by one.
			return l.Advance(now, out)
		}
	}
}

// Enqueue a packet arriving at `now`: first the link runs up to `now` (what leaves is returned),
// then the packet joins the queue or is dropped (drop-tail on bytes; FQ-CoDel may drop another
// flow's head instead). Reports whether it was queued; every drop goes to OnDrop.
func (l *Link) Enqueue(data []byte, now time.Time, out []Release) ([]Release, bool) {
	out = l.Advance(now, out)
	return out, l.queue.enqueue(linkPacket{data: data, arrival: now}, now, l.drop)
}

// Flush empties the link at once (when the trace is switched off), returning what waited.
func (l *Link) Flush(now time.Time) []Release {
	var out []Release
	if l.transitLeft > 0 {
		out = append(out, Release{Data: l.transit.data, At: now, Sojourn: now.Sub(l.transit.arrival)})
		l.transit = linkPacket{}
		l.transitLeft = 0
	}
	l.queue.clear(func(p linkPacket) {
		out = append(out, Release{Data: p.data, At: now, Sojourn: now.Sub(p.arrival)})
	})
	return out
}

// CapacityBytes the trace offered from its start up to `now` (every opportunity at ≤ now, used or not).
func (l *Link) CapacityBytes(now time.Time) uint64 {
	return uint64(l.sched.CountUpTo(float64(now.Sub(l.start))/float64(time.Millisecond))) * OpportunityBytes
}

// DrainWait is how long `backlog` bytes take to leave from `now` on: until the opportunity that
// carries their last byte (0 when nothing waits).
func DrainWait(s *Schedule, start time.Time, now time.Time, backlog int) time.Duration {
	if backlog <= 0 {
		return 0
	}
	done := s.CountUpTo(float64(now.Sub(start)) / float64(time.Millisecond))
	need := int64((backlog + OpportunityBytes - 1) / OpportunityBytes)
	last := start.Add(time.Duration(s.OffsetOf(done+need-1)) * time.Millisecond)
	if w := last.Sub(now); w > 0 {
		return w
	}
	return 0
}
