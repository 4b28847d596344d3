import { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyPluginCallback, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { openHttpCache } from '../../../src/http/exchange/http-cache.ts';
import { controlsOf, type HttpCacheControls } from '../../../src/bindings/controls.ts';
import type { HttpCache, HttpCacheOptions } from '../../../src/http/index.ts';
import { exchange } from '../exchange/exchange.ts';
import { RealResponse } from '../exchange/real-response.ts';
import { refetchCapture } from '../exchange/refetch.ts';
import { failResponse } from '../exchange/send-response.ts';
import { fastifyFetchRequest } from './request.ts';

/** Options of the Fastify plugin: the HTTP cache's own (`cachette/http`): `store` or `cache`, `ttl`, … */
export type FastifyCacheOptions = HttpCacheOptions;

/** What the plugin decorates its Fastify instance with, as `app.cache` (`app.close()` calls its `close`). */
export type FastifyCache = HttpCacheControls;

declare module 'fastify' {
  interface FastifyInstance {
    /** The HTTP cache cachette/fastify registered in this context: `purge`, `idle`, `close`. */
    cache: FastifyCache;
  }
}

/**
 * The Fastify versions the plugin supports (tested on the lowest and the newest); Fastify refuses
 * to load it on any other. 4.0.x sent the reply of an async handler that streams twice (fixed in 4.1.0).
 */
const FASTIFY_VERSIONS = '^4.1.0 || ^5.0.0';

/** The plugin itself; `cache` below is it with fastify-plugin's markers. */
const plugin: FastifyPluginCallback<FastifyCacheOptions> = (instance, options, done) => {
  let policy: HttpCache;
  try {
    if ((instance.initialConfig as { http2?: boolean }).http2) throw new TypeError('cachette/fastify: an HTTP/2 server is not supported (its responses are not node:http ServerResponses)');
    if (instance.hasDecorator('cache')) {
      throw new TypeError('cachette/fastify: this context already has a "cache" decorator (a cache registered here or in a parent context, or another plugin\'s): register one cache over any route');
    }
    // Checked once, here, where the plugin is registered: never per request.
    policy = openHttpCache(withoutRegisterOptions(options), { name: 'app.register(cache) from cachette/fastify' });
  } catch (error) {
    done(error as Error);
    return;
  }
  const onError = options.onError ?? (() => {});
  instance.decorate('cache', controlsOf(policy));
  instance.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction) => answer(instance, policy, onError, request, reply, next));
  instance.addHook('onClose', (_instance, closed) => {
    policy.close().then(() => closed(), closed);
  });
  done();
};

/**
 * The Fastify plugin: an RFC 9111 shared cache for the routes of the context it is registered
 * in (with fastify-plugin's semantics: not encapsulated, so registered at the root it caches
 * every route, registered inside a plugin only that plugin's routes and its children's).
 *
 * ```ts
 * const app = Fastify();
 * await app.register(cache, { store: memoryStore(), ttl: '30s' });
 * app.get('/products', async () => db.products());
 * await app.cache.purge({ tag: 'products' });
 * ```
 *
 * It runs as an `onRequest` hook, so a hit is answered before the body is parsed and before
 * validation, later hooks and the handler, as a cache in front of the app would answer it.
 * Hooks registered before the plugin run for every request. Each request is translated into a
 * fetch Request (`request.protocol`, the host as Fastify sees it under `trustProxy`, the target
 * as sent) and answered by the policy in `cachette/http`: stored responses (written from their
 * bytes), 304s, HEAD and Vary as every other binding serves them. On a miss the rest of the
 * lifecycle runs once, and what Fastify writes (`reply.send` of strings, Buffers, serialised
 * objects and streams, after every `onSend` hook) is captured rather than sent; the client gets
 * the cache's answer, streamed while it is stored. Reply headers set by hooks before the plugin
 * (CORS, security headers) are the request's own: sent with every answer, never stored.
 *
 * Fastify routes a request before its hooks run and ends the lifecycle once the reply is sent,
 * so what the route cannot answer in this pass goes through the server as a request of its own
 * (with the client's address and headers, past the cache): a stale-while-revalidate refresh,
 * run after the stale copy was served, and the unconditional request RFC 9111 §4.3.4 requires
 * after a 304 that matches nothing stored. Requests whose target or Host URL normalisation
 * would change are not cached (Fastify routes on them as sent). Not for HTTP/2 servers.
 */
export const cache: FastifyPluginCallback<FastifyCacheOptions> = Object.assign(plugin, {
  // fastify-plugin's markers, set by hand so the entry has no dependency of its own.
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: 'cachette',
  [Symbol.for('plugin-meta')]: { name: 'cachette', fastify: FASTIFY_VERSIONS },
});

/** Fastify's own register options, which it hands to every plugin along with the plugin's. */
const REGISTER_OPTIONS = ['prefix', 'logLevel', 'logSerializers'];

/**
 * The options without Fastify's register options: they mean nothing to a plugin that is not
 * encapsulated (no prefix, no logger of its own), and are no HTTP cache option.
 */
function withoutRegisterOptions(options: FastifyCacheOptions): FastifyCacheOptions {
  if (!options || typeof options !== 'object' || !REGISTER_OPTIONS.some((name) => name in options)) return options;
  const rest: Record<string, unknown> = { ...options };
  for (const name of REGISTER_OPTIONS) delete rest[name];
  return rest as FastifyCacheOptions;
}

function answer(instance: FastifyInstance, policy: HttpCache, onError: (error: unknown) => void, request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction): void {
  const req = request.raw;
  const again = refetchCapture(req);
  if (again) {
    // A request the plugin sent through the server again: reply headers of earlier hooks are
    // the request's own, and the route answers it uncached.
    again.requestHeaders(reply.getHeaders());
    next();
    return;
  }
  const fetchRequest = reply.raw instanceof ServerResponse ? fastifyFetchRequest(request) : undefined;
  if (!fetchRequest) {
    next();
    return;
  }
  // The response as earlier hooks left it: everything the client gets goes through it.
  const real = new RealResponse(reply.raw);
  exchange({
    policy,
    req,
    real,
    request: fetchRequest,
    proceed: () => next(),
    reject: (error) => next(error as Error),
    server: instance.server,
    routedBeforeCache: true,
    requestHeaders: reply.getHeaders(),
    // The cache writes the answer itself: Fastify's lifecycle stops here.
    answering: () => void reply.hijack(),
  }).catch((error: unknown) => {
    onError(error);
    failResponse(real, error);
  });
}
