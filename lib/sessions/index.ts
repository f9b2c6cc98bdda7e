export { ownedSession } from './access.ts';
export { EXPORT_INLINE_BYTES, exportLink, exportSession } from './export.ts';
export { feedbackView } from './feedback-view.ts';
export { messageView, runView, type SessionStatus, sessionListView, sessionView, statusOf } from './views.ts';
