import fc from 'fast-check';
import { HOST_CONTEXT_LIMITS } from '../../lib/contract/host-context.ts';

/** A JSON object as a host sends it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Ctx = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Short strings, unicode included (whole graphemes, so they survive JSON and storage unchanged). */
export const shortString = fc.string({ unit: 'grapheme', maxLength: 40 });
const nonEmpty = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });

/**
 * Keys a host chooses for its own data: camelCase, snake_case, with spaces, unicode, and names the
 * contract uses for its own fields, and names that are special to JavaScript objects.
 */
export const hostKey = fc.oneof(
  fc.constantFrom(
    'capturedAt',
    'captured_at',
    'dataUri',
    'data_uri',
    'mediaType',
    'media_type',
    'fileId',
    'file_id',
    'view',
    'page',
    'version',
    'host',
    'name',
    'kind',
    'state',
    'summary',
    'extensions',
    'attachments',
    'navigation',
    'actions',
    'parameters',
    'purpose',
    'type',
    'properties',
    'toString',
    'hasOwnProperty',
    '__proto__',
    'constructor',
    'CapturedAt',
    'VIEW',
    'selectedIssueId',
    'selected_issue_id',
    'open bugs',
    ' leading space',
    'ключ',
    '選択',
    'émoji 🎉',
    '',
  ),
  fc.tuple(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[A-Z][a-z]{0,7}$/)).map(([a, b]) => a + b),
  fc.tuple(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-z]{1,8}$/)).map(([a, b]) => `${a}_${b}`),
  fc.tuple(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-z]{1,8}$/)).map(([a, b]) => `${a} ${b}`),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

/** JSON numbers: small and safe integers, short decimals, and doubles of any size that JSON can carry. */
const jsonNumber = fc.oneof(
  fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
  fc.integer({ min: -10_000_000, max: 10_000_000 }).map((n) => n / 100),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
);
const jsonLeaf: fc.Arbitrary<Json> = fc.oneof(shortString, jsonNumber, fc.boolean(), fc.constant(null));

/** Host-owned JSON, a few levels deep, with {@link hostKey} keys at every level. */
export const hostJson: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    jsonLeaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(hostKey, tie('value'), { maxKeys: 3, noNullPrototype: true }),
  ),
})).value;

export const hostObject: fc.Arbitrary<{ [key: string]: Json }> = fc.dictionary(hostKey, hostJson, {
  maxKeys: 4,
  noNullPrototype: true,
});

const TOOL_CHARS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'] as const;
export const toolName = fc.oneof(
  { weight: 9, arbitrary: fc.string({ unit: fc.constantFrom(...TOOL_CHARS), minLength: 1, maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...TOOL_CHARS), minLength: 64, maxLength: 64 }) },
);

const propertySchema: fc.Arbitrary<Json> = fc.oneof(
  fc.record(
    { type: fc.constantFrom('string', 'integer', 'number', 'boolean'), description: shortString },
    { requiredKeys: ['type'], noNullPrototype: true },
  ),
  fc.record(
    {
      type: fc.constant('object'),
      properties: fc.dictionary(hostKey, fc.constant({ type: 'string' }), {
        maxKeys: 3,
        noNullPrototype: true,
      }),
    },
    { noNullPrototype: true },
  ),
);

/** An action's parameters: a JSON schema of type object whose property names are the host's. */
export const parameters = fc
  .dictionary(hostKey, propertySchema, { maxKeys: 4, noNullPrototype: true })
  .map((properties) => ({ type: 'object', properties }) as { [key: string]: Json });

export const action = fc.record(
  { name: toolName, description: shortString, parameters },
  { requiredKeys: ['name', 'parameters'], noNullPrototype: true },
);

const base64 = fc
  .uint8Array({ maxLength: 24 })
  .map((bytes) => `data:text/plain;base64,${Buffer.from(bytes).toString('base64')}`);
