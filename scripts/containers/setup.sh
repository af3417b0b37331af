#!/usr/bin/env bash
# The container engine for session-starter's container tests: podman and
# runc from Debian, this directory's containers.conf, and an image made
# without any registry. Idempotent; run as root.
#
#   setup.sh                            install what is missing, build, import
#   setup.sh docker-service start DIR   podman's Docker API on DIR/docker.sock
#   setup.sh docker-service stop DIR    end the service that start began
#
# The first form installs podman, runc and catatonit (a pod's pause
# process) where missing (apt-get), builds
# the static bin/session-starter (make build), and imports an image of
# busybox-static's root filesystem (the Debian package, unpacked with
# dpkg-deb -x) with the binary at /usr/local/bin/session-starter. Its tag
# names the binary's, busybox's and this script's contents, so a rebuilt
# binary gets an image of its own and an unchanged one is not imported
# again. It prints,
# one per line on stdout (everything else goes to stderr):
#
#   CONTAINERS_CONF=<this directory>/containers.conf
#   IMAGE=localhost/session-starter-test:<tag>
#   DOCKER=<the docker client: PATH's, else Debian's, unpacked>
#
# Use them as `set -a; eval "$(scripts/containers/setup.sh)"; set +a`.
# podman must be run with CONTAINERS_CONF set: runc, not crun, and no
# default ulimits (see containers.conf).
#
# docker-service start runs `podman system service` on DIR/docker.sock in
# the background, waits for the socket, and prints DOCKER_HOST=unix://…;
# the real docker client talks to podman through it. stop ends that
# process (by the PID start wrote in DIR, checked against its command
# line) and waits for it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export CONTAINERS_CONF="$here/containers.conf"
repository=localhost/session-starter-test

say() { echo "setup.sh: $*" >&2; }
die() {
  say "$*"
  exit 1
}

service() {
  local what="$1" dir="$2"
  [ -d "$dir" ] || die "docker-service: no directory $dir"
  dir="$(cd "$dir" && pwd)"
  local sock="$dir/docker.sock" pidfile="$dir/docker-service.pid"
  case "$what" in
  start)
    if [ -S "$sock" ] && [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
      echo "DOCKER_HOST=unix://$sock"
      return
    fi
    rm -f "$sock"
    podman system service --time=0 "unix://$sock" </dev/null >"$dir/docker-service.log" 2>&1 &
    echo $! >"$pidfile"
    for _ in $(seq 300); do
      [ -S "$sock" ] && break
      kill -0 "$(cat "$pidfile")" 2>/dev/null || die "podman system service exited: $(cat "$dir/docker-service.log")"
      sleep 0.1
    done
    [ -S "$sock" ] || die "podman system service made no socket in 30 s"
    echo "DOCKER_HOST=unix://$sock"
    ;;
  stop)
    [ -f "$pidfile" ] || return 0
    local pid
    pid="$(cat "$pidfile")"
    # Only the service start began: its command line names the socket.
    if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "system service --time=0 unix://$sock"; then
      kill "$pid"
      for _ in $(seq 300); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
    fi
    rm -f "$pidfile" "$sock"
    ;;
  *) die "docker-service start|stop DIR" ;;
  esac
}

