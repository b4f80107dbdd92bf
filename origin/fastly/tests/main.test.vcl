# falco unit tests for main.vcl: `falco test main.vcl` (run by origin/fastly/test/fastly-vcl.test.ts).
# falco's simulator reads client.socket.pace as 0, so the pace is asserted on the header
# main.vcl computes it into, Sammy-Pace-KBps (KB/s, "0" = unpaced).
# Reference figures: rtp 15000 kbps = 1875 KB/s; floor 128 KB/s = 1024 kbps; max 1000000 kbps = 125000 KB/s.

# Overrides merged into main.vcl's sammy_pacing table by single tests (falco's
# testing.table_set only takes STRING values; the table is INTEGER).
table test_low_max_pace INTEGER {
  "max_pace_kbps": 8000,
}
table test_small_payload_limit INTEGER {
  "max_cmcd_payload_bytes": 32,
}
table test_congestion_control_off INTEGER {
  "congestion_control_enabled": 0,
}
table test_short_idle INTEGER {
  "shared_connection_idle_ms": 100,
}

# ---- where the rtp comes from -------------------------------------------------------------

// @scope: recv
// @suite: query mode: rtp from the URL-encoded CMCD parameter, converted to KB/s
sub test_query_mode {
  set req.url = "/media/video/seg-7.m4s?CMCD=bl%3D21300%2Cbr%3D3200%2Crtp%3D15000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Rtp-Source, "query");
  assert.equal(req.http.Sammy-Rtp, "15000");
  assert.equal(req.http.Sammy-Pace-KBps, "1875");
}

// @scope: recv
// @suite: header mode: rtp from CMCD-Status
sub test_header_mode {
  set req.url = "/media/video/seg-7.m4s";
  set req.http.CMCD-Request = "bl=21300";
  set req.http.CMCD-Status = "rtp=15000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Rtp-Source, "header");
  assert.equal(req.http.Sammy-Rtp, "15000");
  assert.equal(req.http.Sammy-Pace-KBps, "1875");
}

// @scope: recv
// @suite: header mode: rtp among other CMCD-Status keys
sub test_header_mode_other_keys {
  set req.url = "/media/video/seg-7.m4s";
  set req.http.CMCD-Status = "bs,rtp=8000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Pace-KBps, "1000");
}

// @scope: recv
// @suite: both modes: the query parameter's rtp wins over CMCD-Status
sub test_both_query_wins {
  set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3D15000";
  set req.http.CMCD-Status = "rtp=8000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Rtp-Source, "query");
  assert.equal(req.http.Sammy-Pace-KBps, "1875");
}

// @scope: recv
// @suite: both modes: a query CMCD without rtp defers to CMCD-Status
sub test_both_query_without_rtp {
  set req.url = "/media/video/seg-7.m4s?CMCD=bl%3D21300%2Cbr%3D3200";
  set req.http.CMCD-Status = "rtp=8000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Rtp-Source, "header");
  assert.equal(req.http.Sammy-Pace-KBps, "1000");
}

// @scope: recv
// @suite: both modes: an rtp look-alike inside a quoted query value defers to CMCD-Status
sub test_both_quoted_lookalike {
  set req.url = "/media/video/seg-7.m4s?CMCD=sid%3D%22x%2Crtp%3D1%22";
  set req.http.CMCD-Status = "rtp=8000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Rtp-Source, "header");
  assert.equal(req.http.Sammy-Pace-KBps, "1000");
}

// @scope: recv
// @suite: both modes: a malformed query rtp decides (unpaced), the header is not consulted
sub test_both_query_malformed {
  set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3Dfast";
  set req.http.CMCD-Status = "rtp=8000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Rtp-Source, "query");
  assert.is_notset(req.http.Sammy-Rtp);
  assert.equal(req.http.Sammy-Pace-KBps, "0");
}

// @scope: recv
// @suite: neither: no CMCD at all leaves the request unpaced
sub test_neither {
  set req.url = "/media/manifest.mpd";
  testing.call_subroutine("vcl_recv");
  assert.is_notset(req.http.Sammy-Rtp-Source);
  assert.is_notset(req.http.Sammy-Rtp);
  assert.equal(req.http.Sammy-Pace-KBps, "0");
}

// @scope: recv
// @suite: neither: CMCD without rtp (manifest, init segment, before playback) is unpaced
sub test_cmcd_without_rtp {
  set req.url = "/media/video/init.mp4?CMCD=ot%3Di%2Csid%3D%226e2f%22";
  set req.http.CMCD-Request = "su";
  testing.call_subroutine("vcl_recv");
  assert.is_notset(req.http.Sammy-Rtp);
  assert.equal(req.http.Sammy-Pace-KBps, "0");
  assert.equal(req.url, "/media/video/init.mp4");
}

# ---- malformed values: ignored, request unpaced ----------------------------------------------

// @scope: recv
// @suite: malformed: non-numeric rtp
sub test_malformed_text {
  set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3Dabc";
  testing.call_subroutine("vcl_recv");
  assert.is_notset(req.http.Sammy-Rtp);
  assert.equal(req.http.Sammy-Pace-KBps, "0");
}

// @scope: recv
// @suite: malformed: negative rtp
sub test_malformed_negative {
  set req.url = "/media/video/seg-7.m4s";
  set req.http.CMCD-Status = "rtp=-15000";
  testing.call_subroutine("vcl_recv");
  assert.is_notset(req.http.Sammy-Rtp);
  assert.equal(req.http.Sammy-Pace-KBps, "0");
}

// @scope: recv
// @suite: malformed: zero rtp
sub test_malformed_zero {
  set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3D0";
  testing.call_subroutine("vcl_recv");
  assert.is_notset(req.http.Sammy-Rtp);
  assert.equal(req.http.Sammy-Pace-KBps, "0");
}