const url = fc.stringMatching(/^[a-z0-9/_-]{0,20}$/).map((path) => `https://example.com/x${path}`);
const fileId = fc.stringMatching(/^[0-9A-Z]{26}$/).map((s) => `file_${s}`);

/** An attachment with exactly one content field. */
export function attachment(withFileIds: boolean) {
  const content = fc.oneof(
    base64.map((data_uri) => ({ data_uri })),
    url.map((u) => ({ url: u })),
    shortString.map((text) => ({ text })),
    ...(withFileIds ? [fileId.map((file_id) => ({ file_id }))] : []),
  );
  const labels = fc.record(
    {
      kind: fc.constantFrom('image', 'document', 'text'),
      purpose: fc.constantFrom('reference', 'screenshot'),
      name: shortString,
      description: shortString,
      media_type: fc.constantFrom('text/plain', 'image/png', 'application/pdf'),
    },
    { requiredKeys: [], noNullPrototype: true },
  );
  return fc.tuple(labels, content).map(([l, c]) => ({ ...l, ...c }) as Ctx);
}

export const CURATED_PATHS = [['view', 'data'], ['view', 'state'], ['extensions']] as const;
const jsonLength = (v: unknown) => (v === undefined ? 0 : JSON.stringify(v).length);

/** view.data + view.state + extensions, as the contract counts them. */
export function curatedChars(ctx: Ctx): number {
  const view = isObject(ctx.view) ? ctx.view : {};
  return jsonLength(view.data) + jsonLength(view.state) + jsonLength(ctx.extensions);
}

/** A host_context that follows the contract, in snake_case. */
export function validContext({ fileIds = false }: { fileIds?: boolean } = {}): fc.Arbitrary<Ctx> {
  return fc
    .record(
      {
        version: fc.constant(1),
        host: fc.record(
          {
            name: shortString,
            kind: fc.constantFrom('browser', 'mobile', 'desktop', 'terminal', 'service', 'other'),
            version: shortString,
          },
          { requiredKeys: [], noNullPrototype: true },
        ),
        view: fc.record(
          { name: nonEmpty, description: shortString, data: hostObject, state: hostJson },
          { requiredKeys: ['name'], noNullPrototype: true },
        ),
        navigation: fc.array(
          fc.record(
            { name: nonEmpty, description: shortString },
            { requiredKeys: ['name'], noNullPrototype: true },
          ),
          { maxLength: 4 },
        ),
        actions: fc.uniqueArray(action, { selector: (a) => a.name, maxLength: 4 }),
        attachments: fc.array(attachment(fileIds), { maxLength: 3 }),
        background: fc.dictionary(
          hostKey,
          fc.record(
            { state: shortString, summary: hostJson },
            { requiredKeys: ['state'], noNullPrototype: true },
          ),
          { maxKeys: 3, noNullPrototype: true },
        ),
        captured_at: fc.oneof(
          fc
            .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
            .map((d) => d.toISOString()),
          shortString,
        ),
        extensions: hostObject,
      },
      { requiredKeys: [], noNullPrototype: true },
    )
    .filter((ctx) => curatedChars(ctx) <= HOST_CONTEXT_LIMITS.curatedChars) as fc.Arbitrary<Ctx>;
}

/** The contract's field names a host may spell in camelCase, with their snake_case form. */
const CAMEL: Record<string, string> = {
  captured_at: 'capturedAt',
  data_uri: 'dataUri',
  media_type: 'mediaType',
  file_id: 'fileId',
};

/** Renames `from` to `to` in place of the key, keeping the order of the other keys. */
function renameKey(obj: Record<string, unknown>, from: string, to: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k === from ? to : k, v]));
}

/**
 * The same context with the contract's own field names respelled: camelCase instead of snake_case
 * and `page` instead of `view`, each where `pick()` says so. Host-owned keys are left alone.
 */
