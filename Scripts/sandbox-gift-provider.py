#!/usr/bin/env python3
"""The sandbox gift provider: the API of Deploy/gift-provider-api.yaml, for the tests, the crash
test and the scale-out proof, started by them as a process of its own.

It keeps its own ledger in FOLDER (one file per order key, written durably: an order it made
survives its being killed), which is the witness that no request was ever issued twice:
FOLDER/log has a line per order made ("<key> <product> <code>"), appended before the answer.

It misbehaves on demand, from its options or, while it runs, from `POST /sandbox/faults` with a
JSON object of the same names (unsigned: a sandbox's own door; `GET /sandbox/faults` reads them):
  delay            seconds every signed call waits before it is handled
  error_rate       share of calls answered 503 before anything is done
  timeout_rate     share of calls that hang (30 s) before anything is done, then close
  drop_rate        share of calls whose connection is closed before anything is done
  issue_then_drop  share of orders made and logged, whose connection is then closed unanswered
  unavailable      products (comma-separated) that cannot be delivered now (422)

Prints "ready PORT" on standard output once it listens; runs until killed.

  python3 Scripts/sandbox-gift-provider.py --folder /tmp/provider --credentials FILE [--port N]

FILE holds the key id and its secret, "<key id>:<secret>" on one line (PointApp reads the same
file with --gift-provider-credentials)."""
import argparse
import datetime
import hashlib
import hmac
import json
import os
import random
import secrets
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PRODUCTS = ["gift-300", "emoney-500", "giftcard-1000", "payout-1000"]
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
JST = datetime.timezone(datetime.timedelta(hours=9))
SKEW = 300


