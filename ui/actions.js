/* global document, AbortController */
import { post } from './api.js';
import { h } from './dom.js';

/** Shows the outcome of an action (or any error) in the page's alert region. */
export function notify(kind, text) {
  const notice = document.getElementById('notice');
  notice.replaceChildren(h('p', { class: `notice--${kind}`, id: 'notice-text' }, text));
}

/**
 * Tells that `what` did not go through: refused when the server answered no (the error carries its
 * status), failed when no answer came (unreachable, or none within api.js's deadline).
 */
export function notifyNotDone(what, err) {
  notify('error', `${what} ${err.status ? 'refused' : 'failed'}: ${err.message}`);
}

export function clearNotice() {
  document.getElementById('notice').replaceChildren();
}

/** The confirmation the dialog shows now: settled as declined when another one takes its place. */
let pendingConfirmation;

/**
 * Asks in the page's <dialog>; resolves `{ reason }` when the operator confirms (the reason typed,
 * if any), undefined when not. Cancel has the focus. `reason: 'required'` (a delete, a fail: the
 * API refuses them without one) keeps Confirm disabled until a reason is typed.
 *
 * The answer is taken from the operator's act itself (the form's submit, Escape's `cancel`, Enter
 * in the reason), and only once: the dialog's `close` event is only a fallback. Chromium held that
 * event back in a tab that was not in front (an Escape's `close` came only with the next close),
 * and the late event then answered the next confirmation's Confirm too: one requeue was posted
 * twice, the second refused.
 */
export function confirmAction(title, text, confirmLabel, { reason = 'optional' } = {}) {
  pendingConfirmation?.(false);
  const dialog = document.getElementById('confirm');
  const form = dialog.querySelector('form');
  const field = document.getElementById('confirm-reason-field');
  const input = document.getElementById('confirm-reason');
  const ok = document.getElementById('confirm-ok');
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = text;
  ok.textContent = confirmLabel;
  field.hidden = false;
  input.value = '';
  input.required = reason === 'required';
  const check = () => (ok.disabled = input.required && input.value.trim() === '');
  return new Promise((resolve) => {
    // Every listener of this confirmation goes with its answer.
    const listening = new AbortController();
    const on = (target, type, listener) =>
      target.addEventListener(type, listener, { signal: listening.signal });
    const settle = (confirmed) => {
      if (pendingConfirmation !== settle) return;
      pendingConfirmation = undefined;
      listening.abort();
      const typed = input.value.trim();
      resolve(confirmed ? { reason: typed === '' ? undefined : typed } : undefined);
    };
    pendingConfirmation = settle;
    on(input, 'input', check);
    // Enter in the reason confirms (the form's first button, the default, is Cancel).
    on(input, 'keydown', (event) => {
      if (event.key !== 'Enter') return;
      event.preventDefault();
      if (ok.disabled) return;
      settle(true);
      dialog.close('ok');
    });
    on(form, 'submit', (event) => settle(event.submitter?.value === 'ok'));
    on(dialog, 'cancel', () => settle(false));
    // A late `close` of an earlier showing comes while the dialog is open again: not this answer.
    on(dialog, 'close', () => dialog.open || settle(dialog.returnValue === 'ok'));
    check();
    dialog.returnValue = '';
    if (!dialog.open) dialog.showModal();
    document.getElementById('confirm-cancel').focus();
  });
}

/**
 * Labels, paths and confirmation texts of the actions. Destructive ones (delete, requeue, a
 * queue pause) ask first; the others run at once.
 */
const ACTIONS = {
  job: {
    hold: { label: 'Hold job' },
    release: { label: 'Release job' },
    requeue: {
      label: 'Requeue job',
      confirm: (id) => `Requeue ${id}? It runs again from the step after its last success.`,
    },
    delete: {
      label: 'Delete job',
      confirm: (id) => `Delete ${id}? This cannot be undone.`,
      reason: 'required',
    },
    retry: { label: 'Retry now' },
    fail: {
      label: 'Fail job',
      confirm: (id) =>
        `Fail ${id}? Its lock is broken (a running step cannot commit) and its storage and inventory locks are released.`,
      reason: 'required',
    },
  },
  batch: {
    hold: { label: 'Hold batch' },
    release: { label: 'Release batch' },
    'update-report': { label: 'Update report' },
    delete: {
      label: 'Delete batch',
      confirm: (id) => `Delete ${id} with all its jobs? This cannot be undone.`,
      reason: 'required',
    },
  },
  access: {
    requeue: {
      label: 'Requeue request',
      confirm: (id) => `Requeue ${id}? It goes back to pending and is assembled again.`,
    },
    delete: { label: 'Delete request', confirm: (id) => `Delete ${id}? Cleanup then removes it.` },
  },
};

const PATHS = {
  job: (id) => `/jobs/${id}`,
  batch: (id) => `/batches/${id}`,
  access: (id) => `/access/${id}`,
};

/** Runs one action: confirm when destructive, POST with the token, then tell the outcome. */
export async function runAction({ path, label, confirm, reason, done }) {
  const confirmed = confirm ? await confirmAction(label, confirm, label, { reason }) : {};
  if (!confirmed) return;
  try {
    await post(path, confirmed.reason ? { reason: confirmed.reason } : {});
    notify('ok', `${label}: done`);
    await done?.();
  } catch (err) {
    notifyNotDone(label, err);
  }
}

/**
 * A button for each action the API says the lifecycle allows now (`allowedActions`), none for
 * the others; `done` runs after a successful action (a refresh). In a list, each bar's element
 * ids carry the item (`actions-small-qid…`, `action-small-qid…-requeue`).
 */
export function actionBar(kind, id, state, allowed, done) {
  const scope = kind === 'access' ? `-${id.replace('/', '-')}` : '';
  if (allowed.length === 0)
    return h(
      'p',
      { class: 'actions none', id: `actions${scope}` },
      `No operator action: the ${kind} lifecycle allows none while ${state}.`,
    );
  const buttons = allowed.map((name) => {
    const action = ACTIONS[kind][name];
    return h(
      'button',
      {
        type: 'button',
        id: scope ? `action${scope}-${name}` : `action-${name}`,
        class: action.confirm ? 'danger' : undefined,
        on: {
          click: () =>
            runAction({
              path: `${PATHS[kind](id)}/${name}`,
              label: action.label,
              confirm: action.confirm?.(id),
              reason: action.reason,
              done,
            }),
        },
      },
      action.label,
    );
  });
  return h(
    'div',
    { class: 'actions', id: `actions${scope}`, role: 'group', 'aria-label': `Actions on ${kind} ${id}` },
    buttons,
  );
}
