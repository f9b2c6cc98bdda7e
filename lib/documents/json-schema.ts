import * as z from 'zod';
import { jsonForms } from '../contract/json-forms.ts';

/** A JSON Schema (2020-12) object, as the documents embed it. */
export type JsonSchema = Record<string, unknown>;

/** Marks a custom schema without a form while the document is generated. */
const NO_FORM = 'x-switchboard-no-json-form';

const typeOf = (schema: unknown) => (schema as { _zod: { def: { type: string } } })._zod.def.type;

/**
 * The JSON Schema of what a zod schema takes (its input: defaults make fields optional, coerced
 * query values are numbers), without `$schema` (the documents name the dialect once). A hand-written
 * check (`z.custom`) reads as the schema {@link jsonForms} gives it; one without is an error, so a
 * new custom field cannot reach the documents as "anything".
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override(ctx) {
      if (typeOf(ctx.zodSchema) !== 'custom') return;
      const form = jsonForms.get(ctx.zodSchema);
      // A refined custom schema is read after the one it refines: its form replaces the mark.
      delete ctx.jsonSchema[NO_FORM];
      if (form) Object.assign(ctx.jsonSchema, jsonSchemaOf(form, io));
      else ctx.jsonSchema[NO_FORM] = true;
    },
  }) as JsonSchema;
  if (JSON.stringify(json).includes(`"${NO_FORM}"`))
    throw new Error('A z.custom schema of the contract has no JSON form: add one to jsonForms.');
  return json;
}

/**
 * A frame's schema: a body schema (a JSON object schema) with more fields, such as `action` or the
 * ids the HTTP route takes in its path. The body's own `required` and `additionalProperties` stay.
 */
export function withFields(
  body: JsonSchema,
  fields: Record<string, JsonSchema>,
  required: string[] = Object.keys(fields),
): JsonSchema {
  const properties = { ...fields, ...(body.properties as Record<string, JsonSchema>) };
  const all = [...required, ...((body.required as string[] | undefined) ?? [])];
  return { ...body, properties, required: [...new Set(all)] };
}
