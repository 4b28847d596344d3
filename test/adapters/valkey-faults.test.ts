// The valkey store's connection faults on Node (valkey-fault-suite.ts); Bun and Deno run the same suite.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { valkeyFaultSuite } from './valkey-fault-suite.ts';

valkeyFaultSuite({ describe, it, beforeAll, afterAll }, 'node');
