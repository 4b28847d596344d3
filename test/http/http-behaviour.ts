import type { SuiteApi } from '../support/suite-api.ts';
import { bodyScenarios } from './behaviour/bodies.ts';
import { collapsingScenarios } from './behaviour/collapsing.ts';
import { credentialScenarios } from './behaviour/credentials.ts';
import { freshnessScenarios } from './behaviour/freshness.ts';
import { scenarioFor, type HttpTarget } from './behaviour/harness.ts';
import { invalidationScenarios } from './behaviour/invalidation.ts';
import { keyAndStorageScenarios } from './behaviour/keys-and-storage.ts';
import { negotiationScenarios } from './behaviour/negotiation.ts';
import { originFailureScenarios } from './behaviour/origin-failures.ts';
import { purgeScenarios } from './behaviour/purge.ts';
import { rangeScenarios } from './behaviour/ranges.ts';
import { remainingRuleScenarios } from './behaviour/remaining-rules.ts';
import { storedEntryScenarios } from './behaviour/stored-entries.ts';
import { staleScenarios } from './behaviour/stale.ts';
import { targetedFieldScenarios } from './behaviour/targeted-fields.ts';
import { validationScenarios } from './behaviour/validation.ts';

export type { HttpTarget, RunningTarget, TestCacheOptions } from './behaviour/harness.ts';

/**
 * The HTTP cache's behaviour, black-box: each test scripts an origin, puts the target's cache
 * in front of it, and asserts what the client got (status, body, Age, Cache-Status) and how
 * many requests reached the origin. Time is a fake clock shared by cache and origin: no test
 * sleeps for staleness. The scenarios live in behaviour/, one file per group of rules.
 */
export function httpBehaviourSuite(t: SuiteApi, target: HttpTarget): void {
  const scenario = scenarioFor(t, target);

  t.describe(`http cache behaviour: ${target.name}`, () => {
    keyAndStorageScenarios(scenario);
    freshnessScenarios(scenario);
    credentialScenarios(scenario);
    validationScenarios(scenario);
    staleScenarios(scenario);
    invalidationScenarios(scenario);
    bodyScenarios(scenario);
    collapsingScenarios(scenario);
    targetedFieldScenarios(scenario);
    rangeScenarios(scenario);
    negotiationScenarios(scenario);
    remainingRuleScenarios(scenario);
    originFailureScenarios(scenario);
    purgeScenarios(scenario);
    storedEntryScenarios(scenario);
  });
}
