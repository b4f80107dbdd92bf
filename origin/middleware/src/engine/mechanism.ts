/**
 * Choosing how responses are paced: in the kernel (SO_MAX_PACING_RATE) where the platform allows,
 * in userspace otherwise, or not at all.
 */
import type { EngineMechanism } from './contract.js';
import { probeKernelPacing } from '../socket/socket-options.js';

/**
 * What the operator asks for. `auto`: kernel if it works here, else userspace. `none`: no pacing,
 * the same word the records and Server-Timing then report for every response.
 */
export type PacingMode = 'auto' | 'kernel' | 'userspace' | 'none';
export const PACING_MODES: readonly PacingMode[] = ['auto', 'kernel', 'userspace', 'none'];

export function isPacingMode(value: unknown): value is PacingMode {
  return typeof value === 'string' && (PACING_MODES as readonly string[]).includes(value);
}

export interface ResolvedMechanism {
  /** Mechanism for paced responses (`none` when pacing is off). */
  mechanism: EngineMechanism;
  /** One line for the start-up log. */
  description: string;
}

/** Throws when `kernel` is demanded and unavailable: an experiment must not silently pace differently. */
export function resolvePacingMechanism(mode: PacingMode): ResolvedMechanism {
  switch (mode) {
    case 'none':
      return { mechanism: 'none', description: 'pacing none: rtp is read and reported, never applied' };
    case 'userspace':
      return { mechanism: 'userspace', description: 'userspace token bucket (forced)' };
    case 'kernel':
    case 'auto': {
      const probe = probeKernelPacing();
      if (probe.available) return { mechanism: 'kernel', description: 'kernel SO_MAX_PACING_RATE' };
      if (mode === 'kernel') throw new Error(`kernel pacing requested but unavailable: ${probe.reason}`);
      return { mechanism: 'userspace', description: `userspace token bucket (kernel pacing unavailable: ${probe.reason})` };
    }
  }
}
