#!/usr/bin/env bash
# Installs everything the build and the tests need, idempotently:
#   - Debian packages (compiler toolchain, the product's libraries, test tools);
#   - a Python virtual environment under .cache/venv with the test clients and oracles;
#   - Trino 476 (the semantics oracle, tests/trino_oracle) in
#     ${XDG_CACHE_HOME:-$HOME/.cache}/sqe-tools/trino-476, with a JDK >= 24 when the machine has
#     none (trino_server.py install: nothing is fetched when both are there).
# A stamp file records the inputs of the last successful run; nothing is redone when they match.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=.cache
mkdir -p "$CACHE"

APT_PACKAGES=(build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev
  libedit-dev libpcre2-dev libcmocka-dev libjansson-dev libssl-dev zlib1g-dev libsnappy-dev libzstd-dev
  liblz4-dev libbrotli-dev libxxhash-dev libsqlite3-dev libmicrohttpd-dev tzdata python3-venv
  libgrpc-dev libprotobuf-c-dev protobuf-c-compiler protobuf-compiler libprotobuf-dev
  curl libcurl4-openssl-dev maven openjdk-17-jdk-headless)
PIP_PACKAGES=(pytest==9.2.0 duckdb==2.0.1 tpchgen-cli==4.0.0 pyarrow==26.0.1 datafusion==55.0.0 matplotlib==3.11.2
  fastavro==1.13.1 "pyiceberg[sql-sqlite]==0.12.0" trino==0.340.0 pyroaring==1.2.0 lz4==4.4.5
  mmh3==5.3.1 dbt-core==1.10.23 dbt-trino==1.10.6 adbc-driver-flightsql==1.13.0
  adbc-driver-manager==1.13.0 grpcio==1.85.1 "moto[server]==5.2.5")

# The stamp below does not cover the tool cache outside the repository: check it every time.
trino_oracle_install() {
  local py="$CACHE/venv/bin/python"
  [ -x "$py" ] || py=python3
  if ! "$py" tests/trino_oracle/trino_server.py present; then
    echo "setup: installing Trino 476 for tests/trino_oracle"
    "$py" tests/trino_oracle/trino_server.py install
  fi
}

stamp_value="$(printf '%s\n' "${APT_PACKAGES[@]}" "${PIP_PACKAGES[@]}" | sha256sum | cut -c1-16)"
stamp_file="$CACHE/setup.stamp"
if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp_value" ] && [ -x "$CACHE/venv/bin/python" ]; then
  trino_oracle_install
  exit 0
fi

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PYTHON=python3
if [ ! -x "$CACHE/venv/bin/python" ]; then
  echo "setup: creating Python virtual environment in $CACHE/venv"
  "$PYTHON" -m venv "$CACHE/venv"
fi
echo "setup: installing Python test tools: ${PIP_PACKAGES[*]}"
"$CACHE/venv/bin/pip" install -q --disable-pip-version-check "${PIP_PACKAGES[@]}"

# The Arrow Flight SQL JDBC driver for tests/flight/jdbc (Maven Central; checked by its SHA-1).
mkdir -p "$CACHE/flight-jdbc"
jar="$CACHE/flight-jdbc/flight-sql-jdbc-driver-18.3.0.jar"
if [ ! -f "$jar" ]; then
  echo "setup: fetching the Flight SQL JDBC driver"
  curl -sSfL -o "$jar.tmp" \
    https://repo1.maven.org/maven2/org/apache/arrow/flight-sql-jdbc-driver/18.3.0/flight-sql-jdbc-driver-18.3.0.jar
  echo "a77be460b83b673e41c5e2d364e7189a223f4861  $jar.tmp" | sha1sum -c - >/dev/null
  mv "$jar.tmp" "$jar"
fi

trino_oracle_install
echo "$stamp_value" > "$stamp_file"
echo "setup: done"
