export { EXPORT_INLINE_BYTES, exportLink, exportSession } from './export.ts';
