import Valkey from 'iovalkey';
import { describe, expect, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { bytes, text } from '../support/suite-api.ts';

describe('valkey store options', () => {
  it.each([
    ['a number', 42],
    ['an object that is not a client', { host: 'localhost' }],
    ['nothing', undefined],
  ])('rejects %s as the connection with a TypeError', (_, connection) => {
    expect(() => valkeyStore({ connection } as never)).toThrow(/must be a redis:\/\/, rediss:\/\/, valkey:\/\/ or valkeys:\/\/ URL .* or an iovalkey client/);
  });

  it.each([
    ['not a url', /is not a URL; use redis:\/\/host:port/],
    ['http://127.0.0.1:8079', /"http:" URLs are not Valkey\/Redis URLs.*upstashStore/],
    ['mysql://db', /"mysql:" URLs are not Valkey\/Redis URLs/],
  ])('rejects the URL %s with a message naming the accepted forms', (url, message) => {
    expect(() => valkeyStore(url)).toThrow(message);
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
