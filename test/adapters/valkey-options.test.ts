import Valkey, { type Cluster } from 'iovalkey';
import { describe, expect, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { DEFAULT_SOCKET_TIMEOUT } from '../../adapters/valkey/resp/connection.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { bytes, text } from '../support/suite-api.ts';

describe('valkey store options', () => {
  it.each([
    ['a number', 42],
    ['an object that is not a client', { host: 'localhost' }],
    ['nothing', undefined],
  ])('rejects %s as the connection with a TypeError', (_, connection) => {
    expect(() => valkeyStore({ connection } as never)).toThrow(
      /must be a redis:\/\/, rediss:\/\/, valkey:\/\/ or valkeys:\/\/ URL .* or an iovalkey or node-redis client, got (?:number 42|an object that is not an iovalkey or node-redis client|undefined)$/,
    );
  });

  it.each([
    ['not a url', /is not a URL; use redis:\/\/host:port/],
    ['http://127.0.0.1:8079', /"http:" URLs are not Valkey\/Redis URLs.*upstashStore/],
    ['mysql://db', /"mysql:" URLs are not Valkey\/Redis URLs/],
  ])('rejects the URL %s with a message naming the accepted forms', (url, message) => {
    expect(() => valkeyStore(url)).toThrow(message);
  });

  it.each([
    ['{ url }', { url: 'redis://127.0.0.1:6379' }, /a URL is passed as itself or as "connection" — did you mean valkeyStore\("redis:\/\/127\.0\.0\.1:6379"\)\?/],
    ['{ url } with a password', { url: 'redis://:s3cret@cache:6379' }, /did you mean valkeyStore\("redis:\/\/:\*\*\*@cache:6379"\)\?/],
    ["iovalkey's { host, port }", { host: 'cache', port: 6380 }, /the server is named by "connection", a URL .* did you mean valkeyStore\("redis:\/\/cache:6380"\)\?/],
    ['{ path }', { path: '/run/redis.sock' }, /did you mean valkeyStore\("\/run\/redis.sock" as clientOptions.path\)\?/],
  ])('answers %s with the call meant', (_, options, message) => {
    expect(() => valkeyStore(options as never)).toThrow(TypeError);
    expect(() => valkeyStore(options as never)).toThrow(message);
  });

  it.each([0, -5, 'soon', Number.NaN])('refuses socketTimeout %s', (socketTimeout) => {
    expect(() => valkeyStore({ connection: 'redis://127.0.0.1:6379', clientOptions: { socketTimeout, lazyConnect: true } } as never)).toThrow(
      /"socketTimeout" must be a positive number of ms \(Infinity for none\)/,
    );
  });

  it('gives the iovalkey clients it opens a socketTimeout (5 s, none for Infinity), as its own connection has', async () => {
    const opened = [
      valkeyStore<Valkey>({ connection: 'redis://127.0.0.1:1', clientOptions: { lazyConnect: true, commandTimeout: 1000 } }),
      valkeyStore<Valkey>({ connection: 'redis://127.0.0.1:1', clientOptions: { lazyConnect: true, commandTimeout: 1000, socketTimeout: Infinity } }),
      valkeyStore<Valkey>({ connection: 'redis://127.0.0.1:1', clientOptions: { lazyConnect: true, commandTimeout: 1000, socketTimeout: 250 } }),
    ];
    const cluster = valkeyStore<Cluster>({ cluster: ['127.0.0.1:1'], clientOptions: { lazyConnect: true } });
    try {
      expect(opened.map((store) => store.client.options.socketTimeout)).toEqual([DEFAULT_SOCKET_TIMEOUT, undefined, 250]);
      expect(DEFAULT_SOCKET_TIMEOUT).toBe(5000);
      expect(cluster.client.options.redisOptions?.socketTimeout).toBe(DEFAULT_SOCKET_TIMEOUT);
    } finally {
      for (const store of opened) await store.close();
      await cluster.close();
    }
  });

  it.runIf(requireRedis())('uses a client you pass in and leaves it open on close()', async () => {
    const client = new Valkey(redisUrl!);
    const store = valkeyStore({ connection: client });
    await store.set('valkey-options:own', bytes('mine'));
    await store.close();
    expect(client.status).toBe('ready');
    expect(await client.get('valkey-options:own')).toBe('mine');
    await client.del('valkey-options:own');
    client.disconnect();
  });

  it.runIf(requireRedis())('closes the connection it opened itself', async () => {
    const store = valkeyStore<Valkey>(redisUrl!);
    await store.set('valkey-options:mine', bytes('x'));
    expect(text(await store.get('valkey-options:mine'))).toBe('x');
    await store.delete(['valkey-options:mine']);
    const ended = new Promise((resolve) => store.client.once('end', resolve));
    await store.close();
    await ended; // QUIT was answered; the socket closes right after
    expect(store.client.status).toBe('end');
  });
});
