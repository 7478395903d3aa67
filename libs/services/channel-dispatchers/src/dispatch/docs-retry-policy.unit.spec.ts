import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isRetryableStatus } from '../vendors/http/http-outcome';
import { DEFAULT_DISPATCH_OPTIONS, retryDelayMs } from './dispatch-options';

const reference = readFileSync(join(__dirname, '..', '..', '..', '..', '..', 'docs', 'reference.md'), 'utf8');
const section = ((): string => {
  const start = reference.indexOf('## Delivery retries and vendor fallback');
  const end = reference.indexOf('\n## ', start + 3);
  return reference.slice(start, end === -1 ? undefined : end);
})();

/** docs/reference.md states the retry policy in numbers: they are the dispatcher's own. */
describe('docs/reference.md: delivery retries', () => {
  it('states the number of attempts, and each wait as the backoff computes it (jitter 0 to 1)', () => {
    expect(section).toContain(`At most ${DEFAULT_DISPATCH_OPTIONS.maxAttempts} attempts`);
    const rows = [...section.matchAll(/^\| (\d+) \| (.+) \|$/gm)].map((match) => ({ attempt: Number(match[1]), next: match[2] }));
    expect(rows.map((row) => row.attempt)).toEqual(Array.from({ length: DEFAULT_DISPATCH_OPTIONS.maxAttempts }, (_, index) => index + 1));
    const seconds = (ms: number): string => String(ms / 1000);
    for (const { attempt, next } of rows) {
      const expected =
        attempt < DEFAULT_DISPATCH_OPTIONS.maxAttempts
          ? `${seconds(retryDelayMs(DEFAULT_DISPATCH_OPTIONS, attempt, 0))} to ${seconds(retryDelayMs(DEFAULT_DISPATCH_OPTIONS, attempt, 1))} s`
          : 'none: `delivery_failure`';
      expect({ attempt, next }).toEqual({ attempt, next: expected });
    }
    expect(section).toContain(`doubles\nfrom ${seconds(DEFAULT_DISPATCH_OPTIONS.initialRetryDelayMs)} s (at most ${DEFAULT_DISPATCH_OPTIONS.maxRetryDelayMs / 60_000} minutes)`);
  });

  it('names exactly the HTTP statuses that are retried', () => {
    const retried = /answering `408`, `425`,\s+`429` or `5xx`/.exec(section);
    expect(retried).not.toBeNull();
    const documented = (status: number): boolean => [408, 425, 429].includes(status) || status >= 500;
    for (let status = 100; status < 600; status += 1) expect({ status, retried: isRetryableStatus(status) }).toEqual({ status, retried: documented(status) });
  });
});
