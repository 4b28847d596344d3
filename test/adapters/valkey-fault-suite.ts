/**
 * The valkey store's own connection against servers that misbehave (issue 27, items 1, 2 and 4;
 * issue 33, item 8), each a fake server on a real loopback socket (valkey-fake-server.ts).
 * Runner-neutral: vitest, bun test, Deno.test run it unchanged, each on its runtime's sockets.
 *
 * - A reply its command cannot have (a stray integer before a GET's value) drops the connection:
 *   every call in flight fails as lost, none takes another's reply, and the store connects again.
 *   One case per command the store sends.
 * - A peer that stops answering (after some replies, or from the start) is dropped after
 *   `socketTimeout`, and the cache behind it recovers on the new connection.
 * - A reply that never ends (`*4194304` of `*4194304` of `*0`, and the same within each array's
 *   bound) is cut, with the bytes it took and the heap bounded.
 * - A server that does not speak RESP (HTTP, TLS, SSH) is named for what it is.
 * - Over TLS (rediss://, each runtime's own TLS socket where the store uses it) the store reads
 *   and writes through a trusted certificate and refuses one it cannot verify.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as netConnect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { valkeyStore, type ValkeyStore } from '../../adapters/valkey/index.ts';
import { iovalkey } from '../../adapters/valkey/iovalkey.ts';
import { DEFAULT_LIMITS } from '../../adapters/valkey/resp/parser.ts';
import { createCache } from '../../src/index.ts';
import { StoreUnavailableError } from '../../src/store/index.ts';
import type { TagKeys } from '../../src/store/types.ts';
import { eventually } from '../support/eventually.ts';
import { bytes, text, type SuiteApi } from '../support/suite-api.ts';
import { fakeValkey, type FakeServer } from './valkey-fake-server.ts';

const tag: TagKeys = { generation: 'fault:g', fence: 'fault:f', soft: 'fault:s' };

/** A call of every kind the store makes, each with a stray reply its command can never get. */
const CASES: ReadonlyArray<[string, (store: ValkeyStore) => Promise<unknown>, string]> = [
  ['GET', (store) => store.get('a'), ':0\r\n'],
  ['MGET', (store) => store.getMany(['a', 'b']), ':0\r\n'],
  ['SET', (store) => store.set('a', bytes('x')), ':0\r\n'],
  ['SET PX', (store) => store.set('a', bytes('x'), 60_000), '$1\r\nx\r\n'],
  [
    'MSET',
    (store) =>
      store.setMany([
        { key: 'a', value: bytes('x') },
        { key: 'b', value: bytes('y') },
      ]),
    ':0\r\n',
  ],
  ['DEL', (store) => store.delete(['a']), '$1\r\n1\r\n'],
  ['INCRBY', (store) => store.incr('n', 1), '+OK\r\n'],
  ['an increment script (EVAL)', (store) => store.incr('n', 1, 60_000), '+OK\r\n'],
  ['SET NX', (store) => store.add('a', bytes('x'), 60_000), ':1\r\n'],
  ['compareAndDelete (EVAL)', (store) => store.compareAndDelete('a', bytes('x')), '+OK\r\n'],
  ['readWithGenerations (EVAL)', (store) => store.readWithGenerations({ keys: ['a'], tags: [tag], epoch: 1 }), ':1\r\n'],
  ['writeGenerations (EVAL)', (store) => store.writeGenerations({ tags: [tag], action: 'bump', epoch: 1 }), '$-1\r\n'],
  ['expireEntries (EVAL)', (store) => store.expireEntries({ keys: ['a'], now: 1 }), '+OK\r\n'],
  ['SCAN (clear)', (store) => store.clear('a'), ':0\r\n'],
];

const isLost = (message: RegExp) => (error: unknown) => error instanceof StoreUnavailableError && message.test(error.message);

/** Calls `store.get('c')` until it answers (the store is back on a new connection); the fake server holds "c" = "c-value". */
async function answersAgain(store: ValkeyStore): Promise<void> {
  let answer: unknown;
  await eventually(async () => {
    answer = await store.get('c').catch((error: unknown) => error);
    return !(answer instanceof Error);
  }, 'the store answers on a new connection');
  assert.equal(text(answer as Uint8Array), 'c-value');
}

