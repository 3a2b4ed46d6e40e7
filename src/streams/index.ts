// RxJS over ZooKeeper watches: cold, re-read after every fire, re-armed, resynced after reconnects.
export { watched$ } from './watched.js';
export { children$ } from './children.js';
export { data$, exists$, type NodeValue } from './data.js';
export { dataWhile$ } from './data-while.js';
export { session$ } from './session.js';
export {
  batchIds$,
  batchProcessingEmpty$,
  batchStatus$,
  candidatesPerRead,
  collectionHolds$,
  jobWork$,
  queuePaused$,
} from './queue-events.js';
