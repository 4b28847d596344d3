import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache, FactoryFailedError, FactoryTimeoutError, factoryContext, type FactoryContext } from '../../src/index.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { CountingStore } from '../support/wrapped-stores.ts';

/** A cache over a counting memory store, on a clock that moves only when told. */
function setup(options: { factoryTimeout?: number } = {}) {
  const store = new CountingStore(memoryStore());
  const clock = new FakeClock();
  const cache = createCache({ store, clock, logger: false, ...(options.factoryTimeout === undefined ? {} : { factoryTimeout: options.factoryTimeout }) });
  return { store, clock, cache };
}

describe('the factory context', () => {
  it('names the key, has no stale value on a miss, and an unaborted signal', async () => {
    const { cache } = setup();
    let seen: FactoryContext<string> | undefined;
    expect(
      await cache.getOrSet<string>('k', (ctx) => {
        seen = ctx;
        return 'v';
      }),
    ).toBe('v');
    expect(seen?.key).toBe('k');
    expect(seen?.stale).toBeUndefined();
    expect(seen?.signal.aborted).toBe(false);
    await cache.close();
  });

  it('setOptions on a miss stores with the lifetimes the factory chose', async () => {
    const { cache, clock } = setup();
    await cache.getOrSet(
      'token',
      (ctx) => {
        ctx.setOptions({ ttl: 1000 });
        return 'abc';
      },
      { ttl: 60_000 },
    );
    await cache.idle();
    clock.advance(999);
    expect(await cache.get('token')).toBe('abc');
    clock.advance(2);
    expect(await cache.get('token')).toBeUndefined();
    await cache.close();
  });

  it('setOptions changes only the fields it names: the call grace stays', async () => {
    const { cache, clock } = setup();
    await cache.getOrSet(
      'g',
      (ctx) => {
        ctx.setOptions({ ttl: 1000 });
        return 'old';
      },
      { ttl: 60_000, grace: 10_000 },
    );
    await cache.idle();
    clock.advance(5000);
    let refreshes = 0;
    expect(
      await cache.getOrSet('g', () => {
        refreshes++;
        return 'new';
      }),
    ).toBe('old');
    await cache.idle();
    expect(refreshes).toBe(1);
    expect(await cache.get('g')).toBe('new');
    await cache.close();
  });

  it('setOptions tags: the entry records them, so invalidating one of them makes it a miss', async () => {
    const { cache } = setup();
    await cache.getOrSet('post:1', (ctx) => {
      ctx.setOptions({ tags: ['author:7'] });
      return 'hello';
    });
    await cache.idle();
    expect(await cache.get('post:1')).toBe('hello');
    await cache.invalidateTags(['author:7']);
    expect(await cache.get('post:1')).toBeUndefined();
    await cache.close();
  });

  it('setOptions tags under a write lease: served, not stored', async () => {
    const { cache } = setup();
    const fence = await cache.beginWrite(['author:8']);
    const fenced: unknown[] = [];
    cache.events.addEventListener('fenced', (event) => fenced.push(event.detail));
    expect(
      await cache.getOrSet('post:2', (ctx) => {
        ctx.setOptions({ tags: ['author:8'] });
        return 'draft';
      }),
    ).toBe('draft');
    await cache.idle();
    expect(fenced).toEqual([{ key: 'post:2', tags: ['author:8'] }]);
    expect(await cache.has('post:2')).toBe(false);
    await fence.commit();
    await cache.close();
  });

  it('setOptions with an empty tag list drops the call tags', async () => {
    const { cache } = setup();
    await cache.getOrSet(
      'untagged',
      (ctx) => {
        ctx.setOptions({ tags: [] });
        return 1;
      },
      { tags: ['t'] },
    );
    await cache.idle();
    await cache.invalidateTags(['t']);
    expect(await cache.get('untagged')).toBe(1);
    await cache.close();
  });

  it('setOptions refuses unknown options and bad durations: the fill fails, nothing is stored', async () => {
    const { cache } = setup();
    const withOptions = (options: object) => (ctx: FactoryContext<number>) => {
      ctx.setOptions(options);
      return 1;
    };
    await expect(cache.getOrSet('bad', withOptions({ ttL: 5 }))).rejects.toThrow('ctx.setOptions("bad"): unknown option "ttL" (did you mean "ttl"?)');
    await expect(cache.getOrSet('bad', withOptions({ ttl: -1 }))).rejects.toThrow(RangeError);
    await expect(cache.getOrSet('bad', withOptions({ ttl: 0, grace: 0 }))).rejects.toThrow('would store nothing');
    expect(await cache.has('bad')).toBe(false);
    await cache.close();
  });

  it('skip on a miss: every waiter gets the value, nothing is written, the next call fills again', async () => {
    const { cache, store } = setup();
    let runs = 0;
    const factory = async (ctx: FactoryContext<string>) => {
      runs++;
      ctx.skip();
      return 'empty';
    };
    expect(await Promise.all([cache.getOrSet('s', factory), cache.getOrSet('s', factory)])).toEqual(['empty', 'empty']);
    await cache.idle();
    expect(store.count('set')).toBe(0);
    expect(runs).toBe(1);
    expect(await cache.getOrSet('s', factory)).toBe('empty');
    expect(runs).toBe(2);
    await cache.close();
  });

  it('skip in a grace refresh: the stale value stays and keeps being served', async () => {
    const { cache, clock } = setup();
    await cache.getOrSet('r', () => 'v1', { ttl: 1000, grace: 60_000 });
    await cache.idle();
    clock.advance(2000);
    expect(
      await cache.getOrSet('r', (ctx) => {
        expect(ctx.stale).toBe('v1');
        ctx.skip();
        return 'v2';
      }),
    ).toBe('v1');
    await cache.idle();
    expect(await cache.getOrSet('r', () => 'v3')).toBe('v1');
    await cache.close();
  });

  it('fail on a miss: every waiter rejects with the error, or a FactoryFailedError when none is given', async () => {
    const { cache, store } = setup();
    const upstream = new Error('503 from upstream');
    const settled = await Promise.allSettled([1, 2].map(() => cache.getOrSet('f', (ctx) => ctx.fail(upstream))));
    expect(settled.map((one) => one.status === 'rejected' && one.reason)).toEqual([upstream, upstream]);
    const error = await cache.getOrSet('f', (ctx) => ctx.fail()).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(FactoryFailedError);
    expect(error).toMatchObject({ code: 'E_FACTORY_FAILED', key: 'f' });
    await cache.idle();
    expect(store.count('set')).toBe(0);
    expect(cache.stats().factoryErrors).toBe(2);
    await cache.close();
  });

  it('fail is a failure even when the factory catches it and returns', async () => {
    const { cache } = setup();
    const settled = cache.getOrSet('caught', (ctx) => {
      try {
        ctx.fail(new Error('gave up'));
      } catch {
        // a factory that swallows its own fail() still failed
      }
      return 'ignored';
    });
    await expect(settled).rejects.toThrow('gave up');
    expect(await cache.has('caught')).toBe(false);
    await cache.close();
  });

  it('fail in a grace refresh: the stale value is kept and served, the failure is an error event', async () => {
    const { cache, clock } = setup();
    await cache.getOrSet('fr', () => 'kept', { ttl: 1000, grace: 60_000 });
    await cache.idle();
    clock.advance(2000);
    const errors: unknown[] = [];
    cache.events.addEventListener('error', (event) => errors.push(event.detail));
    expect(await cache.getOrSet('fr', (ctx) => ctx.fail(new Error('503')))).toBe('kept');
    await cache.idle();
    expect(errors).toMatchObject([{ source: 'factory', operation: 'refresh', keys: ['fr'] }]);
    expect(await cache.getOrSet('fr', () => 'next')).toBe('kept');
    await cache.close();
  });

  it('setOptions in a grace refresh applies to the refreshed entry', async () => {
    const { cache, clock } = setup();
    await cache.getOrSet('sr', () => 'v1', { ttl: 1000, grace: 60_000 });
    await cache.idle();
    clock.advance(2000);
    await cache.getOrSet('sr', (ctx) => {
      ctx.setOptions({ ttl: 100_000 });
      return 'v2';
    });
    await cache.idle();
    clock.advance(50_000);
    expect(await cache.get('sr')).toBe('v2');
    await cache.close();
  });

  it('aborts the signal with the FactoryTimeoutError when factoryTimeout passes', async () => {
    const { cache } = setup({ factoryTimeout: 5 });
    let signal: AbortSignal | undefined;
    const error = await cache
      .getOrSet('slow', (ctx) => {
        signal = ctx.signal;
        return new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('late')));
      })
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(FactoryTimeoutError);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe(error);
    await cache.idle();
    expect(await cache.has('slow')).toBe(false);
    await cache.close();
  });

  it('aborts the signal of running factories when the cache closes', async () => {
    const { cache } = setup();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const fill = cache.getOrSet('closing', (ctx) => {
      started();
      return new Promise<string>((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
    });
    await running;
    await cache.close();
    const error = await fill.catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
  });

  it('reaches a wrapped function through factoryContext() at the start of its body', async () => {
    const { cache, clock } = setup();
    const issued: string[] = [];
    const token = cache.wrap(async function issueToken(user: string) {
      const ctx = factoryContext<string>();
      issued.push(user);
      await Promise.resolve();
      ctx?.setOptions({ ttl: 500 });
      return `token-${user}`;
    });
    expect(await token('ada')).toBe('token-ada');
    await cache.idle();
    expect(factoryContext()).toBeUndefined();
    clock.advance(400);
    expect(await token('ada')).toBe('token-ada');
    clock.advance(200);
    expect(await token('ada')).toBe('token-ada');
    expect(issued).toEqual(['ada', 'ada']);
    await cache.close();
  });
});

