package main

import (
	"encoding/binary"
	"net"
	"testing"
	"time"
)

// udp builds an IPv4 UDP packet of `size` bytes between two ports, with `payload` at its start.
func udp(size int, srcPort, dstPort uint16, payload []byte) []byte {
	b := make([]byte, size)
	b[0] = 0x45
	b[9] = 17
	copy(b[12:16], []byte{10, 247, 2, 2})
	copy(b[16:20], []byte{10, 247, 1, 2})
	binary.BigEndian.PutUint16(b[20:], srcPort)
	binary.BigEndian.PutUint16(b[22:], dstPort)
	copy(b[28:], payload)
	return b
}

func rtpPayload(pt byte, marker bool, seq uint16, ts, ssrc uint32) []byte {
	p := make([]byte, 12)
	p[0] = 0x80
	p[1] = pt
	if marker {
		p[1] |= 0x80
	}
	binary.BigEndian.PutUint16(p[2:], seq)
	binary.BigEndian.PutUint32(p[4:], ts)
	binary.BigEndian.PutUint32(p[8:], ssrc)
	return p
}

// Drives a 40 Mbit/s link with a bulk flow arriving at twice the rate and a sparse flow of one
// 200-byte packet every 10 ms, for `seconds`; returns the sparse flow's sojourn times and the bulk
// flow's sojourns over the last second.
func sparseBesideBulk(t *testing.T, kind QueueKind, limitBytes int, seconds int) (sparse, bulkLate []time.Duration, l *Link) {
	t.Helper()
	l = NewLinkWithQueue(ConstantSchedule(40), t0, kind, limitBytes)
	bulk := udp(1500, 5001, 5201, nil)
	game := udp(200, 40000, 50000, rtpPayload(96, false, 1, 0, 7))
	var out []Release
	end := seconds * 1000 * 8 // steps of 125 µs
	for step := 0; step < end; step++ {
		now := t0.Add(time.Duration(step) * 125 * time.Microsecond)
		// 80 Mbit/s of bulk: 10 000 B per ms = one 1500-byte packet every 150 µs, about.
		if step%6 != 5 {
			out, _ = l.Enqueue(bulk, now, out[:0])
			collect(out, &sparse, &bulkLate, now, seconds)
		}
		if step%80 == 0 {
			out, _ = l.Enqueue(game, now, out[:0])
			collect(out, &sparse, &bulkLate, now, seconds)
		}
		out = l.Advance(now, out[:0])
		collect(out, &sparse, &bulkLate, now, seconds)
	}
	return sparse, bulkLate, l
}

func collect(rs []Release, sparse, bulkLate *[]time.Duration, now time.Time, seconds int) {
	for _, r := range rs {
		if len(r.Data) == 200 {
			*sparse = append(*sparse, r.Sojourn)
		} else if now.Sub(t0) > time.Duration(seconds-1)*time.Second {
			*bulkLate = append(*bulkLate, r.Sojourn)
		}
	}
}

func maxOf(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		if d > m {
			m = d
		}
	}
	return m
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

// The talk's queue: 2 × BDP of a 40 Mbit/s, 40 ms link (400 kB) fills under a bulk flow and every
// packet behind it waits 80 ms; FQ-CoDel serves the sparse flow first and holds the bulk flow's
// standing queue near CoDel's 5 ms target.
func TestFqCodelKeepsSparseFlowOutOfTheBulkQueue(t *testing.T) {
	sparse, bulk, fifo := sparseBesideBulk(t, QueueFifo, 400_000, 3)
	if m := median(sparse[len(sparse)/2:]); m < 75*time.Millisecond || m > 81*time.Millisecond {
		t.Fatalf("fifo 2×BDP: the sparse flow's median sojourn %v, want the full queue's 80 ms", m)
	}
	if fifo.Drops == 0 || median(bulk) < 75*time.Millisecond {
		t.Fatalf("fifo: drops %d, bulk median %v", fifo.Drops, median(bulk))
	}
	sparse, bulk, fq := sparseBesideBulk(t, QueueFqCodel, 400_000, 3)
	if m := maxOf(sparse); m > 2*time.Millisecond {
		t.Fatalf("fq-codel: the sparse flow waited up to %v (a new flow is served before the bulk one)", m)
	}
	q := fq.queue.(*fqCodel)
	if q.CodelDrops == 0 {
		t.Fatal("fq-codel: CoDel never dropped from a flow arriving at twice the link's rate")
	}
	// CoDel's drops are too slow for a flow that ignores them (RFC 8289: it relies on the sender's
	// response), so an unresponsive flow at twice the rate still builds a queue; only its own.
	if m := median(bulk); m < 5*time.Millisecond {
		t.Fatalf("fq-codel: bulk median sojourn %v over the last second", m)
	}
}

