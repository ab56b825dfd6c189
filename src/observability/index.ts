export * from './logger.js';
export * from './metrics.js';
export * from './redact.js';
export * from './registry-answers.js';
export * from './runtime.js';
export * from './write-budget-metrics.js';