/** A raw loopback server that answers every connection's first bytes with `reply`. */
async function rawServer(reply: string | Buffer): Promise<{ url: string; close: () => void }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', () => socket.write(reply));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** The valkey store's connection against misbehaving servers, on `runtime`. */
export function valkeyFaultSuite(t: SuiteApi, runtime: string): void {
  t.describe(`valkey store connection faults on ${runtime}`, () => {
    let fake: FakeServer | undefined;
    let store: ValkeyStore | undefined;
    const open = async (answer: Parameters<typeof fakeValkey>[0], clientOptions: Record<string, unknown> = {}, auth = '') => {
      fake = await fakeValkey(answer);
      fake.data.set('b', 'b-value');
      fake.data.set('c', 'c-value');
      store = valkeyStore({ connection: fake.url.replace('//', `//${auth}`), clientOptions });
      return { fake, store };
    };
    const cleanUp = async () => {
      await store?.close();
      await fake?.close();
      store = undefined;
      fake = undefined;
    };

    for (const [name, call, stray] of CASES) {
      t.it(`a stray reply ${JSON.stringify(stray.trim())} that ${name} cannot have drops the connection: nothing in flight takes another's reply, and it connects again`, async () => {
        try {
          // The first connection sends the stray reply before its first real one: every later reply is one off.
          const { fake, store } = await open((connection, _command, real) => (connection.n === 1 && connection.commands.length === 1 ? stray + real() : undefined));
          const outcomes = await Promise.all(
            [call(store), store.get('b')].map((answer) =>
              answer.then(
                (value) => ({ value }),
                (error: unknown) => ({ error }),
              ),
            ),
          );
          for (const outcome of outcomes) {
            assert.ok('error' in outcome, `resolved with ${JSON.stringify(outcome)}`);
            assert.ok(isLost(/connection lost: .* which cannot answer it/)(outcome.error), String(outcome.error));
          }
          await eventually(() => fake.connections() === 2, 'a second connection');
          await answersAgain(store);
        } finally {
          await cleanUp();
        }
      });
    }

    for (const [name, call, stray] of CASES.slice(0, 6)) {
      t.it(`an iovalkey client passed in: a stray reply that ${name} cannot have drops the client's socket, and no store call takes a reply read after it`, async () => {
        const fake = await fakeValkey((connection, command, real) => (connection.n === 1 && command[0] !== 'INFO' && connection.commands.length === 2 ? stray + real() : undefined));
        fake.data.set('b', 'b-value');
        fake.data.set('c', 'c-value');
        const client = new (iovalkey('the fault suite').Redis)(fake.url, { retryStrategy: () => 20 });
        client.on('error', () => {});
        const passed = valkeyStore({ connection: client });
        try {
          const outcomes = await Promise.all(
            [call(passed), passed.get('b')].map((answer) =>
              answer.then(
                (value) => ({ value }),
                (error: unknown) => ({ error }),
              ),
            ),
          );
          for (const outcome of outcomes) {
            assert.ok('error' in outcome, `resolved with ${JSON.stringify(outcome)}`);
            assert.ok(isLost(/connection lost: .*cannot answer/)(outcome.error), String(outcome.error));
          }
          // iovalkey reconnects the client, and the store's calls go through it again.
          await eventually(() => fake.connections() === 2, 'iovalkey connected again');
          await answersAgain(passed as unknown as ValkeyStore);
        } finally {
          await passed.close();
          client.disconnect();
          await fake.close();
        }
      });
    }

    t.it('a reply AUTH cannot have fails the connection attempt, and the next one is used', async () => {
      try {
        const { fake, store } = await open((connection, command) => (connection.n === 1 && command[0] === 'AUTH' ? ':1\r\n' : undefined), {}, ':s3cret@');
        await assert.rejects(store.get('c'), isLost(/an integer reply to AUTH, which cannot answer it/));
        await eventually(() => fake.connections() === 2, 'a second connection');
        await answersAgain(store);
      } finally {
        await cleanUp();
      }
    });

    for (const [command, stray] of [
      ['CLIENT TRACKING', ':0\r\n'],
      ['CLIENT ID', '+OK\r\n'],
    ] as const) {
      t.it(`tracking: a reply ${command} cannot have drops that connection, and tracking goes live on the next one`, async () => {
        try {
          let strayed = false;
          const { fake, store } = await open((_connection, received) => {
            if (strayed || `${received[0]} ${received[1]?.toUpperCase()}` !== command) return undefined;
            strayed = true;
            return stray;
          });
          let live = false;
          const tracking = store.track({ invalidated: () => {}, flushed: () => {}, liveChanged: (now) => void (live = now) });
          await eventually(() => live, 'tracking live on new connections');
          // The main connection and the invalidation one, and one more for the one that was dropped.
          assert.equal(fake.connections(), 3);
          await tracking.close();
        } finally {
          await cleanUp();
        }
      });
    }

    t.it('a server that stops answering is dropped after socketTimeout, and the store answers on the next connection', async () => {
      try {
        // The first connection answers its first command, then nothing, ever.
        const { fake, store } = await open((connection) => (connection.n === 1 && connection.commands.length > 1 ? null : undefined), { socketTimeout: 100 });
        await store.set('a', bytes('x'));
        await assert.rejects(store.get('a'), isLost(/connection lost: no reply within 100 ms \(socketTimeout\)/));
        await eventually(() => fake.connections() === 2, 'a second connection');
        await answersAgain(store);
      } finally {
        await cleanUp();
      }
    });

    t.it('a cache whose server accepts and never answers recovers once the deadline drops the connection (its breaker probes reach the new one)', async () => {
      try {
        const { fake } = await open((connection) => (connection.n === 1 ? null : undefined), { socketTimeout: 200 });
        const cache = createCache({ store: store!, timeout: 50, logger: false, circuitBreaker: { threshold: 1, cooldownMs: 20 } });
        // Misses while the first connection swallows everything; then a write and a read go through.
        assert.equal(await cache.get('k'), undefined);
        await eventually(async () => (await cache.set('k', 'stored')) && (await cache.get('k')) === 'stored', 'the cache working again');
        assert.equal(fake.connections(), 2);
        await cache.close();
        store = undefined;
      } finally {
        await cleanUp();
      }
    });

    for (const [attack, header, message] of [
      // As the issue sent it: each array declares more than one array may hold.
      ['*4194304 of *4194304 of *0', '*4194304\r\n*4194304\r\n', `an array of 4194304 elements (the bound is ${DEFAULT_LIMITS.maxArrayLength})`],
      // Each array within its own bound: the whole reply is what grows.
      [
        `*${DEFAULT_LIMITS.maxArrayLength} of *${DEFAULT_LIMITS.maxArrayLength} of *0`,
        `*${DEFAULT_LIMITS.maxArrayLength}\r\n*${DEFAULT_LIMITS.maxArrayLength}\r\n`,
        `a reply of more than ${DEFAULT_LIMITS.maxReplyElements} elements`,
      ],
    ] as const) {
      t.it(`a reply that never completes (${attack}) is cut, with the bytes sent and the heap bounded`, async () => {
        let sent = 0;
        let heapGrowth = 0;
        const heapBefore = process.memoryUsage().heapUsed;
        try {
          const { fake, store } = await open((connection, command) => {
            if (connection.n !== 1 || command[0] !== 'GET') return undefined;
            const socket = connection.socket;
            const zeros = Buffer.from('*0\r\n'.repeat(16 * 1024));
            socket.write(header);
            // Up to 64 MiB of empty arrays (16 Mi elements), as fast as the client reads them, until it hangs up.
            const more = () => {
              while (!socket.destroyed && sent < 64 * 1024 * 1024) {
                heapGrowth = Math.max(heapGrowth, process.memoryUsage().heapUsed - heapBefore);
                sent += zeros.length;
                if (!socket.write(zeros)) {
                  socket.once('drain', more);
                  return;
                }
              }
            };
            setImmediate(more);
            return null;
          });
          await assert.rejects(store.get('a'), isLost(new RegExp(`connection lost: ${message.replace(/[()*]/g, '\\$&')}`)));
          // The bound is 1 Mi elements (4 MiB of "*0\r\n"); what the sockets' buffers held comes on top.
          assert.ok(sent < 24 * 1024 * 1024, `the server sent ${sent} bytes before the client hung up`);
          assert.ok(heapGrowth < 400 * 1024 * 1024, `the heap grew by ${heapGrowth} bytes`);
          await eventually(() => fake.connections() === 2, 'a second connection');
          await answersAgain(store);
        } finally {
          await cleanUp();
        }
      });
    }

    t.it('an HTTP server is named for what it is: not a Redis or Valkey server', async () => {
      const http = createHttpServer((_request, response) => response.end('hello'));
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      const url = `redis://127.0.0.1:${(http.address() as { port: number }).port}`;
      const local = valkeyStore({ connection: url, clientOptions: { retryStrategy: () => null } });
      try {
        await assert.rejects(local.get('k'), isLost(/the server answered in HTTP \("HTTP\/1\.1 400 Bad Request"\): it is not a Redis or Valkey server; check the URL's port/));
      } finally {
        await local.close();
        http.closeAllConnections?.();
        http.close();
      }
    });

    for (const [what, reply, message] of [
      ['a TLS port', Buffer.from([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x32]), /the server answered with TLS: it expects a rediss:\/\/ \(or valkeys:\/\/\) URL/],
      ['an SSH server', 'SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n', /the server does not speak RESP \(it answered "SSH-2\.0-OpenSSH_9\.2p1 Debian-2"\): it is not a Redis or Valkey server/],
    ] as const) {
      t.it(`${what} is named for what it is`, async () => {
        const raw = await rawServer(reply);
        const local = valkeyStore({ connection: raw.url, clientOptions: { retryStrategy: () => null } });
        try {
          await assert.rejects(local.get('k'), isLost(message));
        } finally {
          await local.close();
          raw.close();
        }
      });
    }

    t.it('over TLS the store reads and writes with a trusted certificate, and refuses one it cannot verify', async () => {
      const cert = selfSigned();
      const fake = await fakeValkey();
      const front = await tlsFront(fake.url, cert);
      const trusting = valkeyStore({ connection: front.url, clientOptions: { tls: { ca: cert.cert }, retryStrategy: () => null } });
      const doubting = valkeyStore({ connection: front.url, clientOptions: { retryStrategy: () => null } });
      try {
        await trusting.set('t', bytes('over tls'));
        assert.equal(text((await trusting.get('t'))!), 'over tls');
        await assert.rejects(doubting.get('t'), isLost(/certificate|self.signed|issuer|unknown ca|verify/i));
      } finally {
        await trusting.close();
        await doubting.close();
        front.close();
        await fake.close();
      }
    });

    t.it('a well-behaved fake server answers every case (the cases above fail because of their stray reply only)', async () => {
      try {
        const { store } = await open(() => undefined);
        for (const [, call] of CASES) await call(store);
        assert.equal(text(await store.get('c')), 'c-value');
      } finally {
        await cleanUp();
      }
    });
  });
}

/** A self-signed certificate for localhost (PEM), made by openssl. */
function selfSigned(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cachette-tls-'));
  try {
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], {
      stdio: 'ignore',
    });
    return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A TLS server on loopback that passes each connection's bytes to and from `target` (redis://host:port): rediss://localhost:<port>. */
async function tlsFront(target: string, cert: { cert: string; key: string }): Promise<{ url: string; close: () => void }> {
  const { port } = new URL(target);
  const sockets = new Set<TLSSocket | Socket>();
  const server = createTlsServer(cert, (socket) => {
    const upstream = netConnect(Number(port), '127.0.0.1');
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
    }
    socket.pipe(upstream).pipe(socket);
    socket.once('close', () => upstream.destroy());
    upstream.once('close', () => socket.destroy());
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `rediss://localhost:${(server.address() as { port: number }).port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
