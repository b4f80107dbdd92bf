/**
 * `attach()` and `update()` take the adapter's own options and the tunables, nothing else: a key
 * that is neither is refused with the nearest known one, as a typo in a script-tag page would
 * otherwise change nothing and say nothing; a value whose type is not that of the option's sample
 * (a tunable's default) is a TypeError. One check, no table of types to keep.
 */
import { nearestName } from 'sammy-pacing-protocol';

/**
 * The adapters' own options, beside the tunables: their one list, with a value of its type for
 * those the kit checks here (undefined: `mode`, `cmcdMode` and `initialHistory`, which their readers
 * check). adapter/kit.ts holds `AdapterOptions` (adapter/types.ts) and what the kit takes out of it
 * to these keys, by the compiler.
 */
export const ADAPTER_OPTIONS = {
  mode: undefined,
  enabled: true,
  cmcdMode: undefined,
  bufferTargetSeconds: 0,
  initialHistory: undefined,
} as const;

/** The known option nearest to an unknown one: an adapter's own option or one of `known`'s keys. */
function nearestOption(key: string, known: object): string {
  // Renamed: the player's level, no longer a name shared with the pace's own full level.
  if (key === 'maxBufferSeconds') return 'bufferTargetSeconds';
  return nearestName(key, Object.keys({ ...ADAPTER_OPTIONS, ...known }));
}

/**
 * `known` with `options` set on it (an undefined value keeps the known one). Refuses a key that
 * `known` has not (inherited names such as `toString` included), naming the nearest option, and a
 * value whose `typeof` is not that of the known one.
 */
export function withOptions<T extends object>(options: object, known: T): T {
  const merged = { ...known } as Record<string, unknown>;
  for (const [key, value] of Object.entries(options)) {
    if (!Object.hasOwn(known, key)) throw new TypeError(`Sammy: unknown option '${key}' (did you mean '${nearestOption(key, known)}'?)`);
    const type = typeof merged[key];
    if (value !== undefined && typeof value != type) throw new TypeError(`Sammy: ${key} must be a ${type}, got ${String(value)}`);
    merged[key] = value ?? merged[key];
  }
  return merged as T;
}
