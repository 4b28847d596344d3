import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache, FactoryTimeoutError } from '../../src/index.ts';
import { FakeClock } from '../support/fake-clock.ts';

/** A cache on a clock that moves only when told, recording `staleOnError` events. */
function setup(options: { staleIfError?: number; graceBackoff?: number; factoryTimeout?: number } = {}) {
  const clock = new FakeClock();
  const cache = createCache({ store: memoryStore(), clock, logger: false, ...options });
  const onError: unknown[] = [];
  cache.events.addEventListener('staleOnError', (event) => onError.push(event.detail));
  return { clock, cache, onError };
}

const down = () => Promise.reject(new Error('origin down'));

describe('staleIfError', () => {
  it('serves the last value past grace when the factory fails, counted apart from stale hits', async () => {
    const { cache, clock, onError } = setup();
    const options = { ttl: 1000, grace: 1000, staleIfError: 60_000 };
    await cache.getOrSet('k', () => 'v1', options);
    await cache.idle();
    clock.advance(5000); // past ttl + grace, inside staleIfError
    const seen: unknown[] = [];
    expect(
      await cache.getOrSet(
        'k',
        (ctx) => {
          seen.push(ctx.stale);
          return down();
        },
        options,
      ),
    ).toBe('v1');
    expect(seen).toEqual(['v1']);
    expect(cache.stats()).toMatchObject({ staleOnError: 1, staleServed: 0, misses: 2, factoryErrors: 1 });
    expect(onError).toMatchObject([{ key: 'k', backoff: false, error: { message: 'origin down' } }]);
    await cache.close();
  });

  it('refills past grace when the factory works: the kept value is not served', async () => {
    const { cache, clock } = setup();
    const options = { ttl: 1000, staleIfError: 60_000 };
    await cache.getOrSet('k', () => 'v1', options);
    await cache.idle();
    clock.advance(5000);
    expect(await cache.getOrSet('k', () => 'v2', options)).toBe('v2');
    expect(cache.stats().staleOnError).toBe(0);
    await cache.close();
  });

  it('rejects once the window has passed', async () => {
    const { cache, clock } = setup();
    const options = { ttl: 1000, staleIfError: 10_000 };
    await cache.getOrSet('k', () => 'v1', options);
    await cache.idle();
    clock.advance(11_001);
    await expect(cache.getOrSet('k', down, options)).rejects.toThrow('origin down');
    await cache.close();
  });

  it('serves the kept value on a timeout and on ctx.fail(), to every waiter', async () => {
    const { cache, clock } = setup({ factoryTimeout: 5 });
    const options = { ttl: 1000, staleIfError: 60_000 };
    await cache.getOrSet('k', () => 'v1', options);
    await cache.idle();
    clock.advance(5000);
    const hang = () => new Promise<string>(() => {});
    expect(await Promise.all([cache.getOrSet('k', hang, options), cache.getOrSet('k', hang, options)])).toEqual(['v1', 'v1']);
    expect(await cache.getOrSet('k', (ctx) => ctx.fail(new FactoryTimeoutError('k', 1)), options)).toBe('v1');
    expect(cache.stats().staleOnError).toBe(2);
    await cache.close();
  });

  it('comes from createCache too, and must be longer than grace', async () => {
    const { cache, clock } = setup({ staleIfError: 60_000 });
    await cache.getOrSet('k', () => 'v1', { ttl: 1000 });
    await cache.idle();
    clock.advance(5000);
    expect(await cache.getOrSet('k', down)).toBe('v1');
    expect(() => createCache({ store: memoryStore(), grace: '1m', staleIfError: '30s' })).toThrow('staleIfError (30000 ms) must be longer than grace (60000 ms)');
    await expect(cache.getOrSet('x', () => 1, { grace: 5000, staleIfError: 5000 })).rejects.toThrow('must be longer than grace');
    await expect(cache.getOrSet('x', () => 1, { staleIfErorr: 5000 } as never)).rejects.toThrow('did you mean "staleIfError"?');
    await cache.close();
  });
});

