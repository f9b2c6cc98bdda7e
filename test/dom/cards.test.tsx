// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ArgsValidationError, type PendingAction } from '../../client/index.ts';
import type { PendingRequest, RequestPart } from '../../react/index.ts';
import { RequestCard } from '../../react-dom/index.ts';

/**
 * The cards of `switchboard/react-dom` with React Testing Library: what a person reads on each, and
 * what each control hands to the request's handle (recorded here; test/dom/chat.test.tsx runs the
 * whole chat against a sandbox).
 */
afterEach(cleanup);

const approval: PendingAction = {
  id: 'req_wire',
  type: 'tool_approval',
  toolName: 'wire_money',
  title: 'Wire $5?',
  args: { amount: 5 },
} as PendingAction;

const question: PendingAction = {
  id: 'req_plan',
  type: 'user_question',
  questions: [{ question: 'Which plan?', options: [{ label: 'Starter' }, { label: 'Team' }] }],
} as PendingAction;

const open = (request: PendingAction): RequestPart => ({
  type: 'request',
  id: request.id,
  request,
  state: 'open',
  resolution: undefined as unknown as RequestPart['resolution'],
});

/** A request's handle that records what it is asked, and answers with `outcome`. */
function handle(type: PendingAction['type'], outcome: () => Promise<unknown> = async () => ({})) {
  const calls: unknown[][] = [];
  const record =
    (name: string) =>
    (...args: unknown[]) => {
      calls.push([name, ...args]);
      return outcome();
    };
  const live = {
    id: 'req',
    type,
    approve: record('approve'),
    deny: record('deny'),
    answer: record('answer'),
  } as unknown as PendingRequest;
  return { live, calls };
}

describe('the approval card', () => {
  it('shows the title and the arguments in a labelled field; Approve unchanged sends no arguments, Deny denies', () => {
    const { live, calls } = handle('tool_approval');
    render(<RequestCard part={open(approval)} live={live} clientTools={{}} />);
    expect(screen.getByText('Wire $5?')).toBeTruthy();
    const args = screen.getByLabelText('Arguments') as HTMLTextAreaElement;
    expect(JSON.parse(args.value)).toEqual({ amount: 5 });
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));
    fireEvent.click(screen.getByRole('button', { name: 'Deny' }));
    expect(calls).toEqual([['approve', undefined], ['deny']]);
  });

  it('an edit is approved with the edited arguments; text that is not JSON is refused in the card', () => {
    const { live, calls } = handle('tool_approval');
    render(<RequestCard part={open(approval)} live={live} clientTools={{}} />);
    const args = screen.getByLabelText('Arguments');
    fireEvent.change(args, { target: { value: '{"amount": ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));
    expect(screen.getByRole('alert').textContent).toBe('The arguments are not valid JSON.');
    expect(calls).toEqual([]);
    fireEvent.change(args, { target: { value: '{"amount": 7}' } });
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));
    expect(calls).toEqual([['approve', { amount: 7 }]]);
    expect(screen.getByRole('alert').textContent).toBe('');
  });

  it('a refusal of the edit names its fields', async () => {
    const refused = new ArgsValidationError([{ path: ['amount'], message: 'must be <= 100' }]);
    const { live } = handle('tool_approval', () => Promise.reject(refused));
    render(<RequestCard part={open(approval)} live={live} clientTools={{}} />);
    fireEvent.change(screen.getByLabelText('Arguments'), { target: { value: '{"amount": 500}' } });
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));
    expect(await screen.findByText('amount: must be <= 100')).toBeTruthy();
  });

  it('once approved with changed arguments, it shows those, says so, and takes no more clicks', () => {
    const part: RequestPart = {
      ...open(approval),
      state: 'resolved',
      resolution: { decision: 'approve', approved_args: { amount: 3 } } as RequestPart['resolution'],
    };
    render(<RequestCard part={part} live={undefined} clientTools={{}} />);
    expect(JSON.parse((screen.getByLabelText('Arguments') as HTMLTextAreaElement).value)).toEqual({
      amount: 3,
    });
    expect(screen.getByText('Approved with {"amount":3}')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Approve' }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Deny' }) as HTMLButtonElement).disabled).toBe(true);
  });
});

describe('the question card', () => {
  it('offers each option as a button under the question, and a typed answer (Enter or Answer)', () => {
    const { live, calls } = handle('user_question');
    render(<RequestCard part={open(question)} live={live} clientTools={{}} />);
    const group = screen.getByRole('group', { name: 'Which plan?' });
    expect(group).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Team' }));
    const typed = screen.getByLabelText('Your answer to: Which plan?');
    fireEvent.change(typed, { target: { value: 'Enterprise' } });
    fireEvent.keyDown(typed, { key: 'Enter' });
    fireEvent.click(screen.getByRole('button', { name: 'Answer' }));
    expect(calls).toEqual([
      ['answer', ['Team']],
      ['answer', ['Enterprise']],
      ['answer', ['Enterprise']],
    ]);
  });

  it('answered, it says with what, and its controls are disabled', () => {
    const part: RequestPart = {
      ...open(question),
      state: 'resolved',
      resolution: { answers: ['Starter'] } as RequestPart['resolution'],
    };
    render(<RequestCard part={part} live={undefined} clientTools={{}} />);
    expect(screen.getByText('Answered: Starter')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Starter' }) as HTMLButtonElement).disabled).toBe(true);
  });
});

describe('the client tool card', () => {
  const tool = { id: 'req_time', type: 'client_tool', toolName: 'local_time' } as PendingAction;

  it('says whether this page answers it', () => {
    const { unmount } = render(
      <RequestCard part={open(tool)} live={undefined} clientTools={{ local_time: () => ({}) }} />,
    );
    expect(screen.getByText('Answered by this page (local_time).')).toBeTruthy();
    unmount();
    render(<RequestCard part={open(tool)} live={undefined} clientTools={{}} />);
    expect(screen.getByText('This page has no local_time.')).toBeTruthy();
  });

  it('shows how it ended: expired, withdrawn', () => {
    render(
      <>
        <RequestCard part={{ ...open(tool), state: 'expired' }} live={undefined} clientTools={{}} />
        <RequestCard part={{ ...open(tool), state: 'superseded' }} live={undefined} clientTools={{}} />
      </>,
    );
    expect(screen.getByText('Expired')).toBeTruthy();
    expect(screen.getByText('Withdrawn')).toBeTruthy();
  });
});
