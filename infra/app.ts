/**
 * The CDK app (`npx cdk synth`, `npx cdk deploy`). Environment-agnostic unless the CLI supplies an
 * account and region, so synth works offline with no credentials and makes no lookups.
 *
 * Who may call the demo is given in the context: an issuer and its audiences (built-in JWT
 * authentication), or `allowAnonymous=true` to serve every caller as the same anonymous user. Without
 * either, synth stops and says so.
 *
 * @example
 * ```sh
 * npx cdk synth -q -c auth:issuer=https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123 -c auth:audience=app-client-id
 * npx cdk synth -q -c allowAnonymous=true
 * ```
 */
import { App } from 'aws-cdk-lib';
import { SwitchboardDemoStack } from './demo-stack.ts';

const app = new App();
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;
const issuer = app.node.tryGetContext('auth:issuer') as string | undefined;
const audience = app.node.tryGetContext('auth:audience') as string | undefined;
const allowAnonymous = String(app.node.tryGetContext('allowAnonymous')) === 'true';
if ((issuer === undefined) !== (audience === undefined)) {
  throw new Error('Give both -c auth:issuer=<https URL> and -c auth:audience=<id>[,<id>…], or neither.');
}
new SwitchboardDemoStack(app, 'SwitchboardDemo', {
  env: account && region ? { account, region } : undefined,
  ...(issuer !== undefined && {
    auth: {
      issuer,
      audience: String(audience)
        .split(',')
        .map((id) => id.trim()),
    },
  }),
  allowAnonymous,
});
app.synth();
