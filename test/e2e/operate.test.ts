import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandName } from '../../cli/io.ts';
import { runCli } from '../../cli/program.ts';
import { ownerIdentity, withScope } from '../../lib/auth/index.ts';
import { sendMessage } from '../../lib/commands/index.ts';
import { ChatRequestSchema } from '../../lib/contract/index.ts';
import { parseDetail } from '../../lib/events/index.ts';
import { digest } from '../../lib/ids/index.ts';
import type {
  DeadLetter,
  DeployedSettings,
  OperatorTarget,
  Redriven,
  SessionReport,
} from '../../lib/operate/index.ts';
import { REDACTED, sandboxTarget } from '../../lib/operate/index.ts';
import { getRun, lastSeq } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { testApp } from '../support/agents.ts';
import { cliAgainst } from '../support/cli.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { api, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued, within } from '../support/wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url));

const agents = testApp();
for (const definition of pauseAgents().definitions) agents.app.registerHostAgent(definition);
/** Callers by token: `user@tenant`. */
const TOKENS: Record<string, { user: string; tenant?: string }> = {
  ops: { user: 'ops' },
  'ann@acme': { user: 'ann', tenant: 'acme' },
  'zed@globex': { user: 'zed', tenant: 'globex' },
  'eve@hooli': { user: 'eve', tenant: 'hooli' },
};
let sandbox: Sandbox;
let target: OperatorTarget;
const sid = sessionIds('op');
/** The functions' log at WARN, one entry a string, as `switchboard dev` prints it. */
const logs: string[] = [];

beforeAll(async () => {
  sandbox = await testSandbox({
    app: agents.app,
    logLevel: 'WARN',
    readableLogs: { write: (text) => logs.push(text), color: false },
    tokens: (token) => TOKENS[token] ?? null,
    // The held agent ignores its abort signal: a stopped turn is given up on after this grace.
    settings: { runs: { cancelGraceMs: 100 } },
  });
  target = await sandboxTarget(sandbox.url);
});
afterAll(async () => {
  await sandbox?.close();
});

/** The `switchboard` command, in this process, against the sandbox. */
const cli = (...args: string[]) => cliAgainst(sandbox.url, ...args);

/** Sends a message as `token`; the answer's JSON (202: the run id). */
async function send(token: string, session: string, agent: string, content: string) {
  const res = await api(
    sandbox.url,
    'POST',
    '/api/chat',
    { session_id: session, agent_id: agent, content },
    { token },
  );
  return res;
}

/** Waits until the run has ended; its status. */
async function ended(ref: string, runId: string): Promise<string | undefined> {
  await expect
    .poll(async () => (await getRun(sandbox.runtime, ref, runId))?.status, queued(`the end of run ${runId}`))
    .toMatch(/^(completed|requires_action|error|cancelled|incomplete)$/);
  return (await getRun(sandbox.runtime, ref, runId))?.status;
}

/**
 * Records a message exactly as the API does (session, message, run), with its job sent to the
 * dead-letter queue instead of the turns queue: a job that never ran, as one that failed before any
 * worker claimed it ends up.
 */
async function forceIntoDeadLetters(session: string, content: string) {
  const rt = { ...target.rt, queueUrl: target.dlqUrl };
  const request = ChatRequestSchema.parse({ session_id: session, agent_id: 'pauser', content });
  const caller = withScope(await rt.refKey(), ownerIdentity({ owner: 'ops' }));
  const accepted = await sendMessage(rt, agents.app, caller, { request });
  return { ref: refOf(session, 'ops'), runId: accepted.run_id };
}

/** The dead letter of one run (this file's tests leave each other's alone). */
async function deadLetterOf(runId: string): Promise<DeadLetter | undefined> {
  const listed = await cli('dlq', 'list', '--json');
  expect(listed.code, listed.stderr).toBe(0);
  return (listed.json() as DeadLetter[]).find((letter) => letter.job?.runId === runId);
}

