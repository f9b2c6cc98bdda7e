export {
  type Answerable,
  answerableSession,
  type GateOptions,
  ownedSession,
  sessionNotFound,
  writableSession,
} from './access.ts';
export { feedbackView } from './feedback-view.ts';
export { SESSION_TITLE_LENGTH, sessionTitle } from './title.ts';
export {
  listedMessage,
  type MessageView,
  messageView,
  resultFilesView,
  runView,
  type SessionStatus,
  sessionListView,
  sessionView,
  statusOf,
} from './views.ts';
