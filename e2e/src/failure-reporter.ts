/**
 * A Playwright reporter for `npm run e2e:repeat`: writes the titles of the tests that did not end as
 * expected (failed, timed out, interrupted) to the JSON file named by SAMMY_E2E_FAILURES, one run each.
 */
import { writeFileSync } from 'node:fs';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

export const FAILURES_ENV = 'SAMMY_E2E_FAILURES';

export interface RunFailures {
  status: FullResult['status'];
  failed: Array<{ title: string; status: TestResult['status']; error: string }>;
}

export default class FailureReporter implements Reporter {
  private readonly failed: RunFailures['failed'] = [];

  onTestEnd(test: TestCase, result: TestResult): void {
    if (result.status === test.expectedStatus) return;
    const error = (result.error?.message ?? '')
      .replace(/\x1b\[[0-9;]*m/g, '')
      .split('\n')
      .slice(0, 6)
      .join('\n');
    this.failed.push({ title: test.titlePath().filter(Boolean).join(' › '), status: result.status, error });
  }

  onEnd(result: FullResult): void {
    const file = process.env[FAILURES_ENV];
    if (file) writeFileSync(file, JSON.stringify({ status: result.status, failed: this.failed } satisfies RunFailures, null, 2));
  }
}
