/** The environment variable through which global setup tells the workers where the origin listens. */
export const ORIGIN_ENV = 'SAMMY_E2E_ORIGIN';

export function originUrl(): string {
  const url = process.env[ORIGIN_ENV];
  if (!url) throw new Error(`${ORIGIN_ENV} is not set: the origin is started by the global setup (src/global-setup.ts); run the tests with \`npm test -w @sammy/e2e\`.`);
  return url;
}
