/**
 * Runs the bundled full-stack Worker in workerd through miniflare, listening on PORT, and
 * stays up until stopped. The harness starts it: `node --import tsx
 * bench/fullstack/servers/workerd-host.ts` with FULLSTACK_WORKER_SCRIPT (the bundle), PORT and
 * the Worker's variables (FULLSTACK_*, UPSTASH_REDIS_REST_URL/_TOKEN, REDIS_URL). Requests go
 * straight to workerd; this process only supervises it. KV and the Cache API are miniflare's
 * local, in-memory ones.
 */
import { dirname } from 'node:path';
import { Miniflare } from 'miniflare';
import { WORKER_SETTINGS } from '../support/worker-bundle.ts';
import { portFrom } from './server-app.ts';

const script = process.env.FULLSTACK_WORKER_SCRIPT;
if (!script) throw new Error('FULLSTACK_WORKER_SCRIPT must name the bundled Worker');
const VARIABLES = ['FULLSTACK_CONTENDER', 'FULLSTACK_PAGE', 'FULLSTACK_NAMESPACE', 'FULLSTACK_STORE', 'UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN', 'REDIS_URL'];

const mf = new Miniflare({
  modules: true,
  // The bundle imports node built-ins by bare name: resolving stays inside its directory.
  modulesRoot: dirname(script),
  scriptPath: script,
  compatibilityDate: WORKER_SETTINGS.compatibilityDate,
  compatibilityFlags: [...WORKER_SETTINGS.compatibilityFlags],
  bindings: Object.fromEntries(VARIABLES.filter((name) => process.env[name]).map((name) => [name, process.env[name]!])),
  kvNamespaces: ['CACHETTE_KV'],
  cache: true,
  host: '127.0.0.1',
  port: portFrom(process.env),
});
await mf.ready;

const stop = () => void mf.dispose().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
