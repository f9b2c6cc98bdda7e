import { readFileSync } from 'node:fs';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ALARM_THRESHOLDS } from '../../infra/monitoring.ts';
import { FUNCTION_PERMISSIONS, type FunctionName } from '../../lib/config/index.ts';
import {
  customAuthorisers,
  environmentOf,
  idsOfType,
  newStack,
  type Resources,
  SYNTH_TIMEOUT_MS,
  synthSwitchboard,
} from './template-helpers.ts';

/**
 * The tables of docs/deployment.md and docs/operations.md that describe the synthesised stack (its
 * functions, their environment, the alarms, cdk-nag's and cfn-guard's acknowledgments), checked
 * against the template of each variant: a row that goes stale fails here.
 */

const read = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');
const deployment = read('deployment.md');
const operations = read('operations.md');

/** A Markdown line's cells; a `|` inside backticks is part of its cell. */
function cellsOf(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let code = false;
  for (const ch of line.trim().slice(1, -1)) {
    if (ch === '`') code = !code;
    if (ch === '|' && !code) {
      cells.push(cell.trim());
      cell = '';
    } else {
      cell += ch;
    }
  }
  cells.push(cell.trim());
  return cells;
}

/** The rows (cells, header and rule left out) of the table whose header line starts with `header`. */
function table(doc: string, header: string, occurrence = 0): string[][] {
  const lines = doc.split('\n');
  const starts = lines.flatMap((line, i) => (line.trim().startsWith(header) ? [i] : []));
  const start = starts[occurrence];
  if (start === undefined) throw new Error(`no table starts with "${header}"`);
  const rows: string[][] = [];
  for (let i = start + 2; lines[i]?.trim().startsWith('|'); i++) rows.push(cellsOf(lines[i] as string));
  return rows;
}

/** The names in backticks of a cell: `` `http`, `ws` `` → http, ws. */
const codeNames = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);

type Variant = 'auth' | 'anonymous' | 'custom';
const VARIANTS: readonly Variant[] = ['auth', 'anonymous', 'custom'];

/** Each entry point's logical id stem in the template. */
const FUNCTION_IDS: Record<string, string> = {
  http: 'SwitchboardHttpFunction',
  ws: 'SwitchboardWebSocketFunction',
  worker: 'SwitchboardWorkerFunction',
  sweep: 'SwitchboardSweepFunction',
  authorizer: 'SwitchboardAuthorizerFunction',
  agui: 'SwitchboardAgUiFunction',
};

interface Synthesised {
  readonly resources: Resources;
  readonly root: IConstruct;
}

const stacks = {} as Record<Variant, Synthesised>;

/** A team's stack with both custom authorisers (and the account role and the audit trail, whose acknowledgments they bring). */
function customAuthorisersStack(): Synthesised {
  const stack = newStack();
  customAuthorisers(stack);
  return { resources: Template.fromStack(stack).toJSON().Resources as Resources, root: stack };
}

beforeAll(() => {
  const auth = synthSwitchboard();
  const anonymous = synthSwitchboard({ anonymous: true });
  stacks.auth = { resources: auth.resources, root: auth.stack };
  stacks.anonymous = { resources: anonymous.resources, root: anonymous.stack };
  stacks.custom = customAuthorisersStack();
}, SYNTH_TIMEOUT_MS);

/** The entry points whose function a template has, with their logical ids. */
function functionsOf(resources: Resources): Map<string, string> {
  const ids = idsOfType(resources, 'AWS::Lambda::Function');
  const found = new Map<string, string>();
  for (const [name, stem] of Object.entries(FUNCTION_IDS)) {
    const id = ids.find((i) => i.startsWith(stem) && /^[0-9A-F]{8}$/.test(i.slice(stem.length)));
    if (id) found.set(name, id);
  }
  return found;
}