// CoDel's control law on a standing queue: 100 packets (30 ms at 40 Mbit/s) waiting, arrivals at
// the link's rate. The sojourn passes 5 ms at ~5 ms; after an interval above the target CoDel
// drops, enters its dropping state (count 1: the next drop an interval later) and then drops at
// interval / sqrt(count): +100 ms, +70.7 ms, +57.7 ms.
func TestCodelControlLaw(t *testing.T) {
	l := NewLinkWithQueue(ConstantSchedule(40), t0, QueueFqCodel, 0)
	var drops []time.Duration
	l.OnDrop = func(_ []byte, at time.Time) { drops = append(drops, at.Sub(t0)) }
	p := udp(1500, 1, 2, nil)
	for i := 0; i < 100; i++ {
		l.Enqueue(p, t0, nil)
	}
	for step := 1; step <= 4000; step++ { // 400 ms in steps of 100 µs; a packet every 300 µs
		now := t0.Add(time.Duration(step) * 100 * time.Microsecond)
		if step%3 == 0 {
			l.Enqueue(p, now, nil)
		}
		l.Advance(now, nil)
	}
	if len(drops) < 4 {
		t.Fatalf("drops at %v", drops)
	}
	near := func(got, want time.Duration) bool { return got > want-time.Millisecond && got < want+time.Millisecond }
	if !near(drops[0], 105300*time.Microsecond) || !near(drops[1]-drops[0], 100*time.Millisecond) ||
		!near(drops[2]-drops[1], 70710*time.Microsecond) || !near(drops[3]-drops[2], 57735*time.Microsecond) {
		t.Fatalf("drops at %v", drops)
	}
}

// CoDel drops nothing from a flow whose packets leave within the 5 ms target.
func TestCodelLeavesAShortQueueAlone(t *testing.T) {
	l := NewLinkWithQueue(ConstantSchedule(40), t0, QueueFqCodel, 0)
	p := udp(1500, 1, 2, nil)
	var out []Release
	for step := 0; step < 40_000; step++ { // 5 s, 30 Mbit/s arriving on a 40 Mbit/s link, in bursts of 5
		now := t0.Add(time.Duration(step) * 125 * time.Microsecond)
		if step%16 < 5 {
			out, _ = l.Enqueue(p, now, out[:0])
		}
		out = l.Advance(now, out[:0])
	}
	if l.Drops != 0 {
		t.Fatalf("%d drops below the link's rate", l.Drops)
	}
}

// Deficit round robin: two saturated flows of different packet sizes get equal bytes.
func TestFqCodelSharesBytesEvenly(t *testing.T) {
	l := NewLinkWithQueue(ConstantSchedule(12), t0, QueueFqCodel, 0)
	a, b := udp(1500, 1, 2, nil), udp(500, 3, 4, nil)
	for i := 0; i < 300; i++ {
		l.Enqueue(a, t0, nil)
	}
	for i := 0; i < 900; i++ {
		l.Enqueue(b, t0, nil)
	}
	bytes := map[int]int{}
	for _, r := range l.Advance(t0.Add(100*time.Millisecond), nil) {
		bytes[len(r.Data)] += len(r.Data)
	}
	if bytes[1500] == 0 || bytes[500] == 0 {
		t.Fatalf("one flow starved: %v", bytes)
	}
	if ratio := float64(bytes[1500]) / float64(bytes[500]); ratio < 0.9 || ratio > 1.1 {
		t.Fatalf("bytes per flow %v (ratio %.2f)", bytes, ratio)
	}
}

