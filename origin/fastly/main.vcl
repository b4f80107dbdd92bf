# Sammy edge: paces each client connection at the rate the player asks for (CMCD `rtp`).
#
# Units: CMCD `rtp` is kbps; `client.socket.pace` is KB/s (8 kbps), floor 128.
# Server-Timing names and units are those of sammy-pacing-protocol (SERVER_TIMING_METRICS); the
# Vitest test origin/fastly/test/fastly-vcl.test.ts holds this file to them and to the constants below.
#
# The backend is not declared here: deploy.ts creates it in the service configuration
# (name `sammy_origin`), Fastly renders it into the generated VCL and `#FASTLY recv` selects it.
# Declaring it here as well would collide with that declaration.
#
# Internal request headers (set only here; client-sent copies are removed first):
#   Sammy-CMCD         the decoded CMCD query payload, kept for logging (the URL loses it)
#   Sammy-Rtp-Source   "query" or "header": where the rtp was read from
#   Sammy-Rtp          the requested rtp, kbps, as sent (leading zeros removed)
#   Sammy-Rtp-Kbps     the requested rtp as an integer, kbps (fractions rounded up)
#   Sammy-Object-Type  the CMCD object type `ot` (allow-listed): a media segment without rtp unpaces (h2)
#   Sammy-Request-Pace-KBps  this request's own pace, KB/s: its rtp clamped; "0" = no rtp
#   Sammy-Conn-Shared        "1" on an HTTP/2 or HTTP/3 client connection (concurrent requests), else "0"
#   Sammy-Conn-Requests      requests received on the connection so far, this one included
#   Sammy-Conn-Pace-KBps     the pace the connection has when the request is handled (client.socket.pace)
#   Sammy-Conn-Last-Sent-Ms  ms since the connection last sent data (TCP_INFO; absent when unknown)
#   Sammy-Conn-Unsent-Bytes  bytes queued on the connection and not yet sent (TCP_INFO; absent when unknown)
#   Sammy-Conn-Busy          "1" when another response is taken to be still in flight on the connection
#   Sammy-Pace-KBps    the pace to apply to the connection, KB/s; "0" = unpaced
#   Sammy-Pace-Reason  why: own | kept | raised (sammy-pacing-protocol's ConnectionPaceReason)
#   Sammy-CC           the congestion control to apply (allow-listed)
# falco's simulator reads client.socket.pace as a constant 0, so tests assert on Sammy-Pace-KBps.

# Pacing constants. `max_pace_kbps` is the deploy-time knob (edit it here); the others mirror
# sammy-pacing-protocol and must not change on their own.
table sammy_pacing INTEGER {
  # Fastly's floor for client.socket.pace, KB/s (protocol: FASTLY_MIN_PACE).
  "fastly_min_pace": 128,
  # kbps in one client.socket.pace unit (protocol: KBPS_PER_FASTLY_PACE_UNIT).
  "kbps_per_pace_unit": 8,
  # Highest pace applied, kbps; a higher rtp is lowered to it (protocol default: DEFAULT_MAX_PACE_KBPS).
  "max_pace_kbps": 1000000,
  # Longest CMCD payload read, bytes (as the Express origin); longer ones are ignored.
  "max_cmcd_payload_bytes": 4096,
  # 1: honour the Sammy-Congestion-Control request header (allow-listed below); 0: ignore it.
  "congestion_control_enabled": 1,
  # A shared (HTTP/2, HTTP/3) connection that sent nothing for this long, with nothing left unsent,
  # is idle, ms (protocol: SHARED_CONNECTION_IDLE_MS). See sammy_decide_pace.
  "shared_connection_idle_ms": 500,
}

# CMCD object types (protocol: CMCD_OBJECT_TYPES), read into Sammy-Object-Type.
table sammy_object_types {
  "m": "m",
  "a": "a",
  "v": "v",
  "av": "av",
  "i": "i",
  "c": "c",
  "tt": "tt",
  "k": "k",
  "o": "o",
}

