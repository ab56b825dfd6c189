import { existsSync } from 'node:fs';
import { makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import { beforeEach } from 'vitest';
import { currentLogFile, quietTestLogger } from './quiet-log.js';

// The SDK core's own warnings (failing workflow tasks in replay drills, ...) are forwarded there too.
Runtime.install({
  logger: quietTestLogger,
  telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} } },
});

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    const logFile = currentLogFile(false);
    if (logFile !== undefined && existsSync(logFile))
      console.error(`worker warnings and errors of this test file: ${logFile}`);
  });
});
