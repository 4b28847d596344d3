import { CdnForwarding } from '../../cdn/forwarding.ts';
import { linkCdn } from '../../cdn/link.ts';
import type { EngineContext } from './context.ts';

/**
 * The engine's CDN purges (docs/cdn.md): the forwarding of the `cdn` option, its counters in
 * `stats()`, its failures as `cdnFailed` events and its sending in the background work that
 * `idle()` and `close()` wait for; and the link through which the HTTP layer forwards its purges
 * by URL and counts the tags it leaves out of a CDN's tag field. Undefined without `cdn`.
 */
export function openCdn(cache: object, ctx: EngineContext): CdnForwarding | undefined {
  const settings = ctx.options.cdn;
  const forwarding =
    settings &&
    new CdnForwarding(settings, {
      counters: ctx.counters,
      failed: (purger, batch, attempts, error) => ctx.events.emit('cdnFailed', { purger, tags: batch.tags, urls: batch.urls, attempts, error }),
      track: (work) => ctx.track(work),
    });
  linkCdn(cache, {
    purgeUrls: (urls) => forwarding?.purge([], urls),
    tagsDropped: (count) => {
      ctx.counters.cdnTagsDropped += count;
    },
  });
  return forwarding;
}