# The media segments among them (protocol: MEDIA_OBJECT_TYPES): one of these without rtp is a Sammy
# player in its initial phase (starting, after a seek or a stall), and unpaces a shared connection.
table sammy_media_object_types {
  "a": "a",
  "v": "v",
  "av": "av",
}

# Congestion controls a client may pick (protocol: CONGESTION_CONTROLS); Fastly offers these three.
table sammy_congestion_controls {
  "cubic": "cubic",
  "reno": "reno",
  "bbr": "bbr",
}

# Finds the request's rtp. Precedence (same as the Express origin, origin/src/rtp.ts):
# a CMCD query parameter that carries an `rtp` key decides, even when that value is malformed;
# only when the query carries no rtp is the CMCD-Status header read. Malformed values are
# ignored (the request is then unpaced). Keys are case-sensitive (CTA-5004), so `RTP=` is not rtp.
# @scope: recv
sub sammy_read_rtp {
  declare local var.payload STRING;
  declare local var.raw_length INTEGER;
  declare local var.value STRING;
  declare local var.digits STRING;
  declare local var.fraction STRING;
  declare local var.kbps INTEGER;

  if (req.url ~ "[?&]CMCD=([^&]*)") {
    # Query mode: one URL-encoded parameter, e.g. CMCD=bl%3D21300%2Cbr%3D3200%2Crtp%3D15000.
    set req.http.Sammy-CMCD = urldecode(re.group.1);
    if (req.url ~ "[?&]CMCD=.*&CMCD=") {
      # Two CMCD parameters are ambiguous: ignore both rather than guess.
      set req.http.Sammy-Rtp-Source = "query";
      return;
    }
    set var.raw_length = std.strlen(req.http.Sammy-CMCD);
    # Quoted string values (e.g. cid="a,rtp=1") may hold commas and look-alike keys: blank them.
    set var.payload = regsuball(req.http.Sammy-CMCD, {""[^"]*""}, {""""});
    if (var.payload ~ "(^|,)\s*rtp=") {
      set req.http.Sammy-Rtp-Source = "query";
    }
  }
  if (!req.http.Sammy-Rtp-Source && req.http.CMCD-Status) {
    # Header mode: rtp travels in CMCD-Status (CTA-5004), e.g. `CMCD-Status: rtp=15000`.
    set var.raw_length = std.strlen(req.http.CMCD-Status);
    set var.payload = regsuball(req.http.CMCD-Status, {""[^"]*""}, {""""});
    if (var.payload ~ "(^|,)\s*rtp=") {
      set req.http.Sammy-Rtp-Source = "header";
    }
  }
  if (!req.http.Sammy-Rtp-Source) {
    return;
  }
  if (var.raw_length > table.lookup_integer(sammy_pacing, "max_cmcd_payload_bytes", 4096)) {
    return;
  }
  if (var.payload !~ "(?:^|,)\s*rtp=([^,]*)") {
    return;
  }
  set var.value = re.group.1;
  # An integer (fractions tolerated, as by the Express origin); anything else is malformed.
  if (var.value !~ "^\s*([0-9]+)(\.[0-9]*)?\s*$") {
    return;
  }
  set var.digits = re.group.1;
  set var.fraction = re.group.2;
  set var.digits = regsub(var.digits, "^0+([0-9])", "\1");
  if (std.strlen(var.digits) > 9) {
    # Too long for an exact integer here, and far above any sane maximum: clamped below.
    set var.kbps = 999999999;
  } else {
    set var.kbps = std.atoi(var.digits);
  }
  if (var.fraction ~ "[1-9]") {
    # Round a fraction up: the pace is a ceiling and must not undercut the request.
    set var.kbps += 1;
  }
  if (var.kbps <= 0) {
    return;
  }
  set req.http.Sammy-Rtp = var.digits var.fraction;
  set req.http.Sammy-Rtp-Kbps = var.kbps;
}

# Reads the CMCD object type (`ot`: m, a, v, av, i, ...). Same precedence as the rtp: the CMCD query
# parameter's `ot`, else the CMCD-Object header's (where CTA-5004 puts it in header mode). On a busy
# shared connection a media segment without rtp unpaces it; a manifest or init request keeps the pace.
# @scope: recv
sub sammy_read_object_type {
  declare local var.payload STRING;
  declare local var.ot STRING;

  set var.ot = "";
  if (req.http.Sammy-CMCD && req.url !~ "[?&]CMCD=.*&CMCD="
      && std.strlen(req.http.Sammy-CMCD) <= table.lookup_integer(sammy_pacing, "max_cmcd_payload_bytes", 4096)) {
    set var.payload = regsuball(req.http.Sammy-CMCD, {""[^"]*""}, {""""});
    if (var.payload ~ "(?:^|,)\s*ot=([a-z]+)\s*(?:,|$)") {
      set var.ot = re.group.1;
    }
  }
  if (var.ot == "" && req.http.CMCD-Object
      && std.strlen(req.http.CMCD-Object) <= table.lookup_integer(sammy_pacing, "max_cmcd_payload_bytes", 4096)) {
    set var.payload = regsuball(req.http.CMCD-Object, {""[^"]*""}, {""""});
    if (var.payload ~ "(?:^|,)\s*ot=([a-z]+)\s*(?:,|$)") {
      set var.ot = re.group.1;
    }
  }
  set var.ot = table.lookup(sammy_object_types, var.ot, "");
  if (var.ot != "") {
    set req.http.Sammy-Object-Type = var.ot;
  }
}

# Turns the rtp into this request's own pace, in KB/s ("0" without an rtp). Whether the connection
# gets it is sammy_decide_pace's call.
# @scope: recv
sub sammy_compute_pace {
  declare local var.kbps INTEGER;
  declare local var.min_kbps INTEGER;
  declare local var.max_kbps INTEGER;
  declare local var.unit INTEGER;
  declare local var.pace INTEGER;

  if (!req.http.Sammy-Rtp-Kbps) {
    set req.http.Sammy-Request-Pace-KBps = "0";
    return;
  }
  set var.unit = table.lookup_integer(sammy_pacing, "kbps_per_pace_unit", 8);
  set var.min_kbps = table.lookup_integer(sammy_pacing, "fastly_min_pace", 128);
  set var.min_kbps *= var.unit;
  set var.max_kbps = table.lookup_integer(sammy_pacing, "max_pace_kbps", 1000000);

  set var.kbps = std.atoi(req.http.Sammy-Rtp-Kbps);
  if (var.kbps < var.min_kbps) {
    set var.kbps = var.min_kbps;
  }
  if (var.kbps > var.max_kbps) {
    set var.kbps = var.max_kbps;
  }
  # kbps to KB/s, rounded up for the same reason as above.
  set var.pace = var.kbps;
  set var.pace += var.unit;
  set var.pace -= 1;
  set var.pace /= var.unit;
  set req.http.Sammy-Request-Pace-KBps = var.pace;
}

# Reads what Fastly knows of the client connection into the Sammy-Conn-* headers, the inputs of
# sammy_decide_pace. Only plain reads here: falco's simulator reads fastly_info.is_h2/is_h3 as
# false and client.requests as 1 (neither can be injected), so the tests set these headers
# themselves and call sammy_decide_pace, which holds every rule.
# - fastly_info.is_h2 / is_h3: the connection carries concurrent requests, and one socket pace.
# - client.requests: requests received on this connection (on HTTP/2, its streams) so far.
# - client.socket.pace: the pace now on the connection, KB/s (as the last response set it).
# - client.socket.tcpi_last_data_sent (ms since data was last sent) and tcpi_notsent_bytes (bytes
#   queued in the kernel, not yet sent): TCP_INFO, read only when client.socket.tcp_info says it is
#   available, and not on HTTP/3 (QUIC runs over UDP: there is no TCP_INFO to read). Absent = unknown.
# @scope: recv, deliver
sub sammy_read_connection {
  if (fastly_info.is_h2 || fastly_info.is_h3) {
    set req.http.Sammy-Conn-Shared = "1";
  } else {
    set req.http.Sammy-Conn-Shared = "0";
  }
  set req.http.Sammy-Conn-Requests = client.requests;
  set req.http.Sammy-Conn-Pace-KBps = client.socket.pace;
  unset req.http.Sammy-Conn-Last-Sent-Ms;
  unset req.http.Sammy-Conn-Unsent-Bytes;
  if (client.socket.tcp_info && !fastly_info.is_h3) {
    set req.http.Sammy-Conn-Last-Sent-Ms = client.socket.tcpi_last_data_sent;
    set req.http.Sammy-Conn-Unsent-Bytes = client.socket.tcpi_notsent_bytes;
  }
}

# The connection's pace once this request is handled: sammy-pacing-protocol's decideConnectionPace
# (shared-connection.ts), in KB/s.
# - Not shared (HTTP/1.x), or idle, or unpaced: the request's own pace ("0" without rtp). Reason `own`.
#   On HTTP/1.1 a pace never sticks to a kept-alive connection whose next request asks for none.
# - Shared, busy and paced: a media segment without rtp (`ot` a, v, av) unpaces it (`own`): a Sammy
#   player in its initial phase after a seek or a stall, whose new position must not wait behind the
#   old pace. Any other request without rtp (a manifest refresh, an init segment), or one with a smaller
#   rtp (an audio segment), keeps the connection's pace (`kept`): it must not unpace or throttle a video
#   segment still being sent. A larger one raises it (`raised`). So while busy the pace only rises,
#   until the player asks for none.
# Busy: Fastly cannot see the other streams, only the socket. The connection is busy when it sent
# data less than shared_connection_idle_ms ago or still has unsent bytes, and this is not its first
# request (a new connection's handshake is recent traffic, not a response). Without TCP_INFO it is
# taken as idle, which falls back to the per-request rule.
# A connection pace above max_pace_kbps was not set by this VCL (it may be how Fastly reads back
# "unlimited", which is undocumented): it counts as unpaced.
# Called in vcl_recv (for logging and tests) and again in vcl_deliver just before the pace is
# applied: a concurrent response may have changed the connection in between.
# @scope: recv, deliver
sub sammy_decide_pace {
  declare local var.own INTEGER;
  declare local var.conn INTEGER;
  declare local var.max INTEGER;
  declare local var.unit INTEGER;
  declare local var.idle_ms INTEGER;

  set var.own = 0;
  if (req.http.Sammy-Request-Pace-KBps) {
    set var.own = std.atoi(req.http.Sammy-Request-Pace-KBps);
  }
  set var.unit = table.lookup_integer(sammy_pacing, "kbps_per_pace_unit", 8);
  set var.max = table.lookup_integer(sammy_pacing, "max_pace_kbps", 1000000);
  set var.max += var.unit;
  set var.max -= 1;
  set var.max /= var.unit;
  set var.conn = 0;
  if (req.http.Sammy-Conn-Pace-KBps) {
    set var.conn = std.atoi(req.http.Sammy-Conn-Pace-KBps);
  }
  if (var.conn < 0 || var.conn > var.max) {
    set var.conn = 0;
  }

  set var.idle_ms = table.lookup_integer(sammy_pacing, "shared_connection_idle_ms", 500);
  set req.http.Sammy-Conn-Busy = "0";
  if (req.http.Sammy-Conn-Requests && std.atoi(req.http.Sammy-Conn-Requests) > 1
      && req.http.Sammy-Conn-Last-Sent-Ms) {
    if (std.atoi(req.http.Sammy-Conn-Last-Sent-Ms) < var.idle_ms
        || (req.http.Sammy-Conn-Unsent-Bytes && std.atoi(req.http.Sammy-Conn-Unsent-Bytes) > 0)) {
      set req.http.Sammy-Conn-Busy = "1";
    }
  }

  if (req.http.Sammy-Conn-Shared != "1" || req.http.Sammy-Conn-Busy != "1" || var.conn == 0) {
    set req.http.Sammy-Pace-KBps = var.own;
    set req.http.Sammy-Pace-Reason = "own";
  } elsif (var.own == 0 && req.http.Sammy-Object-Type
      && table.lookup(sammy_media_object_types, req.http.Sammy-Object-Type, "") != "") {
    set req.http.Sammy-Pace-KBps = "0";
    set req.http.Sammy-Pace-Reason = "own";
  } elsif (var.own <= var.conn) {
    set req.http.Sammy-Pace-KBps = var.conn;
    set req.http.Sammy-Pace-Reason = "kept";
  } else {
    set req.http.Sammy-Pace-KBps = var.own;
    set req.http.Sammy-Pace-Reason = "raised";
  }
}

# Optional congestion control from the Sammy-Congestion-Control header (experiments pin it).
# @scope: recv
sub sammy_choose_congestion_control {
  declare local var.cc STRING;

  if (!req.http.Sammy-Congestion-Control
      || table.lookup_integer(sammy_pacing, "congestion_control_enabled", 0) != 1) {
    return;
  }
  set var.cc = table.lookup(sammy_congestion_controls, std.tolower(req.http.Sammy-Congestion-Control), "");
  if (var.cc != "") {
    set req.http.Sammy-CC = var.cc;
  }
}

# @scope: recv
sub sammy_recv {
  # These headers are ours: a client must not choose its own pace by sending them.
  unset req.http.Sammy-CMCD;
  unset req.http.Sammy-Rtp-Source;
  unset req.http.Sammy-Rtp;
  unset req.http.Sammy-Rtp-Kbps;
  unset req.http.Sammy-Object-Type;
  unset req.http.Sammy-Request-Pace-KBps;
  unset req.http.Sammy-Conn-Shared;
  unset req.http.Sammy-Conn-Requests;
  unset req.http.Sammy-Conn-Pace-KBps;
  unset req.http.Sammy-Conn-Last-Sent-Ms;
  unset req.http.Sammy-Conn-Unsent-Bytes;
  unset req.http.Sammy-Conn-Busy;
  unset req.http.Sammy-Pace-KBps;
  unset req.http.Sammy-Pace-Reason;
  unset req.http.Sammy-CC;

  call sammy_read_rtp;
  call sammy_read_object_type;
  call sammy_compute_pace;
  call sammy_read_connection;
  call sammy_decide_pace;
  call sammy_choose_congestion_control;

  # The CMCD parameter changes on every request: left in the URL, it would make every lookup a
  # cache miss. req.url is both the cache key (vcl_hash) and the backend URL (bereq.url).
  if (req.url ~ "[?&]CMCD(=|&|$)") {
    set req.url = querystring.filter(req.url, "CMCD");
  }
}

# CMCD describes the client's request, not the cache fill: keep it (and our headers) away from
# the backend, so a pacing origin such as the Express one does not pace the edge's fetch.
# @scope: miss, pass
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
  unset bereq.http.Sammy-Object-Type;
  unset bereq.http.Sammy-Request-Pace-KBps;
  unset bereq.http.Sammy-Conn-Shared;
  unset bereq.http.Sammy-Conn-Requests;
  unset bereq.http.Sammy-Conn-Pace-KBps;
  unset bereq.http.Sammy-Conn-Last-Sent-Ms;
  unset bereq.http.Sammy-Conn-Unsent-Bytes;
  unset bereq.http.Sammy-Conn-Busy;
  unset bereq.http.Sammy-Pace-KBps;
  unset bereq.http.Sammy-Pace-Reason;
  unset bereq.http.Sammy-CC;
}

# Applies the pace (and congestion control) to the client socket. Runs for every response,
# synthetic ones included, so every request sets the connection's pace. The decision is taken
# again from the connection as it is now: on HTTP/2 another response may have been delivered
# since vcl_recv (a manifest that missed the cache must not unpace a segment delivered meanwhile).
# @scope: deliver
sub sammy_apply_socket {
  call sammy_read_connection;
  call sammy_decide_pace;
  set client.socket.pace = std.atoi(req.http.Sammy-Pace-KBps);
  if (req.http.Sammy-CC) {
    set client.socket.congestion_algorithm = req.http.Sammy-CC;
  }
}

# @scope: deliver
sub sammy_cors {
  set resp.http.Access-Control-Allow-Origin = "*";
  set resp.http.Access-Control-Expose-Headers = "Server-Timing, Sammy-Fastly-Socket";
  # Lets a page on another origin read Server-Timing through the Resource Timing API.
  set resp.http.Timing-Allow-Origin = "*";
}

# Server-Timing under sammy-pacing-protocol's names, so the demo page graphs the edge like the origin.
# Units: rtp and pace kbps; rtt ms; delivery and pacing rates kbps (TCP_INFO gives bytes/s and us).
# @scope: deliver
sub sammy_server_timing {
  declare local var.st STRING;
  declare local var.kbps INTEGER;
  declare local var.f FLOAT;

  set var.st = "";
  if (req.http.Sammy-Rtp) {
    set var.st = "sammy-rtp;dur=" req.http.Sammy-Rtp ", ";
  }
  set var.kbps = std.atoi(req.http.Sammy-Pace-KBps);
  set var.kbps *= table.lookup_integer(sammy_pacing, "kbps_per_pace_unit", 8);
  if (var.kbps > 0) {
    set var.st = var.st "sammy-pace;dur=" var.kbps ";desc=fastly";
  } else {
    set var.st = var.st "sammy-pace;dur=0;desc=none";
  }
  # Read back rather than echo Sammy-CC: the kernel may not have honoured the choice.
  if (client.socket.congestion_algorithm ~ "^[A-Za-z0-9_-]+$") {
    set var.st = var.st ", sammy-cc;desc=" client.socket.congestion_algorithm;
  }
  set var.f = client.socket.tcpi_rtt;
  set var.f /= 1000;
  set var.st = var.st ", sammy-rtt;dur=" var.f;
  set var.f = client.socket.tcpi_min_rtt;
  set var.f /= 1000;
  set var.st = var.st ", sammy-minrtt;dur=" var.f;
  set var.f = client.socket.tcpi_delivery_rate;
  set var.f *= 8;
  set var.f /= 1000;
  set var.st = var.st ", sammy-delivery;dur=" var.f;
  set var.st = var.st ", sammy-retrans;dur=" client.socket.tcpi_total_retrans;
  set var.f = client.socket.tcpi_pacing_rate;
  set var.f *= 8;
  set var.f /= 1000;
  set var.st = var.st ", sammy-pacing;dur=" var.f;
  # Shared (HTTP/2, HTTP/3) connections only: how the connection's pace was decided (desc: own,
  # kept, raised) and the other responses in flight then (dur). Fastly cannot count streams: dur is
  # 1 when the connection was busy (one or more), 0 when idle. See sammy_decide_pace.
  if (req.http.Sammy-Conn-Shared == "1") {
    set var.st = var.st ", sammy-conn;dur=" req.http.Sammy-Conn-Busy ";desc=" req.http.Sammy-Pace-Reason;
  }
  set resp.http.Server-Timing = var.st;

  # What Fastly actually holds for the socket, for checking a deployment: the pace read back
  # (KB/s) and the kernel's cap (bytes/s, -1 = none); then the decision and what it saw of the
  # connection (shared: HTTP/2 or 3; busy; requests so far). See README "Check that pacing is active".
  set resp.http.Sammy-Fastly-Socket = "pace=" client.socket.pace ", max_pacing_rate=" client.socket.tcpi_max_pacing_rate
    ", reason=" req.http.Sammy-Pace-Reason ", shared=" req.http.Sammy-Conn-Shared ", busy=" req.http.Sammy-Conn-Busy
    ", requests=" req.http.Sammy-Conn-Requests;
}

sub vcl_recv {
#FASTLY recv
  # On a restart the URL has already lost its CMCD parameter; the headers computed the first
  # time survive the restart.
  if (req.restarts == 0) {
    call sammy_recv;
  }

  # CORS preflight (header mode sends CMCD-* headers, which need one): answered at the edge.
  if (req.method == "OPTIONS" && req.http.Origin && req.http.Access-Control-Request-Method) {
    error 604 "Preflight";
  }

  if (req.method != "HEAD" && req.method != "GET" && req.method != "FASTLYPURGE") {
    return(pass);
  }
  return(lookup);
}

sub vcl_hash {
  # Default key; req.url has no CMCD parameter by now (see sammy_recv).
  set req.hash += req.url;
  set req.hash += req.http.host;
#FASTLY hash
  return(hash);
}

sub vcl_miss {
#FASTLY miss
  call sammy_clean_bereq;
  return(fetch);
}

sub vcl_pass {
#FASTLY pass
  call sammy_clean_bereq;
  return(pass);
}

sub vcl_fetch {
#FASTLY fetch
  # The backend's Server-Timing describes the edge's fetch, not the client's connection, and
  # would be cached with the object: the edge writes its own in vcl_deliver.
  unset beresp.http.Server-Timing;
  return(deliver);
}

sub vcl_hit {
#FASTLY hit
  return(deliver);
}

sub vcl_error {
#FASTLY error
  if (obj.status == 604) {
    set obj.status = 204;
    set obj.response = "No Content";
    set obj.http.Access-Control-Allow-Methods = "GET, HEAD, OPTIONS";
    set obj.http.Access-Control-Allow-Headers = "CMCD-Request, CMCD-Object, CMCD-Status, CMCD-Session, Sammy-Congestion-Control, Range";
    set obj.http.Access-Control-Max-Age = "86400";
    synthetic "";
    return(deliver);
  }
}

sub vcl_deliver {
#FASTLY deliver
  call sammy_apply_socket;
  call sammy_cors;
  call sammy_server_timing;
  return(deliver);
}

# One access-log line per response: what pacing did, in the words of the other edges' logs (README
# "Access log"). rtp as requested (kbps; - when none or unusable); pace as decided (kbps; 0 = unpaced);
# the kernel's cap and pacing rate on the client socket (TCP_INFO, bytes/s, read once the response is
# sent: -1 cap = none); body bytes; time from the request to the last byte handed to the socket, µs.
# Written to req.http.Sammy-Log (falco's unit tests read it there).
# @scope: log
sub sammy_log_line {
  declare local var.rtp STRING;
  declare local var.kbps INTEGER;

  set var.rtp = "-";
  if (req.http.Sammy-Rtp) {
    set var.rtp = req.http.Sammy-Rtp;
  }
  set var.kbps = std.atoi(req.http.Sammy-Pace-KBps);
  set var.kbps *= table.lookup_integer(sammy_pacing, "kbps_per_pace_unit", 8);
  set req.http.Sammy-Log = "status=" resp.status " bytes=" resp.body_bytes_written " time_us=" time.elapsed.usec
    " rtp=" var.rtp " pace_kbps=" var.kbps " reason=" req.http.Sammy-Pace-Reason
    " max_pacing_rate=" client.socket.tcpi_max_pacing_rate " pacing_rate=" client.socket.tcpi_pacing_rate
    " cache=" fastly_info.state " path=" req.url.path;
}

sub vcl_log {
#FASTLY log
  # To a logging endpoint named sammy_pacing (create one in the service: syslog, S3, BigQuery, ...).
  call sammy_log_line;
  log {"syslog "} req.service_id {" sammy_pacing :: "} req.http.Sammy-Log;
}
