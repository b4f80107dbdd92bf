#!/usr/bin/env node
/**
 * `npm run demo:neighbour` (issues 34, 40; Linux, root): the lab's topology with a person's own browser on
 * the client side. The lab server (film and game signalling) and the game's sender (a headless
 * Chromium) run in the server namespace; a veth pair joins this machine's own namespace to the client
 * namespace, whose routes send the person's traffic to the lab server through the router namespace
 * and its bottleneck, exactly the path the bench's client takes: by default the home link (40 Mbit/s,
 * 40 ms, `--queue` fifo-2bdp in the delay line) and the 4K-like film; `--link paper` is issue 34's
 * (tbf 40 Mbit/s, 100 kB queue, 5 ms). Open the printed URL in any browser on this machine: the film
 * and the game's receiver with its live latency graph, side by side, and under the game its frames'
 * delay through the router (the delay line's RTP log, served by this process); the toggle switches
 * Sammy on and off.
 *
 *   npm run demo:neighbour [-- --screenshots DIR [--seconds S]] [--link home|paper] [--queue KIND] [--media 4k|lab] [--game-mbps R] [--rate R]
 *
 * With --screenshots, a headless Chromium in this namespace plays the person: the demo unpaced for S
 * seconds (default 35), a screenshot, Sammy for S seconds, a screenshot; then it exits. Otherwise it
 * runs until Ctrl-C. Either way it removes its namespaces (and with them the veth pair and routes).
 *
 * The person's browser keeps Chromium's default mDNS host candidates: the game still connects, as
 * the sender (run with them off) offers its plain address and learns the browser's as peer-reflexive.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { findChromium } from '@sammy/chromium';
import { chromium } from 'playwright-core';
import { launchInNamespace, LAB_CHROMIUM_ARGS, type NamespacedBrowser } from './browser.js';
import { invocationDir } from './cli-options.js';
import { topVideoKbps } from './bench.js';
import { BOTTLENECK_MBPS, GAME_DEFAULTS, PAPER_BDP_BYTES, PAPER_RTT_MS, QUEUE_BDP_MULTIPLE } from './config.js';
import { gamePageUrl } from './neighbours/game-stream.js';
import { NetDelayFeed } from './game/net-feed.js';
import { HOME_LINK, HOME_QUEUE_SPECS, parseLinkFlags } from './home-link.js';
import {
  DEFAULT_MEDIA_ROOT,
  ensureMedia,
  FILM_4K_MANIFEST_PATH,
  isMediaName,
  LAB_MANIFEST_PATH,
  manifestFile,
  MEDIA_NAMES,
} from './media.js';
import { cleanupOnExit, inNs, killAllChildren, run, sleep, start, waitForLine, type Child } from './processes.js';
import { LAB_DIR, nodeScript, PAGE_DIR } from './scripts.js';
import { CLIENT_IP, createTopology, destroyTopology, namesFor, namespaceSupport, removeLeftovers, SERVER_IP } from './topology.js';
import { SERVER_PORT } from './run.js';

/** The person's side: this namespace's end of the veth pair, and the client namespace's. */
const HOST_IP = '10.247.3.1';
const HOST_GW_IP = '10.247.3.2';
/** Where this process serves the game's network delay to the person's browser. */
const NET_FEED_PORT = 8797;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      screenshots: { type: 'string' },
      seconds: { type: 'string' },
      'game-mbps': { type: 'string' },
      rate: { type: 'string' },
      link: { type: 'string' },
      queue: { type: 'string' },
      media: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(
      'usage: npm run demo:neighbour [-- --screenshots DIR [--seconds S]] [--link home|paper] [--queue fifo-2bdp|fifo-bloated|fq-codel] [--media 4k|lab] [--game-mbps R] [--rate R (paper link)]',
    );
    return;
  }
  const support = namespaceSupport();
  if (!support.ok) throw new Error(`the demo needs network namespaces: ${support.reason}`);
  if (!existsSync(join(PAGE_DIR, 'demo.html'))) throw new Error(`demo page not built (${PAGE_DIR}): npm run build -w @sammy/lab`);
  const { home } = parseLinkFlags(values.link ?? 'home', values.queue, { rate: values.rate !== undefined, rttMs: false, trace: false });
  const media = values.media ?? '4k';
  if (!isMediaName(media)) throw new Error(`--media must be one of ${MEDIA_NAMES.join(', ')}, got ${media}`);
  const manifestPath = media === '4k' ? FILM_4K_MANIFEST_PATH : LAB_MANIFEST_PATH;
  const rateMbps = home ? HOME_LINK.rateMbps : Number(values.rate ?? BOTTLENECK_MBPS);
  const seconds = Number(values.seconds ?? 35);
  for (const [name, v] of [
    ['rate', rateMbps],
    ['seconds', seconds],
  ] as const)
    if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  if (values['game-mbps'] !== undefined && !(Number(values['game-mbps']) > 0)) throw new Error('--game-mbps must be a positive number');
  const gameKbps = Math.round(
    values['game-mbps'] !== undefined ? Number(values['game-mbps']) * 1000 : GAME_DEFAULTS.linkShare * rateMbps * 1000,
  );
  await ensureMedia(DEFAULT_MEDIA_ROOT, manifestPath);
  const capKbps = 4 * topVideoKbps(manifestFile(DEFAULT_MEDIA_ROOT, manifestPath));

  removeLeftovers();
  const names = namesFor(process.pid);
  const hostDev = `sl${process.pid.toString(36)}h`;
  const children: Child[] = [];
  let sender: NamespacedBrowser | undefined;
  const tmp = mkdtempSync(join(tmpdir(), 'sammy-demo-'));
  const rtpLogFile = join(tmp, 'rtp.log');
  let feedServer: Server | undefined;
  const teardown = cleanupOnExit(
    () => {
      feedServer?.close();
      killAllChildren();
      rmSync(tmp, { recursive: true, force: true });
      // Deleting the client namespace deletes the veth pair, and the host route through it.
      destroyTopology(names);
    },
    (line) => console.error(line),
  );
  try {
    const t = home
      ? await createTopology({
          rateMbps,
          queueBytes: HOME_QUEUE_SPECS[home].queueBytes,
          rttMs: HOME_LINK.rttMs,
          home: { queue: home, statsFile: join(tmp, 'link-stats.jsonl') },
          rtpLogFile,
          // The person's browser is beyond the client namespace: its packets take the home link's queue too.
          moreDownlinkSubnets: [`${HOST_IP.split('.').slice(0, 3).join('.')}.0/24`],
        })
      : await createTopology({ rateMbps, queueBytes: QUEUE_BDP_MULTIPLE * PAPER_BDP_BYTES, rttMs: PAPER_RTT_MS });
    const linkText = home
      ? `home link: ${HOME_LINK.rttMs} ms RTT, ${HOME_QUEUE_SPECS[home].label}, in the router's delay line`
      : `tbf, ${QUEUE_BDP_MULTIPLE * PAPER_BDP_BYTES} B queue, ${PAPER_RTT_MS} ms RTT`;
    // The person's link: this namespace ═ client namespace, which forwards to the router.
    const peer = `${hostDev.slice(0, -1)}p`;
    await run('ip', ['link', 'add', hostDev, 'type', 'veth', 'peer', 'name', peer, 'netns', t.client]);
    await run('ip', ['addr', 'add', `${HOST_IP}/24`, 'dev', hostDev]);
    await run('ip', ['link', 'set', hostDev, 'up']);
    await run('ip', ['-n', t.client, 'addr', 'add', `${HOST_GW_IP}/24`, 'dev', peer]);
    await run('ip', ['-n', t.client, 'link', 'set', peer, 'up']);
    for (const key of ['net.ipv4.ip_forward=1', 'net.ipv4.conf.all.rp_filter=0', 'net.ipv4.conf.default.rp_filter=0'])
      await run(...inNs(t.client, 'sysctl', ['-qw', key]));
    await run('ip', ['route', 'add', `${SERVER_IP.split('.').slice(0, 3).join('.')}.0/24`, 'via', HOST_GW_IP, 'dev', hostDev]);
    // Back to the person: the router (main table, after the delay line) and the client namespace know the way.
    await run('ip', ['-n', t.router, 'route', 'add', `${HOST_IP.split('.').slice(0, 3).join('.')}.0/24`, 'via', CLIENT_IP]);

    const [node, ...script] = nodeScript('lab-server');
    const server = start(
      ...inNs(t.server, node as string, [
        ...script,
        '--host',
        SERVER_IP,
        '--port',
        String(SERVER_PORT),
        '--media',
        DEFAULT_MEDIA_ROOT,
        '--page',
        PAGE_DIR,
        '--cc',
        'cubic',
        '--seed',
        '1',
      ]),
      { cwd: LAB_DIR },
    );
    children.push(server);
    await waitForLine(server, (l) => l.includes('"ready"'), 20_000, 'lab server');
    const origin = `http://${SERVER_IP}:${SERVER_PORT}`;

    // The game's sender: one page, offering a new call to every receiver that loads (persist=1).
    sender = await launchInNamespace(t.server);
    const settings = { width: GAME_DEFAULTS.width, height: GAME_DEFAULTS.height, fps: GAME_DEFAULTS.fps, maxKbps: gameKbps };
    const senderPage = await (await sender.browser.newContext()).newPage();
    await senderPage.goto(gamePageUrl(origin, 'send', 'demo', settings, { persist: '1' }), { waitUntil: 'load' });

    // The game's frames through the router, live, for the page (served in this namespace, to the person's browser).
    let netUrl: string | undefined;
    if (home) {
      const feed = new NetDelayFeed(rtpLogFile);
      feedServer = createServer((req, res) => {
        res.setHeader('access-control-allow-origin', '*');
        if (req.url !== '/net-delay') {
          res.writeHead(404).end();
          return;
        }
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(feed.frames()));
      });
      await new Promise<void>((r) => feedServer!.listen(NET_FEED_PORT, HOST_IP, r));
      netUrl = `http://${HOST_IP}:${NET_FEED_PORT}/net-delay`;
    }
    const demo = (sammy: boolean) =>
      `${origin}/lab/demo.html?${new URLSearchParams({ sammy: sammy ? '1' : '0', mpd: manifestPath, cap: String(capKbps), buf: '240', maxKbps: String(gameKbps), fps: String(settings.fps), w: String(settings.width), h: String(settings.height), link: linkText, ...(netUrl ? { net: netUrl } : {}) })}`;
    console.log(
      `demo up: ${rateMbps} Mbit/s bottleneck (${linkText}), film ${manifestPath}, game maxBitrate ${gameKbps} kbps.\n` +
        `Open ${demo(false)}\nin a browser on this machine (its route to ${SERVER_IP} goes through the lab's router namespace). Ctrl-C ends the demo.`,
    );

    if (values.screenshots === undefined) {
      await new Promise<never>(() => undefined);
      return;
    }
    // Relative to where npm run was typed (npm runs the script in lab/), as the bench's paths: `--screenshots lab/docs`.
    const dir = resolve(invocationDir(), values.screenshots);
    mkdirSync(dir, { recursive: true });
    // The person's browser: a Chromium in this (the machine's own) namespace, mDNS candidates as shipped.
    const person = await chromium.launch({
      executablePath: findChromium(),
      headless: true,
      args: LAB_CHROMIUM_ARGS.filter((a) => !a.startsWith('--disable-features')),
    });
    try {
      // Rendered at 0.7 × (980 px wide, the whole page tall): the game's noise does not compress, and the PNGs go in the repository.
      const page = await (await person.newContext({ viewport: { width: 1400, height: 820 }, deviceScaleFactor: 0.7 })).newPage();
      await page.goto(demo(false), { waitUntil: 'load' });
      for (const arm of ['unpaced', 'sammy'] as const) {
        if (arm === 'sammy') await page.click('#toggle');
        await page.waitForFunction((a) => document.body.dataset.arm === a, arm);
        for (let s = 0; s < seconds; s += 5) {
          await sleep(5000);
          const text = await page.evaluate(
            () =>
              `${document.querySelector('#video-figures')?.textContent ?? ''} | ${(document.querySelector('#game') as HTMLIFrameElement).contentDocument?.querySelector('#figures')?.textContent ?? ''} | ${document.querySelector('#net-figures')?.textContent ?? ''}`,
          );
          console.log(`[${arm} ${s + 5}s] ${text}`);
        }
        const file = join(dir, home ? `demo-home-${home}-${arm}.png` : `demo-neighbour-${arm}.png`);
        // The whole page: the router graph's figure line sits below an 820-px viewport.
        await page.screenshot({ path: file, fullPage: true });
        console.log(`screenshot: ${file}`);
      }
    } finally {
      await person.close();
    }
  } finally {
    await sender?.close();
    teardown();
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(`demo:neighbour: ${err.message}`);
    process.exit(1);
  },
);
