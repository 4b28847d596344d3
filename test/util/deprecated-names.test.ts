/**
 * The names issue 20 replaced, kept one release as deprecated aliases (src/util/deprecation.ts):
 * each still does exactly what its replacement does, names itself in its errors, says once per
 * process on the console what replaced it, and carries a JSDoc `@deprecated` naming the
 * replacement (what editors show).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterEach, beforeEach, describe, it, vi } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import * as bun from '../../runtimes/bun/index.ts';
import * as deno from '../../runtimes/deno/index.ts';
import * as node from '../../runtimes/node/index.ts';
import * as http from '../../src/http/index.ts';
import type { Store } from '../../src/store/types.ts';

const root = join(import.meta.dirname, '../..');
const origin = async (request: Request) => new Response(`at ${new URL(request.url).pathname}`, { headers: { 'cache-control': 'max-age=60' } });

/** A handler wrapper under test: called with a handler and a store, resolves the cached handler. */
type Wrap = (handler: typeof origin, store: Store) => ((request: Request) => Promise<Response>) & { idle(): Promise<void>; close(): Promise<void> };

const aliases: Array<{ old: string; replacement: string; file: string; exportName: string; call: Wrap; current: Wrap }> = [
  {
    old: 'httpCache() from cachette/http',
    replacement: 'withCache() from cachette/http',
    file: 'src/http/exchange/http-cache.ts',
    exportName: 'httpCache',
    call: (handler, store) => http.httpCache(handler, { store }),
    current: (handler, store) => http.withCache(handler, { store }),
  },
  ...(
    [
      ['node', node.cached, node.withCache],
      ['bun', bun.cached, bun.withCache],
      ['deno', deno.cached, deno.withCache],
    ] as const
  ).map(([runtime, cached, withCache]) => ({
    old: `cached() from cachette/${runtime}`,
    replacement: `withCache() from cachette/${runtime}`,
    file: `runtimes/${runtime}/index.ts`,
    exportName: 'cached',
    call: ((handler, store) => cached(handler, { store, log: false })) as Wrap,
    current: ((handler, store) => withCache(handler, { store, log: false })) as Wrap,
  })),
];

/** The `@deprecated` text of the exported function `name` in `file`, or undefined. */
function deprecationOf(file: string, name: string): string | undefined {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const declaration = source.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === name);
  const tag = declaration && ts.getJSDocTags(declaration).find((t) => t.tagName.text === 'deprecated');
  return tag && (ts.getTextOfJSDocComment(tag.comment) ?? '');
}

describe('deprecated aliases', () => {
  let warnings: string[];
  beforeEach(() => {
    warnings = [];
    vi.spyOn(console, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  describe.each(aliases)('$old', ({ old, replacement, file, exportName, call, current }) => {
    it('caches as its replacement does, and says once what replaced it', async () => {
      const store = memoryStore();
      for (const wrap of [current, call, call]) {
        const handler = wrap(origin, store);
        const first = await handler(new Request('http://x/page'));
        await handler.idle();
        const second = await handler(new Request('http://x/page'));
        assert.equal(await first.text(), 'at /page');
        assert.equal(await second.text(), 'at /page');
        assert.match(second.headers.get('cache-status') ?? '', /; hit/);
        await handler.close();
      }
      assert.deepEqual(
        warnings.filter((w) => w.includes('deprecated')),
        [`[cachette] ${old} is deprecated and will be removed in the next release; call ${replacement} instead (the same function under its new name).`],
        'one warning for two calls, none for the replacement',
      );
      await store.close();
    });

    it('names itself in its errors, as the user called it', () => {
      assert.throws(
        () => call('not a handler' as never, memoryStore()),
        (error: Error) => error.message.startsWith(old),
      );
    });

    it('carries @deprecated naming its replacement', () => {
      assert.match(deprecationOf(file, exportName) ?? '(no @deprecated)', /Renamed \{@link withCache\}/);
    });
  });
});
