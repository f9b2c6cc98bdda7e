import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Query } from '../../lib/aws/index.ts';
import { digest } from '../../lib/ids/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { ensureSession, keys, markDeleted } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { runAgents } from '../support/run-agents.ts';
import { api, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { TestSocket } from '../support/ws-client.ts';

const runs = runAgents();
const app = createSwitchboard();
for (const d of runs.definitions) app.registerHostAgent(d);
let sandbox: Sandbox;
let host: TestSocket;
const sid = sessionIds('hs');

beforeAll(async () => {
  // A stopped turn that ignores its signal holds its session for the whole grace: a delete stays
  // in progress until the test lets the turn return.
  sandbox = await testSandbox({ app, settings: { runs: { cancelPollMs: 50, cancelGraceMs: 20_000 } } });
  host = await TestSocket.open(sandbox.wsUrl);
});
afterAll(async () => {
  await host?.close();
  await sandbox?.close();
});

/** Every item stored under the session's partition. */
async function partition(id: string) {
  const { Items } = await sandbox.runtime.db.send(
    new Query({
      TableName: sandbox.runtime.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.session(refOf(id)).pk },
    }),
  );
  return Items ?? [];
}

const NOT_PENDING = (callId: string) => ({
  error: { code: 'not_pending', message: `No host tool call "${callId}" is pending in this session.` },
});

describe('a continuation into a session that does not exist', () => {
  it('is 409 not_pending over HTTP and creates nothing', async () => {
    const id = sid('cont');
    const res = await api(sandbox.url, 'POST', '/api/chat', {
      id: 'req-1',
      session_id: id,
      agent_id: 'polite',
      content: '',
      tool_call_id: 'call_1',
      tool_result: { ok: true },
    });
    expect(res.status).toBe(409);
    expect(res.json).toEqual(NOT_PENDING('call_1'));
    expect((await api(sandbox.url, 'GET', `/api/sessions/${id}`)).status).toBe(404);
    expect(await partition(id)).toEqual([]);
  });

  it('is 409 not_pending without a session id too (the derived session is not made)', async () => {
    const res = await api(sandbox.url, 'POST', '/api/chat', {
      id: 'req-derived',
      agent_id: 'polite',
      content: '',
      tool_call_id: 'call_2',
      tool_result: 'done',
    });
    expect(res.status).toBe(409);
    expect(res.json).toEqual(NOT_PENDING('call_2'));
    const derived = `s_${digest('anonymous', 'req-derived')}`;
    expect((await api(sandbox.url, 'GET', `/api/sessions/${derived}`)).status).toBe(404);
    expect(await partition(derived)).toEqual([]);
  });

  it('is an assistant:error of type session over the WebSocket, and joins the socket to nothing', async () => {
    const id = sid('wscont');
    const answer = await host.request({
      action: 'assistant_message',
      id: 'req-ws',
      session_id: id,
      agent_id: 'polite',
      content: '',
      tool_call_id: 'call_3',
      tool_result: { ok: true },
    });
    expect(answer).toEqual({
      type: 'assistant:error',
      request_id: 'req-ws',
      error: {
        type: 'session',
        code: 'not_pending',
        message: 'No host tool call "call_3" is pending in this session.',
        path: [],
      },
    });
    expect((await api(sandbox.url, 'GET', `/api/sessions/${id}`)).status).toBe(404);
    expect(await partition(id)).toEqual([]);
  });
});

describe('DELETE /api/sessions/{id} a second time', () => {
  it('is 404 session_not_found while the first delete is still in progress, and queues no second delete', async () => {
    const id = sid('del');
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: id,
      agent_id: 'stubborn',
      content: 'hold on',
    });
    expect(accepted.type).toBe('assistant:accepted');
    await runs.started(id);
    const first = await api(sandbox.url, 'DELETE', `/api/sessions/${id}`);
    expect(first).toMatchObject({ status: 202, json: { session_id: id, status: 'deleting' } });
    // The stubborn turn still holds the session, so the delete run has not removed anything yet.
    const marked = await partition(id);
    expect(marked.find((item) => item.sk === 'META')).toMatchObject({ deletedAt: expect.any(String) });
    const second = await api(sandbox.url, 'DELETE', `/api/sessions/${id}`);
    expect(second.status).toBe(404);
    expect(second.json).toMatchObject({ error: { code: 'session_not_found' } });
    const deleteRuns = (await partition(id)).filter((item) => item.type === 'run' && item.kind === 'delete');
    expect(deleteRuns).toHaveLength(1);
    runs.release(id);
    await host.waitFor((f) => f.session_id === id && f.type === 'session.deleted', 'session.deleted');
    await expect
      .poll(async () => (await partition(id)).length, queued('every item of the session removed'))
      .toBe(0);
  });

  it('finishes, with a 404, the work of a delete that marked the session and stopped before queueing its run', async () => {
    const id = sid('crashed');
    const rt = sandbox.runtime;
    await ensureSession(rt, {
      sessionId: id,
      owner: 'anonymous',
      agentId: 'polite',
      createdAt: new Date().toISOString(),
    });
    // What a delete leaves behind when it stops right after its first write.
    expect(await markDeleted(rt, id, Date.now(), 'run_01JCRASHEDDELETE0000000000')).toBe(true);
    const res = await api(sandbox.url, 'DELETE', `/api/sessions/${id}`);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error: { code: 'session_not_found' } });
    await expect
      .poll(async () => (await partition(id)).length, queued('every item of the session removed'))
      .toBe(0);
    // The id is free again.
    expect((await api(sandbox.url, 'GET', `/api/sessions/${id}`)).status).toBe(404);
  });
});

describe('assistant_cancel', () => {
  it('rejects an unknown field as a validation error naming it', async () => {
    const id = sid('cancel');
    const answer = await host.request({ action: 'assistant_cancel', session_id: id, colour: 'red' });
    expect(answer).toMatchObject({
      type: 'assistant:error',
      error: {
        type: 'validation',
        code: 'validation_error',
        path: ['colour'],
        issues: [{ path: ['colour'], message: 'Unknown field "colour".' }],
      },
    });
  });

  it('takes an id like every frame, and answers with it', async () => {
    const answer = await host.request({ action: 'assistant_cancel', session_id: sid('withid'), id: 'c-1' });
    expect(answer).toMatchObject({ type: 'assistant:error', error: { code: 'session_not_found' } });
  });

  it('still takes sessionId as well as session_id', async () => {
    const answer = await host.request({ action: 'assistant_cancel', sessionId: sid('camel') });
    expect(answer).toMatchObject({ type: 'assistant:error', error: { code: 'session_not_found' } });
  });
});

describe('the other WebSocket actions', () => {
  it('reject an unknown field as a validation error naming it', async () => {
    // An answer's body is read after the gate: its session must be the caller's (a missing one is a 404).
    const answered = sid('r');
    await host.request({
      action: 'assistant_message',
      session_id: answered,
      agent_id: 'polite',
      content: 'hi',
    });
    const frames = [
      { action: 'assistant_message', session_id: sid('m'), agent_id: 'polite', content: 'x', colour: 1 },
      { action: 'assistant_join_session', session_id: sid('j'), colour: 1 },
      {
        action: 'assistant_resolve_action',
        session_id: answered,
        action_id: 'a1',
        decision: 'approve',
        colour: 1,
      },
    ];
    for (const frame of frames) {
      const answer = await host.request(frame);
      expect(answer, frame.action).toMatchObject({
        type: 'assistant:error',
        error: { type: 'validation', code: 'validation_error', path: ['colour'] },
      });
    }
  });
});
