import { describe, expect, it, vi } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache, type FactoryContext } from '../../src/index.ts';
import { FakeClock } from '../support/fake-clock.ts';

function setup(refreshAhead?: number) {
  const clock = new FakeClock();
  const cache = createCache({ store: memoryStore(), clock, logger: false, ...(refreshAhead === undefined ? {} : { refreshAhead }) });
  return { clock, cache };
}

describe('refreshAhead', () => {
  it('a hit past the fraction is served at once and starts one background refresh for 100 callers', async () => {
    const { cache, clock } = setup();
    const options = { ttl: 10_000, refreshAhead: 0.8 };
    await cache.getOrSet('hot', () => 'v1', options);
    await cache.idle();
    let refreshes = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const refresh = async (ctx: FactoryContext<string>) => {
      refreshes++;
      expect(ctx.stale).toBe('v1');
      await gate;
      return 'v2';
    };
    clock.advance(7_000); // 70 %: no refresh yet
    expect(await cache.getOrSet('hot', refresh, options)).toBe('v1');
    expect(refreshes).toBe(0);
    clock.advance(1_500); // 85 %
    const served = await Promise.all(Array.from({ length: 100 }, () => cache.getOrSet('hot', refresh, options)));
    expect(served.every((value) => value === 'v1')).toBe(true);
    // The refresh starts once it holds the key's fill lease (a store call away).
    await vi.waitFor(() => expect(refreshes).toBe(1));
    expect(cache.stats()).toMatchObject({ hits: 101, refreshes: 1, staleServed: 0 });
    release();
    await cache.idle();
    expect(await cache.get('hot')).toBe('v2');
    clock.advance(5_000); // 50 % of the new entry's ttl
    expect(await cache.getOrSet('hot', refresh, options)).toBe('v2');
    expect(refreshes).toBe(1);
    await cache.close();
  });

  it('comes from createCache too; the refresh honours skip and setOptions', async () => {
    const { cache, clock } = setup(0.5);
    await cache.getOrSet('k', () => 'v1', { ttl: 10_000 });
    await cache.idle();
    clock.advance(6_000);
    expect(
      await cache.getOrSet('k', (ctx) => {
        ctx.skip();
        return 'skipped';
      }),
    ).toBe('v1');
    await cache.idle();
    expect(await cache.get('k')).toBe('v1');
    expect(
      await cache.getOrSet('k', (ctx) => {
        ctx.setOptions({ ttl: 100_000 });
        return 'v2';
      }),
    ).toBe('v1');
    await cache.idle();
    clock.advance(50_000);
    expect(await cache.get('k')).toBe('v2');
    await cache.close();
  });

  it('a failing refresh-ahead keeps the entry and reports the failure', async () => {
    const { cache, clock } = setup(0.5);
    await cache.getOrSet('k', () => 'v1', { ttl: 10_000 });
    await cache.idle();
    clock.advance(6_000);
    const errors: unknown[] = [];
    cache.events.addEventListener('error', (event) => errors.push(event.detail));
    expect(await cache.getOrSet('k', () => Promise.reject(new Error('down')))).toBe('v1');
    await cache.idle();
    expect(errors).toMatchObject([{ source: 'factory', operation: 'refresh', keys: ['k'] }]);
    expect(await cache.get('k')).toBe('v1');
    await cache.close();
  });

  it('refuses fractions outside (0, 1) and typos', async () => {
    expect(() => createCache({ store: memoryStore(), refreshAhead: 1 })).toThrow('"refreshAhead" must be a fraction of the ttl between 0 and 1');
    const { cache } = setup();
    await expect(cache.getOrSet('k', () => 1, { refreshAhead: 0 })).rejects.toThrow(RangeError);
    await expect(cache.getOrSet('k', () => 1, { refreshAhead: '80%' } as never)).rejects.toThrow(RangeError);
    await expect(cache.getOrSet('k', () => 1, { refreshAhaed: 0.8 } as never)).rejects.toThrow('did you mean "refreshAhead"?');
    await cache.close();
  });
});
