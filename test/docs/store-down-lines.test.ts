/**
 * What README says cachette prints when a Valkey server goes away and comes back, checked
 * against a real redis-server that is stopped and started again: the page once said "once",
 * and three lines go out each way (the store unreachable, reads and writes skipped by the
 * circuit breaker; reads and writes recovered, the store answering again), never one per call.
 * The lines are collected through the `logger` option, which is the console by default.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache } from '../../src/cache/create-cache.ts';
import { eventually } from '../support/eventually.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';

const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8').replace(/\s+/g, ' ');
let redis: RedisServer | undefined;

afterAll(async () => {
  await redis?.stop();
});

describe("README's words on a store that stops answering", () => {
  it('three lines when it goes away, three when it answers again, none per call', async () => {
    assert.match(
      readme,
      /says so on the console when the store stops answering \(three lines: unreachable, then reads and writes skipped by the circuit breaker\) and when it answers again \(three more\), never once per call/,
    );
    redis = await startRedis();
    const { port } = redis;
    const lines: string[] = [];
    const logger = { info: (message: string) => void lines.push(message), warn: (message: string) => void lines.push(message) };
    const cache = createCache({ store: valkeyStore(redis.url), ttl: '30s', logger });
    let calls = 0;
    const call = async () => {
      calls++;
      return cache.getOrSet(`key-${calls % 3}`, () => 'value');
    };
    try {
      await call();
      await redis.stop();
      redis = undefined;
      const callUntil = (count: number) => async () => {
        await call();
        return lines.length >= count;
      };
      await eventually(callUntil(3), 'three lines once the server is gone', 600);
      // Many more calls while it is away add nothing.
      for (let i = 0; i < 50; i++) await call();
      const down = [...lines];
      redis = await startRedis({ port });
      await eventually(callUntil(6), 'three more lines once the server is back', 1000);
      for (let i = 0; i < 50; i++) await call();
      const where = `127.0.0.1:${port}`.replaceAll('.', '\\.');
      /** What each line says, or the line itself when it says none of these. */
      const kind = (line: string) =>
        (
          [
            ['unreachable', new RegExp(`^cachette: store valkey at ${where} is unreachable \\(.+\\); serving from the source$`)],
            ['reads down', new RegExp(`^cachette: valkey ${where} reads down: .+; skipping them, one probe every \\d+ ms$`)],
            ['writes down', new RegExp(`^cachette: valkey ${where} writes down: .+; skipping them, one probe every \\d+ ms$`)],
            ['reads recovered', new RegExp(`^cachette: valkey ${where} reads recovered after \\d+ ms \\(\\d+ calls skipped meanwhile\\)$`)],
            ['writes recovered', new RegExp(`^cachette: valkey ${where} writes recovered after \\d+ ms \\(\\d+ calls skipped meanwhile\\)$`)],
            ['answers again', new RegExp(`^cachette: store valkey at ${where} answers again$`)],
          ] as const
        ).find(([, pattern]) => pattern.test(line))?.[0] ?? line;
      assert.deepEqual(down.map(kind).sort(), ['reads down', 'unreachable', 'writes down'], lines.join('\n'));
      assert.deepEqual(lines.slice(3).map(kind).sort(), ['answers again', 'reads recovered', 'writes recovered'], lines.join('\n'));
      assert.ok(calls > 100, `${calls} calls were made`);
    } finally {
      await cache.close();
    }
  }, 60_000);
});
