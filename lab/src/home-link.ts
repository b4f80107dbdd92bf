/**
 * The home link (`--link home`, issue 40): the 2025 talk's bottleneck, 40 Mbit/s with a 40 ms base
 * RTT, and its queue as one of three kinds. The kernel has no netem, fq_codel or cake, so the
 * whole link lives in the router's delay line (lab/delay): the 40 ms (20 ms each way) and, for the
 * downlink, a constant 40 Mbit/s link (a trace of one rate) with the chosen queue, a drop-tail FIFO
 * or FQ-CoDel emulated per RFC 8290. The uplink keeps the tbf at 40 Mbit/s.
 */

export const LINKS = ['paper', 'home'] as const;
export type LinkName = (typeof LINKS)[number];

export const HOME_LINK = { rateMbps: 40, rttMs: 40 } as const;
/** 40 Mbit/s × 40 ms = 200 000 B. */
export const HOME_BDP_BYTES = (HOME_LINK.rateMbps * 1e6 * (HOME_LINK.rttMs / 1000)) / 8;

export const HOME_QUEUES = ['fifo-2bdp', 'fifo-bloated', 'fq-codel'] as const;
export type HomeQueue = (typeof HOME_QUEUES)[number];

export interface HomeQueueSpec {
  /** The delay line's queue kind. */
  kind: 'fifo' | 'fq-codel';
  /** FIFO: its drop-tail limit; FQ-CoDel: its overflow limit in bytes (besides 10 240 packets). */
  queueBytes: number;
  label: string;
}

/** A bloated home gateway's buffer: 300 ms at 40 Mbit/s (see HOME_QUEUE_SPECS). */
export const BLOATED_QUEUE_MS = 300;

export const HOME_QUEUE_SPECS: Record<HomeQueue, HomeQueueSpec> = {
  'fifo-2bdp': {
    kind: 'fifo',
    queueBytes: 2 * HOME_BDP_BYTES,
    label: "drop-tail FIFO of 2 × BDP = 400 000 B (80 ms at 40 Mbit/s), the talk's",
  },
  // Gettys & Nichols, "Bufferbloat: Dark Buffers in the Internet" (CACM 55(1), 2012), and the gateway
  // measurements it draws on (Netalyzr, Kreibich et al., IMC 2010; Sundaresan et al., SIGCOMM 2011):
  // cable and DSL home gateways hold hundreds of ms to seconds under load. 300 ms is the low end of that.
  'fifo-bloated': {
    kind: 'fifo',
    queueBytes: (HOME_LINK.rateMbps * 1e6 * (BLOATED_QUEUE_MS / 1000)) / 8,
    label: `drop-tail FIFO of ${BLOATED_QUEUE_MS} ms (1 500 000 B at 40 Mbit/s), a bloated cable/DSL gateway's`,
  },
  // Linux's fq_codel defaults: limit 10 240 packets, memory_limit 32 MB.
  'fq-codel': {
    kind: 'fq-codel',
    queueBytes: 32 * 1024 * 1024,
    label: 'FQ-CoDel (RFC 8290: 1024 flows, quantum 1514 B, target 5 ms, interval 100 ms), emulated in the delay line',
  },
};

export function isHomeQueue(v: string): v is HomeQueue {
  return (HOME_QUEUES as readonly string[]).includes(v);
}

export function isLinkName(v: string): v is LinkName {
  return (LINKS as readonly string[]).includes(v);
}

/**
 * `--link` and `--queue` together: `--link home` takes a queue kind (default fifo-2bdp) and sets
 * rate and RTT; the paper's link (the default) takes `--queue BYTES`. Throws with what to change.
 */
export function parseLinkFlags(
  link: string | undefined,
  queue: string | undefined,
  conflicts: { rate: boolean; rttMs: boolean; trace: boolean },
): { home?: HomeQueue } {
  const name = link ?? 'paper';
  if (!isLinkName(name)) throw new Error(`--link must be one of ${LINKS.join(', ')}, got ${name}`);
  if (name === 'paper') {
    if (queue !== undefined && isHomeQueue(queue))
      throw new Error(`--queue ${queue} is a home-link queue: add --link home (the paper's link takes --queue BYTES)`);
    return {};
  }
  if (conflicts.trace) throw new Error('--link home is a constant 40 Mbit/s link; it cannot go with --trace/--traces');
  if (conflicts.rate || conflicts.rttMs)
    throw new Error(
      `--link home sets the rate (${HOME_LINK.rateMbps} Mbit/s) and the RTT (${HOME_LINK.rttMs} ms); leave --rate and --rtt-ms out`,
    );
  const q = queue ?? 'fifo-2bdp';
  if (!isHomeQueue(q)) throw new Error(`with --link home, --queue must be one of ${HOME_QUEUES.join(', ')}, got ${q}`);
  return { home: q };
}
