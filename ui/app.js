/* global document, window, location, URLSearchParams, setTimeout */
import { clearNotice } from './actions.js';
import { getLifecycles, getWhoami } from './api.js';
import { h, learnCategories } from './dom.js';
import { keepCurrent } from './live.js';
import { clearToken, getToken, onTokenChange, setToken } from './token.js';
import { renderAccess } from './view-access.js';
import { renderAudit } from './view-audit.js';
import { renderBatch } from './view-batch.js';
import { renderBatches } from './view-batches.js';
import { renderJob } from './view-job.js';
import { renderJobs } from './view-jobs.js';
import { renderOverview } from './view-overview.js';
import { renderRollups } from './view-rollups.js';
import { renderSearch, searchBox } from './view-search.js';

// The dashboard's shell: views addressed by the URL fragment (#/batches/bid…), the token form,
// and the live stream whose transitions each view turns into refreshes.

const ROUTES = [
  { pattern: /^\/?$/, nav: 'overview', render: renderOverview },
  { pattern: /^\/batches$/, nav: 'batches', render: renderBatches },
  { pattern: /^\/batches\/([^/]+)$/, nav: 'batches', render: renderBatch },
  { pattern: /^\/jobs$/, nav: 'jobs', render: renderJobs },
  { pattern: /^\/jobs\/([^/]+)$/, nav: 'jobs', render: renderJob },
  { pattern: /^\/access$/, nav: 'access', render: renderAccess },
  { pattern: /^\/search$/, nav: 'search', render: renderSearch },
  { pattern: /^\/rollups$/, nav: 'rollups', render: renderRollups },
  { pattern: /^\/audit$/, nav: 'audit', render: renderAudit },
];

let current;
let generation = 0;

function parseLocation() {
  const fragment = location.hash.replace(/^#/, '') || '/';
  const [path, search = ''] = fragment.split('?');
  return { path, query: new URLSearchParams(search) };
}

/** How long a page that failed to load for a transient reason waits before it is asked again. */
const RELOAD_AFTER_MS = 3000;

async function show(moveFocus) {
  const { path, query } = parseLocation();
  if (!path.startsWith('/')) return; // an in-page anchor (the skip link), not a view
  current?.dispose?.();
  current = undefined;
  clearNotice();
  const route = ROUTES.find((r) => r.pattern.test(path)) ?? ROUTES[0];
  const match = route.pattern.exec(path) ?? [];
  for (const link of document.querySelectorAll('[data-nav]')) {
    if (link.dataset.nav === route.nav) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const main = document.getElementById('main');
  const mine = ++generation;
  try {
    // The states' colours come with the lifecycles (read once a page; a failure shows the page
    // with every state coloured as working, and is read again at the next view).
    learnCategories(await getLifecycles().catch(() => undefined));
    const view = await route.render(main, { id: match[1] ? decodeURIComponent(match[1]) : undefined, query });
    if (mine !== generation) return view?.dispose?.();
    current = view;
  } catch (err) {
    if (mine !== generation) return;
    // A server that is busy or briefly without ZooKeeper (5xx) or unreachable (no status) is
    // asked again: the page comes up by itself once it answers. A refusal (4xx) stays shown.
    const transient = !(err.status >= 400 && err.status < 500);
    main.replaceChildren(
      h('h1', {}, 'Could not load this page'),
      h('p', { id: 'load-error' }, err.message),
      ...(transient ? [h('p', { class: 'muted' }, 'Trying again in a few seconds…')] : []),
    );
    if (transient) setTimeout(() => mine === generation && void show(false), RELOAD_AFTER_MS);
  }
  if (moveFocus) main.focus();
}

function tokenForm() {
  const state = document.getElementById('token-state');
  const input = document.getElementById('token-input');
  const describe = () => {
    state.textContent = getToken()
      ? 'Token set for this browser session.'
      : 'No token: operator actions will be refused.';
  };
  document.getElementById('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    if (input.value.trim() !== '') setToken(input.value.trim());
    input.value = '';
  });
  document.getElementById('token-forget').addEventListener('click', clearToken);
  onTokenChange(describe);
  describe();
  onTokenChange(showWhoami);
  void showWhoami();
}

/** How the server's answer to GET /whoami reads beside the token form. */
function whoamiText(who) {
  if (who.name === 'anonymous' && !who.role) return 'The server has no credentials: it is read-only.';
  const limited = who.collections ? `; collections ${who.collections.join(', ')}` : '';
  return `Signed in as ${who.name} (role ${who.role}${limited}).`;
}

let asked = 0;

/** Names the credential the entered token is (GET /whoami), or says the server does not take it. */
async function showWhoami() {
  const shown = document.getElementById('token-whoami');
  const mine = ++asked;
  const token = getToken();
  shown.textContent = '';
  if (!token) return;
  let text;
  try {
    text = whoamiText(await getWhoami(token));
  } catch (err) {
    text = err.status === 401 ? 'The server does not take this token.' : `Who: ${err.message}`;
  }
  if (mine === asked) shown.textContent = text;
}

function liveUpdates() {
  const state = document.getElementById('live-state');
  const restart = keepCurrent({
    token: getToken,
    onTransition: (transition) => current?.onTransition?.(transition),
    refresh: () => current?.refresh?.(),
    say: (text) => (state.textContent = text),
  });
  onTokenChange(restart);
}

document.getElementById('skip').addEventListener('click', (event) => {
  event.preventDefault();
  document.getElementById('main').focus();
});
window.addEventListener('hashchange', () => void show(true));
tokenForm();
searchBox();
liveUpdates();
void show(false);