describe('joining a fill whose write has not landed', () => {
  it('does not join once the clock has moved past the value ttl: the stale read refreshes', async () => {
    const { cache, clock } = setup();
    let version = 0;
    const load = async () => ++version;
    expect(await cache.getOrSet('config', load, { ttl: 10_000, grace: 60_000 })).toBe(1);
    // The first fill's write may still be in flight here; its value is no longer fresh.
    clock.advance(15_000);
    expect(await cache.getOrSet('config', load, { ttl: 10_000, grace: 60_000 })).toBe(1);
    await cache.idle();
    expect(await cache.getOrSet('config', load)).toBe(2);
    expect(cache.stats().coalesced).toBe(0);
    await cache.close();
  });
});

describe('many factories at once', () => {
  it('closing aborts every running signal, and twenty concurrent fills print no listener-leak warning', async () => {
    const { cache } = setup();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const signals: AbortSignal[] = [];
    const fills = Array.from({ length: 20 }, (_, i) =>
      cache.getOrSet(`k${i}`, (ctx) => {
        signals.push(ctx.signal);
        return new Promise<string>((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }));
      }),
    );
    while (signals.length < 20) await new Promise((resolve) => setTimeout(resolve, 5));
    const closed = cache.close();
    const outcomes = await Promise.allSettled(fills);
    await closed;
    // Node emits its warnings on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(signals.every((signal) => signal.aborted && (signal.reason as Error).name === 'AbortError')).toBe(true);
    expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
    expect(warnings.filter((warning) => warning.includes('MaxListeners'))).toEqual([]);
  });
});
