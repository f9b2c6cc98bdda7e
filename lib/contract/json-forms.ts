import * as z from 'zod';

/**
 * How a schema that zod cannot put into JSON Schema (a `z.custom` check written by hand) reads as
 * JSON Schema: a plain zod schema that takes the same values. Only the generated contract
 * documents (docs/openapi.json, docs/asyncapi.json) read it; validation never does.
 */
export const jsonForms = z.registry<{ as: z.ZodType }>();
