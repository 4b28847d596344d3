// The HTTP behaviour suite on cachette/elysia, unchanged, on Bun (where Elysia runs), over memory
// and Valkey as Express runs it: `bun test ./test/runtimes/bun/http-elysia.bun.ts`.
import { afterAll, beforeAll, describe, it } from 'bun:test';
import { elysiaTarget } from '../../elysia/elysia-target.ts';
import { httpBehaviourOnStores } from '../http-targets.ts';
import { storeTargets } from '../store-targets.ts';

const stores = storeTargets(process.env, { tcp: true }).filter((s) => s.name === 'memory' || s.name === 'valkey');
httpBehaviourOnStores({ describe, it, beforeAll, afterAll }, stores, elysiaTarget);
