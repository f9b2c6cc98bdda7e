import type * as z from 'zod';

const forms = new WeakMap<object, z.ZodType>();

/**
 * How a schema that zod cannot put into JSON Schema (a `z.custom` check written by hand) reads as
 * JSON Schema: a plain zod schema that takes the same values. Only the generated contract
 * documents (docs/openapi.json, docs/asyncapi.json) read it; validation never does.
 */
export const jsonForms = {
  add(schema: z.ZodType, form: z.ZodType): void {
    forms.set(schema, form);
  },
  get(schema: object): z.ZodType | undefined {
    return forms.get(schema);
  },
};
