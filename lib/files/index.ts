export { agentFile, conversationFiles, fileIdsOf, sessionFiles } from './agent-files.ts';
export { acceptsType, checkAgentFiles, uploadLimit } from './agent-limits.ts';
export { deleteFile, deleteOwnedFile, isLive, sweepExpiredFiles } from './lifecycle.ts';
export { checkDirectUpload, DIRECT_UPLOAD_MAX_BYTES } from './limits.ts';
export { type AttachedFile, checkNewSessionFiles, countSessionFiles } from './session-quota.ts';
export { extractText, htmlToText, type TextKind, textKindOf } from './text.ts';
export { createUpload, fileView, ownedFile, storeUpload, UploadRequestSchema } from './upload.ts';
