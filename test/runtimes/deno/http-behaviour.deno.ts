// The HTTP behaviour suite on Deno, unchanged, through cachette/deno's Deno.serve helper on
// every store Deno reaches: `deno test -A --no-check test/runtimes/deno/http-behaviour.deno.ts`.
import { serve } from '../../../runtimes/deno/index.ts';
import { httpBehaviourOnStores, serveTarget } from '../http-targets.ts';
import { storeTargets } from '../store-targets.ts';
import { denoRunner } from '../../../src/store/testing/index.ts';

httpBehaviourOnStores(denoRunner(), storeTargets(process.env, { tcp: true }), (store) => serveTarget('deno', serve, store));