describe('switchboard inspect', () => {
  it('shows a session, its run and the pending action it waits on', async () => {
    const session = sid('inspect');
    const sent = await send('ops', session, 'pauser', 'wire');
    expect(sent.status).toBe(202);
    const ref = refOf(session, 'ops');
    expect(await ended(ref, String(sent.json.run_id))).toBe('requires_action');

    const shown = await cli('inspect', session, '--user', 'ops', '--json');
    expect(shown.code, shown.stderr).toBe(0);
    const report = shown.json() as SessionReport;
    expect(report).toMatchObject({ ref, hostId: session, owner: 'ops', agentId: 'pauser' });
    expect(report.runs).toEqual([
      expect.objectContaining({ runId: sent.json.run_id, status: 'requires_action' }),
    ]);
    expect(report.actions).toEqual([
      expect.objectContaining({ actionId: 'req_wire', kind: 'tool_approval', status: 'pending' }),
    ]);
    expect(report.lastSeq).toBeGreaterThan(0);

    const text = await cli('inspect', ref);
    expect(text.stdout).toContain('req_wire tool_approval pending');
  });

  it('shows the end of the event log, --events of them, masked with --redact', async () => {
    const session = sid('log-end');
    const sent = await send('ops', session, 'pauser', 'a private note');
    const ref = refOf(session, 'ops');
    await ended(ref, String(sent.json.run_id));
    const report = (await cli('inspect', ref, '--json')).json() as SessionReport;
    expect(report.events.at(-1)).toMatchObject({ seq: report.lastSeq, type: 'session.status_idle' });
    expect(report.events.map((e) => e.type)).toContain('user.message');
    const two = (await cli('inspect', ref, '--events', '2', '--json')).json() as SessionReport;
    expect(two.events.map((e) => e.seq)).toEqual([report.lastSeq - 1, report.lastSeq]);

    const text = await cli('inspect', ref);
    expect(text.stdout).toMatch(/events \(the last \d+ of \d+/);
    expect(text.stdout).toContain('"a private note"');
    const redacted = await cli('inspect', ref, '--redact');
    expect(redacted.stdout).toContain('user.message');
    expect(redacted.stdout).not.toContain('private note');
  });

  it('--settings prints the settings the functions run with: as given, and with the defaults applied', async () => {
    const shown = await cli('inspect', '--settings', '--json');
    expect(shown.code, shown.stderr).toBe(0);
    const settings = shown.json() as DeployedSettings;
    expect(settings.given).toMatchObject({ runs: { cancelGraceMs: 100 } });
    expect(settings.effective.runs).toMatchObject({ cancelGraceMs: 100, leaseMs: expect.any(Number) });
    expect(settings.source).toContain(sandbox.url);
    expect((await cli('inspect', '--settings')).stdout).toContain('effective (defaults applied)');
    expect((await cli('inspect')).code).toBe(2);
    expect((await cli('inspect', 'some-session', '--settings')).code).toBe(2);
  });

  it("says a host's own id given without --user is scoped to its owner, and how to name it", async () => {
    const session = sid('unscoped');
    const sent = await send('ann@acme', session, 'pauser', 'hello');
    await ended(refOf(session, 'ann', 'acme'), String(sent.json.run_id));
    for (const command of ['inspect', 'tail', 'cancel']) {
      const missing = await cli(command, session);
      expect(missing.code, command).toBe(1);
      expect(missing.stderr).toContain(`Session "${session}" does not exist.`);
      expect(missing.stderr).toContain('scoped to its owner');
      expect(missing.stderr).toContain('--user');
      expect(missing.stderr).toContain("the session's ref");
    }
    // Named with its owner, it is found.
    expect((await cli('inspect', session, '--user', 'ann', '--tenant', 'acme')).code).toBe(0);
  });

  it('exits 1 with the error as JSON for a session that does not exist', async () => {
    const missing = await cli('inspect', 'nobody-has-this', '--json');
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr)).toEqual({
      error: { code: 'session_not_found', message: expect.stringContaining('nobody-has-this') },
    });
  });
});

describe('switchboard tail', () => {
  it('shows a live turn as it streams, and stops when it ends', async () => {
    const session = sid('tail');
    const sent = await send('ops', session, 'held', 'the tale');
    expect(sent.status).toBe(202);
    await agents.reached(session);
    let stdout = '';
    const tail = runCli(
      [
        'tail',
        refOf(session, 'ops'),
        '--after',
        '0',
        '--until-turn-ends',
        '--poll-ms',
        '50',
        '--sandbox',
        sandbox.url,
      ],
      { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: () => true } },
    );
    let finished = false;
    void tail.then(() => {
      finished = true;
    });
    // The first half is shown while the agent is still holding its turn open.
    await expect.poll(() => stdout, queued('the first half in the tail')).toContain('first half of the tale');
    expect(stdout).not.toContain('second half');
    expect(finished).toBe(false);
    agents.release(session);
    expect(await within(tail, 'the tail to end with the turn')).toBe(0);
    expect(stdout).toContain('second half.');
    expect(stdout.trim().split('\n').at(-1)).toMatch(/session\.status_idle .*status=completed/);
  });
});

