export { rateMessage } from './rate.ts';