export function respell(ctx: Ctx, pick: () => boolean): Ctx {
  let out: Ctx = { ...ctx };
  if ('captured_at' in out && pick()) out = renameKey(out, 'captured_at', CAMEL.captured_at as string);
  if ('view' in out && pick()) out = renameKey(out, 'view', 'page');
  if (Array.isArray(out.attachments)) {
    out.attachments = out.attachments.map((a: unknown) => {
      if (!isObject(a)) return a;
      let att = a;
      for (const [snake, camel] of Object.entries(CAMEL))
        if (snake in att && pick()) att = renameKey(att, snake, camel);
      return att;
    });
  }
  return out;
}

/** A coin from the bits of a number, for {@link respell}. */
export function coins(bits: number, all = false): () => boolean {
  let i = 0;
  return () => all || ((bits >>> (i++ % 31)) & 1) === 1;
}

// ---------------------------------------------------------------------------------------------
// Mutations

/** One change to a context; `apply` edits it in place and says whether the result must be rejected. */
export interface Mutation {
  label: string;
  apply(ctx: Ctx): boolean;
}

/** An entry of an array field, created (valid) when the field is absent; undefined when it is not an array. */
function entryOf(ctx: Ctx, field: 'navigation' | 'actions' | 'attachments', i: number): Ctx | undefined {
  if (ctx[field] === undefined || (Array.isArray(ctx[field]) && ctx[field].length === 0)) {
    const fresh =
      field === 'navigation'
        ? { name: 'home' }
        : field === 'actions'
          ? { name: 'fresh_action', parameters: { type: 'object' } }
          : { text: 'fresh' };
    ctx[field] = [fresh];
  }
  const list = ctx[field];
  if (!Array.isArray(list)) return undefined;
  const entry: unknown = list[i % list.length];
  return isObject(entry) ? entry : undefined;
}

/** An object field, created when absent; undefined when it is something else. */
function objectOf(ctx: Ctx, field: 'host' | 'view' | 'background'): Ctx | undefined {
  if (ctx[field] === undefined) ctx[field] = field === 'view' ? { name: 'fresh' } : {};
  const value = ctx[field];
  return isObject(value) ? value : undefined;
}

function backgroundEntry(ctx: Ctx, i: number): Ctx | undefined {
  const bg = objectOf(ctx, 'background');
  if (!bg) return undefined;
  const keys = Object.keys(bg);
  if (keys.length === 0) bg.somewhere = { state: 'idle' };
  const all = Object.keys(bg);
  const entry = bg[all[i % all.length] as string];
  return isObject(entry) ? entry : undefined;
}

/** Where an unknown field may be added, and which names are the contract's at that level. */
const LEVELS = {
  root: [
    'version',
    'host',
    'view',
    'page',
    'navigation',
    'actions',
    'attachments',
    'background',
    'captured_at',
    'extensions',
  ],
  host: ['name', 'kind', 'version'],
  view: ['name', 'description', 'data', 'state'],
  navigation: ['name', 'description'],
  actions: ['name', 'description', 'parameters'],
  attachments: ['kind', 'purpose', 'data_uri', 'url', 'text', 'file_id', 'name', 'description', 'media_type'],
  background: ['state', 'summary'],
} as const;
type Level = keyof typeof LEVELS;

function levelObject(ctx: Ctx, level: Level, i: number): Ctx | undefined {
  switch (level) {
    case 'root':
      return ctx;
    case 'host':
    case 'view':
      return objectOf(ctx, level);
    case 'navigation':
    case 'actions':
    case 'attachments':
      return entryOf(ctx, level, i);
    case 'background':
      return backgroundEntry(ctx, i);
  }
}

const snake = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

const unknownKey = fc.oneof(
  fc.constantFrom(
    'extra',
    'unknownField',
    'hostName',
    'viewName',
    'foo bar',
    'ünknown',
    'screenshot',
    'images',
  ),
  fc.stringMatching(/^[a-z][a-zA-Z_]{0,12}$/),
);

