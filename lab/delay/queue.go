package main

// The link's queue: a byte-limited drop-tail FIFO (mahimahi's DropTailPacketQueue, the default) or
// FQ-CoDel as RFC 8290 describes it. This kernel has no fq_codel qdisc (nor netem, fq or cake), so
// the home link's AQM is emulated here, on the same real-time thread that already times every
// packet of the downlink.

import (
	"encoding/binary"
	"math"
	"time"
)

// A queue hands the link its next packet at a delivery opportunity. Drops go to the link's drop
// hook (the FIFO drops arrivals; FQ-CoDel drops at the head of its flows).
type packetQueue interface {
	// enqueue a packet arriving at `now`; false when the arrival itself was dropped.
	enqueue(p linkPacket, now time.Time, drop func(linkPacket, time.Time)) bool
	// dequeue the next packet to send at `now` (the link starts sending it then).
	dequeue(now time.Time, drop func(linkPacket, time.Time)) (linkPacket, bool)
	bytes() int
	len() int
	// clear hands every queued packet to `each`, oldest flow first.
	clear(each func(linkPacket))
}

// ring is a FIFO of packets that allocates only when it grows (the delay line runs with the
// collector off, so the packet path must not allocate).
type ring struct {
	buf  []linkPacket
	head int
	n    int
}

func (r *ring) push(p linkPacket) {
	if r.n == len(r.buf) {
		grown := make([]linkPacket, 2*len(r.buf)+64)
		for i := 0; i < r.n; i++ {
			grown[i] = r.buf[(r.head+i)%len(r.buf)]
		}
		r.buf = grown
		r.head = 0
	}
	r.buf[(r.head+r.n)%len(r.buf)] = p
	r.n++
}

func (r *ring) pop() linkPacket {
	p := r.buf[r.head]
	r.buf[r.head] = linkPacket{}
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	return p
}

// dropTail: the queue accepts a packet if the bytes queued after it, not counting the packet in
// transit, stay within the limit (0: unlimited).
type dropTail struct {
	limitBytes int
	q          ring
	queueBytes int
}

func (d *dropTail) enqueue(p linkPacket, now time.Time, drop func(linkPacket, time.Time)) bool {
	if d.limitBytes > 0 && d.queueBytes+len(p.data) > d.limitBytes {
		drop(p, now)
		return false
	}
	d.q.push(p)
	d.queueBytes += len(p.data)
	return true
}

func (d *dropTail) dequeue(time.Time, func(linkPacket, time.Time)) (linkPacket, bool) {
	if d.q.n == 0 {
		return linkPacket{}, false
	}
	p := d.q.pop()
	d.queueBytes -= len(p.data)
	return p, true
}

func (d *dropTail) bytes() int { return d.queueBytes }
func (d *dropTail) len() int   { return d.q.n }
func (d *dropTail) clear(each func(linkPacket)) {
	for d.q.n > 0 {
		each(d.q.pop())
	}
	d.queueBytes = 0
}

// FQ-CoDel's parameters: RFC 8290's (and Linux's) defaults.
const (
	fqFlows       = 1024
	fqQuantum     = 1514
	fqLimitPkts   = 10240
	codelTarget   = 5 * time.Millisecond
	codelInterval = 100 * time.Millisecond
	// CoDel does not drop while a flow holds at most one MTU (RFC 8289's maxpacket).
	codelMaxPacket = 1514
)

type flowList int8

const (
	inNone flowList = iota
	inNew
	inOld
)

type fqFlow struct {
	q       ring
	bytes   int
	deficit int
	list    flowList
	next    int // next flow in its list, -1 at the tail
	// CoDel's state (RFC 8289, section 5).
	firstAboveTime time.Time
	dropNext       time.Time
	count          uint32
	lastCount      uint32
	dropping       bool
}

type flowQueue struct{ head, tail int }

func (l *flowQueue) empty() bool { return l.head < 0 }

