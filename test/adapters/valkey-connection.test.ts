/**
 * The valkey store's own connection: what it sets up (AUTH with an ACL user, SELECT, CLIENT
 * SETNAME) against a real redis-server, how fast it knows the server is away, and what it does
 * with a hostile server on a raw loopback socket: a broken or unasked-for reply closes the
 * connection and fails what was in flight — at once, never left waiting — and it connects again.
 * Replies a command cannot have, silent peers and unbounded replies: valkey-fault-suite.ts.
 */
import Valkey from 'iovalkey';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { StoreUnavailableError } from '../../src/store/index.ts';
import { eventually } from '../support/eventually.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { freePort } from '../support/redis-server.ts';
import { bytes, sleep, text } from '../support/suite-api.ts';

describe.runIf(requireRedis())('valkey store connection setup', () => {
  let admin: Valkey;
  const user = `conn-${Date.now().toString(36)}`;
  beforeAll(async () => {
    admin = new Valkey(redisUrl!);
    await admin.call('ACL', 'SETUSER', user, 'on', '>s3cret', '~*', '+@all');
  });
  afterAll(async () => {
    await admin.call('ACL', 'DELUSER', user);
    admin.disconnect();
  });

  it('authenticates as an ACL user, selects the database and names the connection', async () => {
    const url = new URL(redisUrl!);
    url.username = user;
    url.password = 's3cret';
    url.pathname = '/3';
    const store = valkeyStore({ connection: url.toString(), clientOptions: { connectionName: 'cachette-conn-test' } });
    try {
      await store.set('conn:selected', bytes('in db 3'));
      const inDb3 = new Valkey(redisUrl!, { db: 3 });
      expect(await inDb3.get('conn:selected')).toBe('in db 3');
      await inDb3.del('conn:selected');
      inDb3.disconnect();
      expect(await admin.get('conn:selected')).toBeNull();
      const clients = String(await admin.call('CLIENT', 'LIST'));
      expect(clients).toMatch(new RegExp(`name=cachette-conn-test .*user=${user}`));
    } finally {
      await store.close();
    }
  });

  it('is down with the server’s reason when the password is wrong, and says so at once', async () => {
    const url = new URL(redisUrl!);
    url.username = user;
    url.password = 'wrong';
    const store = valkeyStore(url.toString());
    try {
      await expect(store.get('k')).rejects.toThrow(/WRONGPASS/);
      const error = await store.get('k').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(/^valkey 127\.0\.0\.1:\d+: WRONGPASS/);
    } finally {
      await store.close();
    }
  });
});

