// Everything the controller integration tests assemble, from one import.
export * from './api-world.js';
export * from './nodes.js';
export * from './test-controller.js';
export * from './suite.js';
// Polling, which the controller tests do most (it absorbed the old world's waitUntil).
export { waitFor } from '../process.js';