const unknownField: fc.Arbitrary<Mutation> = fc
  .record({
    level: fc.constantFrom(...(Object.keys(LEVELS) as Level[])),
    key: unknownKey,
    value: hostJson,
    i: fc.nat(),
  })
  .map(({ level, key, value, i }) => ({
    label: `unknown field ${key} at ${level}`,
    apply(ctx) {
      const known: readonly string[] = LEVELS[level];
      if (known.includes(snake(key)) || known.includes(key)) return false;
      const obj = levelObject(ctx, level, i);
      if (!obj || key in obj) return false;
      obj[key] = value;
      return true;
    },
  }));

interface WrongType {
  label: string;
  set(ctx: Ctx, i: number, bad: unknown): boolean;
}

/** Sets a top-level field to `wrong(bad)`, a value of the wrong type for it. */
function rootField(field: string, wrong: (bad: unknown) => unknown): WrongType {
  return {
    label: field,
    set: (c, _i, bad) => {
      c[field] = wrong(bad);
      return true;
    },
  };
}

const WRONG_TYPES: WrongType[] = [
  rootField('host', (bad) => (isObject(bad) ? 'host' : bad)),
  ...(['name', 'kind', 'version'] as const).map((f) => ({
    label: `host.${f}`,
    set: (c: Ctx, _i: number, bad: unknown) => {
      const o = objectOf(c, 'host');
      if (!o) return false;
      o[f] = typeof bad === 'string' ? 5 : bad;
      return true;
    },
  })),
  rootField('view', (bad) => (isObject(bad) ? [bad] : bad)),
  ...(['name', 'description'] as const).map((f) => ({
    label: `view.${f}`,
    set: (c: Ctx, _i: number, bad: unknown) => {
      const o = objectOf(c, 'view');
      if (!o) return false;
      o[f] = typeof bad === 'string' ? 5 : bad;
      return true;
    },
  })),
  {
    label: 'view.data',
    set: (c, _i, bad) => {
      const o = objectOf(c, 'view');
      if (!o) return false;
      o.data = isObject(bad) ? [bad] : bad;
      return true;
    },
  },
  ...(['navigation', 'actions', 'attachments'] as const).map((f) => ({
    label: f,
    set: (c: Ctx, _i: number, bad: unknown) => {
      c[f] = Array.isArray(bad) ? { list: bad } : bad;
      return true;
    },
  })),
  {
    label: 'navigation[].name',
    set: (c, i, bad) => {
      const e = entryOf(c, 'navigation', i);
      if (!e) return false;
      e.name = typeof bad === 'string' ? 5 : bad;
      return true;
    },
  },
  {
    label: 'actions[].description',
    set: (c, i, bad) => {
      const e = entryOf(c, 'actions', i);
      if (!e) return false;
      e.description = typeof bad === 'string' ? 5 : bad;
      return true;
    },
  },
  {
    label: 'attachments[].name',
    set: (c, i, bad) => {
      const e = entryOf(c, 'attachments', i);
      if (!e) return false;
      e.name = typeof bad === 'string' ? 5 : bad;
      return true;
    },
  },
  {
    label: 'background',
    set: (c, _i, bad) => {
      c.background = isObject(bad) ? [bad] : bad;
      return true;
    },
  },
  {
    label: 'background[].state',
    set: (c, i, bad) => {
      const e = backgroundEntry(c, i);
      if (!e) return false;
      e.state = typeof bad === 'string' ? 5 : bad;
      return true;
    },
  },
  rootField('captured_at', (bad) => (typeof bad === 'string' ? 5 : bad)),
  rootField('extensions', (bad) => (isObject(bad) ? [bad] : bad)),
];

/** A value that is not what the field wants; each setter turns it into a wrong one for its field. */
const badValue = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  shortString,
  fc.array(jsonLeaf, { maxLength: 2 }),
  fc.dictionary(fc.constantFrom('a', 'b'), jsonLeaf, { maxKeys: 2, noNullPrototype: true }),
);

