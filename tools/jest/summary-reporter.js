const { relative } = require('node:path');

const ENABLE_HINT = [
  'To run them: start a broker (`npm run kafka:start`, needs Java 17 and Maven) and a Postgres, then set both',
  '  HERALD_TEST_KAFKA_BROKERS=127.0.0.1:9092 HERALD_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/herald_test npm test',
];

/**
 * Ends a Jest run with one plain line, `N passed, N failed, N skipped`, which CI and
 * people can read without knowing Jest's own summary format. Before it, says loudly
 * what did not run: the files with skipped tests and, without HERALD_TEST_KAFKA_BROKERS /
 * HERALD_TEST_DATABASE_URL, that the integration tests ran on the embedded mode only.
 *
 * HERALD_TEST_REQUIRE_INFRA=1 (CI) fails the run when either variable is missing or any
 * test was skipped: there nothing may be left out.
 */
class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.error = undefined;
  }

  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests, numRuntimeErrorTestSuites } = results;
    const missing = ['HERALD_TEST_KAFKA_BROKERS', 'HERALD_TEST_DATABASE_URL'].filter((name) => !process.env[name]?.trim());
    const skippedFiles = results.testResults.flatMap((file) => {
      const skipped = file.testResults.filter((test) => test.status === 'pending' || test.status === 'todo').length;
      return skipped === 0 ? [] : [`${relative(this.rootDir, file.testFilePath)} (${skipped} of ${file.testResults.length} skipped)`];
    });
    const required = process.env.HERALD_TEST_REQUIRE_INFRA === '1';

    const lines = [];
    if (skippedFiles.length > 0) lines.push(`Tests were SKIPPED in ${skippedFiles.length} file(s):`, ...skippedFiles.map((file) => `  ${file}`));
    if (missing.length > 0) {
      lines.push(`${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set: the integration tests ran on the embedded mode only (PGlite, in-process bus), and the tests that need Kafka and Postgres did not run.`, ...ENABLE_HINT);
    } else if (skippedFiles.length > 0) {
      lines.push('(Kafka and Postgres are configured: these skip for another reason, e.g. no kubectl or jq; HERALD_TEST_REQUIRE_KUBECTL / HERALD_TEST_REQUIRE_JQ make that a failure.)');
    }
    let failedRun = 0;
    if (required && lines.length > 0) {
      lines.push('HERALD_TEST_REQUIRE_INFRA=1: nothing may be skipped, so this run FAILS.');
      this.error = new Error(`HERALD_TEST_REQUIRE_INFRA=1 but ${missing.length > 0 ? `${missing.join(', ')} not set` : `tests skipped in ${skippedFiles.length} file(s)`}`);
      failedRun = 1;
    }
    if (lines.length > 0) {
      const bar = '!'.repeat(100);
      process.stdout.write(`\n${bar}\n${lines.map((line) => `!! ${line}`).join('\n')}\n${bar}\n`);
    }

    // The slowest files, so that CI's time (kept under 45 minutes) is watched where it goes.
    const slowest = results.testResults
      .map((file) => ({ file: relative(this.rootDir, file.testFilePath), seconds: (file.perfStats.end - file.perfStats.start) / 1000 }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, 25);
    if (slowest.length > 1) process.stdout.write(`\nslowest test files:\n${slowest.map(({ file, seconds }) => `  ${seconds.toFixed(1).padStart(7)} s  ${file}`).join('\n')}\n`);

    const failed = numFailedTests + numRuntimeErrorTestSuites + failedRun;
    process.stdout.write(`\n${numPassedTests} passed, ${failed} failed, ${numPendingTests + numTodoTests} skipped\n`);
  }

  /** Jest fails the run when a reporter has an error. */
  getLastError() {
    return this.error;
  }
}

module.exports = SummaryReporter;
