/**
 * A holder process of the coherent L1 fault suite (l1-coherent-faults.test.ts): a cache with
 * `l1: { consistency: 'coherent' }` over the valkey store at argv[2], namespace argv[3]. Each
 * line on stdin is a key to read; it answers one JSON line per read: the value (null for a
 * miss) and whether it came from memory (no bytes read from the store).
 */
import { createInterface } from 'node:readline';
import { valkeyStore } from '../../../adapters/valkey/index.ts';
import { createCache } from '../../../src/index.ts';

const cache = createCache({ store: valkeyStore(process.argv[2]!), namespace: process.argv[3]!, timeout: 300, l1: { consistency: 'coherent' } });
const lines = createInterface({ input: process.stdin });
lines.on('line', (key) => {
  if (key === 'quit') {
    void cache.close().then(() => process.exit(0));
    return;
  }
  const before = cache.stats().bytesRead;
  void cache.get(key).then((value) => process.stdout.write(`${JSON.stringify({ value: value ?? null, memory: value !== undefined && cache.stats().bytesRead === before })}\n`));
});
process.stdout.write('ready\n');
