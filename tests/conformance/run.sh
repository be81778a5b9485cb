#!/usr/bin/env bash
# The differential conformance suite: real Kafka clients (kafka-clients 4.3.1 and 3.9.2,
# librdkafka 2.16) on a real Apache Kafka 4.3.1 broker (KRaft, one node, loopback only, started
# and stopped here) against `offset-window run`. Prints one line per case and `N passed, N failed`;
# exits non-zero on any failure. Needs Java 17 (java, javac), Maven, Python 3.11 with pip, cargo, Go, Node + npm.
# Extra arguments go to run.py (--only R1,R6 runs a subset; --all adds the cases marked full, the
# whole suite; --keep keeps the work directories).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/setup.sh"
exec python3 "$here/run.py" "$@"
