/**
 * The script-tag bundle (`dist/sammy.iife.js`, global `SammyShaka`): everything, pace-only mode
 * included (`SammyShaka.attach(player, { mode: SammyShaka.paceOnly })`), as a page without a
 * bundler cannot pick entries.
 */
export * from './index.js';
export * from './pace-only.js';