describe('switchboard tail, once the turn has ended', () => {
  it('--until-turn-ends prints the log and exits when no turn is running', async () => {
    const session = sid('tail-ended');
    const sent = await send('ops', session, 'pauser', 'hello');
    const ref = refOf(session, 'ops');
    await ended(ref, String(sent.json.run_id));
    const tail = cli('tail', ref, '--after', '0', '--until-turn-ends', '--poll-ms', '50', '--json');
    const done = await within(tail, 'the tail of an ended turn to exit');
    expect(done.code, done.stderr).toBe(0);
    const lines = done.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { seq: number; type: string });
    expect(lines.map((e) => e.seq)).toEqual(lines.map((_, i) => i + 1));
    expect(lines.at(-1)?.type).toBe('session.status_idle');
    // Without --after: nothing new to show, and it still exits.
    expect((await within(cli('tail', ref, '--until-turn-ends'), 'an empty tail to exit')).code).toBe(0);
  });

  it('--redact masks what the users and the agent wrote and keeps ids, types and seqs', async () => {
    const session = sid('redact');
    const sent = await send('ops', session, 'pauser', 'wire');
    const ref = refOf(session, 'ops');
    await ended(ref, String(sent.json.run_id));
    const plain = await within(cli('tail', ref, '--after', '0', '--until-turn-ends', '--json'), 'the tail');
    const masked = await within(
      cli('tail', ref, '--after', '0', '--until-turn-ends', '--json', '--redact'),
      'the redacted tail',
    );
    type Line = { seq: number; type: string; run_id?: string; data: Record<string, unknown> };
    const parse = (stdout: string) =>
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Line);
    const [before, after] = [parse(plain.stdout), parse(masked.stdout)];
    expect(after.map(({ seq, type, run_id }) => ({ seq, type, run_id }))).toEqual(
      before.map(({ seq, type, run_id }) => ({ seq, type, run_id })),
    );
    expect(masked.stdout).not.toContain('I need your OK first.');
    expect(masked.stdout).not.toContain('Wire $5?');
    expect(plain.stdout).toContain('"amount":5');
    expect(masked.stdout).not.toContain('"amount":5');
    const asked = after.find((e) => e.type === 'user.message')?.data;
    expect(asked).toMatchObject({ content: REDACTED, message_id: expect.stringMatching(/^msg_/) });
    const required = after.find((e) => e.type === 'action.required')?.data as {
      actions: Record<string, unknown>[];
    };
    expect(required.actions[0]).toMatchObject({
      id: 'req_wire',
      type: 'tool_approval',
      toolName: 'wire_money',
      title: REDACTED,
      args: REDACTED,
    });
    expect(after.at(-1)?.data).toMatchObject({ status: 'requires_action' });

    // The answer: its decision stays, the edited arguments and the comment are masked.
    const answered = await api(
      sandbox.url,
      'POST',
      `/api/sessions/${ref}/actions/req_wire`,
      { decision: 'approve', approved_args: { amount: 7 }, comment: 'fine by me' },
      { token: 'ops' },
    );
    expect(answered.status, answered.text).toBe(202);
    await expect
      .poll(
        async () => (await getRun(sandbox.runtime, ref, String(answered.json.run_id)))?.status,
        queued("the answer's turn"),
      )
      .toBe('completed');
    const resolvedLog = await within(
      cli('tail', ref, '--after', '0', '--until-turn-ends', '--json', '--redact'),
      'the redacted tail of the answer',
    );
    expect(resolvedLog.stdout).not.toContain('fine by me');
    expect(resolvedLog.stdout).not.toContain('"amount":7');
    const resolved = parse(resolvedLog.stdout).find((e) => e.type === 'action.resolved')?.data;
    expect(resolved).toMatchObject({
      action_id: 'req_wire',
      status: 'resolved',
      resolution: { decision: 'approve', approved_args: REDACTED, comment: REDACTED },
    });
  });
});

