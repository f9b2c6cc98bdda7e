/**
 * Which conversation a tapped notification opens. The push a backend sends when the agent asks
 * (docs/hosts.md, "A push notification when the agent asks") carries `data: { sessionId, actionId }`:
 * the app opens that session, whose log shows the request to answer. Pure, so a test checks it
 * without a device; App.tsx feeds it expo-notifications' responses.
 */

/** The session ids the server accepts (lib/contract/ids.ts's SESSION_ID_PATTERN; a test keeps them equal). */
export const SESSION_ID_PATTERN = /^(?:[A-Za-z0-9_-]{32}~)?[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/** What the app reads of expo-notifications' `NotificationResponse`. */
export interface TappedNotification {
  actionIdentifier: string;
  notification: { request: { content: { data?: unknown } } };
}

/** expo-notifications' `DEFAULT_ACTION_IDENTIFIER`: the notification itself was tapped (not one of its buttons). */
export const TAP = 'expo.modules.notifications.actions.DEFAULT';

/**
 * The session a notification's data names, or undefined when it names none the server would accept
 * (another app's push, a malformed payload): the app then stays where it is.
 */
export function sessionOfNotificationData(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { sessionId } = data as { sessionId?: unknown };
  return typeof sessionId === 'string' && SESSION_ID_PATTERN.test(sessionId) ? sessionId : undefined;
}

/** The session to open for a notification response: a tap on the notification that names one. */
export function sessionToOpen(response: TappedNotification | null | undefined): string | undefined {
  if (!response || response.actionIdentifier !== TAP) return undefined;
  return sessionOfNotificationData(response.notification.request.content.data);
}
