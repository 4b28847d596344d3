// What both apps of bindings-lowest.pack.ts check on a binding: at `url`, a miss, then a hit
// (the same body, the origin called once), then a purge of that URL.
import assert from 'node:assert/strict';

export async function missHitPurge(url, controls, calls) {
  const miss = await fetch(url);
  const body = await miss.text();
  assert.match(miss.headers.get('cache-status') ?? '', /fwd=uri-miss/);
  await controls.idle();
  const hit = await fetch(url);
  assert.equal(await hit.text(), body);
  assert.match(hit.headers.get('cache-status') ?? '', /; hit/);
  assert.equal(calls(), 1);
  assert.equal(await controls.purge({ url }), 1);
}
