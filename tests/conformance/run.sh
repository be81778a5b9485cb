#!/usr/bin/env bash
# The differential conformance suite: real Kafka clients (kafka-clients 4.3.0, librdkafka 2.16)
# on a real Kafka-protocol broker (tansu 0.6.0, loopback only) against `offset-window run`.
# Prints one line per scenario and `N passed, M failed`; exits non-zero on any failure.
# Needs Java 17 (java, javac), Python 3.11 with pip, cargo. Extra arguments go to run.py
# (--only R1,R6 runs a subset; --keep keeps each case's work directory).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/setup.sh"
exec python3 "$here/run.py" "$@"
