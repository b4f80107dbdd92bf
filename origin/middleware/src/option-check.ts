/**
 * How every public entry of the middleware checks its options, once, when it is made: an options
 * argument that is not an object, an unknown key (a misspelt option would otherwise change nothing
 * and say nothing) and a value of the wrong type are TypeErrors; a value of the right type that
 * cannot work is a RangeError. Each entry keeps one list of its options, a check per key typed by
 * its options interface, from which the known keys of the message come.
 */
import { describeValue, nearestName, unknownOptionMessage, wrongTypeError } from 'sammy-pacing-protocol';

/** Checks one option's value (defined), throwing with the entry's and the option's name. */
export type OptionCheck<T> = (value: unknown, name: string) => asserts value is T;

/** One check per option of `T`: the list of known options. */
export type OptionChecks<T> = { readonly [K in keyof T]-?: OptionCheck<Exclude<T[K], undefined>> };

/**
 * A value of the wrong type, in the one shape of protocol's option errors: `<name> must be <wanted>,
 * got <the value described>`, `name` being `<entry>: <key>`.
 */
export function wrongType(name: string, wanted: string, value: unknown): TypeError {
  return wrongTypeError(name, wanted, describeValue(value));
}

/**
 * Checks `options` of entry `entry` (e.g. `sammyPacing`) against `checks`: an object, only known keys,
 * each value that is set (not undefined or null) of its type. Returns the options, typed.
 */
export function checkOptions<T extends object>(entry: string, options: unknown, checks: OptionChecks<T>): T {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw wrongType(`${entry}: options`, 'an object', options);
  }
  const known = Object.keys(checks);
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(checks, key)) {
      throw new TypeError(`${unknownOptionMessage(entry, key, nearestName(key, known))}; known: ${known.join(', ')}`);
    }
  }
  for (const key of known) {
    const value = (options as Record<string, unknown>)[key];
    const check = (checks as Record<string, (value: unknown, name: string) => void>)[key]!;
    // null is unset, as the defaults read it (`??`).
    if (value !== undefined && value !== null) check(value, `${entry}: ${key}`);
  }
  return options as T;
}

/** A number (finite or not: ranges are the entry's to check, as RangeErrors). */
export const isNumber: OptionCheck<number> = (value, name) => {
  if (typeof value !== 'number') throw wrongType(name, 'a number', value);
};

export const isBoolean: OptionCheck<boolean> = (value, name) => {
  if (typeof value !== 'boolean') throw wrongType(name, 'true or false', value);
};

/** One of `known` (a string of another value is a RangeError listing them). */
export function oneOf<T extends string>(known: readonly T[], what = 'one of'): OptionCheck<T> {
  return (value, name) => {
    if (typeof value !== 'string') throw wrongType(name, `a string, ${what} ${known.join(', ')}`, value);
    if (!(known as readonly string[]).includes(value))
      throw new RangeError(`${name} must be ${what} ${known.join(', ')}, got ${JSON.stringify(value)}`);
  };
}
