import { EventBridgeClient, type EventBridgeClientConfig } from '@aws-sdk/client-eventbridge';

/**
 * Creates the EventBridge client. `createRuntime` imports this module with `import()` on the first
 * call of `Runtime.events()`, so the EventBridge SDK is a chunk loaded by a function's first domain
 * event, not at every cold start.
 */
export function createEventsClient(config: EventBridgeClientConfig): EventBridgeClient {
  return new EventBridgeClient(config);
}
