// The team server's sign-in page: paste a token, or show a code that a
// signed-in person approves on /device (the device login of RFC 8628).
// Either way the token ends in the page's cookie (POST /api/auth/session),
// which the server reads on every request; script never keeps it.

const $ = (id) => document.getElementById(id);

async function call(method, url, body) {
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(url, init);
  } catch {
    return { ok: false, status: 0, data: { error: 'The desk server is not reachable.' } };
  }
  let data = {};
  try {
    data = await res.json();
  } catch {
    // Not JSON: the status says enough.
  }
  return { ok: res.ok, status: res.status, data };
}

function say(el, text, kind) {
  el.textContent = text;
  el.className = 'status' + (kind ? ' ' + kind : '');
}

async function signIn(token) {
  const r = await call('POST', '/api/auth/session', { token });
  if (!r.ok) return r.data.error || 'That token does not open this desk.';
  location.replace(location.pathname === '/device' ? location.href : '/');
  return '';
}

function showToken() {
  $('token').hidden = false;
  $('token-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    say($('token-status'), 'Checking…');
    const err = await signIn($('token-input').value.trim());
    if (err) say($('token-status'), err, 'error');
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// poll asks for the token every interval seconds, slowing down when told
// (RFC 8628 section 3.5), until the code is approved, denied or expires.
async function poll(deviceCode, interval) {
  for (;;) {
    await sleep(interval * 1000);
    const r = await call('POST', '/api/auth/device/token', {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: deviceCode,
    });
    if (r.ok && r.data.access_token) {
      say($('device-status'), `Approved: signing in as ${r.data.identity}…`, 'ok');
      const err = await signIn(r.data.access_token);
      if (err) say($('device-status'), err, 'error');
      return;
    }
    switch (r.data.error) {
      case 'authorization_pending':
        say($('device-status'), 'Waiting for the approval…');
        break;
      case 'slow_down':
        interval = r.data.interval || interval + 5;
        break;
      case 'access_denied':
        say($('device-status'), 'The code was denied.', 'error');
        return;
      case 'expired_token':
        say($('device-status'), 'The code expired: show a new one.', 'error');
        $('device-start').hidden = false;
        return;
      default:
        say($('device-status'), r.data.error_description || r.data.error || `The server answered ${r.status}.`, 'error');
        return;
    }
  }
}

function showDevice() {
  $('device').hidden = false;
  $('device-start').addEventListener('click', async () => {
    const r = await call('POST', '/api/auth/device/code', { client_id: 'desk-page' });
    if (!r.ok) {
      $('device-code').hidden = false;
      say($('device-status'), r.data.error || 'No code could be made.', 'error');
      return;
    }
    $('device-start').hidden = true;
    $('device-code').hidden = false;
    $('device-user-code').textContent = r.data.user_code;
    $('device-link').href = r.data.verification_uri_complete;
    $('device-link').textContent = r.data.verification_uri;
    say($('device-status'), 'Waiting for the approval…');
    poll(r.data.device_code, r.data.interval || 5);
  });
}

function showApprove(me) {
  $('approve').hidden = false;
  $('lede').textContent = 'Approve a sign-in of another device.';
  $('me').textContent = me.identity;
  $('as-row').hidden = !me.admin;
  const code = new URLSearchParams(location.search).get('user_code');
  if (code) $('user-code').value = code;
  const decide = async (verb) => {
    const body = { user_code: $('user-code').value.trim() };
    const as = $('as').value.trim();
    if (as) body.identity = as;
    const r = await call('POST', `/api/auth/device/${verb}`, body);
    if (!r.ok) {
      say($('approve-status'), r.data.error || `The server answered ${r.status}.`, 'error');
      return;
    }
    say($('approve-status'), verb === 'approve' ? `Approved: the device signs in as ${r.data.identity}.` : 'Denied.', 'ok');
  };
  $('approve-form').addEventListener('submit', (e) => {
    e.preventDefault();
    decide('approve');
  });
  $('deny-button').addEventListener('click', () => decide('deny'));
}

async function main() {
  const me = await call('GET', '/api/auth/whoami');
  if (location.pathname === '/device') {
    if (me.ok) {
      showApprove(me.data);
      return;
    }
    $('lede').textContent = 'Sign in first, then approve the other device.';
    showToken();
    return;
  }
  if (me.ok) {
    location.replace('/');
    return;
  }
  showToken();
  showDevice();
}

main();
