// sammy-delay: a constant propagation delay for the lab's router, at the packet level.
//
// netem is not in this kernel, and a TCP proxy would terminate the flows it should only delay, so
// the router sends every forwarded packet through a TUN device: this program reads each IP packet,
// holds it for the one-way delay, and writes it back unchanged; the kernel then routes it on to the
// bottleneck. Packets keep their order (one FIFO, one constant delay), nothing is rewritten, and the
// TCP endpoints see only a longer path.
//
//	sammy-delay -dev NAME -delay-us N
//
// Prints "ready <dev>" once the device exists; on SIGTERM or SIGINT prints one JSON line of counters.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
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
// cores cannot hold a due packet back; only these two threads, not the Go runtime's others.
func realtime() bool {
	param := struct{ priority int32 }{priority: 20}
	_, _, errno := syscall.Syscall(syscall.SYS_SCHED_SETSCHEDULER, 0, schedFifo, uintptr(unsafe.Pointer(&param)))
	return errno == 0
}

func main() {
	dev := flag.String("dev", "sammydly0", "TUN device to create")
	delayUs := flag.Int("delay-us", 2500, "one-way delay per packet, microseconds")
	flag.Parse()
	if *delayUs < 0 {
		fmt.Fprintln(os.Stderr, "sammy-delay: -delay-us must be ≥ 0")
		os.Exit(2)
	}
	delay := time.Duration(*delayUs) * time.Microsecond
	fd, err := openTun(*dev)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sammy-delay:", err)
		os.Exit(1)
	}

	queue := make(chan packet, queueCapacity)
	var c counters
	var lateSumUs, lateMaxUs atomic.Int64
	var realtimeThreads atomic.Int32

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
			p := packet{due: time.Now().Add(delay), data: append([]byte(nil), buf[:n]...)}
			select {
			case queue <- p:
			default:
				atomic.AddUint64(&c.Dropped, 1)
			}
		}
	}()

	// Writer: sleeps in nanosleep(2) (hrtimer precision; Go's own timers round sub-millisecond waits
	// up to a millisecond) until the head packet is due, then hands it back to the kernel.
	go func() {
		runtime.LockOSThread()
		// Timer slack is 50 µs by default; the delay should be as constant as the kernel allows.
		syscall.Syscall(syscall.SYS_PRCTL, prSetTimerSlack, 1, 0)
		if realtime() {
			realtimeThreads.Add(1)
		}
		for p := range queue {
			if wait := time.Until(p.due); wait > 0 {
				ts := syscall.NsecToTimespec(wait.Nanoseconds())
				for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
				}
			}
			late := time.Since(p.due).Microseconds()
			lateSumUs.Add(late)
			if late > 1000 {
				atomic.AddUint64(&c.LateOver1ms, 1)
			}
			if late > lateMaxUs.Load() {
				lateMaxUs.Store(late)
			}
			if _, err := syscall.Write(fd, p.data); err != nil {
				atomic.AddUint64(&c.WriteErrors, 1)
			}
			atomic.AddUint64(&c.Packets, 1)
			atomic.AddUint64(&c.Bytes, uint64(len(p.data)))
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
	c.Realtime = realtimeThreads.Load() == 2
	c.MaxLateUs = lateMaxUs.Load()
	if c.Packets > 0 {
		c.MeanLateUs = float64(lateSumUs.Load()) / float64(c.Packets)
	}
	out, _ := json.Marshal(c)
	fmt.Println(string(out))
}
