import { debuglog } from 'node:util';

/** Where the origin writes. Debug lines (ignored bad input) go to `NODE_DEBUG=sammy` by default. */
export interface SammyLogger {
  info(message: string): void;
  warn(message: string): void;
  debug(message: string): void;
}

export const defaultLogger: SammyLogger = {
  info: (m) => console.info(m),
  warn: (m) => console.warn(m),
  debug: debuglog('sammy'),
};

export const silentLogger: SammyLogger = { info() {}, warn() {}, debug() {} };
