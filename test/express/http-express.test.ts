import { behaviourOverMemory, behaviourOverValkey } from '../http/binding-suites.ts';
import { expressTarget } from './express-target.ts';

// The HTTP behaviour suite, unchanged, on cachette/express.
behaviourOverMemory('memory store', expressTarget);
behaviourOverValkey('valkey store', expressTarget);
