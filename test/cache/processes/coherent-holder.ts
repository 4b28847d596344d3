/**
 * A holder process of the coherent L1 fault suites (l1-coherent-faults.test.ts,
 * l1-coherent-postgres-faults.test.ts): a cache with `l1: { consistency: 'coherent' }` over the
 * store at argv[2] (a postgres:// URL opens the PostgreSQL store, anything else the valkey
 * store), namespace argv[3]. Each line on stdin is a key to read; it answers one JSON line per
 * read: the value (null for a miss) and whether it came from memory (no bytes read from the
 * store). A line `=key value` sets the key instead and answers `{"set":true}` once the set returned.
 */
import { createInterface } from 'node:readline';
import { postgresStore } from '../../../adapters/postgres/index.ts';
import { valkeyStore } from '../../../adapters/valkey/index.ts';
import { createCache } from '../../../src/index.ts';

const url = process.argv[2]!;
const store = /^postgres(ql)?:/.test(url) ? postgresStore(url) : valkeyStore(url);
const cache = createCache({ store, namespace: process.argv[3]!, timeout: 300, l1: { consistency: 'coherent' } });
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line === 'quit') {
    void cache.close().then(() => process.exit(0));
    return;
  }
  if (line.startsWith('=')) {
    const space = line.indexOf(' ');
    void cache.set(line.slice(1, space), line.slice(space + 1)).then((set) => process.stdout.write(`${JSON.stringify({ set })}\n`));
    return;
  }
  const before = cache.stats().bytesRead;
  void cache.get(line).then((value) => process.stdout.write(`${JSON.stringify({ value: value ?? null, memory: value !== undefined && cache.stats().bytesRead === before })}\n`));
});
process.stdout.write('ready\n');
