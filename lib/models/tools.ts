import type { HostTool, ToolDefinition } from '../contract/index.ts';
import type { ModelTool, ToolSchema } from './types.ts';
import type { OfferedTool } from './wire.ts';

const EMPTY = { type: 'object', properties: {} };

/** A zod schema, as the loop uses it: parsed with, and described by its own `toJSONSchema` (no import of zod here). */
interface ZodLike {
  safeParse(
    value: unknown,
  ):
    | { success: true; data: unknown }
    | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  toJSONSchema(params: { target: 'draft-07'; io: 'input' }): Record<string, unknown>;
}

const isZod = (schema: ToolSchema | undefined): schema is ZodLike =>
  typeof (schema as { safeParse?: unknown } | undefined)?.safeParse === 'function';

/** A schema as JSON Schema: a zod schema converted, a JSON Schema as it is, none as any object. */
export function jsonSchemaOf(schema: ToolSchema | undefined): Record<string, unknown> {
  if (schema === undefined) return EMPTY;
  // As toJsonSchema does: what a caller sends, draft-07.
  return isZod(schema) ? schema.toJSONSchema({ target: 'draft-07', io: 'input' }) : schema;
}

/**
 * The tools offered to the model this turn: the host's (the context's actions, configured host tools;
 * in a silent decision, only the actions and `hold`) and the registration's tools the runtime offers
 * on this view, by name.
 */
export function offeredTools(host: HostTool[], backend: ToolDefinition[], own: ModelTool[]): OfferedTool[] {
  const mine = new Map(own.map((t) => [t.name, t]));
  return [
    ...host.map((t) => ({
      name: t.name,
      ...(t.description !== undefined && { description: t.description }),
      parameters: t.parameters,
    })),
    ...backend.flatMap((t) => {
      const tool = mine.get(t.name);
      if (!tool) return [];
      return [
        {
          name: tool.name,
          ...(tool.description !== undefined && { description: tool.description }),
          parameters: jsonSchemaOf(tool.parameters),
        },
      ];
    }),
  ];
}

/** Arguments the model wrote, parsed and checked against the schema: the value (zod's output), or why not. */
export async function checkArgs(
  schema: ToolSchema | undefined,
  text: string,
): Promise<{ ok: true; args: unknown } | { ok: false; error: string }> {
  let args: unknown;
  try {
    args = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return { ok: false, error: 'The arguments are not valid JSON.' };
  }
  return checkValue(schema, args);
}

/** A value checked against a schema: zod parses it (its output is used), a JSON Schema validates it. */
export async function checkValue(
  schema: ToolSchema | undefined,
  args: unknown,
): Promise<{ ok: true; args: unknown } | { ok: false; error: string }> {
  if (schema === undefined) return { ok: true, args };
  if (isZod(schema)) {
    const parsed = schema.safeParse(args);
    return parsed.success
      ? { ok: true, args: parsed.data }
      : {
          ok: false,
          error: parsed.error.issues
            .map((i) => `${i.path.map(String).join('.') || 'arguments'}: ${i.message}`)
            .join('; '),
        };
  }
  // The checker's own chunk (ajv), loaded on first use as everywhere else.
  const { compiled } = await import('../contract/json-schema-checker.ts');
  const validate = compiled(schema);
  if (validate(args)) return { ok: true, args };
  const error = (validate.errors ?? []).map(
    (e) => `${e.instancePath || 'arguments'} ${e.message ?? 'is invalid'}`,
  );
  return { ok: false, error: error.join('; ') || 'The arguments do not match the schema.' };
}
