// Native and portable raw DEFLATE on Deno: `deno test -A --no-check test/runtimes/deno/deflate.deno.ts`.
import { deflateSuite } from '../../codec/deflate-suite.ts';
import { denoSuiteApi } from './suite-api.ts';

deflateSuite(denoSuiteApi());
