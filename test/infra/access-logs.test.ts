import { beforeAll, describe, expect, it } from 'vitest';
import { idsOfType, type Resources, refOf, SYNTH_TIMEOUT_MS, synthSwitchboard } from './template-helpers.ts';

let resources: Resources;

beforeAll(() => {
  ({ resources } = synthSwitchboard());
}, SYNTH_TIMEOUT_MS);

/** A stage's access log settings, by the protocol of its API. */
function accessLogOf(protocol: 'HTTP' | 'WEBSOCKET'): { DestinationArn: unknown; Format: string } {
  const api = idsOfType(resources, 'AWS::ApiGatewayV2::Api').find(
    (id) => resources[id]?.Properties?.ProtocolType === protocol,
  );
  const stage = idsOfType(resources, 'AWS::ApiGatewayV2::Stage').find(
    (id) => refOf(resources[id]?.Properties?.ApiId) === api,
  );
  const settings = resources[stage ?? '']?.Properties?.AccessLogSettings;
  expect(settings, `${protocol} stage access log`).toBeDefined();
  return settings as { DestinationArn: unknown; Format: string };
}

/** Anything that can carry a token, a file or a host's words: headers, query strings, paths and bodies. */
const SECRET_BEARING =
  /header|querystring|userAgent|\.path\b|\$input|\$request|authorization|apiKey|clientCert/i;

describe('API access logs', () => {
  for (const protocol of ['HTTP', 'WEBSOCKET'] as const) {
    it(`${protocol}: one JSON line per request, in a log group of its own kept as long as the function logs`, () => {
      const { DestinationArn, Format } = accessLogOf(protocol);
      const group = resources[refOf(DestinationArn) ?? ''];
      expect(group?.Type).toBe('AWS::Logs::LogGroup');
      expect(group?.Properties?.RetentionInDays).toBe(30);
      const fields = JSON.parse(Format) as Record<string, string>;
      expect(fields).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
      expect(fields.routeKey).toBe('$context.routeKey');
    });

    it(`${protocol}: logs no header, query string, path or body`, () => {
      const fields = JSON.parse(accessLogOf(protocol).Format) as Record<string, string>;
      for (const value of Object.values(fields)) {
        expect(value).toMatch(/^\$context\.[A-Za-z.]+$/);
        expect(value).not.toMatch(SECRET_BEARING);
      }
    });
  }

  it('WEBSOCKET: names the connection and the event, since frames are not logged', () => {
    const fields = JSON.parse(accessLogOf('WEBSOCKET').Format) as Record<string, string>;
    expect(fields).toMatchObject({ connectionId: '$context.connectionId', eventType: '$context.eventType' });
  });
});
