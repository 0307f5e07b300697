#!/usr/bin/env bash
# A private PulseAudio daemon with a 16 kHz mono virtual microphone, for tests: audio played
# into the sink "vsink" (paplay -d vsink FILE) is what the default source "vmic" records.
# usage: virtual-microphone.sh start DIR | stop DIR   (DIR becomes HOME and XDG_RUNTIME_DIR/.. for the daemon)
set -euo pipefail
ACTION=$1
export HOME=$2 XDG_RUNTIME_DIR=$2/run
case "$ACTION" in
start)
  # the daemons must not inherit a caller's pipes (a test reading our output would wait for them forever)
  for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null || true; done
  mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
  pulseaudio --daemonize=yes --exit-idle-time=-1 -n --use-pid-file=yes \
    -L "module-native-protocol-unix" \
    -L "module-null-sink sink_name=vsink rate=16000 channels=1" \
    -L "module-remap-source source_name=vmic master=vsink.monitor" >"$HOME/pulseaudio.log" 2>&1 </dev/null
  for _ in $(seq 50); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
  pactl set-default-source vmic
  pactl set-default-sink vsink
  # an idle null sink delivers audio in 2 s blocks: keep it playing silence
  nohup pacat --playback -d vsink --rate=16000 --channels=1 --format=s16le /dev/zero >/dev/null 2>&1 </dev/null &
  echo $! > "$HOME/keepalive.pid"
  ;;
stop)
  kill "$(cat "$HOME/keepalive.pid" 2>/dev/null)" 2>/dev/null || true
  pulseaudio --kill 2>/dev/null || true
  ;;
esac
