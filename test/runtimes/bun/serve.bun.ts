// cachette/bun's helper over real HTTP: `bun test ./test/runtimes/bun/serve.bun.ts`.
import { afterAll, beforeAll, describe, it } from 'bun:test';
import { serve } from '../../../runtimes/bun/index.ts';
import { serveSuite } from '../serve-suite.ts';

serveSuite({ describe, it, beforeAll, afterAll, skip: (name) => it.skip(name, () => {}) }, 'bun', serve, process.env);
