// The desk's one live connection, shared by every tab of this browser.
//
// Browsers allow about six HTTP/1.1 connections per origin. One event
// stream per tab would use them up after a few tabs and leave new pages
// hanging, so all tabs share this SharedWorker and its single
// EventSource('/api/events'). The stream opens with the first tab and
// closes when the last one leaves.
//
// Messages from a tab:   {type: 'subscribe', project}, {type: 'ping'}, {type: 'close'}
// Messages to a tab:     {type: 'status', live}, {type: 'hello', seq},
//                        {type: 'change', changes}, {type: 'refresh', changes}

/* global EventSource */

const PORT_TIMEOUT_MS = 120000;
const RECONNECT_MS = 3000;

/** @type {Map<MessagePort, {project: string|null, seen: number}>} */
const ports = new Map();
let source = null;
let live = false;
let reconnectTimer = 0;

function post(port, message) {
  try {
    port.postMessage(message);
  } catch {
    ports.delete(port);
  }
}

function broadcast(message) {
  for (const port of ports.keys()) post(port, message);
}

function setLive(value) {
  if (live === value) return;
  live = value;
  broadcast({ type: 'status', live });
}

function parse(event) {
  try {
    return JSON.parse(event.data);
  } catch {
    return null;
  }
}

// Each tab hears only about its own project; a tab without one hears
// everything. Agent sessions belong to the machine, not to a project: every
// tab hears of them, to mark the rows they work on (a session of one
// project may touch another's issue) and to alert about any of them.
function forward(type, event) {
  const data = parse(event);
  if (!data) return;
  const changes = Array.isArray(data.changes) ? data.changes : [];
  for (const [port, info] of ports) {
    const mine = info.project ? changes.filter((c) => !c.project || c.project === info.project || c.type === 'agent') : changes;
    // Nothing for this tab's project: stay quiet (a refresh with no rows at all still goes out).
    if (mine.length === 0 && changes.length > 0) continue;
    post(port, { type, changes: mine, id: event.lastEventId });
  }
}

function open() {
  if (source || ports.size === 0) return;
  clearTimeout(reconnectTimer);
  source = new EventSource('/api/events');
  source.addEventListener('hello', (event) => {
    setLive(true);
    broadcast({ type: 'hello', seq: parse(event)?.seq ?? null });
  });
  source.addEventListener('change', (event) => forward('change', event));
  source.addEventListener('refresh', (event) => forward('refresh', event));
  source.onerror = () => {
    setLive(false);
    // EventSource retries by itself (sending Last-Event-ID); only a stream
    // the browser gave up on needs a new one.
    if (source && source.readyState === EventSource.CLOSED) {
      source = null;
      reconnectTimer = setTimeout(open, RECONNECT_MS);
    }
  };
}

function close() {
  clearTimeout(reconnectTimer);
  if (source) source.close();
  source = null;
  live = false;
}

function release(port) {
  ports.delete(port);
  if (ports.size === 0) close();
}

self.onconnect = (event) => {
  const port = event.ports[0];
  ports.set(port, { project: null, seen: Date.now() });
  port.onmessage = (msg) => {
    const data = msg.data || {};
    const info = ports.get(port);
    if (data.type === 'close') {
      release(port);
      return;
    }
    if (!info) {
      // A tab that was reaped while asleep comes back.
      ports.set(port, { project: data.project ?? null, seen: Date.now() });
    } else {
      info.seen = Date.now();
      if (data.type === 'subscribe') info.project = data.project ?? null;
    }
    if (data.type === 'subscribe') {
      open();
      post(port, { type: 'status', live });
    }
  };
  port.start();
};

// Tabs that crashed or were killed never say goodbye; forget them.
setInterval(() => {
  const now = Date.now();
  for (const [port, info] of ports) if (now - info.seen > PORT_TIMEOUT_MS) ports.delete(port);
  if (ports.size === 0) close();
}, 30000);
