// The script-tag bundle (dist/sammy.iife.js, global `SammyShaka`): everything, pace-only mode included, as a page without a bundler cannot pick entries.
export * from './index.js';
export * from './pace-only.js';
