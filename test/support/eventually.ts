/** Bounded polling for what travels on other connections (invalidations, reconnects): never a timed assertion. */
import { sleep } from './suite-api.ts';
import type { Cache } from '../../src/index.ts';

/** Resolves once `check` holds, trying up to `tries` times 10 ms apart; throws naming `what` otherwise. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await sleep(10);
  }
  throw new Error(`never happened: ${what}`);
}

/** Reads `key` until a read is answered from memory (no bytes read from the store), 500 tries at most; resolves what it read. */
export async function untilFromMemory(cache: Cache, key: string): Promise<unknown> {
  let value: unknown;
  await eventually(
    async () => {
      const before = cache.stats().bytesRead;
      value = await cache.get(key);
      return value !== undefined && cache.stats().bytesRead === before;
    },
    `${key} served from memory`,
    500,
  );
  return value;
}
