import { behaviourOverMemory, behaviourOverValkey } from '../http/binding-suites.ts';
import { h3Target } from './h3-target.ts';

// The HTTP behaviour suite, unchanged, on cachette/h3 (h3 v2, on Node), as Express runs it.
behaviourOverMemory('memory store', h3Target);
behaviourOverValkey('valkey store', h3Target);
