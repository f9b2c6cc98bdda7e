import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/errors/index.ts';
import { resourcesFromOutputs } from '../../lib/operate/index.ts';

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