describe('switchboard cancel', () => {
  it("stops a session's running turn", async () => {
    const session = sid('cancel');
    const sent = await send('ops', session, 'held', 'long');
    await agents.reached(session);
    const ref = refOf(session, 'ops');
    const cancelled = await cli('cancel', ref, '--json');
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.json()).toEqual({
      session: ref,
      runs: [expect.objectContaining({ runId: sent.json.run_id, outcome: 'cancelling' })],
    });
    expect(await ended(ref, String(sent.json.run_id))).toBe('cancelled');
    agents.release(session);
  });

  it('exits 1 with nothing_to_cancel when no turn runs', async () => {
    const session = sid('idle');
    const sent = await send('ops', session, 'pauser', 'hello');
    await ended(refOf(session, 'ops'), String(sent.json.run_id));
    const result = await cli('cancel', session, '--user', 'ops');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('has no queued or running turn');
  });

  it('--expire closes a queued run whose job no worker will get, and its dead letter is then only acknowledged', async () => {
    const { ref, runId } = await forceIntoDeadLetters(sid('expire'), 'hello');
    const expired = await cli('cancel', ref, '--expire', '--json');
    expect(expired.code, expired.stderr).toBe(0);
    expect(expired.json()).toMatchObject({ runs: [{ runId, outcome: 'expired' }] });
    expect(await getRun(sandbox.runtime, ref, runId)).toMatchObject({
      status: 'error',
      error: { code: 'job_lost' },
    });
    const letter = await deadLetterOf(runId);
    const redriven = await cli('dlq', 'redrive', letter!.messageId, '--json');
    expect(redriven.json()).toEqual([expect.objectContaining({ outcome: 'acknowledged', runId })]);
  });
});

describe('switchboard dlq', () => {
  it('lists a job that never ran, and redriven with a new deduplication id it completes its turn', async () => {
    const { ref, runId } = await forceIntoDeadLetters(sid('never-ran'), 'hello there');
    const letter = await deadLetterOf(runId);
    expect(letter).toMatchObject({ job: { kind: 'turn', sessionId: ref, runId }, run: { status: 'queued' } });
    const text = await cli('dlq', 'list');
    expect(text.stdout).toContain(`${letter!.messageId} turn session ${ref} run ${runId}: run queued`);

    const redriven = await cli('dlq', 'redrive', letter!.messageId, '--json');
    expect(redriven.code, redriven.stderr).toBe(0);
    const [result] = redriven.json() as Redriven[];
    expect(result).toMatchObject({ outcome: 'redriven', runId });
    // Not the id the job was first sent with: the queue would drop that one as a duplicate.
    expect(result?.deduplicationId).not.toBe(digest(ref, runId));
    expect(await ended(ref, runId)).toBe('completed');
    expect(await deadLetterOf(runId)).toBeUndefined();
  });

  it('acknowledges a job whose run is closed without running anything', async () => {
    const session = sid('closed');
    const ref = refOf(session, 'ops');
    const sent = await send('ops', session, 'demo', 'hello');
    const runId = String(sent.json.run_id);
    expect(await ended(ref, runId)).toBe('completed');
    const before = {
      run: await getRun(sandbox.runtime, ref, runId),
      seq: await lastSeq(sandbox.runtime, ref),
    };
    const invocations = agents.calls.demo;
    await (await target.rt.sqs()).send(
      new SendMessageCommand({
        QueueUrl: target.dlqUrl,
        MessageBody: JSON.stringify({ v: 1, kind: 'turn', sessionId: ref, runId, requestId: runId }),
        MessageGroupId: ref,
        MessageDeduplicationId: digest(ref, runId),
      }),
    );
    const letter = await deadLetterOf(runId);
    expect(letter?.run).toMatchObject({ status: 'completed' });

    const redriven = await cli('dlq', 'redrive', letter!.messageId, '--json');
    expect(redriven.json()).toEqual([
      expect.objectContaining({ outcome: 'acknowledged', detail: 'its run already ended (completed)' }),
    ]);
    expect(await deadLetterOf(runId)).toBeUndefined();
    // Gone: asked for again, it is not there.
    expect((await cli('dlq', 'redrive', letter!.messageId)).code).toBe(1);
    expect(await getRun(sandbox.runtime, ref, runId)).toEqual(before.run);
    expect(await lastSeq(sandbox.runtime, ref)).toBe(before.seq);
    expect(agents.calls.demo).toBe(invocations);
  });

  it('deletes a poison dead letter that redrive skips, and purges only with --yes', async () => {
    const group = sid('poison');
    const sendPoison = (body: string) =>
      target.rt.sqs().then((sqs) =>
        sqs.send(
          new SendMessageCommand({
            QueueUrl: target.dlqUrl,
            MessageBody: body,
            MessageGroupId: group,
            MessageDeduplicationId: digest(group, body),
          }),
        ),
      );
    const { MessageId: poison } = await sendPoison('not json at all');
    const skipped = await cli('dlq', 'redrive', poison!, '--json');
    expect(skipped.json()).toEqual([expect.objectContaining({ messageId: poison, outcome: 'skipped' })]);

    const deleted = await cli('dlq', 'delete', poison!, '--json');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.json()).toEqual([{ messageId: poison, unreadable: 'the body is not JSON' }]);
    const listed = (await cli('dlq', 'list', '--json')).json() as DeadLetter[];
    expect(listed.map((letter) => letter.messageId)).not.toContain(poison);
    // Gone: asked for again, it is not there.
    expect((await cli('dlq', 'delete', poison!)).code).toBe(1);

    const { MessageId: another } = await sendPoison('{"v":1}');
    const refused = await cli('dlq', 'purge');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--yes');
    expect(((await cli('dlq', 'list', '--json')).json() as DeadLetter[]).map((l) => l.messageId)).toContain(
      another,
    );
    const purged = await cli('dlq', 'purge', '--yes', '--json');
    expect(purged.code, purged.stderr).toBe(0);
    expect(purged.json()).toEqual(
      expect.arrayContaining([{ messageId: another, unreadable: 'the body is not a turn job' }]),
    );
    expect((await cli('dlq', 'list', '--json')).json()).toEqual([]);
  });
});

