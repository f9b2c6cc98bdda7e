import * as z from 'zod';
import { AttachmentSchema } from './attachments.ts';
import { jsonForms } from './json-forms.ts';
import { objectSchemaProblem } from './json-schema.ts';
import { contractShapes, shapeOf } from './normalize.ts';

/** The host contract version this runtime speaks. */
export const HOST_CONTEXT_VERSION = 1;

/** Limits of the host contract. */
export const HOST_CONTEXT_LIMITS = {
  /** view.data + view.state + extensions, as JSON. */
  curatedChars: 32_000,
  /**
   * The whole context without its attachments, as UTF-8 JSON: the runtime's own bound, so that the
   * session that stores it stays far below DynamoDB's 400 KB item limit.
   */
  totalBytes: 200_000,
  navigation: 50,
  actions: 32,
  attachments: 16,
} as const;

/** Tool names follow the model providers' rules, so every action can become a tool. */
export const ToolNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"');

const HostKindSchema = z.enum(['browser', 'mobile', 'desktop', 'terminal', 'service', 'other']);

/** A JSON object (not null, not an array). */
export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A host-owned JSON object, checked but never rebuilt: rebuilding would lose keys such as
 * `__proto__`, and the host's keys are passed through verbatim.
 */
export const jsonObject = z.custom<Record<string, unknown>>(isPlainObject, 'Expected an object');
jsonForms.add(jsonObject, z.record(z.string(), z.unknown()));

const BackgroundEntrySchema = z
  .object({ state: z.string().max(200), summary: z.unknown().optional() })
  .strict();

/** `background` keeps the host's names as they are; each entry is `{state, summary}`. */
const BackgroundSchema: z.ZodType<Record<string, { state: string; summary?: unknown }>> = z
  .custom<Record<string, { state: string; summary?: unknown }>>(isPlainObject, 'Expected an object')
  .superRefine((background, ctx) => {
    for (const [name, entry] of Object.entries(background)) {
      const parsed = BackgroundEntrySchema.safeParse(entry);
      for (const issue of parsed.error?.issues ?? []) {
        const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [k]) : [[]];
        for (const key of keys)
          ctx.addIssue({
            code: 'custom',
            path: [name, ...issue.path, ...key] as PropertyKey[],
            message: issue.code === 'unrecognized_keys' ? `Unknown field "${key[0]}".` : issue.message,
          });
      }
    }
  });
contractShapes.add(BackgroundSchema, { shape: { kind: 'map', of: shapeOf(BackgroundEntrySchema) } });
jsonForms.add(BackgroundSchema, z.record(z.string(), BackgroundEntrySchema));

/** An action the host performs when the agent calls it: it becomes a host tool. */
export const HostActionSchema = z
  .object({
    name: ToolNameSchema,
    description: z.string().max(4_000).optional(),
    parameters: z.unknown().superRefine((schema, ctx) => {
      const problem = objectSchemaProblem(schema);
      if (problem) ctx.addIssue({ code: 'custom', message: `parameters ${problem}` });
    }),
  })
  .strict();
export type HostAction = z.infer<typeof HostActionSchema>;

const jsonLength = (value: unknown) => (value === undefined ? 0 : JSON.stringify(value).length);

/** host_context, in its normalised snake_case form. */
export const HostContextSchema = z
  .object({
    version: z
      .unknown()
      .optional()
      .transform((v, ctx) => {
        if (v === undefined || v === HOST_CONTEXT_VERSION) return HOST_CONTEXT_VERSION;
        ctx.addIssue({
          code: 'custom',
          message: `version ${JSON.stringify(v)} is not supported: this runtime speaks host contract version ${HOST_CONTEXT_VERSION}`,
        });
        return z.NEVER;
      }),
    host: z
      .object({
        name: z.string().max(200).optional(),
        kind: HostKindSchema.optional(),
        version: z.string().max(100).optional(),
      })
      .strict()
      .optional(),
    view: z
      .object({
        name: z.string().min(1).max(200),
        description: z.string().max(4_000).optional(),
        data: jsonObject.optional(),
        state: z.unknown().optional(),
      })
      .strict()
      .optional(),
    navigation: z
      .array(
        z
          .object({ name: z.string().min(1).max(200), description: z.string().max(2_000).optional() })
          .strict(),
      )
      .max(HOST_CONTEXT_LIMITS.navigation)
      .optional(),
    actions: z
      .array(HostActionSchema)
      .max(HOST_CONTEXT_LIMITS.actions)
      .superRefine((actions, ctx) => {
        const seen = new Set<string>();
        actions.forEach((action, i) => {
          if (seen.has(action.name))
            ctx.addIssue({
              code: 'custom',
              path: [i, 'name'],
              message: `"${action.name}" is declared twice`,
            });
          seen.add(action.name);
        });
      })
      .optional(),
    attachments: z.array(AttachmentSchema).max(HOST_CONTEXT_LIMITS.attachments).optional(),
    background: BackgroundSchema.optional(),
    captured_at: z.string().max(100).optional(),
    extensions: jsonObject.optional(),
  })
  .strict()
  .superRefine((context, ctx) => {
    const parts = [
      { path: ['view', 'data'], chars: jsonLength(context.view?.data) },
      { path: ['view', 'state'], chars: jsonLength(context.view?.state) },
      { path: ['extensions'], chars: jsonLength(context.extensions) },
    ];
    const total = parts.reduce((sum, p) => sum + p.chars, 0);
    const { attachments: _attachments, ...rest } = context;
    const fields = Object.entries(rest).map(([key, value]) => ({
      path: [key],
      bytes: Buffer.byteLength(JSON.stringify(value) ?? ''),
    }));
    const bytes = fields.reduce((sum, f) => sum + f.bytes, 0);
    if (bytes > HOST_CONTEXT_LIMITS.totalBytes) {
      const largest = fields.reduce((a, b) => (b.bytes > a.bytes ? b : a));
      ctx.addIssue({
        code: 'custom',
        path: largest.path,
        message: `host_context without attachments is ${bytes} bytes of JSON; at most ${HOST_CONTEXT_LIMITS.totalBytes} are allowed`,
      });
    }
    if (total > HOST_CONTEXT_LIMITS.curatedChars) {
      const largest = parts.reduce((a, b) => (b.chars > a.chars ? b : a));
      ctx.addIssue({
        code: 'custom',
        path: largest.path,
        message: `view.data, view.state and extensions total ${total} characters of JSON; at most ${HOST_CONTEXT_LIMITS.curatedChars} are allowed`,
      });
    }
  });
// `page` is an alias of `view` (what the host contract called it first).
contractShapes.add(HostContextSchema, { aliases: { page: 'view' } });
export type HostContext = z.infer<typeof HostContextSchema>;
