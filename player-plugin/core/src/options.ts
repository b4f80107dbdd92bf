/**
 * `attach()` and `update()` take the adapter's own options and the tunables, nothing else: a key
 * that is neither is refused (policy/parameters.ts) with the nearest known one, as a typo in a
 * script-tag page would otherwise change nothing and say nothing.
 */
import { nearestName } from 'sammy-pacing-protocol';
import { DEFAULT_PARAMETERS } from './config.js';

/**
 * The adapters' own options, beside the tunables: their one list. adapter/kit.ts holds
 * `AdapterOptions` (adapter/types.ts) and what the kit takes out of it to these keys, by the compiler.
 */
export const ADAPTER_OPTIONS = ['mode', 'enabled', 'cmcdMode', 'bufferTargetSeconds', 'initialHistory'] as const;

/** The known option nearest to an unknown one: an adapter's own option or a tunable. */
export function nearestOption(key: string): string {
  // Renamed: the player's level, no longer a name shared with the pace's own full level.
  if (key === 'maxBufferSeconds') return 'bufferTargetSeconds';
  return nearestName(key, [...ADAPTER_OPTIONS, ...Object.keys(DEFAULT_PARAMETERS)]);
}
