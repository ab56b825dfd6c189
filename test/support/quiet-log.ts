import { appendFileSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DefaultLogger, type LogEntry } from '@temporalio/worker';
import { expect } from 'vitest';

/**
 * Workers log every state change at INFO; tests keep warnings and errors only, and write them to a
 * file instead of the console: a healthy `npm test` stays short (thousands of expected "activity
 * failed" warnings from fault drills would bury a real failure), and a failing test names the file
 * that holds its file's worker log (`test-results/logs/{test file}.{pid}.log`, kept after the run).
 */
const logDir = join(process.cwd(), 'test-results', 'logs');
let logFile: string | undefined;

/** This test file's log (created on first use unless `create` is false). */
export function currentLogFile(create = true): string | undefined {
  if (logFile === undefined && create) {
    const testPath = expect.getState().testPath;
    mkdirSync(logDir, { recursive: true });
    logFile = join(logDir, `${testPath ? basename(testPath) : 'unknown'}.${process.pid}.log`);
  }
  return logFile;
}

function writeEntry(entry: LogEntry): void {
  const at = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  let meta = '';
  if (entry.meta && Object.keys(entry.meta).length > 0) {
    try {
      meta = ` ${JSON.stringify(entry.meta, (_key, value) => (value instanceof Error ? value.stack : value))}`;
    } catch {
      meta = ' (metadata not serialisable)';
    }
  }
  appendFileSync(currentLogFile() as string, `${at} [${entry.level}] ${entry.message}${meta}\n`);
}

/** The quiet logger: warnings and errors to this test file's log (also for a test that installs a
 * Runtime of its own, test/support/prometheus-runtime.ts). */
export const quietTestLogger = new DefaultLogger('WARN', writeEntry);

/** A test's figures (windows, counts) for the record: written to this test file's log, not the run's
 * output (test-results/logs/{test file}.{pid}.log). */
export function testNote(message: string): void {
  appendFileSync(currentLogFile() as string, `${new Date().toISOString()} [NOTE] ${message}\n`);
}
