/* global sessionStorage, BroadcastChannel */
// The API token lives in sessionStorage, entered once: the dashboard's other open tabs get it (and
// lose it) at the same time, and a tab opened later asks them for it. It is gone when the last
// dashboard tab closes.
const KEY = 'mrtq.apiToken';
const tabs = new BroadcastChannel(KEY);
const listeners = new Set();

const store = (token) => {
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
  for (const listener of listeners) listener();
};

export const getToken = () => sessionStorage.getItem(KEY) ?? '';

export const setToken = (token) => {
  store(token);
  tabs.postMessage({ token });
};

export const clearToken = () => {
  store('');
  tabs.postMessage({ token: '' });
};

/** Calls `listener()` whenever the token changes, in this tab or in another. */
export const onTokenChange = (listener) => listeners.add(listener);

tabs.addEventListener('message', ({ data }) => {
  if (data.ask) {
    if (getToken()) tabs.postMessage({ token: getToken() });
  } else if (data.token !== getToken()) {
    store(data.token);
  }
});
if (!getToken()) tabs.postMessage({ ask: true });
