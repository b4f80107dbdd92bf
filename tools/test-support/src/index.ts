export { burstsOf, seededRandom, type TimedRead } from './arrival.js';
