import assert from 'node:assert/strict';
import { memoryStore } from '../../adapters/memory/index.ts';
import { SEALED_FLAGS } from '../../src/cache/encryption/sealed-envelope.ts';
import { createCache } from '../../src/index.ts';
import { FLAGS_OFFSET } from '../../src/store/layout/envelope.ts';
import type { SuiteApi } from '../support/suite-api.ts';

/**
 * `encryption` on the runtime's own WebCrypto: a sealed round trip, rotation, and a wrong key
 * and a copied entry refused as counted misses. Runner-neutral: vitest (Node, workerd), bun
 * test and Deno.test run it; test/cache/encryption.test.ts covers the rest on Node.
 */
export function encryptionSuite(t: SuiteApi): void {
  t.describe('encryption at rest (this runtime)', () => {
    t.it('seals, rotates, and refuses a wrong key and a copied entry as corrupt misses', async () => {
      const store = memoryStore();
      const a = crypto.getRandomValues(new Uint8Array(32));
      const b = crypto.getRandomValues(new Uint8Array(32));
      const old = createCache({ store, closeStore: false, logger: false, encryption: { keys: { a }, current: 'a' } });
      const rotating = createCache({ store, closeStore: false, logger: false, encryption: { keys: { a, b }, current: 'b' } });
      const wrong = createCache({ store, closeStore: false, logger: false, encryption: { keys: { a: b }, current: 'a' } });
      try {
        await old.set('k', { secret: 'runtime-secret' });
        const stored = (await store.get('cachette:k'))!;
        assert.equal(stored[FLAGS_OFFSET], SEALED_FLAGS);
        assert.ok(!new TextDecoder().decode(stored).includes('runtime-secret'));
        assert.deepEqual(await rotating.get('k'), { secret: 'runtime-secret' });
        assert.equal(await wrong.get('k'), undefined);
        assert.equal(wrong.stats().corrupt, 1);
        await store.set('cachette:copy', stored);
        assert.equal(await old.get('copy'), undefined);
        assert.equal(old.stats().corrupt, 1);
        await rotating.set('k', 'under b');
        assert.equal(await old.get('k'), undefined);
        assert.equal(old.stats().corrupt, 2);
      } finally {
        await Promise.all([old.close(), rotating.close(), wrong.close()]);
        await store.close();
      }
    });
  });
}
