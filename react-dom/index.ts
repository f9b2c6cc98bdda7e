/**
 * `switchboard/react-dom`: the chat as components for the web — `<SwitchboardChat>` (a whole chat
 * with one agent), `<ThreadList>` (the caller's conversations), `<AgentPicker>` (the agents) and
 * `<RequestCard>` (the default card a team's own `renderRequest` can fall back to). Their look is
 * `switchboard/react-dom/styles.css`, themed with its `--sb-*` custom properties. React Native
 * apps use `switchboard/react` (the hook), which has no DOM in it.
 *
 * @example
 * ```tsx
 * import { SwitchboardChat } from 'switchboard/react-dom';
 * import 'switchboard/react-dom/styles.css';
 *
 * <SwitchboardChat key={sessionId} client={client} sessionId={sessionId} agentId="support" />
 * ```
 *
 * @module
 */
export { AgentPicker, type AgentPickerProps, type AgentSummary } from './agent-picker.tsx';
export { RequestCard, type RequestCardProps } from './cards.tsx';
export { type ChatViewProps, SwitchboardChat, type SwitchboardChatProps } from './chat.tsx';
export {
  AnswerControls,
  type AnswerControlsProps,
  type ChatSlots,
  type EditableFile,
  MessageEditor,
  type MessageEditorProps,
  useEditing,
} from './messages.tsx';
export { ThreadList, type ThreadListProps } from './thread-list.tsx';
