#!/usr/bin/python3
"""A TCP proxy in front of PostgreSQL's Unix socket that loses connections without a word, as networks do.

    pg_cut_proxy.py UNIX_SOCKET PORT_FILE

It listens on 127.0.0.1 (a free port, written to PORT_FILE once it accepts) and forwards each connection to
UNIX_SOCKET. Two signals cut connections the way a kernel never reports them to the client:
  SIGUSR1  every open connection: the server's side is closed, the client's is kept open and silent (a
           server that failed over or restarted while a firewall dropped its resets); new ones go through.
  SIGHUP   only the connections idle for 1.5 s or more (a NAT or firewall that forgets idle connections).
A cut client socket never gets a byte or a close again, so only a client that waits for answers with a
deadline finds out.
"""
import os
import selectors
import signal
import socket
import sys
import time

unix_path, port_file = sys.argv[1], sys.argv[2]
IDLE = 1.5

sel = selectors.DefaultSelector()
peer_of = {}        # socket -> the other end, both directions
last_traffic = {}   # client socket -> monotonic time of its last byte either way
silent = []         # cut client sockets, held open so the client sees nothing
pending = []        # signals to act on in the loop, not inside the handler


def cut(client):
    server = peer_of.pop(client)
    peer_of.pop(server, None)
    for s in (client, server):
        sel.unregister(s)
    server.close()
    silent.append(client)
    last_traffic.pop(client, None)


def clients():
    return [s for s in peer_of if s.family == socket.AF_INET]


signal.signal(signal.SIGUSR1, lambda *_: pending.append("all"))
signal.signal(signal.SIGHUP, lambda *_: pending.append("idle"))

listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(64)
sel.register(listener, selectors.EVENT_READ)
with open(port_file + ".tmp", "w") as f:
    f.write(str(listener.getsockname()[1]))
os.rename(port_file + ".tmp", port_file)

while True:
    while pending:
        what = pending.pop()
        now = time.monotonic()
        for c in clients():
            if what == "all" or now - last_traffic.get(c, now) >= IDLE:
                cut(c)
    for key, _ in sel.select(0.2):
        s = key.fileobj
        if s is listener:
            client, _ = listener.accept()
            server = socket.socket(socket.AF_UNIX)
            try:
                server.connect(unix_path)
            except OSError:
                client.close()
                continue
            peer_of[client], peer_of[server] = server, client
            last_traffic[client] = time.monotonic()
            sel.register(client, selectors.EVENT_READ)
            sel.register(server, selectors.EVENT_READ)
            continue
        if s not in peer_of:
            continue
        other = peer_of[s]
        try:
            data = s.recv(65536)
        except OSError:
            data = b""
        if not data:
            for x in (s, other):
                sel.unregister(x)
                x.close()
                peer_of.pop(x, None)
                last_traffic.pop(x, None)
            continue
        last_traffic[s if s.family == socket.AF_INET else other] = time.monotonic()
        other.setblocking(True)
        other.sendall(data)
