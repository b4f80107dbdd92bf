/**
 * Map/WeakMap.prototype.getOrInsert(Computed) (the TC39 "upsert" methods): Shaka 5's compiled
 * build calls them and Chromium has them; Node 20 does not. Installed for the tests only.
 */
type Upsert = {
  getOrInsert?: unknown;
  getOrInsertComputed?: unknown;
  has(k: unknown): boolean;
  get(k: unknown): unknown;
  set(k: unknown, v: unknown): unknown;
};
for (const proto of [Map.prototype, WeakMap.prototype] as unknown as Upsert[]) {
  proto.getOrInsertComputed ??= function (this: Upsert, key: unknown, make: (k: unknown) => unknown) {
    if (!this.has(key)) this.set(key, make(key));
    return this.get(key);
  };
  proto.getOrInsert ??= function (this: Upsert, key: unknown, value: unknown) {
    if (!this.has(key)) this.set(key, value);
    return this.get(key);
  };
}
export {};
