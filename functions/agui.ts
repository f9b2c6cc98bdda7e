import app from '#agents';
import { createAguiHandler, jwtAuthentication, lambdaSink } from '../lib/agui/index.ts';
import { AUTH_ENV, verifierFromEnv } from '../lib/auth/index.ts';

const auth = process.env[AUTH_ENV.issuer] ? jwtAuthentication(verifierFromEnv()) : undefined;
const agui = createAguiHandler(app, undefined, { authenticate: auth });

/**
 * The AG-UI endpoint behind a function URL in RESPONSE_STREAM mode: the function verifies the JWT
 * itself (a function URL authenticates only with IAM or not at all) and streams AG-UI events.
 */
export const handler = awslambda.streamifyResponse(async (event, responseStream, context) => {
  await agui(event, lambdaSink(responseStream), context);
});
