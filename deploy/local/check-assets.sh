#!/usr/bin/env bash
# Checks the dashboard's script and stylesheets (Sources/BatonDashboard/Assets, compiled into `baton`):
# the scripts compile as the browser compiles them (deploy/local/check-js.js, with Debian's node), the
# stylesheets parse and their var(--name)s are defined (deploy/local/check-css.py, with PyPI's tinycss2),
# the icon is well-formed XML.
# Installs what is missing first (CI is a fresh machine). Prints `file:line: what` for each problem and
# exits 1. Run by test.sh before the build; run it after editing an asset.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
ASSETS=Sources/BatonDashboard/Assets
if ! command -v node >/dev/null; then
    echo "check-assets: installing nodejs (Debian's package) to compile the dashboard's scripts" >&2
    if [ "$(id -u)" = 0 ]; then AS_ROOT=(); else AS_ROOT=(sudo); fi
    "${AS_ROOT[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${AS_ROOT[@]}" apt-get install -y -qq nodejs >/dev/null
fi
if ! python3 -c 'import tinycss2' 2>/dev/null; then
    echo "check-assets: installing tinycss2 (PyPI) to parse the dashboard's stylesheets" >&2
    python3 -m pip install -q --disable-pip-version-check 'tinycss2==1.5.1'
fi
STATUS=0
for file in "$ASSETS"/*; do
    case "$(basename "$file")" in
        dashboard.js | timeline.js | dashboard.css | timeline.css | favicon.svg) ;;
        *) echo "check-assets: $file is checked by nothing: add it to deploy/local/check-assets.sh" >&2; STATUS=1 ;;
    esac
done
# The order is /assets/dashboard.js's (DashboardAssets.script); then /assets/dashboard.css's (DashboardAssets.style).
node deploy/local/check-js.js "$ASSETS/dashboard.js" "$ASSETS/timeline.js" || STATUS=1
python3 deploy/local/check-css.py "$ASSETS/dashboard.css" "$ASSETS/timeline.css" || STATUS=1
python3 - "$ASSETS/favicon.svg" <<'PY' || STATUS=1
import sys, xml.etree.ElementTree as tree
try:
    tree.parse(sys.argv[1])
except tree.ParseError as error:
    sys.exit(f"{sys.argv[1]}: not well-formed XML: {error}")
PY
if [ "$STATUS" != 0 ]; then
    echo "check-assets: the dashboard's assets have errors (above)" >&2
    exit 1
fi
echo "check-assets: dashboard.js, timeline.js, dashboard.css, timeline.css and favicon.svg are well-formed" >&2
