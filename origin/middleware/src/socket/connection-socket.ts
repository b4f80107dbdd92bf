/**
 * A connection's socket as the pacing sets it: kernel pace, send buffer, unsent cap, congestion
 * control. The state is kept per socket because it outlives a response: a kernel pace stays on the
 * socket after its response, so the next request on a kept-alive connection must reset it when it
 * asks for none.
 */
import type { Socket } from 'node:net';
import { kbpsToBytesPerSecond } from 'sammy-pacing-protocol';
import {
  getCongestionControl,
  readTcpInfo,
  sendQueueBytes,
  unsentQueueBytes,
  setCongestionControl,
  setMaxPacingRate,
  setNotSentLowat,
  setSendBuffer,
  socketFd,
} from './socket-options.js';
import type { TcpInfo } from './tcp-info.js';

export interface ConnectionState {
  /** Kernel pace ceiling set on the socket (SO_MAX_PACING_RATE); undefined when none is. */
  kernelPaceKbps?: number;
  /** Congestion control in force, once read. */
  congestionControl?: string;
  /** The configured congestion control was applied (or tried) on this connection. */
  configuredCcApplied: boolean;
  /** SO_SNDBUF was set (Linux then stops autotuning the send buffer for good). */
  sendBufferPinned: boolean;
  /** TCP_NOTSENT_LOWAT in force; undefined for the system's (none). */
  unsentCapBytes?: number;
}

/**
 * Send buffer of a paced socket: about a second of data at the pace, 256 KB to 4 MB (the kernel
 * doubles it). With the default autotuned buffer Node is woken to refill a slowly drained socket every
 * few tens of ms, and those wake-ups are what paced serving costs in CPU (README, "Socket limits,
 * measured"); it is also the ceiling on one paced connection's kernel memory.
 */
const PACED_SEND_BUFFER_SECONDS = 1;
const MIN_PACED_SEND_BUFFER_BYTES = 256 * 1024;
const MAX_PACED_SEND_BUFFER_BYTES = 4 * 1024 * 1024;
/**
 * Send buffer for an unpaced response on a socket an earlier paced response pinned: Linux cannot
 * return a socket to autotuning, so give it what autotuning would reach (tcp_wmem's default maximum,
 * 4 MB, once doubled) rather than leave an unpaced download limited by a small paced buffer.
 */
const UNPACED_SEND_BUFFER_BYTES = 2 * 1024 * 1024;
/**
 * Unsent bytes a paced response may queue in the kernel until its client has acknowledged that much of
 * it (http1/connection.ts lifts the cap then): a quarter of a second at the pace, at least 128 KB, so
 * that a client that never reads cannot pin the whole send buffer; lifted, not kept, because a cap on
 * a reading client's queue wakes Node several times a second (README, "Socket limits, measured").
 */
const PACED_UNSENT_CAP_SECONDS = 0.25;
const MIN_PACED_UNSENT_CAP_BYTES = 128 * 1024;

/** The unsent cap of a response paced at `paceKbps`. */
export function pacedUnsentCapBytes(paceKbps: number): number {
  return Math.max(MIN_PACED_UNSENT_CAP_BYTES, Math.round(kbpsToBytesPerSecond(paceKbps) * PACED_UNSENT_CAP_SECONDS));
}

/**
 * HTTP/2 send gate: a kernel-paced HTTP/2 connection's bodies are handed to Node only while fewer of
 * its bytes than this wait unsent in the kernel and in Node (http2/connection.ts holds the rest in
 * userspace): 100 ms at the pace, at least two 64 KB packets (the kernel paces whole TSO packets;
 * loopback's are 64 KB, and one must stay queued while the next chunk is read), at most half the
 * largest paced send buffer. Node's HTTP/2 session reads nothing from its client while a write to a
 * full paced send buffer is unfinished, so without the gate it heard resets and new requests late
 * (README, "The send gate"). Held in userspace, a reset stream's bytes are also dropped rather than sent.
 */
const SEND_GATE_SECONDS = 0.1;
const MIN_SEND_GATE_BYTES = 128 * 1024;

