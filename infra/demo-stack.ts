import { fileURLToPath } from 'node:url';
import { RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { acknowledgeAnonymousAccess } from './nag.ts';
import type { SwitchboardAuth } from './props.ts';
import { Switchboard } from './switchboard.ts';

/** The demo agent that ships with this repository. */
const DEMO_AGENTS = fileURLToPath(new URL('../demo/agents.ts', import.meta.url));

/** Props of {@link SwitchboardDemoStack}: stack props, and how callers are authenticated. */
export interface SwitchboardDemoStackProps extends StackProps {
  /** Built-in authentication (see `SwitchboardProps.auth`). */
  readonly auth?: SwitchboardAuth;
  /** Serve the demo without authentication (see `SwitchboardProps.allowAnonymous`). @default false */
  readonly allowAnonymous?: boolean;
}

/**
 * Switchboard with the demo agent. Everything is destroyed with the stack: it holds nothing worth
 * keeping, and a retained table or bucket would block the next deployment's names.
 *
 * @example
 * ```ts
 * new SwitchboardDemoStack(new App(), 'SwitchboardDemo', {
 *   auth: { issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123', audience: ['app-client-id'] },
 * });
 * ```
 */
export class SwitchboardDemoStack extends Stack {
  /** The Switchboard instance, for tests and for stacks that build on the demo. */
  readonly switchboard: Switchboard;

  /** Creates the stack; without `auth` or `allowAnonymous` it throws, as the construct does. */
  constructor(scope: Construct, id: string, props: SwitchboardDemoStackProps = {}) {
    const { auth, allowAnonymous, ...stackProps } = props;
    super(scope, id, {
      description: 'Switchboard demo: host-backed agents over HTTP and WebSocket',
      ...stackProps,
    });
    this.switchboard = new Switchboard(this, 'Switchboard', {
      agents: DEMO_AGENTS,
      ...(auth && { auth }),
      ...(allowAnonymous !== undefined && { allowAnonymous }),
      removalPolicy: RemovalPolicy.DESTROY,
      logRetention: RetentionDays.ONE_WEEK,
    });
    // The demo's own choices, said where cdk-nag looks for them (test/infra/nag.test.ts).
    if (!auth) {
      acknowledgeAnonymousAccess(
        this.switchboard,
        'The demo served without an identity provider (allowAnonymous): every caller is the same anonymous user, it holds nothing private, and synth warns about it.',
      );
    }
    Validations.of(this.switchboard).acknowledge({
      id: 'Serverless-LambdaTracing',
      reason:
        'The demo leaves X-Ray off, the construct default, because traces are billed; set `tracing: true` to follow a turn.',
    });
  }
}
