/**
 * `cachette proxy` (and `npm run proxy --`): the caching reverse proxy from the command line.
 *
 *   cachette proxy --origin http://127.0.0.1:8000 [--port 8082] [--store memory|valkey] …
 */
import type { SetCookiePolicy } from '../../src/http/rules/storability.ts';
import type { Store } from '../../src/store/types.ts';
import { MissingPeerError } from '../../src/util/optional-peer.ts';
import { durationFrom, parseFlags, portFrom, positiveIntegerFrom, startupProblem, tokenFrom, UsageError, type CliIo, type Command, type Started } from '../shared/command.ts';
import { parseOrigin, type ProxyOptions } from './options.ts';

const DEFAULT_PORT = 8082;
const SET_COOKIE_POLICIES: readonly SetCookiePolicy[] = ['bypass', 'strip', 'store'];

const HELP = `Usage: cachette proxy --origin <url> [options]

A caching reverse proxy: node:http in front of an HTTP origin, with cachette's shared
HTTP cache (RFC 9111) between the two.

Options:
  --origin <url>              the origin's base URL, http:// or https:// (required)
  --port <n>                  port to listen on (default: $PORT, else ${DEFAULT_PORT}; 0 picks a free one)
  --host <address>            address to listen on (default 127.0.0.1)
  --store memory|valkey       where responses are kept (default memory)
  --valkey-url <url>          the server for --store valkey (default $VALKEY_URL, $REDIS_URL,
                              else redis://127.0.0.1:6379)
  --ttl <duration>            freshness for cacheable responses that state none, e.g. 30s
                              (never for requests with Cookie or Authorization unless the response is public)
  --max-body-bytes <n>        larger responses are served, not stored (default 8388608)
  --x-cache                   also send X-Cache: HIT | MISS | STALE | BYPASS
  --set-cookie bypass|strip|store
                              responses with Set-Cookie: not stored (bypass, the default),
                              stored without the header (strip), or stored with it (store:
                              every client then gets that cookie; never for sessions)
  --trust-forwarded           keep the forwarding fields a front sets (Forwarded, X-Forwarded-For,
                              -Host, -Proto, -Port, -Prefix, X-Original-URL, X-Rewrite-URL,
                              X-Real-IP) and key on them; only behind a trusted front. Other
                              forwarding fields (X-Forwarded-Ssl, X-Host, CF-*, …) are always dropped
  --purge-token <token>       turn the purge endpoint on (default $CACHETTE_PURGE_TOKEN;
                              prefer the variable: arguments show in ps); 16+ characters
  --purge-path <path>         the purge endpoint's path (default /.cachette/purge)
  --headers-timeout <dur>     wait this long for the origin's response headers, then 504
                              (the cache's originTimeout; default 60s)
  --body-idle-timeout <dur>   fail a body the origin stops sending for this long
                              (the cache's originIdleTimeout; default 60s)
  --max-held-bytes <n>        most bytes of responses held for clients that do not read them,
                              all together; past it the most stalled are closed (default
                              67108864, or --max-body-bytes when larger)
  --write-timeout <dur>       close a connection whose client takes nothing for this long
                              while a response waits for it (default 60s)
  -h, --help                  show this help`;

