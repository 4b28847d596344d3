/**
 * A caching proxy in a process of its own, over a Valkey store, for tests that measure its
 * memory from outside (/proc) rather than what it counts (test/proxy/slow-readers-rss.test.ts).
 * Argument: JSON { origin, redisUrl, namespace, maxBodyBytes }. Prints its port, then runs until
 * killed.
 */
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { startProxy } from '../../products/proxy/index.ts';

const job = JSON.parse(process.argv[process.argv.length - 1]!) as { origin: string; redisUrl: string; namespace: string; maxBodyBytes: number };
const proxy = await startProxy({ origin: job.origin, store: valkeyStore(job.redisUrl), namespace: job.namespace, maxBodyBytes: job.maxBodyBytes });
console.log(proxy.port);
