// sammy-delay: a constant propagation delay for the lab's router, at the packet level, and a
// trace-driven bottleneck in one direction.
//
// netem is not in this kernel, and a TCP proxy would terminate the flows it should only delay, so
// the router sends every forwarded packet through a TUN device: this program reads each IP packet,
// holds it for the one-way delay, and writes it back unchanged; the kernel then routes it on to the
// bottleneck. Packets keep their order (one FIFO, one constant delay), nothing is rewritten, and the
// TCP endpoints see only a longer path.
//
// With -down-dst, IPv4 packets to that subnet (the client's) then go through a link as mahimahi's
// mm-link emulates one (link.go): delivery opportunities of 1500 bytes at a trace's milliseconds,
// looped, a drop-tail queue of -queue-bytes. A `trace FILE` line on stdin switches it to that
// trace, whose clock starts when the line is read; `off` back to a constant -idle-mbps (between
// runs: page loads, warm-up). What waits in the queue stays queued across a switch. Each is answered by one line on stdout (`trace-on …`, `trace-off`, `error …`).
// While a trace is on, every -stats-ms a JSON line goes to -stats: released bytes and the trace's
// capacity since it started, the backlog, the wait it means, drops and release lateness (with
// -stats-idle also while the constant link runs, id 0: the home link is a trace of one rate).
// -queue-kind picks the link's queue: a drop-tail FIFO or FQ-CoDel (queue.go; the kernel has no
// fq_codel). -rtp-log logs every RTP packet to the client as it reaches the router, leaves the
// link or is dropped (rtp.go): the game's network delay on this one clock.
//
//	sammy-delay -dev NAME -delay-us N [-down-dst CIDR -queue-bytes N -queue-kind fifo|fq-codel -stats FILE -stats-idle -rtp-log FILE]
//
// Prints "ready <dev>" once the device exists; on SIGTERM or SIGINT prints one JSON line of counters.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

const (
	tunSetIff       = 0x400454ca // TUNSETIFF
	iffTun          = 0x0001
	iffNoPi         = 0x1000
	prSetTimerSlack = 29
	schedFifo       = 1
	maxPacket       = 65536
	// Packets in flight at once: at 40 Mbit/s a 2.5 ms delay holds ~9 full-size packets, but a
	// sender's line-rate burst arrives before the bottleneck (which comes after the delay).
	queueCapacity = 1 << 16
	// Packet buffers are recycled (no garbage, so no collector running beside the two threads):
	// this many, of this size (the lab's MTU is 1500; a bigger packet gets a buffer of its own).
	poolBuffers     = 1 << 14
	poolBufferBytes = 2048
	// Ps for the Go scheduler: far more than the goroutines that ever run at once, so that a
	// real-time thread coming back from a system call always finds an idle P at once instead of
	// waiting for one held by a thread that the kernel's normal scheduler has not run (under load).
	minProcs = 16
)

type packet struct {
	due  time.Time
	data []byte
}

type counters struct {
	Packets     uint64  `json:"packets"`
	Bytes       uint64  `json:"bytes"`
	Dropped     uint64  `json:"dropped"`
	WriteErrors uint64  `json:"writeErrors"`
	MaxLateUs   int64   `json:"maxLateUs"`
	LateOver1ms uint64  `json:"lateOver1ms"`
	Realtime    bool    `json:"realtime"`
	MeanLateUs  float64 `json:"meanLateUs"`
	// The writer's timed sleeps, and how many ended more than 1 ms after their target (the
	// thread was not run in time: the kernel, not this program); packets late by over 1 ms while a trace was on.
	Wakes              uint64 `json:"wakes"`
	WakesLateOver1ms   uint64 `json:"wakesLateOver1ms"`
	MaxWakeLateUs      int64  `json:"maxWakeLateUs"`
	LateOver1msTraceOn uint64 `json:"lateOver1msTraceOn"`
	// The downlink's queue kind and every packet it dropped (idle rate and traces); the RTP events
	// logged with -rtp-log and those lost because the log fell behind.
	QueueKind     string `json:"queueKind,omitempty"`
	LinkDrops     uint64 `json:"linkDrops"`
	RTPEventsLost uint64 `json:"rtpEventsLost"`
	// The trace-driven link, over the whole life of the program (every trace switched on).
	Link *linkTotals `json:"link,omitempty"`
}

