/**
 * Faults of a Valkey/Redis Cluster under load, through the caching proxy on the cluster store:
 * a master killed (its replica promoted), and a few busy slots resharded to another master
 * while clients read them (ASK, then MOVED). Clients must see no HTTP error, only misses while
 * a part of the cache is away, and hits must come back. Each drill breaks a cluster of its own
 * (test/support/redis-cluster.ts), never the one the other suites share.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDrill } from '../support/cluster-drill.ts';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.ts';
import { requireRedis } from '../support/redis-env.ts';

// A cluster can be built wherever a redis-server is; CI requires one.
describe.runIf(requireRedis())('the proxy on a Redis Cluster under faults', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    // A short node timeout so a dead master is failed over in about a second, not five.
    cluster = await startRedisCluster({ nodeTimeoutMs: 1000 });
  }, 60_000);
  afterAll(() => cluster?.stop());

  // The resharding first, on the whole cluster; then a master is killed.
  it('slots resharded under load: no HTTP error, hits stay, the slots served by their new master', async () => {
    const from = await cluster.masterOf(16383);
    const to = await cluster.masterOf(8192);
    let slots: number[] = [];
    const report = await runDrill({
      cluster,
      fault: async () => {
        // Slots of the cached URLs' own keys (the clients read those; other keys there might not be read).
        slots = await cluster.busySlots(from, 4, '*/item/*');
        for (const slot of slots) await cluster.moveSlot(slot, to, { keysPerBatch: 1, pauseMs: 150 });
      },
    });
    const seen = JSON.stringify(report);
    expect(slots.length, 'no cached key on the master to move').toBeGreaterThan(0);
    expect(report.httpErrors, seen).toBe(0);
    expect(report.hitsBackAfterMs, seen).toBeDefined();
    for (const slot of slots) expect(await cluster.masterOf(slot)).toBe(to);
  }, 60_000);

  it('a master killed under load: no HTTP error, misses while its slots are away, hits back after the failover', async () => {
    const victim = await cluster.masterOf(0);
    const report = await runDrill({
      cluster,
      fault: async () => {
        await cluster.kill(victim);
        await cluster.waitForFailover(victim);
      },
    });
    const seen = JSON.stringify(report);
    expect(report.httpErrors, seen).toBe(0);
    expect(report.baselineHitRatio).toBeGreaterThan(0.9);
    // The keys of the dead master were misses for a while (served by the origin), then hits again.
    expect(report.missesAfterFault).toBeGreaterThan(0);
    expect(report.storeErrors).toBeGreaterThan(0);
    expect(report.hitsBackAfterMs, seen).toBeDefined();
    expect(await cluster.masterOf(0)).not.toBe(victim);
  }, 60_000);
});
