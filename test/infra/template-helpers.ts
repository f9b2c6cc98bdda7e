import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Annotations, App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { HttpJwtAuthorizer, WebSocketLambdaAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { SwitchboardProps } from '../../infra/props.ts';
import { Switchboard } from '../../infra/switchboard.ts';

/** The stand-in agents module (bundling is skipped, so it is never loaded). */
export const FIXTURE_AGENTS = fileURLToPath(new URL('./fixtures/agents.ts', import.meta.url));

/**
 * How long a file's one synth may take in its beforeAll: seconds alone, far longer on two cores busy
 * with the rest of the suite.
 */
export const SYNTH_TIMEOUT_MS = 120_000;

/** One resource of a synthesised template. */
export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DeletionPolicy?: string;
}

/** The template's `Resources`, by logical id. */
export type Resources = Record<string, TemplateResource>;

/** One IAM statement (identity or resource policy) with where it came from. */
export interface FoundStatement {
  readonly logicalId: string;
  readonly type: string;
  readonly statement: { Effect?: string; Action?: unknown; Resource?: unknown; Principal?: unknown };
}

const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
  context: Record<string, unknown>;
};

/**
 * A stack with the app's feature flags and bundling skipped (lib/ need not compile for these tests).
 * CloudFormation's default rules (`validateAgainstDefaultRules`) take seconds per synth, so only the
 * file that asks for them runs them; the rest check the same template's content.
 */
export function newApp(options: { validate?: boolean } = {}): App {
  const context: Record<string, unknown> = { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] };
  if (!options.validate) delete context['@aws-cdk/core:validateAgainstDefaultRules'];
  return new App({ context });
}

/** A stack in {@link newApp}. */
export function newStack(options: { validate?: boolean } = {}): Stack {
  return new Stack(newApp(options), 'Test');
}

/** The built-in authentication the test stacks use. */
export const TEST_AUTH = { issuer: 'https://issuer.example.com/pool', audience: ['hosts', 'admin-app'] };

/** What a test wants from {@link synthSwitchboard}. */
export interface SynthOptions {
  /** Run CloudFormation's default rules too (slow). */
  readonly validate?: boolean;
  /** No authoriser at all (`allowAnonymous: true`) instead of {@link TEST_AUTH}. */
  readonly anonymous?: boolean;
  /** Keep the missing-authoriser warning, for the test that checks it (silenced otherwise). */
  readonly keepWarnings?: boolean;
  /** Set the `models` prop: {@link MODEL_KEY_SECRETS} and {@link BEDROCK_MODEL_ARNS}. */
  readonly models?: boolean;
  /** The `tracing` prop, when not `true` (X-Ray). */
  readonly tracing?: SwitchboardProps['tracing'];
}

/** The model key secrets of a synth with `models`: one created in the stack, one named by its name only. */
export const MODEL_KEY_SECRETS = { created: 'ModelKey', named: 'support/openai-key' } as const;

/** The Bedrock models of a synth with `models`: a foundation model and a cross-region inference profile. */
export const BEDROCK_MODEL_ARNS = [
  'arn:aws:bedrock:eu-west-1::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0',
  'arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
];

/** A synthesised Switchboard stack, as {@link synthSwitchboard} gives it. */
export interface SynthesisedSwitchboard {
  readonly stack: Stack;
  readonly template: Template;
  readonly resources: Resources;
}

/**
 * The stacks synthesised so far in this process, by their options: the test files that read the same
 * variant share one synth (the test files of a worker share their modules). A synthesised template
 * is only read, never changed, so sharing it changes no test.
 */
const synthesised = new Map<string, SynthesisedSwitchboard>();

/**
 * Synthesises a stack holding one Switchboard with tracing on (so the X-Ray allow-list is exercised)
 * and built-in authentication ({@link TEST_AUTH}), or none with `anonymous`; once per variant.
 */
