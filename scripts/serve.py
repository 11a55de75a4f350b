#!/usr/bin/env python3
"""Static server for the playground: the site is www/ at "/", static/ at "/static/" and results/ at
"/results/" (the committed findings the views show, e.g. results/003/tables.md; the same layout a static
deploy gets by copying static/ and results/ into the site). Binds 127.0.0.1 only; port 0 picks a free port.
Prints "serving http://127.0.0.1:PORT/" once listening (the e2e tests read it)."""
import http.server
import os
import posixpath
import sys
import urllib.parse

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
# The Content-Security-Policy of every response (docs/input-formats.md "Limits on untrusted input"): scripts, workers, style
# sheets, data and the wasm module only from this origin, no inline script, no plugins, no <base>, no framing.
# Style attributes are allowed (style-src-attr) only because plotters measures chart text with a <span> it
# styles through setAttribute("style", ...) in the browser; they cannot run script, and no user string becomes
# markup (www/common/dom.js). www/index.html states the same policy in a <meta http-equiv> (less frame-ancestors, which only a
# header can carry), so a static deploy without this header keeps it; tests/e2e/security.test.mjs checks both.
CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data: blob:; "
    "connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
MOUNTS = [
    ("/static/", os.path.join(ROOT, "static")),
    ("/results/", os.path.join(ROOT, "results")),
    ("/", os.path.join(ROOT, "www")),
]


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".json": "application/json",
        ".svg": "image/svg+xml",
        ".gz": "application/gzip",  # served as bytes (no Content-Encoding): the engine gunzips itself
        ".md": "text/markdown; charset=utf-8",
    }

    def translate_path(self, path):
        path = urllib.parse.unquote(urllib.parse.urlsplit(path).path)
        path = posixpath.normpath(path) + ("/" if path.endswith("/") and path != "/" else "")
        for prefix, base in MOUNTS:
            if path == prefix.rstrip("/") or path.startswith(prefix):
                rest = path[len(prefix):] if path.startswith(prefix) else ""
                parts = [p for p in rest.split("/") if p not in ("", ".", "..")]
                return os.path.join(base, *parts) + ("/" if rest.endswith("/") else "")
        return os.path.join(ROOT, "www")

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        super().end_headers()

    def log_message(self, fmt, *args):
        if os.environ.get("PACKLAB_SERVE_QUIET") != "1":
            super().log_message(fmt, *args)


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"serving http://127.0.0.1:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
