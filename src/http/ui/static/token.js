/* global sessionStorage */
// The API token lives in sessionStorage: entered once per browser session (tab), gone when it closes.
const KEY = 'mrtq.apiToken';

export const getToken = () => sessionStorage.getItem(KEY) ?? '';
export const setToken = (token) => sessionStorage.setItem(KEY, token);
export const clearToken = () => sessionStorage.removeItem(KEY);
