/**
 * The script-tag bundle (`dist/sammy.iife.js`, global `SammyHls`): everything, pace-only mode
 * included (`SammyHls.attach(hls, { mode: SammyHls.paceOnly })`), as a page without a bundler
 * cannot pick entries.
 */
export * from './index.js';
export * from './pace-only.js';
