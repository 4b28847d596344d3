// cache.wrap and the decorators on Deno (standard decorators run natively):
// `deno test -A --no-check test/runtimes/deno/functions.deno.ts`.
import { wrapSuite } from '../../cache/wrap-suite.ts';
import { decoratorSuite } from '../../decorators/decorator-suite.ts';
import { denoSuiteApi } from './suite-api.ts';

const api = denoSuiteApi();
wrapSuite(api);
decoratorSuite(api);