// @scope: recv
// @suite: malformed: empty rtp value
sub test_malformed_empty {
  set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3D%2Cbl%3D200";
  testing.call_subroutine("vcl_recv");
  assert.is_notset(req.http.Sammy-Rtp);
  assert.equal(req.http.Sammy-Pace-KBps, "0");
}

// @scope: recv
// @suite: malformed: number followed by junk, exponent notation
sub test_malformed_junk {
  set req.url = "/media/video/seg-7.m4s";
  set req.http.CMCD-Status = "rtp=15000kbps";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Pace-KBps, "0");

  set req.http.CMCD-Status = "rtp=1e5";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Pace-KBps, "0");
}

// @scope: recv
// @suite: malformed: two CMCD query parameters are ambiguous, both ignored and stripped
sub test_malformed_two_params {
  set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3D15000&CMCD=rtp%3D900";
  testing.call_subroutine("vcl_recv");
  assert.is_notset(req.http.Sammy-Rtp);
  assert.equal(req.http.Sammy-Pace-KBps, "0");
  assert.equal(req.url, "/media/video/seg-7.m4s");
}

// @scope: recv
// @suite: malformed: a payload longer than max_cmcd_payload_bytes is not parsed
sub test_malformed_too_long {
  testing.table_merge(sammy_pacing, test_small_payload_limit);
  set req.url = "/media/video/seg-7.m4s?CMCD=bl%3D21300%2Cbr%3D3200%2Csid%3D%226e2f-long%22%2Crtp%3D15000";
  testing.call_subroutine("vcl_recv");
  assert.is_notset(req.http.Sammy-Rtp);
  assert.equal(req.http.Sammy-Pace-KBps, "0");
  # Still stripped from the cache key.
  assert.equal(req.url, "/media/video/seg-7.m4s");

  set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3D15000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Pace-KBps, "1875");
}

// @scope: recv
// @suite: malformed: a key merely ending in rtp is not rtp
sub test_malformed_other_key {
  set req.url = "/media/video/seg-7.m4s";
  set req.http.CMCD-Status = "xrtp=15000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Pace-KBps, "0");
}

# ---- clamping ------------------------------------------------------------------------------

// @scope: recv
// @suite: below the floor: raised to Fastly's minimum of 128 KB/s
sub test_below_floor {
  set req.url = "/media/audio/seg-7.m4s?CMCD=rtp%3D500";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Rtp, "500");
  assert.equal(req.http.Sammy-Pace-KBps, "128");

  set req.url = "/media/audio/seg-8.m4s?CMCD=rtp%3D1";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Pace-KBps, "128");
}

// @scope: recv
// @suite: at the floor: 1024 kbps is exactly 128 KB/s, 1100 kbps rounds up to 138
sub test_at_floor {
  set req.url = "/media/audio/seg-7.m4s?CMCD=rtp%3D1024";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Pace-KBps, "128");

  set req.url = "/media/audio/seg-7.m4s?CMCD=rtp%3D1100";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Pace-KBps, "138");
}

// @scope: recv
// @suite: absurdly large: lowered to the configured maximum (1000000 kbps = 125000 KB/s)
sub test_absurdly_large {
  set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3D99999999999999999999999";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Rtp, "99999999999999999999999");
  assert.equal(req.http.Sammy-Pace-KBps, "125000");

  set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3D2000000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Pace-KBps, "125000");
}

// @scope: recv
// @suite: configurable maximum: a lower max_pace_kbps in the table caps the pace
sub test_configured_maximum {
  testing.table_merge(sammy_pacing, test_low_max_pace);
  set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3D15000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Rtp, "15000");
  assert.equal(req.http.Sammy-Pace-KBps, "1000");
}

// @scope: recv
// @suite: fractional rtp is tolerated and rounded up; leading zeros are ignored
sub test_fraction_and_leading_zeros {
  set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3D15000.5";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Rtp, "15000.5");
  assert.equal(req.http.Sammy-Pace-KBps, "1876");

  set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3D0015000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Rtp, "15000");
  assert.equal(req.http.Sammy-Pace-KBps, "1875");
}

# ---- encodings and letter case --------------------------------------------------------------

// @scope: recv
// @suite: percent-encoding: lower-case hex digits decode the same
sub test_percent_lowercase_hex {
  set req.url = "/media/video/seg-7.m4s?CMCD=bl%3d21300%2cbr%3d3200%2crtp%3d15000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-CMCD, "bl=21300,br=3200,rtp=15000");
  assert.equal(req.http.Sammy-Pace-KBps, "1875");
}

// @scope: recv
// @suite: percent-encoding: an unencoded payload (= and , left raw) is read too
sub test_percent_unencoded {
  set req.url = "/media/video/seg-7.m4s?CMCD=bl=21300,rtp=15000&t=1";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Pace-KBps, "1875");
  assert.equal(req.url, "/media/video/seg-7.m4s?t=1");
}

// @scope: recv
// @suite: percent-encoding: an encoded ",rtp=" inside a quoted value is not the rtp key
sub test_percent_quoted_values {
  set req.url = "/media/video/seg-7.m4s?CMCD=cid%3D%22a%2Crtp%3D1%22%2Crtp%3D15000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-CMCD, {"cid="a,rtp=1",rtp=15000"});
  assert.equal(req.http.Sammy-Pace-KBps, "1875");
}

// @scope: recv
// @suite: mixed case: header names are case-insensitive
sub test_mixed_case_header_name {
  set req.url = "/media/video/seg-7.m4s";
  set req.http.cmcd-status = "rtp=15000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Rtp-Source, "header");
  assert.equal(req.http.Sammy-Pace-KBps, "1875");
}

// @scope: recv
// @suite: mixed case: CMCD keys are case-sensitive (CTA-5004), RTP= is not rtp
sub test_mixed_case_key {
  set req.url = "/media/video/seg-7.m4s?CMCD=RTP%3D15000";
  testing.call_subroutine("vcl_recv");
  assert.is_notset(req.http.Sammy-Rtp);
  assert.equal(req.http.Sammy-Pace-KBps, "0");

  set req.url = "/media/video/seg-7.m4s";
  set req.http.CMCD-Status = "Rtp=15000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Pace-KBps, "0");
}

