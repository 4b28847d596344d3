// Native and portable raw DEFLATE on Deno: `deno test -A --no-check test/runtimes/deno/deflate.deno.ts`.
import { denoRunner } from '../../../src/store/testing/index.ts';
import { deflateSuite } from '../../codec/deflate-suite.ts';

deflateSuite(denoRunner());
