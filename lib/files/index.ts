export { checkDirectUpload, DIRECT_UPLOAD_MAX_BYTES } from './limits.ts';
export { type AttachedFile, checkNewSessionFiles, countSessionFiles } from './session-quota.ts';
export { createUpload, fileView, ownedFile, storeUpload, UploadRequestSchema } from './upload.ts';
