export { checksumRefusal } from './checksums.ts';
export { type Fault, type FaultOptions, FaultPlan, type FaultRates, type InjectedFault } from './faults.ts';
export { type AwsFront, type AwsFrontOptions, startAwsFront } from './front.ts';
export { type Fronts, type FrontsOptions, startFronts } from './fronts.ts';
export { ADMIN_KEY, type Caller, credentialsOf, SANDBOX_SECRET } from './identity.ts';
export type { FrontTarget } from './operation-of.ts';
export { type ResourceNames, type Service, secretArn } from './operations.ts';
export { checkPresigned } from './presign.ts';
