// The HTTP behaviour suite on Bun, unchanged, through cachette/bun's Bun.serve helper on every
// store Bun reaches: `bun test ./test/runtimes/bun/http-behaviour.bun.ts`.
import { afterAll, beforeAll, describe, it } from 'bun:test';
import { serve } from '../../../runtimes/bun/index.ts';
import { httpBehaviourOnStores, serveTarget } from '../http-targets.ts';
import { storeTargets } from '../store-targets.ts';

httpBehaviourOnStores({ describe, it, beforeAll, afterAll }, storeTargets(process.env, { tcp: true }), (store) => serveTarget('bun', serve, store));
