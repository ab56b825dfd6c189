export * from './worker-config.js';
