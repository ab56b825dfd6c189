import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DefaultLogger, type LogEntry, makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import { beforeEach, expect } from 'vitest';

/**
 * Workers log every state change at INFO; tests keep warnings and errors only, and write them to a
 * file instead of the console: a healthy `npm test` stays short (thousands of expected "activity
 * failed" warnings from fault drills would bury a real failure), and a failing test names the file
 * that holds its file's worker log (`test-results/logs/{test file}.{pid}.log`, kept after the run).
 */
const logDir = join(process.cwd(), 'test-results', 'logs');
let logFile: string | undefined;

function currentLogFile(): string {
  if (logFile === undefined) {
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
  appendFileSync(currentLogFile(), `${at} [${entry.level}] ${entry.message}${meta}\n`);
}

// The SDK core's own warnings (failing workflow tasks in replay drills, ...) are forwarded there too.
Runtime.install({
  logger: new DefaultLogger('WARN', writeEntry),
  telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} } },
});

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    if (logFile !== undefined && existsSync(logFile))
      console.error(`worker warnings and errors of this test file: ${logFile}`);
  });
});