const wrongType: fc.Arbitrary<Mutation> = fc
  .record({ which: fc.nat({ max: WRONG_TYPES.length - 1 }), bad: badValue, i: fc.nat() })
  .map(({ which, bad, i }) => {
    const w = WRONG_TYPES[which] as (typeof WRONG_TYPES)[number];
    return {
      label: `wrong type at ${w.label}: ${JSON.stringify(bad)}`,
      apply(ctx: Ctx) {
        // host.* and view.description tolerate nothing but strings; a wrong value is never a string.
        return w.set(ctx, i, bad);
      },
    };
  });

const dropViewName: fc.Arbitrary<Mutation> = fc.constant({
  label: 'view without name',
  apply(ctx: Ctx) {
    const view = objectOf(ctx, 'view');
    if (!view) return false;
    delete view.name;
    return true;
  },
});

const unknownEnum: fc.Arbitrary<Mutation> = fc
  .record({
    where: fc.constantFrom('host.kind', 'attachments[].kind', 'attachments[].purpose'),
    value: fc.constantFrom('tv', 'Browser', 'BROWSER', 'video', 'audio', 'thumbnail', 'Screenshot', ''),
    i: fc.nat(),
  })
  .map(({ where, value, i }) => ({
    label: `unknown ${where} ${JSON.stringify(value)}`,
    apply(ctx: Ctx) {
      if (where === 'host.kind') {
        const host = objectOf(ctx, 'host');
        if (!host) return false;
        host.kind = value;
        return true;
      }
      const e = entryOf(ctx, 'attachments', i);
      if (!e) return false;
      e[where === 'attachments[].kind' ? 'kind' : 'purpose'] = value;
      return true;
    },
  }));

const wrongVersion: fc.Arbitrary<Mutation> = fc
  .constantFrom<unknown>(2, 0, '1', 1.5, null, true, [1], { major: 1 })
  .map((v) => ({
    label: `version ${JSON.stringify(v)}`,
    apply(ctx: Ctx) {
      ctx.version = v;
      return true;
    },
  }));

/** An attachment's content fields, in both spellings. */
const CONTENT = ['data_uri', 'dataUri', 'url', 'text', 'file_id', 'fileId'];

const attachmentContent: fc.Arbitrary<Mutation> = fc
  .record({ two: fc.boolean(), i: fc.nat() })
  .map(({ two, i }) => ({
    label: two ? 'attachment with two contents' : 'attachment without content',
    apply(ctx: Ctx) {
      const e = entryOf(ctx, 'attachments', i);
      if (!e) return false;
      if (two) {
        if (e.url === undefined) e.url = 'https://example.com/x';
        else e.text = 'also';
        if (CONTENT.filter((f) => e[f] !== undefined).length < 2) e.text = 'also';
      } else {
        for (const f of CONTENT) delete e[f];
      }
      return true;
    },
  }));

const invalidActionName: fc.Arbitrary<Mutation> = fc
  .record({
    name: fc.oneof(
      fc.constantFrom('', 'has space', 'a.b', 'ü', 'a/b', 'x'.repeat(65), 'tab\tname'),
      fc.constant<unknown>(5),
      fc.constant<unknown>(null),
    ),
    duplicate: fc.boolean(),
    i: fc.nat(),
  })
  .map(({ name, duplicate, i }) => ({
    label: duplicate ? 'duplicate action name' : `invalid action name ${JSON.stringify(name)}`,
    apply(ctx: Ctx) {
      const e = entryOf(ctx, 'actions', i);
      if (!e || !Array.isArray(ctx.actions)) return false;
      if (duplicate) {
        ctx.actions.push(structuredClone(e));
        return true;
      }
      e.name = name;
      return true;
    },
  }));

const badParameters: fc.Arbitrary<Mutation> = fc
  .record({
    parameters: fc.constantFrom<unknown>(
      { type: 'string' },
      { type: 'array', items: {} },
      { properties: {} },
      { type: 'object', properties: 5 },
      { type: 'object', required: 'x' },
      'object',
      [],
      null,
      undefined,
    ),
    i: fc.nat(),
  })
  .map(({ parameters: p, i }) => ({
    label: `parameters ${JSON.stringify(p)}`,
    apply(ctx: Ctx) {
      const e = entryOf(ctx, 'actions', i);
      if (!e) return false;
      if (p === undefined) delete e.parameters;
      else e.parameters = p;
      return true;
    },
  }));

