import { readFile } from 'node:fs/promises';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, ScheduledEvent, SQSEvent } from 'aws-lambda';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Gateway,
  startGateway,
  type WebSocketAuthorizerEvent,
  type WebSocketEvent,
} from '../../sandbox/gateway/index.ts';
import { startSchedule } from '../../sandbox/schedule.ts';
import { startSqsPoller } from '../../sandbox/sqs-poller.ts';
import { openSocket, Recorder, send } from './helpers.ts';
import { shapeDifferences } from './shape.ts';

type Json = Record<string, unknown>;

/** AWS's sample Lambda events, kept in `test/fixtures/aws-events/` (see its README). */
async function sample(name: string): Promise<Json> {
  return JSON.parse(
    await readFile(new URL(`../fixtures/aws-events/${name}`, import.meta.url), 'utf8'),
  ) as Json;
}

function without(value: Json, ...keys: string[]): Json {
  return Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
}

const record = (value: unknown): Json => value as Json;

describe('the shape comparison', () => {
  it('reports a missing key, an extra key and a changed type, and ignores map keys', () => {
    const maps = { maps: ['headers'] };
    expect(shapeDifferences({ a: 1, headers: { x: 'y' } }, { a: 2, headers: { z: 'w' } }, maps)).toEqual([]);
    expect(shapeDifferences({ a: '1', c: true }, { a: 1, b: null })).toEqual([
      '$.a: "string" instead of "number"',
      '$.b: missing (expected "null")',
      '$.c: unexpected ("boolean")',
    ]);
  });
});

