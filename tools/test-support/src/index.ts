export { burstsOf, seededRandom, type TimedRead } from './arrival.js';
export { freePort } from './ports.js';
