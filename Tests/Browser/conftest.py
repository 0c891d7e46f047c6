"""End-to-end browser tests of PointApp: the release server on a fresh data folder, driven by
headless Chromium through Selenium.

Run from the repository's folder:

    python3 -m pytest Tests/Browser -q [--binary PATH] [--screenshots DIR]
"""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from helpers import Authenticator, Browser
from servers import Server, server_binary

WINDOWS = {"phone": (390, 844), "desktop": (1280, 800)}

# Chromium leaves a folder of its own in the temporary folder for each browser it starts
# (`org.chromium.Chromium.*`): the run's browsers make theirs in this one, removed at the end.
BROWSER_TEMP = tempfile.mkdtemp(prefix="pointapp-chromium-")
atexit.register(shutil.rmtree, BROWSER_TEMP, ignore_errors=True)


def pytest_addoption(parser):
    parser.addoption("--binary", default=".build/release/pointapp",
                     help="the pointapp server to test (relative paths start at the repository's folder)")
    parser.addoption("--faketime", default=None,
                     help="run the server with its clock moved by this offset (Debian's faketime, e.g. +730d): "
                          "nothing may depend on today's date")
    parser.addoption("--screenshots", default=os.environ.get("POINTAPP_SCREENSHOTS", "/tmp/pointapp-screenshots"),
                     help="folder for a PNG of every page visited (POINTAPP_SCREENSHOTS)")


@pytest.fixture(scope="session")
def server(request):
    folder = Path(tempfile.mkdtemp(prefix="pointapp-browser-"))
    # The whole suite's members come from one address, as behind a carrier's NAT: the server
    # allows that address more logins and registrations a minute than the default 20 (which
    # AccountTests check), or the suite's pace decides which test is refused.
    server = Server(server_binary(request.config), folder / "data", folder / "server.log", request.config.getoption("--faketime"),
                    extra=["--logins-per-minute", "600"])
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
    driver = webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver", env=dict(os.environ, TMPDIR=BROWSER_TEMP)))
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
def devices(request, screenshots):
    """Opens people's devices on demand, each with its own cookie jar: `devices("phone")` on the
    session's server, `devices("phone", server)` on another one."""
    drivers = []

    def open_device(window: str, server: Server | None = None) -> Browser:
        server = server or request.getfixturevalue("server")
        driver = new_driver(*WINDOWS[window])
        drivers.append(driver)
        return Browser(driver, server.base_url, window, WINDOWS[window], screenshots)

    yield open_device
    for driver in drivers:
        driver.quit()


@pytest.fixture(scope="session")
def console_admin(server):
    """The session's server's first operator, a 管理者 (as a store's first must be), and their
    authenticator, enrolled at their first sign-in: (address, password, authenticator)."""
    email, password = "ops@example.jp", "correct horse battery"
    server.create_operator(email, password)
    return email, password, Authenticator(server)