// @scope: recv
// @suite: mixed case: the parameter is named CMCD exactly (as the Express origin); cmcd= is an ordinary parameter
sub test_mixed_case_param_name {
  set req.url = "/media/video/seg-7.m4s?cmcd=rtp%3D15000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Pace-KBps, "0");
  assert.equal(req.url, "/media/video/seg-7.m4s?cmcd=rtp%3D15000");
}

# ---- the pace never sticks to a reused connection --------------------------------------------

describe pace_reset_on_reused_connection {
  // @scope: recv
  sub test_first_request_paced {
    set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3D15000";
    testing.call_subroutine("vcl_recv");
    assert.equal(req.http.Sammy-Pace-KBps, "1875");
  }

  // @scope: recv
  sub test_next_request_without_rtp_is_unpaced {
    # Same interpreter (falco keeps state through a describe block): the next request on the
    # connection carries no rtp and must go back to unpaced.
    set req.url = "/media/manifest.mpd";
    unset req.http.CMCD-Status;
    testing.call_subroutine("vcl_recv");
    assert.is_notset(req.http.Sammy-Rtp);
    assert.equal(req.http.Sammy-Pace-KBps, "0");
  }

  // @scope: deliver
  sub test_next_response_reports_unpaced {
    testing.call_subroutine("vcl_deliver");
    assert.contains(resp.http.Server-Timing, "sammy-pace;dur=0;desc=none");
    assert.not_contains(resp.http.Server-Timing, "sammy-rtp");
  }
}

// @scope: recv
// @suite: pace reset: a client cannot set its own pace through the internal headers
sub test_client_cannot_inject_pace {
  set req.url = "/media/manifest.mpd";
  set req.http.Sammy-Pace-KBps = "5";
  set req.http.Sammy-Rtp-Kbps = "40";
  set req.http.Sammy-CC = "reno";
  set req.http.Sammy-Request-Pace-KBps = "40";
  set req.http.Sammy-Object-Type = "v";
  # Nor make a busy HTTP/2 connection up to keep a pace.
  set req.http.Sammy-Conn-Shared = "1";
  set req.http.Sammy-Conn-Requests = "9";
  set req.http.Sammy-Conn-Pace-KBps = "5000";
  set req.http.Sammy-Conn-Last-Sent-Ms = "1";
  set req.http.Sammy-Conn-Unsent-Bytes = "1000";
  set req.http.Sammy-Conn-Busy = "1";
  set req.http.Sammy-Pace-Reason = "kept";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Pace-KBps, "0");
  assert.equal(req.http.Sammy-Request-Pace-KBps, "0");
  assert.is_notset(req.http.Sammy-Rtp-Kbps);
  assert.is_notset(req.http.Sammy-CC);
  assert.is_notset(req.http.Sammy-Object-Type);
  # What falco's simulator reads: an HTTP/1.1 connection's first request, unpaced, no TCP_INFO.
  assert.equal(req.http.Sammy-Conn-Shared, "0");
  assert.equal(req.http.Sammy-Conn-Requests, "1");
  assert.equal(req.http.Sammy-Conn-Pace-KBps, "0");
  assert.is_notset(req.http.Sammy-Conn-Last-Sent-Ms);
  assert.is_notset(req.http.Sammy-Conn-Unsent-Bytes);
  assert.equal(req.http.Sammy-Conn-Busy, "0");
  assert.equal(req.http.Sammy-Pace-Reason, "own");
}

# ---- the CMCD parameter never reaches the cache key or the backend ---------------------------

describe cache_key_stripping {
  // @scope: recv
  sub test_recv_strips_cmcd_keeps_others {
    set req.url = "/media/video/seg-7.m4s?a=1&CMCD=bl%3D21300%2Crtp%3D15000&b=2";
    set req.http.CMCD-Status = "rtp=8000";
    testing.call_subroutine("vcl_recv");
    assert.equal(req.url, "/media/video/seg-7.m4s?a=1&b=2");
    # Kept for logging.
    assert.equal(req.http.Sammy-CMCD, "bl=21300,rtp=15000");
    assert.equal(req.http.Sammy-Pace-KBps, "1875");
  }

  // @scope: hash
  sub test_hash_has_no_cmcd {
    testing.call_subroutine("vcl_hash");
    assert.contains(req.hash, "/media/video/seg-7.m4s?a=1&b=2");
    assert.not_contains(req.hash, "CMCD");
  }

}

# On Fastly bereq.url is req.url (tested above through the hash); falco does not derive bereq
# from req when a subroutine is called alone, so the backend-request tests set bereq themselves.
// @scope: miss
// @suite: backend request on miss: CMCD headers and internal headers removed
sub test_miss_cleans_bereq {
  set bereq.http.CMCD-Status = "rtp=15000";
  set bereq.http.CMCD-Object = "br=3200";
  set bereq.http.CMCD-Session = {"sid="6e2f""};
  set bereq.http.Sammy-Pace-KBps = "1875";
  set bereq.http.Sammy-CMCD = "rtp=15000";
  testing.call_subroutine("vcl_miss");
  assert.is_notset(bereq.http.CMCD-Status);
  assert.is_notset(bereq.http.CMCD-Object);
  assert.is_notset(bereq.http.CMCD-Session);
  assert.is_notset(bereq.http.Sammy-Pace-KBps);
  assert.is_notset(bereq.http.Sammy-CMCD);
}

