# The fake upstream of tests/e2e/netd_daemon.t, run inside the test's own network
# namespace: HTTPS on 443 (certificate for up.test) and HTTP on 80.  /slow holds the
# response for 30 s (a tunnel that is still open when the session ends).  /key (the
# credential gateway's test) writes the x-api-key it got to the file argv[4] and echoes
# it in the body, which the gateway must redact before the box sees it.
import http.server, ssl, sys, threading, time

class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/slow":
            time.sleep(30)
        if self.path == "/key":
            key = self.headers.get("x-api-key", "-")
            with open(sys.argv[4], "w") as f:
                f.write(key + "\n")
            body = ("key=" + key + "\n").encode()
        else:
            # A Proxy-* field the proxy should have dropped shows in the answer.
            body = (sys.argv[3] + " " + self.headers.get("Proxy-Connection", "-") +
                    (" proxy-authorization" if "Proxy-Authorization" in self.headers else "") +
                    "\n").encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass

def serve(port, tls):
    s = http.server.ThreadingHTTPServer(("0.0.0.0", port), H)
    if tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[1], sys.argv[2])
        s.socket = ctx.wrap_socket(s.socket, server_side=True)
    s.serve_forever()

def banner():
    # A protocol whose server speaks first (SSH, SMTP): 8022.
    import socket
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", 8022))
    ls.listen()
    while True:
        c, _ = ls.accept()
        c.sendall(b"SSH-2.0-upstream\r\n")
        c.close()

threading.Thread(target=serve, args=(80, False), daemon=True).start()
threading.Thread(target=banner, daemon=True).start()
serve(443, True)
