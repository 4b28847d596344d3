import { afterAll, beforeAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { httpBehaviourSuite } from './http-behaviour.ts';
import { honoTarget, proxyTarget } from './node-targets.ts';

// One store for the file: every test gets its own namespace on it.
const store = memoryStore();
const api = { describe, it, beforeAll, afterAll };
describe('memory store', () => {
  afterAll(() => store.close());
  httpBehaviourSuite(
    api,
    proxyTarget(() => store),
  );
  httpBehaviourSuite(
    api,
    honoTarget(() => store),
  );
});
