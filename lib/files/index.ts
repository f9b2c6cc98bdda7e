export { agentFile, conversationFiles, fileIdsOf, sessionFiles } from './agent-files.ts';
export { acceptsType, checkAgentFiles, uploadLimit } from './agent-limits.ts';
export {
  deleteFile,
  deleteOwnedFile,
  isLive,
  sweepExpiredFiles,
  UPLOAD_URL_MARGIN_MS,
  uploadMayCome,
} from './lifecycle.ts';
export { checkDirectUpload, DIRECT_UPLOAD_MAX_BYTES } from './limits.ts';
export { sweepOrphanFiles } from './orphans.ts';
export { type AttachedFile, checkNewSessionFiles, countSessionFiles } from './session-quota.ts';
export { extractText, htmlToText, type TextKind, textKindOf } from './text.ts';
export {
  createUpload,
  fileView,
  ownedFile,
  storeUpload,
} from './upload.ts';
