/**
 * What the game pages record (window.__game), read by the bench at the end of a run. Times are ms
 * since the epoch on the page's clock (performance.timeOrigin + performance.now()); the bench
 * measures each page's clock against its own (GameClock) and corrects with it.
 */
export interface GameSettings {
  width: number;
  height: number;
  fps: number;
  /** The sender's encoding maxBitrate, kbps. */
  maxKbps: number;
}

/** One getStats() sample of the sender (outbound-rtp, remote-inbound-rtp, candidate pair). */
export interface GameSenderSample {
  t: number;
  bytesSent?: number;
  framesEncoded?: number;
  framesSent?: number;
  /** The encoder's target from congestion control, bps. */
  targetBitrate?: number;
  qualityLimitationReason?: string;
  /** Seconds spent in each limitation reason since the stream started. */
  qualityLimitationDurations?: Record<string, number>;
  frameWidth?: number;
  frameHeight?: number;
  framesPerSecond?: number;
  /** RTCP round trip (remote-inbound-rtp roundTripTime), ms. */
  rttMs?: number;
  /** The ICE candidate pair's current round trip (STUN), ms. */
  pairRttMs?: number;
  /** The sender's bandwidth estimate (candidate pair availableOutgoingBitrate), bps. */
  availableOutgoingBitrate?: number;
  totalEncodeTime?: number;
  encoderImplementation?: string;
  codec?: string;
}

/** One getStats() sample of the receiver (inbound-rtp, candidate pair). */
export interface GameReceiverSample {
  t: number;
  bytesReceived?: number;
  packetsReceived?: number;
  packetsLost?: number;
  framesReceived?: number;
  framesDecoded?: number;
  framesDropped?: number;
  freezeCount?: number;
  /** Seconds. */
  totalFreezesDuration?: number;
  /** Interarrival jitter, ms. */
  jitterMs?: number;
  pairRttMs?: number;
  frameWidth?: number;
  frameHeight?: number;
  /** Seconds, summed over emitted frames. */
  jitterBufferDelay?: number;
  jitterBufferEmittedCount?: number;
  decoderImplementation?: string;
}

export interface GamePageState {
  role: 'send' | 'recv';
  settings: GameSettings;
  /** When ICE connected. */
  connectedAt?: number;
  /** Receiver: shown frames as flat triples [shown at (ms epoch), stamp latency (ms), frame number], in order. */
  frames: number[];
  /** Receiver: shown frames whose stamp did not read (checksum mismatch). */
  unreadable: number;
  /** Sender: frames drawn and handed to the track. */
  drawn: number;
  /** Sender: how late each frame's timer fired past its due time, ms (the page's share of the CPU). */
  drawLateMs: number[];
  sender: GameSenderSample[];
  receiver: GameReceiverSample[];
  /** ICE candidates in the local description (a=candidate lines), to show they are host addresses. */
  localCandidates: string[];
  errors: string[];
}

/** A page's clock against the bench's Date.now(): page − bench, ms, from the round trip with the least delay. */
export interface GameClock {
  offsetMs: number;
  /** The round trip of that evaluate, ms: the offset is known to ± half of it. */
  rttMs: number;
}

export interface GameRun {
  settings: GameSettings;
  /** When the bench asked the pages to start, and when frames were first seen flowing (bench clock). */
  startedAt: number;
  flowingAt?: number;
  sender: GamePageState;
  receiver: GamePageState;
  senderClock: GameClock;
  receiverClock: GameClock;
}