describe('docs/deployment.md, the functions of each variant', () => {
  const rows = table(deployment, '| function ');
  const column = { auth: 2, anonymous: 3, custom: 4 } as const;

  it.each(VARIANTS)('lists the functions the %s variant has', (variant) => {
    const documented = rows
      .filter((row) => row[column[variant]] === 'yes')
      .map((row) => codeNames(row[0] as string)[0]);
    expect([...functionsOf(stacks[variant].resources).keys()].sort()).toEqual(documented.sort());
    // No function of the stack's own is missing from the table.
    const own = idsOfType(stacks[variant].resources, 'AWS::Lambda::Function').filter((id) =>
      /^Switchboard[A-Za-z]+Function[0-9A-F]{8}$/.test(id),
    );
    expect(own).toHaveLength(documented.length);
  });

  it('says how many functions each variant has, as the table does', () => {
    const count = (variant: Variant) => functionsOf(stacks[variant].resources).size;
    expect(deployment).toContain(
      `(${count('auth')} with \`auth\`, ${count('anonymous')} with \`allowAnonymous\`, ${count('custom')} with custom authorisers)`,
    );
  });

  it("gives each function's timeout", () => {
    for (const row of rows) {
      const name = codeNames(row[0] as string)[0] as string;
      const id = functionsOf(stacks.auth.resources).get(name) as string;
      expect(`${stacks.auth.resources[id]?.Properties?.Timeout} s`, name).toBe(
        /^\d+ s/.exec(row[1] as string)?.[0],
      );
    }
  });
});

describe("docs/deployment.md, the functions' environment", () => {
  const rows = table(deployment, '| variable ');
  /** Whether a row's "when" holds in a variant (the test stacks of `synthSwitchboard` trace; every one has a bus). */
  const holds = (when: string, variant: Variant) =>
    ({
      always: true,
      'with `tracing`': variant !== 'custom',
      // The test stacks trace to X-Ray (`tracing: true`): no ratio, no headers secret.
      'with `tracing.sampleRatio`': false,
      'with `tracing.headersSecret`': false,
      'with an event bus': true,
      'with `auth`': variant === 'auth',
      'with `allowAnonymous`': variant === 'anonymous',
    })[when];

  it('names only conditions the test knows', () => {
    for (const row of rows) expect(holds(row[2] as string, 'auth'), row[2]).toBeTypeOf('boolean');
  });

  it.each(VARIANTS)("matches every function's variables in the %s variant", (variant) => {
    const { resources } = stacks[variant];
    for (const [name, id] of functionsOf(resources)) {
      const documented = rows
        .filter((row) => {
          const on = row[1] as string;
          return (
            (on === 'every function' || codeNames(on).includes(name)) && holds(row[2] as string, variant)
          );
        })
        .map((row) => codeNames(row[0] as string)[0]);
      expect(Object.keys(environmentOf(resources, id)).sort(), name).toEqual(documented.sort());
    }
  });
});

describe('docs/operations.md, the alarms', () => {
  const rows = table(operations, '| Alarm (threshold)');
  const alarmNames = (resources: Resources) =>
    idsOfType(resources, 'AWS::CloudWatch::Alarm').map((id) => /Monitoring(\w+?)Alarm/.exec(id)?.[1]);
  const only = (row: string[]) => /Only with built-in `auth`/.test(row[1] as string);

  it.each(VARIANTS)('lists the alarms of the %s variant', (variant) => {
    const documented = rows
      .filter((row) => variant === 'auth' || !only(row))
      .filter(
        (row) => variant !== 'custom' || !/Only where the stack has the AG-UI function/.test(row[1] ?? ''),
      )
      .map((row) => codeNames(row[0] as string)[0]);
    expect(alarmNames(stacks[variant].resources).sort()).toEqual(documented.sort());
  });

  it("gives each alarm's threshold setting and its default", () => {
    for (const row of rows) {
      const [name, setting] = codeNames(row[0] as string);
      const threshold = /, ([\d.]+)/.exec(row[0] as string)?.[1];
      if (setting && setting in DEFAULT_ALARM_THRESHOLDS) {
        expect(DEFAULT_ALARM_THRESHOLDS[setting as keyof typeof DEFAULT_ALARM_THRESHOLDS], name).toBe(
          Number(threshold),
        );
      } else {
        expect(row[0], name).toMatch(/fixed\)$/);
      }
    }
  });
});

