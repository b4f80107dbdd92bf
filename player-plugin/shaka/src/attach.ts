/**
 * `attach(player)`: installs Sammy in a Shaka Player 5. Shaka keeps doing everything it does;
 * Sammy becomes its AbrManager (`abrFactory`; pace-only mode: Shaka's own, wrapped), and a
 * request filter sets each media request's CMCD `rtp` to this request's pace rate (or removes it),
 * never Shaka's own formula. What every adapter shares is core's adapter kit; this file describes
 * Shaka to it and wires Shaka's hooks.
 */
import { createAdapterKit, type AdapterController, type AdapterOptions, type PaceOnlyMode as CorePaceOnlyMode } from 'sammy-pacing-core';
import type { CmcdMode } from 'sammy-pacing-protocol';
import { createAbrManager, type AbrHost } from './abr-manager.js';
import { createFilters } from './requests.js';
import { createLadder } from './ladder.js';
import { playbackEvents } from './playback-events.js';
import type { AbrConfiguration, PlayerConfiguration, PlayerLike } from './shaka.js';

export type { SammyMode } from 'sammy-pacing-core';

/**
 * Pace-only mode (`paceOnly` from 'sammy-pacing-shaka/pace-only'): Shaka's own ABR
 * (SimpleAbrManager) keeps choosing. `playerAbr`: what it needs from the pace under this `abr`
 * configuration (re-read at every `update` and Shaka reconfiguration).
 */
export type PaceOnlyMode = CorePaceOnlyMode<AbrConfiguration>;

export interface SammyOptions extends AdapterOptions<PaceOnlyMode> {
  /** Where CMCD travels: sets Shaka's `cmcd.useHeaders`. Default: as Shaka is configured ('query' unless useHeaders). */
  cmcdMode?: CmcdMode;
  /** The player's buffer target, seconds (the pace counts a share of it as full). Default: Shaka's buffering goal (`streaming.bufferingGoal`, 10 s). */
  bufferTargetSeconds?: number;
}

/** `detach()` restores Shaka's own ABR from now on (its AbrManager at the next load). */
export type SammyController = AdapterController;

/** Call before `player.load()`: Shaka makes its AbrManager, and copies request filters, when a load starts. */
export function attach(player: PlayerLike, options: SammyOptions = {}): SammyController {
  // Null only once the player is destroyed.
  const net = player.getNetworkingEngine()!;
  // Shaka's configuration as it stands, read again whenever Shaka reconfigures its AbrManager
  // (every player.configure): getConfiguration() copies it, too costly per request.
  let config: PlayerConfiguration = player.getConfiguration();
  const original = { abrFactory: config.abrFactory, cmcd: { enabled: config.cmcd.enabled, useHeaders: config.cmcd.useHeaders } };
  const kit = createAdapterKit(options, {
    package: 'sammy-pacing-shaka',
    bufferTargetSeconds: () => Math.max(config.streaming.bufferingGoal, config.streaming.rebufferingGoal),
    settings: () => config.abr,
    cmcdMode: () => (config.cmcd.useHeaders ? 'header' : 'query'),
    // Shaka discounts its start estimate by this target itself.
    startDiscount: () => config.abr.bandwidthDowngradeTarget,
  });
  const ladder = createLadder();
  const events = playbackEvents(player, kit.session, ladder.reset);
  const host: AbrHost = {
    kit,
    ladder,
    player,
    active: undefined,
    makeInner: () => original.abrFactory(),
    configured() {
      config = player.getConfiguration();
      // Pace-only: Shaka's ABR as now configured (update re-reads it); the controller exists by then.
      if (!kit.paceOnly) return;
      try {
        controller.update({});
      } catch (error) {
        // Shaka's configure must not throw; the pace stays, and says why it may starve Shaka's ABR.
        console.error(error);
      }
    },
    mediaElement: events.follow,
  };
  const filters = createFilters(player, kit, ladder, (appending) => host.active?.suggest(appending));

  net.registerRequestFilter(filters.request);
  net.registerResponseFilter(filters.response);
  player.configure({ abrFactory: () => createAbrManager(host), cmcd: { enabled: true, useHeaders: kit.cmcdMode() === 'header' } });

  const controller = kit.controller({
    enabled: (on) => (on ? host.active?.suggest() : host.active?.yieldToInner()),
    cmcdMode: (mode) => player.configure({ cmcd: { useHeaders: mode === 'header' } }),
    detach() {
      net.unregisterRequestFilter(filters.request);
      net.unregisterResponseFilter(filters.response);
      events.stop();
      player.configure({ abrFactory: original.abrFactory, cmcd: original.cmcd });
      host.active?.yieldToInner();
    },
  });
  return controller;
}
