/** The registry client package: client, errors, schemas, environments, rate limits, webhook events. */
export * from './client.js';
export * from './config.js';
export * from './environments.js';
export * from './errors.js';
export * from './events.js';
export * from './rate-limiter.js';
export * from './schemas.js';
