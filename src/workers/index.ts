export * from './create-workers.js';
