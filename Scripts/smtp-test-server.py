#!/usr/bin/env python3
"""A real SMTP server for the tests (aiosmtpd from PyPI): STARTTLS and AUTH when asked, every
message it accepts kept as a file in FOLDER, and FOLDER/log with a line per message accepted
(its Message-ID and recipient), the witness that each message arrived once. A message whose
connection ended before its final dot (a sender killed at the hand-over) is kept apart, as
FOLDER/cut-NNNNNN.part and a line in FOLDER/cut-log: the server never took it.

Recipients make it refuse, to show what the sender does then:
  tempfail-N@...  451 to the first N attempts for that address, then accepted
  reject@...      550, for good

Prints "ready PORT" on standard output once it listens; runs until killed.

  python3 Scripts/smtp-test-server.py --folder /tmp/mail [--tls] [--auth user:password] [--delay SECONDS]

With --tls it makes a self-signed certificate for localhost and 127.0.0.1 (FOLDER/cert.pem,
valid ten years, so that tests with the clock moved still trust it), offers STARTTLS and
refuses mail before it."""
import argparse
import asyncio
import email
import logging
import os
import signal
import socket
import ssl
import subprocess
import sys

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult


class Keeper:
    def __init__(self, folder, delay=0.0):
        self.folder, self.delay = folder, delay
        self.attempts = {}
        self.count = len([n for n in os.listdir(folder) if n.endswith(".eml")])

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        local = address.split("@")[0]
        if local == "reject":
            return "550 5.1.1 no such mailbox here"
        if local.startswith("tempfail-"):
            seen = self.attempts.get(address, 0)
            self.attempts[address] = seen + 1
            if seen < int(local.split("-")[1]):
                return "451 4.3.0 mailbox busy, try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.keep(envelope.content, envelope.rcpt_tos, "", "eml", "log")
        # Kept, and slow to say so: a sender killed meanwhile has handed the message over.
        await asyncio.sleep(self.delay)
        return "250 2.0.0 OK kept"

    def keep(self, content, recipients, prefix, extension, log):
        message = email.message_from_bytes(content)
        self.count += 1
        with open(os.path.join(self.folder, f"{prefix}{self.count:06d}.{extension}"), "wb") as f:
            f.write(content)
        with open(os.path.join(self.folder, log), "a", encoding="utf-8") as f:
            f.write(f"{message['Message-ID']} {' '.join(recipients)}\n")
            f.flush()
            os.fsync(f.fileno())


class Witness(SMTP):
    """aiosmtpd's server, noting a message whose connection ended in DATA before the final dot."""

    async def smtp_DATA(self, arg):
        reader, lines = self._reader, []

        class Recording:
            async def readuntil(self, separator=b"\n"):
                lines.append(await reader.readuntil(separator))
                return lines[-1]

            def __getattr__(self, name):
                return getattr(reader, name)

        self._reader = Recording()
        try:
            await super().smtp_DATA(arg)
        except asyncio.CancelledError:
            # Cut before the dot (after it, the message was kept and only the answer is lost).
            if lines and lines[-1] != b".\r\n":
                # With what had arrived and was not read yet (the connection's end cancels the read).
                rest = bytes(getattr(reader, "_buffer", b""))
                content = b"".join(line[1:] if line.startswith(b".") else line for line in lines) + rest
                self.event_handler.keep(content, self.envelope.rcpt_tos, "cut-", "part", "cut-log")
            raise
        finally:
            self._reader = reader


class WitnessController(Controller):
    def factory(self):
        return Witness(self.handler, **self.SMTP_kwargs)


def main():
    # A parent may have started it with signals blocked: SIGTERM ends it all the same.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    parser = argparse.ArgumentParser()
    parser.add_argument("--folder", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls", action="store_true")
    parser.add_argument("--auth", help="user:password that AUTH accepts (then required)")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds between keeping a message and saying so")
    parser.add_argument("--smtputf8", action="store_true", help="take addresses beyond ASCII (RFC 6531)")
    args = parser.parse_args()
    os.makedirs(args.folder, exist_ok=True)
    # What it sees, connection by connection, on standard error (the tests keep it beside the mail).
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(message)s")
    options = {"enable_SMTPUTF8": args.smtputf8}
    if args.tls:
        cert, key = os.path.join(args.folder, "cert.pem"), os.path.join(args.folder, "key.pem")
        if not os.path.exists(cert):
            subprocess.run(
                ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "3650",
                 "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                check=True, capture_output=True,
            )
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        options.update(tls_context=context, require_starttls=True)
    if args.auth:
        user, password = args.auth.split(":", 1)

        def authenticate(server, session, envelope, mechanism, data):
            ok = data.login == user.encode() and data.password == password.encode()
            return AuthResult(success=ok, handled=False)

        options.update(authenticator=authenticate, auth_required=True, auth_require_tls=args.tls)
    # A free port: one the system gave a moment ago may be taken again before the server binds it.
    for attempt in range(20):
        port = args.port
        if port == 0:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
        controller = WitnessController(Keeper(args.folder, args.delay), hostname="127.0.0.1", port=port, **options)
        try:
            controller.start()
            break
        except (OSError, RuntimeError):
            if args.port or attempt == 19:
                raise
    print(f"ready {port}", flush=True)
    try:
        asyncio.get_event_loop_policy().get_event_loop().run_forever()
    except KeyboardInterrupt:
        pass
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
