import { type Partition, partitionOf } from './partitions.ts';

/** The endpoint variants a client asks for: the SDK's `useFipsEndpoint` and `useDualstackEndpoint`. */
export interface EndpointSettings {
  useFipsEndpoint: boolean;
  useDualstackEndpoint: boolean;
}

/** Where a client sends its calls, and the region its signatures name (DynamoDB local's is us-east-1). */
export interface ResolvedEndpoint {
  url: string;
  signingRegion: string;
}

/** A region as the SDK reads it: the region itself, and whether its name asked for FIPS. */
export interface CheckedRegion {
  region: string;
  fips: boolean;
}

/** A host label (letters, digits, inner hyphens, at most 63): `@smithy/core`'s `isValidHostLabel`. */
const HOST_LABEL = /^(?!.*-$)(?!-)[a-zA-Z0-9-]{1,63}$/;

/**
 * Checks a region as the SDK's region config does (`resolveRegionConfig`, `checkRegion`): none is
 * `Region is missing`; a FIPS pseudo-region (`fips-us-east-1`, `us-east-1-fips`) is its region with
 * FIPS on; one that cannot be a host name's label cannot be placed in any partition and is refused by
 * name. A well-formed region that no partition names goes to `aws`, as the SDK sends it.
 */
export function checkRegion(region: string | undefined): CheckedRegion {
  if (!region) throw new Error('Region is missing');
  const fips = region.startsWith('fips-') || region.endsWith('-fips');
  const real = !fips
    ? region
    : region === 'fips-aws-global' || region === 'aws-fips'
      ? 'us-east-1'
      : region.replace(/fips-(dkr-|prod-)?|-fips/, '');
  if (!HOST_LABEL.test(real)) {
    throw new Error(`Region not accepted: region="${real}" is not a valid hostname component.`);
  }
  return { region: real, fips };
}

/** A setting the endpoint rules refuse: an `EndpointError`, as the SDK's resolver names it. */
function refused(message: string): Error {
  const error = new Error(message);
  error.name = 'EndpointError';
  return error;
}

type Rule = (region: string, partition: Partition, settings: EndpointSettings) => ResolvedEndpoint;
const at = (url: string, signingRegion: string) => ({ url, signingRegion });

/**
 * Each service's endpoint rules, as its SDK client's ruleset has them (`dist-es/endpoint/bdd.js` of
 * `@aws-sdk/client-dynamodb` and `@aws-sdk/client-secrets-manager`), for the parameters Switchboard
 * sets: region, FIPS and dual-stack (not DynamoDB's account-based endpoints, which need an account id
 * with the credentials). A conformance test compares them with the SDK's resolver.
 */
const RULES: Record<string, Rule> = {
  dynamodb(region, p, { useFipsEndpoint: fips, useDualstackEndpoint: dual }) {
    if (region === 'local') {
      if (fips) throw refused('Invalid Configuration: FIPS and local endpoint are not supported');
      if (dual) throw refused('Invalid Configuration: Dualstack and local endpoint are not supported');
      return at('http://localhost:8000', 'us-east-1');
    }
    // GovCloud's DynamoDB endpoints are FIPS endpoints under the usual name.
    const host = fips && (dual || p.name !== 'aws-us-gov') ? 'dynamodb-fips' : 'dynamodb';
    return at(`https://${host}.${region}.${dual ? p.dualStackDnsSuffix : p.dnsSuffix}`, region);
  },
  secretsmanager(region, p, { useFipsEndpoint: fips, useDualstackEndpoint: dual }) {
    // Its dual-stack names in aws and aws-us-gov (and aws-cn without FIPS) are the usual ones.
    const commercial = p.name === 'aws' || p.name === 'aws-us-gov';
    const suffix = !dual
      ? p.dnsSuffix
      : commercial
        ? 'amazonaws.com'
        : p.name === 'aws-cn' && !fips
          ? 'amazonaws.com.cn'
          : p.dualStackDnsSuffix;
    return at(`https://secretsmanager${fips ? '-fips' : ''}.${region}.${suffix}`, region);
  },
};

/**
 * The endpoint of `service` in `region` with `settings`, or with `configured` (an endpoint given in
 * the client's config or the environment), which, as the SDK's rules say, FIPS and dual-stack cannot
 * be combined with.
 */
export function resolveEndpoint(
  service: string,
  checked: CheckedRegion,
  settings: EndpointSettings,
  configured?: string,
): ResolvedEndpoint {
  const wanted = { ...settings, useFipsEndpoint: settings.useFipsEndpoint || checked.fips };
  if (configured !== undefined) {
    if (wanted.useFipsEndpoint)
      throw refused('Invalid Configuration: FIPS and custom endpoint are not supported');
    if (wanted.useDualstackEndpoint) {
      throw refused('Invalid Configuration: Dualstack and custom endpoint are not supported');
    }
    return at(configured, checked.region);
  }
  const rule = RULES[service];
  if (!rule) throw refused(`No endpoint rules for ${service}: give its client an endpoint`);
  return rule(checked.region, partitionOf(checked.region), wanted);
}