describe('valkey store connection to a server that is not there', () => {
  it('fails the first calls as soon as the connection is refused, then every call at once', async () => {
    const port = await freePort();
    const store = valkeyStore(`redis://127.0.0.1:${port}`);
    try {
      const first = await store.get('k').catch((e: unknown) => e);
      expect(first).toBeInstanceOf(StoreUnavailableError);
      expect((first as Error).message).toMatch(new RegExp(`^valkey 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
      await expect(store.set('k', bytes('v'))).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await store.close();
    }
  });

  it('stops for good when retryStrategy says so, and opens nothing before the first call with lazyConnect', async () => {
    const port = await freePort();
    let attempts = 0;
    const server = createServer((socket) => {
      attempts++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const store = valkeyStore({ connection: `redis://127.0.0.1:${port}`, clientOptions: { retryStrategy: () => null, lazyConnect: true } });
    try {
      await sleep(50);
      expect(attempts).toBe(0);
      await expect(store.get('k')).rejects.toBeInstanceOf(StoreUnavailableError);
      await sleep(300);
      expect(attempts).toBe(1);
      await expect(store.get('k')).rejects.toThrow(/connection closed/);
    } finally {
      await store.close();
      server.close();
    }
  });
});

/** A loopback server that answers each connection's commands as `answer` says. */
async function hostileServer(answer: (socket: Socket, data: Buffer, connection: number) => void): Promise<{ url: string; connections: () => number; server: Server }> {
  let connections = 0;
  const server = createServer((socket) => {
    const n = ++connections;
    socket.on('data', (data) => answer(socket, data, n));
    socket.on('error', () => {});
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `redis://127.0.0.1:${port}`, connections: () => connections, server };
}

describe('valkey store connection to a hostile server', () => {
  /** GETs received on this connection so far (the store sends nothing else to a server without a password). */
  const gets = (received: string) => received.split('*2\r\n$3\r\nGET\r\n').length - 1;

  it.each([
    ['a reply that is not RESP', 'HTTP/1.1 400 Bad Request\r\n\r\n', /answered in HTTP/],
    ['a bulk string that overruns its length', '$2\r\nabc\r\n', /not ended by CRLF/],
    ['a RESP3 push on a RESP2 connection', '>2\r\n+invalidate\r\n*0\r\n', /unexpected reply type byte 0x3e/],
    ['an array declaring 2^32 elements', '*4294967296\r\n', /bound/],
  ])('closes the connection on %s, fails the calls in flight at once, and connects again', async (_, junk, message) => {
    let received = '';
    const peer = await hostileServer((socket, data, n) => {
      // The first connection gets junk once both calls are in; the next one behaves (every GET is a miss).
      if (n > 1) socket.write('$-1\r\n'.repeat(gets(data.toString('latin1'))));
      else if (gets((received += data.toString('latin1'))) === 2) socket.write(junk);
    });
    const store = valkeyStore(peer.url);
    try {
      const failed = await Promise.all([store.get('a'), store.get('b')].map((call) => call.catch((e: unknown) => e)));
      for (const error of failed) {
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).message).toMatch(message);
      }
      await eventually(() => peer.connections() === 2, 'a second connection');
      await expectAnsweredAgain(store);
    } finally {
      await store.close();
      peer.server.close();
    }
  });

  it('closes the connection on a reply to no command, after answering the calls it had', async () => {
    let received = '';
    const peer = await hostileServer((socket, data, n) => {
      if (n > 1) socket.write('$-1\r\n'.repeat(gets(data.toString('latin1'))));
      else if (gets((received += data.toString('latin1'))) === 2) socket.write('$1\r\na\r\n$1\r\nb\r\n$5\r\nextra\r\n');
    });
    const store = valkeyStore(peer.url);
    try {
      expect((await Promise.all([store.get('a'), store.get('b')])).map(text)).toEqual(['a', 'b']);
      await eventually(() => peer.connections() === 2, 'a second connection');
      await expectAnsweredAgain(store);
    } finally {
      await store.close();
      peer.server.close();
    }
  });

  /** The store answers again once it has reconnected (a miss from the well-behaved connection). */
  async function expectAnsweredAgain(store: ReturnType<typeof valkeyStore>): Promise<void> {
    let answered: unknown = 'pending';
    for (let i = 0; i < 100 && answered !== undefined; i++) {
      answered = await store.get('c').catch((e: unknown) => e);
      if (answered !== undefined) await sleep(20);
    }
    expect(answered).toBeUndefined();
  }

  it('takes a reply dribbled one byte at a time', async () => {
    const value = 'dribbled value';
    const reply = Buffer.from(`$${value.length}\r\n${value}\r\n`);
    const peer = await hostileServer((socket) => {
      let at = 0;
      const next = () => {
        if (at < reply.length) socket.write(reply.subarray(at, ++at), () => setTimeout(next, 1));
      };
      next();
    });
    const store = valkeyStore(peer.url);
    try {
      expect(text(await store.get('k'))).toBe(value);
    } finally {
      await store.close();
      peer.server.close();
    }
  });

  it('fails the calls in flight when the server closes mid-reply', async () => {
    const peer = await hostileServer((socket) => {
      socket.end('$100\r\nonly part of it');
    });
    const store = valkeyStore({ connection: peer.url, clientOptions: { retryStrategy: () => null } });
    try {
      const error = await store.get('k').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(/connection lost/);
    } finally {
      await store.close();
      peer.server.close();
    }
  });
});