/** The send gate of a connection paced at `paceKbps`. */
export function sendGateBytes(paceKbps: number): number {
  const paced = Math.round(kbpsToBytesPerSecond(paceKbps) * SEND_GATE_SECONDS);
  return Math.min(MAX_PACED_SEND_BUFFER_BYTES / 2, Math.max(MIN_SEND_GATE_BYTES, paced));
}

const connections = new WeakMap<Socket, ConnectionState>();

export function connectionState(socket: Socket): ConnectionState {
  let state = connections.get(socket);
  if (!state) {
    state = { configuredCcApplied: false, sendBufferPinned: false };
    connections.set(socket, state);
  }
  return state;
}

/** Socket operations on a connection; every one is a no-op off a plain TCP socket and may throw SocketOptionError. */
export class ConnectionSocket {
  constructor(
    readonly socket: Socket,
    readonly state: ConnectionState = connectionState(socket),
  ) {}

  get fd(): number | undefined {
    return socketFd(this.socket);
  }

  /**
   * Sets the kernel pace ceiling, or removes it (undefined). Returns false when there is no fd.
   * Nothing is done when the socket already has that ceiling (or none).
   */
  setKernelPace(paceKbps: number | undefined): boolean {
    const fd = this.fd;
    if (fd === undefined) return false;
    if (paceKbps === this.state.kernelPaceKbps) return true;
    // The one conversion on the way to setsockopt: the kernel takes bytes per second.
    const paceBytesPerSecond = paceKbps === undefined ? null : kbpsToBytesPerSecond(paceKbps);
    setMaxPacingRate(fd, paceBytesPerSecond);
    this.state.kernelPaceKbps = paceKbps;
    const sendBufferBytes =
      paceBytesPerSecond !== null
        ? Math.min(MAX_PACED_SEND_BUFFER_BYTES, Math.max(MIN_PACED_SEND_BUFFER_BYTES, paceBytesPerSecond * PACED_SEND_BUFFER_SECONDS))
        : this.state.sendBufferPinned
          ? UNPACED_SEND_BUFFER_BYTES
          : undefined;
    if (sendBufferBytes !== undefined) {
      try {
        setSendBuffer(fd, sendBufferBytes);
        this.state.sendBufferPinned = true;
      } catch {
        // Only an optimisation: pacing works with the default buffer.
      }
    }
    return true;
  }

  /**
   * Caps (bytes) or uncaps (undefined) how much written data the kernel holds unsent (TCP_NOTSENT_LOWAT).
   * Nothing is done when the socket already has that cap; only a memory bound, so failures are ignored.
   */
  setUnsentCap(capBytes: number | undefined): void {
    const fd = this.fd;
    if (fd === undefined || capBytes === this.state.unsentCapBytes) return;
    try {
      setNotSentLowat(fd, capBytes ?? 0);
      this.state.unsentCapBytes = capBytes;
    } catch {
      // Without it the send buffer is the bound, as before.
    }
  }

  tcpInfo(): TcpInfo | undefined {
    const fd = this.fd;
    return fd === undefined ? undefined : readTcpInfo(fd);
  }

  /** Bytes written and not yet sent (SIOCOUTQNSD); undefined without an fd. */
  unsentQueueBytes(): number | undefined {
    const fd = this.fd;
    return fd === undefined ? undefined : unsentQueueBytes(fd);
  }

  /** Bytes written and not yet acknowledged (SIOCOUTQ); undefined without an fd. */
  sendQueueBytes(): number | undefined {
    const fd = this.fd;
    return fd === undefined ? undefined : sendQueueBytes(fd);
  }

  setCongestionControl(name: string): void {
    const fd = this.fd;
    if (fd === undefined) return;
    setCongestionControl(fd, name);
    this.state.congestionControl = getCongestionControl(fd);
  }

  congestionControl(): string | undefined {
    const fd = this.fd;
    if (this.state.congestionControl === undefined && fd !== undefined) {
      this.state.congestionControl = getCongestionControl(fd);
    }
    return this.state.congestionControl;
  }
}