// @scope: recv
// @suite: cache key: the same segment with different CMCD payloads gets one key
sub test_same_key_for_different_payloads {
  declare local var.first STRING;
  set req.url = "/media/video/seg-7.m4s?CMCD=bl%3D21300%2Crtp%3D15000";
  testing.call_subroutine("vcl_recv");
  set var.first = req.url;
  set req.url = "/media/video/seg-7.m4s?CMCD=bl%3D4000%2Crtp%3D22000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.url, var.first);
  assert.equal(req.url, "/media/video/seg-7.m4s");
}

// @scope: pass
// @suite: backend request on pass: CMCD headers and internal headers removed
sub test_pass_cleans_bereq {
  set bereq.http.CMCD-Status = "rtp=15000";
  set bereq.http.CMCD-Request = "bl=21300";
  set bereq.http.Sammy-Congestion-Control = "bbr";
  set bereq.http.Sammy-Rtp = "15000";
  testing.call_subroutine("vcl_pass");
  assert.is_notset(bereq.http.CMCD-Status);
  assert.is_notset(bereq.http.CMCD-Request);
  assert.is_notset(bereq.http.Sammy-Congestion-Control);
  assert.is_notset(bereq.http.Sammy-Rtp);
}

// @scope: fetch
// @suite: the backend's own Server-Timing is not cached with the object
sub test_fetch_drops_backend_server_timing {
  set beresp.http.Server-Timing = "sammy-pace;dur=0;desc=kernel";
  testing.call_subroutine("vcl_fetch");
  assert.is_notset(beresp.http.Server-Timing);
}

# ---- response headers ------------------------------------------------------------------------

describe deliver_paced_response {
  // @scope: recv
  sub test_recv_paced {
    set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3D15000";
    set req.http.Sammy-Congestion-Control = "BBR";
    testing.call_subroutine("vcl_recv");
    assert.equal(req.http.Sammy-CC, "bbr");
    assert.equal(req.http.Sammy-Pace-Reason, "own");
  }

  // @scope: deliver
  sub test_deliver_server_timing_and_cors {
    testing.call_subroutine("vcl_deliver");
    assert.starts_with(resp.http.Server-Timing, "sammy-rtp;dur=15000, sammy-pace;dur=15000;desc=fastly");
    assert.contains(resp.http.Server-Timing, "sammy-cc;desc=bbr");
    assert.match(resp.http.Server-Timing, "sammy-rtt;dur=[0-9.]+");
    assert.match(resp.http.Server-Timing, "sammy-minrtt;dur=[0-9.]+");
    assert.match(resp.http.Server-Timing, "sammy-delivery;dur=[0-9.]+");
    assert.match(resp.http.Server-Timing, "sammy-retrans;dur=[0-9]+");
    assert.match(resp.http.Server-Timing, "sammy-pacing;dur=[0-9.]+");
    assert.equal(resp.http.Access-Control-Allow-Origin, "*");
    assert.equal(resp.http.Timing-Allow-Origin, "*");
    assert.contains(resp.http.Access-Control-Expose-Headers, "Server-Timing");
    # vcl_deliver decides again from the connection (falco: HTTP/1.1): the request's own pace,
    # and no sammy-conn entry (shared connections only).
    assert.not_contains(resp.http.Server-Timing, "sammy-conn");
    assert.match(resp.http.Sammy-Fastly-Socket, "^pace=[0-9]+, max_pacing_rate=-?[0-9]+, reason=own, shared=0, busy=0, requests=1$");
  }
}

// @scope: recv
// @suite: congestion control: only cubic, reno and bbr are accepted
sub test_congestion_control_allow_list {
  set req.url = "/media/video/seg-7.m4s";
  set req.http.Sammy-Congestion-Control = "vegas";
  testing.call_subroutine("vcl_recv");
  assert.is_notset(req.http.Sammy-CC);

  set req.http.Sammy-Congestion-Control = "reno";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-CC, "reno");
}

// @scope: recv
// @suite: congestion control: ignored when disabled in the table
sub test_congestion_control_disabled {
  testing.table_merge(sammy_pacing, test_congestion_control_off);
  set req.url = "/media/video/seg-7.m4s";
  set req.http.Sammy-Congestion-Control = "bbr";
  testing.call_subroutine("vcl_recv");
  assert.is_notset(req.http.Sammy-CC);
}

// @scope: recv
// @suite: CORS preflight is answered at the edge
sub test_preflight_recv {
  set req.method = "OPTIONS";
  set req.url = "/media/video/seg-7.m4s";
  set req.http.Origin = "https://demo.example";
  set req.http.Access-Control-Request-Method = "GET";
  testing.call_subroutine("vcl_recv");
  assert.error(604);
}

// @scope: error
// @suite: CORS preflight response allows the CMCD and congestion-control headers
sub test_preflight_error {
  set obj.status = 604;
  testing.call_subroutine("vcl_error");
  assert.equal(obj.status, 204);
  assert.contains(obj.http.Access-Control-Allow-Headers, "CMCD-Status");
  assert.contains(obj.http.Access-Control-Allow-Headers, "Sammy-Congestion-Control");
}

# ---- HTTP/2 and HTTP/3: one connection, one pace, shared by concurrent requests --------------
# The rule is sammy-pacing-protocol's decideConnectionPace (shared-connection.ts), in KB/s.
# falco's simulator reads fastly_info.is_h2/is_h3 as false and client.requests as 1, and
# testing.inject_variable cannot change them. So each test below runs vcl_recv for the request's
# own rtp (falco: an HTTP/1.1 request, its own pace), then sets the connection as main.vcl's
# sammy_read_connection reads it on HTTP/2 (Sammy-Conn-* headers), and calls sammy_decide_pace,
# the subroutine vcl_recv and vcl_deliver both take the decision with. Sammy-Conn-Pace-KBps
# stands for client.socket.pace as the previous response left it.

