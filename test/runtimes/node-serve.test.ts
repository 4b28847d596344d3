import { afterAll, beforeAll, describe, it } from 'vitest';
import { serve } from '../../runtimes/node/index.ts';
import { serveSuite } from './serve-suite.ts';

serveSuite({ describe, it, beforeAll, afterAll, skip: (name) => it.skip(name, () => {}) }, 'node', serve, process.env);
