# What the load scripts in benches/ share; sourced, not run.
#   bin:        the catalogue binary measured: CATALOGUE_BIN, else this tree's
#               release build (built here)
#   free_port:  a free loopback port
#   ms START:   milliseconds since START (from `date +%s%N`)
#   generated_snapshot N PATH: a generated collection's snapshot
#   wait_idle PID: returns once the process has used under 2% of a core for
#               two seconds (a server's background preparation and compression
#               done), so a measurement does not measure them too
#   wait_ready URL: returns once URL answers 200, asking every 20 ms from one
#               process (a curl started 50 times a second took about a core-second
#               from a loading server's two cores)
#   held_mb PID: MiB the server holds: its RSS plus its memory files (rendered
#               lists, mostly not mapped in, so RSS alone leaves them out)
#   start_nginx ROOT TYPE: nginx (THREADS workers, 2 unless set) serving the
#               files under ROOT as TYPE from a free loopback port, as a static
#               file server is set up (sendfile, keep-alive); its files go
#               beside ROOT; sets nginx_port and nginx_pid once it answers
# Generated collections describe no licence, which build and sync refuse by
# default (as GBIF's IPT would): a measurement publishes them anyway.
export CATALOGUE_ALLOW_NO_LICENCE=1
bin=${CATALOGUE_BIN:-}
if [ -z "$bin" ]; then
  cargo build --release -q
  bin=target/release/catalogue
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
# The snapshot of a generated collection of N specimens (seed 1), at PATH.
generated_snapshot() {
  "$bin" generate --specimens "$1" --seed 1 -o "$2.json" > /dev/null
  "$bin" build "$2.json" -o "$2" > /dev/null
  rm "$2.json"
}
# CPU ticks (user + system) a process has used.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
wait_idle() {
  local before after
  before=$(cpu_ticks "$1")
  while sleep 2; do
    after=$(cpu_ticks "$1")
    [ $(( after - before )) -le 4 ] && return 0
    before=$after
  done
}
wait_ready() {
  python3 - "$1" << 'EOF'
import sys, time, urllib.request
while True:
    try:
        if urllib.request.urlopen(sys.argv[1], timeout=5).status == 200:
            break
    except OSError:
        pass
    time.sleep(0.02)
EOF
}
held_mb() { python3 benches/memory.py "$1" | cut -d' ' -f1; }
start_nginx() {
  local root=$1 type=$2 dir
  dir=$(dirname "$root")
  nginx_port=$(free_port)
  cat > "$dir/nginx.conf" << EOF
worker_processes ${THREADS:-2};
pid $dir/nginx.pid;
error_log $dir/nginx.error.log;
daemon off;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 10000000;
  default_type $type;
  server {
    listen 127.0.0.1:$nginx_port;
    root $root;
  }
}
EOF
  "$(command -v nginx || echo /usr/sbin/nginx)" -c "$dir/nginx.conf" -p "$dir" &
  nginx_pid=$!
  until curl -s -o /dev/null "http://127.0.0.1:$nginx_port/"; do sleep 0.05; done
}
