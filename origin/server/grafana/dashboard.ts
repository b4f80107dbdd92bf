/**
 * The Grafana dashboard for an origin's /metrics, typed by Grafana's own schema (@grafana/schema's
 * `Dashboard`: \`npm test\` type-checks it). \`npm run grafana -w @sammy/origin-server\` writes it as the JSON
 * to import (sammy-origin-dashboard.json beside it); the tests check that the two agree.
 */
import type { Dashboard } from '@grafana/schema';

export const dashboard = {
  "title": "Sammy origin: pacing",
  "uid": "sammy-origin-pacing",
  "description": "sammy-pacing-express metrics (/metrics of the reference origin or any server using sammyMetricsEndpoint).",
  "tags": [
    "sammy",
    "pacing",
    "video"
  ],
  "timezone": "browser",
  "editable": true,
  "graphTooltip": 1,
  "schemaVersion": 39,
  "version": 1,
  "refresh": "30s",
  "time": {
    "from": "now-1h",
    "to": "now"
  },
  "templating": {
    "list": [
      {
        "name": "datasource",
        "label": "Prometheus",
        "type": "datasource",
        "query": "prometheus",
        "hide": 0
      }
    ]
  },
  "annotations": {
    "list": []
  },
  "links": [],
  "panels": [
    {
      "id": 1,
      "type": "row",
      "title": "Pacing",
      "collapsed": false,
      "gridPos": {
        "x": 0,
        "y": 0,
        "w": 24,
        "h": 1
      },
      "panels": []
    },
    {
      "id": 2,
      "type": "timeseries",
      "title": "Responses by mechanism",
      "description": "Responses whose delivery ended per second: kernel- or userspace-paced, or unpaced. Paced falling to 0 while rtp keeps arriving: pacing stopped.",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 0,
        "y": 1,
        "w": 12,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "reqps"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "sum by (mechanism) (rate(sammy_responses_total[$__rate_interval]))",
          "legendFormat": "{{mechanism}}",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    },
    {
      "id": 3,
      "type": "timeseries",
      "title": "Delivery / pace ratio (paced, >= 512 KiB)",
      "description": "Achieved rate over applied pace of paced responses delivered whole: 1 on pace, below 1 late (viewers starved of CPU or bandwidth), above 1.1 a pace that does not hold.",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 12,
        "y": 1,
        "w": 12,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "none"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "histogram_quantile(0.05, sum by (le) (rate(sammy_delivery_pace_ratio_bucket[$__rate_interval])))",
          "legendFormat": "p5",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        },
        {
          "refId": "B",
          "expr": "histogram_quantile(0.5, sum by (le) (rate(sammy_delivery_pace_ratio_bucket[$__rate_interval])))",
          "legendFormat": "p50",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        },
        {
          "refId": "C",
          "expr": "histogram_quantile(0.95, sum by (le) (rate(sammy_delivery_pace_ratio_bucket[$__rate_interval])))",
          "legendFormat": "p95",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    },
    {
      "id": 4,
      "type": "timeseries",
      "title": "Requested rtp and applied pace",
      "description": "Quantiles within histogram buckets (256 kbps to 1 Gbps, doubling): coarse by design.",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 0,
        "y": 9,
        "w": 12,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "bps"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "histogram_quantile(0.5, sum by (le) (rate(sammy_requested_rtp_bytes_per_second_bucket[$__rate_interval])))*8",
          "legendFormat": "requested p50",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        },
        {
          "refId": "B",
          "expr": "histogram_quantile(0.95, sum by (le) (rate(sammy_requested_rtp_bytes_per_second_bucket[$__rate_interval])))*8",
          "legendFormat": "requested p95",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        },
        {
          "refId": "C",
          "expr": "histogram_quantile(0.5, sum by (le) (rate(sammy_applied_pace_bytes_per_second_bucket[$__rate_interval])))*8",
          "legendFormat": "applied p50",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        },
        {
          "refId": "D",
          "expr": "histogram_quantile(0.95, sum by (le) (rate(sammy_applied_pace_bytes_per_second_bucket[$__rate_interval])))*8",
          "legendFormat": "applied p95",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    },
    {
      "id": 5,
      "type": "timeseries",
      "title": "Throughput, paced and unpaced",
      "description": "Body bytes the clients acknowledged, in bits per second.",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 12,
        "y": 9,
        "w": 12,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "bps"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "sum by (mechanism) (rate(sammy_response_bytes_total[$__rate_interval]))*8",
          "legendFormat": "{{mechanism}}",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    },
    {
      "id": 6,
      "type": "timeseries",
      "title": "Active paced connections and responses",
      "description": "",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 0,
        "y": 17,
        "w": 12,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "short"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "sum(sammy_paced_connections_active)",
          "legendFormat": "connections",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        },
        {
          "refId": "B",
          "expr": "sum(sammy_paced_responses_active)",
          "legendFormat": "responses",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    },
    {
      "id": 7,
      "type": "timeseries",
      "title": "Unpaced responses by reason",
      "description": "rtp_absent is normal for manifests and init segments; the other reasons are players sending rtp the server cannot use.",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 12,
        "y": 17,
        "w": 12,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "reqps"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "sum by (reason) (rate(sammy_unpaced_responses_total[$__rate_interval]))",
          "legendFormat": "{{reason}}",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    },
    {
      "id": 8,
      "type": "timeseries",
      "title": "rtp ignored and clamped",
      "description": "",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 0,
        "y": 25,
        "w": 12,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "reqps"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "sum by (reason) (rate(sammy_rtp_ignored_total[$__rate_interval]))",
          "legendFormat": "ignored: {{reason}}",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        },
        {
          "refId": "B",
          "expr": "sum by (clamp) (rate(sammy_rtp_clamped_total[$__rate_interval]))",
          "legendFormat": "clamped: {{clamp}}",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    },
    {
      "id": 9,
      "type": "timeseries",
      "title": "Deliveries not completed",
      "description": "closed: the client went away or reset; stalled: progress timeout; shutdown: server closing; sent: no TCP_INFO.",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 12,
        "y": 25,
        "w": 12,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "reqps"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "sum by (end_reason) (rate(sammy_responses_total{end_reason!=\"delivered\"}[$__rate_interval]))",
          "legendFormat": "{{end_reason}}",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    },
    {
      "id": 10,
      "type": "row",
      "title": "Misbehaving clients",
      "collapsed": false,
      "gridPos": {
        "x": 0,
        "y": 33,
        "w": 24,
        "h": 1
      },
      "panels": []
    },
    {
      "id": 11,
      "type": "timeseries",
      "title": "Progress timeouts",
      "description": "",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 0,
        "y": 34,
        "w": 8,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "ops"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "sum by (http_version, scope) (rate(sammy_progress_timeouts_total[$__rate_interval]))",
          "legendFormat": "HTTP/{{http_version}} {{scope}}",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    },
    {
      "id": 12,
      "type": "timeseries",
      "title": "HTTP/2 client resets",
      "description": "",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 8,
        "y": 34,
        "w": 8,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "ops"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "sum(rate(sammy_http2_client_resets_total[$__rate_interval]))",
          "legendFormat": "RST_STREAM",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    },
    {
      "id": 13,
      "type": "timeseries",
      "title": "HTTP/2 GOAWAYs",
      "description": "sent code 11 (ENHANCE_YOUR_CALM): a client resetting streams faster than allowed (rapid reset).",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 16,
        "y": 34,
        "w": 8,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "ops"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "sum by (direction, code) (rate(sammy_http2_goaways_total[$__rate_interval]))",
          "legendFormat": "{{direction}} code {{code}}",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    },
    {
      "id": 14,
      "type": "row",
      "title": "Origin process",
      "collapsed": false,
      "gridPos": {
        "x": 0,
        "y": 42,
        "w": 24,
        "h": 1
      },
      "panels": []
    },
    {
      "id": 15,
      "type": "timeseries",
      "title": "CPU",
      "description": "One Node process serves from one thread: near 1 (100 %) it is the limit.",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 0,
        "y": 43,
        "w": 6,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "percentunit"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "rate(process_cpu_seconds_total[$__rate_interval])",
          "legendFormat": "{{instance}}",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    },
    {
      "id": 16,
      "type": "timeseries",
      "title": "Event-loop delay p99",
      "description": "",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 6,
        "y": 43,
        "w": 6,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "s"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "nodejs_eventloop_lag_p99_seconds",
          "legendFormat": "{{instance}}",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    },
    {
      "id": 17,
      "type": "timeseries",
      "title": "Resident memory",
      "description": "",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 12,
        "y": 43,
        "w": 6,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "bytes"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "process_resident_memory_bytes",
          "legendFormat": "{{instance}}",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    },
    {
      "id": 18,
      "type": "timeseries",
      "title": "Open file descriptors",
      "description": "",
      "datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos": {
        "x": 18,
        "y": 43,
        "w": 6,
        "h": 8
      },
      "fieldConfig": {
        "defaults": {
          "unit": "short"
        },
        "overrides": []
      },
      "options": {},
      "targets": [
        {
          "refId": "A",
          "expr": "process_open_fds",
          "legendFormat": "{{instance}}",
          "datasource": {
            "type": "prometheus",
            "uid": "${datasource}"
          }
        }
      ]
    }
  ]
} satisfies Dashboard;
