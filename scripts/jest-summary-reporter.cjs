// Prints one plain line ("tests: N passed, N failed") that CI tooling reads regardless of runner. Jest
// runs custom reporters before its coverage and summary reporters, so the coverage table and jest's own
// "Test Suites:" block come after it: find it by its `tests:` prefix on stdout, not as the last line.
// A suite that fails to run (an import that throws, a failing beforeAll hook) has no failed test of
// its own to count, so it is reported on the same line and counts as a failure.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const broken = results.testResults.filter((r) => r.testExecError || (r.failureMessage && r.numFailingTests === 0));
    const parts = [`${results.numPassedTests} passed`, `${results.numFailedTests + broken.length} failed`];
    if (skipped > 0) parts.push(`${skipped} skipped`);
    if (broken.length > 0)
      parts.push(
        `${broken.length} suite(s) failed to run: ${broken.map((r) => r.testFilePath.replace(process.cwd() + '/', '')).join(', ')}`,
      );
    process.stdout.write(`\ntests: ${parts.join(', ')}\n`);
  }
}
module.exports = SummaryReporter;
