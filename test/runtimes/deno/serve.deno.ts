// cachette/deno's helper over real HTTP: `deno test -A --no-check test/runtimes/deno/serve.deno.ts`.
import { serve } from '../../../runtimes/deno/index.ts';
import { serveSuite } from '../serve-suite.ts';
import { denoRunner } from '../../../src/store/testing/index.ts';

serveSuite(denoRunner(), 'deno', serve, process.env);
