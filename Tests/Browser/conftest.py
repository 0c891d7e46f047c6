"""End-to-end browser tests of PointApp: the release server on a fresh data folder, driven by
headless Chromium through Selenium.

Run from the repository's folder:

    python3 -m pytest Tests/Browser -q [--binary PATH] [--screenshots DIR]
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from helpers import Browser

REPO = Path(__file__).resolve().parents[2]

WINDOWS = {"phone": (390, 844), "desktop": (1280, 800)}


def pytest_addoption(parser):
    parser.addoption("--binary", default=".build/release/pointapp",
                     help="the pointapp server to test (relative paths start at the repository's folder)")
    parser.addoption("--faketime", default=None,
                     help="run the server with its clock moved by this offset (Debian's faketime, e.g. +730d): "
                          "nothing may depend on today's date")
    parser.addoption("--screenshots", default=os.environ.get("POINTAPP_SCREENSHOTS", "/tmp/pointapp-screenshots"),
                     help="folder for a PNG of every page visited (POINTAPP_SCREENSHOTS)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """The server process on its own data folder and port."""

    def __init__(self, binary: Path, data: Path, log: Path, faketime: str | None = None):
        self.binary = binary
        self.data = data
        self.log = log
        # Debian's libfaketime in the server's own process: the `faketime` command would stand
        # between it and the SIGTERM that stops it. A shell that has the library already execs
        # the server (a Swift program exec'd by a process without it was seen to lose its
        # arguments).
        self.env, self.launch = dict(os.environ), []
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
            self.launch + [str(binary), "--port", str(self.port), "--metrics-port", str(self.metrics_port), "--data", str(data),
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

    def create_operator(self, email: str, password: str):
        """Makes an operator as the README says, with the password on standard input."""
        subprocess.run(self.launch + [str(self.binary), "create-operator", "--email", email, "--data", str(self.data)],
                       input=password + "\n", text=True, check=True, capture_output=True, env=self.env)

    def seed_user(self, points: int) -> str:
        """A returning user who already holds `points` from one old reward, as the server saves
        users (`data/users/<session id>.json`, schema version 2). The catalog pays less than the
        cheapest exchange in total, so only such a user can exchange. Written (atomically) before
        the server first hears of the user."""
        session = uuid.uuid4().hex
        state = {
            "progress": {
                "achievements": {}, "answered": {}, "answeredCount": 0,
                "ledger": {
                    "archivedCount": 0,
                    "recent": [{"amount": points, "date": "2026-10-01T03:00:00Z", "id": str(uuid.uuid4()).upper(),
                                "reason": {"surveyReward": {"_0": "past-campaign"}}}],
                    "totalEarned": points, "totalSpent": 0,
                },
                "missions": {"claimed": [], "pointsEarned": 0, "surveysAnswered": 0, "visited": False},
                "streak": {"current": 0, "longest": 0},
            },
            "schemaVersion": 2,
        }
        users = self.data / "users"
        users.mkdir(parents=True, exist_ok=True)
        temporary = users / f".{session}.seed"
        temporary.write_text(json.dumps(state, ensure_ascii=False))
        temporary.rename(users / f"{session}.json")
        return session


@pytest.fixture(scope="session")
def server(request):
    binary = Path(request.config.getoption("--binary"))
    if not binary.is_absolute():
        binary = REPO / binary
    if not os.access(binary, os.X_OK):
        pytest.exit(f"no server binary at {binary}: build it (swift build -c release) or pass --binary", returncode=2)
    folder = Path(tempfile.mkdtemp(prefix="pointapp-browser-"))
    server = Server(binary, folder / "data", folder / "server.log", request.config.getoption("--faketime"))
    server.wait_until_healthy()
    yield server
    server.assert_alive()
    status = server.stop()
    assert status == 0, f"the server exited with status {status} on SIGTERM:\n{server.log_tail()}"
    shutil.rmtree(folder)


@pytest.fixture(autouse=True)
def server_stays_up(request):
    """Every test fails loudly if the server died during it."""
    yield
    if "server" in request.fixturenames:
        request.getfixturevalue("server").assert_alive()


@pytest.fixture(scope="session")
def screenshots(request):
    folder = Path(request.config.getoption("--screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    for window in WINDOWS:  # only this suite's own PNGs of an earlier run
        for old in folder.glob(f"{window}-*.png"):
            old.unlink()
    return folder


@pytest.fixture(params=list(WINDOWS))
def window(request):
    return request.param


def new_driver(width: int, height: int) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={width},{height}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    return driver


@pytest.fixture
def browser(window, server, screenshots):
    """A person with their own cookie jar, in the window of a phone or a desktop."""
    driver = new_driver(*WINDOWS[window])
    try:
        yield Browser(driver, server.base_url, window, WINDOWS[window], screenshots)
    finally:
        driver.quit()


@pytest.fixture
def devices(server, screenshots):
    """Opens people's devices on demand, each with its own cookie jar: `devices("phone")`."""
    drivers = []

    def open_device(window: str) -> Browser:
        driver = new_driver(*WINDOWS[window])
        drivers.append(driver)
        return Browser(driver, server.base_url, window, WINDOWS[window], screenshots)

    yield open_device
    for driver in drivers:
        driver.quit()
