// The demo host: a page built on the client SDK (`switchboard/client`, served by the sandbox under
// /client/). It shows the agent it talks to by its own name, and offers its suggestions. With the
// demo agent, an issue list stands for the host's own app: its view, filter and actions go to the
// agent as host_context with every message, and the agent's host actions change it.
import { ArgsValidationError, createClient } from '/client/index.js';

const $ = (selector) => document.querySelector(selector);

/** Builds an element: `h('button', { class: 'small', onclick }, 'text', child…)`. */
function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(element.dataset, value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...children.filter((child) => child !== undefined && child !== null));
  return element;
}

// ---------------------------------------------------------------------------------------------
// The host app: an issue list with a filter, kept in sessionStorage so that a reload keeps it.

const INITIAL_ISSUES = [
  { number: 1, title: 'Login times out on slow networks', status: 'open', label: 'bug' },
  { number: 2, title: 'Export answers as Markdown', status: 'open', label: 'feature' },
  { number: 3, title: 'Typo on the billing page', status: 'closed', label: 'docs' },
  { number: 4, title: 'Dark mode for the chat', status: 'open', label: 'feature' },
  { number: 5, title: 'Reconnect after laptop sleep', status: 'closed', label: 'bug' },
  { number: 6, title: 'Keyboard shortcut to send', status: 'open', label: 'feature' },
];
const STATUSES = ['all', 'open', 'closed'];

const appState = JSON.parse(sessionStorage.getItem('switchboard-app') ?? 'null') ?? {
  issues: INITIAL_ISSUES,
  filter: 'all',
};
const saveApp = () => sessionStorage.setItem('switchboard-app', JSON.stringify(appState));
const visibleIssues = () =>
  appState.issues.filter((issue) => appState.filter === 'all' || issue.status === appState.filter);

function renderIssues(flash) {
  for (const button of document.querySelectorAll('#filters button')) {
    button.setAttribute('aria-pressed', String(button.dataset.filter === appState.filter));
  }
  const visible = visibleIssues();
  $('#issue-count').textContent = `${visible.length} shown`;
  $('#issues').replaceChildren(
    ...visible.map((issue) =>
      h(
        'li',
        {
          dataset: { number: issue.number, status: issue.status },
          class: issue.number === flash ? 'flash' : undefined,
        },
        h('span', { class: 'num' }, `#${issue.number}`),
        h('span', { class: 'title' }, issue.title),
        h('span', { class: 'meta' }, `${issue.status} · ${issue.label}`),
      ),
    ),
  );
  if (flash !== undefined) setTimeout(() => $('#issues .flash')?.classList.remove('flash'), 1200);
}

function setFilter(status) {
  appState.filter = status;
  saveApp();
  renderIssues();
}

for (const button of document.querySelectorAll('#filters button')) {
  button.addEventListener('click', () => setFilter(button.dataset.filter));
}

/** The agent the issue list is made for (demo/demo-agent.ts): with another one, the page is the chat alone. */
const DEMO_AGENT = 'demo';
let showsApp = false;

/** What the page tells the agent with every message: what it shows, its state, what it can do. */
function hostContext() {
  const host = { name: 'Switchboard demo page', kind: 'browser' };
  if (!showsApp) return { host };
  return {
    host,
    view: {
      name: 'issues',
      description: 'An issue tracker: a list of issues with a status filter.',
      data: { issues: visibleIssues() },
      state: { filter: appState.filter },
    },
    actions: [
      {
        name: 'set_filter',
        description: 'Show only the issues of one status.',
        parameters: {
          type: 'object',
          properties: { status: { type: 'string', enum: STATUSES } },
          required: ['status'],
          additionalProperties: false,
        },
      },
      {
        name: 'close_issue',
        description: 'Close an issue, by its number.',
        parameters: {
          type: 'object',
          properties: { number: { type: 'integer' } },
          required: ['number'],
          additionalProperties: false,
        },
      },
    ],
  };
}

/** The host actions: the agent calls them, the client performs them here and sends their result. */
const hostActions = {
  set_filter({ status }) {
    if (!STATUSES.includes(status)) throw new Error(`unknown status "${status}"`);
    setFilter(status);
    return { status, shown: visibleIssues().length };
  },
  close_issue({ number }) {
    const issue = appState.issues.find((candidate) => candidate.number === number);
    if (!issue) throw new Error(`there is no issue #${number}`);
    issue.status = 'closed';
    saveApp();
    renderIssues(number);
    return { closed: number };
  },
};

/** The client tools: requests the agent makes of this device, answered without asking anyone. */
const clientTools = {
  local_time: () => ({
    time: new Date().toLocaleTimeString(),
    zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  }),
};

