// `attach(player)`: Shaka Player 5 described to core's adapter kit; Sammy becomes Shaka's AbrManager (wrapping
// Shaka's own), and a request filter sets each media request's CMCD `rtp` to its pace.
import { createAdapterKit, type AdapterController, type AdapterOptions, type PaceOnlyMode as CorePaceOnlyMode } from 'sammy-pacing-core';
import { abrManagers } from './abr-manager.js';
import { createLadder } from './ladder.js';
import { playbackEvents } from './playback-events.js';
import { createFilters } from './requests.js';
import type { AbrConfiguration, PlayerLike } from './shaka.js';

/** Pace-only mode (`paceOnly` from 'sammy-pacing-shaka/pace-only'): Shaka's own ABR keeps choosing; `playerAbr` is re-read at every `update` and Shaka reconfiguration. */
export type PaceOnlyMode = CorePaceOnlyMode<AbrConfiguration>;

/** `cmcdMode` sets Shaka's `cmcd.useHeaders` (default: as Shaka is configured); `bufferTargetSeconds` defaults to the larger of Shaka's `streaming.bufferingGoal` (10 s) and `rebufferingGoal`. */
export type SammyOptions = AdapterOptions<PaceOnlyMode>;

/** `detach()` restores Shaka's own ABR from now on (its AbrManager at the next load). */
export type SammyController = AdapterController;

/** Call before `player.load()`: Shaka makes its AbrManager, and copies request filters, when a load starts. */
export function attach(player: PlayerLike, options: SammyOptions = {}): SammyController {
  const net = player.getNetworkingEngine()!; // null only once the player is destroyed
  // Read again whenever Shaka configures its AbrManager: getConfiguration() copies it, too costly per request.
  let config = player.getConfiguration();
  const {
    abrFactory,
    cmcd: { enabled, useHeaders },
  } = config;
  const kit = createAdapterKit(options, {
    package: 'sammy-pacing-shaka',
    bufferTargetSeconds: () => Math.max(config.streaming.bufferingGoal, config.streaming.rebufferingGoal),
    settings: () => config.abr,
    cmcdMode: () => (config.cmcd.useHeaders ? 'header' : 'query'),
    startDiscount: () => config.abr.bandwidthDowngradeTarget, // Shaka discounts its start estimate by it itself
  });
  const ladder = createLadder();
  const events = playbackEvents(player, kit.session, ladder.reset);
  const configured = () => {
    config = player.getConfiguration();
    // Pace-only: checked against Shaka's ABR as now configured; only logged, as Shaka's configure must not throw.
    try {
      if (kit.paceOnly) controller.update({});
    } catch (error) {
      console.error(error);
    }
  };
  const abr = abrManagers(kit, ladder, player, abrFactory, configured, events.follow);
  const filters = createFilters(player, kit, ladder, (appending) => abr.active()?.suggest(appending));
  net.registerRequestFilter(filters.request);
  net.registerResponseFilter(filters.response);
  player.configure({ abrFactory: abr.create, cmcd: { enabled: true, useHeaders: kit.cmcdMode() === 'header' } });
  const controller = kit.controller({
    enabled: (on) => (on ? abr.active()?.suggest() : abr.active()?.yieldToInner()),
    cmcdMode: (mode) => player.configure({ cmcd: { useHeaders: mode === 'header' } }),
    detach() {
      net.unregisterRequestFilter(filters.request);
      net.unregisterResponseFilter(filters.response);
      events.stop();
      player.configure({ abrFactory, cmcd: { enabled, useHeaders } });
      abr.active()?.yieldToInner();
    },
  });
  return controller;
}
