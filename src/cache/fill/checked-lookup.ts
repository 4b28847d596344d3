import type { Lookup, TaggedLookup } from '../roles/reads.ts';
import type { FillRequest } from './fill-request.ts';
import type { StandardResult } from './schema.ts';

/** Told of a stored value refused by the call's `version` or `schema`. */
export type OnInvalid = (key: string, reason: 'version' | 'schema', issues: ReadonlyArray<{ readonly message: string }> | undefined) => void;

/**
 * `lookup` as the call may use it: a value stored under another `version`, or refused by its
 * `schema`, becomes nothing found (told to `onInvalid` when given: a later look at the same
 * entry is not counted again); what the schema returns replaces the stored value.
 */
export function checkedLookup<T>(request: FillRequest<T>, lookup: TaggedLookup<T>, onInvalid: OnInvalid | undefined): TaggedLookup<T> | Promise<TaggedLookup<T>> {
  const { found } = lookup;
  const { schema, version } = request;
  if (found === undefined || (schema === undefined && version === undefined)) return lookup;
  if (version !== undefined && found.version !== version) {
    onInvalid?.(request.key, 'version', undefined);
    return withFound(lookup, undefined);
  }
  if (schema === undefined) return lookup;
  const use = (result: StandardResult<unknown>): TaggedLookup<T> => {
    if (!result.issues) return withFound(lookup, { ...found, value: result.value as T });
    onInvalid?.(request.key, 'schema', result.issues);
    return withFound(lookup, undefined);
  };
  const validated = schema['~standard'].validate(found.value);
  return validated instanceof Promise ? validated.then(use) : use(validated);
}

/** `lookup` with `found` in place of what it found (its snapshot still taken only when asked for). */
function withFound<T>(lookup: TaggedLookup<T>, found: Lookup<T>): TaggedLookup<T> {
  return {
    found,
    get snapshot() {
      return lookup.snapshot;
    },
    failed: lookup.failed,
  };
}
