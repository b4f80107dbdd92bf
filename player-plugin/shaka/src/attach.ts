/**
 * `attach(player)`: installs Sammy in a Shaka Player 5. Shaka keeps doing everything it does;
 * Sammy becomes its AbrManager (`abrFactory`; pace-only mode: Shaka's own, wrapped), and a
 * request filter sets each media request's CMCD `rtp` to this request's pace rate (or removes it),
 * never Shaka's own formula. Everything Sammy decides is in the session core (sammy-pacing-core);
 * this file only wires Shaka to it.
 */
import {
  createSession,
  paceOnlyModeOf,
  type AdapterController,
  type AdapterOptions,
  type PaceOnlyMode as CorePaceOnlyMode,
  type SammyMode,
} from 'sammy-pacing-core';
import { checkCmcdMode, type CmcdMode } from 'sammy-pacing-protocol';
import { createAbrManager, type AbrHost } from './abr-manager.js';
import { createFilters } from './filters.js';
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
  /** Buffer level counted as full, seconds. Default: Shaka's buffering goal (`streaming.bufferingGoal`, 10 s). */
  maxBufferSeconds?: number;
}

/** `detach()` restores Shaka's own ABR from now on (its AbrManager at the next load). */
export type SammyController = AdapterController;

/** Call before `player.load()`: Shaka makes its AbrManager, and copies request filters, when a load starts. */
export function attach(player: PlayerLike, options: SammyOptions = {}): SammyController {
  const { mode: requestedMode, enabled, cmcdMode: requestedCmcdMode, maxBufferSeconds, initialHistory, ...parameters } = options;
  const paceOnlyMode = paceOnlyModeOf<PaceOnlyMode>(requestedMode, 'sammy-pacing-shaka/pace-only');
  const paceOnly = paceOnlyMode !== undefined;
  const mode: SammyMode = paceOnly ? 'pace-only' : 'sammy';
  // Null only once the player is destroyed.
  const net = player.getNetworkingEngine()!;
  // Shaka's configuration as it stands, read again whenever Shaka reconfigures its AbrManager
  // (every player.configure): getConfiguration() copies it, too costly per request.
  let config: PlayerConfiguration = player.getConfiguration();
  const original = { abrFactory: config.abrFactory, cmcd: { enabled: config.cmcd.enabled, useHeaders: config.cmcd.useHeaders } };
  const maxBuffer = () => maxBufferSeconds ?? Math.max(config.streaming.bufferingGoal, config.streaming.rebufferingGoal);
  // Pace-only: Shaka's ABR as configured now, so a pace that would starve it is refused here.
  const playerAbr = () => paceOnlyMode?.playerAbr(config.abr, maxBuffer());
  const session = createSession({ parameters, enabled, history: initialHistory, playerAbr: playerAbr(), maxBufferSeconds: maxBuffer() });
  let cmcdMode = checkCmcdMode(requestedCmcdMode ?? (config.cmcd.useHeaders ? 'header' : 'query'));
  let attached = true;
  const ladder = createLadder();
  const events = playbackEvents(player, session, ladder.reset);

  const host: AbrHost = {
    session,
    ladder,
    player,
    active: undefined,
    picks: () => attached && !paceOnly && session.enabled,
    startEstimateBps() {
      if (!attached || !paceOnly || !session.enabled || !session.hasHistory) return undefined;
      // startBitrateKbps() is the history's estimate × Shaka's downgrade target; Shaka applies that itself.
      return (session.startBitrateKbps() / config.abr.bandwidthDowngradeTarget) * 1000;
    },
    makeInner: () => original.abrFactory(),
    configured() {
      config = player.getConfiguration();
      if (!paceOnly) return;
      try {
        session.update({}, playerAbr());
      } catch (error) {
        // Shaka's configure must not throw; the pace stays, and says why it may starve Shaka's ABR.
        console.error(error);
      }
    },
    mediaElement: (element) => events.bind(element),
  };

  const filters = createFilters({
    player,
    session,
    ladder,
    cmcdMode: () => cmcdMode,
    maxBufferSeconds: maxBuffer,
    onSwitchPoint: (appending) => host.active?.suggest(appending),
  });

  net.registerRequestFilter(filters.request);
  net.registerResponseFilter(filters.response);
  player.configure({ abrFactory: () => createAbrManager(host), cmcd: { enabled: true, useHeaders: cmcdMode === 'header' } });

  return {
    get enabled() {
      return session.enabled;
    },
    setEnabled(on: boolean) {
      if (on === session.enabled) return;
      session.setEnabled(on);
      if (on) host.active?.suggest();
      else host.active?.yieldToInner();
    },
    get parameters() {
      return session.parameters;
    },
    update: (changes) => session.update(changes, playerAbr()),
    get mode() {
      return mode;
    },
    get cmcdMode() {
      return cmcdMode;
    },
    setCmcdMode(next: CmcdMode) {
      cmcdMode = checkCmcdMode(next);
      player.configure({ cmcd: { useHeaders: cmcdMode === 'header' } });
    },
    get phase() {
      return session.phase;
    },
    on: (event, listener) => session.on(event, listener),
    detach() {
      if (!attached) return;
      attached = false;
      net.unregisterRequestFilter(filters.request);
      net.unregisterResponseFilter(filters.response);
      events.unbind();
      player.configure({ abrFactory: original.abrFactory, cmcd: original.cmcd });
      host.active?.yieldToInner();
      session.destroy();
    },
  };
}
