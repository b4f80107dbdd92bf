/**
 * The rate sweep's command line (no root): its own flags against those it hands to every bench
 * invocation, the refusals, the link for each multiple, and that the bench accepts what it builds.
 */
import { describe, expect, it } from 'vitest';
import { parseCliArgs } from '../src/cli-options.js';
import { gameConfig } from '../src/config.js';
import { benchArgs, DEFAULT_MULTIPLES, DEFAULT_SWEEP_ARMS, linkFor, parseSweepArgs, type SweepArgs } from '../src/sweep-args.js';

function args(argv: string[]): SweepArgs {
  const parsed = parseSweepArgs(argv);
  if (parsed.help) throw new Error('help');
  return parsed.args;
}

describe('parseSweepArgs', () => {
  it('keeps its own flags and hands every other one on, in order, values included', () => {
    const a = args([
      '--runs',
      '1',
      '--multiples=12,2',
      '--cc',
      'bbr',
      '--arms',
      'unpaced,sammy',
      '--plain',
      '--duration',
      '20',
      '--judge',
      'sammy',
      '--results',
      '/tmp/r',
    ]);
    expect(a.multiples).toEqual([2, 12]);
    expect(a.arms).toEqual(['unpaced', 'sammy']);
    expect(a.judgedArm).toBe('sammy');
    expect(a.resultsDir).toBe('/tmp/r');
    expect(a.passthrough).toEqual(['--runs', '1', '--cc', 'bbr', '--plain', '--duration', '20']);
  });

  it("defaults to issue 17's multiples and four arms, judging the defaults (sammy)", () => {
    const a = args([]);
    expect(a.multiples).toEqual([...DEFAULT_MULTIPLES]);
    expect(a.arms).toEqual([...DEFAULT_SWEEP_ARMS]);
    expect(a.judgedArm).toBe('sammy');
    expect(a.passthrough).toEqual([]);
  });

  it('refuses the flags it sets itself, and bad multiples or arms', () => {
    expect(() => args(['--rate', '10'])).toThrow(/--rate is not for the sweep: .*--multiples/);
    expect(() => args(['--udp-mbps=1'])).toThrow(/--udp-mbps is not for the sweep/);
    expect(() => args(['--neighbours', 'tcp'])).toThrow(/--neighbours is not for the sweep/);
    expect(() => args(['--traces', 'x'])).toThrow(/--traces is not for the sweep/);
    const arms = ['--arms', 'unpaced,sammy'];
    expect(() => args(['--multiples', '2,0', ...arms])).toThrow(/"0" is not a positive number/);
    expect(() => args(['--multiples', '2,x', ...arms])).toThrow(/"x" is not a positive number/);
    expect(() => args(['--multiples', '2,2', ...arms])).toThrow(/twice/);
    expect(() => args(['--arms', 'sammy,dashjs-rtp'])).toThrow(/must include unpaced/);
    expect(() => args(['--arms', 'unpaced,nope'])).toThrow(/unknown arm "nope"/);
    expect(() => args(['--arms', 'unpaced,sammy', '--judge', 'dashjs-rtp'])).toThrow(/--judge dashjs-rtp is not one of --arms/);
    expect(() => args([...arms, '--multiples'])).toThrow(/argument missing/);
  });

  it('answers --help', () => {
    expect(parseSweepArgs(['-h'])).toEqual({ help: true });
  });
});

describe('links', () => {
  it('sets the link to the multiple × top and the UDP neighbour to 1/8 of it', () => {
    expect(linkFor(1.5, 3300)).toEqual({ multiple: 1.5, rateMbps: 4.95, udpMbps: 0.6188 });
    expect(linkFor(12, 3300)).toEqual({ multiple: 12, rateMbps: 39.6, udpMbps: 4.95 });
  });

  it('builds flags the bench itself accepts', () => {
    const a = args(['--runs', '2', '--duration', '20', '--arms', 'unpaced,sammy', '--seed', '7']);
    const parsed = parseCliArgs(benchArgs(a, linkFor(2, 3300), '/tmp/sweep/x2'));
    if (parsed.help) throw new Error('help');
    expect(parsed.config).toMatchObject({
      rateMbps: 6.6,
      udpRateMbps: 0.825,
      neighbours: ['udp'],
      arms: ['unpaced', 'sammy'],
      runs: 2,
      durationSeconds: 20,
      seed: 7,
      resultsDir: '/tmp/sweep/x2',
    });
    // A flag the bench does not know stops the sweep there, before any run.
    expect(() => parseCliArgs(benchArgs(args(['--nope', '--arms', 'unpaced,sammy']), linkFor(2, 3300), '/tmp/x'))).toThrow(/nope/);
  });

  it('runs the game neighbour instead of UDP with --neighbour game (issue 34), its maxBitrate 60 % of each link by default', () => {
    const a = args(['--neighbour', 'game', '--arms', 'unpaced,sammy', '--multiples', '1.5,12']);
    expect(a.neighbour).toBe('game');
    expect(a.passthrough).toEqual([]);
    const parsed = parseCliArgs(benchArgs(a, linkFor(1.5, 3300), '/tmp/sweep/x1.5'));
    if (parsed.help) throw new Error('help');
    expect(parsed.config.neighbours).toEqual(['game']);
    expect(gameConfig(parsed.config).maxKbps).toBe(2970);
    expect(() => args(['--neighbour', 'tcp'])).toThrow(/--neighbour must be one of udp, game/);
    expect(args([]).neighbour).toBeUndefined();
  });
});
