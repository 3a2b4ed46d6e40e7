// The HTTP API (issue #7): health, metrics, submissions, lists, operator actions, OpenAPI, events.
export { API_VERSION, createHttpApi } from './app.js';
export { startHttpApi, type ListenOptions, type RunningHttpApi } from './server.js';
export type { EngineView, HttpApiDeps } from './deps.js';
export type { Transition } from '../streams/transition-tracker.js';
