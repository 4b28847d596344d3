import type { Context } from 'koa';
import { toFetchRequest } from '../exchange/fetch-request.ts';

/**
 * The fetch Request the cache policy sees for a Koa request: `ctx.protocol` and `ctx.host`
 * (with the port; both honour `app.proxy`) and the target as the client sent it
 * (`ctx.originalUrl`, before koa-mount or a rewrite changed `ctx.url`), so the key is the URL the
 * client asked for. Undefined when it cannot be keyed safely: Koa's routers match the target as
 * sent, so a target or Host that URL normalisation would change goes past the cache (see
 * toFetchRequest).
 */
export function koaFetchRequest(ctx: Context): Request | undefined {
  return toFetchRequest(ctx.req, { protocol: ctx.protocol, host: ctx.host, target: ctx.originalUrl });
}
