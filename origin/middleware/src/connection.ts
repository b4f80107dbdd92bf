/**
 * Per-connection pacing state. A kernel pace stays on the socket after its response, so the
 * next request on a kept-alive connection must reset it when it asks for none.
 */
import type { Socket } from 'node:net';
import {
  getCongestionControl,
  readTcpInfo,
  sendQueueBytes,
  setCongestionControl,
  setMaxPacingRate,
  setSendBuffer,
  socketFd,
} from './socket-options.js';
import type { TcpInfo } from './tcp-info.js';

export interface ConnectionState {
  /** Kernel pace ceiling set on the socket, bytes/s; undefined when none is. */
  kernelPaceBytesPerSecond?: number;
  /** Congestion control in force, once read. */
  congestionControl?: string;
  /** The configured congestion control was applied (or tried) on this connection. */
  configuredCcApplied: boolean;
  /** SO_SNDBUF was set (Linux then stops autotuning the send buffer for good). */
  sendBufferPinned: boolean;
}

/**
 * Send buffer of a paced socket: about a second of data at the pace, 256 KB to 4 MB (the kernel
 * doubles the value for its bookkeeping and caps it at net.core.wmem_max first). The kernel drains a
 * paced socket slowly; with the default autotuned buffer Node is woken to refill it every few tens of
 * ms per socket, and those wake-ups, not the pacing, are what paced serving costs in CPU (bench:
 * 1.2–1.4× unpaced without, 0.7–1.2× with). It is also the ceiling on the kernel memory one paced
 * connection can hold (≤ 2 × 4 MB, less at paces under 32 Mbps); it is only used while data is
 * queued, and the progress timeout bounds how long a client that stops reading can keep it full.
 */
export const PACED_SEND_BUFFER_SECONDS = 1;
export const MIN_PACED_SEND_BUFFER = 256 * 1024;
export const MAX_PACED_SEND_BUFFER = 4 * 1024 * 1024;
/**
 * Send buffer for an unpaced response on a socket an earlier paced response pinned: Linux cannot
 * return a socket to autotuning, so give it what autotuning would reach (tcp_wmem's default maximum,
 * 4 MB, once doubled) rather than leave an unpaced download limited by a small paced buffer.
 */
export const UNPACED_SEND_BUFFER = 2 * 1024 * 1024;

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
   * Sets (bytes/s) or removes (null) the kernel pace ceiling. Returns false when there is no fd.
   * Nothing is done when the socket already has that ceiling (or none, for null).
   */
  setKernelPace(bytesPerSecond: number | null): boolean {
    const fd = this.fd;
    if (fd === undefined) return false;
    if ((bytesPerSecond ?? undefined) === this.state.kernelPaceBytesPerSecond) return true;
    setMaxPacingRate(fd, bytesPerSecond);
    this.state.kernelPaceBytesPerSecond = bytesPerSecond ?? undefined;
    const sendBuffer =
      bytesPerSecond !== null
        ? Math.min(MAX_PACED_SEND_BUFFER, Math.max(MIN_PACED_SEND_BUFFER, bytesPerSecond * PACED_SEND_BUFFER_SECONDS))
        : this.state.sendBufferPinned
          ? UNPACED_SEND_BUFFER
          : undefined;
    if (sendBuffer !== undefined) {
      try {
        setSendBuffer(fd, sendBuffer);
        this.state.sendBufferPinned = true;
      } catch {
        // Only an optimisation: pacing works with the default buffer.
      }
    }
    return true;
  }

  tcpInfo(): TcpInfo | undefined {
    const fd = this.fd;
    return fd === undefined ? undefined : readTcpInfo(fd);
  }

  /** Bytes written and not yet acknowledged (SIOCOUTQ); undefined without an fd. */
  sendQueue(): number | undefined {
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
