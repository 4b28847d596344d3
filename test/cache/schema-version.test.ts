import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import type { StandardResult, StandardSchema } from '../../src/cache/fill/schema.ts';
import { createCache } from '../../src/index.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { CountingStore } from '../support/wrapped-stores.ts';

interface User {
  id: string;
  name: string;
}

/** A Standard Schema for User, synchronous or asynchronous, that trims names (its output is what is served). */
function userSchema(async = false): StandardSchema<User> {
  const validate = (value: unknown): StandardResult<User> => {
    const user = value as Partial<User> | null;
    if (typeof user?.id !== 'string' || typeof user.name !== 'string') return { issues: [{ message: 'not a User' }] };
    return { value: { id: user.id, name: user.name.trim() } };
  };
  return { '~standard': { version: 1, vendor: 'test', validate: async ? async (value) => validate(value) : validate } };
}

function setup() {
  const store = new CountingStore(memoryStore());
  const clock = new FakeClock();
  const cache = createCache({ store, clock, logger: false });
  const invalid: unknown[] = [];
  cache.events.addEventListener('invalid', (event) => invalid.push(event.detail));
  return { store, clock, cache, invalid };
}

describe.each([false, true])('schema (async validate: %s)', (async) => {
  it('a stored value the schema refuses is a miss, counted, reported and refilled', async () => {
    const { cache, invalid } = setup();
    await cache.set('user:1', { id: 1, title: 'old shape' });
    let fills = 0;
    const load = async () => {
      fills++;
      return { id: '1', name: 'Ada' };
    };
    expect(await cache.getOrSet('user:1', load, { schema: userSchema(async) })).toEqual({ id: '1', name: 'Ada' });
    expect(fills).toBe(1);
    expect(cache.stats()).toMatchObject({ invalid: 1, misses: 1 });
    expect(invalid).toEqual([{ key: 'user:1', reason: 'schema', issues: [{ message: 'not a User' }] }]);
    await cache.idle();
    expect(await cache.getOrSet('user:1', load, { schema: userSchema(async) })).toEqual({ id: '1', name: 'Ada' });
    expect(fills).toBe(1);
    await cache.close();
  });

  it('serves what the schema returns, and checks stale values too', async () => {
    const { cache, clock } = setup();
    await cache.set('user:2', { id: '2', name: '  Grace  ' }, { ttl: 1000, grace: 60_000 });
    expect(await cache.getOrSet('user:2', async () => ({ id: '2', name: 'new' }), { schema: userSchema(async) })).toEqual({ id: '2', name: 'Grace' });
    clock.advance(2000);
    await cache.set('user:3', 'junk', { ttl: 1000, grace: 60_000 });
    clock.advance(2000);
    // A stale value that fails is not served stale: the call waits for the fill.
    expect(await cache.getOrSet('user:3', async () => ({ id: '3', name: 'Lin' }), { schema: userSchema(async) })).toEqual({ id: '3', name: 'Lin' });
    expect(cache.stats().invalid).toBe(1);
    await cache.close();
  });
});

describe('version', () => {
  it('an entry written under another version is a miss, counted and refilled; get still reads the value', async () => {
    const { cache, invalid } = setup();
    expect(await cache.getOrSet('cfg', () => ({ shape: 1 }), { version: 1 })).toEqual({ shape: 1 });
    await cache.idle();
    expect(await cache.get('cfg')).toEqual({ shape: 1 });
    expect(await cache.getOrSet('cfg', () => ({ shape: 9 }), { version: 1 })).toEqual({ shape: 1 });
    expect(await cache.getOrSet('cfg', () => ({ shape: 2 }), { version: 2 })).toEqual({ shape: 2 });
    await cache.idle();
    expect(await cache.getOrSet('cfg', () => ({ shape: 3 }), { version: 2 })).toEqual({ shape: 2 });
    expect(cache.stats().invalid).toBe(1);
    expect(invalid).toEqual([{ key: 'cfg', reason: 'version', issues: [] }]);
    // A value stored without a version (set, an older deploy) is not of version 2.
    await cache.set('plain', 'x');
    expect(await cache.getOrSet('plain', () => 'y', { version: 2 })).toBe('y');
    // A call that names no version accepts any.
    expect(await cache.getOrSet('cfg', () => ({ shape: 0 }))).toEqual({ shape: 2 });
    await cache.close();
  });

  it('wrap takes version and schema, checked where the function is wrapped', async () => {
    const { cache } = setup();
    let runs = 0;
    const find = cache.wrap(
      async (id: string) => {
        runs++;
        return { id, name: 'Ada' };
      },
      { name: 'find', version: 'v2', schema: userSchema() },
    );
    expect(await find('1')).toEqual({ id: '1', name: 'Ada' });
    await cache.idle();
    expect(await find('1')).toEqual({ id: '1', name: 'Ada' });
    expect(runs).toBe(1);
    expect(() => cache.wrap(async () => 1, { name: 'bad', version: '' })).toThrow('"version" must be a non-empty string or a finite number');
    expect(() => cache.wrap(async () => 1, { name: 'bad', schema: {} as never })).toThrow('"schema" must be a Standard Schema validator');
    await expect(cache.getOrSet('k', () => 1, { versoin: 1 } as never)).rejects.toThrow('did you mean "version"?');
    await cache.close();
  });
});