const viewAndPage: fc.Arbitrary<Mutation> = fc.constant({
  label: 'both view and page',
  apply(ctx: Ctx) {
    if (!('view' in ctx)) ctx.view = { name: 'v' };
    ctx.page = { name: 'p' };
    return true;
  },
});

const bothCapturedAt: fc.Arbitrary<Mutation> = fc.constant({
  label: 'both captured_at and capturedAt',
  apply(ctx: Ctx) {
    ctx.captured_at = '2026-01-01T00:00:00Z';
    ctx.capturedAt = '2026-01-01T00:00:00Z';
    return true;
  },
});

/** Respells the contract's field names: a context that stays valid when it was. */
const respelling: fc.Arbitrary<Mutation> = fc.nat().map((bits) => ({
  label: 'camelCase spelling',
  apply(ctx: Ctx) {
    if ('page' in ctx || 'capturedAt' in ctx) return false;
    const respelled = respell(ctx, coins(bits));
    for (const k of Object.keys(ctx)) delete ctx[k];
    Object.assign(ctx, respelled);
    return false;
  },
}));

// ---------------------------------------------------------------------------------------------
// Limits

export interface Oversized {
  ctx: Ctx;
  /** The field whose limit is at stake, as the first segments of the rejection's path. */
  paths: (readonly string[])[];
  over: boolean;
}

const countLimits = ['navigation', 'actions', 'attachments'] as const;

/** A context at, just over or far over one of the contract's limits. */
export function oversized(base: fc.Arbitrary<Ctx>): fc.Arbitrary<Oversized> {
  const count = fc
    .record({
      base,
      field: fc.constantFrom(...countLimits),
      delta: fc.oneof(fc.integer({ min: -1, max: 2 }), fc.integer({ min: 3, max: 150 })),
    })
    .map(({ base: ctx, field, delta }) => {
      const n = HOST_CONTEXT_LIMITS[field] + delta;
      const out = structuredClone(ctx);
      out[field] = Array.from({ length: n }, (_, i) =>
        field === 'navigation'
          ? { name: `place${i}` }
          : field === 'actions'
            ? { name: `action_${i}`, parameters: { type: 'object' } }
            : { kind: 'text', text: `note ${i}` },
      );
      return { ctx: out, paths: [[field]], over: delta > 0 };
    });
  const curated = fc
    .record({
      base,
      where: fc.constantFrom(...CURATED_PATHS),
      delta: fc.oneof(fc.integer({ min: -2, max: 2 }), fc.integer({ min: 3, max: 40_000 })),
    })
    .map(({ base: ctx, where, delta }) => {
      const out = structuredClone(ctx);
      const view = isObject(out.view) ? out.view : { name: 'padded' };
      out.view = view;
      const padded = (pad: string) => ({ pad });
      const target = HOST_CONTEXT_LIMITS.curatedChars + delta;
      const put = (value: unknown) => {
        if (where[0] === 'extensions') out.extensions = value;
        else if (where[1] === 'data') view.data = value;
        else view.state = value;
      };
      put(padded(''));
      const rest = curatedChars(out);
      put(padded('x'.repeat(Math.max(0, target - rest))));
      return {
        ctx: out,
        paths: CURATED_PATHS.map((p) => [...p]),
        over: curatedChars(out) > HOST_CONTEXT_LIMITS.curatedChars,
      };
    });
  return fc.oneof(count, curated);
}

// ---------------------------------------------------------------------------------------------
// Mutated contexts

export interface Mutated {
  ctx: Ctx;
  labels: string[];
  /** A mutation was applied that the contract rejects. */
  mustReject: boolean;
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  unknownField,
  wrongType,
  dropViewName,
  unknownEnum,
  wrongVersion,
  attachmentContent,
  invalidActionName,
  badParameters,
  viewAndPage,
  bothCapturedAt,
  respelling,
);

