import { isKvNamespace, type KVNamespaceLike } from '../../adapters/cloudflare-kv/index.ts';
import { memoryStore } from '../../adapters/memory/index.ts';
import type { Store } from '../../src/store/types.ts';
import { checkKnownOptions, checkOptionsObject, storeOptionMistake } from '../../src/util/known-options.ts';
import { redactUrl } from '../../src/util/redact-url.ts';
import { valkeyClient } from './valkey-client.ts';

/** Environment as each platform hands it over: `process.env`, `Deno.env.toObject()`, a Worker's `env`. */
export type EnvLike = Readonly<Record<string, unknown>>;

/** Which store the environment selected, and everything needed to open it. */
export type StoreChoice =
  | { kind: 'explicit'; store: Store }
  | { kind: 'valkey'; url: string; variable: 'VALKEY_URL' | 'REDIS_URL' | 'store' }
  | { kind: 'upstash'; url: string; token: string }
  | { kind: 'cloudflare-kv'; namespace: KVNamespaceLike; binding: string }
  | { kind: 'sqlite'; path: string; variable?: 'store' }
  | { kind: 'postgres'; url: string; variable: 'CACHETTE_STORE' | 'store' }
  | { kind: 'memory'; variable?: 'CACHETTE_STORE' | 'store' };

/** Options shared by every runtime helper for picking the store. */
export interface StoreSelectionOptions {
  /**
   * A store you built yourself, or one named the way the environment would name it: a
   * `redis://` / `valkey://` URL, a `postgres://` one (Node), `sqlite:PATH` or `memory`. Always wins over the environment.
   */
  store?: Store | string;
  /** Name of the Workers KV binding to use. Default "CACHETTE_KV". */
  kvBinding?: string;
  /** Where the one line naming the chosen store goes; `false` keeps quiet. Default console.info. */
  log?: ((line: string) => void) | false;
}

/** Opens the stores a platform can reach; a kind without a factory cannot be used there. */
export type StoreFactories = {
  [K in Exclude<StoreChoice['kind'], 'explicit' | 'memory'>]?: (choice: Extract<StoreChoice, { kind: K }>) => Store | Promise<Store>;
};

/** Every option of {@link StoreSelectionOptions}, for the unknown-option check. */
export const STORE_SELECTION_OPTIONS: ReadonlyArray<keyof StoreSelectionOptions> = ['store', 'kvBinding', 'log'];

const VALKEY_PROTOCOLS = new Set(['redis:', 'rediss:', 'valkey:', 'valkeys:']);
const POSTGRES_PROTOCOLS = ['postgres:', 'postgresql:'];
const DEFAULT_KV_BINDING = 'CACHETTE_KV';

/**
 * Picks the store from the environment: an explicit store; `CACHETTE_STORE` (`sqlite:PATH` →
 * the embedded SQLite store, `postgres://…` → the PostgreSQL store, `memory` → memory), which names cachette's own store and so wins
 * over the generic server URLs an app may set for other uses; `VALKEY_URL` (or `REDIS_URL`) →
 * valkey; `UPSTASH_REDIS_REST_URL` + `_TOKEN` → upstash; a KV binding → cloudflare-kv;
 * otherwise memory. Empty variables count as unset. A value that is set but unusable (a
 * malformed URL, half of the Upstash pair, a binding that is not KV, an unknown
 * CACHETTE_STORE) throws a TypeError naming the variable, rather than falling back quietly.
 */