export function synthSwitchboard(options: SynthOptions = {}): SynthesisedSwitchboard {
  const key = JSON.stringify([
    !!options.validate,
    !!options.anonymous,
    !!options.keepWarnings,
    !!options.models,
    options.tracing ?? true,
  ]);
  const known = synthesised.get(key);
  if (known) return known;
  const stack = newStack(options);
  new Switchboard(stack, 'Switchboard', {
    agents: FIXTURE_AGENTS,
    tracing: options.tracing ?? true,
    settings: { runs: { leaseMs: 120_000 } },
    ...(options.anonymous ? { allowAnonymous: true } : { auth: TEST_AUTH }),
    ...(options.models && {
      models: {
        secrets: [
          new Secret(stack, MODEL_KEY_SECRETS.created),
          Secret.fromSecretNameV2(stack, 'NamedModelKey', MODEL_KEY_SECRETS.named),
        ],
        bedrock: BEDROCK_MODEL_ARNS,
      },
    }),
  });
  if (!options.keepWarnings) Annotations.of(stack).acknowledgeWarning('switchboard:noAuthorizer');
  const template = Template.fromStack(stack);
  const made = { stack, template, resources: template.toJSON().Resources as Resources };
  synthesised.set(key, made);
  return made;
}

/** Logical ids of the resources of one type. */
export function idsOfType(resources: Resources, type: string): string[] {
  return Object.entries(resources)
    .filter(([, r]) => r.Type === type)
    .map(([id]) => id);
}

/** A function's environment variables. */
export function environmentOf(resources: Resources, functionId: string): Record<string, unknown> {
  const environment = resources[functionId]?.Properties?.Environment as {
    Variables?: Record<string, unknown>;
  };
  return environment?.Variables ?? {};
}

/** The logical id a `{ Ref }` or `{ 'Fn::GetAtt': [...] }` points at, if it is one. */
export function refOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const ref = (value as { Ref?: unknown }).Ref;
  if (typeof ref === 'string') return ref;
  const getAtt = (value as { 'Fn::GetAtt'?: unknown })['Fn::GetAtt'];
  return Array.isArray(getAtt) && typeof getAtt[0] === 'string' ? getAtt[0] : undefined;
}

/** Every statement of every identity policy (standalone, managed, inline in a role) and resource policy. */
export function policyStatements(resources: Resources): FoundStatement[] {
  const found: FoundStatement[] = [];
  for (const [logicalId, { Type: type, Properties: p = {} }] of Object.entries(resources)) {
    const documents: unknown[] = [];
    if (type === 'AWS::IAM::Role') {
      for (const inline of (p.Policies as { PolicyDocument: unknown }[] | undefined) ?? []) {
        documents.push(inline.PolicyDocument);
      }
    } else if (p.PolicyDocument !== undefined) {
      documents.push(p.PolicyDocument);
    }
    for (const document of documents) {
      for (const statement of (document as { Statement: FoundStatement['statement'][] }).Statement) {
        found.push({ logicalId, type, statement });
      }
    }
  }
  return found;
}

/** A statement's actions or resources as an array (IAM allows a single string or a list). */
export function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

/** 40 host tools with descriptions: about 10 KB of settings, more than a Lambda environment holds (4 KB). */
export const LARGE_HOST_TOOLS = Array.from({ length: 40 }, (_, i) => ({
  name: `tool_${i}`,
  description: 'x'.repeat(200),
  parameters: { type: 'object', properties: { id: { type: 'string' } } },
}));

/**
 * A team's Switchboard with its own authorisers (a JWT authoriser for HTTP, a Lambda one for
 * `$connect`), the account role for WebSocket access logs and the object audit trail: the stack whose
 * resources bring every acknowledgment. `props` adds to it.
 */
export function customAuthorisers(stack: Stack, props: Partial<SwitchboardProps> = {}): Switchboard {
  const authorizerFunction = LambdaFunction.fromFunctionArn(
    stack,
    'ConnectAuthorizer',
    'arn:aws:lambda:eu-west-1:111111111111:function:connect-authorizer',
  );
  return new Switchboard(stack, 'Switchboard', {
    agents: FIXTURE_AGENTS,
    webSocketAccessLogs: 'create-account-role',
    objectAuditTrail: true,
    httpAuthorizer: new HttpJwtAuthorizer('Jwt', 'https://login.example.com/', { jwtAudience: ['hosts'] }),
    webSocketAuthorizer: new WebSocketLambdaAuthorizer('Connect', authorizerFunction, {
      identitySource: ['route.request.querystring.token'],
    }),
    ...props,
  });
}
