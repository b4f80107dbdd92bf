/**
 * How many streams an HTTP/2 client may reset: at once, as many as a page closed with every request in
 * flight would (at most the session's concurrent streams, 100 on the reference server), and a steady
 * rate after that. Each reset stream costs the server a request's work (a stat, an open file), so an
 * unbounded rate of them is the HTTP/2 "rapid reset" attack: past the allowance the session is closed.
 */
export const CLIENT_RESET_BURST = 200;
const CLIENT_RESETS_PER_SECOND = 50;

/** A token bucket of client resets, one per session. */
export class ClientResets {
  #tokens = CLIENT_RESET_BURST;
  #countedAt = performance.now();

  /** Counts one reset; false once the client has reset more than it may. */
  allow(): boolean {
    const now = performance.now();
    this.#tokens = Math.min(CLIENT_RESET_BURST, this.#tokens + ((now - this.#countedAt) * CLIENT_RESETS_PER_SECOND) / 1000);
    this.#countedAt = now;
    return --this.#tokens >= 0;
  }
}
