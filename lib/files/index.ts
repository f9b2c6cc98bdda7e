export { createUpload, fileView, ownedFile, storeUpload, UploadRequestSchema } from './upload.ts';
