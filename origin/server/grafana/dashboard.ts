/**
 * The Grafana dashboard for an origin's /metrics, typed by Grafana's own schema (@grafana/schema's
 * `Dashboard`: `npm test` type-checks it). `npm run grafana -w @sammy/origin-server` writes it as the JSON
 * to import (sammy-origin-dashboard.json beside it); the tests check that the two agree.
 */
import type { Dashboard, Panel, RowPanel } from '@grafana/schema';

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
const RATE = '[$__rate_interval]';
let nextId = 1;

/** A time series of PromQL `targets` ([expr, legend]) at grid cell (x, y). */
function panel(
  title: string,
  targets: ReadonlyArray<readonly [string, string]>,
  unit: string,
  at: { x: number; y: number; w?: number },
  description = '',
): Panel {
  return {
    id: nextId++,
    type: 'timeseries',
    title,
    description,
    datasource: DATASOURCE,
    gridPos: { x: at.x, y: at.y, w: at.w ?? 12, h: 8 },
    fieldConfig: { defaults: { unit }, overrides: [] },
    options: {},
    targets: targets.map(([expr, legendFormat], i) => ({ refId: String.fromCharCode(65 + i), expr, legendFormat, datasource: DATASOURCE })),
  };
}

function row(title: string, y: number): RowPanel {
  return { id: nextId++, type: 'row', title, collapsed: false, gridPos: { x: 0, y, w: 24, h: 1 }, panels: [] };
}

/** p5, p50 and p95 of a histogram, scaled by `factor`. */
function quantiles(metric: string, factor = '', label = ''): Array<[string, string]> {
  return [5, 50, 95].map((p) => [`histogram_quantile(${p / 100}, sum by (le) (rate(${metric}_bucket${RATE})))${factor}`, `${label}p${p}`]);
}

export const dashboard = {
  title: 'Sammy origin: pacing',
  uid: 'sammy-origin-pacing',
  description: 'sammy-pacing-express metrics (/metrics of the reference origin or any server using sammyMetricsEndpoint).',
  tags: ['sammy', 'pacing', 'video'],
  timezone: 'browser',
  editable: true,
  graphTooltip: 1,
  schemaVersion: 39,
  version: 1,
  refresh: '30s',
  time: { from: 'now-1h', to: 'now' },
  templating: { list: [{ name: 'datasource', label: 'Prometheus', type: 'datasource', query: 'prometheus', hide: 0 }] },
  annotations: { list: [] },
  links: [],
  panels: [
    row('Pacing', 0),
    panel(
      'Responses by mechanism',
      [[`sum by (mechanism) (rate(sammy_responses_total${RATE}))`, '{{mechanism}}']],
      'reqps',
      { x: 0, y: 1 },
      'Responses whose delivery ended per second: kernel- or userspace-paced, or unpaced. Paced falling to 0 while rtp keeps arriving: pacing stopped.',
    ),
    panel(
      'Delivery / pace ratio (paced, >= 512 KiB)',
      quantiles('sammy_delivery_pace_ratio'),
      'none',
      { x: 12, y: 1 },
      'Achieved rate over applied pace of paced responses delivered whole: 1 on pace, below 1 late (viewers starved of CPU or bandwidth), above 1.1 a pace that does not hold.',
    ),
    panel(
      'Requested rtp and applied pace',
      [
        ...quantiles('sammy_requested_rtp_bytes_per_second', '*8', 'requested '),
        ...quantiles('sammy_applied_pace_bytes_per_second', '*8', 'applied '),
      ],
      'bps',
      { x: 0, y: 9 },
      'Quantiles within histogram buckets (256 kbps to 1 Gbps, doubling): coarse by design.',
    ),
    panel(
      'Throughput, paced and unpaced',
      [[`sum by (mechanism) (rate(sammy_response_bytes_total${RATE}))*8`, '{{mechanism}}']],
      'bps',
      { x: 12, y: 9 },
      'Body bytes the clients acknowledged, in bits per second.',
    ),
    panel(
      'Active paced connections and responses',
      [
        ['sum(sammy_paced_connections_active)', 'connections'],
        ['sum(sammy_paced_responses_active)', 'responses'],
      ],
      'short',
      { x: 0, y: 17 },
    ),
    panel(
      'Unpaced responses by reason',
      [[`sum by (reason) (rate(sammy_unpaced_responses_total${RATE}))`, '{{reason}}']],
      'reqps',
      { x: 12, y: 17 },
      'rtp_absent is normal for manifests and init segments; the other reasons are players sending rtp the server cannot use.',
    ),
    panel(
      'rtp ignored and clamped',
      [
        [`sum by (reason) (rate(sammy_rtp_ignored_total${RATE}))`, 'ignored: {{reason}}'],
        [`sum by (clamp) (rate(sammy_rtp_clamped_total${RATE}))`, 'clamped: {{clamp}}'],
      ],
      'reqps',
      { x: 0, y: 25 },
    ),
    panel(
      'Deliveries not completed',
      [[`sum by (end_reason) (rate(sammy_responses_total{end_reason!="delivered"}${RATE}))`, '{{end_reason}}']],
      'reqps',
      { x: 12, y: 25 },
      'closed: the client went away or reset; stalled: progress timeout; shutdown: server closing; sent: no TCP_INFO.',
    ),
    row('Misbehaving clients', 33),
    panel(
      'Progress timeouts',
      [[`sum by (http_version) (rate(sammy_progress_timeouts_total${RATE}))`, 'HTTP/{{http_version}}']],
      'ops',
      { x: 0, y: 34, w: 8 },
      'Responses ended because their client took too little for the progress timeout (stalled readers).',
    ),
    panel('HTTP/2 client resets', [[`sum(rate(sammy_http2_client_resets_total${RATE}))`, 'RST_STREAM']], 'ops', { x: 8, y: 34, w: 8 }),
    panel(
      'HTTP/2 GOAWAYs',
      [[`sum by (direction, code) (rate(sammy_http2_goaways_total${RATE}))`, '{{direction}} code {{code}}']],
      'ops',
      { x: 16, y: 34, w: 8 },
      'sent code 11 (ENHANCE_YOUR_CALM): a client resetting streams faster than allowed (rapid reset).',
    ),
    row('Origin process', 42),
    panel(
      'CPU',
      [[`rate(process_cpu_seconds_total${RATE})`, '{{instance}}']],
      'percentunit',
      { x: 0, y: 43, w: 6 },
      'One Node process serves from one thread: near 1 (100 %) it is the limit.',
    ),
    panel('Event-loop delay p99', [['nodejs_eventloop_lag_p99_seconds', '{{instance}}']], 's', { x: 6, y: 43, w: 6 }),
    panel('Resident memory', [['process_resident_memory_bytes', '{{instance}}']], 'bytes', { x: 12, y: 43, w: 6 }),
    panel('Open file descriptors', [['process_open_fds', '{{instance}}']], 'short', { x: 18, y: 43, w: 6 }),
  ],
} satisfies Dashboard;
