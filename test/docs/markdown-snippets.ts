/**
 * The TypeScript snippets of README.md and docs/*.md, and how each one is run. Every ```ts block
 * is a snippet; what the test needs to know to run it comes from an HTML comment on the line
 * right above the block, which GitHub and npm do not show:
 *
 *     <!-- snippet: runtime=bun serves=/ -->
 *
 * - `runtime=node|bun|deno|workerd` (default node; Node runs it through tsx);
 * - `serves=<path>`: it starts a server on `PORT` (a free port the test gives it); the test
 *   requests `<path>` until the HTTP cache answers it with a hit, then stops the server;
 * - `prints=<text>`: what it writes to stdout, exactly (in "double" or 'single' quotes when it
 *   has spaces or quotes; `\n` is a line break; `$PORT` is the port a server is given), so a
 *   snippet that prints a claim (`1 query`, `hit`) is held to it; a server's is read once the
 *   cache has answered a hit. A script without `prints` must print nothing on stdout (under
 *   workerd stdout is wrangler's own: no `prints` there);
 * - `continues`: the previous ```ts block of the same page runs first, in the same module;
 * - `workerd` snippets run under `wrangler dev` with the page's preceding ```toml block as their
 *   wrangler.toml; `deno` snippets with the flags of the page's following `deno run` command.
 *
 * A script without `serves` must exit with status 0 by itself. A snippet whose first line is
 * `// not run: <reason>` is type-checked but not run; the test counts and prints those.
 * `redis://127.0.0.1:6379` in a snippet is the test's redis-server, `redis://127.0.0.1:7000`… the
 * nodes of its local cluster, `postgres://postgres@127.0.0.1:5432/postgres` a PostgreSQL cluster it
 * starts: such snippets run where the suites' services do (PostgreSQL: where it is installed).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where a snippet runs. */
export type SnippetRuntime = 'node' | 'bun' | 'deno' | 'workerd';

/** One ```ts block and how to run it. */
export interface Snippet {
  /** `README.md:42` (the page and the line of the opening fence). */
  id: string;
  /** A name usable as a file name. */
  slug: string;
  page: string;
  line: number;
  /** The block as the page shows it. */
  code: string;
  /** What runs: the block, after the blocks it continues. */
  source: string;
  runtime: SnippetRuntime;
  serves: string | undefined;
  prints: string | undefined;
  /** The reason given by a first line `// not run: <reason>`. */
  notRun: string | undefined;
  /** The services its addresses name. */
  needs: { redis: boolean; cluster: boolean; postgres: boolean };
  /** workerd: the page's ```toml block before it. */
  wranglerToml: string | undefined;
  /** deno: the permission flags of the page's `deno run` command after it. */
  denoFlags: string[] | undefined;
}

/** The address in snippets that stands for the test's redis-server. */
export const SNIPPET_REDIS = 'redis://127.0.0.1:6379';
/** The address in snippets that stands for a throwaway PostgreSQL cluster the test starts. */
export const SNIPPET_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';
/** The addresses in snippets that stand for the nodes of the test's cluster (…:7000, …:7001, …). */
export const SNIPPET_CLUSTER = /redis:\/\/127\.0\.0\.1:70(\d\d)/g;

