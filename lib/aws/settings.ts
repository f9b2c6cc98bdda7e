import type { EndpointSettings } from './endpoint.ts';

/** A boolean setting from the environment, as the SDK's `booleanSelector` reads it (else undefined). */
function fromEnv(name: string): boolean | undefined {
  const value = process.env[name];
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

/**
 * Lambda has no shared config file unless the function names one: reading it there would only load
 * the SDK's file reader into a cold start to find nothing.
 */
const hasSharedConfig = () => !process.env.AWS_LAMBDA_FUNCTION_NAME || Boolean(process.env.AWS_CONFIG_FILE);

/**
 * FIPS and dual-stack, from where the SDK reads them, first found wins: the client's config, the
 * environment (`AWS_USE_FIPS_ENDPOINT`, `AWS_USE_DUALSTACK_ENDPOINT`), the shared config file's
 * `use_fips_endpoint` and `use_dualstack_endpoint` for the active profile (`AWS_PROFILE`, else
 * `default`), else off. The file is read with the SDK's own loader (`@smithy/core/config`'s
 * `loadConfig`, with the SDK's selectors), imported only when a setting is still open and the process
 * is not on Lambda (or names a config file): a Lambda function decides from its environment alone.
 */
export async function endpointSettings(given: Partial<EndpointSettings> = {}): Promise<EndpointSettings> {
  const fips = given.useFipsEndpoint ?? fromEnv('AWS_USE_FIPS_ENDPOINT');
  const dual = given.useDualstackEndpoint ?? fromEnv('AWS_USE_DUALSTACK_ENDPOINT');
  if ((fips !== undefined && dual !== undefined) || !hasSharedConfig()) {
    return { useFipsEndpoint: fips ?? false, useDualstackEndpoint: dual ?? false };
  }
  const config = await import('@smithy/core/config');
  return {
    useFipsEndpoint: fips ?? (await config.loadConfig(config.NODE_USE_FIPS_ENDPOINT_CONFIG_OPTIONS)()),
    useDualstackEndpoint:
      dual ?? (await config.loadConfig(config.NODE_USE_DUALSTACK_ENDPOINT_CONFIG_OPTIONS)()),
  };
}
