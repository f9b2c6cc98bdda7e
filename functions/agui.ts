import app from '#agents';
import { aguiAuthenticationFromEnv, createAguiHandler, lambdaSink } from '../lib/agui/index.ts';

const agui = createAguiHandler(app, undefined, { authenticate: aguiAuthenticationFromEnv() });

/**
 * The AG-UI endpoint behind a function URL in RESPONSE_STREAM mode: the function verifies the JWT
 * itself (a function URL authenticates only with IAM or not at all) and streams AG-UI events.
 */
export const handler = awslambda.streamifyResponse(async (event, responseStream, context) => {
  await agui(event, lambdaSink(responseStream), context);
});
