export {
  startInspector,
  DEFAULT_INSPECTOR_PORT,
  type InspectorOptions,
  type RunningInspector,
} from './inspector.js';
