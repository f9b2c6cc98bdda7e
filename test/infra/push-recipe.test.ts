import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Annotations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Switchboard } from '../../infra/switchboard.ts';
import { DOMAIN_EVENTS, EVENT_SOURCE, PauseOpenedSchema, parseDetail } from '../../lib/events/index.ts';
import {
  FIXTURE_AGENTS,
  idsOfType,
  newStack,
  type Resources,
  SYNTH_TIMEOUT_MS,
  TEST_AUTH,
} from './template-helpers.ts';

/**
 * docs/hosts.md's push recipe ("A push notification when the agent asks") as it is written there:
 * its CDK block runs in a stack beside a Switchboard, in a project folder holding its handler block
 * at the path the handler's first line names; its handler block runs with a stand-in push service.
 */

const HEADING = '### A push notification when the agent asks';

/** The recipe's two ts blocks: the construct snippet, and the handler with its path. */
function recipe(): { snippet: string; handler: { path: string; text: string } } {
  const page = readFileSync(new URL('../../docs/hosts.md', import.meta.url), 'utf8');
  const start = page.indexOf(HEADING);
  expect(start, HEADING).toBeGreaterThan(0);
  const section = page.slice(start, page.indexOf('\n## ', start));
  const blocks = [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  expect(blocks).toHaveLength(2);
  const [snippet, handler] = blocks as [string, string];
  const path = /^\/\/ (\S+\.ts)\n/.exec(handler)?.[1];
  if (!path) throw new Error('The handler block does not start with its path.');
  return { snippet, handler: { path, text: handler } };
}

/** A ts block as a CommonJS function of the names it leaves to the reader. */
function compile(text: string, names: string[]): (...values: unknown[]) => unknown {
  const js = ts.transpileModule(text, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  return new Function('require', 'exports', ...names, js) as (...values: unknown[]) => unknown;
}

const require = createRequire(import.meta.url);
let project: string;
let resources: Resources;
let busId: string;

beforeAll(() => {
  const { snippet, handler } = recipe();
  // A team's CDK project: its lock file (where NodejsFunction finds the project) and the handler.
  project = mkdtempSync(join(tmpdir(), 'push-recipe-'));
  writeFileSync(join(project, 'package-lock.json'), '{}');
  mkdirSync(dirname(join(project, handler.path)), { recursive: true });
  writeFileSync(join(project, handler.path), handler.text);

  const stack = newStack();
  const switchboard = new Switchboard(stack, 'Switchboard', { agents: FIXTURE_AGENTS, auth: TEST_AUTH });
  Annotations.of(stack).acknowledgeWarning('switchboard:noAuthorizer');
  // `cdk synth` runs in the project's folder: the snippet's relative entry is read from there.
  const cwd = process.cwd();
  process.chdir(project);
  try {
    compile(snippet, ['stack', 'switchboard'])(require, {}, stack, switchboard);
  } finally {
    process.chdir(cwd);
  }
  resources = Template.fromStack(stack).toJSON().Resources as Resources;
  [busId] = idsOfType(resources, 'AWS::Events::EventBus') as [string];
}, SYNTH_TIMEOUT_MS);

afterAll(() => rmSync(project, { recursive: true, force: true }));

/** The one resource of a type whose logical id starts with `prefix`. */
function only(type: string, prefix: string): [string, Record<string, unknown>] {
  const ids = idsOfType(resources, type).filter((id) => id.startsWith(prefix));
  expect(ids, `${type} ${prefix}`).toHaveLength(1);
  return [ids[0]!, resources[ids[0]!]!.Properties ?? {}];
}

describe("the docs' push recipe", () => {
  it("puts a rule on the construct's bus that matches Pause Opened as the runtime publishes it", () => {
    const [, rule] = only('AWS::Events::Rule', 'PauseToPush');
    expect(busId).toMatch(/^SwitchboardEventBus/);
    expect(rule.EventBusName).toEqual({ Ref: busId });
    const pattern = rule.EventPattern as {
      source: string[];
      'detail-type': string[];
      detail: Record<string, unknown[]>;
    };
    expect(pattern.source).toEqual([EVENT_SOURCE]);
    expect(pattern['detail-type']).toEqual(['Pause Opened']);
    expect(Object.keys(DOMAIN_EVENTS)).toContain('Pause Opened');
    // Each field it filters on is one of Pause Opened's, with values the field can take.
    const fields = PauseOpenedSchema.shape;
    expect(Object.keys(pattern.detail)).toEqual(['kind']);
    for (const kind of pattern.detail.kind!) expect(fields.kind.options).toContain(kind);
    expect(pattern.detail.kind).toEqual(['tool_approval', 'user_question']);
  });

  it("targets the recipe's function, which EventBridge may invoke, and whose handler is the docs' block", () => {
    const [ruleId, rule] = only('AWS::Events::Rule', 'PauseToPush');
    const [functionId, fn] = only('AWS::Lambda::Function', 'PushOnPause');
    expect(rule.Targets).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': [functionId, 'Arn'] } })]);
    const permissions = idsOfType(resources, 'AWS::Lambda::Permission')
      .map((id) => resources[id]!.Properties ?? {})
      .filter((p) => JSON.stringify(p.FunctionName).includes(functionId));
    expect(permissions).toHaveLength(1);
    expect(permissions[0]).toMatchObject({
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] },
      SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
    });
    expect(fn.Handler).toBe('index.handler');
  });

  it("the handler sends the owner's devices the request's title and where to answer it", async () => {
    const { handler } = recipe();
    const module: { handler?: (event: unknown) => Promise<void> } = {};
    const fetch = vi.fn(async () => new Response('{}', { status: 200 }));
    const tokens: Record<string, string[]> = { alice: ['ExponentPushToken[a]', 'ExponentPushToken[b]'] };
    const pushTokensOf = async (user: string) => tokens[user] ?? [];
    compile(handler.text, ['pushTokensOf', 'fetch'])(require, module, pushTokensOf, fetch);
    const detail = parseDetail('Pause Opened', {
      version: 1,
      sessionId: 's1',
      sessionRef: 'ref~s1',
      owner: 'alice',
      tenant: null,
      agentId: 'billing',
      runId: 'run_1',
      messageId: 'msg_1',
      actionId: 'req_wire',
      kind: 'tool_approval',
      answerPath: '/api/sessions/ref~s1/actions/req_wire',
      expiresAt: '2026-12-02T15:47:26.000Z',
      request: { id: 'req_wire', type: 'tool_approval', toolName: 'wire_money', title: 'Wire $5?' },
      requestOmitted: false,
    });

    await module.handler!({ detail });
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('https://exp.host/--/api/v2/push/send');
    expect(JSON.parse(init.body as string)).toEqual({
      to: tokens.alice,
      title: 'Wire $5?',
      data: { sessionId: 's1', actionId: 'req_wire' },
    });

    await module.handler!({ detail: { ...detail, owner: 'bob' } });
    expect(fetch).toHaveBeenCalledTimes(1);

    fetch.mockResolvedValueOnce(new Response('busy', { status: 503 }));
    await expect(module.handler!({ detail })).rejects.toThrow('503');
  });
});
