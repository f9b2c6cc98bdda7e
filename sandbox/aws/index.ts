export { checksumRefusal } from './checksums.ts';
export {
  FAULT_PROFILES,
  type Fault,
  type FaultBursts,
  type FaultCounts,
  type FaultOptions,
  FaultPlan,
  type FaultProfile,
  type FaultRates,
  type FaultReport,
  faultProfile,
  faultReportText,
  type InjectedFault,
  parseFaults,
} from './faults.ts';
export { type AwsFront, type AwsFrontOptions, startAwsFront } from './front.ts';
export { type Fronts, type FrontsOptions, startFronts } from './fronts.ts';
export { ADMIN_KEY, type Caller, credentialsOf, SANDBOX_SECRET } from './identity.ts';
export type { FrontTarget } from './operation-of.ts';
export { type ResourceNames, type Service, secretArn } from './operations.ts';
export { checkPresigned } from './presign.ts';
