// The valkey store's connection faults on Bun's sockets: `bun test ./test/runtimes/bun/valkey-faults.bun.ts`.
import { afterAll, beforeAll, describe, it } from 'bun:test';
import { valkeyFaultSuite } from '../../adapters/valkey-fault-suite.ts';

valkeyFaultSuite({ describe, it, beforeAll, afterAll }, 'bun');
