export { type Audited, type OperatorAction, recordOperatorAction } from './audit.ts';
export { addBudget, type BudgetAdded } from './budget.ts';
export { type CancelledRun, cancelRuns, expireRuns } from './cancel.ts';
export { deleteDeadLetters, listDeadLetters, redriveDeadLetters } from './dlq.ts';
export { type Erased, eraseOwner, eraseTenant } from './erase.ts';
export { INSPECT_EVENTS, inspectSession, type SessionReport } from './inspect.ts';
export { type OwnedItems, type Owner, ownedItems, tenantOwners } from './owners.ts';
export { REDACTED, redactEvent } from './redact.ts';
export {
  type DeployedSettings,
  settingsCodeLocations,
  settingsFromZip,
  settingsOf,
  stackSettings,
} from './settings.ts';
export { describeEvent, type TailOptions, tailSession } from './tail.ts';
export {
  resourcesFromOutputs,
  resourcesTarget,
  SANDBOX_OPERATE_PATH,
  sandboxTarget,
  stackTarget,
} from './target.ts';
export { resumeTenant, type Suspended, suspendTenant, tenantStatus } from './tenants.ts';
export {
  type DeadLetter,
  type DeletedDeadLetter,
  type OperatorTarget,
  type Redriven,
  type SandboxResources,
  SandboxResourcesSchema,
  type StackResources,
  StackResourcesSchema,
} from './types.ts';
export { readZipEntry } from './zip.ts';
