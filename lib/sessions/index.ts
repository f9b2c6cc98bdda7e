export { ownedSession } from './access.ts';
export { messageView, runView, type SessionStatus, sessionView, statusOf } from './views.ts';
