// The closing line of a test command, from vitest's JSON reports: "N passed, N failed[, N skipped]".
// A suite whose setup failed has no failed test of its own: it counts as one, or the line would say
// 0 failed. A report that is missing or unreadable (vitest crashed) is one failure too.
const fs = require('node:fs');

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  let r;
  try {
    r = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    failed += 1;
    continue;
  }
  passed += r.numPassedTests;
  failed += r.numFailedTests || r.numFailedTestSuites;
  skipped += r.numPendingTests + r.numTodoTests;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
