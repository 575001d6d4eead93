import { expect } from 'vitest';

/**
 * Every log line an app writes during a suite, at the most verbose level (pass `logTo` and the env),
 * so that a suite can prove no credential ever reaches a log.
 */
export function captureLogs() {
  const lines: string[] = [];
  return {
    env: { LOG_LEVEL: 'trace' },
    logTo: { write: (line: string) => void lines.push(line) },
    lines,
    /** None of the secrets appears in any line, whole or in its JSON-escaped form. */
    expectNone(secrets: string[]): void {
      expect(lines.length).toBeGreaterThan(0);
      const all = lines.join('\n');
      for (const secret of secrets) {
        expect(all.includes(secret), `a log line holds a credential (${secret.slice(0, 4)}…)`).toBe(false);
        expect(all.includes(JSON.stringify(secret).slice(1, -1)), `a log line holds an escaped credential (${secret.slice(0, 4)}…)`).toBe(
          false,
        );
      }
    },
  };
}