def now_stamp():
    """The moment, as an order's `created` says it: UTC to the second."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class Ledger:
    """Orders by key, each a file; one lock orders every change (the sandbox is one process)."""

    def __init__(self, folder):
        self.folder = folder
        self.lock = threading.Lock()
        os.makedirs(os.path.join(folder, "orders"), exist_ok=True)

    def path(self, key):
        return os.path.join(self.folder, "orders", key + ".json")

    def read(self, key):
        try:
            with open(self.path(key)) as f:
                return json.load(f)
        except FileNotFoundError:
            return None

    def write(self, order):
        path = self.path(order["key"])
        temporary = path + ".tmp"
        with open(temporary, "w") as f:
            json.dump(order, f)
            f.flush()
            os.fsync(f.fileno())
        os.rename(temporary, path)
        folder = os.open(os.path.dirname(path), os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)

    def log(self, order):
        with open(os.path.join(self.folder, "log"), "a", encoding="utf-8") as f:
            f.write("%s %s %s\n" % (order["key"], order["product"], order.get("code", "-")))
            f.flush()
            os.fsync(f.fileno())

    def all(self):
        orders = []
        for name in sorted(os.listdir(os.path.join(self.folder, "orders"))):
            if name.endswith(".json"):
                order = self.read(name[:-5])
                if order:
                    orders.append(order)
        return orders


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "SandboxGiftProvider/1"

    def log_message(self, format, *args):
        pass

    # -- plumbing

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def answer(self, status, payload=None):
        data = json.dumps(payload if payload is not None else {}, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def drop(self):
        """Closes the connection without a word."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def signed(self, body):
        authorization = self.headers.get("Authorization", "")
        if not authorization.startswith("PointApp-HMAC-SHA256 "):
            return False
        fields = dict(part.strip().split("=", 1) for part in authorization[len("PointApp-HMAC-SHA256 "):].split(",") if "=" in part)
        secret = self.server.credentials.get(fields.get("key", ""))
        try:
            timestamp = int(fields.get("ts", ""))
        except ValueError:
            return False
        if secret is None or abs(time.time() - timestamp) > SKEW:
            return False
        text = "%d\n%s\n%s\n%s\n%s" % (timestamp, self.command, self.path, self.headers.get("Idempotency-Key", ""),
                                       hashlib.sha256(body).hexdigest())
        expected = hmac.new(secret.encode(), text.encode(), hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, fields.get("sig", ""))

    def misbehaves(self):
        """The faults that strike before anything is done: True when the call was answered so."""
        faults = self.server.faults
        if faults.get("delay"):
            time.sleep(float(faults["delay"]))
        if random.random() < float(faults.get("error_rate", 0)):
            self.answer(503, {"error": "unavailable"})
            return True
        if random.random() < float(faults.get("timeout_rate", 0)):
            time.sleep(30)
            self.drop()
            return True
        if random.random() < float(faults.get("drop_rate", 0)):
            self.drop()
            return True
        return False

    # -- the API

    def do_GET(self):
        self.route(b"")

    def do_POST(self):
        self.route(self.body())

    def route(self, body):
        path, _, query = self.path.partition("?")
        if path == "/sandbox/faults":
            if self.command == "POST":
                self.server.faults = json.loads(body or b"{}")
            return self.answer(200, self.server.faults)
        if not self.signed(body):
            return self.answer(401, {"error": "signature"})
        if self.misbehaves():
            return
        parts = path.strip("/").split("/")
        if self.command == "GET" and parts == ["v1", "products"]:
            unavailable = self.unavailable()
            return self.answer(200, {"products": [{"id": p, "available": p not in unavailable} for p in PRODUCTS]})
        if self.command == "POST" and parts == ["v1", "orders"]:
            return self.order(body)
        if self.command == "GET" and parts == ["v1", "orders"]:
            day = dict(pair.split("=", 1) for pair in query.split("&") if "=" in pair).get("day", "")
            orders = [o for o in self.server.ledger.all() if self.day_of(o) == day]
            return self.answer(200, {"orders": orders})
        if self.command == "GET" and len(parts) == 3 and parts[:2] == ["v1", "orders"]:
            order = self.server.ledger.read(parts[2]) if self.valid_key(parts[2]) else None
            return self.answer(200, {"order": order}) if order else self.answer(404, {"error": "no_order"})
        if self.command == "POST" and len(parts) == 4 and parts[:2] == ["v1", "orders"] and parts[3] == "cancel":
            return self.cancel(parts[2])
        return self.answer(404, {"error": "not_found"})

    def unavailable(self):
        return set(filter(None, str(self.server.faults.get("unavailable", "")).split(",")))

    @staticmethod
    def valid_key(key):
        return len(key) == 36 and all(c in "0123456789abcdef-" for c in key)

    @staticmethod
    def day_of(order):
        created = datetime.datetime.fromisoformat(order["created"].replace("Z", "+00:00"))
        return created.astimezone(JST).date().isoformat()

    def order(self, body):
        key = self.headers.get("Idempotency-Key", "")
        try:
            product = json.loads(body or b"{}").get("product", "")
        except ValueError:
            return self.answer(400, {"error": "body"})
        if not self.valid_key(key):
            return self.answer(400, {"error": "idempotency_key"})
        ledger = self.server.ledger
        with ledger.lock:
            order = ledger.read(key)
            if order is None:
                if product not in PRODUCTS:
                    return self.answer(422, {"error": "unknown_product"})
                if product in self.unavailable():
                    return self.answer(422, {"error": "product_unavailable"})
                code = "-".join("".join(secrets.choice(ALPHABET) for _ in range(4)) for _ in range(4))
                order = {"key": key, "product": product, "status": "issued", "code": code,
                         "created": now_stamp()}
                ledger.write(order)
                ledger.log(order)
                made = True
            else:
                made = False
        if order["status"] == "cancelled":
            return self.answer(409, {"error": "cancelled", "order": order})
        if order["product"] != product:
            return self.answer(409, {"error": "conflict", "order": order})
        if made and random.random() < float(self.server.faults.get("issue_then_drop", 0)):
            return self.drop()
        return self.answer(201 if made else 200, {"order": order})

    def cancel(self, key):
        if not self.valid_key(key):
            return self.answer(400, {"error": "idempotency_key"})
        ledger = self.server.ledger
        with ledger.lock:
            order = ledger.read(key)
            if order is None:
                order = {"key": key, "product": "", "status": "cancelled",
                         "created": now_stamp()}
                ledger.write(order)
        return self.answer(200, {"order": order})


def main():
    # A parent may have started it with signals blocked: SIGTERM ends it all the same.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", required=True)
    parser.add_argument("--credentials", required=True, help='a file holding "<key id>:<secret>"')
    parser.add_argument("--port", type=int, default=0)
    for name in ("delay", "error_rate", "timeout_rate", "drop_rate", "issue_then_drop"):
        parser.add_argument("--" + name.replace("_", "-"), type=float, default=0.0)
    parser.add_argument("--unavailable", default="", help="products that cannot be delivered (comma-separated)")
    args = parser.parse_args()
    with open(args.credentials) as f:
        key_id, _, secret = f.read().strip().partition(":")
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.ledger = Ledger(args.folder)
    server.credentials = {key_id: secret}
    server.faults = {name: getattr(args, name) for name in ("delay", "error_rate", "timeout_rate", "drop_rate", "issue_then_drop")}
    server.faults["unavailable"] = args.unavailable
    print("ready %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
