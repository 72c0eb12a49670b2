#!/usr/bin/env bash
# Installs everything the build and the tests need, idempotently:
#   - Debian packages (compiler toolchain, the product's libraries, test tools);
#   - a Python virtual environment under .cache/venv with the test clients and oracles;
#   - Trino 476 (the semantics oracle, tests/trino_oracle) in
#     ${XDG_CACHE_HOME:-$HOME/.cache}/sqe-tools/trino-476, with a JDK >= 24 when the machine has
#     none (trino_server.py install: nothing is fetched when both are there);
#   - Keycloak 26.7.3 (the OIDC identity provider of tests/auth) in
#     ${XDG_CACHE_HOME:-$HOME/.cache}/sqe-tools/keycloak-26.7.3: Maven Central's
#     keycloak-quarkus-dist tar.gz checked by its published SHA-1, unpacked, and its Quarkus app
#     built once for start-dev with the machine's JDK >= 21 (a Temurin 25 under /usr/lib/jvm);
#     a file named .complete marks a finished install, nothing is fetched when it is there;
#   - Nessie 0.99.0 (the second real REST catalog of tests/auth) in
#     ${XDG_CACHE_HOME:-$HOME/.cache}/sqe-tools/nessie-0.99.0: Maven Central's nessie-quarkus
#     runner jar (245 MB, run with a JDK >= 21; not fetched without one) checked by its
#     published SHA-1; nothing is fetched when the jar is there.
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

# Keycloak for tests/auth (keycloak_peer.py reads the same folder and the same .complete marker).
KC_VERSION=26.7.3
# find_jdk21: prints the home of a JDK >= 21 under /usr/lib/jvm (the newest), or nothing.
find_jdk21() {
  local best="" best_v=0 d v
  for d in /usr/lib/jvm/*/; do
    d=${d%/}
    [ -x "$d/bin/java" ] && [ -x "$d/bin/javac" ] && [ ! -L "$d" ] || continue
    v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$d/release" 2>/dev/null)
    [ -n "$v" ] && [ "$v" -ge 21 ] && [ "$v" -gt "$best_v" ] && best=$d best_v=$v
  done
  [ -n "$best" ] && echo "$best"
  return 0
}
keycloak_install() {
  local root="${XDG_CACHE_HOME:-$HOME/.cache}/sqe-tools/keycloak-$KC_VERSION"
  [ -f "$root/.complete" ] && return 0
  local jdk; jdk=$(find_jdk21)
  if [ -z "$jdk" ]; then
    echo "setup: no JDK >= 21 under /usr/lib/jvm: Keycloak not installed (the idp stage will skip)"
    return 0
  fi
  local name="keycloak-quarkus-dist-$KC_VERSION.tar.gz"
  local url="https://repo1.maven.org/maven2/org/keycloak/keycloak-quarkus-dist/$KC_VERSION/$name"
  local want; want=$(curl -sSfL "$url.sha1" | cut -c1-40)
  mkdir -p "$root"
  if [ ! -f "$root/$name" ] || [ "$(sha1sum < "$root/$name" | cut -c1-40)" != "$want" ]; then
    echo "setup: fetching Keycloak $KC_VERSION for tests/auth (176 MB)"
    curl -sSfL -o "$root/$name.tmp" "$url"
    if [ "$(sha1sum < "$root/$name.tmp" | cut -c1-40)" != "$want" ]; then
      rm -f "$root/$name.tmp"
      echo "setup: $name does not match its published SHA-1" >&2
      return 1
    fi
    mv "$root/$name.tmp" "$root/$name"
  fi
  echo "setup: unpacking and building Keycloak $KC_VERSION (about 2 minutes)"
  rm -rf "$root/dist" "$root/dist.tmp"
  mkdir -p "$root/dist.tmp"
  tar -xzf "$root/$name" -C "$root/dist.tmp" --strip-components=1
  # start-dev rebuilds the Quarkus app when its build options differ from the last build's, and
  # `kc.sh build` refuses the dev profile: one start here builds it with the options the tests use.
  if ! JAVA_HOME="$jdk" python3 tests/auth/keycloak_peer.py warm "$root/dist.tmp" \
      > "$root/build.log" 2>&1; then
    tail -n 20 "$root/build.log" >&2
    echo "setup: the first Keycloak start failed (log: $root/build.log)" >&2
    return 1
  fi
  mv "$root/dist.tmp" "$root/dist"
  touch "$root/.complete"
}

# Nessie for tests/auth (nessie_peer.py reads the same path).
NESSIE_VERSION=0.99.0
nessie_install() {
  local root="${XDG_CACHE_HOME:-$HOME/.cache}/sqe-tools/nessie-$NESSIE_VERSION"
  local name="nessie-quarkus-$NESSIE_VERSION-runner.jar"
  [ -f "$root/$name" ] && return 0
  if [ -z "$(find_jdk21)" ]; then
    echo "setup: no JDK >= 21 under /usr/lib/jvm: Nessie not installed (its tests will skip)"
    return 0
  fi
  local url="https://repo1.maven.org/maven2/org/projectnessie/nessie/nessie-quarkus/$NESSIE_VERSION/$name"
  local want; want=$(curl -sSfL "$url.sha1" | cut -c1-40)
  mkdir -p "$root"
  echo "setup: fetching Nessie $NESSIE_VERSION for tests/auth (245 MB)"
  curl -sSfL -o "$root/$name.tmp" "$url"
  if [ "$(sha1sum < "$root/$name.tmp" | cut -c1-40)" != "$want" ]; then
    rm -f "$root/$name.tmp"
    echo "setup: $name does not match its published SHA-1" >&2
    return 1
  fi
  mv "$root/$name.tmp" "$root/$name"
}

stamp_value="$(printf '%s\n' "${APT_PACKAGES[@]}" "${PIP_PACKAGES[@]}" | sha256sum | cut -c1-16)"
stamp_file="$CACHE/setup.stamp"
if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp_value" ] && [ -x "$CACHE/venv/bin/python" ]; then
  trino_oracle_install
  keycloak_install
  nessie_install
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
keycloak_install
nessie_install
echo "$stamp_value" > "$stamp_file"
echo "setup: done"
