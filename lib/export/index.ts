export { exportSession } from './export.ts';
