export { type Fault, type FaultOptions, FaultPlan, type FaultRates, type InjectedFault } from './faults.ts';
export { type AwsFront, type AwsFrontOptions, type FrontTarget, startAwsFront } from './front.ts';
export { type Fronts, type FrontsOptions, startFronts } from './fronts.ts';
export { ADMIN_KEY, type Caller, credentialsOf, SANDBOX_SECRET } from './identity.ts';
export type { ResourceNames, Service } from './operations.ts';
