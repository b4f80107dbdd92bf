/**
 * What every response goes through when its turn has come on its connection, HTTP/1.1 or HTTP/2:
 * the connection's congestion control, the pace on its socket (in the kernel, or in userspace where the
 * socket refuses), then the report to the observers (Server-Timing), read from TCP_INFO after the pace
 * is set so that it says what really paces this body. All before the handler runs: the head is not
 * written yet.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  bytesPerSecondToKbps,
  CONGESTION_CONTROL_HEADER,
  isCongestionControl,
  type ConnectionPaceReason,
  type PacingMechanism,
  type PacingReport,
} from 'sammy-pacing-protocol';
import type { AckTracker } from '../socket/ack-tracker.js';
import type { ConnectionSocket } from '../socket/connection-socket.js';
import type { EngineSettings } from './contract.js';
import type { PacedResponse } from './paced-response.js';
import { SocketOptionError } from '../socket/socket-options.js';
import type { TcpInfo } from '../socket/tcp-info.js';
import type { ReleasePolicy } from '../body/held-body.js';
import { kernelHandOff, userspacePacing } from '../body/userspace-pacer.js';

/** The congestion-control request header as Node keys it (lower case). */
const CONGESTION_CONTROL_HEADER_KEY = CONGESTION_CONTROL_HEADER.toLowerCase();

/** The pace a response gets on its connection. */
export interface ConnectionPace {
  paceKbps: number | undefined;
  /** HTTP/2: how the shared connection's pace was decided, and the other responses still sending then. */
  sharedConnection?: { reason: ConnectionPaceReason; concurrent: number };
  /** HTTP/2: where the connection's bodies wait while it is kernel-paced (the send gate). */
  sendGate?: ReleasePolicy;
}

export class Admission {
  readonly #settings: EngineSettings;
  readonly #paced: (res: ServerResponse, report: PacingReport) => void;

  constructor(settings: EngineSettings, paced: (res: ServerResponse, report: PacingReport) => void) {
    this.#settings = settings;
    this.#paced = paced;
  }

  /**
   * Paces `response` at `pace` on its connection: decides the mechanism, sets the pace, reports it, and
   * settles the response's applied pace and where its body is held, once. Returns the TCP_INFO read once
   * the pace was set (undefined without one).
   */
  admit(acks: AckTracker, response: PacedResponse, pace: ConnectionPace): TcpInfo | undefined {
    const { req, res, request } = response;
    const { socket } = acks;
    this.#applyCongestionControl(socket, req);
    const mechanism = this.#applyPace(socket, pace.paceKbps, request.path);
    const info = acks.readReport();
    const tcp = tcpInfoReport(info);
    let congestionControl: string | undefined;
    try {
      congestionControl = socket.congestionControl();
    } catch {
      // Reported when known.
    }
    this.#paced(res, {
      requestedRtpKbps: request.requestedRtpKbps,
      appliedPaceKbps: pace.paceKbps,
      mechanism,
      recordId: request.recordId,
      sharedConnection: pace.sharedConnection,
      congestionControl,
      ...tcp,
      // Why not paced, or why not at its rtp: only when that is what this response got.
      unpacedReason: pace.paceKbps === undefined ? request.unpacedReason : undefined,
      rtpClamp: pace.paceKbps !== undefined && pace.paceKbps === request.plannedPaceKbps ? request.rtpClamp : undefined,
    });
    const applied = {
      appliedPaceKbps: pace.paceKbps,
      mechanism,
      congestionControl,
      paceReason: pace.sharedConnection?.reason,
      retransmitsBefore: tcp?.retransmits,
    };
    response.admitted(applied, this.#hold(acks, pace, mechanism, info));
    return info;
  }

  /**
   * Where the body waits, if anywhere: at its own token bucket when paced in userspace; on an HTTP/2
   * connection of a kernel-pacing engine, at the send gate (now or later kernel-paced); on a new
   * kernel-paced HTTP/1.1 connection, in userspace until the kernel's pacing takes hold.
   */
  #hold(acks: AckTracker, pace: ConnectionPace, mechanism: PacingMechanism, info: TcpInfo | undefined): ReleasePolicy | undefined {
    const { paceKbps, sendGate } = pace;
    if (paceKbps !== undefined && mechanism === 'userspace') return userspacePacing(paceKbps, this.#settings.userspaceBurstMs);
    if (sendGate) return this.#settings.mechanism === 'kernel' ? sendGate : undefined;
    return paceKbps !== undefined && mechanism === 'kernel' ? kernelHandOff(paceKbps, info, acks) : undefined;
  }

  /**
   * The pace in the kernel where the engine paces there and the socket takes it; otherwise no kernel
   * pace may stay from an earlier response, and a paced response is paced in userspace.
   */
  #applyPace(socket: ConnectionSocket, paceKbps: number | undefined, path: string): PacingMechanism {
    const { mechanism } = this.#settings;
    if (paceKbps !== undefined && mechanism === 'kernel' && this.#setKernelPace(socket, paceKbps, path)) return 'kernel';
    if (socket.state.kernelPaceKbps !== undefined) this.#setKernelPace(socket, undefined, path);
    return paceKbps === undefined || mechanism === 'none' ? 'none' : 'userspace';
  }

  /** Sets or removes (undefined) the socket's kernel pace; false when it cannot. */
  #setKernelPace(socket: ConnectionSocket, paceKbps: number | undefined, path: string): boolean {
    try {
      return socket.setKernelPace(paceKbps);
    } catch (err) {
      if (!(err instanceof SocketOptionError)) throw err;
      this.#settings.log.debug(`sammy: kernel pacing failed on ${path}: ${err.message}`);
      return false;
    }
  }

  /** The configured congestion control once per connection, or the client's where allowed; failures only log. */
  #applyCongestionControl(socket: ConnectionSocket, req: IncomingMessage): void {
    const { congestionControl, allowClientCongestionControl, log } = this.#settings;
    let wanted: string | undefined;
    if (!socket.state.configuredCcApplied) {
      socket.state.configuredCcApplied = true;
      wanted = congestionControl;
    }
    if (allowClientCongestionControl) {
      const asked = req.headers[CONGESTION_CONTROL_HEADER_KEY];
      if (isCongestionControl(asked)) wanted = asked;
      else if (asked !== undefined) log.debug(`sammy: ignored ${CONGESTION_CONTROL_HEADER}: ${JSON.stringify(asked)}`);
    }
    try {
      if (wanted !== undefined && wanted !== socket.congestionControl()) socket.setCongestionControl(wanted);
    } catch (err) {
      log.debug(`sammy: congestion control ${wanted}: ${(err as Error).message}`);
    }
  }
}

/** TCP_INFO figures in the units Server-Timing and the delivery records use. */
/** Rates at or above this are the kernel's "unlimited" (~0), not a measurement. */
const UNLIMITED_RATE = 1n << 62n;

function rateKbps(bytesPerSecond: bigint | undefined): number | undefined {
  if (bytesPerSecond === undefined || bytesPerSecond >= UNLIMITED_RATE) return undefined;
  return bytesPerSecondToKbps(Number(bytesPerSecond));
}

function tcpInfoReport(info: TcpInfo | undefined): PacingReport | undefined {
  if (!info) return undefined;
  return {
    rttMs: info.rttUs / 1000,
    minRttMs: info.minRttUs === undefined ? undefined : info.minRttUs / 1000,
    deliveryRateKbps: rateKbps(info.deliveryRate),
    retransmits: info.totalRetrans,
    pacingRateKbps: rateKbps(info.pacingRate),
  };
}
