/**
 * The L1's `maxBytes` bounds the memory it really keeps, over the valkey store whose replies
 * are views into socket chunks: measured in a process of its own after full collections
 * (processes/l1-memory.ts), not as the bytes the L1 counts. Each of 200 small entries shares a
 * reply chunk with a ~56 KiB entry: a kept view of any of them would hold ~11 MiB. The same
 * holds for the values a caller keeps from a cache without an L1.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { uniqueNamespace } from './targets.ts';

const run = promisify(execFile);

/** Memory growth tolerated beyond what the L1 counts: the last reply chunk, allocator noise. */
const SLACK_BYTES = 1024 * 1024;

describe.runIf(requireRedis())('the memory an L1 keeps over valkey', () => {
  it('stays within maxBytes (plus slack) for prefixes, raw payloads and CBOR byte strings, strict and tracking, and so do the values a caller keeps', { timeout: 180_000 }, async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'test/cache/processes/l1-memory.ts', redisUrl!, uniqueNamespace('l1mem')], { maxBuffer: 1 << 20 });
    const { maxBytes, retained } = JSON.parse(stdout) as { maxBytes: number; retained: Record<string, number> };
    expect(Object.keys(retained).sort()).toEqual(['caller cbor', 'caller json', 'caller raw', 'strict cbor', 'strict json', 'strict raw', 'tracking cbor', 'tracking json', 'tracking raw']);
    for (const [run, bytes] of Object.entries(retained)) expect(bytes, `${run}: ${bytes} bytes retained with maxBytes ${maxBytes}`).toBeLessThan(maxBytes + SLACK_BYTES);
  });
});