# One player's session on an HTTP/2 connection, request after request.
describe h2_session {
  // @scope: recv
  sub test_h2_segment_on_new_connection_gets_its_own_pace {
    set req.url = "/media/video/seg-1.m4s?CMCD=ot%3Dv%2Crtp%3D15000";
    testing.call_subroutine("vcl_recv");
    set req.http.Sammy-Conn-Shared = "1";
    set req.http.Sammy-Conn-Requests = "1";
    set req.http.Sammy-Conn-Pace-KBps = "0";
    # The TLS handshake was just sent, but a connection's first request is never "busy".
    set req.http.Sammy-Conn-Last-Sent-Ms = "3";
    set req.http.Sammy-Conn-Unsent-Bytes = "0";
    testing.call_subroutine("sammy_decide_pace");
    assert.equal(req.http.Sammy-Object-Type, "v");
    assert.equal(req.http.Sammy-Conn-Busy, "0");
    assert.equal(req.http.Sammy-Pace-KBps, "1875");
    assert.equal(req.http.Sammy-Pace-Reason, "own");
  }

  // @scope: recv
  sub test_h2_manifest_without_rtp_keeps_busy_connection_pace {
    # A manifest refresh while segment 1 is still being sent at 1875 KB/s.
    set req.url = "/media/manifest.mpd?CMCD=ot%3Dm%2Csid%3D%226e2f%22";
    testing.call_subroutine("vcl_recv");
    assert.equal(req.http.Sammy-Request-Pace-KBps, "0");
    set req.http.Sammy-Conn-Shared = "1";
    set req.http.Sammy-Conn-Requests = "2";
    set req.http.Sammy-Conn-Pace-KBps = "1875";
    set req.http.Sammy-Conn-Last-Sent-Ms = "2";
    set req.http.Sammy-Conn-Unsent-Bytes = "65536";
    testing.call_subroutine("sammy_decide_pace");
    assert.equal(req.http.Sammy-Object-Type, "m");
    assert.equal(req.http.Sammy-Conn-Busy, "1");
    assert.equal(req.http.Sammy-Pace-KBps, "1875");
    assert.equal(req.http.Sammy-Pace-Reason, "kept");
  }

  // @scope: deliver
  sub test_h2_manifest_response_reports_kept_pace {
    # Server-Timing reports the pace the connection has (sammy-pace), and no rtp for the manifest.
    testing.call_subroutine("sammy_server_timing");
    # sammy-conn: busy (dur 1: Fastly cannot count the streams in flight), pace kept.
    assert.starts_with(resp.http.Server-Timing, "sammy-pace;dur=15000;desc=fastly");
    assert.not_contains(resp.http.Server-Timing, "sammy-rtp");
    assert.contains(resp.http.Server-Timing, ", sammy-conn;dur=1;desc=kept");
    assert.contains(resp.http.Sammy-Fastly-Socket, ", reason=kept, shared=1, busy=1, requests=2");
  }

  // @scope: recv
  sub test_h2_audio_smaller_rtp_keeps_video_pace {
    # dash.js's own rtp is per rendition: audio's is far below video's.
    set req.url = "/media/audio/seg-1.m4s";
    set req.http.CMCD-Object = "ot=a,br=128";
    set req.http.CMCD-Status = "rtp=1000";
    testing.call_subroutine("vcl_recv");
    assert.equal(req.http.Sammy-Request-Pace-KBps, "128");
    set req.http.Sammy-Conn-Shared = "1";
    set req.http.Sammy-Conn-Requests = "3";
    set req.http.Sammy-Conn-Pace-KBps = "1875";
    set req.http.Sammy-Conn-Last-Sent-Ms = "1";
    set req.http.Sammy-Conn-Unsent-Bytes = "0";
    testing.call_subroutine("sammy_decide_pace");
    assert.equal(req.http.Sammy-Object-Type, "a");
    assert.equal(req.http.Sammy-Pace-KBps, "1875");
    assert.equal(req.http.Sammy-Pace-Reason, "kept");
  }

  // @scope: recv
  sub test_h2_video_larger_rtp_raises_busy_connection_pace {
    unset req.http.CMCD-Object;
    unset req.http.CMCD-Status;
    set req.url = "/media/video/seg-2.m4s?CMCD=ot%3Dv%2Crtp%3D20000";
    testing.call_subroutine("vcl_recv");
    set req.http.Sammy-Conn-Shared = "1";
    set req.http.Sammy-Conn-Requests = "4";
    set req.http.Sammy-Conn-Pace-KBps = "1875";
    set req.http.Sammy-Conn-Last-Sent-Ms = "40";
    set req.http.Sammy-Conn-Unsent-Bytes = "0";
    testing.call_subroutine("sammy_decide_pace");
    assert.equal(req.http.Sammy-Conn-Busy, "1");
    assert.equal(req.http.Sammy-Pace-KBps, "2500");
    assert.equal(req.http.Sammy-Pace-Reason, "raised");
  }

  // @scope: recv
  sub test_h2_idle_connection_request_without_rtp_is_unpaced {
    # Playback stopped; seconds later the page fetches something else on the same connection.
    set req.url = "/media/poster.jpg";
    testing.call_subroutine("vcl_recv");
    set req.http.Sammy-Conn-Shared = "1";
    set req.http.Sammy-Conn-Requests = "5";
    set req.http.Sammy-Conn-Pace-KBps = "2500";
    set req.http.Sammy-Conn-Last-Sent-Ms = "4000";
    set req.http.Sammy-Conn-Unsent-Bytes = "0";
    testing.call_subroutine("sammy_decide_pace");
    assert.equal(req.http.Sammy-Conn-Busy, "0");
    assert.equal(req.http.Sammy-Pace-KBps, "0");
    assert.equal(req.http.Sammy-Pace-Reason, "own");
  }

  // @scope: recv
  sub test_h2_idle_connection_lower_rtp_gets_its_own_pace {
    # The buffer filled, the player asks for less, and the connection has been quiet: the pace falls.
    set req.url = "/media/video/seg-9.m4s?CMCD=ot%3Dv%2Crtp%3D8000";
    testing.call_subroutine("vcl_recv");
    set req.http.Sammy-Conn-Shared = "1";
    set req.http.Sammy-Conn-Requests = "6";
    set req.http.Sammy-Conn-Pace-KBps = "2500";
    set req.http.Sammy-Conn-Last-Sent-Ms = "3200";
    set req.http.Sammy-Conn-Unsent-Bytes = "0";
    testing.call_subroutine("sammy_decide_pace");
    assert.equal(req.http.Sammy-Pace-KBps, "1000");
    assert.equal(req.http.Sammy-Pace-Reason, "own");
  }
}

