/**
 * The proxy's purge endpoint, off unless a token is configured. Whoever holds the token can
 * remove any stored response, by URL (every variant) or by tag; nobody else can purge
 * anything through it. Independently of it, any client can still invalidate one URL the way
 * RFC 9111 §4.4 says — an unsafe method (POST, PUT, DELETE, PATCH…) that the origin answers
 * with a success — which only ever drops entries, never stores one.
 *
 * Two forms:
 * - `POST <path>` (default `/.cachette/purge`) with a JSON body `{"urls": [...], "tags": [...]}`,
 *   and `"soft": true` to mark what they name stale (revalidated, or served under
 *   stale-while-revalidate) instead of removing it; a URL may be a path, resolved against the
 *   request's own authority, or absolute.
 * - `PURGE /some/path` (the Varnish convention): purges that URL.
 *
 * Both need `Authorization: Bearer <token>` and answer `{"purged": n}` (variants removed, or
 * marked stale, for URLs, plus 1 per tag invalidated).
 */
import type { IncomingMessage } from 'node:http';
import type { HttpCache, PurgeTarget } from '../../src/http/index.ts';
import { checkKnownOptions } from '../../src/util/known-options.ts';
import { bearerTokenCheck, tokenProblem } from '../shared/bearer-token.ts';
import { BodyTooLargeError, readBody } from '../shared/read-body.ts';
import type { Inbound } from './inbound.ts';

/** Options of the purge endpoint. */
export interface PurgeOptions {
  /** The bearer token purge requests must carry: at least 16 characters of visible ASCII. */
  token: string;
  /** The path of the JSON endpoint. Default "/.cachette/purge". */
  path?: string;
}

/** The purge endpoint of one proxy. */
export interface PurgeEndpoint {
  /** True when `inbound` is a purge request (it never reaches the cache or the origin then). */
  handles(inbound: Inbound): boolean;
  /** Answers a purge request. */
  handle(inbound: Inbound, incoming: IncomingMessage): Promise<Response>;
}

/** Largest JSON body accepted, bytes. */
export const MAX_PURGE_BODY_BYTES = 64 * 1024;
/** Most URLs and tags one request may name together. */
export const MAX_PURGE_TARGETS = 1000;
const DEFAULT_PATH = '/.cachette/purge';

/** Validates the options and builds the endpoint. */
export function purgeEndpoint(options: PurgeOptions, cache: HttpCache): PurgeEndpoint {
  if (typeof options !== 'object' || options === null) throw new TypeError('startProxy: "purge" must be an object { token, path? }');
  checkKnownOptions(options, ['token', 'path'], 'startProxy(): purge');
  const { token, path = DEFAULT_PATH } = options;
  const problem = tokenProblem(token);
  if (problem !== undefined) throw new TypeError(`startProxy: purge.token ${problem}`);
  if (typeof path !== 'string' || !/^\/[^?#\s]*$/.test(path)) throw new TypeError(`startProxy: purge.path must be a path such as "${DEFAULT_PATH}", got ${JSON.stringify(path)}`);
  const check = bearerTokenCheck(token);

  return {
    handles: (inbound) => inbound.method === 'PURGE' || inbound.url.pathname === path,
    async handle(inbound, incoming) {
      if (inbound.method !== 'PURGE' && inbound.method !== 'POST') return json(405, { error: `use POST ${path} or PURGE <path>` }, { allow: 'POST' });
      const verdict = check(inbound.headers.get('authorization') ?? undefined);
      if (verdict !== 'ok') {
        return json(401, { error: verdict === 'missing' ? 'purging needs "Authorization: Bearer <token>"' : 'invalid purge token' }, { 'www-authenticate': 'Bearer realm="cachette purge"' });
      }
      let targets: PurgeTarget[];
      if (inbound.method === 'PURGE') {
        targets = [{ url: inbound.url.href }];
      } else {
        const parsed = await purgeTargets(incoming, inbound.url);
        if ('error' in parsed) return json(parsed.status, { error: parsed.error });
        targets = parsed.targets;
      }
      const counts = await Promise.all(targets.map((target) => cache.purge(target)));
      return json(200, { purged: counts.reduce((sum, n) => sum + n, 0) });
    },
  };
}

/** The targets a JSON purge body names, or why it is refused. */
async function purgeTargets(incoming: IncomingMessage, base: URL): Promise<{ targets: PurgeTarget[] } | { status: number; error: string }> {
  let text: string;
  try {
    text = (await readBody(incoming, MAX_PURGE_BODY_BYTES)).toString('utf8');
  } catch (error) {
    if (error instanceof BodyTooLargeError) return { status: 413, error: `the body exceeds ${MAX_PURGE_BODY_BYTES} bytes` };
    throw error;
  }
  const targets = parseTargets(text, base);
  return typeof targets === 'string' ? { status: 400, error: targets } : { targets };
}

/** The URLs and tags of a JSON purge body, or why it is refused. */
export function parseTargets(text: string, base: URL): PurgeTarget[] | string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'the body must be JSON such as {"urls": ["/path"], "tags": ["tag"]}';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body must be a JSON object with "urls" and/or "tags"';
  const { urls = [], tags = [], soft = false } = body as { urls?: unknown; tags?: unknown; soft?: unknown };
  if (!isStringList(urls) || !isStringList(tags)) return '"urls" and "tags" must be arrays of non-empty strings';
  if (typeof soft !== 'boolean') return '"soft" must be true or false';
  if (urls.length + tags.length === 0) return 'name at least one URL or tag';
  if (urls.length + tags.length > MAX_PURGE_TARGETS) return `at most ${MAX_PURGE_TARGETS} URLs and tags per request`;
  const targets: PurgeTarget[] = [];
  for (const url of urls) {
    // Resolved like the keys are built: against the authority this request was sent to.
    const resolved = URL.canParse(url, base.origin) ? new URL(url, base.origin) : undefined;
    if (resolved === undefined || (resolved.protocol !== 'http:' && resolved.protocol !== 'https:')) return `${JSON.stringify(url.slice(0, 100))} is not a path or an http(s) URL`;
    targets.push({ url: resolved.href, soft });
  }
  for (const tag of tags) targets.push({ tag, soft });
  return targets;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string' && item.length > 0);
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } });
}
