import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SETTINGS_FILE } from '../../lib/config/index.ts';
import { readZipEntry, settingsCodeLocations, settingsFromZip } from '../../lib/operate/index.ts';

/** A zip archive of these files, each deflated or stored, laid out as zip writers (and CDK's) do. */
function zipOf(files: Record<string, string>, deflate = true): Buffer {
  const locals: Buffer[] = [];
  const entries: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const raw = Buffer.from(text);
    const data = deflate ? deflateRawSync(raw) : raw;
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(deflate ? 8 : 0, 10);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(raw.length, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    entries.push(entry, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(entries);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

describe('the settings of a deployed function', () => {
  it("finds each Switchboard function's code zip in the template, in the CDK assets bucket of the stack's account and Region", () => {
    const template = {
      Resources: {
        Worker: {
          Type: 'AWS::Lambda::Function',
          Properties: {
            Code: {
              // CloudFormation's own placeholders (`${AWS::AccountId}`), as CDK writes them.
              S3Bucket: { 'Fn::Sub': `cdk-hnb659fds-assets-$\{AWS::AccountId}-$\{AWS::Region}` },
              S3Key: 'abc123.zip',
            },
            Environment: { Variables: { SWITCHBOARD_SETTINGS_FILE: SETTINGS_FILE } },
          },
        },
        Unrelated: { Type: 'AWS::Lambda::Function', Properties: { Code: { ZipFile: 'x' } } },
        Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
      },
    };
    const arn = 'arn:aws:cloudformation:eu-west-1:123456789012:stack/Assistant/0f1e2d3c';
    expect(settingsCodeLocations(template, arn)).toEqual([
      { logicalId: 'Worker', bucket: 'cdk-hnb659fds-assets-123456789012-eu-west-1', key: 'abc123.zip' },
    ]);
  });

  it('reads the settings file from a deflated or a stored zip, with the defaults applied', () => {
    const given = { runs: { cancelGraceMs: 3_000 } };
    for (const deflate of [true, false]) {
      const zip = zipOf(
        { 'index.mjs': 'export const handler = 1;', [SETTINGS_FILE]: JSON.stringify(given) },
        deflate,
      );
      const settings = settingsFromZip(zip, 'the worker');
      expect(settings.given).toEqual(given);
      expect(settings.effective.runs.cancelGraceMs).toBe(3_000);
      expect(settings.effective.runs.leaseMs).toBeGreaterThan(0);
    }
    expect(readZipEntry(zipOf({ 'a.txt': 'a' }), 'b.txt')).toBeUndefined();
    expect(() => settingsFromZip(zipOf({ 'index.mjs': '' }), 'the worker')).toThrow(
      `the worker has no ${SETTINGS_FILE}`,
    );
    expect(() => readZipEntry(Buffer.from('not a zip at all, not even close'), SETTINGS_FILE)).toThrow(
      'not a zip archive',
    );
  });
});
