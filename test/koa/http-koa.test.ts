import { behaviourOverMemory, behaviourOverValkey } from '../http/binding-suites.ts';
import { koaTarget } from './koa-target.ts';

// The HTTP behaviour suite, unchanged, on cachette/koa (Koa 3), as Express runs it.
behaviourOverMemory('memory store', koaTarget);
behaviourOverValkey('valkey store', koaTarget);