// @scope: recv
// @suite: h2 busy: sent less than shared_connection_idle_ms (500) ago is busy, 500 ms is idle
sub test_h2_idle_threshold {
  set req.url = "/media/manifest.mpd";
  testing.call_subroutine("vcl_recv");
  set req.http.Sammy-Conn-Shared = "1";
  set req.http.Sammy-Conn-Requests = "4";
  set req.http.Sammy-Conn-Pace-KBps = "1875";
  set req.http.Sammy-Conn-Unsent-Bytes = "0";
  set req.http.Sammy-Conn-Last-Sent-Ms = "499";
  testing.call_subroutine("sammy_decide_pace");
  assert.equal(req.http.Sammy-Conn-Busy, "1");
  assert.equal(req.http.Sammy-Pace-KBps, "1875");

  set req.http.Sammy-Conn-Last-Sent-Ms = "500";
  testing.call_subroutine("sammy_decide_pace");
  assert.equal(req.http.Sammy-Conn-Busy, "0");
  assert.equal(req.http.Sammy-Pace-KBps, "0");
}

// @scope: recv
// @suite: h2 busy: bytes still queued make a quiet connection busy (e.g. a receive window at zero)
sub test_h2_unsent_bytes_are_busy {
  set req.url = "/media/manifest.mpd";
  testing.call_subroutine("vcl_recv");
  set req.http.Sammy-Conn-Shared = "1";
  set req.http.Sammy-Conn-Requests = "4";
  set req.http.Sammy-Conn-Pace-KBps = "1875";
  set req.http.Sammy-Conn-Last-Sent-Ms = "2000";
  set req.http.Sammy-Conn-Unsent-Bytes = "1";
  testing.call_subroutine("sammy_decide_pace");
  assert.equal(req.http.Sammy-Conn-Busy, "1");
  assert.equal(req.http.Sammy-Pace-Reason, "kept");
}

// @scope: recv
// @suite: h2 busy: the idle threshold comes from the sammy_pacing table
sub test_h2_idle_threshold_configurable {
  testing.table_merge(sammy_pacing, test_short_idle);
  set req.url = "/media/manifest.mpd";
  testing.call_subroutine("vcl_recv");
  set req.http.Sammy-Conn-Shared = "1";
  set req.http.Sammy-Conn-Requests = "4";
  set req.http.Sammy-Conn-Pace-KBps = "1875";
  set req.http.Sammy-Conn-Last-Sent-Ms = "200";
  set req.http.Sammy-Conn-Unsent-Bytes = "0";
  testing.call_subroutine("sammy_decide_pace");
  assert.equal(req.http.Sammy-Conn-Busy, "0");
  assert.equal(req.http.Sammy-Pace-KBps, "0");
}

// @scope: recv
// @suite: h2 busy: without TCP_INFO (HTTP/3, or tcp_info unavailable) the connection counts as idle
sub test_h2_no_tcp_info_is_idle {
  set req.url = "/media/manifest.mpd";
  testing.call_subroutine("vcl_recv");
  set req.http.Sammy-Conn-Shared = "1";
  set req.http.Sammy-Conn-Requests = "4";
  set req.http.Sammy-Conn-Pace-KBps = "1875";
  unset req.http.Sammy-Conn-Last-Sent-Ms;
  unset req.http.Sammy-Conn-Unsent-Bytes;
  testing.call_subroutine("sammy_decide_pace");
  assert.equal(req.http.Sammy-Conn-Busy, "0");
  assert.equal(req.http.Sammy-Pace-KBps, "0");
  assert.equal(req.http.Sammy-Pace-Reason, "own");
}

// @scope: recv
// @suite: h2: a connection pace above max_pace_kbps was not set by Sammy and counts as unpaced
sub test_h2_foreign_connection_pace_is_unpaced {
  set req.url = "/media/video/seg-3.m4s?CMCD=rtp%3D15000";
  testing.call_subroutine("vcl_recv");
  set req.http.Sammy-Conn-Shared = "1";
  set req.http.Sammy-Conn-Requests = "4";
  set req.http.Sammy-Conn-Pace-KBps = "4194303";
  set req.http.Sammy-Conn-Last-Sent-Ms = "1";
  set req.http.Sammy-Conn-Unsent-Bytes = "0";
  testing.call_subroutine("sammy_decide_pace");
  assert.equal(req.http.Sammy-Pace-KBps, "1875");
  assert.equal(req.http.Sammy-Pace-Reason, "own");
}

// @scope: recv
// @suite: h2: the same rtp on a busy connection (Sammy's session-wide rtp on audio and video) is kept
sub test_h2_same_rtp_kept {
  set req.url = "/media/audio/seg-3.m4s?CMCD=ot%3Da%2Crtp%3D15000";
  testing.call_subroutine("vcl_recv");
  set req.http.Sammy-Conn-Shared = "1";
  set req.http.Sammy-Conn-Requests = "3";
  set req.http.Sammy-Conn-Pace-KBps = "1875";
  set req.http.Sammy-Conn-Last-Sent-Ms = "5";
  set req.http.Sammy-Conn-Unsent-Bytes = "0";
  testing.call_subroutine("sammy_decide_pace");
  assert.equal(req.http.Sammy-Pace-KBps, "1875");
  assert.equal(req.http.Sammy-Pace-Reason, "kept");
}