if [ "${1:-}" = docker-service ]; then
  [ $# -eq 3 ] || die "usage: setup.sh docker-service start|stop DIR"
  service "$2" "$3"
  exit
fi
[ $# -eq 0 ] || die "usage: setup.sh [docker-service start|stop DIR]"

missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
# A pod's infra container runs podman's pause image, which podman builds
# from catatonit on first use.
command -v catatonit >/dev/null 2>&1 || missing+=(catatonit)
if ((${#missing[@]})); then
  [ "$(id -u)" = 0 ] || die "${missing[*]} missing, and only root may install them"
  say "installing ${missing[*]}"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
fi

make -C "$repo" build GO="${GO:-go}" >&2
bin="$repo/bin/session-starter"
if command -v file >/dev/null 2>&1; then
  file "$bin" | grep -q 'statically linked' || die "$bin is not static: $(file "$bin")"
fi

version="$(apt-cache policy busybox-static 2>/dev/null | awk '/Candidate:/ {print $2}')"
if [ -z "$version" ] || [ "$version" = "(none)" ]; then
  apt-get update -qq >&2
  version="$(apt-cache policy busybox-static | awk '/Candidate:/ {print $2}')"
fi
if [ -z "$version" ] || [ "$version" = "(none)" ]; then die "apt knows no busybox-static"; fi
tag="$( (sha256sum <"$bin" && sha256sum <"$here/setup.sh" && echo "busybox-static $version") | sha256sum | cut -c1-12)"
image="$repository:$tag"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if ! podman image exists "$image"; then
  (cd "$tmp" && apt-get download -qq "busybox-static=$version" 2>/dev/null) ||
    die "apt-get download busybox-static=$version failed"
  root="$tmp/root"
  dpkg-deb -x "$tmp"/busybox-static_*.deb "$root"
  rm -rf "${root:?}/usr/share"
  for applet in $("$root/bin/busybox" --list); do
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
  done
  mkdir -p "$root/usr/local/bin" "$root/etc" "$root/tmp" "$root/proc" "$root/sys" "$root/dev" "$root/root"
  chmod 1777 "$root/tmp"
  echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
  echo 'root:x:0:' >"$root/etc/group"
  cp "$bin" "$root/usr/local/bin/session-starter"
  tar -C "$root" -cf "$tmp/root.tar" .
  say "importing $image"
  podman import --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' --change 'CMD ["/bin/sh"]' --change 'LABEL session-starter-test.setup=1' \
    "$tmp/root.tar" "$image" >&2
fi

# old_images FILTER AGE prints the IDs of the images that match the one
# filter FILTER, made over AGE seconds ago. podman 4.3 ORs the filters
# of podman images: until= cannot narrow a label or reference there.
old_images() {
  local now id day time zone made
  now="$(date +%s)"
  podman images --filter "$1" --format '{{.ID}} {{.CreatedAt}}' | while read -r id day time zone _; do
    made="$(date -d "$day $time $zone" +%s)" || continue
    if ((now - made > $2)); then echo "$id"; fi
  done | sort -u
}

# What a killed test run left (its cleanup never ran): the pods,
# containers and images a test labelled, made over an hour ago. No run
# takes that long; nothing without the label is touched, and an image a
# container uses is kept (rmi without -f refuses it).
stale=(--filter label=session-starter-test --filter until=1h -q)
for id in $(podman pod ps "${stale[@]}"); do podman pod rm -f -t 0 "$id" >&2 || true; done
for id in $(podman ps -a "${stale[@]}"); do podman rm -f -t 0 "$id" >&2 || true; done
for id in $(old_images label=session-starter-test 3600); do podman rmi "$id" >/dev/null 2>&1 || true; done

# The images of earlier binaries, a day old: CI keeps the engine's store
# between runs. One a running test still uses is kept.
current="$(podman images --format '{{.ID}}' "$image")"
for id in $(old_images "reference=$repository" 86400); do
  [ "$id" = "$current" ] || podman rmi "$id" >/dev/null 2>&1 || true
done

# The docker client: the one on PATH, else the client alone out of
# Debian's docker.io package (no daemon is installed or started), kept
# under /var/cache.
docker="$(command -v docker || true)"
if [ -z "$docker" ]; then
  cache=/var/cache/session-starter-containers
  docker="$cache/usr/bin/docker"
  if [ ! -x "$docker" ]; then
    say "no docker on PATH: unpacking the client of Debian's docker.io"
    (cd "$tmp" && apt-get download -qq docker.io 2>/dev/null) || die "apt-get download docker.io failed"
    mkdir -p "$tmp/x" "$cache/usr/bin"
    dpkg-deb -x "$tmp"/docker.io_*.deb "$tmp/x"
    cp "$tmp/x/usr/bin/docker" "$docker.new"
    mv "$docker.new" "$docker"
  fi
fi

echo "CONTAINERS_CONF=$CONTAINERS_CONF"
echo "IMAGE=$image"
echo "DOCKER=$docker"
