vcl 4.1;
# Sammy edge on Varnish Cache: paces each client connection at the rate the player asks for
# (CMCD `rtp`) with real kernel pacing, through the `tcp` vmod of varnish-modules.
#
# Needs Varnish >= 7.1 and varnish-modules >= 0.20 (Debian 12: `apt-get install varnish varnish-modules`).
# Run: varnishd -F -a :6081 -f /path/to/sammy.vcl   (see README.md)
#
# Units: CMCD `rtp` is kbps. tcp.set_socket_pace() takes "KB/s" but multiplies by 1024 (vmod_tcp.c:
# `int pacerate = rate * 1024`), so one pace unit is 1024 bytes/s = 8.192 kbps.
# Server-Timing names and units are those of sammy-pacing-protocol (SERVER_TIMING_METRICS); the test
# origin/varnish/test/vcl-protocol.test.ts holds this file to them and to the defaults below.
#
# Same rules as the Fastly VCL (origin/fastly/main.vcl) and the Express origin: the CMCD query
# parameter's rtp first, then CMCD-Status; malformed values ignored (unpaced); clamped to
# [min, max]; a request without rtp resets its connection to unpaced; CMCD never reaches the cache
# key or the backend.
#
# Settings (read once when the VCL loads; a bad value makes the VCL fail to load, with a message):
#   SAMMY_MIN_PACE_KBPS   lowest pace applied, kbps (default 1024 = protocol DEFAULT_MIN_PACE_KBPS)
#   SAMMY_MAX_PACE_KBPS   highest pace applied, kbps (default 1000000 = protocol DEFAULT_MAX_PACE_KBPS)
#   SAMMY_CLIENT_CC       1: honour the Sammy-Congestion-Control request header (default); 0: ignore it
# They are environment variables of varnishd (e.g. `SAMMY_MAX_PACE_KBPS=50000 varnishd ...`).
#
# Internal request headers (set only here; client-sent copies are removed first):
#   Sammy-CMCD         the decoded CMCD query payload, kept for logging (the URL loses it)
#   Sammy-Rtp-Source   "query" or "header": where the rtp was read from
#   Sammy-Rtp          the requested rtp, kbps, as sent (leading zeros removed)
#   Sammy-Rtp-Kbps     the requested rtp as an integer, kbps (fractions rounded up)
#   Sammy-Pace-Units   the pace to apply, in the vmod's 1024 bytes/s units; "0" = unpaced
#   Sammy-CC           the congestion control to apply (allow-listed)

import std;
import blob;
import tcp;
import str;
import var;

# The backend: the Express reference origin (`npm start`, port 8080) by default. Edit this line to
# put the edge in front of another origin (the tests substitute a free port here).
backend default { .host = "127.0.0.1"; .port = "8080"; }

# tcp.set_socket_pace() value that removes the ceiling. The vmod cannot pass the kernel's
# "unlimited" (~0): it multiplies by 1024 into a C int. And 0 is no good either: the kernel then
# sets the connection's pacing rate to 0, which skips the pacing delay but also sizes TSO packets
# and the TCP small-queue budget from that 0 (tcp_tso_autosize, tcp_small_queue_check), starving a
# fast connection on a real network. The largest value that fits the int, 2097151 KiB/s
# (2147482624 bytes/s, about 17.2 Gbps), is no ceiling for any client, and leaves the socket as the
# Express origin does (pacing at the congestion control's own rate).
# See README "Resetting the pace".

sub vcl_init {
  if (std.getenv("SAMMY_MIN_PACE_KBPS")) {
    if (std.getenv("SAMMY_MIN_PACE_KBPS") !~ "^[0-9]{1,9}$" || std.integer(std.getenv("SAMMY_MIN_PACE_KBPS"), 0) < 9) {
      return (fail("sammy: SAMMY_MIN_PACE_KBPS must be an integer of kbps from 9 to 17179860"));
    }
    var.global_set("min_pace_kbps", std.getenv("SAMMY_MIN_PACE_KBPS"));
  } else {
    var.global_set("min_pace_kbps", "1024");
  }
  if (std.getenv("SAMMY_MAX_PACE_KBPS")) {
    if (std.getenv("SAMMY_MAX_PACE_KBPS") !~ "^[0-9]{1,9}$"
        || std.integer(std.getenv("SAMMY_MAX_PACE_KBPS"), 0) < std.integer(var.global_get("min_pace_kbps"), 1024)
        || std.integer(std.getenv("SAMMY_MAX_PACE_KBPS"), 0) > 17179860) {
      return (fail("sammy: SAMMY_MAX_PACE_KBPS must be an integer of kbps from SAMMY_MIN_PACE_KBPS to 17179860"));
    }
    var.global_set("max_pace_kbps", std.getenv("SAMMY_MAX_PACE_KBPS"));
  } else {
    var.global_set("max_pace_kbps", "1000000");
  }
  if (std.getenv("SAMMY_CLIENT_CC")) {
    if (std.getenv("SAMMY_CLIENT_CC") !~ "^[01]$") {
      return (fail("sammy: SAMMY_CLIENT_CC must be 0 or 1"));
    }
    var.global_set("client_cc", std.getenv("SAMMY_CLIENT_CC"));
  } else {
    var.global_set("client_cc", "1");
  }
}