/** A valid context with one to three mutations applied (and, sometimes, a limit exceeded). */
export function mutatedContext(base: fc.Arbitrary<Ctx>): fc.Arbitrary<Mutated> {
  return fc
    .record({
      start: fc.oneof(
        { weight: 4, arbitrary: base.map((ctx) => ({ ctx, over: false })) },
        { weight: 1, arbitrary: oversized(base) },
      ),
      mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
    })
    .map(({ start, mutations }) => {
      const ctx = structuredClone(start.ctx);
      let mustReject = start.over;
      const labels = start.over ? ['over a limit'] : [];
      for (const m of mutations) {
        if (m.apply(ctx)) mustReject = true;
        labels.push(m.label);
      }
      return { ctx, labels, mustReject };
    });
}

/** Anything at all where a context belongs: JSON of every shape, including non-objects. */
export const anyJson = fc.jsonValue({ maxDepth: 3 });

/**
 * JSON as an endpoint may write it, kept as entries so that a key may be `__proto__` (which an object
 * literal or `JSON.parse` into a plain object would not keep as data): {@link jsonText} writes it.
 */
export type RawJson = null | boolean | number | string | RawJson[] | { entries: [string, RawJson][] };

/** The text of a {@link RawJson}, each key as it was chosen. */
export const jsonText = (value: RawJson): string => {
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
};

/** Keys special to JavaScript objects and arrays, and the names the model wires use. */
const prototypeKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'length',
);
const wireKey = fc.oneof(
  prototypeKey,
  fc.constantFrom('index', 'id', 'type', 'call_id', 'name', 'arguments', 'content', 'delta', 'choices'),
  fc.constantFrom('tool_calls', 'function', 'usage', 'item', 'response', 'error', 'message', 'model'),
  shortString,
);

/** A scalar as hostile as an endpoint can make it: odd numbers, prototype names, long strings, nothing. */
const hostileScalar: fc.Arbitrary<RawJson> = fc.oneof(
  fc.constantFrom<RawJson>(null, true, false, 0, -1, 1.5, 127, 128, 1e9, -0, Number.MAX_SAFE_INTEGER + 2),
  prototypeKey,
  shortString,
  fc.integer({ min: -3, max: 200 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ minLength: 200, maxLength: 3000 }),
);

/** Any JSON value, a few levels deep, with {@link wireKey} keys. */
export const hostileJson: fc.Arbitrary<RawJson> = fc.letrec<{ value: RawJson }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileScalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(wireKey, tie('value')), { maxLength: 4 }).map((entries) => ({ entries })),
  ),
})).value;

/** An object with some fields left out (`undefined`) and a few hostile ones added. */
const wireObject = (fields: [string, fc.Arbitrary<RawJson | undefined>][]): fc.Arbitrary<RawJson> =>
  fc
    .tuple(
      fc.tuple(...fields.map(([key, value]) => value.map((v) => [key, v] as const))),
      fc.array(fc.tuple(prototypeKey, hostileJson), { maxLength: 2 }),
    )
    .map(([own, extra]) => ({
      entries: [...own.flatMap(([k, v]): [string, RawJson][] => (v === undefined ? [] : [[k, v]])), ...extra],
    }));

/** A value that is mostly right for its field, sometimes anything. */
const mostly = <T extends RawJson>(right: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 3, arbitrary: right }, { weight: 1, arbitrary: hostileJson }, fc.constant(undefined));

const callIndex = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 2 }) },
  { weight: 2, arbitrary: hostileScalar },
);