// fqCodel: flows hashed by 5-tuple into 1024 queues, served by deficit round robin with a quantum
// of 1514 bytes, new flows before old ones; CoDel (target 5 ms, interval 100 ms) on each flow's
// head; when the queue is over its limit (packets, or bytes if limitBytes > 0) it drops the head
// of the flow holding the most bytes (RFC 8290, section 4.1).
type fqCodel struct {
	flows      [fqFlows]fqFlow
	newFlows   flowQueue
	oldFlows   flowQueue
	limitBytes int
	totalBytes int
	totalPkts  int
	// Drops CoDel made and drops on overflow, since the queue began.
	CodelDrops    uint64
	OverflowDrops uint64
}

func newFqCodel(limitBytes int) *fqCodel {
	f := &fqCodel{limitBytes: limitBytes, newFlows: flowQueue{-1, -1}, oldFlows: flowQueue{-1, -1}}
	for i := range f.flows {
		f.flows[i].next = -1
	}
	return f
}

// flowHash maps an IPv4 packet's 5-tuple (source, destination, protocol and, for TCP and UDP, the
// ports) to a flow; anything else by its addresses, or flow 0. FNV-1a: cheap and allocation-free.
func flowHash(data []byte) int {
	if len(data) < 20 || data[0]>>4 != 4 {
		return 0
	}
	h := uint32(2166136261)
	mix := func(b []byte) {
		for _, c := range b {
			h ^= uint32(c)
			h *= 16777619
		}
	}
	mix(data[12:20]) // source and destination addresses
	mix(data[9:10])  // protocol
	ihl := int(data[0]&0x0f) * 4
	if (data[9] == 6 || data[9] == 17) && len(data) >= ihl+4 {
		mix(data[ihl : ihl+4]) // ports
	}
	return int(h % fqFlows)
}

func (f *fqCodel) listOf(which flowList) *flowQueue {
	if which == inNew {
		return &f.newFlows
	}
	return &f.oldFlows
}

func (f *fqCodel) appendTo(which flowList, i int) {
	l := f.listOf(which)
	f.flows[i].list = which
	f.flows[i].next = -1
	if l.tail < 0 {
		l.head = i
	} else {
		f.flows[l.tail].next = i
	}
	l.tail = i
}

func (f *fqCodel) popHead(which flowList) int {
	l := f.listOf(which)
	i := l.head
	l.head = f.flows[i].next
	if l.head < 0 {
		l.tail = -1
	}
	f.flows[i].next = -1
	f.flows[i].list = inNone
	return i
}

func (f *fqCodel) enqueue(p linkPacket, now time.Time, drop func(linkPacket, time.Time)) bool {
	i := flowHash(p.data)
	fl := &f.flows[i]
	fl.q.push(p)
	fl.bytes += len(p.data)
	f.totalBytes += len(p.data)
	f.totalPkts++
	if fl.list == inNone {
		f.appendTo(inNew, i)
		fl.deficit = fqQuantum
	}
	arrivalDropped := false
	for f.totalPkts > fqLimitPkts || (f.limitBytes > 0 && f.totalBytes > f.limitBytes) {
		fat := 0
		for j := range f.flows {
			if f.flows[j].bytes > f.flows[fat].bytes {
				fat = j
			}
		}
		// The fattest flow's head goes: the arrival itself only when it is the one packet of that flow.
		if fat == i && f.flows[fat].q.n == 1 {
			arrivalDropped = true
		}
		d := f.pop(fat)
		f.OverflowDrops++
		drop(d, now)
	}
	return !arrivalDropped
}

func (f *fqCodel) pop(i int) linkPacket {
	fl := &f.flows[i]
	p := fl.q.pop()
	fl.bytes -= len(p.data)
	f.totalBytes -= len(p.data)
	f.totalPkts--
	return p
}

// codelHead is RFC 8289's dodequeue: the flow's head and whether its sojourn has stayed above the
// target for an interval.
func (f *fqCodel) codelHead(i int, now time.Time) (linkPacket, bool, bool) {
	fl := &f.flows[i]
	if fl.q.n == 0 {
		fl.firstAboveTime = time.Time{}
		return linkPacket{}, false, false
	}
	p := f.pop(i)
	sojourn := now.Sub(p.arrival)
	if sojourn < codelTarget || fl.bytes <= codelMaxPacket {
		fl.firstAboveTime = time.Time{}
		return p, true, false
	}
	if fl.firstAboveTime.IsZero() {
		fl.firstAboveTime = now.Add(codelInterval)
		return p, true, false
	}
	return p, true, !now.Before(fl.firstAboveTime)
}

