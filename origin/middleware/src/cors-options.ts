/**
 * Options for the `cors` package that let a player on another origin use a paced origin:
 *
 *   import cors from 'cors';
 *   app.use(cors(sammyCorsOptions));   // before sammyPacing() and the media
 *
 * The preflight admits the CMCD request headers (a player in CMCD header mode sends them, and they
 * are not CORS-safelisted) and the congestion-control header; responses expose Server-Timing (the
 * pace report and record id) and the length/range headers players read. An options object rather
 * than a handler keeps `cors` out of this package's dependencies.
 */
import { CMCD_HEADER_FIELDS } from '@svta/cml-cmcd';
import { CONGESTION_CONTROL_HEADER } from 'sammy-pacing-protocol';

/** The subset of the `cors` package's CorsOptions set here (structurally assignable to it). */
export interface SammyCorsOptions {
  readonly origin: string;
  readonly methods: string[];
  readonly allowedHeaders: string[];
  readonly exposedHeaders: string[];
  readonly maxAge: number;
}

/** Frozen (the `cors` typings want mutable arrays; a shared default must not be changed in place). */
const frozen = (items: readonly string[]): string[] => Object.freeze([...items]) as string[];

export const sammyCorsOptions: SammyCorsOptions = Object.freeze({
  // Media for any page; spread and override (`{ ...sammyCorsOptions, origin: 'https://player.example' }`) to restrict.
  origin: '*',
  methods: frozen(['GET', 'HEAD', 'OPTIONS']),
  allowedHeaders: frozen(['Range', ...CMCD_HEADER_FIELDS, CONGESTION_CONTROL_HEADER]),
  exposedHeaders: frozen(['Server-Timing', 'Content-Length', 'Content-Range', 'Accept-Ranges']),
  // Seconds a browser may reuse a preflight answer (Chromium caps it at 7200).
  maxAge: 600,
});
