// Everything the controller integration tests assemble, from one import.
export * from './api-world.js';
export * from './nodes.js';
export * from './test-controller.js';
export * from './suite.js';