// Packets, bytes and drops of the traces (not the idle rate between them).
type linkTotals struct {
	Traces          uint64 `json:"traces"`
	ReleasedPackets uint64 `json:"releasedPackets"`
	ReleasedBytes   uint64 `json:"releasedBytes"`
	Drops           uint64 `json:"drops"`
	// Lateness of every release (traces and the idle rate between them) after its opportunity.
	Releases        uint64  `json:"releases"`
	MeanReleaseLate float64 `json:"meanReleaseLateUs"`
	MaxReleaseLate  int64   `json:"maxReleaseLateUs"`
	ReleaseOver1ms  uint64  `json:"releaseLateOver1ms"`
}

func openTun(name string) (int, error) {
	fd, err := syscall.Open("/dev/net/tun", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open /dev/net/tun: %w", err)
	}
	var req [40]byte // struct ifreq: name[16], flags (short)
	if len(name) >= 16 {
		return -1, fmt.Errorf("device name %q longer than 15 bytes", name)
	}
	copy(req[:], name)
	*(*uint16)(unsafe.Pointer(&req[16])) = iffTun | iffNoPi
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), tunSetIff, uintptr(unsafe.Pointer(&req[0]))); errno != 0 {
		syscall.Close(fd)
		return -1, fmt.Errorf("TUNSETIFF %s: %w", name, errno)
	}
	return fd, nil
}

// realtime moves the calling OS thread to SCHED_FIFO, so Chromium and the servers on the same two
// cores cannot hold a due packet back: the reader and the writer, at a priority above the rest.
func realtime() bool {
	return setFifo(0, 20)
}

func setFifo(tid int, priority int32) bool {
	param := struct{ priority int32 }{priority: priority}
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), schedFifo, uintptr(unsafe.Pointer(&param)))
	return errno == 0
}

// realtimeRuntime moves every thread the Go runtime has so far to SCHED_FIFO at a lower priority;
// threads it starts later inherit the policy from the thread that starts them. The writer is a
// goroutine: the runtime preempts it every 10 ms of running, and then another of its threads
// must hand it a P again. Under the normal scheduler on a loaded machine that thread can wait for
// many milliseconds while the packets wait with it; as a real-time thread it runs at once.
func realtimeRuntime() int {
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		var tid int
		if _, err := fmt.Sscan(e.Name(), &tid); err == nil && setFifo(tid, 10) {
			n++
		}
	}
	return n
}

// sleepUntil waits in nanosleep(2) (hrtimer precision; Go's own timers round sub-millisecond
// waits up to a millisecond). A raw system call: the thread keeps its P while it sleeps (at most
// a nap or a packet's delay), so it never has to wait for one to come back.
func sleepUntil(t time.Time) {
	if wait := time.Until(t); wait > 0 {
		ts := syscall.NsecToTimespec(wait.Nanoseconds())
		for {
			_, _, errno := syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), uintptr(unsafe.Pointer(&ts)), 0)
			if errno != syscall.EINTR {
				return
			}
		}
	}
}

// rawWrite hands a packet back to the TUN device (never blocks: the kernel takes it or drops it).
func rawWrite(fd int, data []byte) error {
	if len(data) == 0 {
		return nil
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)))
	if errno != 0 {
		return errno
	}
	return nil
}

// command from stdin to the writer thread, which owns the link.
type command struct {
	schedule *Schedule // nil: switch the trace off
	name     string
	reply    chan string
}

// What the stats writer reads while the writer thread runs the link (atomics only: the writer runs
// at SCHED_FIFO and must never wait for it).
type linkView struct {
	link      atomic.Pointer[activeTrace]
	backlog   atomic.Int64
	released  atomic.Uint64
	drops     atomic.Uint64
	dropBytes atomic.Uint64
	lateMaxUs atomic.Int64 // since the last stats line
	sojournUs atomic.Int64 // max since the last stats line
}

