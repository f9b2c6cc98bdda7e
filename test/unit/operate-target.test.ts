import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime } from '../../lib/boot/index.ts';
import type { Runtime } from '../../lib/config/index.ts';
import { ValidationError } from '../../lib/errors/index.ts';
import { resourcesFromOutputs, resourcesTarget, stackTarget } from '../../lib/operate/index.ts';

const OUTPUTS = {
  SwitchboardTableName: 'Assistant-SwitchboardTable-1',
  SwitchboardQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/turns.fifo',
  SwitchboardDeadLetterQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/dlq.fifo',
  SwitchboardBucketName: 'assistant-files',
  SwitchboardHttpApiUrl: 'https://api.example.com',
};

describe("a stack's resources, from its outputs", () => {
  it('reads the table, the queues and the bucket the construct outputs', () => {
    expect(resourcesFromOutputs('Assistant', OUTPUTS)).toEqual({
      table: 'Assistant-SwitchboardTable-1',
      queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/turns.fifo',
      dlqUrl: 'https://sqs.eu-west-1.amazonaws.com/1/dlq.fifo',
      bucket: 'assistant-files',
    });
  });

  it('asks which construct when a stack has two, and takes the one named', () => {
    const two = {
      ...OUTPUTS,
      ...Object.fromEntries(
        Object.entries(OUTPUTS).map(([key, value]) => [key.replace('Switchboard', 'Staging'), `${value}-2`]),
      ),
    };
    expect(() => resourcesFromOutputs('Assistant', two)).toThrow(
      /several Switchboard constructs .*--construct/,
    );
    expect(resourcesFromOutputs('Assistant', two, 'Staging').table).toBe('Assistant-SwitchboardTable-1-2');
  });

  it('says which output is missing from a stack that is not a Switchboard one', () => {
    expect(() => resourcesFromOutputs('Other', { SomethingElse: 'x' })).toThrow(ValidationError);
    expect(() => resourcesFromOutputs('Other', { SomethingElse: 'x' })).toThrow(
      /no output ending in DeadLetterQueueUrl/,
    );
  });
});

describe('the region of a target’s clients', () => {
  const NAMES = [
    'AWS_REGION',
    'AWS_PROFILE',
    'AWS_CONFIG_FILE',
    'AWS_SHARED_CREDENTIALS_FILE',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_ENDPOINT_URL_CLOUDFORMATION',
  ];
  let saved: Record<string, string | undefined>;
  let server: Server | undefined;
  beforeEach(() => {
    saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
    for (const name of NAMES) delete process.env[name];
    // No profile of the machine's own files is read.
    process.env.AWS_CONFIG_FILE = join(tmpdir(), 'switchboard-no-config');
    process.env.AWS_SHARED_CREDENTIALS_FILE = join(tmpdir(), 'switchboard-no-credentials');
    process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
    process.env.AWS_SECRET_ACCESS_KEY = 'secret';
  });
  afterEach(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    server?.closeAllConnections();
    if (server) await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  /** The region of the runtime's table, queue and bucket clients. */
  async function regions(rt: Runtime): Promise<string[]> {
    const table = /^dynamodb\.([^.]+)\./.exec(new URL(await rt.db.endpoint()).hostname)?.[1] ?? '';
    const sqs = await (await rt.sqs()).config.region();
    const s3 = await (await rt.s3()).config.region();
    rt.db.destroy();
    return [table, sqs, s3];
  }

  it('is never a default: a runtime named no region is refused, as an SDK client is', () => {
    expect(() => createRuntime({ table: 't', queueUrl: 'https://q', bucket: 'b' })).toThrow(
      'Region is missing',
    );
  });

  it('is the SDK chain’s for resources named without --region, the same for the table, the queue and the bucket', async () => {
    process.env.AWS_REGION = 'eu-west-3';
    const queueUrl = 'https://sqs.eu-west-3.amazonaws.com/1/turns.fifo';
    const target = await resourcesTarget(
      { table: 't', queueUrl, dlqUrl: queueUrl.replace('turns', 'dlq'), bucket: 'b' },
      'table t',
    );
    expect(await regions(target.rt)).toEqual(['eu-west-3', 'eu-west-3', 'eu-west-3']);
  });

  it('with --stack and no --region, is the region of the stack’s ARN for every client', async () => {
    // CloudFormation's DescribeStacks, answered for a stack in ap-south-2, where the chain found it.
    const outputs = Object.entries(OUTPUTS)
      .map(
        ([key, value]) => `<member><OutputKey>${key}</OutputKey><OutputValue>${value}</OutputValue></member>`,
      )
      .join('');
    const listening = createServer((req, res) => {
      req.resume().on('end', () => {
        res.writeHead(200, { 'content-type': 'text/xml' });
        res.end(
          `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member><StackId>arn:aws:cloudformation:ap-south-2:123456789012:stack/Assistant/1</StackId><StackName>Assistant</StackName><CreationTime>2026-12-01T00:00:00Z</CreationTime><StackStatus>CREATE_COMPLETE</StackStatus><Outputs>${outputs}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></DescribeStacksResponse>`,
        );
      });
    });
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    process.env.AWS_ENDPOINT_URL_CLOUDFORMATION = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    process.env.AWS_REGION = 'ap-south-2';
    const target = await stackTarget('Assistant');
    expect(await regions(target.rt)).toEqual(['ap-south-2', 'ap-south-2', 'ap-south-2']);
  });
});
