/**
 * A default `ttl` and requests that carry credentials (issue 23, item 7: web cache deception).
 * A route answered with a framework's default headers (no Cache-Control) is stored for `ttl`
 * only from requests without Cookie or Authorization, unless the response says it is shared
 * (`public`, `s-maxage`) or varies on the credential.
 */
import assert from 'node:assert/strict';
import { reply } from '../scripted-origin.ts';
import type { ScenarioFn } from './harness.ts';

/** A per-user page: whoever the Cookie (or Authorization) names, with the given headers. */
const whoever = (headers: Record<string, string>) => (request: Request, k: number) => reply(`${k}: ${request.headers.get('cookie') ?? request.headers.get('authorization') ?? 'anonymous'}`, headers);

export function credentialScenarios(scenario: ScenarioFn): void {
  scenario("a default ttl never stores one user's response to a Cookie or Authorization request for the next visitor", { ttl: '30s' }, async ({ origin, get }) => {
    origin.on('/api/me', whoever({ 'content-type': 'application/json' }));
    origin.on('/api/auth', whoever({ 'content-type': 'application/json', 'cache-control': 'must-revalidate' }));
    const alice = await get('/api/me', { headers: { cookie: 'session=alice' } });
    assert.equal(alice.body, '1: session=alice');
    const anonymous = await get('/api/me');
    assert.equal(anonymous.body, '2: anonymous', "Alice's page was not stored for everyone");
    assert.match((await get('/api/me')).cs, /^cachette; hit/, 'a request without credentials is stored for the ttl, as before');
    // must-revalidate lets a shared cache store a response to Authorization (RFC 9111 §3.5), but gives it no freshness.
    assert.equal((await get('/api/auth', { headers: { authorization: 'Bearer alice' } })).body, '1: Bearer alice');
    assert.equal((await get('/api/auth')).body, '2: anonymous');
  });

  scenario('the ttl still applies when the response says it is shared or varies on the credential', { ttl: '30s' }, async ({ origin, get }) => {
    origin.on('/public', whoever({ 'cache-control': 'public' }));
    origin.on('/per-cookie', whoever({ vary: 'Cookie' }));
    origin.on('/static', (_, k) => reply(`file ${k}`, { 'last-modified': 'Mon, 01 Jan 2024 00:00:00 GMT' }));
    await get('/public', { headers: { cookie: 'session=alice' } });
    assert.equal((await get('/public')).body, '1: session=alice', '`public` shares it');
    await get('/per-cookie', { headers: { cookie: 'session=alice' } });
    assert.match((await get('/per-cookie', { headers: { cookie: 'session=alice' } })).cs, /^cachette; hit/, 'Alice has her own variant');
    assert.equal((await get('/per-cookie')).body, '2: anonymous', 'nobody else gets it');
    // With a cookie, a response without freshness of its own still gets the Last-Modified heuristic (the same file for everyone).
    await get('/static', { headers: { cookie: 'session=alice' } });
    assert.match((await get('/static')).cs, /^cachette; hit/);
  });
}