// @scope: recv
// @suite: h2: a media segment without rtp (a seek or a stall: the initial phase) unpaces a busy connection
sub test_h2_media_without_rtp_unpaces_busy_connection {
  # The player seeked while segment 6 was downloading at 1875 KB/s; its bytes are still queued.
  set req.url = "/media/video/seg-12.m4s?CMCD=ot%3Dv%2Csid%3D%226e2f%22";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Request-Pace-KBps, "0");
  set req.http.Sammy-Conn-Shared = "1";
  set req.http.Sammy-Conn-Requests = "9";
  set req.http.Sammy-Conn-Pace-KBps = "1875";
  set req.http.Sammy-Conn-Last-Sent-Ms = "3";
  set req.http.Sammy-Conn-Unsent-Bytes = "1048576";
  testing.call_subroutine("sammy_decide_pace");
  assert.equal(req.http.Sammy-Object-Type, "v");
  assert.equal(req.http.Sammy-Conn-Busy, "1");
  assert.equal(req.http.Sammy-Pace-KBps, "0");
  assert.equal(req.http.Sammy-Pace-Reason, "own");

  # The same for audio and muxed segments, in header mode too.
  set req.url = "/media/audio/seg-12.m4s";
  set req.http.CMCD-Object = "ot=a";
  testing.call_subroutine("vcl_recv");
  set req.http.Sammy-Conn-Shared = "1";
  set req.http.Sammy-Conn-Requests = "10";
  set req.http.Sammy-Conn-Pace-KBps = "1875";
  set req.http.Sammy-Conn-Last-Sent-Ms = "3";
  set req.http.Sammy-Conn-Unsent-Bytes = "1048576";
  testing.call_subroutine("sammy_decide_pace");
  assert.equal(req.http.Sammy-Object-Type, "a");
  assert.equal(req.http.Sammy-Pace-KBps, "0");
  assert.equal(req.http.Sammy-Pace-Reason, "own");

  set req.http.CMCD-Object = "ot=av";
  testing.call_subroutine("vcl_recv");
  set req.http.Sammy-Conn-Shared = "1";
  set req.http.Sammy-Conn-Requests = "11";
  set req.http.Sammy-Conn-Pace-KBps = "1875";
  set req.http.Sammy-Conn-Last-Sent-Ms = "3";
  set req.http.Sammy-Conn-Unsent-Bytes = "1048576";
  testing.call_subroutine("sammy_decide_pace");
  assert.equal(req.http.Sammy-Pace-KBps, "0");
  assert.equal(req.http.Sammy-Pace-Reason, "own");

  # An init segment without rtp on the same busy connection keeps the pace.
  set req.url = "/media/video/init.m4s";
  set req.http.CMCD-Object = "ot=i";
  testing.call_subroutine("vcl_recv");
  set req.http.Sammy-Conn-Shared = "1";
  set req.http.Sammy-Conn-Requests = "12";
  set req.http.Sammy-Conn-Pace-KBps = "1875";
  set req.http.Sammy-Conn-Last-Sent-Ms = "3";
  set req.http.Sammy-Conn-Unsent-Bytes = "1048576";
  testing.call_subroutine("sammy_decide_pace");
  assert.equal(req.http.Sammy-Object-Type, "i");
  assert.equal(req.http.Sammy-Pace-KBps, "1875");
  assert.equal(req.http.Sammy-Pace-Reason, "kept");
  unset req.http.CMCD-Object;
}

// @scope: recv
// @suite: h2: a busy but unpaced connection gives the request its own pace
sub test_h2_busy_unpaced_connection_own_pace {
  set req.url = "/media/video/seg-3.m4s?CMCD=rtp%3D15000";
  testing.call_subroutine("vcl_recv");
  set req.http.Sammy-Conn-Shared = "1";
  set req.http.Sammy-Conn-Requests = "3";
  set req.http.Sammy-Conn-Pace-KBps = "0";
  set req.http.Sammy-Conn-Last-Sent-Ms = "1";
  set req.http.Sammy-Conn-Unsent-Bytes = "30000";
  testing.call_subroutine("sammy_decide_pace");
  assert.equal(req.http.Sammy-Conn-Busy, "1");
  assert.equal(req.http.Sammy-Pace-KBps, "1875");
  assert.equal(req.http.Sammy-Pace-Reason, "own");
}

# HTTP/1.1 keep-alive (invariant 3): each response its own pace, whatever the connection's state.
describe h1_keep_alive_unchanged {
  // @scope: recv
  sub test_h1_paced_segment {
    set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3D15000";
    testing.call_subroutine("vcl_recv");
    assert.equal(req.http.Sammy-Pace-KBps, "1875");
    assert.equal(req.http.Sammy-Pace-Reason, "own");
  }

  // @scope: recv
  sub test_h1_next_request_without_rtp_is_unpaced_even_if_busy {
    set req.url = "/media/manifest.mpd";
    testing.call_subroutine("vcl_recv");
    # Even were the connection "busy" by TCP_INFO (the previous response's tail still queued).
    set req.http.Sammy-Conn-Shared = "0";
    set req.http.Sammy-Conn-Requests = "2";
    set req.http.Sammy-Conn-Pace-KBps = "1875";
    set req.http.Sammy-Conn-Last-Sent-Ms = "1";
    set req.http.Sammy-Conn-Unsent-Bytes = "20000";
    testing.call_subroutine("sammy_decide_pace");
    assert.equal(req.http.Sammy-Conn-Busy, "1");
    assert.equal(req.http.Sammy-Pace-KBps, "0");
    assert.equal(req.http.Sammy-Pace-Reason, "own");
  }

  // @scope: recv
  sub test_h1_next_request_with_lower_rtp_gets_it_even_if_busy {
    set req.url = "/media/audio/seg-7.m4s?CMCD=rtp%3D1000";
    testing.call_subroutine("vcl_recv");
    set req.http.Sammy-Conn-Shared = "0";
    set req.http.Sammy-Conn-Requests = "3";
    set req.http.Sammy-Conn-Pace-KBps = "1875";
    set req.http.Sammy-Conn-Last-Sent-Ms = "1";
    set req.http.Sammy-Conn-Unsent-Bytes = "20000";
    testing.call_subroutine("sammy_decide_pace");
    assert.equal(req.http.Sammy-Pace-KBps, "128");
    assert.equal(req.http.Sammy-Pace-Reason, "own");
  }
}

