#!/usr/bin/env python3
"""Static server for the playground: the site is www/ at "/", static/ at "/static/" and results/ at
"/results/" (the committed findings the views show, e.g. results/003/tables.md; the same layout a static
deploy gets by copying static/ and results/ into the site). Binds 127.0.0.1 only; port 0 picks a free port.
Prints "serving http://127.0.0.1:PORT/" once listening (the e2e tests read it).

Caching: every file carries a validator (an ETag of its modification time and size, and Last-Modified), and a
conditional request for an unchanged file gets 304 with no body, so a reload transfers nothing but headers.
Compression: text, JSON, JavaScript, SVG and the wasm module are sent gzip-compressed (level 6, a fixed header
time, so the bytes are the same on every request) to a client that accepts gzip; `.gz` files are sent as they
are (the engine gunzips them itself, and the trace panel's download progress reads their Content-Length).
A file with a brotli copy beside it (`FILE.br`, as fresh as FILE: scripts/build-wasm.sh writes the wasm module's)
is sent as that copy, `Content-Encoding: br`, to a client that accepts br: brotli quality 11 makes the module
~30% smaller than gzip -9 (results/bench/wasm-size.md), too slow to compress per request."""
import email.utils
import gzip
import http.server
import io
import os
import threading
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


# Types sent gzip-compressed to a client that accepts it (see the module's doc); others are sent as they are.
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "application/wasm", "image/svg+xml")
# Files smaller than this are sent as they are: the gzip header would outweigh the saving.
MIN_COMPRESS = 1024
# Compressed bodies by (path, mtime_ns, size): a file changed on disk is compressed again on its next request.
_GZ_CACHE = {}
_GZ_LOCK = threading.Lock()


def gzip_body(path, st, data):
    """The gzip bytes of `data` (the file at `path` with stat `st`), cached while the file is unchanged."""
    key = (path, st.st_mtime_ns, st.st_size)
    with _GZ_LOCK:
        hit = _GZ_CACHE.get(key)
    if hit is None:
        hit = gzip.compress(data, compresslevel=6, mtime=0)
        with _GZ_LOCK:
            for old in [k for k in _GZ_CACHE if k[0] == path]:
                del _GZ_CACHE[old]
            _GZ_CACHE[key] = hit
    return hit


def accepted_codings(header):
    """The content codings an Accept-Encoding header accepts (lower case; those given q=0 left out)."""
    codings = set()
    for part in header.split(","):
        name, _, params = part.partition(";")
        q = params.strip().lower()
        if q.startswith("q=") and q[2:].strip() in ("0", "0.", "0.0", "0.00", "0.000"):
            continue
        if name.strip():
            codings.add(name.strip().lower())
    return codings


class Handler(http.server.SimpleHTTPRequestHandler):
    # HTTP/1.1: Chromium revalidates with an ETag (If-None-Match) only for HTTP/1.1 responses; over HTTP/1.0 a
    # fetch() (the wasm module, the bundled traces) and the page itself were sent whole again on every reload
    # (tests/e2e/page-weight.test.mjs). Every response here carries Content-Length or no body.
    protocol_version = "HTTP/1.1"
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

    def send_head(self):
        """Regular files with validators and optional gzip; directories and errors as the base class does."""
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            if not urllib.parse.urlsplit(self.path).path.endswith("/"):
                return super().send_head()  # the base class redirects to the trailing slash
            path = os.path.join(path, "index.html")
        try:
            st = os.stat(path)
        except OSError:
            return super().send_head()  # 404 (or the directory listing) as before
        if not os.path.isfile(path):
            return super().send_head()
        ctype = self.guess_type(path)
        accepted = accepted_codings(self.headers.get("Accept-Encoding", ""))
        compressible = not path.endswith(".gz") and st.st_size >= MIN_COMPRESS and ctype.startswith(COMPRESSIBLE)
        encoding = None
        if compressible and "br" in accepted:
            try:
                br_st = os.stat(path + ".br")
                if br_st.st_mtime_ns >= st.st_mtime_ns:
                    encoding = "br"
            except OSError:
                pass
        if encoding is None and compressible and "gzip" in accepted:
            encoding = "gzip"
        etag = f'"{st.st_mtime_ns:x}-{st.st_size:x}{"-" + encoding if encoding else ""}"'
        last_modified = email.utils.formatdate(st.st_mtime, usegmt=True)
        wanted = [t.strip() for t in self.headers.get("If-None-Match", "").split(",") if t.strip()]
        if etag in wanted or "*" in wanted:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", last_modified)
            self.send_header("Vary", "Accept-Encoding")
            self.end_headers()
            return None
        try:
            with open(path + ".br" if encoding == "br" else path, "rb") as f:
                data = f.read()
        except OSError:
            self.send_error(404, "File not found")
            return None
        if encoding == "gzip":
            data = gzip_body(path, st, data)
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", last_modified)
        self.send_header("Vary", "Accept-Encoding")
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.end_headers()
        return io.BytesIO(data)

    def copyfile(self, source, outputfile):
        try:
            super().copyfile(source, outputfile)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the browser went away mid-transfer (a closed page): nothing to report

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
