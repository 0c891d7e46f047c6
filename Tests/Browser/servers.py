"""The server processes the browser tests drive: on a data folder (the session's `server`
fixture), or on a PostgreSQL database that several instances share (test_editor.py)."""

import base64
import hashlib
import hmac
import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def clock_offset(faketime: str | None) -> timedelta:
    """How far the server's clock is moved by a relative faketime offset (+730d, -2h, +90m, +30):
    libfaketime's seconds, minutes, hours, days and years."""
    if not faketime:
        return timedelta()
    found = re.fullmatch(r"([+-]\d+(?:\.\d+)?)([smhdy]?)", faketime.strip())
    if not found:
        pytest.exit(f"--faketime {faketime!r}: only a relative offset such as +730d is supported", returncode=2)
    seconds = {"": 1, "s": 1, "m": 60, "h": 3_600, "d": 86_400, "y": 365 * 86_400}[found.group(2)]
    return timedelta(seconds=float(found.group(1)) * seconds)


def faketime_of(offset: timedelta) -> str | None:
    """libfaketime's relative offset for `offset` (`None` for none)."""
    return f"{int(offset.total_seconds()):+d}s" if offset else None


def server_binary(config: pytest.Config) -> Path:
    """The binary --binary names; the run stops at once when there is none."""
    binary = Path(config.getoption("--binary"))
    if not binary.is_absolute():
        binary = REPO / binary
    if not os.access(binary, os.X_OK):
        pytest.exit(f"no server binary at {binary}: build it (swift build -c release) or pass --binary", returncode=2)
    return binary


class Server:
    """The server process on its own port, keeping everything in its own data folder, or in the
    PostgreSQL database at `database_url` (then `data` is not used: pass None)."""

    def __init__(self, binary: Path, data: Path | None, log: Path, faketime: str | None = None,
                 database_url: str | None = None, extra: list[str] = ()):
        """`extra`: more options (a gift provider's). On PostgreSQL every server whose log is in
        one folder seals gift codes with the keys of one file there."""
        self.binary = binary
        self.data = data
        self.log = log
        self.store = ["--database-url", database_url] if database_url else ["--data", str(data)]
        serving = (["--code-keys", str(log.parent / "code-keys")] if database_url else []) + list(extra)
        # Debian's libfaketime in the server's own process: the `faketime` command would stand
        # between it and the SIGTERM that stops it. A shell that has the library already execs
        # the server (a Swift program exec'd by a process without it was seen to lose its
        # arguments).
        self.env, self.launch = dict(os.environ), []
        self.clock_offset = clock_offset(faketime)
        if faketime:
            libraries = sorted(Path("/usr/lib").glob("*/faketime/libfaketimeMT.so.1"))
            if not libraries:
                pytest.exit("--faketime needs Debian's faketime: apt-get install faketime", returncode=2)
            self.env.update(LD_PRELOAD=str(libraries[0]), FAKETIME=faketime)
            self.launch = ["/bin/sh", "-c", 'exec "$0" "$@"']
        self.port, self.metrics_port = free_port(), free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.metrics_url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        self.process = subprocess.Popen(
            self.launch + [str(binary), "--port", str(self.port), "--metrics-port", str(self.metrics_port), *self.store, *serving,
             "--templates", str(REPO / "Templates"), "--public", str(REPO / "Public")],
            stdout=log.open("wb"), stderr=subprocess.STDOUT, env=self.env,
        )

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def assert_alive(self):
        code = self.process.poll()
        if code is not None:
            pytest.fail(f"the server died (exit status {code}); its log ends with:\n{self.log_tail()}", pytrace=False)

    def wait_until_healthy(self, timeout: float = 30):
        deadline = time.monotonic() + timeout
        while True:
            self.assert_alive()
            try:
                with urllib.request.urlopen(self.base_url + "/healthz", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.process.kill()
                pytest.fail(f"the server did not answer /healthz within {timeout}s:\n{self.log_tail()}", pytrace=False)
            time.sleep(0.1)

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            pytest.fail(f"the server did not stop within 15s of SIGTERM:\n{self.log_tail()}", pytrace=False)

    def create_operator(self, email: str, password: str, role: str = "administrator"):
        """Makes an operator as the README says, with the password on standard input, in the
        server's own store."""
        subprocess.run(self.launch + [str(self.binary), "create-operator", "--email", email, "--role", role, *self.store],
                       input=password + "\n", text=True, check=True, capture_output=True, env=self.env)

    def now(self) -> datetime:
        """The server's clock."""
        return datetime.now(timezone.utc) + self.clock_offset

    def seed_user(self, points: int) -> str:
        """A returning user who already holds `points` from one old reward, as the server saves
        users (`data/users/<user id>.json`, schema version 2), and a session of theirs as the
        server keeps it (`data/sessions/<session id>.json`); the session cookie's value, with the
        server's mark (HMAC-SHA256 of "issued <id>" under the folder's `settings/session-secret`), as the
        server would have issued it. The catalog pays less than the cheapest exchange in total, so
        only such a user can exchange. Written (atomically) before the server first hears of the
        user. A server on a data folder only.

        The reward is 40 days old by the server's clock (--faketime too): always from an earlier
        month, so it counts toward this month's rank (3,000pt and more: シルバー), and always far
        from expiring (the 12th month after it)."""
        assert self.data is not None, "seed_user writes into a data folder: this server keeps its users in PostgreSQL"
        user, session = uuid.uuid4().hex, uuid.uuid4().hex
        earned = (self.now() - timedelta(days=40)).strftime("%Y-%m-%dT%H:%M:%SZ")
        state = {
            "progress": {
                "achievements": {}, "answered": {}, "answeredCount": 0,
                "ledger": {
                    "archivedCount": 0,
                    "recent": [{"amount": points, "date": earned, "id": str(uuid.uuid4()).upper(),
                                "reason": {"surveyReward": {"_0": "past-campaign"}}}],
                    "totalEarned": points, "totalSpent": 0,
                },
                "missions": {"claimed": [], "pointsEarned": 0, "surveysAnswered": 0, "visited": False},
                "streak": {"current": 0, "longest": 0},
            },
            "schemaVersion": 2,
        }
        record = {"epoch": 0, "lastSeen": self.now().strftime("%Y-%m-%dT%H:%M:%SZ"), "user": user}
        for folder, name, content in (("users", user, state), ("sessions", session, record)):
            directory = self.data / folder
            directory.mkdir(parents=True, exist_ok=True)
            temporary = directory / f".{name}.seed"
            temporary.write_text(json.dumps(content, ensure_ascii=False))
            temporary.rename(directory / f"{name}.json")
        key = base64.b64decode(json.loads((self.data / "settings" / "session-secret.json").read_text())["record"])
        mark = hmac.new(key, f"issued {session}".encode(), hashlib.sha256).hexdigest()[:16]
        return f"{session}.{mark}"
