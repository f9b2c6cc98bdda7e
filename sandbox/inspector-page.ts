import type { IncomingMessage, ServerResponse } from 'node:http';

/** Where the sandbox serves its turn inspector. */
export const INSPECTOR_PATH = '/sandbox/inspect';

/**
 * The turn inspector: one page, no framework. Sessions (those the sandbox's OTLP receiver holds
 * traces of), a session's turns, and a turn's span tree with durations, tokens and tool outcomes,
 * beside the turn's events (`GET /api/sessions/{id}/events`, with the page's token from
 * `/sandbox/token` as the demo page gets it) and the session's open requests
 * (`GET /api/sessions/{id}`); refreshed every second while the session's turn runs. Everything shown
 * is set as text, never as HTML.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switchboard inspector</title>
<link rel="icon" href="data:,">
<style>
  :root { font: 14px/1.4 system-ui, sans-serif; color: #1d2330; background: #eef0f5; }
  * { box-sizing: border-box; }
  body { margin: 0; }
  header { display: flex; gap: 12px; align-items: center; padding: 8px 16px; background: #fff; border-bottom: 1px solid #dde1ea; }
  header a { color: #2f5bea; font-size: 13px; }
  main { display: grid; grid-template-columns: 220px 260px minmax(0, 1fr); gap: 12px; padding: 12px; height: calc(100dvh - 44px); }
  section { background: #fff; border-radius: 10px; box-shadow: 0 0 0 1px #dde1ea; overflow: auto; padding: 8px; min-height: 0; }
  h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: #5b6477; margin: 4px 4px 8px; }
  ul.pick { list-style: none; margin: 0; padding: 0; }
  ul.pick button { all: unset; display: block; width: 100%; padding: 6px 8px; border-radius: 6px; cursor: pointer; overflow-wrap: anywhere; }
  ul.pick button:hover, ul.pick button:focus-visible { background: #eef2ff; }
  ul.pick button[aria-current="true"] { background: #dfe7ff; }
  .muted { color: #5b6477; font-size: 12px; }
  .span { display: grid; grid-template-columns: minmax(0, 1fr) 160px; gap: 8px; align-items: center; padding: 2px 0; font-family: ui-monospace, monospace; font-size: 12.5px; }
  .bar { position: relative; height: 10px; background: #f1f3f8; border-radius: 3px; }
  .bar i { position: absolute; top: 0; bottom: 0; background: #6b8cff; border-radius: 3px; min-width: 2px; }
  .span.error .bar i { background: #d64545; }
  .span.error .name { color: #b42323; }
  .details { color: #5b6477; }
  .spanevent { color: #8a5a00; font-family: ui-monospace, monospace; font-size: 12px; }
  pre { white-space: pre-wrap; word-break: break-word; font-size: 12px; margin: 4px 0; }
  .events li { font-family: ui-monospace, monospace; font-size: 12px; }
  @media (max-width: 900px) { main { grid-template-columns: 1fr; height: auto; } }
</style>
</head>
<body>
<header><strong>Switchboard inspector</strong><span class="muted" id="live"></span><a href="/">Demo page</a></header>
<main>
  <section aria-labelledby="h-sessions"><h2 id="h-sessions">Sessions</h2><ul class="pick" id="sessions"></ul></section>
  <section aria-labelledby="h-turns"><h2 id="h-turns">Turns</h2><ul class="pick" id="turns"></ul></section>
  <section aria-labelledby="h-turn"><h2 id="h-turn">Turn</h2><div id="turn"><p class="muted">Pick a session, then a turn.</p></div></section>
</main>
<script type="module">
const state = { session: new URLSearchParams(location.search).get('session'), trace: null, traces: [] };
let token;
let timer;
async function bearer() {
  if (token === undefined) {
    const res = await fetch('/sandbox/token').catch(() => undefined);
    token = res && res.ok ? (await res.json()).token : null;
  }
  return token ? { authorization: 'Bearer ' + token } : {};
}
async function api(path) {
  const res = await fetch(path, { headers: await bearer() });
  if (!res.ok) throw new Error(path + ': ' + res.status);
  return res.json();
}
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === 'onclick') node.onclick = v;
    else if (k === 'style') node.setAttribute('style', v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c instanceof Node ? c : String(c));
  return node;
}
const ms = (v) => (v < 10 ? v.toFixed(1) + ' ms' : v < 1000 ? Math.round(v) + ' ms' : (v / 1000).toFixed(2) + ' s');
function details(s) {
  const a = s.attributes, d = [];
  const model = a['gen_ai.response.model'] ?? a['gen_ai.request.model'];
  if (model !== undefined) d.push('model ' + model);
  if (a['gen_ai.usage.input_tokens'] !== undefined || a['gen_ai.usage.output_tokens'] !== undefined)
    d.push('tokens ' + (a['gen_ai.usage.input_tokens'] ?? '?') + ' in / ' + (a['gen_ai.usage.output_tokens'] ?? '?') + ' out');
  if (a['gen_ai.response.finish_reasons'] !== undefined) d.push('finish ' + a['gen_ai.response.finish_reasons']);
  if (a['gen_ai.tool.name'] !== undefined) d.push('tool ' + a['gen_ai.tool.name']);
  for (const [k, v] of Object.entries(a)) if (k.endsWith('.outcome')) d.push(k.split('.').pop() + ' ' + v);
  if (a['http.response.status_code'] !== undefined) d.push('status ' + a['http.response.status_code']);
  if (s.status.code === 'error') d.push('failed: ' + (s.status.message || 'error'));
  if (s.links.length) d.push('linked to ' + s.links.map((l) => l.spanId).join(', '));
  return d.join(' · ');
}
function spanRows(s, depth, trace, out) {
  const left = ((s.startMs - trace.startMs) / (trace.durationMs || 1)) * 100;
  const width = (s.durationMs / (trace.durationMs || 1)) * 100;
  const row = el('details', { class: 'span-row' },
    el('summary', { class: 'span' + (s.status.code === 'error' ? ' error' : ''), style: 'padding-left:' + depth * 14 + 'px' },
      el('span', {}, el('span', { class: 'name' }, s.name), '  ', ms(s.durationMs), '  ', el('span', { class: 'details' }, details(s))),
      el('span', { class: 'bar' }, el('i', { style: 'left:' + left + '%;width:' + width + '%' }))),
    el('pre', {}, JSON.stringify({ service: s.service, kind: s.kind, spanId: s.spanId, attributes: s.attributes, events: s.events, links: s.links }, null, 2)));
  out.append(row);
  for (const e of s.events) out.append(el('div', { class: 'spanevent', style: 'padding-left:' + (depth * 14 + 14) + 'px' }, '· ' + e.name + ' at +' + ms(e.timeMs - s.startMs)));
  for (const c of s.children) spanRows(c, depth + 1, trace, out);
}
function pick(list, items, current, label, onpick) {
  list.replaceChildren(...items.map((item) => el('li', {}, el('button', { 'aria-current': String(item.id === current), onclick: () => onpick(item.id) }, ...label(item)))));
  if (items.length === 0) list.append(el('li', { class: 'muted' }, 'None yet.'));
}
async function refresh() {
  let busy = false;
  try {
    const { sessions } = await api('/sandbox/traces');
    pick(document.getElementById('sessions'), sessions.map((s) => ({ ...s, id: s.sessionId })), state.session,
      (s) => [s.sessionId, el('br'), el('span', { class: 'muted' }, s.traces + (s.traces === 1 ? ' turn · ' : ' turns · ') + new Date(s.lastMs).toLocaleTimeString())],
      (id) => { state.session = id; state.trace = null; history.replaceState(null, '', '?session=' + encodeURIComponent(id)); refresh(); });
    if (!state.session) return;
    const { traces } = await api('/sandbox/traces?session=' + encodeURIComponent(state.session));
    state.traces = traces;
    if (!state.trace && traces.length) state.trace = traces[traces.length - 1].traceId;
    pick(document.getElementById('turns'), traces.map((t, i) => ({ ...t, id: t.traceId, n: i + 1 })), state.trace,
      (t) => ['Turn ' + t.n + (t.runId ? ' · ' + t.runId : ''), el('br'), el('span', { class: 'muted' }, new Date(t.startMs).toLocaleTimeString() + ' · ' + ms(t.durationMs) + ' · ' + t.spans + ' spans')],
      (id) => { state.trace = id; refresh(); });
    const trace = traces.find((t) => t.traceId === state.trace);
    const view = el('div');
    if (trace) {
      view.append(el('p', { class: 'muted' }, 'trace ' + trace.traceId + (trace.agentId ? ' · agent ' + trace.agentId : '') + ' · ' + ms(trace.durationMs)));
      const tree = el('div');
      for (const root of trace.roots) spanRows(root, 0, trace, tree);
      view.append(tree);
    }
    const session = await api('/api/sessions/' + encodeURIComponent(state.session)).catch((e) => ({ error: String(e.message) }));
    busy = session.status === 'running' || session.status === 'queued';
    view.append(el('h2', {}, 'Open requests'));
    if (session.error) view.append(el('p', { class: 'muted' }, 'Not readable with the page\\'s token (' + session.error + ').'));
    else {
      const open = [...(session.pending_action ? [session.pending_action] : []), ...(session.pending_actions || [])];
      view.append(el('p', { class: 'muted' }, 'session ' + session.status + (open.length ? '' : ' · none open')));
      for (const o of open) view.append(el('pre', {}, JSON.stringify(o, null, 2)));
    }
    view.append(el('h2', {}, 'Events of the turn'));
    if (!session.error && trace) {
      const { events } = await api('/api/sessions/' + encodeURIComponent(state.session) + '/events?after=0&limit=1000');
      const mine = trace.runId ? events.filter((e) => e.run_id === trace.runId) : events;
      view.append(el('ul', { class: 'events' }, ...mine.map((e) => el('li', {}, e.seq + ' ' + e.type + ' ' + JSON.stringify(e.data).slice(0, 200)))));
    }
    const open = new Set([...document.querySelectorAll('#turn details[open] pre')].map((p) => JSON.parse(p.textContent).spanId));
    for (const d of view.querySelectorAll('details')) if (open.has(JSON.parse(d.querySelector('pre').textContent).spanId)) d.open = true;
    document.getElementById('turn').replaceChildren(view);
  } catch (error) {
    document.getElementById('live').textContent = String(error.message || error);
  } finally {
    document.getElementById('live').textContent = busy ? 'a turn is running: refreshing every second' : 'refreshing every 4 s';
    clearTimeout(timer);
    timer = setTimeout(refresh, busy ? 1000 : 4000);
  }
}
refresh();
</script>
</body>
</html>
`;

/** Serves the inspector at `GET /sandbox/inspect`; answers false for any other request. */
export function serveInspector(req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== INSPECTOR_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : PAGE);
  return true;
}
