#!/bin/sh
# Starts Pushpin in a container (deploy/pushpin/Containerfile) from the
# recipe beside this script, pushpin.conf and routes, changed only where a
# container differs from a Pushpin node on the hub's machine:
#   - the hub is another container: routes name HUB_UPSTREAM (hub:3000);
#   - the hub publishes over the container network: the publish endpoint
#     (and the metrics that GRIP_STATS_URL reads) listen on every interface
#     of the container, which only the compose network reaches;
#   - sig_key is the hub's GRIP_KEY, given at start, never baked into the image;
#   - everything Pushpin writes lives in PUSHPIN_DIR, owned by the
#     unprivileged user the container runs as.
# The same variables let the tests run it on a host, on loopback ports.
set -eu

: "${GRIP_KEY:?set GRIP_KEY to the hub's GRIP_KEY (a random secret)}"
recipe=$(dirname "$0")
dir=${PUSHPIN_DIR:-/var/lib/pushpin-hub}
upstream=${HUB_UPSTREAM:-hub:3000}
http=${PUSHPIN_HTTP_PORT:-7999}
publish_addr=${PUSHPIN_PUBLISH_ADDR:-0.0.0.0}
publish_port=${PUSHPIN_PUBLISH_PORT:-5561}
metrics=${PUSHPIN_METRICS_PORT:-9100}
pull_port=${PUSHPIN_PULL_PORT:-5560}
sub_port=${PUSHPIN_SUB_PORT:-5562}
command_port=${PUSHPIN_COMMAND_PORT:-5563}

# The runtime configuration holds the key: readable by this user alone.
umask 077
mkdir -p "$dir/run" "$dir/log"

# Each setting is printed whole rather than substituted, so that no character
# of the key is taken as part of a pattern.
GRIP_KEY="$GRIP_KEY" awk \
  -v dir="$dir" -v http="$http" -v publish_addr="$publish_addr" -v publish_port="$publish_port" \
  -v metrics="$metrics" -v pull_port="$pull_port" -v sub_port="$sub_port" -v command_port="$command_port" '
  /^rundir=/ { print "rundir=" dir "/run"; next }
  /^logdir=/ { print "logdir=" dir "/log"; next }
  /^routesfile=/ { print "routesfile=" dir "/routes"; next }
  /^http_port=/ { print "http_port=" http; next }
  /^sig_key=/ { print "sig_key=" ENVIRON["GRIP_KEY"]; next }
  /^push_in_spec=/ { print "push_in_spec=tcp://127.0.0.1:" pull_port; next }
  /^push_in_sub_specs=/ { print "push_in_sub_specs=tcp://127.0.0.1:" sub_port; next }
  /^command_spec=/ { print "command_spec=tcp://127.0.0.1:" command_port; next }
  /^push_in_http_addr=/ { print "push_in_http_addr=" publish_addr; next }
  /^push_in_http_port=/ { print "push_in_http_port=" publish_port; next }
  /^prometheus_port=/ { print "prometheus_port=" metrics; next }
  { print }
' "$recipe/pushpin.conf" > "$dir/pushpin.conf"

awk -v upstream="$upstream" '/^\*[ \t]/ { print "* " upstream; next } { print }' "$recipe/routes" > "$dir/routes"

# Pushpin's services log to standard output, where the container runtime collects them.
exec pushpin --config "$dir/pushpin.conf" --merge-output
