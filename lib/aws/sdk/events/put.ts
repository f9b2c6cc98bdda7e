/**
 * The EventBridge command that publishes (IAM `events:PutEvents`), loaded on first use with the
 * client (`Runtime.events()`), so the EventBridge SDK is never part of a function's cold start.
 */
export { PutEventsCommand } from '@aws-sdk/client-eventbridge';
