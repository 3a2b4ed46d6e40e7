import { describeBatchPaging } from './batch-paging-suite.js';

// The always-run size of the batch page's paging test: 600 jobs, 20 a page. The 10,000-job run is
// batch-paging.scale.test.ts (`npm run test:large`).
describeBatchPaging(600, 20, 60_000, true);