export function chooseStore(env: EnvLike, options: StoreSelectionOptions = {}): StoreChoice {
  if (typeof options.store === 'string') return namedStoreChoice(options.store);
  if (options.store !== undefined) {
    const mistake = storeOptionMistake(options.store, 'cachette');
    if (mistake) throw mistake;
    return { kind: 'explicit', store: options.store };
  }
  const named = stringVar(env, 'CACHETTE_STORE');
  if (named) return cachetteStoreChoice(named);
  for (const variable of ['VALKEY_URL', 'REDIS_URL'] as const) {
    const url = stringVar(env, variable);
    if (url) return { kind: 'valkey', url: checkValkeyUrl(url, variable), variable };
  }
  const upstashUrl = stringVar(env, 'UPSTASH_REDIS_REST_URL');
  const upstashToken = stringVar(env, 'UPSTASH_REDIS_REST_TOKEN');
  if (upstashUrl || upstashToken) {
    if (!upstashUrl || !upstashToken) {
      const [set, missing] = upstashUrl ? ['UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN'] : ['UPSTASH_REDIS_REST_TOKEN', 'UPSTASH_REDIS_REST_URL'];
      throw new TypeError(`cachette: ${set} is set but ${missing} is not; Upstash needs both`);
    }
    if (!isUrl(upstashUrl, ['http:', 'https:'])) throw new TypeError(`cachette: UPSTASH_REDIS_REST_URL must be an http(s):// URL, got "${redactUrl(upstashUrl)}"`);
    return { kind: 'upstash', url: upstashUrl, token: upstashToken };
  }
  const binding = options.kvBinding ?? DEFAULT_KV_BINDING;
  const namespace = env[binding];
  if (namespace !== undefined) {
    if (!isKvNamespace(namespace)) throw new TypeError(`cachette: env.${binding} is not a Workers KV namespace binding`);
    return { kind: 'cloudflare-kv', namespace, binding };
  }
  if (options.kvBinding) throw new TypeError(`cachette: the KV binding "${options.kvBinding}" is not in env (check kv_namespaces in wrangler.toml)`);
  return { kind: 'memory' };
}

/** One line saying which store was chosen and why; never shows a password or a token. */
export function describeChoice(choice: StoreChoice): string {
  switch (choice.kind) {
    case 'explicit':
      return `store: ${choice.store.name} (passed explicitly)`;
    case 'valkey':
      return `store: valkey (${choice.variable === 'store' ? 'the store option ' : `${choice.variable}=`}${redactUrl(choice.url)}${valkeyClient() === 'bun-redis' ? ", through Bun's built-in RedisClient" : ''})`;
    case 'upstash':
      return `store: upstash (UPSTASH_REDIS_REST_URL=${redactUrl(choice.url)})`;
    case 'cloudflare-kv':
      return `store: cloudflare-kv (KV binding ${choice.binding})`;
    case 'sqlite':
      return `store: sqlite (${choice.variable === 'store' ? 'the store option ' : 'CACHETTE_STORE='}sqlite:${choice.path}; shared by the processes of this machine)`;
    case 'postgres':
      return `store: postgres (${choice.variable === 'store' ? 'the store option ' : 'CACHETTE_STORE='}${redactUrl(choice.url)}; shared by every process that reaches the database)`;
    case 'memory':
      return choice.variable
        ? `store: memory (${choice.variable === 'store' ? 'the store option ' : 'CACHETTE_STORE='}memory; not shared between processes or isolates)`
        : 'store: memory (no VALKEY_URL, REDIS_URL, UPSTASH_REDIS_REST_URL or KV binding; not shared between processes or isolates)';
  }
}

/**
 * Chooses, says which once through `options.log`, and opens the store with the platform's
 * factories. A choice the platform cannot open (Valkey over TCP on Workers) rejects, naming
 * what would work instead.
 */
export async function openStoreFromEnv(env: EnvLike, factories: StoreFactories, options: StoreSelectionOptions = {}, where = 'storeFromEnv()', ownOptions: readonly string[] = []): Promise<Store> {
  checkOptionsObject(options, where);
  checkKnownOptions(options, [...STORE_SELECTION_OPTIONS, ...ownOptions], where);
  const choice = chooseStore(env, options);
  announceChoice(choice, options);
  return openStore(choice, factories);
}

/** Says which store was chosen, once, through `options.log`. */
export function announceChoice(choice: StoreChoice, options: Pick<StoreSelectionOptions, 'log'>): void {
  if (options.log !== false) (options.log ?? console.info)(`[cachette] ${describeChoice(choice)}`);
}

