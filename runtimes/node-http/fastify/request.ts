import type { FastifyRequest } from 'fastify';
import { toFetchRequest } from '../exchange/fetch-request.ts';

/**
 * The fetch Request the cache policy sees for a Fastify request: `request.protocol`, the host
 * as Fastify sees it (Fastify 5's `request.host`, Fastify 4's `request.hostname`, both with the
 * port and honouring `trustProxy`) and the target as the client sent it (`request.originalUrl`,
 * before `rewriteUrl`; early Fastify 4 releases keep no original, and the key is then the rewritten
 * target the route was found by), so the key is the URL the client asked for. Undefined when it cannot be
 * keyed safely: Fastify routes on the target as sent, so a target or Host that URL
 * normalisation would change goes past the cache (see toFetchRequest).
 */
export function fastifyFetchRequest(request: FastifyRequest): Request | undefined {
  const host = (request as { host?: unknown }).host;
  return toFetchRequest(request.raw, {
    protocol: request.protocol,
    host: typeof host === 'string' ? host : request.hostname,
    target: request.originalUrl ?? request.raw.url,
  });
}
