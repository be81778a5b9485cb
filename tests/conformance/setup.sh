#!/usr/bin/env bash
# Fetch the real broker and clients into tests/conformance/.cache (gitignored) and build what the
# suite runs. Idempotent: each step is skipped when its output is already there (a second run
# takes a second or two). Package registries only:
#   Maven Central (mvn dependency:copy-dependencies on pom.xml, one profile per classpath):
#     .cache/lib/broker     Apache Kafka 4.3.1 (org.apache.kafka:kafka_2.13) + log4j-slf4j-impl  ≈ 44 MB
#     .cache/lib/client431  kafka-clients 4.3.1 + slf4j-simple                                  ≈ 20 MB
#     .cache/lib/client392  kafka-clients 3.9.2 + slf4j-simple                                  ≈ 19 MB
#     .cache/lib/client420  kafka-clients 4.2.0 + slf4j-simple                                  ≈ 20 MB
#     .cache/lib/streams431 kafka-streams 4.3.1 + kafka-clients 4.3.1 + slf4j-simple            ≈ 25 MB
#   (Maven keeps its own copy in ~/.m2/repository, ≈ 85 MB more.)
#   PyPI: confluent-kafka==2.16.1 (librdkafka 2.16 for Python 3.11, manylinux x86_64)     ≈ 14 MB
#   Go module proxy (go.mod / go.sum in go/): sarama v1.61.1, franz-go v1.22.3, kafka-go v0.4.51,
#     built into .cache/bin (modules cached in Go's own GOMODCACHE, ≈ 40 MB)
#   npm registry (node/package-lock.json): kafkajs 2.2.4 into node/node_modules       ≈ 1 MB
# Then compiles the Java consumer once per kafka-clients version and builds offset-window into
# .cache/target (set OFFSET_WINDOW=/path/to/offset-window to use another build).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="$here/.cache"
mkdir -p "$cache/lib" "$cache/classes"

for profile in broker client431 client392 client420 streams431; do
  # A stamp per profile, newer than pom.xml: the copy finished for this pom.
  stamp="$cache/lib/$profile.done"
  if [ ! -f "$stamp" ] || [ "$here/pom.xml" -nt "$stamp" ]; then
    rm -rf "${cache:?}/lib/$profile"
    mvn -q -B -f "$here/pom.xml" -P"$profile" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$cache/lib/$profile"
    touch "$stamp"
  fi
done

if [ ! -d "$cache/py/confluent_kafka" ]; then
  rm -rf "$cache/dl" "$cache/py" && mkdir -p "$cache/dl" "$cache/py"
  python3 -m pip download --no-deps --quiet --disable-pip-version-check -d "$cache/dl" confluent-kafka==2.16.1
  unzip -o -q "$cache"/dl/confluent_kafka-2.16.1-*.whl -d "$cache/py"
  rm -rf "$cache/dl"
fi

# The consumer, compiled against each kafka-clients version it runs with.
src="$here/java/ConformanceConsumer.java"
for v in 431 392 420; do
  out="$cache/classes/$v"
  if [ ! -f "$out/ConformanceConsumer.class" ] || [ "$src" -nt "$out/ConformanceConsumer.class" ] ||
    [ "$cache/lib/client$v.done" -nt "$out/ConformanceConsumer.class" ]; then
    rm -rf "$out" && mkdir -p "$out"
    javac -nowarn -cp "$cache/lib/client$v/*" -d "$out" "$src" 2>&1 | grep -v '^Note:' || true
    [ -f "$out/ConformanceConsumer.class" ]
  fi
done

# The share consumer (KafkaShareConsumer, share groups): kafka-clients 4.3.1 only.
src="$here/java/ShareConformanceConsumer.java"
out="$cache/classes/431"
if [ ! -f "$out/ShareConformanceConsumer.class" ] || [ "$src" -nt "$out/ShareConformanceConsumer.class" ] ||
  [ "$cache/lib/client431.done" -nt "$out/ShareConformanceConsumer.class" ]; then
  javac -nowarn -cp "$cache/lib/client431/*" -d "$out" "$src" 2>&1 | grep -v '^Note:' || true
  [ -f "$out/ShareConformanceConsumer.class" ]
fi

# The transactional producers, readers and describe of the txn cases (issue 31): kafka-clients 4.3.1.
src="$here/java/TxnConformance.java"
if [ ! -f "$out/TxnConformance.class" ] || [ "$src" -nt "$out/TxnConformance.class" ] ||
  [ "$cache/lib/client431.done" -nt "$out/TxnConformance.class" ]; then
  javac -nowarn -cp "$cache/lib/client431/*" -d "$out" "$src" 2>&1 | grep -v '^Note:' || true
  [ -f "$out/TxnConformance.class" ]
fi

# The exactly-once pipelines (issue 32, eos.py): the consume-transform-produce service, the Kafka
# Streams application, the input producer and the downstream readers, against kafka-streams 4.3.1.
src="$here/java/EosConformance.java"
out431s="$cache/classes/streams431"
if [ ! -f "$out431s/EosConformance.class" ] || [ "$src" -nt "$out431s/EosConformance.class" ] ||
  [ "$cache/lib/streams431.done" -nt "$out431s/EosConformance.class" ]; then
  rm -rf "$out431s" && mkdir -p "$out431s"
  javac -nowarn -cp "$cache/lib/streams431/*" -d "$out431s" "$src" 2>&1 | grep -v '^Note:' || true
  [ -f "$out431s/EosConformance.class" ]
fi

# The coordinator probe (run.py's "probe" cases, model.md §10.5): kafka-clients 4.3.1.
src="$here/java/RevokedPartitionCommit.java"
if [ ! -f "$out/RevokedPartitionCommit.class" ] || [ "$src" -nt "$out/RevokedPartitionCommit.class" ] ||
  [ "$cache/lib/client431.done" -nt "$out/RevokedPartitionCommit.class" ]; then
  javac -nowarn -cp "$cache/lib/client431/*" -d "$out" "$src" 2>&1 | grep -v '^Note:' || true
  [ -f "$out/RevokedPartitionCommit.class" ]
fi

# The Go consumers (issue 29): one binary per library, rebuilt when a source or go.sum is newer;
# epochprobe is the member-epoch probe (run.py's "probe" cases, model.md §10.6).
mkdir -p "$cache/bin"
for prog in sarama franz kafkago kafkagotxn epochprobe; do
  if [ ! -x "$cache/bin/$prog" ] || [ -n "$(find "$here/go" -name '*.go' -newer "$cache/bin/$prog" -o -name go.sum -newer "$cache/bin/$prog" | head -1)" ]; then
    (cd "$here/go" && GOFLAGS=-mod=readonly go build -o "$cache/bin/$prog" "./$prog")
  fi
done

# KafkaJS (issue 29), exactly as package-lock.json says.
if [ ! -f "$here/node/node_modules/kafkajs/package.json" ] || [ "$here/node/package-lock.json" -nt "$here/node/node_modules/kafkajs/package.json" ]; then
  (cd "$here/node" && npm ci --no-audit --no-fund --silent)
fi

if [ -z "${OFFSET_WINDOW:-}" ]; then
  # A private target dir: the shared target/ may hold another checkout's build of the CLI.
  (cd "$root" && cargo build --quiet -p offset-window-cli --target-dir "$cache/target")
fi