type activeTrace struct {
	id       uint64
	name     string
	schedule *Schedule
	start    time.Time
}

// downlink: the subnets the trace-driven link carries packets to (the client's; the demo adds the person's).
type downlink []*net.IPNet

// isDownlink: an IPv4 packet whose destination is in one of the subnets.
func isDownlink(data []byte, d downlink) bool {
	if len(data) < 20 || data[0]>>4 != 4 {
		return false
	}
	for _, n := range d {
		if n.Contains(net.IP(data[16:20])) {
			return true
		}
	}
	return false
}

func maxInt64(a *atomic.Int64, v int64) {
	for {
		old := a.Load()
		if v <= old || a.CompareAndSwap(old, v) {
			return
		}
	}
}

func main() {
	dev := flag.String("dev", "sammydly0", "TUN device to create")
	delayUs := flag.Int("delay-us", 2500, "one-way delay per packet, microseconds")
	downDst := flag.String("down-dst", "", "IPv4 subnets (CIDRs, comma-separated) whose packets go through the downlink's link")
	queueBytes := flag.Int("queue-bytes", 100000, "the trace-driven link's drop-tail queue, bytes")
	statsFile := flag.String("stats", "", "file the trace-driven link's JSON lines go to while a trace is on")
	statsMs := flag.Int("stats-ms", 100, "interval of the stats lines, ms")
	idleMbps := flag.Float64("idle-mbps", 40, "with -down-dst: the downlink's constant rate while no trace is on (a link of the same queue), Mbit/s")
	queueKind := flag.String("queue-kind", "fifo", "with -down-dst: the link's queue, fifo (drop-tail of -queue-bytes) or fq-codel (RFC 8290; -queue-bytes is its overflow limit)")
	rtpLogFile := flag.String("rtp-log", "", "with -down-dst: file every RTP packet to the client is logged to (reached the router, left the link, or dropped)")
	statsIdle := flag.Bool("stats-idle", false, "write the stats lines (id 0) while no trace is on too: the constant link is the bottleneck")
	flag.Parse()
	if *queueKind != string(QueueFifo) && *queueKind != string(QueueFqCodel) {
		fmt.Fprintf(os.Stderr, "sammy-delay: -queue-kind must be fifo or fq-codel, got %q\n", *queueKind)
		os.Exit(2)
	}
	if *delayUs < 0 {
		fmt.Fprintln(os.Stderr, "sammy-delay: -delay-us must be ≥ 0")
		os.Exit(2)
	}
	var downNet downlink
	if *downDst != "" {
		for _, cidr := range strings.Split(*downDst, ",") {
			_, n, err := net.ParseCIDR(strings.TrimSpace(cidr))
			if err != nil || n.IP.To4() == nil {
				fmt.Fprintf(os.Stderr, "sammy-delay: -down-dst must be IPv4 CIDRs, comma-separated, got %q\n", *downDst)
				os.Exit(2)
			}
			downNet = append(downNet, n)
		}
	}
	if *queueBytes <= 0 || *statsMs <= 0 || !(*idleMbps > 0) {
		fmt.Fprintln(os.Stderr, "sammy-delay: -queue-bytes, -stats-ms and -idle-mbps must be > 0")
		os.Exit(2)
	}
	if runtime.GOMAXPROCS(0) < minProcs {
		runtime.GOMAXPROCS(minProcs)
	}
	// No garbage collector beside the real-time threads: its stop-the-world phases wait for every
	// thread, including ones the kernel's normal scheduler leaves waiting for milliseconds on a
	// loaded machine, and the real-time threads would wait with them. The packet path allocates
	// nothing (recycled buffers, a ring queue); what the rest allocates (a trace per run, stats
	// lines) stays far below this limit, at which the collector would run after all.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(1 << 30)
	runtimeRealtime := realtimeRuntime() > 0
	delay := time.Duration(*delayUs) * time.Microsecond
	// With packets waiting in the link and none in the delay line, the writer still wakes at
	// least this often to take newly read packets (each due a full delay after it was read).
	maxNap := delay / 2
	if maxNap < 100*time.Microsecond {
		maxNap = 100 * time.Microsecond
	}
	fd, err := openTun(*dev)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sammy-delay:", err)
		os.Exit(1)
	}

	queue := make(chan packet, queueCapacity)
	free := make(chan []byte, poolBuffers)
	for i := 0; i < poolBuffers; i++ {
		free <- make([]byte, 0, poolBufferBytes)
	}
	recycle := func(b []byte) {
		if cap(b) != poolBufferBytes {
			return
		}
		select {
		case free <- b[:0]:
		default:
		}
	}
	commands := make(chan command)
	var rtpLogger *rtpLog
	if *rtpLogFile != "" {
		f, err := os.OpenFile(*rtpLogFile, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sammy-delay: rtp log:", err)
			os.Exit(1)
		}
		rtpLogger = newRTPLog(f)
	}
	var linkDrops atomic.Uint64
	var c counters
	var lateSumUs, lateMaxUs atomic.Int64
	var realtimeThreads atomic.Int32
	var view linkView
	var totals linkTotals
	var relLateSumUs, relLateMaxUs atomic.Int64
	var relCount, relOver1ms, traceCount, totalReleased, totalReleasedBytes, totalDrops atomic.Uint64
	var oversleep, naps, lateLinkOn atomic.Uint64
	var oversleepMaxUs atomic.Int64

	// Reader: one OS thread blocked in read(2) on the TUN device.
	go func() {
		runtime.LockOSThread()
		if realtime() {
			realtimeThreads.Add(1)
		}
		buf := make([]byte, maxPacket)
		for {
			n, err := syscall.Read(fd, buf)
			if err != nil {
				if err == syscall.EINTR {
					continue
				}
				fmt.Fprintln(os.Stderr, "sammy-delay: read:", err)
				os.Exit(1)
			}
			var data []byte
			if n <= poolBufferBytes {
				select {
				case data = <-free:
				default:
					data = make([]byte, 0, poolBufferBytes)
				}
			}
			p := packet{due: time.Now().Add(delay), data: append(data, buf[:n]...)}
			select {
			case queue <- p:
			default:
				atomic.AddUint64(&c.Dropped, 1)
				recycle(p.data)
			}
		}
	}()

	// Writer: sleeps in nanosleep(2) until the head packet is due or the link's next delivery
	// opportunity comes, then hands packets back to the kernel.
	go func() {
		runtime.LockOSThread()
		// Timer slack is 50 µs by default; the delay should be as constant as the kernel allows.
		syscall.Syscall(syscall.SYS_PRCTL, prSetTimerSlack, 1, 0)
		if realtime() {
			realtimeThreads.Add(1)
		}
		write := func(data []byte) {
			// (the buffer is recycled here: whatever reads it comes before)
			if err := rawWrite(fd, data); err != nil {
				atomic.AddUint64(&c.WriteErrors, 1)
			}
			recycle(data)
		}
		var link *Link // with -down-dst: the downlink, on the idle rate or a trace
		var releases []Release
		var id uint64
		emit := func(rs []Release) {
			for _, r := range rs {
				rtpLogger.record(rtpOut, r.Data, time.Now())
				write(r.Data)
				late := time.Since(r.At).Microseconds()
				relLateSumUs.Add(late)
				relCount.Add(1)
				if late > 1000 {
					relOver1ms.Add(1)
				}
				maxInt64(&relLateMaxUs, late)
				maxInt64(&view.lateMaxUs, late)
				maxInt64(&view.sojournUs, r.Sojourn.Microseconds())
			}
		}
		publish := func() {
			if view.link.Load() == nil {
				return
			}
			view.backlog.Store(int64(link.Backlog()))
			view.released.Store(link.ReleasedBytes)
			view.drops.Store(link.Drops)
			view.dropBytes.Store(link.DropBytes)
		}
		idle := ConstantSchedule(*idleMbps)
		idleView := func(start time.Time) {
			if *statsIdle {
				view.link.Store(&activeTrace{id: 0, name: "idle", schedule: idle, start: start})
			} else {
				view.link.Store(nil)
			}
		}
		if downNet != nil {
			now := time.Now()
			link = NewLinkWithQueue(idle, now, QueueKind(*queueKind), *queueBytes)
			link.OnDrop = func(data []byte, at time.Time) {
				linkDrops.Add(1)
				rtpLogger.record(rtpDrop, data, at)
				recycle(data)
			}
			idleView(now)
		}
		// Counts what the trace that ends did, for the final counters.
		endTrace := func() {
			if a := view.link.Load(); a == nil || a.id == 0 {
				return
			}
			totalReleased.Add(link.ReleasedPackets)
			totalReleasedBytes.Add(link.ReleasedBytes)
			totalDrops.Add(link.Drops)
			view.link.Store(nil)
		}
		handle := func(cmd command) {
			endTrace()
			now := time.Now()
			if cmd.schedule == nil {
				link.Switch(idle, now)
				idleView(now)
				cmd.reply <- "trace-off"
				return
			}
			id++
			link.Switch(cmd.schedule, now)
			view.backlog.Store(int64(link.Backlog()))
			view.released.Store(0)
			view.drops.Store(0)
			view.dropBytes.Store(0)
			view.lateMaxUs.Store(0)
			view.sojournUs.Store(0)
			view.link.Store(&activeTrace{id: id, name: cmd.name, schedule: cmd.schedule, start: now})
			traceCount.Add(1)
			cmd.reply <- fmt.Sprintf("trace-on %d %.3f %d %d", id, float64(now.UnixMicro())/1000, len(cmd.schedule.Ms), cmd.schedule.Period())
		}
		var head packet
		have := false // head holds a packet (a value, not a pointer: nothing escapes to the heap)
		for {
			if !have {
				if link == nil || !link.Busy() {
					// Idle: nothing is due until a packet arrives or a command comes.
					select {
					case p := <-queue:
						head, have = p, true
					case cmd := <-commands:
						handle(cmd)
						continue
					}
				} else {
					select {
					case p := <-queue:
						head, have = p, true
					case cmd := <-commands:
						handle(cmd)
					default:
					}
				}
			} else {
				select {
				case cmd := <-commands:
					handle(cmd)
				default:
				}
			}
			now := time.Now()
			for have && !head.due.After(now) {
				late := now.Sub(head.due).Microseconds()
				lateSumUs.Add(late)
				if late > 1000 {
					atomic.AddUint64(&c.LateOver1ms, 1)
					if view.link.Load() != nil {
						lateLinkOn.Add(1)
					}
				}
				maxInt64(&lateMaxUs, late)
				atomic.AddUint64(&c.Packets, 1)
				atomic.AddUint64(&c.Bytes, uint64(len(head.data)))
				if link != nil && isDownlink(head.data, downNet) {
					// The packet reaches the link when its delay ends (not when this thread got to it).
					// It reached the router a delay before it reached the link (one clock for both).
					rtpLogger.record(rtpIn, head.data, head.due.Add(-delay))
					// A dropped packet's buffer is recycled by OnDrop.
					releases, _ = link.Enqueue(head.data, head.due, releases[:0])
					emit(releases)
				} else {
					write(head.data)
				}
				head, have = packet{}, false
				select {
				case p := <-queue:
					head, have = p, true
				default:
				}
			}
			if link != nil {
				releases = link.Advance(now, releases[:0])
				emit(releases)
				publish()
			}
			busy := link != nil && link.Busy()
			if !have && !busy {
				continue
			}
			var wake time.Time
			if have {
				wake = head.due
			} else {
				wake = now.Add(maxNap)
			}
			if busy {
				if t := link.NextOpportunity(); t.Before(wake) {
					wake = t
				}
			}
			sleepUntil(wake)
			if over := time.Since(wake).Microseconds(); over > 1000 {
				oversleep.Add(1)
				maxInt64(&oversleepMaxUs, over)
			}
			naps.Add(1)
		}
	}()

	// Stats: a JSON line per interval while a trace is on (a normal thread; it only reads atomics).
	if *statsFile != "" {
		f, err := os.OpenFile(*statsFile, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sammy-delay: stats:", err)
			os.Exit(1)
		}
		go func() {
			w := bufio.NewWriter(f)
			tick := time.NewTicker(time.Duration(*statsMs) * time.Millisecond)
			for now := range tick.C {
				a := view.link.Load()
				if a == nil {
					continue
				}
				now = time.Now()
				backlog := view.backlog.Load()
				capB := uint64(a.schedule.CountUpTo(float64(now.Sub(a.start))/float64(time.Millisecond))) * OpportunityBytes
				wait := DrainWait(a.schedule, a.start, now, int(backlog))
				fmt.Fprintf(w, `{"t":%.3f,"id":%d,"traceMs":%.3f,"capB":%d,"relB":%d,"backlogB":%d,"waitMs":%.3f,"drops":%d,"dropB":%d,"lateMaxUs":%d,"sojournMaxUs":%d}`+"\n",
					float64(now.UnixMicro())/1000, a.id, float64(now.Sub(a.start).Microseconds())/1000, capB, view.released.Load(), backlog,
					float64(wait.Microseconds())/1000, view.drops.Load(), view.dropBytes.Load(), view.lateMaxUs.Swap(0), view.sojournUs.Swap(0))
				w.Flush()
			}
		}()
	}

	// Commands: one per line on stdin; each answered by one line on stdout.
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			var cmd command
			switch {
			case line == "off":
			case strings.HasPrefix(line, "trace "):
				name := strings.TrimSpace(strings.TrimPrefix(line, "trace "))
				f, err := os.Open(name)
				if err != nil {
					fmt.Println("error", err)
					continue
				}
				s, err := ParseSchedule(f, name)
				f.Close()
				if err != nil {
					fmt.Println("error", err)
					continue
				}
				if downNet == nil {
					fmt.Println("error no -down-dst: no direction to put the trace on")
					continue
				}
				cmd = command{schedule: s, name: name}
			case line == "":
				continue
			default:
				fmt.Printf("error unknown command %q (trace FILE, off)\n", line)
				continue
			}
			cmd.reply = make(chan string, 1)
			commands <- cmd
			fmt.Println(<-cmd.reply)
		}
	}()

	fmt.Printf("ready %s\n", *dev)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	<-signals
	c.Packets = atomic.LoadUint64(&c.Packets)
	c.Dropped = atomic.LoadUint64(&c.Dropped)
	c.Bytes = atomic.LoadUint64(&c.Bytes)
	c.WriteErrors = atomic.LoadUint64(&c.WriteErrors)
	c.LateOver1ms = atomic.LoadUint64(&c.LateOver1ms)
	c.Realtime = realtimeThreads.Load() == 2 && runtimeRealtime
	c.MaxLateUs = lateMaxUs.Load()
	if c.Packets > 0 {
		c.MeanLateUs = float64(lateSumUs.Load()) / float64(c.Packets)
	}
	if n := traceCount.Load(); n > 0 {
		totals.Traces = n
		// A trace still on is counted as it stands (the writer keeps running; atomics only).
		totals.ReleasedPackets = totalReleased.Load()
		a := view.link.Load()
		on := a != nil && a.id != 0
		totals.ReleasedBytes = totalReleasedBytes.Load() + view.released.Load()*boolU(on)
		totals.Drops = totalDrops.Load() + view.drops.Load()*boolU(on)
		if rc := relCount.Load(); rc > 0 {
			totals.MeanReleaseLate = float64(relLateSumUs.Load()) / float64(rc)
			totals.Releases = rc
		}
		totals.MaxReleaseLate = relLateMaxUs.Load()
		totals.ReleaseOver1ms = relOver1ms.Load()
		c.Link = &totals
	}
	c.Wakes = naps.Load()
	c.WakesLateOver1ms = oversleep.Load()
	c.MaxWakeLateUs = oversleepMaxUs.Load()
	c.LateOver1msTraceOn = lateLinkOn.Load()
	if downNet != nil {
		c.QueueKind = *queueKind
		c.LinkDrops = linkDrops.Load()
	}
	if rtpLogger != nil {
		c.RTPEventsLost = atomic.LoadUint64(&rtpLogger.lost)
	}
	out, _ := json.Marshal(c)
	fmt.Println(string(out))
}

func boolU(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
