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

  it('refuses a graceBackoff that is not a duration', async () => {
    const { cache } = setup();
    await expect(cache.getOrSet('k', () => 1, { graceBackoff: 'soon' } as never)).rejects.toThrow('graceBackoff');
    expect(() => createCache({ store: memoryStore(), graceBackoff: -1 })).toThrow('graceBackoff');
    await cache.close();
  });
});