# Finds the request's rtp. Precedence (same as the Express origin and the Fastly VCL): a CMCD query
# parameter that carries an `rtp` key decides, even when that value is malformed; only when the
# query carries no rtp is the CMCD-Status header read. Malformed values are ignored (the request is
# then unpaced). Keys are case-sensitive (CTA-5004), so `RTP=` is not rtp; so is the parameter name.
sub sammy_read_rtp {
  if (req.url ~ "[?&]CMCD=") {
    if (req.url ~ "[?&]CMCD=[^#]*&CMCD=") {
      # Two CMCD parameters are ambiguous: ignore both rather than guess.
      set req.http.Sammy-Rtp-Source = "query";
      return;
    }
    # Query mode: one URL-encoded parameter, e.g. CMCD=bl%3D21300%2Cbr%3D3200%2Crtp%3D15000.
    # (Regular expressions here avoid repeated groups: on a long URL they exhaust PCRE's JIT stack,
    # which fails the request.)
    var.set("raw", regsub(req.url, "^.*?[?&]CMCD=([^&#]*).*$", "\1"));
    if (var.get("raw") !~ "%(?![0-9A-Fa-f]{2})") {
      set req.http.Sammy-CMCD = blob.transcode(decoding=URL, encoded=var.get("raw"));
    } else {
      # A stray % (not an escape) would make the decoder fail the request: read it undecoded.
      set req.http.Sammy-CMCD = var.get("raw");
    }
    var.set("payload", req.http.Sammy-CMCD);
    if (str.count(req.http.Sammy-CMCD) > 4096) {
      var.set("too_long", "1");
    }
    if (regsuball(var.get("payload"), {""[^"]*""}, {""""}) ~ "(^|,)\s*rtp=") {
      set req.http.Sammy-Rtp-Source = "query";
    }
  }
  if (!req.http.Sammy-Rtp-Source && req.http.CMCD-Status) {
    # Header mode: rtp travels in CMCD-Status (CTA-5004), e.g. `CMCD-Status: rtp=15000`.
    var.set("payload", req.http.CMCD-Status);
    var.set("too_long", "");
    if (str.count(req.http.CMCD-Status) > 4096) {
      var.set("too_long", "1");
    }
    if (regsuball(var.get("payload"), {""[^"]*""}, {""""}) ~ "(^|,)\s*rtp=") {
      set req.http.Sammy-Rtp-Source = "header";
    }
  }
  if (!req.http.Sammy-Rtp-Source || var.get("too_long") == "1") {
    return;
  }
  # Quoted string values (e.g. cid="a,rtp=1") may hold commas and look-alike keys: blank them, then
  # take the first rtp key's value.
  var.set("payload", regsuball(var.get("payload"), {""[^"]*""}, {""""}));
  var.set("value", regsub(var.get("payload"), "^(?:.*?,)??\s*rtp=([^,]*).*$", "\1"));
  # An integer (fractions tolerated, as by the Express origin); anything else is malformed.
  if (var.get("value") !~ "^\s*[0-9]+(\.[0-9]*)?\s*$") {
    return;
  }
  var.set("digits", regsub(var.get("value"), "^\s*0*([0-9]+?)(\.[0-9]*)?\s*$", "\1"));
  var.set("fraction", regsub(var.get("value"), "^\s*[0-9]+(\.[0-9]*)?\s*$", "\1"));
  if (var.get("digits") ~ "^[0-9]{10,}$") {
    # Far above any maximum: clamped below (std.integer would overflow on very long ones).
    var.set_int("kbps", 999999999);
  } else {
    var.set_int("kbps", std.integer(var.get("digits"), 0));
  }
  if (var.get("fraction") ~ "[1-9]") {
    # Round a fraction up: the pace is a ceiling and must not undercut the request.
    var.set_int("kbps", var.get_int("kbps") + 1);
  }
  if (var.get_int("kbps") <= 0) {
    return;
  }
  set req.http.Sammy-Rtp = var.get("digits") + var.get("fraction");
  set req.http.Sammy-Rtp-Kbps = var.get_int("kbps");
}

# Turns the rtp into the pace for this request, in the vmod's units (1024 bytes/s). No rtp means
# unpaced ("0"): on a kept-alive connection an earlier request's pace must not stick to this one.
sub sammy_compute_pace {
  if (!req.http.Sammy-Rtp-Kbps) {
    set req.http.Sammy-Pace-Units = "0";
    return;
  }
  var.set_int("kbps", std.integer(req.http.Sammy-Rtp-Kbps, 0));
  var.set_int("min", std.integer(var.global_get("min_pace_kbps"), 1024));
  var.set_int("max", std.integer(var.global_get("max_pace_kbps"), 1000000));
  if (var.get_int("kbps") < var.get_int("min")) {
    var.set_int("kbps", var.get_int("min"));
  }
  if (var.get_int("kbps") > var.get_int("max")) {
    var.set_int("kbps", var.get_int("max"));
  }
  # kbps × 125 = bytes/s; rounded up to whole 1024 bytes/s units (the pace is a ceiling and must
  # not undercut the request) ...
  var.set_int("units", (var.get_int("kbps") * 125 + 1023) / 1024);
  # ... except where that would exceed the maximum.
  if (var.get_int("units") * 1024 > var.get_int("max") * 125) {
    var.set_int("units", var.get_int("units") - 1);
  }
  set req.http.Sammy-Pace-Units = var.get_int("units");
}

# Optional congestion control from the Sammy-Congestion-Control header (experiments pin it).
sub sammy_choose_congestion_control {
  if (req.http.Sammy-Congestion-Control && var.global_get("client_cc") == "1") {
    var.set("cc", std.tolower(req.http.Sammy-Congestion-Control));
    # Allow-list (protocol: CONGESTION_CONTROLS).
    if (var.get("cc") ~ "^(cubic|reno|bbr)$") {
      set req.http.Sammy-CC = var.get("cc");
    }
  }
}

# Applies the pace (and congestion control) to the client socket, for every request: a request
# without rtp must lift the pace a previous request on the connection set.
sub sammy_apply_socket {
  # ---- HTTP/2 (issue #13) ---------------------------------------------------------------------
  # On HTTP/2 (varnishd -p feature=+http2) the socket is shared by every stream of the connection,
  # so an audio request's rtp, or a manifest request's lack of one, would re-pace a concurrent
  # video download. The shared-connection rules of issue #13 go here; until then HTTP/2 gets the
  # HTTP/1.1 rule below (as the Fastly VCL: the last request's rtp sets the connection's pace).
  # if (req.proto ~ "^HTTP/2") { ... }
  # ---------------------------------------------------------------------------------------------
  if (req.http.Sammy-Pace-Units == "0") {
    tcp.set_socket_pace(2097151);
  } else {
    tcp.set_socket_pace(std.integer(req.http.Sammy-Pace-Units, 2097151));
  }
  if (req.http.Sammy-CC) {
    if (tcp.congestion_algorithm(req.http.Sammy-CC) == 0) {
      set req.http.Sammy-CC-Applied = req.http.Sammy-CC;
    }
  }
}

sub sammy_recv {
  # These headers are ours: a client must not choose its own pace by sending them.
  unset req.http.Sammy-CMCD;
  unset req.http.Sammy-Rtp-Source;
  unset req.http.Sammy-Rtp;
  unset req.http.Sammy-Rtp-Kbps;
  unset req.http.Sammy-Pace-Units;
  unset req.http.Sammy-CC;
  unset req.http.Sammy-CC-Applied;

  call sammy_read_rtp;
  call sammy_compute_pace;
  call sammy_choose_congestion_control;
  call sammy_apply_socket;

  # The CMCD parameter changes on every request: left in the URL, it would make every lookup a
  # cache miss. req.url is both the cache key (vcl_hash) and the backend URL (bereq.url).
  if (req.url ~ "[?&]CMCD(=|&|#|$)") {
    set req.url = regsuball(req.url, "(?<=[?&])CMCD(=[^&#]*)?(&|(?=#)|$)", "");
    set req.url = regsub(req.url, "[?&]+(#|$)", "\1");
  }
}

# CMCD describes the client's request, not the cache fill: keep it (and our headers) away from the
# backend, so a pacing origin such as the Express one does not pace the edge's fetch.
sub sammy_clean_bereq {
  unset bereq.http.CMCD-Request;
  unset bereq.http.CMCD-Object;
  unset bereq.http.CMCD-Status;
  unset bereq.http.CMCD-Session;
  unset bereq.http.Sammy-Congestion-Control;
  unset bereq.http.Sammy-CMCD;
  unset bereq.http.Sammy-Rtp-Source;
  unset bereq.http.Sammy-Rtp;
  unset bereq.http.Sammy-Rtp-Kbps;
  unset bereq.http.Sammy-Pace-Units;
  unset bereq.http.Sammy-CC;
  unset bereq.http.Sammy-CC-Applied;
}

# Server-Timing under sammy-pacing-protocol's names, so the demo page graphs the edge like the
# origin. The vmod reports the applied pace, the congestion control it set, and the smoothed RTT
# (whole ms: tcp.get_estimated_rtt() divides TCP_INFO's µs by 1000 in integers); it cannot read
# min RTT, delivery rate, retransmits or the kernel's pacing rate.
sub sammy_server_timing {
  if (req.http.Sammy-Rtp) {
    set resp.http.Server-Timing = "sammy-rtp;dur=" + req.http.Sammy-Rtp + ", ";
  } else {
    set resp.http.Server-Timing = "";
  }
  if (req.http.Sammy-Pace-Units && req.http.Sammy-Pace-Units != "0") {
    # The pace the socket holds, kbps (units × 1024 bytes/s ÷ 125).
    set resp.http.Server-Timing = resp.http.Server-Timing + "sammy-pace;dur="
        + std.real(integer=std.integer(req.http.Sammy-Pace-Units, 0) * 1024) / 125.0 + ";desc=varnish";
    std.log("sammy-pace:" + std.real(integer=std.integer(req.http.Sammy-Pace-Units, 0) * 1024) / 125.0);
  } else {
    set resp.http.Server-Timing = resp.http.Server-Timing + "sammy-pace;dur=0;desc=none";
    std.log("sammy-pace:0");
  }
  # For the access log (sammy-ncsa.format: varnishncsa's %{VCL_Log:sammy-rtp}x): the rtp as requested, - when none.
  if (req.http.Sammy-Rtp) {
    std.log("sammy-rtp:" + req.http.Sammy-Rtp);
  } else {
    std.log("sammy-rtp:-");
  }
  if (req.http.Sammy-CC-Applied) {
    set resp.http.Server-Timing = resp.http.Server-Timing + ", sammy-cc;desc=" + req.http.Sammy-CC-Applied;
  }
  set resp.http.Server-Timing = resp.http.Server-Timing + ", sammy-rtt;dur=" + tcp.get_estimated_rtt();
  # Lets a page on another origin read Server-Timing through the Resource Timing API.
  set resp.http.Timing-Allow-Origin = "*";
}

sub vcl_recv {
  # On a restart the URL has already lost its CMCD parameter and the headers computed the first
  # time survive; an ESI subrequest must not re-pace the response it is part of.
  if (req.restarts == 0 && req.esi_level == 0) {
    call sammy_recv;
  }
  # Then Varnish's built-in vcl_recv (GET/HEAD looked up, other methods passed to the origin).
}

sub vcl_hash {
  # Default key (URL + host); req.url has no CMCD parameter by now (see sammy_recv).
}

sub vcl_backend_fetch {
  call sammy_clean_bereq;
}

sub vcl_backend_response {
  # The backend's Server-Timing describes the edge's fetch, not the client's connection, and would
  # be cached with the object: the edge writes its own in vcl_deliver.
  unset beresp.http.Server-Timing;
}

sub vcl_deliver {
  # Cache status, for checking that CMCD stays out of the cache key.
  if (obj.hits > 0) {
    set resp.http.X-Cache = "HIT";
  } else {
    set resp.http.X-Cache = "MISS";
  }
  set resp.http.X-Cache-Hits = obj.hits;
  call sammy_server_timing;
}

sub vcl_synth {
  call sammy_server_timing;
}
