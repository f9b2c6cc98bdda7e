export { ownedSession } from './access.ts';
export { feedbackView } from './feedback-view.ts';
export { messageView, runView, type SessionStatus, sessionListView, sessionView, statusOf } from './views.ts';
