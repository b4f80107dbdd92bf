// @vitest-environment happy-dom
/**
 * The abort fix (src/loader-aborts.ts) against dash.js's HTTPLoader contract. The loader here
 * stands in for dash.js 5.2's with CMCD on: its own abort reaches nothing, because the request it
 * keeps is not the copy that was loaded. The real player in Chromium: e2e/tests/seek.spec.ts.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { DashRequest } from '../src/player.js';
import { mediaRequest, setup } from './support/player.js';

interface Loader {
  load(config: { request?: object }): void;
  abort(): void;
}

/** A loader built the way dash.js's FactoryMaker builds an extended one (`override` true). */
function loaderOf(extension: { child: unknown }): Loader & { parentAborts: number } {
  const parent = {
    parentAborts: 0,
    load(_config: { request?: object }) {},
    abort() {
      this.parentAborts++;
    },
  };
  const child = (extension.child as (this: unknown) => Partial<Loader>).apply({ parent, context: {}, factory: {} });
  for (const [name, method] of Object.entries(child)) if (name in parent) Object.assign(parent, { [name]: method });
  return parent;
}

describe('dash.js aborts with CMCD on (HTTPLoader extension)', () => {
  let ctx: ReturnType<typeof setup>;
  let loader: ReturnType<typeof loaderOf>;
  beforeEach(() => {
    ctx = setup();
    loader = loaderOf(ctx.extensions[0]!);
  });

  /** One download through the loader: dash.js's request, the copy its CMCD interceptor makes, what the XHR loader puts on it. */
  async function start(on: Loader = loader) {
    const original = mediaRequest();
    on.load({ request: original.customData!.request! });
    const copy: DashRequest = { ...original, customData: { ...original.customData } };
    await ctx.requestInterceptors[0]!(copy);
    const abort = vi.fn();
    Object.assign(copy.customData!, { abort });
    return { copy, abort };
  }
  const end = (copy: DashRequest) => ctx.responseInterceptors[0]!({ request: copy, status: 200, data: new ArrayBuffer(1000) });

  it('is installed through dash.js’s extension point, keeping the parent loader', () => {
    expect(ctx.extensions).toEqual([{ name: 'HTTPLoader', child: expect.any(Function), override: true }]);
  });

  it('aborts the copy in flight after the loader’s own abort, once', async () => {
    const { abort } = await start();
    loader.abort();
    expect(loader.parentAborts).toBe(1);
    expect(abort).toHaveBeenCalledTimes(1);
    loader.abort();
    expect(abort).toHaveBeenCalledTimes(1);
  });

  it('leaves a download that has ended alone', async () => {
    const { copy, abort } = await start();
    await end(copy);
    loader.abort();
    expect(abort).not.toHaveBeenCalled();
  });

  it('aborts only what its own loader loaded (video’s abort leaves audio running)', async () => {
    const other = loaderOf(ctx.extensions[0]!);
    const mine = await start();
    const theirs = await start(other);
    loader.abort();
    expect(mine.abort).toHaveBeenCalledTimes(1);
    expect(theirs.abort).not.toHaveBeenCalled();
  });

  it('of many downloads on one loader, aborts only the one still in flight', async () => {
    const done = [];
    for (let i = 0; i < 20; i++) {
      const d = await start();
      await end(d.copy);
      done.push(d.abort);
    }
    const last = await start();
    loader.abort();
    expect(last.abort).toHaveBeenCalledTimes(1);
    for (const abort of done) expect(abort).not.toHaveBeenCalled();
  });
});
