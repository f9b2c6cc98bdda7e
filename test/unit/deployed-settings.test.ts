import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { SETTINGS_FILE } from '../../lib/config/index.ts';
import { readZipEntry, settingsCodeLocations, settingsFromZip } from '../../lib/operate/index.ts';

/** A zip archive of these files, each deflated or stored, as a zip writer makes it. */
async function zipOf(files: Record<string, string>, deflate = true): Promise<Uint8Array> {
  const zip = new JSZip();
  for (const [name, text] of Object.entries(files)) zip.file(name, text);
  return zip.generateAsync({ type: 'uint8array', compression: deflate ? 'DEFLATE' : 'STORE' });
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

  it('reads the settings file from a deflated or a stored zip, with the defaults applied', async () => {
    const given = { runs: { cancelGraceMs: 3_000 } };
    for (const deflate of [true, false]) {
      const zip = await zipOf(
        { 'index.mjs': 'export const handler = 1;', [SETTINGS_FILE]: JSON.stringify(given) },
        deflate,
      );
      const settings = await settingsFromZip(zip, 'the worker');
      expect(settings.given).toEqual(given);
      expect(settings.effective.runs.cancelGraceMs).toBe(3_000);
      expect(settings.effective.runs.leaseMs).toBeGreaterThan(0);
    }
    expect(await readZipEntry(await zipOf({ 'a.txt': 'a' }), 'b.txt')).toBeUndefined();
    await expect(settingsFromZip(await zipOf({ 'index.mjs': '' }), 'the worker')).rejects.toThrow(
      `the worker has no ${SETTINGS_FILE}`,
    );
    await expect(
      readZipEntry(Buffer.from('not a zip at all, not even close'), SETTINGS_FILE),
    ).rejects.toThrow('not a zip archive');
  });
});