func controlLaw(t time.Time, count uint32) time.Time {
	return t.Add(time.Duration(float64(codelInterval) / math.Sqrt(float64(count))))
}

// codelDequeue is RFC 8289's dequeue on one flow.
func (f *fqCodel) codelDequeue(i int, now time.Time, drop func(linkPacket, time.Time)) (linkPacket, bool) {
	fl := &f.flows[i]
	p, ok, okToDrop := f.codelHead(i, now)
	if !ok {
		fl.dropping = false
		return p, false
	}
	if fl.dropping {
		if !okToDrop {
			fl.dropping = false
		}
		for fl.dropping && !now.Before(fl.dropNext) {
			drop(p, now)
			f.CodelDrops++
			fl.count++
			p, ok, okToDrop = f.codelHead(i, now)
			if !ok {
				fl.dropping = false
				return p, false
			}
			if !okToDrop {
				fl.dropping = false
			} else {
				fl.dropNext = controlLaw(fl.dropNext, fl.count)
			}
		}
	} else if okToDrop {
		drop(p, now)
		f.CodelDrops++
		p, ok, _ = f.codelHead(i, now)
		fl.dropping = true
		delta := fl.count - fl.lastCount
		if delta > 1 && now.Sub(fl.dropNext) < 16*codelInterval {
			fl.count = delta
		} else {
			fl.count = 1
		}
		fl.dropNext = controlLaw(now, fl.count)
		fl.lastCount = fl.count
		if !ok {
			return p, false
		}
	}
	return p, true
}

// dequeue is RFC 8290's scheduler (section 4.2): new flows first, each spending its deficit; a flow
// out of deficit gets a quantum more and goes to the end of the old flows; a new flow that empties
// goes to the end of the old flows (so it cannot come back as new at once), an old one leaves.
func (f *fqCodel) dequeue(now time.Time, drop func(linkPacket, time.Time)) (linkPacket, bool) {
	for {
		which := inNew
		if f.newFlows.empty() {
			if f.oldFlows.empty() {
				return linkPacket{}, false
			}
			which = inOld
		}
		i := f.listOf(which).head
		fl := &f.flows[i]
		if fl.deficit <= 0 {
			fl.deficit += fqQuantum
			f.popHead(which)
			f.appendTo(inOld, i)
			continue
		}
		p, ok := f.codelDequeue(i, now, drop)
		if !ok {
			f.popHead(which)
			if which == inNew && !f.oldFlows.empty() {
				f.appendTo(inOld, i)
			}
			continue
		}
		fl.deficit -= len(p.data)
		return p, true
	}
}

func (f *fqCodel) bytes() int { return f.totalBytes }
func (f *fqCodel) len() int   { return f.totalPkts }
func (f *fqCodel) clear(each func(linkPacket)) {
	for i := range f.flows {
		for f.flows[i].q.n > 0 {
			each(f.pop(i))
		}
		f.flows[i] = fqFlow{q: f.flows[i].q, next: -1}
	}
	f.newFlows, f.oldFlows = flowQueue{-1, -1}, flowQueue{-1, -1}
}

// udpPorts of an IPv4 UDP packet (ok false for anything else).
func udpPorts(data []byte) (src, dst uint16, payload []byte, ok bool) {
	if len(data) < 20 || data[0]>>4 != 4 || data[9] != 17 {
		return 0, 0, nil, false
	}
	ihl := int(data[0]&0x0f) * 4
	if len(data) < ihl+8 || binary.BigEndian.Uint16(data[6:8])&0x1fff != 0 {
		return 0, 0, nil, false // a fragment after the first has no UDP header
	}
	return binary.BigEndian.Uint16(data[ihl:]), binary.BigEndian.Uint16(data[ihl+2:]), data[ihl+8:], true
}