// @scope: recv
// @suite: connection readings: client.socket.pace and TCP_INFO go into the Sammy-Conn-* headers
sub test_read_connection_from_socket {
  testing.inject_variable("client.socket.tcp_info", true);
  testing.inject_variable("client.socket.pace", 1875);
  testing.inject_variable("client.socket.tcpi_last_data_sent", 20);
  testing.inject_variable("client.socket.tcpi_notsent_bytes", 3000);
  testing.call_subroutine("sammy_read_connection");
  assert.equal(req.http.Sammy-Conn-Pace-KBps, "1875");
  assert.equal(req.http.Sammy-Conn-Last-Sent-Ms, "20");
  assert.equal(req.http.Sammy-Conn-Unsent-Bytes, "3000");
  # falco: not HTTP/2, and every request is a connection's first.
  assert.equal(req.http.Sammy-Conn-Shared, "0");
  assert.equal(req.http.Sammy-Conn-Requests, "1");
}

// @scope: recv
// @suite: connection readings: without tcp_info, TCP_INFO readings are left out (unknown, not 0)
sub test_read_connection_without_tcp_info {
  testing.inject_variable("client.socket.tcp_info", false);
  testing.inject_variable("client.socket.tcpi_last_data_sent", 20);
  set req.http.Sammy-Conn-Last-Sent-Ms = "7";
  testing.call_subroutine("sammy_read_connection");
  assert.is_notset(req.http.Sammy-Conn-Last-Sent-Ms);
  assert.is_notset(req.http.Sammy-Conn-Unsent-Bytes);
}

// @scope: recv
// @suite: object type: ot from the CMCD query, else from CMCD-Object; unknown types are dropped
sub test_object_type {
  set req.url = "/media/video/init.mp4?CMCD=ot%3Di%2Csid%3D%22ot%3Dm%22";
  set req.http.CMCD-Object = "ot=v";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Object-Type, "i");

  set req.url = "/media/video/seg-1.m4s?CMCD=bl%3D2000";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Object-Type, "v");

  set req.url = "/media/video/seg-1.m4s";
  set req.http.CMCD-Object = "br=3200,ot=av";
  testing.call_subroutine("vcl_recv");
  assert.equal(req.http.Sammy-Object-Type, "av");

  set req.http.CMCD-Object = "ot=x";
  testing.call_subroutine("vcl_recv");
  assert.is_notset(req.http.Sammy-Object-Type);

  set req.http.CMCD-Object = "xot=v";
  testing.call_subroutine("vcl_recv");
  assert.is_notset(req.http.Sammy-Object-Type);
}

// @scope: miss
// @suite: backend request: the connection-pace headers are removed too
sub test_miss_cleans_connection_headers {
  set bereq.http.Sammy-Object-Type = "v";
  set bereq.http.Sammy-Request-Pace-KBps = "1875";
  set bereq.http.Sammy-Conn-Shared = "1";
  set bereq.http.Sammy-Conn-Busy = "1";
  set bereq.http.Sammy-Conn-Pace-KBps = "1875";
  set bereq.http.Sammy-Pace-Reason = "kept";
  testing.call_subroutine("vcl_miss");
  assert.is_notset(bereq.http.Sammy-Object-Type);
  assert.is_notset(bereq.http.Sammy-Request-Pace-KBps);
  assert.is_notset(bereq.http.Sammy-Conn-Shared);
  assert.is_notset(bereq.http.Sammy-Conn-Busy);
  assert.is_notset(bereq.http.Sammy-Conn-Pace-KBps);
  assert.is_notset(bereq.http.Sammy-Pace-Reason);
}

# ---- access log (vcl_log) ---------------------------------------------------------------------

describe access_log_paced {
  // @scope: recv
  sub test_log_recv_paced {
    set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3D15000";
    testing.call_subroutine("vcl_recv");
  }

  // @scope: log
  sub test_log_line_says_rtp_pace_socket_bytes_and_time {
    # What the kernel holds once the response is sent: its cap (1875 KB/s of 1024 bytes) and pacing rate.
    testing.inject_variable("client.socket.tcpi_max_pacing_rate", 1920000);
    testing.inject_variable("client.socket.tcpi_pacing_rate", 1875000);
    testing.call_subroutine("vcl_log");
    assert.match(req.http.Sammy-Log, "^status=[0-9]+ bytes=[0-9]+ time_us=[0-9]+ rtp=15000 pace_kbps=15000 reason=own ");
    assert.contains(req.http.Sammy-Log, " max_pacing_rate=1920000 pacing_rate=1875000 ");
    assert.ends_with(req.http.Sammy-Log, " path=/media/video/seg-7.m4s");
    assert.not_contains(req.http.Sammy-Log, "CMCD");
  }
}

describe access_log_unpaced {
  // @scope: recv
  sub test_log_recv_malformed {
    set req.url = "/media/video/seg-7.m4s?CMCD=rtp%3Dabc";
    testing.call_subroutine("vcl_recv");
  }

  // @scope: log
  sub test_log_line_says_no_rtp_and_no_pace {
    testing.inject_variable("client.socket.tcpi_max_pacing_rate", -1);
    testing.call_subroutine("vcl_log");
    assert.contains(req.http.Sammy-Log, " rtp=- pace_kbps=0 ");
    assert.contains(req.http.Sammy-Log, " max_pacing_rate=-1 ");
  }
}
