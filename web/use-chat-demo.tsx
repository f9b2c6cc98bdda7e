/**
 * The useChat view as the demo page shows it: for the demo agent, beside the same issue list as the
 * hook view, whose view goes with every message and whose actions (`set_filter`, `close_issue`) the
 * agent may call; for another agent, the chat alone.
 */
import type { HostContextInput } from '../client/index.ts';
import { Issues, issueActions, pageContext, useIssues } from './demo-app.tsx';
import { UseChatView, type UseChatViewProps } from './use-chat-view.tsx';

/** The props of {@link UseChatDemo}: the view's, whether the issue list shows, and where its context goes. */
export interface UseChatDemoProps extends UseChatViewProps {
  showsApp: boolean;
  /** Where the page's current host context goes: the transport reads it at each send. */
  context: { current: HostContextInput | undefined };
}

export function UseChatDemo({ showsApp, context, ...view }: UseChatDemoProps) {
  const issues = useIssues();
  const actions = showsApp ? issueActions(issues) : undefined;
  // What the agent reads of the page is what it shows now.
  context.current = pageContext(showsApp ? issues.state : undefined, actions);
  return (
    <div className="page bare">
      <div className={showsApp ? 'layout' : 'layout chat-only'}>
        {showsApp && <Issues issues={issues} />}
        <UseChatView {...view} {...(actions && { actions })} />
      </div>
    </div>
  );
}
