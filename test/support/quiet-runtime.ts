import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers log every state change at INFO; tests keep warnings and errors only.
Runtime.install({ logger: new DefaultLogger('WARN') });
