export * from './create-workers.js';
export * from './process-signals.js';
export * from './run-workers.js';
