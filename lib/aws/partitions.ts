/**
 * The AWS partitions the SDK knows, in the order it tries them: written out from `@aws-sdk/core`'s
 * `partitions.json` (`submodules/client/util-endpoints/lib/aws/partitions.js`, version 1.1, with
 * `@aws-sdk/*` 3.1169), not imported, because importing it brings `@aws-sdk/core`'s endpoint
 * functions into every function's start-up code. Every partition there supports FIPS and dual-stack,
 * so those flags are left out. test/unit/aws-endpoints.test.ts compares the endpoints it gives, for
 * regions of every partition, with the SDK's.
 */
export interface Partition {
  /** `aws`, `aws-cn`, …: what the endpoint rules compare. */
  name: string;
  /** Which regions belong to it. */
  regionRegex: RegExp;
  /** Named regions its regex does not match (its global pseudo-region). */
  regions: readonly string[];
  dnsSuffix: string;
  dualStackDnsSuffix: string;
}

/** See the module's comment; `aws` is first, and is also where an unknown region goes. */
export const PARTITIONS: readonly Partition[] = [
  {
    name: 'aws',
    regionRegex: /^(us|eu|ap|sa|ca|me|af|il|mx)-\w+-\d+$/,
    regions: ['aws-global'],
    dnsSuffix: 'amazonaws.com',
    dualStackDnsSuffix: 'api.aws',
  },
  {
    name: 'aws-cn',
    regionRegex: /^cn-\w+-\d+$/,
    regions: ['aws-cn-global'],
    dnsSuffix: 'amazonaws.com.cn',
    dualStackDnsSuffix: 'api.amazonwebservices.com.cn',
  },
  {
    name: 'aws-eusc',
    regionRegex: /^eusc-(de)-\w+-\d+$/,
    regions: [],
    dnsSuffix: 'amazonaws.eu',
    dualStackDnsSuffix: 'api.amazonwebservices.eu',
  },
  {
    name: 'aws-iso',
    regionRegex: /^us-iso-\w+-\d+$/,
    regions: ['aws-iso-global'],
    dnsSuffix: 'c2s.ic.gov',
    dualStackDnsSuffix: 'api.aws.ic.gov',
  },
  {
    name: 'aws-iso-b',
    regionRegex: /^us-isob-\w+-\d+$/,
    regions: ['aws-iso-b-global'],
    dnsSuffix: 'sc2s.sgov.gov',
    dualStackDnsSuffix: 'api.aws.scloud',
  },
  {
    name: 'aws-iso-e',
    regionRegex: /^eu-isoe-\w+-\d+$/,
    regions: ['aws-iso-e-global'],
    dnsSuffix: 'cloud.adc-e.uk',
    dualStackDnsSuffix: 'api.cloud-aws.adc-e.uk',
  },
  {
    name: 'aws-iso-f',
    regionRegex: /^us-isof-\w+-\d+$/,
    regions: ['aws-iso-f-global'],
    dnsSuffix: 'csp.hci.ic.gov',
    dualStackDnsSuffix: 'api.aws.hci.ic.gov',
  },
  {
    name: 'aws-us-gov',
    regionRegex: /^us-gov-\w+-\d+$/,
    regions: ['aws-us-gov-global'],
    dnsSuffix: 'amazonaws.com',
    dualStackDnsSuffix: 'api.aws',
  },
];

/**
 * The partition of a region, as the SDK's `aws.partition` finds it: a region a partition names,
 * else the first whose regex matches, else `aws` (the SDK places any well-formed region there).
 */
export function partitionOf(region: string): Partition {
  const aws = PARTITIONS[0] as Partition;
  return (
    PARTITIONS.find((p) => p.regions.includes(region)) ??
    PARTITIONS.find((p) => p.regionRegex.test(region)) ??
    aws
  );
}
