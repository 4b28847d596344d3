/**
 * The coherent L1 over the PostgreSQL store's LISTEN/NOTIFY bus (adapters/postgres/bus.ts),
 * on a PostgreSQL cluster of its own: the listening connection killed by the server
 * (pg_terminate_backend from another connection), a writer and a holder in another process,
 * and invalidations too large for one NOTIFY payload. Nothing here asserts on time: a write
 * that waits for a holder whose session was killed waits for its lease, which is what it tests.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../../adapters/postgres/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { bucketOf, keyChannel } from '../../src/store/bus/format.ts';
import { postgresInstalled, startPostgres, type Postgres } from '../adapters/postgres-server.ts';
import { eventually, untilFromMemory } from '../support/eventually.ts';
import { startHolder } from './coherent-holder-process.ts';
import { uniqueNamespace } from './targets.ts';

describe.runIf(postgresInstalled)('coherent L1 on postgres under faults', () => {
  let server: Postgres;
  let admin: pg.Client;
  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Client(server.url);
    await admin.connect();
  }, 60_000);
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  /** Two caches over two stores (two processes' connections), and their namespace. */
  function pair(): { reader: Cache; writer: Cache; namespace: string; close(): Promise<void> } {
    const namespace = uniqueNamespace('l1cpg');
    const reader = createCache({ store: postgresStore(server.url), namespace, logger: false, l1: { consistency: 'coherent' } });
    const writer = createCache({ store: postgresStore(server.url), namespace, logger: false, l1: { consistency: 'coherent' } });
    return {
      reader,
      writer,
      namespace,
      close: async () => {
        await reader.close();
        await writer.close();
      },
    };
  }

  /** The server pids of the listening sessions registered for the channel of `fullKey`. */
  async function holdersOf(fullKey: string): Promise<number[]> {
    const result = await admin.query<{ pid: number }>('SELECT pid FROM cachette_holders WHERE channel = $1', [keyChannel(fullKey)]);
    return result.rows.map((row) => row.pid);
  }

  it('the listening connection killed: a write right after it never lets the holder serve the old value; memory flushed and bypassed (stats, event) until it listens again', async () => {
    const { reader, writer, namespace, close } = pair();
    const live: boolean[] = [];
    let gapRead: Promise<unknown> | undefined;
    const bypassedBefore = reader.stats().l1Bypassed;
    reader.events.addEventListener('coherence', (event) => {
      live.push(event.detail.live);
      // A read started while the bus is down: it goes to the store, counted as bypassed.
      if (!event.detail.live) gapRead ??= reader.get('k');
    });
    await writer.set('k', 'v1');
    expect(await untilFromMemory(reader, 'k')).toBe('v1');
    // The reader alone holds k (a write does not make its writer a holder).
    const [pid, ...others] = await holdersOf(`cachette:${namespace}:k`);
    expect(others).toEqual([]);
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    // At once, before the reader may have noticed: the write returns only once the killed
    // session's holder acknowledged (it cannot) or its lease ran out.
    expect(await writer.set('k', 'v2')).toBe(true);
    expect(await reader.get('k')).toBe('v2');
    await eventually(() => live.includes(false), 'coherence lost');
    await gapRead;
    expect(reader.stats().l1Bypassed).toBeGreaterThan(bypassedBefore);
    await eventually(() => live.at(-1) === true, 'coherence back', 500);
    // A new session, a new registration: served from memory again, and invalidated again.
    expect(await untilFromMemory(reader, 'k')).toBe('v2');
    expect(await holdersOf(`cachette:${namespace}:k`)).not.toContain(pid);
    await writer.set('k', 'v3');
    expect(await reader.get('k')).toBe('v3');
    expect(reader.stats().storeErrors).toBe(0);
    expect(writer.stats().storeErrors).toBe(0);
    await close();
  });

  it('invalidations larger than one NOTIFY payload (8,000 bytes) are split, key by key: what they do not name stays in memory', async () => {
    const { reader, writer, namespace, close } = pair();
    // Twelve keys of 1,000 characters in one bucket: one message for them all would be 12 kB.
    const prefix = `cachette:${namespace}:`;
    const bucket = bucketOf(`${prefix}${'x'.repeat(1000)}0`);
    const keys: string[] = [];
    for (let i = 0; keys.length < 12; i++) if (bucketOf(`${prefix}${'x'.repeat(1000)}${i}`) === bucket) keys.push(`${'x'.repeat(1000)}${i}`);
    let untouched = 'untouched';
    while (bucketOf(prefix + untouched) === bucket) untouched += '!';
    await writer.set(untouched, 'kept');
    expect(await untilFromMemory(reader, untouched)).toBe('kept');
    await Promise.all(keys.map((key) => writer.set(key, 'v1')));
    for (const key of keys) expect(await untilFromMemory(reader, key)).toBe('v1');
    // One tick of writes: one invalidation of the twelve, split to fit.
    expect(await Promise.all(keys.map((key) => writer.set(key, 'v2')))).toEqual(keys.map(() => true));
    for (const key of keys) expect(await reader.get(key)).toBe('v2');
    const before = reader.stats().bytesRead;
    expect(await reader.get(untouched)).toBe('kept');
    expect(reader.stats().bytesRead).toBe(before);
    expect(writer.stats().storeErrors).toBe(0);
    await close();
  });

  it("over a pg Pool the bus listens on a Client of the pool's options; over a single Client the coherent L1 is refused, saying what to pass", async () => {
    const pool = new pg.Pool({ connectionString: server.url, max: 2 });
    const client = new pg.Client(server.url);
    expect(() => createCache({ store: postgresStore(client), l1: { consistency: 'coherent' } })).toThrow(
      /"postgres" store has no "coherence" capability.*the postgres store \(given a URL or a pg Pool, not a single Client\)/,
    );
    const namespace = uniqueNamespace('l1cpg-pool');
    const reader = createCache({ store: postgresStore(pool), namespace, l1: { consistency: 'coherent' } });
    const writer = createCache({ store: postgresStore(server.url), namespace, l1: { consistency: 'coherent' } });
    await writer.set('p', 'v1');
    expect(await untilFromMemory(reader, 'p')).toBe('v1');
    await writer.set('p', 'v2');
    expect(await reader.get('p')).toBe('v2');
    await reader.close();
    await writer.close();
    await pool.end();
  });

  it('a writer and a holder in another process: the writes of each reach the other’s memory before they return', async () => {
    const namespace = uniqueNamespace('l1cpg-process');
    const local = createCache({ store: postgresStore(server.url), namespace, l1: { consistency: 'coherent' } });
    const other = startHolder(server.url, namespace);
    try {
      expect(await other.next()).toBe('ready');
      // The other process writes; this one holds the copy.
      expect(JSON.parse(await other.ask('=w v1'))).toEqual({ set: true });
      expect(await untilFromMemory(local, 'w')).toBe('v1');
      for (let i = 2; i <= 4; i++) {
        expect(JSON.parse(await other.ask(`=w v${i}`))).toEqual({ set: true });
        expect(await local.get('w')).toBe(`v${i}`);
      }
      // This process writes; the other holds the copy.
      await local.set('h', 'v1');
      await eventually(
        async () => {
          const read = JSON.parse(await other.ask('h')) as { value: unknown; memory: boolean };
          return read.value === 'v1' && read.memory;
        },
        'the other process serves h from memory',
        500,
      );
      for (let i = 2; i <= 4; i++) {
        await local.set('h', `v${i}`);
        expect((JSON.parse(await other.ask('h')) as { value: unknown }).value).toBe(`v${i}`);
      }
    } finally {
      other.child.stdin!.write('quit\n');
      await new Promise((resolve) => other.child.once('exit', resolve));
      await local.close();
    }
  });
});
