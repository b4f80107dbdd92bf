import type { DemoPlayer, PlayerName, PlayerOptions } from './player.js';

/**
 * Makes the chosen player. One dynamic import per player: the bundler splits each into its own
 * chunk, so a page downloads only the player it plays.
 */
export async function loadPlayer(name: PlayerName, options: PlayerOptions): Promise<DemoPlayer> {
  switch (name) {
    case 'dashjs':
      return (await import('./dashjs.js')).createPlayer(options);
    case 'shaka':
      return (await import('./shaka.js')).createPlayer(options);
    case 'hlsjs':
      return (await import('./hlsjs.js')).createPlayer(options);
  }
}
