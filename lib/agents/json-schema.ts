import * as z from 'zod';

/**
 * The JSON Schema (draft-07) of a zod schema, for an approval's `argsSchema`: hosts validate edited
 * arguments against it, and the server checks an answer's `approvedArgs` against it (a mismatch is
 * a 422 at `approved_args.<field>`). It describes what a caller sends (zod's input side), so a field
 * with a default is optional. A schema that JSON Schema cannot express (a date, a transform) throws.
 *
 * @example
 * ```ts
 * const Wire = z.object({ amount: z.number().max(100), account: z.enum(['main', 'savings']) });
 * return {
 *   pendingActions: [{ id: 'req_1', type: 'tool_approval', toolName: 'wire', args, argsSchema: toJsonSchema(Wire) }],
 * };
 * ```
 */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: 'draft-07', io: 'input' }) as Record<string, unknown>;
}
