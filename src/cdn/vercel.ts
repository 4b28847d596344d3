import { apiBaseOf, postPurge, requiredSetting } from './api-call.ts';
import { fitTags, TAG_RULES } from './tag-rules.ts';
import type { CdnPurger, PurgeBatch } from './types.ts';

/** Options of {@link vercelPurge}. */
export interface VercelPurgeOptions {
  /** A Vercel access token, sent as a bearer token. */
  token: string;
  /** The team the project belongs to (`teamId` query parameter), when it is a team's. */
  teamId?: string;
  /** The project's id or name. Default: `VERCEL_PROJECT_ID`, which Vercel sets in a deployment's environment. */
  projectId?: string;
  /** The API's base URL. Default `https://api.vercel.com`. */
  apiBase?: string;
}

/** The most tags sent in one request (the REST schema bounds a tag's length, not the list's: see docs/cdn.md). */
export const VERCEL_PER_REQUEST = 128;

/**
 * A forwarder to Vercel's invalidate by tag (`POST /v1/edge-cache/invalidate-by-tags`, body
 * `{ tags: [...] }`): the tagged responses are marked stale, and revalidated in the background at
 * their next request. It purges tags only; URLs given to it are not sent.
 */
export function vercelPurge(options: VercelPurgeOptions): CdnPurger {
  const where = 'vercelPurge';
  const token = requiredSetting(options?.token, 'token', where);
  const projectId = requiredSetting(options.projectId ?? environment('VERCEL_PROJECT_ID'), 'projectId', where);
  const query = new URLSearchParams({ projectIdOrName: projectId });
  if (options.teamId !== undefined) query.set('teamId', requiredSetting(options.teamId, 'teamId', where));
  const url = `${apiBaseOf(options.apiBase, 'https://api.vercel.com', where)}/v1/edge-cache/invalidate-by-tags?${query}`;
  return {
    name: 'vercel',
    limits: { tags: VERCEL_PER_REQUEST, urls: 0, mixed: false },
    send(batch: PurgeBatch, signal: AbortSignal) {
      const body = JSON.stringify({ tags: fitTags(batch.tags, TAG_RULES.vercel).kept });
      return postPurge('vercel', { url, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body, secrets: [token] }, signal);
    },
  };
}

/** An environment variable where there is a `process` (Node, Bun, Deno's compatibility, Vercel's functions). */
function environment(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.[name];
}
