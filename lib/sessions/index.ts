export { ownedSession } from './access.ts';
export { messageView, runView, type SessionStatus, sessionListView, sessionView, statusOf } from './views.ts';
