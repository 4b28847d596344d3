/** Variants (RFC 9111 §4.1): normalising the negotiation fields, language selection, the per-URL cap, concurrent first variants, the bound on a varying value. */
import assert from 'node:assert/strict';
import { MAX_VARY_VALUE_LENGTH } from '../../../src/http/rules/vary.ts';
import { reply } from '../scripted-origin.ts';
import type { ScenarioFn } from './harness.ts';

export function negotiationScenarios(scenario: ScenarioFn): void {
  scenario('normalises Accept-Language, Accept-Encoding and Accept before matching variants', {}, async ({ origin, get }) => {
    for (const field of ['accept-language', 'accept-encoding', 'accept']) {
      origin.on(`/${field}`, (_, k) => reply(`${field}${k}`, { 'cache-control': 'max-age=60', vary: field }));
    }
    const spellings: Record<string, string[]> = {
      'accept-language': ['en, de', 'de, en', 'eN, De', ' en ,   de', 'de;q=1, en;q=1.000', 'en,de,en'],
      'accept-encoding': ['gzip, br', 'br,gzip', 'GZIP;q=1, br', 'br;Q=1.0 , gzip'],
      accept: ['text/html, application/json;q=0.9', 'application/json;q=0.90,text/html', 'TEXT/HTML,application/JSON; q=0.9'],
    };
    for (const [field, values] of Object.entries(spellings)) {
      for (const value of values) assert.equal((await get(`/${field}`, { headers: { [field]: value } })).body, `${field}1`, `${field}: ${value}`);
      assert.equal(origin.count(`/${field}`), 1, field);
    }
    // Weights still tell variants apart.
    assert.equal((await get('/accept-language', { headers: { 'accept-language': 'en;q=0.5, de' } })).body, 'accept-language2');
    assert.equal((await get('/accept-encoding', { headers: { 'accept-encoding': 'gzip;q=0, br' } })).body, 'accept-encoding2');
  });

  scenario('a variant stored for one language alone answers a request that weights that language highest', {}, async ({ origin, get }) => {
    origin.on('/l', (_, k) => reply(`de${k}`, { 'cache-control': 'max-age=60', vary: 'Accept-Language', 'content-language': 'de' }));
    await get('/l', { headers: { 'accept-language': 'de' } });
    const selected = await get('/l', { headers: { 'accept-language': 'fr;q=0.5, de;q=1.0' } });
    assert.equal(selected.body, 'de1');
    assert.match(selected.cs, /^cachette; hit/);
    assert.equal((await get('/l', { headers: { 'accept-language': 'DE' } })).body, 'de1');
    assert.equal((await get('/l', { headers: { 'accept-language': 'fr, de;q=0.9' } })).body, 'de2', 'French is preferred: the origin decides');
    assert.equal(origin.count('/l'), 2);
  });

  scenario("the variant computed for an attacker's Accept-Language is never served to other visitors of that language (issue 23, item 10)", {}, async ({ origin, get }) => {
    // An origin that answers in English and echoes the field it negotiated from.
    origin.on('/echo', (req, k) => reply(`${k}: ${req.headers.get('accept-language')}`, { 'cache-control': 'max-age=60', vary: 'Accept-Language', 'content-language': 'en' }));
    const payload = 'en, <script>alert(1)</script>;q=0.1';
    assert.equal((await get('/echo', { headers: { 'accept-language': payload } })).body, `1: ${payload}`);
    for (const language of ['en', 'en, fr;q=0.5', 'EN']) {
      const visitor = await get('/echo', { headers: { 'accept-language': language } });
      assert.doesNotMatch(visitor.body, /script/, `${language} got the payload`);
    }
    assert.match((await get('/echo', { headers: { 'accept-language': payload } })).cs, /^cachette; hit/, 'the attacker still has his own variant');
  });

  scenario('keeps at most maxVariants variants per URL, replacing the oldest', { maxVariants: 3 }, async ({ origin, get }) => {
    origin.on('/cap', (req, k) => reply(`${req.headers.get('x-v')}:${k}`, { 'cache-control': 'max-age=60', vary: 'X-V' }));
    for (const v of ['a', 'b', 'c']) assert.match((await get('/cap', { headers: { 'x-v': v } })).cs, /stored/);
    const fourth = await get('/cap', { headers: { 'x-v': 'd' } });
    assert.equal(fourth.body, 'd:4');
    assert.match(fourth.cs, /stored/);
    assert.match((await get('/cap', { headers: { 'x-v': 'd' } })).cs, /^cachette; hit/, 'the new variant is stored');
    assert.equal((await get('/cap', { headers: { 'x-v': 'a' } })).body, 'a:5', 'the oldest one made room for it');
    for (const v of ['c', 'd', 'a']) assert.match((await get('/cap', { headers: { 'x-v': v } })).cs, /^cachette; hit/, `variant ${v} kept`);
    assert.equal(origin.count('/cap'), 5);
  });

  scenario('junk Accept-Encoding values cannot fill the variants: real requests are still stored and served (issue 23, item 14)', {}, async ({ origin, get }) => {
    // An origin that picks br or gzip from what it was sent, and says which.
    origin.on('/enc', (req, k) => {
      const sent = req.headers.get('accept-encoding') ?? '';
      return reply(`${k} for ${sent}`, { 'cache-control': 'max-age=600', vary: 'Accept-Encoding' });
    });
    for (let i = 0; i < 100; i++) await get('/enc', { headers: { 'accept-encoding': `junk-${i}, gzip;q=0.${(i % 9) + 1}` } });
    assert.ok(origin.count('/enc') <= 2, `junk values made ${origin.count('/enc')} variants`);
    for (const value of ['gzip, deflate, br, zstd', 'br, gzip', 'gzip']) {
      await get('/enc', { headers: { 'accept-encoding': value } });
      assert.match((await get('/enc', { headers: { 'accept-encoding': value } })).cs, /^cachette; hit/, `${value} is stored`);
    }
    // The origin was sent the value the variant is keyed on, not the client's spelling.
    assert.deepEqual([...new Set(origin.seen.map((s) => s.headers.get('accept-encoding')))], ['gzip', 'br,deflate,gzip,zstd', 'br,gzip']);
  });

  scenario('a request whose varying field is longer than the bound goes past the cache, uncached, and says so (issue 27, item 3)', {}, async ({ origin, get }) => {
    origin.on('/cors', (req, k) => reply(`${k} for ${req.headers.get('origin')!.length}`, { 'cache-control': 'max-age=60', vary: 'Origin, X-Custom' }));
    // Spaces, as the attack sent them: no reading of the value may cost more than its length.
    const long = `https://a.example${' '.repeat(MAX_VARY_VALUE_LENGTH)},x`;
    const cold = await get('/cors', { headers: { origin: long } });
    assert.equal(cold.body, `1 for ${long.length}`);
    assert.equal(cold.cs, 'cachette; fwd=uri-miss; fwd-status=200; detail="vary-value-too-long"', 'forwarded, not stored');
    const ordinary = { origin: 'https://a.example' };
    assert.match((await get('/cors', { headers: ordinary })).cs, /stored/, 'the URL is not put under hit-for-miss by it');
    assert.match((await get('/cors', { headers: ordinary })).cs, /^cachette; hit/);
    for (const headers of [{ origin: long }, { ...ordinary, 'x-custom': `a${'\t'.repeat(MAX_VARY_VALUE_LENGTH)}b` }]) {
      const past = await get('/cors', { headers });
      assert.equal(past.cs, 'cachette; fwd=bypass; fwd-status=200; detail="vary-value-too-long"');
      assert.match((await get('/cors', { headers })).cs, /fwd=bypass/, 'never stored');
    }
    assert.equal((await get('/cors', { headers: ordinary })).body, '2 for 17', 'the ordinary variant is still served');
    assert.equal(origin.count('/cors'), 6);
  });

  scenario('first variants of a cold URL arriving together do not orphan each other', {}, async ({ origin, cache, get }) => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    origin.on('/cold', async (req) => {
      await gate;
      return reply(`for ${req.headers.get('accept-language')}`, { 'cache-control': 'max-age=60', vary: 'Accept-Language' });
    });
    const languages = Array.from({ length: 24 }, (_, i) => `x-l${i}`);
    const pending = languages.map((l) => cache.fetch('/cold', { headers: { 'accept-language': l } }).then((r) => r.text()));
    setTimeout(open, 20);
    assert.deepEqual(
      await Promise.all(pending),
      languages.map((l) => `for ${l}`),
    );
    await cache.idle();
    const seen = origin.count('/cold');
    for (const l of languages) {
      const r = await get('/cold', { headers: { 'accept-language': l } });
      assert.equal(r.body, `for ${l}`);
      assert.match(r.cs, /^cachette; hit/, `the variant for ${l} is reachable`);
    }
    assert.equal(origin.count('/cold'), seen, 'every variant was kept');
  });
}
