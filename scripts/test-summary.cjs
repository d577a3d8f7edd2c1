// The closing line of a test command, from vitest's JSON reports: "N passed, N failed[, N skipped]".
//   node scripts/test-summary.cjs REPORT[:EXIT_CODE]...
// A suite whose setup failed has no failed test of its own: it counts as one, or the line would say
// 0 failed. A report that is missing or unreadable (vitest crashed) is one failure too, and so is a
// run vitest ended with a non-zero exit code while every test passed (an unhandled error: its
// JSON report still says success), when the caller gives that code after the report's path.
const fs = require('node:fs');

let passed = 0;
let failed = 0;
let skipped = 0;
for (const arg of process.argv.slice(2)) {
  const m = /^(.*):(\d+)$/.exec(arg);
  const file = m ? m[1] : arg;
  const code = m ? Number(m[2]) : 0;
  let r;
  try {
    r = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    failed += 1;
    continue;
  }
  const failedHere = r.numFailedTests || r.numFailedTestSuites;
  passed += r.numPassedTests;
  failed += failedHere || (code !== 0 ? 1 : 0);
  if (!failedHere && code !== 0) console.error(`test-summary: vitest exited ${code} with no failed test (an unhandled error? see above)`);
  skipped += r.numPendingTests + r.numTodoTests;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