/** Every rule id acknowledged to cdk-nag in a construct tree, without its granular part (`[Resource::…]`). */
function nagAcknowledged(root: IConstruct): Set<string> {
  const ids = new Set<string>();
  for (const c of root.node.findAll()) {
    for (const entry of c.node.metadata) {
      if (entry.type !== 'aws:cdk:acknowledged-rules') continue;
      for (const key of Object.keys(entry.data as object)) {
        ids.add(key.replace(/^Annotation::/, '').replace(/\[.*$/, ''));
      }
    }
  }
  return ids;
}

/** Every cfn-guard rule a template's resources suppress. */
function guardSuppressed(resources: Resources): Set<string> {
  const rules = new Set<string>();
  for (const resource of Object.values(resources)) {
    const guard = (resource as { Metadata?: { guard?: { SuppressedRules?: string[] } } }).Metadata?.guard;
    for (const rule of guard?.SuppressedRules ?? []) rules.add(rule);
  }
  return rules;
}

describe("docs/deployment.md, the construct's acknowledgments", () => {
  it('lists exactly the cdk-nag rules the construct acknowledges in the three variants', () => {
    const documented = table(deployment, '| rule ', 0).flatMap((row) =>
      codeNames(row[0] as string).map((id) => id.replace(/\[.*$/, '')),
    );
    const acknowledged = new Set(VARIANTS.flatMap((v) => [...nagAcknowledged(stacks[v].root)]));
    expect([...new Set(documented)].sort()).toEqual([...acknowledged].sort());
  });

  it('lists every cfn-guard rule the construct suppresses, as met by a prop or acknowledged', () => {
    const byProp = table(deployment, '| rule ', 1).map((row) => codeNames(row[0] as string)[0]);
    const acknowledged = table(deployment, '| rule ', 2).map((row) => codeNames(row[0] as string)[0]);
    const suppressed = new Set(VARIANTS.flatMap((v) => [...guardSuppressed(stacks[v].resources)]));
    expect([...new Set([...byProp, ...acknowledged])].sort()).toEqual([...suppressed].sort());
    for (const rule of acknowledged) expect(suppressed, rule).toContain(rule);
  });
});

describe('docs/deployment.md, the IAM table', () => {
  /** A Bucket cell (`GetObject, PutObject under `files/`; ListBucket`) as `action@prefix` and `action@bucket`. */
  const bucketGrants = (cell: string) =>
    cell
      .split(';')
      .map((segment) => segment.trim())
      .filter((segment) => segment !== '—')
      .flatMap((segment) => {
        const under = /^(.*?) under (.*)$/.exec(segment);
        if (!under) return [`s3:${segment}@bucket`];
        const actions = (under[1] as string).split(', ');
        return actions.flatMap((a) => codeNames(under[2] as string).map((p) => `s3:${a}@${p}`));
      });

  it("gives each function's S3 actions and key prefixes as the permission list does", () => {
    const rows = table(deployment, '| Function ');
    expect(rows.map((row) => /^\w+/.exec(row[0] as string)?.[0]).sort()).toEqual(
      Object.keys(FUNCTION_PERMISSIONS).sort(),
    );
    for (const row of rows) {
      const name = /^\w+/.exec(row[0] as string)?.[0] as FunctionName;
      const granted = FUNCTION_PERMISSIONS[name].flatMap((grant) =>
        grant.resource === 'objects'
          ? grant.actions.flatMap((a) => (grant.prefixes ?? ['*']).map((p) => `${a}@${p}`))
          : grant.resource === 'bucket'
            ? grant.actions.map((a) => `${a}@bucket`)
            : [],
      );
      expect(bucketGrants(row[3] as string).sort(), name).toEqual(granted.sort());
    }
  });
});
