import { existsSync } from 'node:fs';
import { Annotations, type App, Stack, Validations } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { SwitchboardDemoStack } from '../../infra/demo-stack.ts';
import { Switchboard } from '../../infra/switchboard.ts';
import {
  BEDROCK_MODEL_ARNS,
  customAuthorisers,
  FIXTURE_AGENTS,
  newApp,
  newStack,
  SYNTH_TIMEOUT_MS,
} from './template-helpers.ts';

/** One unacknowledged cdk-nag finding. */
interface Finding {
  readonly rule: string;
  readonly path: string;
  readonly severity: string;
  readonly reason: string;
}

/**
 * Runs cdk-nag's AwsSolutions and Serverless packs over a synthesised stack. cdk-nag 3 packs are CDK
 * validation plugins; `validateScope` is their entry point for a construct tree, and it skips every
 * finding acknowledged with `Validations.of(...).acknowledge` (infra/nag.ts).
 */
function nag(stack: Stack): Finding[] {
  // Synthesise first: aspects and lazy values settle then, as they do before a real check.
  (stack.node.root as App).synth();
  const findings: Finding[] = [];
  for (const pack of [new AwsSolutionsChecks(), new ServerlessChecks()]) {
    for (const violation of pack.validateScope(stack).violations) {
      for (const resource of violation.violatingResources) {
        findings.push({
          rule: violation.ruleName,
          path: resource.constructPath ?? '(no path)',
          severity: violation.severity ?? 'error',
          reason: violation.description ?? '',
        });
      }
    }
  }
  return findings;
}

/** A finding as one readable line: what the assertion prints when the check fails. */
function line(finding: Finding): string {
  return `${finding.severity} ${finding.rule} at ${finding.path}: ${finding.reason}`;
}

/**
 * A team's stack: both authorisers configured, tracing on, the account's API Gateway CloudWatch role
 * set by the stack (so its role is checked too), the object audit trail on, everything else at its
 * default.
 */
function teamStack(app = newApp()): Stack {
  const stack = new Stack(app, 'Test');
  customAuthorisers(stack, { tracing: true });
  return stack;
}

/**
 * A team's stack with the built-in authentication (a JWT authoriser and the `$connect` function) and
 * model agents: a key secret named by its name (granted as `<name>-??????`) and a Bedrock model.
 */
function builtInAuthStack(): Stack {
  const stack = new Stack(newApp(), 'Test');
  new Switchboard(stack, 'Switchboard', {
    agents: FIXTURE_AGENTS,
    tracing: true,
    auth: { issuer: 'https://login.example.com', audience: ['hosts'] },
    models: {
      secrets: [Secret.fromSecretNameV2(stack, 'OpenAiKey', 'support/openai-key')],
      bedrock: BEDROCK_MODEL_ARNS,
    },
  });
  return stack;
}

/** The least a team can write: no authoriser, no tracing. */
function bareStack(): Stack {
  const stack = newStack();
  new Switchboard(stack, 'Switchboard', { agents: FIXTURE_AGENTS, allowAnonymous: true });
  Annotations.of(stack).acknowledgeWarning('switchboard:noAuthorizer');
  return stack;
}

const hasDemoAgents = existsSync(new URL('../../demo/agents.ts', import.meta.url));

let team: Finding[];
let bare: Finding[];
let builtIn: Finding[];
let demo: Finding[];

beforeAll(() => {
  team = nag(teamStack());
  bare = nag(bareStack());
  builtIn = nag(builtInAuthStack());
  if (hasDemoAgents)
    demo = nag(new SwitchboardDemoStack(newApp(), 'SwitchboardDemo', { allowAnonymous: true }));
}, SYNTH_TIMEOUT_MS);

describe('cdk-nag AwsSolutions and Serverless checks', () => {
  it('find nothing unacknowledged in a stack with both authorisers and tracing', () => {
    expect(team.map(line)).toEqual([]);
  });

  it('find nothing unacknowledged in a stack with the built-in authentication, tracing and model grants', () => {
    expect(builtIn.map(line)).toEqual([]);
  });

  it(
    'let a team register the packs on its app and synthesise without a failure',
    () => {
      // What a team does (docs/deployment.md): the packs as validation plugins of the whole app.
      const app = newApp();
      teamStack(app);
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
      expect(() => app.synth()).not.toThrow();
    },
    SYNTH_TIMEOUT_MS,
  );

  it.skipIf(!hasDemoAgents)('find nothing unacknowledged in the demo stack', () => {
    expect(demo.map(line)).toEqual([]);
  });

  it("leave a team's own choices for its checks to report: no authoriser, no tracing", () => {
    const rules = [...new Set(bare.map((finding) => finding.rule))].sort();
    expect(rules, bare.map(line).join('\n')).toEqual(['AwsSolutions-APIG4', 'Serverless-LambdaTracing']);
    const unauthorised = bare.filter((finding) => finding.rule === 'AwsSolutions-APIG4').map((f) => f.path);
    expect(unauthorised).toContain('Test/Switchboard/WebSocketApi/$connect-Route/Resource');
    expect(unauthorised.filter((path) => path.includes('/WebSocketApi/'))).toHaveLength(1);
    expect(unauthorised.filter((path) => path.includes('/HttpApi/')).length).toBeGreaterThan(0);
    // The four runtime functions and the AG-UI function (an anonymous stack has no authoriser function).
    expect(bare.filter((finding) => finding.rule === 'Serverless-LambdaTracing')).toHaveLength(5);
  });
});
