import assert from 'node:assert/strict';
import { env } from 'cloudflare:test';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { cloudflareKvStore, KV_MAX_KEY_BYTES, KV_MAX_TTL_SECONDS, KV_MIN_TTL_SECONDS } from '../../adapters/cloudflare-kv/index.ts';
import { describeStoreContract } from '../../src/store/testing/index.ts';
import { bytes, sleep, text } from '../support/suite-api.ts';

describeStoreContract(
  { describe, it, beforeAll, afterAll },
  {
    name: 'cloudflare-kv',
    open: () => cloudflareKvStore({ namespace: env.CACHETTE_KV }),
    // What the contract cannot see: how the KV store maps onto KV's own limits.
    additionalTests(context) {
      it('asks KV for at least 60 s but serves a shorter TTL exactly', async () => {
        const k = context.key('short');
        const before = Date.now();
        await context.store.set(k, bytes('v'), 100);
        const listed = await env.CACHETTE_KV.list({ prefix: k });
        const expiration = listed.keys[0]?.expiration;
        assert.ok(expiration !== undefined, 'KV was given an expiration');
        assert.ok(expiration >= Math.floor(before / 1000) + KV_MIN_TTL_SECONDS, `expiration ${expiration} is at least 60 s away`);
        await sleep(150);
        assert.equal(await context.store.get(k), undefined, 'expired for the store although KV still holds it');
        assert.notEqual(await env.CACHETTE_KV.get(k), null, 'KV keeps the bytes until its own 60 s pass');
      });

      it('passes long TTLs to KV in whole seconds, rounded up', async () => {
        const k = context.key('long');
        const before = Math.floor(Date.now() / 1000);
        await context.store.set(k, bytes('v'), 3_600_500);
        const expiration = (await env.CACHETTE_KV.list({ prefix: k })).keys[0]?.expiration ?? 0;
        assert.ok(expiration >= before + 3601 && expiration <= before + 3603, `expiration ${expiration} ≈ now + 3601 s`);
      });

      it('caps TTLs the binding cannot take (2^31 s and more) instead of failing the write', async () => {
        const k = context.key('huge');
        await context.store.set(k, bytes('v'), 2 ** 31 * 1000 + 600_000);
        assert.equal(text(await context.store.get(k)), 'v');
        const expiration = (await env.CACHETTE_KV.list({ prefix: k })).keys[0]?.expiration ?? 0;
        assert.ok(expiration >= Math.floor(Date.now() / 1000) + KV_MAX_TTL_SECONDS - 5, `expiration ${expiration} is the capped one`);
      });

      it('stores keys longer than 512 bytes under a digest, distinct and clearable by prefix', async () => {
        const prefix = context.key('long-keys:');
        const a = prefix + 'a'.repeat(600) + '1';
        const b = prefix + 'a'.repeat(600) + '2';
        const c = prefix + 'é'.repeat(400);
        await context.store.setMany([
          { key: a, value: bytes('A') },
          { key: b, value: bytes('B') },
          { key: c, value: bytes('C') },
        ]);
        assert.deepEqual((await context.store.getMany([a, b, c])).map(text), ['A', 'B', 'C']);
        for (const stored of (await env.CACHETTE_KV.list({ prefix })).keys) assert.ok(new TextEncoder().encode(stored.name).length <= KV_MAX_KEY_BYTES);
        await context.store.clear(prefix);
        assert.deepEqual((await context.store.getMany([a, b, c])).map(text), [undefined, undefined, undefined]);
      });

      it('an incremented counter keeps the expiry it was created with', async () => {
        const k = context.key('counter');
        assert.equal(await context.store.incr(k, 1, 100), 1);
        assert.equal(await context.store.incr(k, 1), 2);
        await sleep(150);
        assert.equal(await context.store.get(k), undefined);
        assert.equal(await context.store.incr(k, 1), 1, 'an expired counter starts again from 0');
      });

      it('declares no lease capabilities, so the engine never believes it holds a lease', () => {
        assert.equal('add' in context.store, false);
        assert.equal('compareAndDelete' in context.store, false);
      });

      it('refuses something that is not a KV binding, naming what is missing', () => {
        assert.throws(() => cloudflareKvStore({ namespace: {} as never }), /must be a Workers KV binding \(it lacks getWithMetadata\(\)\)/);
        assert.throws(() => cloudflareKvStore({ namespace: env.CACHETTE_KV, concurrency: 0 }), /concurrency must be a positive integer/);
      });
    },
  },
);
