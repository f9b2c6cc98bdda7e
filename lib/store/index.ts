export {
  type ActionRecord,
  actionsDueBy,
  byAsked,
  type Decision,
  decideAction,
  dueActions,
  getAction,
  isOpen,
  listActions,
  markExpiringAnnounced,
  openActions,
  promoteAction,
  putAction,
} from './actions.ts';
export {
  deleteBlobs,
  deleteSessionObjects,
  exportsFolder,
  getBlob,
  INLINE_LIMIT_BYTES,
  isMissingObject,
  jsonBytes,
  LINK_SECONDS,
  linkedCopy,
  putBlob,
} from './blobs.ts';
export {
  type ConnectionRecord,
  dueConnections,
  markReplayed,
  putConnection,
  removeConnection,
  type Subscriber,
  subscribe,
  subscribers,
} from './connections.ts';
export { dueBucketsOf, dueKeys, queryDue } from './due.ts';
export { appendEvents, lastSeq, listEvents, type SessionEvent } from './events.ts';
export { type FeedbackRecord, listFeedback, putFeedback, type Rating } from './feedback.ts';
export {
  addSessionFiles,
  deleteFileRecord,
  dueFiles,
  type FileRecord,
  getFile,
  getSessionFiles,
  markFileDeleting,
  markFileStored,
  putFile,
  releaseFileBytes,
  reserveFileBytes,
  type SessionFiles,
} from './files.ts';
export {
  dueBucket,
  dueShard,
  INDEXES,
  keys,
  OWNER_INDEX_ATTRIBUTES,
  ownerIndexKeys,
  ownerPartition,
  prefixes,
  seqKey,
  tenantPartition,
  ttlAt,
} from './keys.ts';
export {
  getMessage,
  listMessages,
  type MessageRecord,
  messageId,
  putMessage,
  type Replacement,
  type StoredAttachment,
} from './messages.ts';
export { claimOrphanPass, finishOrphanPass, recordedFiles } from './orphan-files.ts';
export { type CounterKey, countRequest } from './rate-counters.ts';
export {
  forgetTool,
  listRememberedTools,
  type RememberedTool,
  rememberTool,
} from './remembered-tools.ts';
export { markReplaced } from './replacements.ts';
export { findRequest, type RequestRecord, recordRequest } from './requests.ts';
export { type RetainedKind, retentionDays, retentionTtl } from './retention.ts';
export {
  abandonQueuedRun,
  cancelRequestsOf,
  claimRun,
  claimRunOrFind,
  finishRun,
  keepRunResume,
  postponeRun,
  renewLease,
  requestCancel,
  requestInterrupt,
  runResume,
  steerRun,
  takeOverRun,
} from './run-transitions.ts';
export {
  busyRuns,
  type CancelReason,
  dueRuns,
  getRun,
  putRun,
  REQUEUE_AFTER_MS,
  type RunKind,
  type RunOutcome,
  type RunRecord,
} from './runs.ts';
export {
  deletePartition,
  ensureSession,
  getSession,
  latestRun,
  listOwnedSessions,
  listRuns,
  markDeleted,
  type SessionRecord,
  setHostContext,
  touchSession,
} from './sessions.ts';
export {
  addDaySpend,
  addSessionBudget,
  addSessionSpend,
  daySpend,
  REMEMBERED_RUNS,
  settleDaySpend,
} from './spend.ts';
export { deleteSuspension, getSuspension, putSuspension, type SuspensionRecord } from './suspensions.ts';
export { BATCH_WRITE_ATTEMPTS, batchWrite, isConditionFailure, queryAll, strip } from './table.ts';
export type { ActionStatus, RunStatus, Transition } from './types.ts';