describe('switchboard tenant', () => {
  it("suspend stops the tenant's running turn and refuses its messages until resume; other tenants go on", async () => {
    const session = sid('suspended');
    const ref = refOf(session, 'ann', 'acme');
    const running = await send('ann@acme', session, 'held', 'long');
    await agents.reached(session);

    const suspended = await cli('tenant', 'suspend', 'acme', '--reason', 'unpaid', '--json');
    expect(suspended.code, suspended.stderr).toBe(0);
    expect(suspended.json()).toMatchObject({
      tenant: 'acme',
      stopped: [{ sessionId: ref, runIds: [running.json.run_id] }],
    });
    expect(await ended(ref, String(running.json.run_id))).toBe('cancelled');
    agents.release(session);

    const refused = await send('ann@acme', sid('after'), 'pauser', 'hello');
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ error: { code: 'tenant_suspended' } });
    expect((await send('zed@globex', sid('other'), 'pauser', 'hello')).status).toBe(202);
    expect((await cli('tenant', 'status', 'acme')).stdout).toContain('suspended since');

    expect((await cli('tenant', 'resume', 'acme')).code).toBe(0);
    expect((await send('ann@acme', sid('resumed'), 'pauser', 'hello')).status).toBe(202);
    expect((await cli('tenant', 'status', 'acme')).stdout).toContain('is not suspended');
  });
});

describe('switchboard erase', () => {
  it('erases a user whose turn is running: the turn is stopped, with no warning about a lost lease', async () => {
    const session = sid('erase-running');
    const ref = refOf(session, 'zed', 'globex');
    const running = await send('zed@globex', session, 'held', 'long');
    expect(running.status).toBe(202);
    await agents.reached(session);
    const erased = await cli('erase', '--user', 'zed', '--tenant', 'globex', '--yes', '--json');
    expect(erased.code, erased.stderr).toBe(0);
    expect(erased.json()).toMatchObject({ sessions: expect.arrayContaining([ref]) });
    // The delete run removes every item of the session, the running turn's run too, once it has ended.
    await expect
      .poll(() => getRun(sandbox.runtime, ref, String(running.json.run_id)), queued('the session removed'))
      .toBeUndefined();
    agents.release(session);
    // The log names the session by its host id: the delete run's lines are of this session.
    const lines = logs.filter((line) => line.includes(`session ${session} `));
    expect(lines.join('')).toContain('The agent ignored the stop');
    expect(lines.join('')).not.toContain('Lost the lease');
  });
});

