import type { AwsCredentialIdentity } from './sign.ts';

type Provider<T> = () => Promise<T>;

/** Credentials, or a function that answers them (asked before each signature). */
export type AwsCredentials = AwsCredentialIdentity | Provider<AwsCredentialIdentity>;

/**
 * The credentials a client signs with when its config names none, in the SDK's default chain's
 * order (`@aws-sdk/credential-provider-node`'s `defaultProvider`). With no profile named in
 * `AWS_PROFILE`, the environment's key (`AWS_ACCESS_KEY_ID`…) comes first: Lambda's case, read here
 * without loading the chain. A named profile wins over the environment's key, as the SDK's chain
 * skips its environment step then; that case, and a process without a key in its environment (an
 * operator's machine: profiles, SSO…), use the SDK's chain itself, a chunk loaded only then.
 */
export function defaultCredentials(): AwsCredentials {
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_PROFILE } = process.env;
  if (!AWS_PROFILE && AWS_ACCESS_KEY_ID && AWS_SECRET_ACCESS_KEY) {
    return {
      accessKeyId: AWS_ACCESS_KEY_ID,
      secretAccessKey: AWS_SECRET_ACCESS_KEY,
      ...(AWS_SESSION_TOKEN && { sessionToken: AWS_SESSION_TOKEN }),
    };
  }
  let chain: Promise<Provider<AwsCredentialIdentity>> | undefined;
  return async () => {
    chain ??= import('@aws-sdk/credential-provider-node').then((m) => m.defaultProvider());
    return (await chain)();
  };
}
