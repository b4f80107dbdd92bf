/**
 * The script-tag bundle (`dist/sammy.iife.js`, global `Sammy`): everything, pace-only mode
 * included (`Sammy.attach(player, { mode: Sammy.paceOnly })`), as a page without a bundler cannot
 * pick entries.
 */
export * from './index.js';
export * from './pace-only.js';
