/**
 * A filling process of the coherent L1 lease-wake suite (l1-coherent-lease-wake.test.ts): a
 * cache with `l1: { consistency: 'coherent' }` over the valkey store at argv[2], namespace
 * argv[3]. `fill <key>` starts a getOrSet whose factory runs until the next line: `give <value>`
 * returns that value, `fail` throws. It writes `filling` once the factory runs (the fill lease
 * is held then) and `filled` once the getOrSet settled; `quit` closes the cache and exits.
 */
import { createInterface } from 'node:readline';
import { valkeyStore } from '../../../adapters/valkey/index.ts';
import { createCache } from '../../../src/index.ts';

const cache = createCache({ store: valkeyStore(process.argv[2]!), namespace: process.argv[3]!, lockTimeout: '1m', l1: { consistency: 'coherent' } });
let factory: { give(value: string): void; fail(): void } | undefined;
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const [command, argument] = line.split(' ');
  if (command === 'quit') void cache.close().then(() => process.exit(0));
  else if (command === 'give') factory?.give(argument!);
  else if (command === 'fail') factory?.fail();
  else if (command === 'fill')
    void cache
      .getOrSet(argument!, () => {
        process.stdout.write('filling\n');
        return new Promise<string>((resolve, reject) => {
          factory = { give: resolve, fail: () => reject(new Error('the source failed')) };
        });
      })
      .then(
        () => process.stdout.write('filled\n'),
        () => process.stdout.write('filled\n'),
      );
});
process.stdout.write('ready\n');
