/** The pure algorithm: plain functions of numbers, no player, no browser. */
export * from './types.js';
export * from './parameters.js';
export * from './pace-rate.js';
export * from './hold.js';
export * from './bitrate.js';
export * from './throughput.js';
export * from './phase.js';
export * from './decide.js';
export * from './pace-requirements.js';
