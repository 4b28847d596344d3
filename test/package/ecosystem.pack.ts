/**
 * Issue 30: cachette/keyv, cachette/unstorage and cachette/undici from the packed tarball. With
 * their peers (the checkout's keyv, cache-manager, unstorage 1 and undici 7, linked) each entry is
 * type-checked under nodenext and bundler and run on Node; without them, cachette/unstorage (the
 * one entry that loads its peer) fails with a MissingPeerError naming the install command, and
 * the two that only implement their peer's types load and work without it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, it } from 'vitest';
import { sharedApp, type SharedAppName } from './shared-apps.ts';

const root = join(import.meta.dirname, '../..');

const CHECK = `import { createCache as createCacheManager } from 'cache-manager';
import { createCache } from 'cachette';
import { memoryStore } from 'cachette/adapters/memory';
import { keyvStore } from 'cachette/keyv';
import { undiciOriginTag, undiciStore } from 'cachette/undici';
import cachetteDriver from 'cachette/unstorage';
import Keyv, { type KeyvStoreAdapter } from 'keyv';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, fetch, interceptors } from 'undici';
import { createStorage } from 'unstorage';

const cache = createCache({ store: memoryStore() });
const adapter: KeyvStoreAdapter = keyvStore(cache);
const manager = createCacheManager({ stores: [new Keyv({ store: adapter })] });
await manager.set('k', 'keyv ok');
const storage = createStorage({ driver: cachetteDriver({ store: cache }) });
await storage.setItem('u', 'unstorage ok');
let asked = 0;
const origin = createServer((_request, response) => {
  asked++;
  response.writeHead(200, { 'cache-control': 'max-age=60' }).end('undici ok');
}).listen(0, '127.0.0.1');
await new Promise((resolve) => origin.once('listening', resolve));
const dispatcher = new Agent().compose(interceptors.cache({ store: undiciStore({ store: cache }) }));
const url = \`http://127.0.0.1:\${(origin.address() as AddressInfo).port}/\`;
const bodies = [await (await fetch(url, { dispatcher })).text(), await (await fetch(url, { dispatcher })).text()];
console.log([await manager.get('k'), await storage.getItem('u'), \`\${bodies[1]} \${asked}\`, undiciOriginTag('https://a.example')].join(', '));
await dispatcher.close();
origin.close();
await cache.close();
`;

const WITHOUT_PEERS = `import { memoryStore } from 'cachette/adapters/memory';
import { keyvStore } from 'cachette/keyv';
import { undiciStore } from 'cachette/undici';
const keyv = keyvStore(memoryStore());
await keyv.set('k', 'v');
console.log(await keyv.get('k'), typeof undiciStore({ store: memoryStore() }).createWriteStream);
try {
  await import('cachette/unstorage');
} catch (error) {
  console.log(\`\${(error as Error).name}: \${(error as Error).message}\`);
}
`;

const tsconfig = (moduleResolution: string, module: string) =>
  JSON.stringify({ compilerOptions: { target: 'ES2022', lib: ['ES2023', 'DOM'], module, moduleResolution, strict: true, skipLibCheck: true, noEmit: true, types: ['node'] }, include: ['src'] });

/** Writes the check's source and configs into a directory of its own in the shared app `name` (shared-apps.ts); returns that directory. */
async function app(name: SharedAppName, source: string): Promise<string> {
  const { dir } = await sharedApp(name, 'ecosystem');
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'check.ts'), source);
  writeFileSync(join(dir, 'tsconfig.nodenext.json'), tsconfig('NodeNext', 'NodeNext'));
  writeFileSync(join(dir, 'tsconfig.bundler.json'), tsconfig('Bundler', 'ESNext'));
  return dir;
}

const run = (dir: string) => spawnSync(join(root, 'node_modules', '.bin', 'tsx'), [join(dir, 'src', 'check.ts')], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
const typecheck = (dir: string, config: string) =>
  spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, config), '--pretty', 'false'], { cwd: dir, encoding: 'utf8' });

describe('the ecosystem entries from the packed tarball', () => {
  let withPeers: string;
  let withoutPeers: string;
  beforeAll(async () => {
    // `full` has keyv, cache-manager, unstorage 1 and undici; `bare` none of them.
    withPeers = await app('full', CHECK);
    withoutPeers = await app('bare', WITHOUT_PEERS);
  }, 360_000);

  it('type-check with their peers under nodenext and bundler', () => {
    for (const config of ['tsconfig.nodenext.json', 'tsconfig.bundler.json']) {
      const result = typecheck(withPeers, config);
      assert.equal(`${result.stdout}${result.stderr}`.trim(), '', config);
    }
  }, 360_000);

  it('run with their peers: Keyv through cache-manager, unstorage, undici’s fetch cache', () => {
    const result = run(withPeers);
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
    assert.equal(result.stdout.trim(), 'keyv ok, unstorage ok, undici ok 1, undici:https://a.example');
  }, 360_000);

  it('without the peers: keyv and undici load and work, unstorage names what to install', () => {
    const result = run(withoutPeers);
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
    assert.deepEqual(result.stdout.trim().split('\n'), ['v function', 'MissingPeerError: cachette/unstorage needs the unstorage package, which is not installed: npm install unstorage']);
  }, 360_000);
});
