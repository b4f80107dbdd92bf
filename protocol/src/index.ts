export * from './units.js';
export * from './limits.js';
export * from './server-timing.js';
export * from './records.js';
export * from './congestion-control.js';
export * from './media-paths.js';