/** Opens a chosen store with the platform's factories; throws when the platform has none for it. */
export async function openStore(choice: StoreChoice, factories: StoreFactories): Promise<Store> {
  switch (choice.kind) {
    case 'explicit':
      return choice.store;
    case 'memory':
      return memoryStore();
    case 'valkey':
      return (factories.valkey ?? unsupported(choice))(choice);
    case 'upstash':
      return (factories.upstash ?? unsupported(choice))(choice);
    case 'cloudflare-kv':
      return (factories['cloudflare-kv'] ?? unsupported(choice))(choice);
    case 'sqlite':
      return (factories.sqlite ?? unsupported(choice))(choice);
    case 'postgres':
      return (factories.postgres ?? unsupported(choice))(choice);
  }
}

function unsupported(choice: StoreChoice): never {
  const available =
    choice.kind === 'valkey'
      ? 'this runtime cannot open TCP connections to Valkey; set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, bind a KV namespace, or pass a store'
      : choice.kind === 'sqlite'
        ? 'this runtime has no local files for SQLite; use Upstash or a KV binding, or pass a store'
        : choice.kind === 'postgres'
          ? 'the PostgreSQL store is picked from the environment on Node only; pass postgresStore(url) from cachette/adapters/postgres'
          : 'pass a store explicitly';
  throw new TypeError(`cachette: ${describeChoice(choice)} is not available on this runtime: ${available}`);
}

/** `sqlite:PATH`, a `postgres://` URL or `memory`; anything else is a mistake worth stopping for. */
function cachetteStoreChoice(value: string): StoreChoice {
  if (value === 'memory') return { kind: 'memory', variable: 'CACHETTE_STORE' };
  if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length).trim();
    if (path) return { kind: 'sqlite', path };
  }
  if (isUrl(value, POSTGRES_PROTOCOLS)) return { kind: 'postgres', url: value, variable: 'CACHETTE_STORE' };
  throw new TypeError(
    `cachette: CACHETTE_STORE must be "sqlite:PATH" (e.g. sqlite:./cache.db) or "memory", or a postgres:// URL with a host (e.g. postgres://user:password@db:5432/app), got "${redactUrl(value)}"`,
  );
}

/**
 * A store named by a string where a store is expected: what the environment variables could
 * say, said in the code. An Upstash URL needs its token, so it takes the adapter.
 */
function namedStoreChoice(text: string): StoreChoice {
  const value = text.trim();
  if (value === 'memory') return { kind: 'memory', variable: 'store' };
  if (value.startsWith('sqlite:') && value.length > 'sqlite:'.length) return { kind: 'sqlite', path: value.slice('sqlite:'.length).trim(), variable: 'store' };
  if (isUrl(value, [...VALKEY_PROTOCOLS])) return { kind: 'valkey', url: value, variable: 'store' };
  if (isUrl(value, POSTGRES_PROTOCOLS)) return { kind: 'postgres', url: value, variable: 'store' };
  throw new TypeError(
    `cachette: "store": got the string ${JSON.stringify(redactUrl(value))}; a string store must be a redis:// or valkey:// URL, a postgres:// URL, "sqlite:PATH" or "memory"` +
      (isUrl(value, ['http:', 'https:']) ? ' (an Upstash URL needs its token: pass upstashStore({ url, token }) from cachette/adapters/upstash)' : ''),
  );
}

function stringVar(env: EnvLike, name: string): string | undefined {
  const value = env[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new TypeError(`cachette: ${name} must be a string, got ${typeof value}`);
  return value.trim() || undefined;
}

function checkValkeyUrl(url: string, variable: string): string {
  if (isUrl(url, [...VALKEY_PROTOCOLS])) return url;
  throw new TypeError(`cachette: ${variable} must be a redis://, rediss://, valkey:// or valkeys:// URL with a host, got "${redactUrl(url)}"`);
}

function isUrl(text: string, protocols: readonly string[]): boolean {
  try {
    const url = new URL(text);
    return protocols.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}
