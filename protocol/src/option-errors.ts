/**
 * The one shape of every options error, players' and servers' alike: the entry first, then the key,
 * then what was wrong: `sammyRecords: unknown option 'maxSubscriber' (did you mean 'maxSubscribers'?)`,
 * `sammyPacing: maxPaceKbps must be a number, got string "fast"`. It is the player adapters' shape
 * (`Sammy: …`), which sammy-pacing-core writes inline: a call here would cost their bundles bytes.
 * The servers build theirs here, and may say more (the known options, the value's type).
 */

/** `<entry>: unknown option '<key>' (did you mean '<nearest>'?)`; a server may add `; known: <the options>` after it. */
export function unknownOptionMessage(entry: string, key: string, nearest: string): string {
  return `${entry}: unknown option '${key}' (did you mean '${nearest}'?)`;
}

/**
 * A value of the wrong type: `<name> must be <wanted>, got <got>`, where `name` is `<entry>: <key>`,
 * `wanted` says what it takes ('a number', 'true or false', "'query' or 'header'") and `got` what it
 * had: `describeValue(value)`.
 */
export function wrongTypeError(name: string, wanted: string, got: string): TypeError {
  return new TypeError(`${name} must be ${wanted}, got ${got}`);
}

/** How a value reads in a message: its type, and the value itself where short (a string's first 40 characters). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return `${typeof value} ${String(value)}`;
  return typeof value === 'object' ? 'an object' : typeof value;
}