// On overflow the head of the flow with the most bytes goes, not the arrival of a small flow.
func TestFqCodelDropsFromTheFattestFlow(t *testing.T) {
	l := NewLinkWithQueue(schedule(t, "1000\n"), t0, QueueFqCodel, 9100)
	var dropped [][]byte
	l.OnDrop = func(d []byte, _ time.Time) { dropped = append(dropped, d) }
	fat := udp(1500, 1, 2, nil)
	for i := 0; i < 6; i++ {
		l.Enqueue(fat, t0, nil)
	}
	thin := udp(200, 3, 4, nil)
	if _, ok := l.Enqueue(thin, t0, nil); !ok {
		t.Fatal("the small flow's arrival was dropped")
	}
	if len(dropped) != 1 || len(dropped[0]) != 1500 || l.Backlog() != 5*1500+200 {
		t.Fatalf("dropped %d packets, backlog %d", len(dropped), l.Backlog())
	}
}

func TestFlowHashUsesPorts(t *testing.T) {
	if flowHash(udp(100, 1, 2, nil)) == flowHash(udp(100, 1, 3, nil)) && flowHash(udp(100, 5, 2, nil)) == flowHash(udp(100, 1, 2, nil)) {
		t.Fatal("different ports, same flow")
	}
	if flowHash(udp(100, 1, 2, nil)) != flowHash(udp(1400, 1, 2, nil)) {
		t.Fatal("one flow hashed apart by size")
	}
}

// RTP is told from RTCP, STUN and DTLS on the same ports (RFC 7983, RFC 5761) and from non-UDP.
func TestParseRTP(t *testing.T) {
	h, ok := parseRTP(udp(1200, 40000, 50000, rtpPayload(96, true, 65535, 3_000_000_000, 0xdeadbeef)))
	if !ok || h.payloadType != 96 || !h.marker || h.seq != 65535 || h.timestamp != 3_000_000_000 || h.ssrc != 0xdeadbeef || h.srcPort != 40000 || h.dstPort != 50000 {
		t.Fatalf("RTP: %+v %v", h, ok)
	}
	rtcp := rtpPayload(0, false, 0, 0, 1)
	rtcp[1] = 200 // sender report
	stun := []byte{0x00, 0x01, 0x00, 0x00, 0x21, 0x12, 0xa4, 0x42, 0, 0, 0, 0}
	dtls := []byte{22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	tcp := udp(1200, 1, 2, rtpPayload(96, false, 1, 1, 1))
	tcp[9] = 6
	for name, pkt := range map[string][]byte{"RTCP": udp(100, 1, 2, rtcp), "STUN": udp(100, 1, 2, stun), "DTLS": udp(100, 1, 2, dtls), "TCP": tcp, "short": udp(30, 1, 2, []byte{0x80, 96})} {
		if _, ok := parseRTP(pkt); ok {
			t.Errorf("%s taken for RTP", name)
		}
	}
}

// The downlink is every subnet given: the client's, and in the demo the person's beyond it; not the server's.
func TestDownlinkSubnets(t *testing.T) {
	_, client, _ := net.ParseCIDR("10.247.1.0/24")
	_, person, _ := net.ParseCIDR("10.247.3.0/24")
	d := downlink{client, person}
	to := func(a, b, c, e byte) []byte { p := udp(100, 1, 2, nil); copy(p[16:20], []byte{a, b, c, e}); return p }
	if !isDownlink(to(10, 247, 1, 2), d) || !isDownlink(to(10, 247, 3, 1), d) || isDownlink(to(10, 247, 2, 2), d) || isDownlink(to(10, 247, 1, 2), nil) {
		t.Fatal("downlink subnets")
	}
}
