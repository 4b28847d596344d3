/**
 * `schema` on getOrSet/wrap: any Standard Schema validator (Zod, Valibot, ArkType, … implement
 * `~standard.validate`, https://standardschema.dev), typed here structurally so that cachette
 * depends on none of them.
 */

/** The result of one validation: the (possibly transformed) value, or the issues found. */
export type StandardResult<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<{ readonly message: string }> };

/** A Standard Schema (v1) validator of values of type `Output`. */
export interface StandardSchema<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
  };
}

/** `schema`: an object with `~standard.validate`. */
export function checkSchema(schema: unknown, where: string): StandardSchema {
  const standard = (schema as Partial<StandardSchema> | null | undefined)?.['~standard'];
  if (typeof standard?.validate !== 'function')
    throw new TypeError(`cachette: ${where}: "schema" must be a Standard Schema validator (an object with ~standard.validate, as Zod, Valibot and ArkType schemas are)`);
  return schema as StandardSchema;
}
