// The valkey store's connection faults on Deno's sockets: `deno test -A --no-check test/runtimes/deno/valkey-faults.deno.ts`.
import { valkeyFaultSuite } from '../../adapters/valkey-fault-suite.ts';
import { denoRunner } from '../../../src/store/testing/index.ts';

valkeyFaultSuite(denoRunner(), 'deno');
