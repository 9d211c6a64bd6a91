# Sourced by ./scripts/serve and ./scripts/test: make .venv with this machine's python3,
# saying in one line what is missing instead of failing half-way through pip.
# - Python 3.11 or newer (pyproject.toml); an older one is named, with what to do;
# - Python's venv module (Debian and Ubuntu ship it apart, as python3-venv): installed
#   with apt when running as root, else named.
make_venv() {
  if ! command -v python3 >/dev/null 2>&1; then
    echo "error: python3 is not installed: install Python 3.11 or newer (sudo apt install python3 python3-venv) and run this again" >&2
    exit 2
  fi
  if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "error: the companion needs Python 3.11 or newer; python3 here is $(python3 -c 'import platform; print(platform.python_version())' 2>/dev/null || echo unknown): install a newer one (Debian 12, Ubuntu 24.04 and later ship it) and run this again" >&2
    exit 2
  fi
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "Installing Python's venv module (apt: python3-venv)…"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    else
      echo "error: Python's venv module is missing: install it (sudo apt install python3-venv) and run this again" >&2
      exit 2
    fi
  fi
  python3 -m venv .venv
}