/** A Chat Completions chunk, near the wire's shape with hostile fields, or any JSON at all. */
export const hostileChatChunk: fc.Arbitrary<RawJson> = fc.oneof(
  {
    weight: 4,
    arbitrary: wireObject([
      [
        'choices',
        mostly(
          fc.array(
            wireObject([
              ['index', mostly(fc.constant(0))],
              [
                'delta',
                mostly(
                  wireObject([
                    ['content', mostly(shortString)],
                    [
                      'tool_calls',
                      mostly(
                        fc.array(
                          wireObject([
                            ['index', callIndex],
                            ['id', mostly(fc.constantFrom('call_1', 'call_2', '__proto__'))],
                            ['type', mostly(fc.constant('function'))],
                            [
                              'function',
                              mostly(
                                wireObject([
                                  ['name', mostly(fc.constantFrom('lookup', 'ask', '__proto__', ''))],
                                  ['arguments', mostly(fc.constantFrom('{"q":', '"x"}', '{}', ''))],
                                ]),
                              ),
                            ],
                          ]),
                          { maxLength: 3 },
                        ),
                      ),
                    ],
                  ]),
                ),
              ],
            ]),
            { maxLength: 2 },
          ),
        ),
      ],
      [
        'usage',
        mostly(
          wireObject([
            ['prompt_tokens', mostly(fc.nat(1000))],
            ['completion_tokens', mostly(fc.nat(1000))],
            ['total_tokens', mostly(fc.nat(2000))],
          ]),
        ),
      ],
      ['model', mostly(shortString)],
    ]),
  },
  { weight: 1, arbitrary: hostileJson },
);

/** A Responses API event, near the wire's shape with hostile fields, or any JSON at all. */
export const hostileResponsesEvent: fc.Arbitrary<RawJson> = fc.oneof(
  {
    weight: 4,
    arbitrary: wireObject([
      [
        'type',
        mostly(
          fc.constantFrom(
            'response.output_text.delta',
            'response.output_item.done',
            'response.output_item.done',
            'response.output_item.done',
            'response.completed',
            'response.incomplete',
            'response.failed',
            'error',
            'response.created',
            '__proto__',
          ),
        ),
      ],
      ['delta', mostly(shortString)],
      [
        'item',
        mostly(
          wireObject([
            [
              'type',
              mostly(fc.constantFrom('function_call', 'function_call', 'message', 'reasoning', '__proto__')),
            ],
            ['call_id', mostly(fc.constantFrom('call_1', '', '__proto__'))],
            ['name', mostly(fc.constantFrom('lookup', '', 'constructor'))],
            ['arguments', mostly(fc.constantFrom('{}', '{"q":"x"}', 'not json'))],
          ]),
        ),
      ],
      [
        'response',
        mostly(
          wireObject([
            ['model', mostly(shortString)],
            [
              'usage',
              mostly(
                wireObject([
                  ['input_tokens', mostly(fc.nat(1000))],
                  ['output_tokens', mostly(fc.nat(1000))],
                  ['total_tokens', mostly(fc.nat(2000))],
                ]),
              ),
            ],
            ['error', mostly(wireObject([['message', mostly(shortString)]]))],
          ]),
        ),
      ],
      ['message', mostly(shortString)],
    ]),
  },
  { weight: 1, arbitrary: hostileJson },
);

/**
 * A whole answer of a model endpoint: mostly an event stream of the wire's chunks (each written as
 * its JSON, sometimes a line that is not JSON, with or without `[DONE]`), sometimes another content
 * type or an error status with a hostile JSON body.
 */
export const hostileModelAnswer = (chunk: fc.Arbitrary<RawJson>) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(
          fc.array(fc.oneof({ weight: 9, arbitrary: chunk.map(jsonText) }, fc.constant('{not json')), {
            maxLength: 8,
          }),
          fc.boolean(),
        )
        .map(([lines, done]) => ({
          status: 200,
          type: 'text/event-stream',
          body: `${lines.map((l) => `data: ${l}\n\n`).join('')}${done ? 'data: [DONE]\n\n' : ''}`,
        })),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        status: fc.constant(200),
        type: fc.constantFrom('text/html', 'application/json', 'text/plain', ''),
        body: hostileJson.map(jsonText),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        status: fc.constantFrom(400, 401, 404, 422, 500),
        type: fc.constant('application/json'),
        body: hostileJson.map((error) => jsonText({ entries: [['error', error]] })),
      }),
    },
  );
