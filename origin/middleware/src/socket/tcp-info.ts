/**
 * `struct tcp_info` (linux/tcp.h) as this origin reads it. Offsets are for the Linux x86_64/arm64 ABI
 * (u64 fields 8-aligned); every field used here has been at the same offset since Linux 4.10
 * (min_rtt, delivery_rate). A shorter struct from an older kernel leaves later fields undefined.
 */
export interface TcpInfo {
  /** TCP state (1 = ESTABLISHED). */
  state: number;
  /** Sender MSS, bytes. */
  sndMss: number;
  /** Packets sent and not yet acknowledged. */
  unacked: number;
  /** Milliseconds since the last acknowledgement arrived (jiffies resolution). */
  lastAckRecvMs: number;
  /** Smoothed RTT, microseconds. */
  rttUs: number;
  /** Congestion window, packets. */
  sndCwnd: number;
  /** Retransmitted segments over the connection's life. */
  totalRetrans: number;
  /** Kernel's current pacing rate, bytes/s. */
  pacingRate?: bigint;
  /** SO_MAX_PACING_RATE, bytes/s (2^64−1 = none). */
  maxPacingRate?: bigint;
  /** Bytes of the stream the peer acknowledged (from 0: the first byte after the handshake). */
  bytesAcked?: bigint;
  /** Bytes received from the peer. */
  bytesReceived?: bigint;
  /** Bytes written by the application the kernel has not sent yet. */
  notsentBytes?: number;
  /** Minimum RTT seen, microseconds. */
  minRttUs?: number;
  /** Segments carrying data sent (the kernel does not pace a connection's first 10). */
  dataSegsOut?: number;
  /** Most recent delivery-rate sample, bytes/s. */
  deliveryRate?: bigint;
  /** Bytes sent, retransmissions included. */
  bytesSent?: bigint;
  bytesRetrans?: bigint;
}

/** Byte offsets in `struct tcp_info`. */
export const TCP_INFO_OFFSETS = {
  state: 0,
  sndMss: 16,
  unacked: 24,
  lastAckRecv: 56,
  rtt: 68,
  sndCwnd: 80,
  totalRetrans: 100,
  pacingRate: 104,
  maxPacingRate: 112,
  bytesAcked: 120,
  bytesReceived: 128,
  notsentBytes: 144,
  minRtt: 148,
  dataSegsOut: 156,
  deliveryRate: 160,
  bytesSent: 200,
  bytesRetrans: 208,
} as const;

/** Larger than any kernel's struct so far; the kernel copies min(its size, ours). */
export const TCP_INFO_MAX_BYTES = 512;

export function parseTcpInfo(buf: Buffer): TcpInfo {
  const o = TCP_INFO_OFFSETS;
  if (buf.length < o.totalRetrans + 4) throw new RangeError(`tcp_info too short: ${buf.length} bytes`);
  const u32 = (at: number) => (buf.length >= at + 4 ? buf.readUInt32LE(at) : undefined);
  const u64 = (at: number) => (buf.length >= at + 8 ? buf.readBigUInt64LE(at) : undefined);
  return {
    state: buf.readUInt8(o.state),
    sndMss: buf.readUInt32LE(o.sndMss),
    unacked: buf.readUInt32LE(o.unacked),
    lastAckRecvMs: buf.readUInt32LE(o.lastAckRecv),
    rttUs: buf.readUInt32LE(o.rtt),
    sndCwnd: buf.readUInt32LE(o.sndCwnd),
    totalRetrans: buf.readUInt32LE(o.totalRetrans),
    pacingRate: u64(o.pacingRate),
    maxPacingRate: u64(o.maxPacingRate),
    bytesAcked: u64(o.bytesAcked),
    bytesReceived: u64(o.bytesReceived),
    notsentBytes: u32(o.notsentBytes),
    minRttUs: u32(o.minRtt),
    dataSegsOut: u32(o.dataSegsOut),
    deliveryRate: u64(o.deliveryRate),
    bytesSent: u64(o.bytesSent),
    bytesRetrans: u64(o.bytesRetrans),
  };
}
