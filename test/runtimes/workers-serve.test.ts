import assert from 'node:assert/strict';
import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { unstable_dev, type Unstable_DevWorker } from 'wrangler';
import { startBridge, type Bridge } from '../../products/bridge/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';

// cachette/workers over real HTTP: `wrangler dev` (workerd through miniflare) on 127.0.0.1,
// once with a local KV namespace, once with Upstash through the local bridge.
// Offline machine and loopback-only tests: no fetch of Cloudflare's `cf` object, no metrics.
process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
process.env.WRANGLER_SEND_METRICS = 'false';
const script = new URL('../workers/fixtures/counting-worker.ts', import.meta.url).pathname;
const start = (extra: Parameters<typeof unstable_dev>[1]) =>
  unstable_dev(script, { ip: '127.0.0.1', port: 0, compatibilityDate: '2026-04-01', persist: false, logLevel: 'warn', experimental: { disableExperimentalWarning: true, testMode: true }, ...extra });

async function missThenHit(worker: Unstable_DevWorker, path: string): Promise<void> {
  const base = `http://${worker.address}:${worker.port}`;
  const first = await fetch(base + path);
  assert.equal(await first.text(), `${path} #1`);
  assert.match(first.headers.get('cache-status') ?? '', /fwd=uri-miss/);
  // The store write runs in ctx.waitUntil after the answer: retry the read a few times.
  let second: Response | undefined;
  for (let i = 0; i < 20; i++) {
    second = await fetch(base + path);
    if (/; hit/.test(second.headers.get('cache-status') ?? '')) break;
    await second.text();
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(await second!.text(), `${path} #1`, 'the second answer is the stored first one');
}

describe('workers helper over HTTP (wrangler dev)', () => {
  it('serves from the CACHETTE_KV namespace', async () => {
    const worker = await start({ kv: [{ binding: 'CACHETTE_KV', id: 'test-kv' }] });
    try {
      await missThenHit(worker, '/kv');
    } finally {
      await worker.stop();
    }
  });

  describe.runIf(requireRedis())('through Upstash', () => {
    let bridge: Bridge;
    let redis: Valkey;
    beforeAll(async () => {
      bridge = await startBridge({ redisUrl: redisUrl! });
      redis = new Valkey(redisUrl!);
    });
    afterAll(async () => {
      await bridge?.close();
      redis?.disconnect();
    });

    it('prefers Upstash over KV when UPSTASH_REDIS_REST_URL and _TOKEN are set', async () => {
      const path = `/upstash-${Date.now()}`;
      const worker = await start({ kv: [{ binding: 'CACHETTE_KV', id: 'test-kv' }], vars: { UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: bridge.token } });
      try {
        await missThenHit(worker, path);
        const keys = await redis.keys(`*${path}*`);
        assert.ok(keys.length > 0, 'the response was stored in Redis through the bridge');
      } finally {
        await worker.stop();
      }
    });
  });
});