const FENCE = /^(`{3,})\s*([\w-]*)\s*$/;
const ANNOTATION = /^<!--\s*snippet:(.*?)-->\s*$/;
const KEYS = new Set(['runtime', 'serves', 'prints', 'continues']);

/** Reads `key=value key="a value" flag` into a map; an unknown key is an error naming the page. */
function parseAnnotation(text: string, where: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [, key, doubleQuoted, singleQuoted, bare] of text.matchAll(/([\w-]+)(?:=(?:"([^"]*)"|'([^']*)'|(\S+)))?/g)) {
    if (!KEYS.has(key!)) throw new Error(`${where}: unknown snippet annotation "${key}" (known: ${[...KEYS].join(', ')})`);
    fields.set(key!, doubleQuoted ?? singleQuoted ?? bare ?? '');
  }
  return fields;
}

interface Block {
  lang: string;
  line: number;
  code: string;
  annotation: string | undefined;
}

/** The fenced blocks of a Markdown text, with the annotation comment right above each. */
function blocksOf(text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && line.trimEnd() === open[1]);
    if (end === -1) throw new Error(`line ${i + 1}: a code block is never closed`);
    const above = i > 0 ? ANNOTATION.exec(lines[i - 1]!) : null;
    blocks.push({ lang: open[2]!, line: i + 1, code: lines.slice(i + 1, end).join('\n') + '\n', annotation: above?.[1] });
    i = end;
  }
  return blocks;
}

/** The permission flags of the first `deno run …` line of `sh`. */
function denoRunFlags(sh: string): string[] | undefined {
  const command = sh.split('\n').find((line) => /^\s*deno run\s/.test(line));
  return command?.split(/\s+/).filter((word) => word.startsWith('--'));
}

/** The snippets of one page (`page` is its path relative to the repository). */
export function pageSnippets(page: string, text: string): Snippet[] {
  const blocks = blocksOf(text);
  const snippets: Snippet[] = [];
  for (const [index, block] of blocks.entries()) {
    const where = `${page}:${block.line}`;
    if (block.lang !== 'ts' && block.lang !== 'typescript') {
      if (block.annotation !== undefined) throw new Error(`${where}: a snippet annotation above a ${block.lang || 'plain'} block`);
      continue;
    }
    const fields = parseAnnotation(block.annotation ?? '', where);
    const runtime = (fields.get('runtime') ?? 'node') as SnippetRuntime;
    if (!['node', 'bun', 'deno', 'workerd'].includes(runtime)) throw new Error(`${where}: unknown runtime "${runtime}"`);
    const previous = snippets.at(-1);
    if (fields.has('continues') && !previous) throw new Error(`${where}: "continues" on the first snippet of the page`);
    const source = fields.has('continues') ? `${previous!.source}\n${block.code}` : block.code;
    const notRun = /^\/\/ not run: (.+)$/m.exec(block.code.split('\n')[0]!)?.[1];
    const toml = blocks
      .slice(0, index)
      .reverse()
      .find((b) => b.lang === 'toml');
    const sh = blocks.slice(index + 1).find((b) => b.lang === 'sh' && denoRunFlags(b.code));
    if (runtime === 'workerd' && !toml) throw new Error(`${where}: a workerd snippet needs a \`\`\`toml block (its wrangler.toml) before it`);
    if (runtime === 'workerd' && fields.has('prints')) throw new Error(`${where}: a workerd snippet's stdout is wrangler dev's: it cannot have "prints"`);
    if (runtime === 'deno' && !sh) throw new Error(`${where}: a deno snippet needs a \`deno run\` command after it`);
    snippets.push({
      id: where,
      slug: `${page.replace(/\.md$/, '').replace(/[^\w]+/g, '-')}-${block.line}`,
      page,
      line: block.line,
      code: block.code,
      source,
      runtime,
      serves: fields.get('serves'),
      prints: fields.get('prints')?.replaceAll('\\n', '\n'),
      notRun,
      needs: { redis: source.includes(SNIPPET_REDIS), cluster: new RegExp(SNIPPET_CLUSTER.source).test(source), postgres: source.includes(SNIPPET_POSTGRES) },
      wranglerToml: runtime === 'workerd' ? toml!.code : undefined,
      denoFlags: runtime === 'deno' ? denoRunFlags(sh!.code) : undefined,
    });
  }
  return snippets;
}

/** The pages whose snippets are tested: README.md and every page of docs/. */
export function documentationPages(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** Every snippet of README.md and docs/. */
export function allSnippets(root: string): Snippet[] {
  return documentationPages(root).flatMap((page) => pageSnippets(page, readFileSync(join(root, page), 'utf8')));
}
