# Clients run inside the box's namespace by tests/e2e/netd_daemon.t.  Bounded in count
# and time; only ever 127.0.0.1.
#   dns NAME          one UDP A query to 127.0.0.1:53: prints "rcode=N addrs=A,B"
#   slow              sends half a request head and waits: prints what came back
#   tunnel HOST:PORT [SAY]  CONNECT (then send SAY) and read what the upstream says first: prints the status
#                     line and the first line after it
#   bighead           an absolute-form GET whose head is exactly 16384 bytes with 64
#                     fields written without a blank after the colon: prints the
#                     status line and the body
#   flood N RATE      opens N connections to 3128 at RATE/s, holds them: prints how many
#                     the daemon closed at once
import socket, struct, sys, time

def dns(name):
    q = struct.pack(">HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\0" + struct.pack(">HH", 1, 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(5)
    s.sendto(q, ("127.0.0.1", 53))
    r = s.recv(1500)
    rcode = r[3] & 15
    an = struct.unpack(">H", r[6:8])[0]
    addrs, i = [], len(q)
    for _ in range(an):
        i += 2  # compressed name pointer
        t, c, ttl, ln = struct.unpack(">HHIH", r[i:i + 10])
        i += 10
        if t == 1:
            addrs.append(socket.inet_ntoa(r[i:i + ln]))
        i += ln
    print("rcode=%d addrs=%s" % (rcode, ",".join(addrs)))

def slow():
    s = socket.create_connection(("127.0.0.1", 3128), timeout=20)
    s.sendall(b"CONNECT up.test:443 HTTP/1.1\r\nHost: up.test:443\r\n")
    t0 = time.time()
    data = s.recv(200)
    print("after=%d got=%r" % (round(time.time() - t0), data.split(b"\r\n")[0]))

def flood(n, rate):
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", 3128), timeout=5)
        s.setblocking(False)
        socks.append(s)
        time.sleep(1.0 / rate)
    time.sleep(0.5)
    closed = 0
    for s in socks:
        try:
            if s.recv(1) == b"":
                closed += 1
        except BlockingIOError:
            pass
        except ConnectionResetError:
            closed += 1
    print("closed=%d" % closed)

def tunnel(target, say=None):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
    s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, target)).encode())
    if say:
        s.sendall(say.encode() + b"\r\n")
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(1000)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    while b"\n" not in rest:
        chunk = s.recv(1000)
        if not chunk:
            break
        rest += chunk
    print("%s|%s" % (head.split(b"\r\n")[0].decode(), rest.split(b"\r\n")[0].decode()))

def bighead():
    fields = "Host:up.test:80\r\n" + "".join("x%02d:v\r\n" % i for i in range(63))
    line = "GET http://up.test:80/%s HTTP/1.1\r\n"
    pad = 16384 - len(line % "") - len(fields) - 2
    head = (line % ("a" * pad)) + fields + "\r\n"
    assert len(head) == 16384
    s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
    s.sendall(head.encode())
    data = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    lines = data.split(b"\r\n")
    print("%s|%s" % (lines[0].decode(), lines[-1].decode().strip()))

cmd = sys.argv[1]
if cmd == "dns":
    dns(sys.argv[2])
elif cmd == "slow":
    slow()
elif cmd == "tunnel":
    tunnel(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
elif cmd == "bighead":
    bighead()
elif cmd == "flood":
    flood(int(sys.argv[2]), float(sys.argv[3]))