describe('events have the shape of the AWS samples', () => {
  let gateway: Gateway;
  let authorized: Gateway;
  const http = new Recorder<APIGatewayProxyEventV2>();
  const ws = new Recorder<WebSocketEvent>();
  const wsAuthorizer = new Recorder<WebSocketAuthorizerEvent>();

  beforeAll(async () => {
    const websocket = {
      routes: ['send'],
      handler: async (event: WebSocketEvent) => void ws.push(event),
    };
    gateway = await startGateway({
      port: 0,
      http: { routes: ['POST /api/sessions/{id}'], handler: async (event) => void http.push(event) },
      websocket,
    });
    authorized = await startGateway({
      port: 0,
      http: {
        routes: ['$default'],
        authorizer: async () => ({ key: 'value' }),
        handler: async (event) => void http.push(event),
      },
      websocket: {
        ...websocket,
        authorizer: async (event) => {
          wsAuthorizer.push(event);
          return { principalId: 'me' };
        },
      },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await authorized.close();
  });

  // Cookies, a query string, path parameters and a body are sent only when a request has them,
  // and the no-authoriser sample has none: the request below has all four, and their shapes come
  // from the Lambda-authoriser sample. `authentication` is there only with mutual TLS.
  it('HTTP API payload 2.0 event, no authoriser', async () => {
    await fetch(`${gateway.url}/api/sessions/abc?parameter1=value1&parameter1=value2&parameter2=value`, {
      method: 'POST',
      headers: { cookie: 'cookie1; cookie2', 'content-type': 'application/json' },
      body: '{"a": 1}',
    });
    const event = await http.waitFor(
      (e) => e.rawPath === '/api/sessions/abc',
      'the POST /api/sessions/abc event',
    );
    const plain = await sample('apigw-v2-request-no-authorizer.json');
    const withFields = await sample('apigw-v2-request-lambda-authorizer.json');
    const expected = {
      ...plain,
      requestContext: without(record(plain.requestContext), 'authentication'),
      cookies: withFields.cookies,
      queryStringParameters: withFields.queryStringParameters,
      pathParameters: withFields.pathParameters,
      body: withFields.body,
    };
    const maps = ['headers', 'queryStringParameters', 'pathParameters'];
    expect(shapeDifferences(event, expected, { maps })).toEqual([]);
  });

  // Same optional fields as above; stage variables are not configured here.
  it('HTTP API payload 2.0 event with a Lambda authoriser', async () => {
    await fetch(`${authorized.url}/my/path?parameter1=value1&parameter2=value`, {
      method: 'POST',
      headers: { cookie: 'cookie1; cookie2', 'content-type': 'application/json' },
      body: '{"a": 1}',
    });
    const event = await http.waitFor((e) => e.rawPath === '/my/path', 'the authorised POST /my/path event');
    const expected = without(
      await sample('apigw-v2-request-lambda-authorizer.json'),
      'stageVariables',
      'pathParameters',
    );
    expected.requestContext = without(record(expected.requestContext), 'authentication');
    const maps = ['headers', 'queryStringParameters', 'requestContext.authorizer.lambda'];
    expect(shapeDifferences(event, expected, { maps })).toEqual([]);
  });

  // The query string makes queryStringParameters present. The sample's client sent no
  // User-Agent, so its identity has none; neither does this client (ws sends none by default).
  it('WebSocket $connect event, and the REQUEST event of a $connect authoriser', async () => {
    const connectSample = await sample('apigw-websocket-connect-authorizer-request.json');
    const maps = [
      'headers',
      'multiValueHeaders',
      'queryStringParameters',
      'multiValueQueryStringParameters',
      'stageVariables',
    ];

    const client = await openSocket(`${gateway.wsUrl}?QueryString1=queryValue1`);
    // This test's $connect (the other test's sockets connect without a query string).
    const connect = await ws.waitFor(
      (e) =>
        e.requestContext.eventType === 'CONNECT' &&
        'queryStringParameters' in e &&
        e.queryStringParameters?.QueryString1 === 'queryValue1',
      'the $connect event with the query string',
    );
    expect(shapeDifferences(connect, without(connectSample, 'type', 'methodArn'), { maps })).toEqual([]);
    client.socket.close();

    const other = await openSocket(`${authorized.wsUrl}?QueryString1=queryValue1`);
    const request = await wsAuthorizer.waitFor(() => true, 'the $connect authoriser event');
    expect(shapeDifferences(request, connectSample, { maps })).toEqual([]);
    other.socket.close();
  });

  it('WebSocket MESSAGE and DISCONNECT events', async () => {
    const client = await openSocket(gateway.wsUrl, { 'User-Agent': 'Mozilla/5.0' });
    await send(client.socket, '{\r\n\t"a": 1\r\n}');
    const message = await ws.waitFor((e) => e.requestContext.eventType === 'MESSAGE', 'the MESSAGE event');
    expect(shapeDifferences(message, await sample('apigw-websocket-request-send-message.json'))).toEqual([]);

    client.socket.close(1001);
    const { connectionId } = message.requestContext;
    const disconnect = await ws.waitFor(
      (e) => e.requestContext.eventType === 'DISCONNECT' && e.requestContext.connectionId === connectionId,
      'the DISCONNECT event',
    );
    const maps = ['headers', 'multiValueHeaders'];
    expect(
      shapeDifferences(disconnect, await sample('apigw-websocket-request-disconnect.json'), { maps }),
    ).toEqual([]);
  });
});

describe('SQS and EventBridge events have the shape of the AWS samples', () => {
  let fauxqs: FauxqsServer;

  beforeAll(async () => {
    fauxqs = await startFauxqs({ port: 0, logger: false });
  });
  afterAll(() => fauxqs.stop());

  // The message carries String, Number and Binary attributes so that md5OfMessageAttributes and
  // every messageAttributes field are present; a FIFO queue adds three attributes to each record.
  it('SQS event source batch from a FIFO queue', async () => {
    const sqs = new SQSClient({
      endpoint: fauxqs.address,
      useQueueUrlAsEndpoint: false,
      region: 'us-west-2',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const { queueUrl } = fauxqs.createQueue('shape.fifo', {
      region: 'us-west-2',
      attributes: { FifoQueue: 'true' },
    });
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: 'Message Body',
        MessageGroupId: 'g',
        MessageDeduplicationId: 'd',
        MessageAttributes: {
          Attribute1: { DataType: 'String', StringValue: 'AttributeValue1' },
          Attribute2: { DataType: 'Number', StringValue: '123' },
          Attribute3: { DataType: 'Binary', BinaryValue: Buffer.from('1100') },
        },
      }),
    );
    const batches = new Recorder<SQSEvent>();
    const poller = await startSqsPoller({
      sqs,
      queueUrl,
      handler: async (event) => void batches.push(event),
    });
    const batch = await batches.waitFor(() => true, 'the SQS batch');
    await poller.stop();
    sqs.destroy();

    const expected = await sample('sqs-event.json');
    const [first] = expected.Records as Json[];
    const fifo = { MessageGroupId: 'g', MessageDeduplicationId: 'd', SequenceNumber: '1' };
    expected.Records = [{ ...first, attributes: { ...record(first?.attributes), ...fifo } }];
    expect(shapeDifferences(batch, expected, { maps: ['Records.*.messageAttributes'] })).toEqual([]);
  });

  // `replay-name` is only on events replayed from an archive.
  it('EventBridge Scheduled Event', async () => {
    const events = new Recorder<ScheduledEvent>();
    const ruleArn = 'arn:aws:events:us-west-1:111122223333:rule/sweep';
    const schedule = startSchedule({
      periodMs: 60_000,
      ruleArn,
      handler: async (event) => void events.push(event),
    });
    await schedule.tick();
    await schedule.stop();
    const [event] = events.items;
    expect(event).toMatchObject({
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      resources: [ruleArn],
      detail: {},
    });
    const expected = without(await sample('eventbridge-event.json'), 'replay-name');
    expect(shapeDifferences(event, expected, { maps: ['detail'] })).toEqual([]);
  });
});
