package main

// The game's packets, seen by the delay line: every RTP packet to the client, when it reached the
// router, when it left the bottleneck (or that it was dropped), on the delay line's one clock. SRTP
// encrypts the payload only: the RTP header (version, payload type, sequence number, timestamp,
// SSRC) is in clear, so frames can be told apart by (SSRC, timestamp) without keys.

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// rtpHeader is what the log keeps of one RTP packet.
type rtpHeader struct {
	srcPort, dstPort uint16
	payloadType      uint8
	marker           bool
	seq              uint16
	timestamp        uint32
	ssrc             uint32
}

// parseRTP reads the RTP header of an IPv4 UDP packet. Over one 5-tuple WebRTC multiplexes RTP with
// RTCP, STUN and DTLS; RFC 7983 tells them apart by the first byte (128–191: RTP or RTCP) and RFC
// 5761 RTP from RTCP by the second (RTCP's packet types 192–223 fall on RTP payload types 64–95).
func parseRTP(data []byte) (rtpHeader, bool) {
	src, dst, p, ok := udpPorts(data)
	if !ok || len(p) < 12 || p[0] < 128 || p[0] > 191 {
		return rtpHeader{}, false
	}
	pt := p[1] & 0x7f
	if pt >= 64 && pt <= 95 {
		return rtpHeader{}, false
	}
	return rtpHeader{
		srcPort: src, dstPort: dst, payloadType: pt, marker: p[1]&0x80 != 0,
		seq: binary.BigEndian.Uint16(p[2:4]), timestamp: binary.BigEndian.Uint32(p[4:8]), ssrc: binary.BigEndian.Uint32(p[8:12]),
	}, true
}

// rtpEvent kinds: the packet reached the router (in), left the bottleneck (out), was dropped (drop).
const (
	rtpIn   = 'i'
	rtpOut  = 'o'
	rtpDrop = 'd'
)

type rtpEvent struct {
	kind  byte
	at    time.Time
	h     rtpHeader
	bytes int
}

// writeRTPEvent writes one line: kind, µs since the epoch, ports, SSRC, sequence number, RTP
// timestamp, payload type, marker and the IP packet's bytes (one line per event: the lab reads the
// file after the run, and a line being written when it reads is skipped).
func writeRTPEvent(w io.Writer, e rtpEvent) {
	m := 0
	if e.h.marker {
		m = 1
	}
	fmt.Fprintf(w, "%c %d %d %d %d %d %d %d %d %d\n", e.kind, e.at.UnixMicro(), e.h.srcPort, e.h.dstPort, e.h.ssrc, e.h.seq, e.h.timestamp, e.h.payloadType, m, e.bytes)
}

// rtpLog takes events from the real-time writer without ever making it wait: a full channel loses
// the event (counted) rather than delaying packets.
type rtpLog struct {
	events chan rtpEvent
	lost   uint64
}

func newRTPLog(w io.Writer) *rtpLog {
	l := &rtpLog{events: make(chan rtpEvent, 1<<16)}
	go func() {
		bw := bufio.NewWriterSize(w, 64*1024)
		flush := time.NewTicker(200 * time.Millisecond)
		for {
			select {
			case e := <-l.events:
				writeRTPEvent(bw, e)
			case <-flush.C:
				bw.Flush()
			}
		}
	}()
	return l
}

// record logs `data` if it is an RTP packet (a nil log records nothing).
func (l *rtpLog) record(kind byte, data []byte, at time.Time) {
	if l == nil {
		return
	}
	h, ok := parseRTP(data)
	if !ok {
		return
	}
	select {
	case l.events <- rtpEvent{kind: kind, at: at, h: h, bytes: len(data)}:
	default:
		atomic.AddUint64(&l.lost, 1)
	}
}