// ---------------------------------------------------------------------------------------------
// Who the page is: the sandbox hands it a token for its demo user (/sandbox/token exists only in
// the sandbox). Without one (a sandbox started with --anonymous) it sends none. A real host gets
// its token from its identity provider.

let token;
let tokenExpires = 0;
async function currentToken() {
  if (token !== undefined && Date.now() < tokenExpires) return token ?? undefined;
  const res = await fetch('/sandbox/token').catch(() => undefined);
  if (res?.ok) {
    const body = await res.json();
    token = body.token;
    tokenExpires = Date.now() + (body.expires_in - 60) * 1000;
  } else {
    token = null;
    tokenExpires = Number.POSITIVE_INFINITY;
  }
  return token ?? undefined;
}

const client = createClient({
  url: location.origin,
  wsUrl: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`,
  token: currentToken,
  hostActions,
  clientTools,
});

const CONNECTION_TEXT = {
  idle: 'not connected',
  connecting: 'connecting…',
  open: 'connected',
  reconnecting: 'reconnecting…',
  closed: 'offline',
};
client.onStatus((status) => {
  $('#connection').dataset.status = status;
  $('#connection').textContent = CONNECTION_TEXT[status] ?? status;
});
client.onError((error) => showError(error));
// A phone or a laptop coming back from sleep: resume at once rather than after the backoff.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') client.resume();
});

// ---------------------------------------------------------------------------------------------
// The conversation: every event of the session's log, applied once and in order by the client.

const log = $('#log');
// The agent a new conversation talks to: `?agent=ID`, else the server's default (its only agent),
// else the first it lists. Set by showAgent() before the first session opens.
const REQUESTED_AGENT = new URLSearchParams(location.search).get('agent') ?? undefined;
let agentId = REQUESTED_AGENT;
let session;
let running = false;

function scrollDown() {
  log.scrollTop = log.scrollHeight;
}

function showError(error) {
  const detail = error?.code ? `${error.code}: ${error.message}` : String(error?.message ?? error);
  log.append(h('div', { class: 'error' }, detail));
  scrollDown();
}

const byMessage = (id) => log.querySelectorAll(`[data-message-id="${CSS.escape(id)}"]`);

/** The assistant bubble of an answer, made on its first event. */
function answerBubble(messageId) {
  let bubble = log.querySelector(`.msg.assistant[data-message-id="${CSS.escape(messageId)}"]`);
  if (!bubble) {
    bubble = h('div', { class: 'msg assistant', dataset: { messageId } }, h('span', { class: 'text' }));
    log.append(bubble);
  }
  return bubble;
}

function userBubble(data) {
  const bubble = h('div', { class: 'msg user', dataset: { messageId: data.message_id } }, data.content);
  const edit = h(
    'button',
    { class: 'small', type: 'button', onclick: () => startEdit(bubble, data) },
    'Edit',
  );
  log.append(
    bubble,
    h('div', { class: 'controls user-controls', dataset: { messageId: data.message_id } }, edit),
  );
}

/** Edit and resend: the conversation is cut back to this message and runs again. */
function startEdit(bubble, data) {
  const field = h('input', {
    value: bubble.textContent,
    'aria-label': 'Edited message',
    class: 'edit-field',
  });
  const save = h('button', { class: 'small', type: 'submit' }, 'Resend');
  const form = h('form', { class: 'msg user' }, field, ' ', save);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const content = field.value.trim();
    if (!content) return;
    form.replaceWith(bubble);
    session.edit(data.message_id, content, { hostContext: hostContext() }).catch(showError);
  });
  bubble.replaceWith(form);
  field.focus();
}

/** Ratings and regeneration under an answer; only the newest answer can be regenerated. */
function answerControls(messageId) {
  for (const old of log.querySelectorAll('.regenerate')) old.remove();
  let controls = log.querySelector(`.controls.answer[data-message-id="${CSS.escape(messageId)}"]`);
  if (!controls) {
    const rate = (rating) => async (event) => {
      const button = event.currentTarget;
      const next = button.getAttribute('aria-pressed') === 'true' ? null : rating;
      try {
        await session.feedback(messageId, next);
        for (const other of controls.querySelectorAll('[data-rating]')) {
          other.setAttribute('aria-pressed', String(other.dataset.rating === next));
        }
      } catch (error) {
        showError(error);
      }
    };
    controls = h(
      'div',
      { class: 'controls answer', dataset: { messageId } },
      h(
        'button',
        {
          class: 'small',
          type: 'button',
          dataset: { rating: 'up' },
          title: 'Rate this answer up',
          onclick: rate('up'),
        },
        'Good',
      ),
      h(
        'button',
        {
          class: 'small',
          type: 'button',
          dataset: { rating: 'down' },
          title: 'Rate this answer down',
          onclick: rate('down'),
        },
        'Bad',
      ),
    );
    answerBubble(messageId).after(controls);
  }
  controls.append(
    h(
      'button',
      {
        class: 'small regenerate',
        type: 'button',
        onclick: () => session.regenerate(messageId).catch(showError),
      },
      '↻ Regenerate',
    ),
  );
}

function toolLine(messageId, text, kind = '') {
  log.append(h('div', { class: `tool ${kind}`, dataset: { messageId } }, text));
}

/** A card for a request the turn waits on: an approval, a question, or a client tool. */
function actionCard(messageId, action) {
  const problem = h('div', { class: 'problem' });
  const card = h('div', { class: `card ${action.type}`, dataset: { messageId, actionId: action.id } });
  const settle = (promise) =>
    promise.catch((error) => {
      problem.textContent =
        error instanceof ArgsValidationError || error?.issues?.length
          ? error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')
          : String(error?.message ?? error);
    });
  if (action.type === 'tool_approval') {
    const args = h('textarea', { class: 'args', 'aria-label': 'Arguments', spellcheck: 'false' });
    args.value = JSON.stringify(action.args ?? {}, null, 2);
    const approve = () => {
      problem.textContent = '';
      let edited;
      try {
        edited = JSON.parse(args.value);
      } catch {
        problem.textContent = 'The arguments are not valid JSON.';
        return;
      }
      const changed = JSON.stringify(edited) !== JSON.stringify(action.args ?? {});
      settle(session.approve(action.id, changed ? { args: edited } : {}));
    };
    card.append(
      h('span', { class: 'kind' }, `Approval · ${action.toolName ?? 'tool'}`),
      h('strong', {}, action.title ?? `Run ${action.toolName}?`),
      args,
      problem,
      h(
        'div',
        { class: 'buttons' },
        h('button', { class: 'primary approve', type: 'button', onclick: approve }, 'Approve'),
        h(
          'button',
          { class: 'deny', type: 'button', onclick: () => settle(session.deny(action.id)) },
          'Deny',
        ),
      ),
    );
  } else if (action.type === 'user_question') {
    card.append(h('span', { class: 'kind' }, 'Question'));
    for (const question of action.questions ?? []) {
      const other = h('input', { placeholder: 'Or type an answer', 'aria-label': 'Answer' });
      const answer = (value) => settle(session.answerQuestion(action.id, [value]));
      card.append(
        h('strong', {}, question.question),
        h(
          'div',
          { class: 'buttons' },
          ...(question.options ?? []).map((option) =>
            h(
              'button',
              { type: 'button', class: 'option', onclick: () => answer(option.label) },
              option.label,
            ),
          ),
          other,
          h(
            'button',
            { type: 'button', onclick: () => other.value.trim() && answer(other.value.trim()) },
            'Answer',
          ),
        ),
        problem,
      );
    }
  } else {
    // A client tool: the client answers it with its handler, when this page has one.
    const handled = action.toolName in clientTools;
    card.append(
      h('span', { class: 'kind' }, 'Client tool'),
      h('strong', {}, action.title ?? action.toolName),
      h(
        'span',
        {},
        handled ? `Answered by this page (${action.toolName}).` : `This page has no ${action.toolName}.`,
      ),
    );
  }
  log.append(card);
}

const OUTCOMES = {
  approve: 'Approved',
  deny: 'Denied',
};

function settleCard(data) {
  const card = log.querySelector(`.card[data-action-id="${CSS.escape(data.action_id)}"]`);
  if (!card) return;
  card.classList.add('settled');
  for (const control of card.querySelectorAll('button, textarea, input')) control.disabled = true;
  const resolution = data.resolution ?? {};
  const outcome =
    data.status !== 'resolved'
      ? data.status === 'expired' || data.expired
        ? 'Expired'
        : 'Withdrawn'
      : (OUTCOMES[resolution.decision] ??
        (resolution.answers ? `Answered: ${[].concat(resolution.answers).join(', ')}` : 'Answered'));
  card.append(h('span', { class: 'outcome' }, data.expired ? `${outcome} (lapsed)` : outcome));
}

function setRunning(value, text = '') {
  running = value;
  $('#activity').textContent = text;
  $('#cancel').disabled = !value;
}

function apply(event) {
  const data = event.data;
  switch (event.type) {
    case 'user.message':
      userBubble(data);
      break;
    case 'session.status_running':
      setRunning(true, 'agent is answering…');
      break;
    case 'agent.message.delta':
      answerBubble(data.message_id).querySelector('.text').textContent += data.text;
      break;
    case 'agent.tool_use':
      toolLine(data.message_id, `→ ${data.name}(${JSON.stringify(data.args ?? {})})`);
      break;
    case 'agent.tool_result':
      toolLine(
        data.message_id,
        `← ${data.name ?? data.id}: ${JSON.stringify(data.ok ? data.result : data.error)}`,
      );
      break;
    case 'tool_call':
      toolLine(
        data.message_id,
        `⇢ ${data.name}(${JSON.stringify(data.arguments ?? {})}) on this page`,
        'host',
      );
      break;
    case 'action.required':
      // The answer's text comes first, then what it asks.
      answerBubble(data.message_id);
      for (const action of data.actions) actionCard(data.message_id, action);
      break;
    case 'action.resolved':
      settleCard(data);
      break;
    case 'final_response': {
      const bubble = answerBubble(data.message_id);
      if (data.content !== null) bubble.querySelector('.text').textContent = data.content;
      // A host action's result continues the message that called it: the answer moves below the call.
      if (log.querySelector(`.tool.host[data-message-id="${CSS.escape(data.message_id)}"]`)) {
        log.append(bubble);
        log.querySelector(`.controls.answer[data-message-id="${CSS.escape(data.message_id)}"]`)?.remove();
      }
      answerControls(data.message_id);
      break;
    }
    case 'messages.replaced':
      // Regenerated or edited: the replaced messages leave the conversation.
      for (const id of data.message_ids) for (const element of byMessage(id)) element.remove();
      break;
    case 'session.error':
      showError(data);
      break;
    case 'session.status_requires_action':
      setRunning(false, 'waiting for you');
      break;
    case 'session.status_idle':
      setRunning(false);
      if (data.status === 'cancelled') log.append(h('div', { class: 'note' }, 'Stopped.'));
      break;
  }
  scrollDown();
}

/** Follows a session: the whole log is replayed into an empty conversation, then live events. */
function openSession(id) {
  session?.close();
  sessionStorage.setItem('switchboard-session', id);
  log.replaceChildren();
  setRunning(false);
  session = client.session(id, { agentId });
  session.on('*', apply);
}

$('#new-conversation').addEventListener('click', () => openSession(`web-${crypto.randomUUID()}`));

// ---------------------------------------------------------------------------------------------
// The composer: text, files, suggestions, cancel.

let pendingFiles = [];

async function send(content) {
  const files = pendingFiles;
  pendingFiles = [];
  $('#pending-files').replaceChildren();
  try {
    await session.send(content, { hostContext: hostContext(), files });
  } catch (error) {
    showError(error);
  }
}

$('#composer').addEventListener('submit', (event) => {
  event.preventDefault();
  const content = $('#message').value.trim();
  if (!content && pendingFiles.length === 0) return;
  $('#message').value = '';
  send(content || 'What is in the file I attached?');
});

$('#cancel').addEventListener('click', () => {
  if (running) session.cancel().catch(showError);
});

$('#file').addEventListener('change', async (event) => {
  const input = event.currentTarget;
  const file = input.files?.[0];
  input.value = '';
  if (!file) return;
  try {
    const record = await client.upload(file);
    pendingFiles.push(record);
    $('#pending-files').append(h('span', { class: 'file' }, `File: ${record.name}`));
  } catch (error) {
    showError(error);
  }
});

// ---------------------------------------------------------------------------------------------
// The agent: its own name, description and suggestions (GET /api/agents); the issue list only
// for the demo agent, whose host actions it answers.

async function showAgent() {
  let listed;
  try {
    listed = await client.agents();
  } catch (error) {
    showError(error);
    return;
  }
  const { agents, default_agent_id: defaultId } = listed;
  const agent = REQUESTED_AGENT
    ? agents.find((candidate) => candidate.id === REQUESTED_AGENT)
    : (agents.find((candidate) => candidate.id === defaultId) ?? agents[0]);
  if (!agent) {
    showError(
      new Error(REQUESTED_AGENT ? `There is no agent "${REQUESTED_AGENT}".` : 'The server has no agent.'),
    );
    return;
  }
  agentId = agent.id;
  const name = agent.name ?? agent.id;
  $('#agent-name').textContent = name;
  if (agent.description) $('#agent-name').title = agent.description;
  document.title = `${name} · Switchboard`;
  $('#suggestions').replaceChildren(
    ...(agent.suggestions ?? []).map((text) =>
      h('button', { type: 'button', class: 'suggestion', onclick: () => send(text) }, text),
    ),
  );
  showsApp = agent.id === DEMO_AGENT;
  $('#app').hidden = !showsApp;
  $('.layout').classList.toggle('chat-only', !showsApp);
  if (showsApp) renderIssues();
}

await showAgent();
openSession(sessionStorage.getItem('switchboard-session') ?? `web-${crypto.randomUUID()}`);
client.connect();