const FLAGS = {
  origin: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  store: { type: 'string' },
  'valkey-url': { type: 'string' },
  ttl: { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'x-cache': { type: 'boolean' },
  'set-cookie': { type: 'string' },
  'trust-forwarded': { type: 'boolean' },
  'purge-token': { type: 'string' },
  'purge-path': { type: 'string' },
  'headers-timeout': { type: 'string' },
  'body-idle-timeout': { type: 'string' },
  'max-held-bytes': { type: 'string' },
  'write-timeout': { type: 'string' },
} as const;

/** The `proxy` subcommand. */
export const proxyCommand: Command = {
  name: 'proxy',
  summary: 'a caching reverse proxy in front of an HTTP origin',
  help: HELP,
  async run(args, io) {
    const flags = parseFlags(args, FLAGS);
    if (flags.origin === undefined) throw new UsageError('--origin is required, e.g. --origin http://127.0.0.1:8000');
    try {
      parseOrigin(flags.origin);
    } catch (error) {
      throw new UsageError(`--origin: ${(error as Error).message}`);
    }
    const portText = flags.port ?? io.env.PORT;
    const port = portText === undefined ? DEFAULT_PORT : portFrom(portText, flags.port === undefined ? 'PORT' : '--port');
    const host = flags.host ?? '127.0.0.1';
    const purgeTokenText = flags['purge-token'] ?? io.env.CACHETTE_PURGE_TOKEN;
    const purgeToken = purgeTokenText === undefined ? undefined : tokenFrom(purgeTokenText, flags['purge-token'] === undefined ? 'CACHETTE_PURGE_TOKEN' : '--purge-token');
    if (flags['purge-path'] !== undefined && purgeToken === undefined) throw new UsageError('--purge-path needs --purge-token (or CACHETTE_PURGE_TOKEN)');
    const setCookie = flags['set-cookie'];
    if (setCookie !== undefined && !SET_COOKIE_POLICIES.includes(setCookie as SetCookiePolicy)) {
      throw new UsageError(`--set-cookie must be ${SET_COOKIE_POLICIES.join(', ')}, got ${JSON.stringify(setCookie)}`);
    }
    const storeKind = flags.store ?? 'memory';
    if (storeKind !== 'memory' && storeKind !== 'valkey') throw new UsageError(`--store must be memory or valkey, got ${JSON.stringify(storeKind)}`);
    const options: Omit<ProxyOptions, 'store'> = {
      origin: flags.origin,
      port,
      host,
      xCache: flags['x-cache'] === true,
      trustForwarded: flags['trust-forwarded'] === true,
      ...(flags['headers-timeout'] === undefined ? {} : { originTimeout: durationFrom(flags['headers-timeout'], '--headers-timeout') }),
      ...(flags['body-idle-timeout'] === undefined ? {} : { originIdleTimeout: durationFrom(flags['body-idle-timeout'], '--body-idle-timeout') }),
      ...(setCookie === undefined ? {} : { setCookie: setCookie as SetCookiePolicy }),
      ...(flags.ttl === undefined ? {} : { ttl: durationFrom(flags.ttl, '--ttl') }),
      ...(flags['max-body-bytes'] === undefined ? {} : { maxBodyBytes: positiveIntegerFrom(flags['max-body-bytes'], '--max-body-bytes') }),
      ...(flags['max-held-bytes'] === undefined ? {} : { maxHeldBytes: positiveIntegerFrom(flags['max-held-bytes'], '--max-held-bytes') }),
      ...(flags['write-timeout'] === undefined ? {} : { writeTimeout: durationFrom(flags['write-timeout'], '--write-timeout') }),
      ...(purgeToken === undefined ? {} : { purge: { token: purgeToken, ...(flags['purge-path'] === undefined ? {} : { path: flags['purge-path'] }) } }),
      onError: (error) => io.err(`cachette proxy: ${error instanceof Error ? error.message : String(error)}`),
    };
    const store = await openStore(storeKind, flags['valkey-url'] ?? io.env.VALKEY_URL ?? io.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    return start(options, store, io);
  },
};

async function start(options: Omit<ProxyOptions, 'store'>, store: Store, io: CliIo): Promise<number | Started> {
  // Loaded here: `cachette --help` must work without the proxy's dependencies loaded.
  const { startProxy } = await import('./proxy.ts');
  let proxy;
  try {
    proxy = await startProxy({ ...options, store });
  } catch (error) {
    await store.close();
    // A bad option (the purge token's length, say) is a usage error; anything else a start-up failure.
    if (error instanceof TypeError || error instanceof RangeError) throw new UsageError(error.message);
    io.err(`cachette proxy: ${startupProblem(error, { port: options.port ?? DEFAULT_PORT, host: options.host ?? '127.0.0.1', portChoice: '--port or the PORT variable' })}`);
    return 1;
  }
  io.out(`cachette proxy: ${proxy.url} → ${options.origin} (store: ${store.name})`);
  if (options.purge !== undefined) io.out(`  purge: POST ${proxy.url}${options.purge.path ?? '/.cachette/purge'} or PURGE <path>, with "Authorization: Bearer <token>"`);
  return {
    async stop() {
      await proxy.close();
      await store.close();
    },
  };
}

async function openStore(kind: 'memory' | 'valkey', valkeyUrl: string): Promise<Store> {
  if (kind === 'memory') {
    const { memoryStore } = await import('../../adapters/memory/index.ts');
    return memoryStore();
  }
  const { valkeyStore } = await import('../../adapters/valkey/index.ts');
  try {
    return valkeyStore(valkeyUrl);
  } catch (error) {
    if (error instanceof MissingPeerError) throw new UsageError(`--store valkey: ${error.message}`);
    throw new UsageError(`--valkey-url: ${(error as Error).message}`);
  }
}
