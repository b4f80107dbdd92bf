/**
 * A player component Sammy wraps (hls.js's ABR controller and fragment loader, Shaka's
 * AbrManager): Sammy's own members, and every other one forwarded to the wrapped object, so the
 * player keeps each method it calls, present and future, without a forwarder written for it.
 */
export function delegate<Inner extends object, Own extends object>(own: Own, inner: () => Inner): Own & Inner {
  return new Proxy(own, {
    get(target, key) {
      if (key in target) return Reflect.get(target, key);
      // Read at each access: a replaced inner object (Shaka's, at a new load) takes over.
      const to = inner();
      const value = Reflect.get(to, key);
      return typeof value === 'function' ? value.bind(to) : value;
    },
    set: (target, key, value) => Reflect.set(key in target ? target : inner(), key, value),
    has: (target, key) => key in target || key in inner(),
  }) as Own & Inner;
}