describe('graceBackoff', () => {
  it('does not retry a failed source within the backoff: stale values are served, each a staleOnError', async () => {
    const { cache, clock, onError } = setup();
    const options = { ttl: 1000, grace: 600_000, graceBackoff: 10_000 };
    await cache.getOrSet('k', () => 'v1', options);
    await cache.idle();
    clock.advance(2000);
    let tries = 0;
    const failing = () => {
      tries++;
      return down();
    };
    expect(await cache.getOrSet('k', failing, options)).toBe('v1'); // a stale hit; its refresh fails
    await cache.idle();
    expect(tries).toBe(1);
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      expect(await cache.getOrSet('k', failing, options)).toBe('v1');
    }
    await cache.idle();
    expect(tries).toBe(1);
    expect(cache.stats()).toMatchObject({ staleServed: 1, staleOnError: 5 });
    expect(onError).toHaveLength(5);
    expect(onError.every((detail) => (detail as { backoff: boolean }).backoff)).toBe(true);
    clock.advance(5000); // the backoff has passed: one more try
    expect(await cache.getOrSet('k', () => 'v2', options)).toBe('v1');
    await cache.idle();
    expect(await cache.get('k')).toBe('v2');
    await cache.close();
  });

  it('with staleIfError: past grace the source is tried at most once per backoff', async () => {
    const { cache, clock } = setup({ graceBackoff: 30_000 });
    const options = { ttl: 1000, staleIfError: 600_000 };
    await cache.getOrSet('k', () => 'v1', options);
    await cache.idle();
    clock.advance(5000);
    let tries = 0;
    const failing = () => {
      tries++;
      return down();
    };
    expect(await cache.getOrSet('k', failing, options)).toBe('v1');
    clock.advance(10_000);
    expect(await cache.getOrSet('k', failing, options)).toBe('v1');
    expect(tries).toBe(1);
    clock.advance(30_000);
    expect(await cache.getOrSet('k', failing, options)).toBe('v1');
    expect(tries).toBe(2);
    expect(cache.stats().staleOnError).toBe(3);
    await cache.close();
  });

  it.each([
    ['grace', { ttl: 1000, grace: 600_000 }, 2000],
    ['stale-if-error', { ttl: 1000, staleIfError: 600_000 }, 5000],
    ['refresh-ahead', { ttl: 600_000, refreshAhead: 0.5 }, 400_000],
  ] as const)('by default, a failing source is called once per 5 s per key while %s serves a value, not on every call', async (_, options, past) => {
    const { cache, clock } = setup();
    await cache.getOrSet('k', () => 'v1', options);
    await cache.idle();
    clock.advance(past);
    let calls = 0;
    const failing = () => {
      calls++;
      return down();
    };
    // Back-to-back calls, each after the previous background refresh has failed.
    for (let i = 0; i < 50; i++) {
      expect(await cache.getOrSet('k', failing, options)).toBe('v1');
      await cache.idle();
    }
    expect(calls).toBe(1);
    clock.advance(4999);
    for (let i = 0; i < 10; i++) expect(await cache.getOrSet('k', failing, options)).toBe('v1');
    await cache.idle();
    expect(calls).toBe(1);
    clock.advance(1); // 5 s after the failure: one more try
    expect(await cache.getOrSet('k', failing, options)).toBe('v1');
    await cache.idle();
    expect(calls).toBe(2);
    await cache.close();
    // graceBackoff: 0 tries on every call.
    const eager = setup({ graceBackoff: 0 });
    await eager.cache.getOrSet('k', () => 'v1', options);
    await eager.cache.idle();
    eager.clock.advance(past);
    calls = 0;
    for (let i = 0; i < 5; i++) {
      expect(await eager.cache.getOrSet('k', failing, options)).toBe('v1');
      await eager.cache.idle();
    }
    expect(calls).toBe(5);
    await eager.cache.close();
  });

  it('refuses a graceBackoff that is not a duration', async () => {
    const { cache } = setup();
    await expect(cache.getOrSet('k', () => 1, { graceBackoff: 'soon' } as never)).rejects.toThrow('graceBackoff');
    expect(() => createCache({ store: memoryStore(), graceBackoff: -1 })).toThrow('graceBackoff');
    await cache.close();
  });
});
