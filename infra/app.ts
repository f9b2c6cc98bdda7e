/**
 * The CDK app (`npx cdk synth`, `npx cdk deploy`). Environment-agnostic unless the CLI supplies an
 * account and region, so synth works offline with no credentials and makes no lookups.
 *
 * @example
 * ```sh
 * npx cdk synth -q
 * ```
 */
import { App } from 'aws-cdk-lib';
import { SwitchboardDemoStack } from './demo-stack.ts';

const app = new App();
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;
new SwitchboardDemoStack(app, 'SwitchboardDemo', {
  env: account && region ? { account, region } : undefined,
});
app.synth();
