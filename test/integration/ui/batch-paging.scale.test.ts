import { describeBatchPaging } from './batch-paging-suite.js';

// Issue 21: a browser test shows a 10,000-job batch paged (or MRTQ_BATCH_PAGE_JOBS of them: 50,000
// by hand prints how long its first page takes), 50 a page as the dashboard shows by default.
describeBatchPaging(Number(process.env.MRTQ_BATCH_PAGE_JOBS ?? 10_000), 50, 600_000);
