/**
 * The cards of the requests a turn waits on: an approval (its arguments editable), a question (its
 * options, or a typed answer), a client tool (answered by the page's handler). Each shows how it
 * ended once settled.
 */
import { type ReactNode, useId, useState } from 'react';
import type { PendingRequest, RequestPart } from '../react/index.ts';
import { describe, outcomeOf } from './format.ts';

/** What a card is given: the request as the conversation shows it, and its live handle while it is open. */
export interface RequestCardProps {
  part: RequestPart;
  /** The request's handle (approve, deny, answer) while it is open; undefined once it is settled. */
  live: PendingRequest | undefined;
  /** The client tools this chat answers, by name. */
  clientTools: Readonly<Record<string, unknown>>;
}

/** Runs a request's answer and keeps what refused it (the fields an `ArgsValidationError` names). */
function useSettle() {
  const [problem, setProblem] = useState('');
  const settle = (promise: Promise<unknown> | undefined) => {
    setProblem('');
    promise?.catch((error) => setProblem(describe(error)));
  };
  return { problem, setProblem, settle };
}

function ApprovalBody({ part, live }: RequestCardProps) {
  const { request } = part;
  const [args, setArgs] = useState(() => JSON.stringify(request.args ?? {}, null, 2));
  const { problem, setProblem, settle } = useSettle();
  const settled = part.state !== 'open';
  // What was approved, when it was approved with changed arguments: the card shows those.
  const approvedArgs = settled ? part.resolution?.approved_args : undefined;
  const field = useId();
  const approve = () => {
    let edited: unknown;
    try {
      edited = JSON.parse(args);
    } catch {
      setProblem('The arguments are not valid JSON.');
      return;
    }
    const changed = JSON.stringify(edited) !== JSON.stringify(request.args ?? {});
    if (live?.type === 'tool_approval')
      settle(live.approve(changed ? (edited as Record<string, unknown>) : undefined));
  };
  return (
    <>
      <span className="kind">Approval · {request.toolName ?? 'tool'}</span>
      <strong>{request.title ?? `Run ${request.toolName}?`}</strong>
      <label className="field-label" htmlFor={field}>
        Arguments
      </label>
      <textarea
        id={field}
        className="args"
        spellCheck={false}
        value={approvedArgs ? JSON.stringify(approvedArgs, null, 2) : args}
        disabled={settled}
        onChange={(event) => setArgs(event.target.value)}
      />
      <div className="problem" role="alert">
        {problem}
      </div>
      <div className="buttons">
        <button type="button" className="primary approve" disabled={settled} onClick={approve}>
          Approve
        </button>
        <button
          type="button"
          className="deny"
          disabled={settled}
          onClick={() => live?.type === 'tool_approval' && settle(live.deny())}
        >
          Deny
        </button>
      </div>
    </>
  );
}

function QuestionBody({ part, live }: RequestCardProps) {
  const { request } = part;
  const [other, setOther] = useState('');
  const { problem, settle } = useSettle();
  const settled = part.state !== 'open';
  const answer = (value: string) => live?.type === 'user_question' && settle(live.answer([value]));
  return (
    <>
      <span className="kind">Question</span>
      {(request.questions ?? []).map((question) => (
        <fieldset key={question.question} className="question">
          <legend>{question.question}</legend>
          <div className="buttons">
            {(question.options ?? []).map((option) => (
              <button
                key={option.label}
                type="button"
                className="option"
                disabled={settled}
                onClick={() => answer(option.label)}
              >
                {option.label}
              </button>
            ))}
            <input
              placeholder="Or type an answer"
              aria-label={`Your answer to: ${question.question}`}
              value={other}
              disabled={settled}
              onChange={(event) => setOther(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' && other.trim()) answer(other.trim());
              }}
            />
            <button type="button" disabled={settled} onClick={() => other.trim() && answer(other.trim())}>
              Answer
            </button>
          </div>
        </fieldset>
      ))}
      <div className="problem" role="alert">
        {problem}
      </div>
    </>
  );
}

function ClientToolBody({ part, clientTools }: RequestCardProps) {
  const { request } = part;
  const handled = (request.toolName ?? '') in clientTools;
  return (
    <>
      <span className="kind">Client tool</span>
      <strong>{request.title ?? request.toolName}</strong>
      <span className="handled">
        {handled ? `Answered by this page (${request.toolName}).` : `This page has no ${request.toolName}.`}
      </span>
    </>
  );
}

/**
 * The default card of a request: an approval, a question or a client tool, and its outcome once
 * settled. `data-action-id` names the request.
 *
 * @example
 * ```tsx
 * <RequestCard part={part} live={chat.requests.find((r) => r.id === part.id)} clientTools={{}} />
 * ```
 */
export function RequestCard(props: RequestCardProps) {
  const { part } = props;
  const settled = part.state !== 'open';
  let body: ReactNode;
  if (part.request.type === 'tool_approval') body = <ApprovalBody {...props} />;
  else if (part.request.type === 'user_question') body = <QuestionBody {...props} />;
  else body = <ClientToolBody {...props} />;
  return (
    <div className={`card ${part.request.type}${settled ? ' settled' : ''}`} data-action-id={part.id}>
      {body}
      {settled && <span className="outcome">{outcomeOf(part)}</span>}
    </div>
  );
}
