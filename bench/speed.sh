#!/usr/bin/env bash
# Every speed figure docs/API.md "Speed: one quiet run" quotes, in one run: each bench after the
# other, on a machine doing nothing else. Each prints its own load average; this prints it between.
#   bash bench/speed.sh 2>&1 | tee speed.txt        (about 25 minutes on the 2-core machine)
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
run() {
  echo "### python $* (started $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg))"
  python "$@"
}
git log -1 --format='commit %h %s' 2>/dev/null || true
run bench/selfplay.py --hands 256 --normal-hands 64
run bench/store.py
run bench/http.py
run bench/waiting.py
run bench/cold.py
run bench/replay.py
echo "### done $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