describe('who did it: the audit of tenant suspend and erase', () => {
  /** The `Operator Action` events the sandbox's bus took so far, as a rule's target gets them. */
  const audits = () =>
    sandbox
      .events()
      .filter((e) => e.detailType === 'Operator Action')
      .map((e) => parseDetail('Operator Action', e.detail));
  /** The JSON audit line a command wrote on stderr. */
  const auditLine = (stderr: string) =>
    JSON.parse(stderr.split('\n').find((line) => line.includes('"Operator action"')) ?? '{}') as Record<
      string,
      unknown
    >;

  it('tenant suspend and resume publish an Operator Action event and log a line, naming --by', async () => {
    const suspended = await cli(
      'tenant',
      'suspend',
      'initech',
      '--reason',
      'audit me',
      '--by',
      'ops-alice',
      '--json',
    );
    expect(suspended.code, suspended.stderr).toBe(0);
    expect(suspended.json()).toMatchObject({ tenant: 'initech', audit: 'published' });
    const event = audits().find((a) => a.tenant === 'initech' && a.action === 'tenant_suspended');
    expect(event).toMatchObject({
      version: 1,
      operator: 'ops-alice',
      owner: null,
      reason: 'audit me',
      runsStopped: 0,
    });
    expect(auditLine(suspended.stderr)).toMatchObject({
      level: 'INFO',
      message: 'Operator action',
      event: 'published',
      action: 'tenant_suspended',
      operator: 'ops-alice',
      tenant: 'initech',
    });
    const resumed = await cli('tenant', 'resume', 'initech', '--by', 'ops-bob');
    expect(resumed.code).toBe(0);
    expect(audits()).toContainEqual(
      expect.objectContaining({ action: 'tenant_resumed', tenant: 'initech', operator: 'ops-bob' }),
    );
    // Nothing to resume: nothing happened, nothing to audit.
    const again = await cli('tenant', 'resume', 'initech', '--by', 'ops-carol');
    expect(again.stdout).toContain('was not suspended');
    expect(audits().some((a) => a.operator === 'ops-carol')).toBe(false);
  });

  it('erase records who erased whose data; a dry run records nothing; without --by it names the local user', async () => {
    const session = sid('audited');
    const sent = await send('eve@hooli', session, 'pauser', 'hello');
    await ended(refOf(session, 'eve', 'hooli'), String(sent.json.run_id));
    const before = audits().length;
    expect((await cli('erase', '--user', 'eve', '--tenant', 'hooli', '--dry-run')).code).toBe(0);
    expect(audits()).toHaveLength(before);

    const erased = await cli('erase', '--user', 'eve', '--tenant', 'hooli', '--yes', '--json');
    expect(erased.code, erased.stderr).toBe(0);
    const event = audits().at(-1);
    expect(event).toMatchObject({ action: 'data_erased', owner: 'eve', tenant: 'hooli', runsStopped: null });
    expect(event?.sessions).toBeGreaterThanOrEqual(1);
    expect(event?.operator).toMatch(/^.+@.+$/);
    expect(auditLine(erased.stderr)).toMatchObject({ action: 'data_erased', operator: event?.operator });
    expect((await cli('erase', '--user', 'eve', '--yes', '--by', ' ')).code).toBe(2);
  });
});

describe('the switchboard command', () => {
  it('names itself in hints as the user ran it', async () => {
    expect(commandName('/app/node_modules/.bin/switchboard')).toBe('switchboard');
    expect(commandName('/repo/bin/switchboard.ts')).toBe('switchboard');
    expect(commandName('/usr/lib/node_modules/sb')).toBe('sb');
    expect(commandName('/repo/node_modules/tsx/dist/cli.mjs')).toBe('switchboard');
    expect(commandName(undefined)).toBe('switchboard');
    let stderr = '';
    const io = { stdout: { write: () => true }, stderr: { write: (t: string) => (stderr += t) }, name: 'sb' };
    expect(await runCli(['dlq', 'list', '--max', 'lots', '--sandbox', sandbox.url], io)).toBe(2);
    expect(stderr).toContain('See sb <command> --help.');
    expect(stderr).not.toMatch(/\bswitchboard </);
    stderr = '';
    expect(await runCli(['inspect', 'someone-else', '--sandbox', sandbox.url], io)).toBe(1);
    expect(stderr).toContain('sb inspect');
  });

  it('answers a mistake on its command line with exit code 2', async () => {
    expect((await cli('dlq', 'list', '--max', 'lots')).code).toBe(2);
    const quiet = { stdout: { write: () => true }, stderr: { write: () => true } };
    expect(await runCli(['nonsense'], quiet)).toBe(2);
  });

  it('runs as the package bin: inspect --json against a sandbox', async () => {
    const session = sid('bin');
    const sent = await send('ops', session, 'pauser', 'hello');
    await ended(refOf(session, 'ops'), String(sent.json.run_id));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [TSX, 'bin/switchboard.ts', 'inspect', session, '--user', 'ops', '--sandbox', sandbox.url, '--json'],
      { cwd: ROOT, timeout: 60_000 },
    );
    expect(JSON.parse(stdout)).toMatchObject({ hostId: session, runs: [{ status: 'completed' }] });
  });
});
